// scanSingle.wgsl — WGSL twin of assembly/kernels/sts/scan.ts scanSingle (seed 004), one block:
// data[0..n) ← exclusive scan of data (in place), total[0] ← Σ data (u32, wrapping).
// Thread t owns the blocked slice [t·items, (t+1)·items), items = ⌈n / BLOCK_X⌉; thread 0 rakes
// the slice sums in shared memory, then every thread scans its slice from its start value.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
}

@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> total: array<u32>;
@group(0) @binding(2) var<uniform> launch: Launch;

var<workgroup> s: array<u32, BLOCK_X>;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn scanSingle(@builtin(local_invocation_id) threadIdx: vec3u) {
  let n = u32(max(launch.n, 0));
  let items = (n + BLOCK_X - 1u) / BLOCK_X;
  let t = threadIdx.x;
  let b = min(n, t * items);
  let e = min(n, b + items);
  var acc = 0u;
  for (var i = b; i < e; i++) { acc += data[i]; }
  s[t] = acc;
  workgroupBarrier();
  if (t == 0u) {
    var run = 0u;
    for (var k = 0u; k < BLOCK_X; k++) {
      let v = s[k];
      s[k] = run;
      run += v;
    }
    total[0] = run;
  }
  workgroupBarrier();
  var run = s[t];
  for (var i = b; i < e; i++) {
    let v = data[i];
    data[i] = run;
    run += v;
  }
}
