// stsCountChunks.wgsl — WGSL twin of assembly/kernels/sts/countingSort.ts stsCountChunks
// (seed 004): global thread g of P = gridDim.x·BLOCK_X counts its chunk [g·n/P, (g+1)·n/P).
// layout 0: hist[c·P + g]; layout 1: hist[g·nChannels + c]. Only thread g touches its cells, so
// plain increments are exact. Bad channels: bad[0] = atomicMin of the index, not counted.
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
  layoutKind: i32, // the `layout` parameter (a reserved word in WGSL)
}

@group(0) @binding(0) var<storage, read> digis: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<u32>;
@group(0) @binding(2) var<storage, read_write> bad: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> launch: Launch;

// chunkBegin(g, p, n) = floor(g·n / p) is in the wide.wgsl prelude.

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsCountChunks(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let p = launch.gridDim.x * BLOCK_X;
  let g = blockIdx * BLOCK_X + threadIdx.x;
  let e = chunkBegin(g + 1u, p, n);
  let k = launch.nChannels;
  let rowStep = select(1u, p, launch.layoutKind == 0);
  let colBase = select(g * k, g, launch.layoutKind == 0);
  for (var i = chunkBegin(g, p, n); i < e; i++) {
    let c = digis[2u * i];
    if (c >= k) { atomicMin(&bad[0], i); continue; }
    let cell = colBase + c * rowStep;
    hist[cell] = hist[cell] + 1u;
  }
}
