// petCoinCount.wgsl — WGSL twin of petCoinCount (coincidence.ts), seed 001's FillDataKernel with
// every thread at the barriers: thread t of block b counts the pair starts (nextIndex != -1)
// among its `elems` consecutive singles from (b·BLOCK_X + t)·elems; a workgroup exclusive scan
// → scanId[b·BLOCK_X + t]; the block total → globalLen[b] and atomicAdd(newLength[0]). Exact.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
  elems: i32,
}

@group(0) @binding(0) var<storage, read> nextIndex: array<i32>;
@group(0) @binding(1) var<storage, read_write> scanId: array<u32>;
@group(0) @binding(2) var<storage, read_write> globalLen: array<u32>;
@group(0) @binding(3) var<storage, read_write> newLength: array<atomic<u32>>;
@group(0) @binding(4) var<uniform> launch: Launch;

var<workgroup> scanTile: array<u32, BLOCK_X>;

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
fn petCoinCount(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let elems = u32(max(launch.elems, 0));
  let t = threadIdx.x;
  let thread = blockIdx * BLOCK_X + t;
  let first = thread * elems;
  var c = 0u;
  if (first < n) {
    let last = min(n, first + elems);
    for (var i = first; i < last; i = i + 1u) { if (nextIndex[i] != -1) { c = c + 1u; } }
  }
  let incl = workgroupScanInclusive(t, c);
  if (t == BLOCK_X - 1u) {
    atomicAdd(&newLength[0], incl);
    globalLen[blockIdx] = incl;
  }
  scanId[thread] = incl - c;
}
