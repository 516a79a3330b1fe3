// petSplitSingles.wgsl — WGSL twin of petSplitSingles (singles.ts): SinglesStruct[n] records
// (4 u32 words: crystal, energy f32 bits, time f64 lo, hi) → crystal[n], energy[n], time[n].
// `time` is an f64 column, bound as array<vec2u> of the host's (lo, hi) words: the bits are
// copied, no f64 arithmetic. Grid-stride, one record per thread. Exact.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> crystal: array<u32>;
@group(0) @binding(2) var<storage, read_write> energy: array<u32>;
@group(0) @binding(3) var<storage, read_write> time: array<vec2u>;
@group(0) @binding(4) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn petSplitSingles(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let stride = launch.gridDim.x * BLOCK_X;
  var i = blockIdx * BLOCK_X + threadIdx.x;
  while (i < n) {
    crystal[i] = src[4u * i];
    energy[i] = src[4u * i + 1u];
    time[i] = vec2u(src[4u * i + 2u], src[4u * i + 3u]);
    let next = i + stride;
    if (next < i) { break; }
    i = next;
  }
}
