// stsColumnOffsets.wgsl — WGSL twin of assembly/kernels/sts/countingSort.ts stsColumnOffsets
// (seed 004): one thread per channel c (grid-stride) walks the nRows thread-major rows:
// colOff[g·k + c] = Σ_{g' < g} counts[g'·k + c], totals[c] = Σ_g counts[g·k + c].

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  nChannels: i32,
  nRows: i32,
}

@group(0) @binding(0) var<storage, read> counts: array<u32>;
@group(0) @binding(1) var<storage, read_write> colOff: array<u32>;
@group(0) @binding(2) var<storage, read_write> totals: array<u32>;
@group(0) @binding(3) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsColumnOffsets(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let k = u32(max(launch.nChannels, 0));
  let rows = u32(max(launch.nRows, 0));
  let stride = BLOCK_X * launch.gridDim.x;
  var c = BLOCK_X * blockIdx + threadIdx.x;
  while (c < k) {
    var run = 0u;
    for (var g = 0u; g < rows; g++) {
      let at = g * k + c;
      let v = counts[at];
      colOff[at] = run;
      run += v;
    }
    totals[c] = run;
    let next = c + stride;
    if (next < c) { break; }
    c = next;
  }
}
