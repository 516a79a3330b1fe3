// petCoinFill.wgsl — WGSL twin of petCoinFill (coincidence.ts), seed 001's CorrectPosKernel with
// the block offsets from a device scan of globalLen: pair o = (singles[i], singles[i + 1]) for
// the pair starts i of thread (b·BLOCK_X + t)'s `elems` singles, at
// o = blockOffsets[b] + scanId[thread] + (starts before i); pairFirst[o] = i. Exact.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
  elems: i32,
}

@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> pairs: array<u32>;
@group(0) @binding(2) var<storage, read_write> pairFirst: array<u32>;
@group(0) @binding(3) var<storage, read> nextIndex: array<i32>;
@group(0) @binding(4) var<storage, read> scanId: array<u32>;
@group(0) @binding(5) var<storage, read> blockOffsets: array<u32>;
@group(0) @binding(6) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn petCoinFill(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let elems = u32(max(launch.elems, 0));
  let thread = blockIdx * BLOCK_X + threadIdx.x;
  let first = thread * elems;
  if (first >= n) { return; }
  var o = blockOffsets[blockIdx] + scanId[thread];
  let last = min(n, first + elems);
  for (var i = first; i < last; i = i + 1u) {
    if (nextIndex[i] != -1) {
      for (var w = 0u; w < 8u; w = w + 1u) { pairs[8u * o + w] = data[4u * i + w]; }
      pairFirst[o] = i;
      o = o + 1u;
    }
  }
}
