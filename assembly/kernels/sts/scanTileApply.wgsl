// scanTileApply.wgsl — WGSL twin of assembly/kernels/sts/scan.ts scanTileApply (seed 004):
// output[i] = sums[blockIdx.x] + Σ input[tile start .. i) over the block's tile (u32, wrapping).
// Partials as scanTileSums, thread 0 rakes them from sums[blockIdx.x], each thread scans its run.
// WebGPU cannot bind one buffer as both input (read) and output (read_write) of a dispatch: an
// in-place scan goes through a temporary on this backend (src/jobs/sts/scan.ts).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
  itemsPerThread: i32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read> sums: array<u32>;
@group(0) @binding(3) var<uniform> launch: Launch;

var<workgroup> s: array<u32, BLOCK_X>;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn scanTileApply(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let items = u32(max(launch.itemsPerThread, 0));
  let t = threadIdx.x;
  let b = min(n, (blockIdx * BLOCK_X + t) * items);
  let e = min(n, b + items);
  var acc = 0u;
  for (var i = b; i < e; i++) { acc += input[i]; }
  s[t] = acc;
  workgroupBarrier();
  if (t == 0u) {
    var run = sums[blockIdx];
    for (var k = 0u; k < BLOCK_X; k++) {
      let v = s[k];
      s[k] = run;
      run += v;
    }
  }
  workgroupBarrier();
  var run = s[t];
  for (var i = b; i < e; i++) {
    let v = input[i];
    output[i] = run;
    run += v;
  }
}
