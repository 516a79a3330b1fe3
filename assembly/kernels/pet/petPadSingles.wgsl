// petPadSingles.wgsl — WGSL twin of petPadSingles (sort.ts), seed 001's addPadding: records
// [n, total) of both buffers = {crystal 0xffffffff, energy 0 (+0.0), time +∞ (f64 bits
// 0x7ff00000_00000000)}. Grid-stride from n over blockDim.x-wide chunks. Exact.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
  total: i32,
}

@group(0) @binding(0) var<storage, read_write> a: array<vec4u>;
@group(0) @binding(1) var<storage, read_write> b: array<vec4u>;
@group(0) @binding(2) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn petPadSingles(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  if (launch.total <= launch.n || launch.n < 0) { return; }
  let n = u32(launch.n);
  let total = u32(launch.total);
  let pad = vec4u(0xffffffffu, 0u, 0u, 0x7ff00000u);
  let stride = launch.gridDim.x * BLOCK_X;
  var i = n + blockIdx * BLOCK_X + threadIdx.x;
  while (i < total) {
    a[i] = pad;
    b[i] = pad;
    let next = i + stride;
    if (next < i) { break; }
    i = next;
  }
}
