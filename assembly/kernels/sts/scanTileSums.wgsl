// scanTileSums.wgsl — WGSL twin of assembly/kernels/sts/scan.ts scanTileSums (seed 004):
// sums[blockIdx.x] = Σ input over the block's tile of BLOCK_X·itemsPerThread items (u32, wrapping).
// Thread t sums its blocked run of itemsPerThread items into s[t]; after the barrier thread 0
// folds s in thread order. u32 addition is associative mod 2³², so the result is exact.

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
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;
@group(0) @binding(2) var<uniform> launch: Launch;

var<workgroup> s: array<u32, BLOCK_X>;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn scanTileSums(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
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
    var total = 0u;
    for (var k = 0u; k < BLOCK_X; k++) { total += s[k]; }
    sums[blockIdx] = total;
  }
}
