// CBM STS digi sorting (seed 004): the natural merge sort ("Alternative B" of the talk) and the
// key sort of the xpu library the talk cites (key = (u64) channel << 32 | time).
//
//   Natural Mergesort: 1. find the monotonic sub-sequences (runs); 2. merge pairs of runs, all
//   pairs at once, until one remains: ⌈log₂ r⌉ rounds for r runs.
//     stsRunFlags   flags[i] = (i == 0 || key(i-1) > key(i))
//     (scan)        run index of every start, number of runs r (kernels/primitives/scan.ts)
//     stsRunStarts  starts[run] = i for every start; starts[r] = n
//     stsMergeDigis one round: runs 2j and 2j+1 merged (stable: the left run wins ties)
//     stsHalveRuns  starts'[j] = starts[2j], starts'[⌈r/2⌉] = n
//   Key sort: stsDigisToKeys, stsTileSort (a bitonic network over tiles of 2·blockDim.x keys in
//   shared memory, one compare-exchange per thread per step), the same merge rounds over the
//   keys (stsMergeKeys, the tiles as initial runs, stsTileStarts), stsKeysToDigis.
//
// A merge round is a merge-path merge: global thread g produces outputs [g·T, (g+1)·T) (T =
// elementsPerThread, grid-stride). It finds the pair of runs holding its first output by binary
// search over the run starts, its co-rank in that pair by binary search along the merge path,
// then merges sequentially, into the next pairs when its range crosses them. Each output is
// written by one thread, its value independent of the schedule.
//
// The talk gives the merge sort as the steps above, and xpu's block sort is a C++ template, not
// a kernel to copy: these are the per-thread kernels those steps take on a GPU, each short.
//
// Both element kinds are pairs of u32 words: a digi is (channel, time); a key is the u64
// channel << 32 | time as a little-endian pair (time, channel), the bytes of a u64 array (WGSL
// has no 64-bit integers). `hi` names the word that compares first: 0 for digis, 1 for keys.
import { threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __extern_shared__ } from "simt/kernel";

/** Element i of a greater than element j of b, comparing word `hi` first, then the other. */
function pairGreater(a: u32[], i: u32, b: u32[], j: u32, hi: u32): bool {
  const x = a[2 * i + hi];
  const y = b[2 * j + hi];
  return x > y || (x == y && a[2 * i + 1 - hi] > b[2 * j + 1 - hi]);
}

/** Does digi i start a run (i == 0, or (channel, time) of i - 1 greater than of i)? */
function runStarts(digis: u32[], i: i32): bool {
  return i == 0 || pairGreater(digis, <u32>(i - 1), digis, <u32>i, 0);
}

export function stsRunFlags(digis: u32[], flags: u32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    flags[i] = runStarts(digis, i) ? 1 : 0;
  }
}

/** starts[pos[i]] = i for every run start i (pos: the exclusive scan of the flags); starts[nRuns] = n. */
export function stsRunStarts(digis: u32[], pos: u32[], starts: u32[], n: i32, nRuns: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (runStarts(digis, i)) starts[pos[i]] = <u32>i;
    if (i == n - 1) starts[nRuns] = <u32>n;
  }
}

/** next[j] = starts[2j] for j < ⌈r/2⌉, next[⌈r/2⌉] = n. */
export function stsHalveRuns(starts: u32[], next: u32[], nRuns: i32, n: i32): void {
  const half = (nRuns + 1) >> 1;
  for (let j = blockIdx.x * blockDim.x + threadIdx.x; j <= half; j += blockDim.x * gridDim.x) {
    next[j] = j == half ? <u32>n : starts[2 * j];
  }
}

/** dst[first, end) of one merge round over runs `starts` of src (see above). */
function mergeRange(src: u32[], dst: u32[], starts: u32[], nRuns: u32, first: u32, end: u32, hi: u32): void {
  // The pair holding output `first`: the largest j with starts[2j] <= first.
  let j: u32 = 0;
  let last = ((nRuns + 1) >> 1) - 1;
  while (j < last) {
    const m = (j + last + 1) >> 1;
    if (starts[2 * m] <= first) j = m;
    else last = m - 1;
  }
  let p = first;
  while (p < end) {
    const a0 = starts[2 * j];
    const b0 = starts[min(2 * j + 1, nRuns)];
    const e = starts[min(2 * j + 2, nRuns)];
    const lenA = b0 - a0;
    const lenB = e - b0;
    const d = p - a0;
    // Co-rank: how many of run A's first elements precede output d of merge(A, B).
    let lo: u32 = d > lenB ? d - lenB : 0;
    let up: u32 = d < lenA ? d : lenA;
    while (lo < up) {
      const m = (lo + up) >> 1;
      if (pairGreater(src, a0 + m, src, b0 + d - m - 1, hi)) up = m;
      else lo = m + 1;
    }
    let ia = lo;
    let ib = d - lo;
    const stop = min(end, e);
    for (; p < stop; p++) {
      let from = b0 + ib;
      if (ib >= lenB || (ia < lenA && !pairGreater(src, a0 + ia, src, b0 + ib, hi))) { from = a0 + ia; ia++; } else ib++;
      dst[2 * p] = src[2 * from];
      dst[2 * p + 1] = src[2 * from + 1];
    }
    j++;
  }
}

/** One natural-merge round over digis: runs (2j, 2j+1) of src merged into dst. */
export function stsMergeDigis(src: u32[], dst: u32[], starts: u32[], nRuns: i32, n: i32, elementsPerThread: i32): void {
  const stride = <u32>(gridDim.x * blockDim.x) * <u32>elementsPerThread;
  for (let p = <u32>(blockIdx.x * blockDim.x + threadIdx.x) * <u32>elementsPerThread; p < <u32>n; p += stride) {
    mergeRange(src, dst, starts, <u32>nRuns, p, min(<u32>n, p + <u32>elementsPerThread), 0);
  }
}

/** One merge round over keys (u64 channel << 32 | time, as little-endian word pairs). */
export function stsMergeKeys(src: u32[], dst: u32[], starts: u32[], nRuns: i32, n: i32, elementsPerThread: i32): void {
  const stride = <u32>(gridDim.x * blockDim.x) * <u32>elementsPerThread;
  for (let p = <u32>(blockIdx.x * blockDim.x + threadIdx.x) * <u32>elementsPerThread; p < <u32>n; p += stride) {
    mergeRange(src, dst, starts, <u32>nRuns, p, min(<u32>n, p + <u32>elementsPerThread), 1);
  }
}

/** keys[i] = channel << 32 | time of digi i: the two words swapped (the inverse is the same swap). */
export function stsDigisToKeys(digis: u32[], keys: u32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    keys[2 * i] = digis[2 * i + 1];
    keys[2 * i + 1] = digis[2 * i];
  }
}

export function stsKeysToDigis(keys: u32[], digis: u32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    digis[2 * i] = keys[2 * i + 1];
    digis[2 * i + 1] = keys[2 * i];
  }
}

/**
 * Block b sorts keys [b·tile, (b+1)·tile) ascending (tile = 2·blockDim.x, a power of two) with a
 * bitonic network in shared memory, the tail of the last tile padded with the largest key.
 * Shared: 8·tile bytes.
 */
export function stsTileSort(keys: u32[], n: i32): void {
  const tileKeys = __extern_shared__<u32>();
  const tile = 2 * blockDim.x;
  const start = blockIdx.x * tile;
  for (let l = threadIdx.x; l < tile; l += blockDim.x) {
    const i = start + l;
    tileKeys[2 * l] = i < n ? keys[2 * i] : 0xffffffff;
    tileKeys[2 * l + 1] = i < n ? keys[2 * i + 1] : 0xffffffff;
  }
  __syncthreads();
  for (let size = 2; size <= tile; size <<= 1) {
    for (let stride = size >> 1; stride > 0; stride >>= 1) {
      // This thread's pair (lo, lo + stride): lo has bit `stride` clear; ascending where lo & size == 0.
      const lo = ((threadIdx.x & ~(stride - 1)) << 1) | (threadIdx.x & (stride - 1));
      const hi = lo + stride;
      if (pairGreater(tileKeys, lo, tileKeys, hi, 1) == ((lo & size) == 0)) {
        const w0 = tileKeys[2 * lo];
        const w1 = tileKeys[2 * lo + 1];
        tileKeys[2 * lo] = tileKeys[2 * hi];
        tileKeys[2 * lo + 1] = tileKeys[2 * hi + 1];
        tileKeys[2 * hi] = w0;
        tileKeys[2 * hi + 1] = w1;
      }
      __syncthreads();
    }
  }
  for (let l = threadIdx.x; l < tile; l += blockDim.x) {
    const i = start + l;
    if (i < n) {
      keys[2 * i] = tileKeys[2 * l];
      keys[2 * i + 1] = tileKeys[2 * l + 1];
    }
  }
}

/** starts[j] = min(j·tile, n) for j ≤ nTiles: the tiles as the key sort's initial runs. */
export function stsTileStarts(starts: u32[], nTiles: i32, tile: i32, n: i32): void {
  for (let j = blockIdx.x * blockDim.x + threadIdx.x; j <= nTiles; j += blockDim.x * gridDim.x) {
    starts[j] = min(<u32>j * <u32>tile, <u32>n);
  }
}
