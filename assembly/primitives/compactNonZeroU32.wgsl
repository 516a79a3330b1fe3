// compactNonZeroU32.wgsl — WGSL twin of compactNonZeroU32 (kernels.ts over compaction.ts):
// stream compaction of the non-zero elements of input[0..n) into output, seed 001's pattern:
//
//   thread t counts the non-zero elements among its `items` consecutive ones (from
//   b·BLOCK_X·items + t·items); a workgroup scan gives its offset in the block; the last thread
//   reserves the block's range with ONE atomicAdd(counter, blockTotal) into a workgroup cell;
//   after a barrier every thread copies its kept elements, in order, from base + offset.
//
// counter[0] ends as the number kept (plus its initial value). Inside a block the output keeps
// input order; between blocks it follows the order of the atomicAdds, which depends on the
// schedule: cross-check the output as a multiset and the counter exactly.

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
@group(0) @binding(2) var<storage, read_write> counter: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> launch: Launch;

var<workgroup> scanTile: array<u32, BLOCK_X>;
var<workgroup> blockBase: u32;

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
fn compactNonZeroU32(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let items = u32(max(launch.items, 0));
  let t = threadIdx.x;
  let first = blockIdx * BLOCK_X * items + t * items;
  var c = 0u;
  for (var j = 0u; j < items; j = j + 1u) {
    let i = first + j;
    if (i < n && input[i] != 0u) { c = c + 1u; }
  }
  let incl = workgroupScanInclusive(t, c);
  if (t == BLOCK_X - 1u) { blockBase = atomicAdd(&counter[0], incl); }
  workgroupBarrier();
  var o = blockBase + incl - c;
  for (var j = 0u; j < items; j = j + 1u) {
    let i = first + j;
    if (i >= n) { break; }
    let v = input[i];
    if (v != 0u) {
      output[o] = v;
      o = o + 1u;
    }
  }
}
