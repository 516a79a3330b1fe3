// stsLocalMerge.wgsl — WGSL twin of assembly/kernels/sts/countingSort.ts stsLocalMerge
// (seed 004): thread g moves each of its channel segments from tmp to chanStart[c] + colOff[g·k + c].
// A digi is (channel, time): words 2i and 2i+1 of the host's u32[2n] (array<u32>, not
// array<u32>, so that an empty array's 4-byte buffer still binds).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
  nChannels: u32,
}

@group(0) @binding(0) var<storage, read> tmp: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read> counts: array<u32>;
@group(0) @binding(3) var<storage, read> localEnd: array<u32>;
@group(0) @binding(4) var<storage, read> colOff: array<u32>;
@group(0) @binding(5) var<storage, read> chanStart: array<u32>;
@group(0) @binding(6) var<uniform> launch: Launch;

// chunkBegin(g, p, n) = floor(g·n / p) is in the wide.wgsl prelude.

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsLocalMerge(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let p = launch.gridDim.x * BLOCK_X;
  let g = blockIdx * BLOCK_X + threadIdx.x;
  let b = chunkBegin(g, p, n);
  let k = launch.nChannels;
  let row = g * k;
  for (var c = 0u; c < k; c++) {
    let m = counts[row + c];
    if (m == 0u) { continue; }
    let src = b + localEnd[row + c] - m;
    let dst = chanStart[c] + colOff[row + c];
    for (var q = 2u * dst; q < 2u * (dst + m); q++) { out[q] = tmp[q - 2u * dst + 2u * src]; }
  }
}
