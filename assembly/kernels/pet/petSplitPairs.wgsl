// petSplitPairs.wgsl — WGSL twin of petSplitPairs (singles.ts): CoinStruct[n] records (two
// SinglesStruct of 4 u32 words each) and each pair's first single → index1 = first + 1,
// crystal0/1, energy0/1 (f32 bits), time0/1 (f64 columns bound as array<vec2u> of the host's
// (lo, hi) words: the bits are copied, no f64 arithmetic). Grid-stride, one pair per thread.
// Exact.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
}

@group(0) @binding(0) var<storage, read> pairs: array<u32>;
@group(0) @binding(1) var<storage, read> first: array<u32>;
@group(0) @binding(2) var<storage, read_write> index1: array<u32>;
@group(0) @binding(3) var<storage, read_write> crystal0: array<u32>;
@group(0) @binding(4) var<storage, read_write> crystal1: array<u32>;
@group(0) @binding(5) var<storage, read_write> energy0: array<u32>;
@group(0) @binding(6) var<storage, read_write> energy1: array<u32>;
@group(0) @binding(7) var<storage, read_write> time0: array<vec2u>;
@group(0) @binding(8) var<storage, read_write> time1: array<vec2u>;
@group(0) @binding(9) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn petSplitPairs(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let stride = launch.gridDim.x * BLOCK_X;
  var i = blockIdx * BLOCK_X + threadIdx.x;
  while (i < n) {
    let p = 8u * i;
    index1[i] = first[i] + 1u;
    crystal0[i] = pairs[p];
    crystal1[i] = pairs[p + 4u];
    energy0[i] = pairs[p + 1u];
    energy1[i] = pairs[p + 5u];
    time0[i] = vec2u(pairs[p + 2u], pairs[p + 3u]);
    time1[i] = vec2u(pairs[p + 6u], pairs[p + 7u]);
    let next = i + stride;
    if (next < i) { break; }
    i = next;
  }
}
