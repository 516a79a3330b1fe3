// stsLocalOffsets.wgsl — WGSL twin of assembly/kernels/sts/countingSort.ts stsLocalOffsets
// (seed 004): thread g turns its own row of counts into its exclusive prefix sum localOff[g·k + c].

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  nChannels: u32,
}

@group(0) @binding(0) var<storage, read> counts: array<u32>;
@group(0) @binding(1) var<storage, read_write> localOff: array<u32>;
@group(0) @binding(2) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsLocalOffsets(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let g = blockIdx * BLOCK_X + threadIdx.x;
  let k = launch.nChannels;
  let row = g * k;
  var run = 0u;
  for (var c = 0u; c < k; c++) {
    let v = counts[row + c];
    localOff[row + c] = run;
    run += v;
  }
}
