// petMergeRanks.wgsl — WGSL twin of petMergeRanks (sort.ts), seed 001's generateRanksKernel, as
// the AS kernel's phase-loop path does it: thread s (one per 256-record sample, SUB_BLOCK_SIZE)
// of the pair of sorted runs of S records holding sample s finds, by binary search in the
// opposite run (stride 256 over its samples, then stride 1 inside a sub-block), how many
// opposite samples and records come before it, and writes its segment start to ranksEven /
// ranksOdd at pair·(2S/256) + (sorted sample index). Padding-only pairs (pair·2S ≥ n) are
// skipped. Times compared as f64Key bits (wide.wgsl): same order as f64. Integer: exact.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

const SUB: i32 = 256;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  sortedBlockSize: i32,
  n: i32,
  n2: i32,
}

@group(0) @binding(0) var<storage, read> data: array<vec4u>;
@group(0) @binding(1) var<storage, read_write> ranksEven: array<u32>;
@group(0) @binding(2) var<storage, read_write> ranksOdd: array<u32>;
@group(0) @binding(3) var<uniform> launch: Launch;

fn keyAt(i: i32) -> vec2u { let r = data[u32(i)]; return f64Key(vec2u(r.z, r.w)); }

// First i in [lo, hi] stepping `stride` with key(i) >= key (inclusive) or > key (exclusive).
fn search(key: vec2u, lo0: i32, hi0: i32, stride: i32, inclusive: bool) -> i32 {
  var lo = lo0;
  var hi = hi0;
  while (lo <= hi) {
    let mid = lo + ((hi - lo) / (2 * stride)) * stride;
    let km = keyAt(mid);
    var goLeft: bool;
    if (inclusive) { goLeft = !lt64(km, key); } else { goLeft = lt64(key, km); }
    if (goLeft) { hi = mid - stride; } else { lo = mid + stride; }
  }
  return lo;
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn petMergeRanks(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let S = launch.sortedBlockSize;
  let n = launch.n;
  let subPerSorted = S / SUB;
  let subPerMerged = 2 * subPerSorted;
  let s = i32((wg.x + launch.blockOffset) * BLOCK_X + threadIdx.x);
  let at = s * SUB;
  if (at >= launch.n2) { return; }
  let blk = at / S;
  let pair = blk >> 1u;
  if (pair * 2 * S >= n) { return; }
  let key = keyAt(at);
  let even = (blk & 1) == 0;
  let oppStart = (blk ^ 1) * S;
  let kIn = s % subPerSorted;
  let c = (search(key, oppStart, oppStart + S - SUB, SUB, even) - oppStart) / SUB;
  let sortedIndex = kIn + c;
  let rankCur = kIn * SUB;
  var rankOpp = 0;
  if (c > 0) {
    let lo = oppStart + (c - 1) * SUB + 1;
    rankOpp = search(key, lo, lo + SUB - 2, 1, even) - oppStart;
  }
  let idx = u32(pair * subPerMerged + sortedIndex);
  if (even) { ranksEven[idx] = u32(rankCur); ranksOdd[idx] = u32(rankOpp); }
  else { ranksEven[idx] = u32(rankOpp); ranksOdd[idx] = u32(rankCur); }
}
