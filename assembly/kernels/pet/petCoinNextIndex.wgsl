// petCoinNextIndex.wgsl — WGSL twin of petCoinNextIndex (coincidence.ts), seed 001's
// CoinTimeKernel: nextIndex[i] = the last j > i reached by stepping while
// time[j] - time[i] <= window, or -1. Block b: singles [b·BLOCK_X·elems, …), thread t the
// singles t, t + BLOCK_X, … of that range. Exact (see the time comparison below).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
  windowLo: u32,
  windowHi: u32,
  elems: i32,
}

@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> nextIndex: array<i32>;
@group(0) @binding(2) var<uniform> launch: Launch;

// Times: the f64 in words 2, 3 of each record. The pipeline's times are tick counts (u64)
// converted to f64, so they are non-negative integers below 2^64: u64OfF64Bits recovers that
// integer exactly, the difference of two of them is an exact integer, and the f64 subtraction
// time[j] - time[i] is that integer rounded to nearest (f64BitsOfU64): the comparison with the
// window is done on those bits (f64Key), exactly as wasm does it in f64. (A time of 2^64 or a
// non-integer time is outside what this twin reproduces; convert never produces one.)
fn timeAt(i: u32) -> vec2u { return u64OfF64Bits(vec2u(data[4u * i + 2u], data[4u * i + 3u])); }

// f64: later - earlier <= window.
fn within(later: vec2u, earlier: vec2u) -> bool {
  return f64DiffWithin(later, earlier, vec2u(launch.windowLo, launch.windowHi));
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn petCoinNextIndex(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let perBlock = BLOCK_X * u32(max(launch.elems, 0));
  let offset = blockIdx * perBlock;
  var len = 0u;
  if (offset < n) { len = min(perBlock, n - offset); }
  for (var tx = threadIdx.x; tx < len; tx = tx + BLOCK_X) {
    let cur = offset + tx;
    let t0 = timeAt(cur);
    var next = cur + 1u;
    while (next < n && within(timeAt(next), t0)) { next = next + 1u; }
    nextIndex[cur] = select(i32(next) - 1, -1, next == cur + 1u);
  }
}
