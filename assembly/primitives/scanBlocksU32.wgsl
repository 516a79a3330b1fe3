// scanBlocksU32.wgsl — WGSL twin of scanBlocksU32 (deviceScan.ts), step 1 of the device-wide
// exclusive scan of u32 (src/ops/scan.ts: deviceExclusiveScan):
//
//   block b owns the tile [b·BLOCK_X·items, (b+1)·BLOCK_X·items) of input; thread t owns the
//   `items` consecutive elements from b·BLOCK_X·items + t·items: it sums them, the workgroup scans
//   the threads' sums (exclusive), then every thread writes its elements' exclusive prefixes
//   (within the tile) to output and thread 0 writes the tile's total to blockSums[b].
//
// Wrapping u32 arithmetic, so the result is the same on every backend and schedule (exact
// cross-check). `output` may be the same array as `input` (the recursion over the block sums
// does that): WebGPU forbids binding one buffer read-only and writable in one dispatch, so the
// runtime then binds `input` to a copy made just before the pass — the same values, since each
// element is read (by the thread that owns it) before it is written. blockDim = (BLOCK_X, 1, 1);
// any BLOCK_X up to the adapter's limit (Hillis–Steele over BLOCK_X cells of workgroup memory).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
  items: i32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> blockSums: array<u32>;
@group(0) @binding(3) var<uniform> launch: Launch;

var<workgroup> scanTile: array<u32, BLOCK_X>;

// Inclusive scan of v over the workgroup's threads (t = local index); every thread must call it.
fn workgroupScanInclusive(t: u32, v: u32) -> u32 {
  scanTile[t] = v;
  workgroupBarrier();
  for (var off = 1u; off < BLOCK_X; off = off << 1u) {
    var x = scanTile[t];
    if (t >= off) { x = x + scanTile[t - off]; }
    workgroupBarrier();
    scanTile[t] = x;
    workgroupBarrier();
  }
  return scanTile[t];
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn scanBlocksU32(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let items = u32(max(launch.items, 0));
  let t = threadIdx.x;
  let first = blockIdx * BLOCK_X * items + t * items;
  var s = 0u;
  for (var j = 0u; j < items; j = j + 1u) {
    let i = first + j;
    if (i < n) { s = s + input[i]; }
  }
  let incl = workgroupScanInclusive(t, s);
  var run = incl - s;
  for (var j = 0u; j < items; j = j + 1u) {
    let i = first + j;
    if (i >= n) { break; }
    let v = input[i];
    output[i] = run;
    run = run + v;
  }
  if (t == 0u) { blockSums[blockIdx] = scanTile[BLOCK_X - 1u]; }
}
