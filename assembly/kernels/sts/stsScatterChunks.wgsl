// stsScatterChunks.wgsl — WGSL twin of assembly/kernels/sts/countingSort.ts stsScatterChunks
// (seed 004): thread g writes its chunk in input order at chanStart[c] + colOff[g·k + c]++.
// Only thread g touches row g of colOff: stable, the same bytes on every schedule.
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

@group(0) @binding(0) var<storage, read> digis: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> colOff: array<u32>;
@group(0) @binding(3) var<storage, read> chanStart: array<u32>;
@group(0) @binding(4) var<uniform> launch: Launch;

// chunkBegin(g, p, n) = floor(g·n / p) is in the wide.wgsl prelude.

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsScatterChunks(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let p = launch.gridDim.x * BLOCK_X;
  let g = blockIdx * BLOCK_X + threadIdx.x;
  let e = chunkBegin(g + 1u, p, n);
  let k = launch.nChannels;
  let row = g * k;
  for (var i = chunkBegin(g, p, n); i < e; i++) {
    let d = vec2u(digis[2u * i], digis[2u * i + 1u]);
    if (d.x >= k) { continue; }
    let cell = row + d.x;
    let r = colOff[cell];
    colOff[cell] = r + 1u;
    let o = chanStart[d.x] + r;
    out[2u * o] = d.x;
    out[2u * o + 1u] = d.y;
  }
}
