// petConvert.wgsl — WGSL twin of petConvert (convert.ts), seed 001's convertUdpToSinglesKernel:
// raw 16-byte DataFrameV2 frames → SinglesStruct records {u32 crystal, f32 energy, f64 time}
// (4 u32 words each), filtered by the energy window and compacted by a block scan + ONE
// atomicAdd per block. Block b converts frames [b·BLOCK_X·elems, …), thread t the frames
// t, t + BLOCK_X, … of that range (the seed's threadsConvert × elemsConvert layout).
//
//   phase 1: frame i → dstBuffer[i] (uncompacted); c = frames thread t keeps
//   workgroup scan of c; the last thread: blockBase = atomicAdd(counter[0], block total)
//   phase 2: thread t copies its kept records, in its own order, to dst[blockBase + offset…]
//
// Same interpretations as the AS kernel (docs/pet.md); what differs is only how, since WGSL
// has no 8-bit storage, no 64-bit integers and no f64:
// - `frames` and `positionTable` (u8 columns) are bound as array<u32> over the host's bytes:
//   byte k is (w[k >> 2] >> (8·(k & 3))) & 0xff.
// - time: the big-endian u64 tick count nTime, converted to the bits of the f64 the AS kernel
//   gets from `<f64>u64` (round to nearest, ties to even) in integer arithmetic: f64BitsOfU64 (wide.wgsl).
// - energy bin floor(f32(raw) / 10) is computed as raw / 10 in integers: the same for every raw
//   < 2^16 (a quotient that is not an integer is at least 0.1 away from one, far more than the
//   f32 rounding) and it does not depend on the accuracy of WGSL's f32 division. The corrected
//   energy f32(raw) * factor is one f32 multiplication (correctly rounded on Vulkan).
// - the window eLow ≤ energy ≤ eHigh is compared in f64 as the AS kernel does, on the f64 bits:
//   energy → f64 exactly (f64BitsOfF32), then the three as order-preserving 64-bit keys
//   (f64Key; −0 counts as +0, a NaN energy is never kept). eLow/eHigh arrive as two u32 words
//   each (lo, hi) of their IEEE bits in the Launch uniform.
// - invalid frames (BDM, DU or x, y outside the geometry): crystal 0xffffffff, energy NaN
//   (0x7fc00000), the time; atomicMin(badFrame[0], i).
// Output order: inside a block thread order, then each thread's frames in order; between
// blocks the order of the atomicAdds (schedule dependent): cross-check singles as a multiset.

override BLOCK_X: u32 = 128;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

const NO_CRYSTAL: u32 = 0xffffffffu;
const ENERGY_BINS: u32 = 1000u;
const NAN_F32_BITS: u32 = 0x7fc00000u;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
  eLowLo: u32,
  eLowHi: u32,
  eHighLo: u32,
  eHighHi: u32,
  useWindow: i32,
  elems: i32,
}

@group(0) @binding(0) var<storage, read> frames: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read_write> dstBuffer: array<u32>;
@group(0) @binding(3) var<storage, read_write> counter: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> positionTable: array<u32>;
@group(0) @binding(5) var<storage, read> lut: array<u32>;
@group(0) @binding(6) var<storage, read> energyTable: array<f32>;
@group(0) @binding(7) var<storage, read> geometry: array<u32>;
@group(0) @binding(8) var<storage, read_write> badFrame: array<atomic<i32>>;
@group(0) @binding(9) var<uniform> launch: Launch;

var<workgroup> scanTile: array<u32, BLOCK_X>;
var<workgroup> blockBase: u32;

fn frameByte(i: u32, k: u32) -> u32 {
  return (frames[4u * i + (k >> 2u)] >> ((k & 3u) << 3u)) & 0xffu;
}

fn posByte(k: u32) -> u32 {
  return (positionTable[k >> 2u] >> ((k & 3u) << 3u)) & 0xffu;
}

// shl64, shr64, f64BitsOfU64, f64Key, le64: wide.wgsl (the prelude).

fn accepted(crystal: u32, eBits: u32) -> bool {
  if (crystal == NO_CRYSTAL) { return false; }
  if (launch.useWindow == 0) { return true; }
  if ((eBits & 0x7fffffffu) > 0x7f800000u) { return false; } // NaN
  let e = f64Key(f64BitsOfF32(bitcast<f32>(eBits)));
  return le64(f64Key(vec2u(launch.eLowLo, launch.eLowHi)), e) && le64(e, f64Key(vec2u(launch.eHighLo, launch.eHighHi)));
}

// Converts frame i into dstBuffer[i]; returns 1 if it is kept.
fn convertOne(i: u32) -> u32 {
  let bdmCount = geometry[0];
  let duNum = geometry[1];
  let P = geometry[2];
  let cpd = geometry[3];
  let du = frameByte(i, 0u) & 0x0fu;
  let bdm = frameByte(i, 1u);
  var hi = 0u;
  var lo = 0u;
  for (var k = 0u; k < 4u; k = k + 1u) {
    hi = (hi << 8u) | frameByte(i, 2u + k);
    lo = (lo << 8u) | frameByte(i, 6u + k);
  }
  let time = f64BitsOfU64(vec2u(lo, hi));
  let x = frameByte(i, 10u);
  let y = frameByte(i, 11u);
  let raw = (frameByte(i, 12u) << 8u) | frameByte(i, 13u);
  let o = 4u * i;
  dstBuffer[o + 2u] = time.x;
  dstBuffer[o + 3u] = time.y;
  if (bdm >= bdmCount || du >= duNum || x >= P || y >= P) {
    atomicMin(&badFrame[0], i32(i));
    dstBuffer[o] = NO_CRYSTAL;
    dstBuffer[o + 1u] = NAN_F32_BITS;
    return 0u;
  }
  let bd = bdm * duNum + du;
  let origin = posByte(bd * P * P + x + y * P);
  let l = 2u * (bd * cpd + origin);
  let crystal = lut[l];
  let row = lut[l + 1u];
  let bin = min(raw / 10u, ENERGY_BINS - 1u);
  let e = f32(raw) * energyTable[row + bin];
  let eBits = bitcast<u32>(e);
  dstBuffer[o] = crystal;
  dstBuffer[o + 1u] = eBits;
  return select(0u, 1u, accepted(crystal, eBits));
}

fn workgroupScanInclusive(t: u32, v: u32) -> u32 {
  scanTile[t] = v;
  workgroupBarrier();
  for (var off = 1u; off < BLOCK_X; off = off << 1u) {
    var x = scanTile[t];
    if (t >= off) { x = x + scanTile[t - off]; }
    workgroupBarrier();
    scanTile[t] = x;
    workgroupBarrier();
  }
  return scanTile[t];
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn petConvert(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let perBlock = BLOCK_X * u32(max(launch.elems, 0));
  let offset = blockIdx * perBlock;
  var len = 0u;
  if (offset < n) { len = min(perBlock, n - offset); }
  let t = threadIdx.x;
  var c = 0u;
  for (var tx = t; tx < len; tx = tx + BLOCK_X) { c = c + convertOne(offset + tx); }
  let incl = workgroupScanInclusive(t, c);
  if (t == BLOCK_X - 1u) { blockBase = atomicAdd(&counter[0], incl); }
  workgroupBarrier();
  if (c == 0u) { return; }
  var o = blockBase + incl - c;
  for (var tx = t; tx < len; tx = tx + BLOCK_X) {
    let s = 4u * (offset + tx);
    if (accepted(dstBuffer[s], dstBuffer[s + 1u])) {
      let d = 4u * o;
      dst[d] = dstBuffer[s];
      dst[d + 1u] = dstBuffer[s + 1u];
      dst[d + 2u] = dstBuffer[s + 2u];
      dst[d + 3u] = dstBuffer[s + 3u];
      o = o + 1u;
    }
  }
}
