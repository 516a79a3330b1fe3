// stsHalveRuns.wgsl — WGSL twin of assembly/kernels/sts/mergeSort.ts stsHalveRuns (seed 004):
// next[j] = starts[2j] for j < ⌈r/2⌉, next[⌈r/2⌉] = n (grid-stride over j).
// 64-bit values as (lo, hi) u32 word pairs of an array<u32>: a digi is (channel, time) = words
// (2i, 2i+1), a u64 key channel << 32 | time is (time, channel). Keys compare as (hi, lo).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  nRuns: i32,
  n: i32,
}

@group(0) @binding(0) var<storage, read> starts: array<u32>;
@group(0) @binding(1) var<storage, read_write> nextStarts: array<u32>;
@group(0) @binding(2) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsHalveRuns(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let stride = BLOCK_X * launch.gridDim.x;
  let half = (u32(max(launch.nRuns, 0)) + 1u) >> 1u;
  var j = BLOCK_X * blockIdx + threadIdx.x;
  while (j <= half) {
    nextStarts[j] = select(starts[2u * j], u32(max(launch.n, 0)), j == half);
    let nextIndex = j + stride;
    if (nextIndex < j) { break; }
    j = nextIndex;
  }
}
