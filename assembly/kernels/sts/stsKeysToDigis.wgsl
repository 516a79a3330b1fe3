// stsKeysToDigis.wgsl — WGSL twin of assembly/kernels/sts/mergeSort.ts stsKeysToDigis (seed 004):
// digis from keys: the inverse word swap.
// 64-bit values as (lo, hi) u32 word pairs of an array<u32>: a digi is (channel, time) = words
// (2i, 2i+1), a u64 key channel << 32 | time is (time, channel). Keys compare as (hi, lo).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
}

@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> digis: array<u32>;
@group(0) @binding(2) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsKeysToDigis(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let stride = BLOCK_X * launch.gridDim.x;
  let n = u32(max(launch.n, 0));
  var i = BLOCK_X * blockIdx + threadIdx.x;
  while (i < n) {
    let lo = keys[2u * i];
    digis[2u * i] = keys[2u * i + 1u];
    digis[2u * i + 1u] = lo;
    let nextIndex = i + stride;
    if (nextIndex < i) { break; }
    i = nextIndex;
  }
}
