// stsMergeKeys.wgsl — WGSL twin of assembly/kernels/sts/mergeSort.ts stsMergeKeys (seed 004):
// One merge round over u64 keys (bound as (lo, hi) words): runs (2j, 2j+1) of src into dst.
// 64-bit values as (lo, hi) u32 word pairs of an array<u32>: a digi is (channel, time) = words
// (2i, 2i+1), a u64 key channel << 32 | time is (time, channel). Keys compare as (hi, lo).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  nRuns: i32,
  n: i32,
  elementsPerThread: i32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> starts: array<u32>;
@group(0) @binding(3) var<uniform> launch: Launch;

fn keyLess(a: vec2u, b: vec2u) -> bool {
  return a.x < b.x || (a.x == b.x && a.y < b.y);
}

fn keyAt(i: u32) -> vec2u { return vec2u(src[2u * i + 1u], src[2u * i]); }

// Co-rank: how many of A's first elements precede output position d of merge(A, B), A first on ties.
fn coRank(a0: u32, lenA: u32, b0: u32, lenB: u32, d: u32) -> u32 {
  var lo = select(0u, d - lenB, d > lenB);
  var hi = min(d, lenA);
  while (lo < hi) {
    let mid = (lo + hi) >> 1u;
    if (keyLess(keyAt(b0 + d - mid - 1u), keyAt(a0 + mid))) { hi = mid; } else { lo = mid + 1u; }
  }
  return lo;
}

// The pair holding output position p: the largest j with starts[2j] <= p.
fn pairOf(nPairs: u32, p: u32) -> u32 {
  var lo = 0u;
  var hi = nPairs - 1u;
  while (lo < hi) {
    let mid = (lo + hi + 1u) >> 1u;
    if (starts[2u * mid] <= p) { lo = mid; } else { hi = mid - 1u; }
  }
  return lo;
}

fn copyDigi(to: u32, at: u32) {
  dst[2u * to] = src[2u * at];
  dst[2u * to + 1u] = src[2u * at + 1u];
}

fn mergeRange(nRuns: u32, p0: u32, end: u32) {
  let nPairs = (nRuns + 1u) >> 1u;
  var j = pairOf(nPairs, p0);
  var p = p0;
  while (p < end) {
    let a0 = starts[2u * j];
    let mid = starts[min(2u * j + 1u, nRuns)];
    let e = starts[min(2u * j + 2u, nRuns)];
    let lenA = mid - a0;
    let lenB = e - mid;
    let d = p - a0;
    var ia = coRank(a0, lenA, mid, lenB, d);
    var ib = d - ia;
    let stop = min(end, e);
    while (p < stop && ia < lenA && ib < lenB) {
      if (!keyLess(keyAt(mid + ib), keyAt(a0 + ia))) { copyDigi(p, a0 + ia); ia++; } else { copyDigi(p, mid + ib); ib++; }
      p++;
    }
    while (p < stop && ia < lenA) { copyDigi(p, a0 + ia); ia++; p++; }
    while (p < stop && ib < lenB) { copyDigi(p, mid + ib); ib++; p++; }
    j++;
  }
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsMergeKeys(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let nRuns = u32(max(launch.nRuns, 0));
  let per = u32(max(launch.elementsPerThread, 1));
  let stride = launch.gridDim.x * BLOCK_X * per;
  var base = blockIdx * BLOCK_X * per;
  while (base < n) {
    let p = base + threadIdx.x * per;
    if (p < n && p >= base) { mergeRange(nRuns, p, select(n, p + per, p + per < n && p + per > p)); }
    let nextBase = base + stride;
    if (nextBase < base) { break; }
    base = nextBase;
  }
}
