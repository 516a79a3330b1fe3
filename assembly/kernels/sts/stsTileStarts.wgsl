// stsTileStarts.wgsl — WGSL twin of assembly/kernels/sts/mergeSort.ts stsTileStarts (seed 004):
// starts[j] = min(j·tile, n) for j ≤ nTiles (the tiles as the key sort's initial runs).
// 64-bit values as (lo, hi) u32 word pairs of an array<u32>: a digi is (channel, time) = words
// (2i, 2i+1), a u64 key channel << 32 | time is (time, channel). Keys compare as (hi, lo).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  nTiles: i32,
  tile: i32,
  n: i32,
}

@group(0) @binding(0) var<storage, read_write> starts: array<u32>;
@group(0) @binding(1) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsTileStarts(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let stride = BLOCK_X * launch.gridDim.x;
  let nTiles = u32(max(launch.nTiles, 0));
  let tile = u32(max(launch.tile, 0));
  let n = u32(max(launch.n, 0));
  var j = BLOCK_X * blockIdx + threadIdx.x;
  while (j <= nTiles) {
    starts[j] = min(j * tile, n); // j·tile < n + tile: no u32 wrap
    let nextIndex = j + stride;
    if (nextIndex < j) { break; }
    j = nextIndex;
  }
}
