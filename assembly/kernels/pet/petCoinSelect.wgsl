// petCoinSelect.wgsl — WGSL twin of petCoinSelect (coincidence.ts), seed 001's SelectKernel
// with simt's reading of it (docs/pet.md): the thread of a chain's last single (no next single
// within the window, a previous one within it) walks the chain from its start: a window of ≥ 3
// singles is erased (nextIndex = -1), one of exactly 2 is a pair unless both crystals are equal.
// One thread per chain, so the result does not depend on the schedule: exact.

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

fn selectOne(i: i32, n: i32) {
  let ti = timeAt(u32(i));
  if (i + 1 < n && within(timeAt(u32(i + 1)), ti)) { return; }
  if (i == 0 || !within(ti, timeAt(u32(i - 1)))) { return; }
  // leftIndex: the chain's start.
  var cur = i;
  var left = i - 1;
  while (left >= 0 && within(timeAt(u32(cur)), timeAt(u32(left)))) { cur = cur - 1; left = left - 1; }
  var pos = cur;
  while (pos <= i) {
    let np = nextIndex[pos];
    if (np - pos >= 2) {
      var begin = pos;
      for (; begin <= np; begin = begin + 1) { nextIndex[begin] = -1; }
      pos = begin;
    } else if (np - pos == 1) {
      if (data[4u * u32(pos)] == data[4u * u32(np)]) { nextIndex[pos] = -1; }
      pos = pos + 1;
      nextIndex[pos] = -1;
      pos = pos + 1;
    } else {
      pos = pos + 1;
    }
  }
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn petCoinSelect(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let perBlock = BLOCK_X * u32(max(launch.elems, 0));
  let offset = blockIdx * perBlock;
  var len = 0u;
  if (offset < n) { len = min(perBlock, n - offset); }
  for (var tx = threadIdx.x; tx < len; tx = tx + BLOCK_X) { selectOne(i32(offset + tx), i32(n)); }
}
