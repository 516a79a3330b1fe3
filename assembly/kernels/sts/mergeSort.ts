// CBM STS digi sorting (seed 004): natural merge sort and the xpu key sort — the hand-written fast
// paths, each a declared specialization of its generic kernel in kernels/sts/mergeSort.ts
// (written per thread; src/kernels/sts.ts). stsHalveRuns and stsTileStarts run as compiled from
// there. Keys (u64 channel << 32 | time) are declared as u32 word pairs, the same bytes.
//
// Natural merge sort ("Alternative B" of the talk): find the maximal runs that are already
// non-decreasing in (channel, time), then merge neighbouring pairs of runs, all pairs in
// parallel, until one run remains: ⌈log₂ r⌉ rounds for r runs.
//   stsRunFlags   flags[i] = 1 where a run starts (i = 0 or key[i-1] > key[i])
//   scan          (kernels/primitives/scan.ts) run index of every start, number of runs
//   stsRunStarts  starts[run] = i for every start; starts[r] = n
//   stsMergeDigis one round: runs 2j and 2j+1 merged into one (stable: the left run wins ties)
//   stsHalveRuns  the new run starts: starts'[j] = starts[2j], starts'[⌈r/2⌉] = n
//
// Key sort (the seed's xpu call, key = (u64) channel << 32 | time): stsDigisToKeys builds the keys,
// stsTileSort sorts fixed tiles in shared memory (bitonic network, one compare-exchange per
// thread per step), then the same merge rounds run on the keys (stsMergeKeys) with the tiles as
// the initial runs, and stsKeysToDigis turns the keys back into digis.
//
// The merge is a merge-path merge: global thread g produces the output range
// [g·T, (g+1)·T) (T = elementsPerThread, grid-stride); it finds the pair of runs holding its
// first output position by binary search over the run starts, its co-rank inside the pair by
// binary search along the merge path, then merges sequentially, crossing into the next pairs
// when its range does. Every output element is written by exactly one thread and its value
// does not depend on the schedule.

import { blockIdx, blockDim, gridDim, sharedMem, beginPhase, threadAt, scheduleIsFree } from "../../runtime";

/** The sort key of a digi stored as (channel, time) words: channel << 32 | time. */
// @ts-ignore: decorator
@inline function digiKey(p: usize): u64 { return rotr<u64>(load<u64>(p), 32); }

// @ts-ignore: decorator
@inline function keyAt<T>(base: usize, i: u32): u64 {
  // T = 0: digis (key built from the words); T = 1: raw u64 keys.
  if (sizeof<T>() == 4) return digiKey(base + (<usize>i << 3));
  return load<u64>(base + (<usize>i << 3));
}

/** flags[i] = 1 when digi i starts a run (i == 0 or key[i-1] > key[i]), else 0. */
export function stsRunFlags(digis: usize, flags: usize, n: i32): void {
  const stride = gridDim.x * blockDim.x;
  for (let base = blockIdx.x * blockDim.x; base < n; base += stride) {
    const cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      const i = base + threadAt(k);
      if (i >= n) continue;
      const start = i == 0 || digiKey(digis + (<usize>(i - 1) << 3)) > digiKey(digis + (<usize>i << 3));
      store<u32>(flags + (<usize>i << 2), start ? 1 : 0);
    }
  }
}

/** starts[pos[i]] = i for every run start i (pos: exclusive scan of the flags); starts[nRuns] = n. */
export function stsRunStarts(digis: usize, pos: usize, starts: usize, n: i32, nRuns: i32): void {
  const stride = gridDim.x * blockDim.x;
  for (let base = blockIdx.x * blockDim.x; base < n; base += stride) {
    const cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      const i = base + threadAt(k);
      if (i >= n) continue;
      if (i == 0 || digiKey(digis + (<usize>(i - 1) << 3)) > digiKey(digis + (<usize>i << 3))) {
        store<u32>(starts + (<usize>load<u32>(pos + (<usize>i << 2)) << 2), <u32>i);
      }
      if (i == n - 1) store<u32>(starts + (<usize>nRuns << 2), <u32>n);
    }
  }
}

/** Co-rank: how many of A's first elements precede output position d of merge(A, B), A first on ties. */
// @ts-ignore: decorator
@inline function coRank<T>(src: usize, a0: u32, lenA: u32, b0: u32, lenB: u32, d: u32): u32 {
  let lo: u32 = d > lenB ? d - lenB : 0;
  let hi: u32 = d < lenA ? d : lenA;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    // B[d-mid-1] < A[mid]: taking mid elements of A is enough.
    if (keyAt<T>(src, b0 + d - mid - 1) < keyAt<T>(src, a0 + mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Index of the pair holding output position p: the largest j with starts[2j] <= p. */
// @ts-ignore: decorator
@inline function pairOf(starts: usize, nPairs: u32, p: u32): u32 {
  let lo: u32 = 0;
  let hi: u32 = nPairs - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (load<u32>(starts + (<usize>(2 * mid) << 2)) <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// @ts-ignore: decorator
@inline function mergeRange<T>(src: usize, dst: usize, starts: usize, nRuns: u32, p: u32, end: u32): void {
  const nPairs = (nRuns + 1) >> 1;
  let j = pairOf(starts, nPairs, p);
  while (p < end) {
    const a0 = load<u32>(starts + (<usize>(2 * j) << 2));
    const mid = load<u32>(starts + (<usize>min(2 * j + 1, nRuns) << 2));
    const e = load<u32>(starts + (<usize>min(2 * j + 2, nRuns) << 2));
    const lenA = mid - a0;
    const lenB = e - mid;
    const d = p - a0;
    let ia = coRank<T>(src, a0, lenA, mid, lenB, d);
    let ib = d - ia;
    const stop = min(end, e);
    // Sequential merge of this pair's part of the range; the two heads' keys stay in locals.
    let ka: u64 = ia < lenA ? keyAt<T>(src, a0 + ia) : 0;
    let kb: u64 = ib < lenB ? keyAt<T>(src, mid + ib) : 0;
    while (p < stop && ia < lenA && ib < lenB) {
      if (ka <= kb) {
        store<u64>(dst + (<usize>p << 3), load<u64>(src + (<usize>(a0 + ia) << 3)));
        ia++;
        if (ia < lenA) ka = keyAt<T>(src, a0 + ia);
      } else {
        store<u64>(dst + (<usize>p << 3), load<u64>(src + (<usize>(mid + ib) << 3)));
        ib++;
        if (ib < lenB) kb = keyAt<T>(src, mid + ib);
      }
      p++;
    }
    // One side is exhausted (or the range ends): copy the rest of the other.
    while (p < stop && ia < lenA) { store<u64>(dst + (<usize>p << 3), load<u64>(src + (<usize>(a0 + ia) << 3))); ia++; p++; }
    while (p < stop && ib < lenB) { store<u64>(dst + (<usize>p << 3), load<u64>(src + (<usize>(mid + ib) << 3))); ib++; p++; }
    j++;
  }
}

// @ts-ignore: decorator
@inline function mergeRound<T>(src: usize, dst: usize, starts: usize, nRuns: i32, n: i32, perThread: i32): void {
  const stride = <i64>gridDim.x * <i64>blockDim.x * <i64>perThread;
  for (let base = <i64>blockIdx.x * <i64>blockDim.x * <i64>perThread; base < <i64>n; base += stride) {
    const cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      const t = threadAt(k);
      const p = base + <i64>t * <i64>perThread;
      if (p >= <i64>n) continue;
      const end = min(<i64>n, p + <i64>perThread);
      mergeRange<T>(src, dst, starts, <u32>nRuns, <u32>p, <u32>end);
    }
  }
}

/** One natural-merge round over digis: runs (2j, 2j+1) of src merged into dst. */
export function stsMergeDigis(src: usize, dst: usize, starts: usize, nRuns: i32, n: i32, elementsPerThread: i32): void {
  mergeRound<u32>(src, dst, starts, nRuns, n, elementsPerThread);
}

/** One merge round over u64 keys. */
export function stsMergeKeys(src: usize, dst: usize, starts: usize, nRuns: i32, n: i32, elementsPerThread: i32): void {
  mergeRound<u64>(src, dst, starts, nRuns, n, elementsPerThread);
}

/**
 * keys[i] = channel << 32 | time of digi i — the same word swap turns keys back into digis.
 * Fast path: two digis per v128 with a lane shuffle.
 */
function swapWords(src: usize, dst: usize, n: i32): void {
  const stride = gridDim.x * blockDim.x;
  for (let base = blockIdx.x * blockDim.x; base < n; base += stride) {
    if (!scheduleIsFree()) {
      const cnt = beginPhase();
      for (let k = 0; k < cnt; k++) {
        const i = base + threadAt(k);
        if (i < n) store<u64>(dst + (<usize>i << 3), rotr<u64>(load<u64>(src + (<usize>i << 3)), 32));
      }
      continue;
    }
    const lim = min(n, base + blockDim.x);
    let i = base;
    for (; i + 2 <= lim; i += 2) {
      const v = v128.load(src + (<usize>i << 3));
      v128.store(dst + (<usize>i << 3), v128.shuffle<i32>(v, v, 1, 0, 3, 2));
    }
    for (; i < lim; i++) store<u64>(dst + (<usize>i << 3), rotr<u64>(load<u64>(src + (<usize>i << 3)), 32));
  }
}

/**
 * Block b sorts keys[b·tile .. (b+1)·tile) ascending (tile = 2·blockDim.x, a power of two) in
 * shared memory with a bitonic network; the tail of the last tile is padded with u64 max.
 * Shared: 8·tile bytes. Each step is one phase; thread t compare-exchanges one pair.
 */
export function stsTileSort(keys: usize, n: i32): void {
  const s = sharedMem();
  const half = blockDim.x;
  const tile = half << 1;
  const start = <i64>blockIdx.x * <i64>tile;
  let cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const t = threadAt(k);
    for (let r = 0; r < 2; r++) {
      const l = t + r * half;
      const i = start + <i64>l;
      store<u64>(s + (<usize>l << 3), i < <i64>n ? load<u64>(keys + (<usize>i << 3)) : 0xffffffffffffffff);
    }
  }
  for (let size = 2; size <= tile; size <<= 1) {
    for (let stride = size >> 1; stride > 0; stride >>= 1) {
      if (scheduleIsFree() && stride >= 2) {
        // The step's pairs are disjoint, so any order is legal: two pairs per v128, the
        // u64 compare done signed on sign-flipped keys.
        const flip = i64x2.splat(0x8000000000000000);
        for (let base = 0; base < tile; base += stride << 1) {
          const up = (base & size) == 0;
          for (let q = 0; q < stride; q += 2) {
            const pa = s + (<usize>(base + q) << 3);
            const pb = pa + (<usize>stride << 3);
            const a = v128.load(pa);
            const b = v128.load(pb);
            const gt = i64x2.gt_s(v128.xor(a, flip), v128.xor(b, flip));
            const lo = v128.bitselect(b, a, gt);
            const hi = v128.bitselect(a, b, gt);
            v128.store(pa, up ? lo : hi);
            v128.store(pb, up ? hi : lo);
          }
        }
        continue;
      }
      cnt = beginPhase();
      for (let k = 0; k < cnt; k++) {
        const t = threadAt(k);
        // pair (lo, lo + stride): lo has bit `stride` clear
        const lo = ((t & ~(stride - 1)) << 1) | (t & (stride - 1));
        const hi = lo + stride;
        const up = (lo & size) == 0;
        const pa = s + (<usize>lo << 3);
        const pb = s + (<usize>hi << 3);
        const a = load<u64>(pa);
        const b = load<u64>(pb);
        if ((a > b) == up) { store<u64>(pa, b); store<u64>(pb, a); }
      }
    }
  }
  cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const t = threadAt(k);
    for (let r = 0; r < 2; r++) {
      const l = t + r * half;
      const i = start + <i64>l;
      if (i < <i64>n) store<u64>(keys + (<usize>i << 3), load<u64>(s + (<usize>l << 3)));
    }
  }
}

/** keys[i] = (u64) channel << 32 | time for digi i. */
export function stsDigisToKeys(digis: usize, keys: usize, n: i32): void { swapWords(digis, keys, n); }

/** The inverse: digis (channel, time) from keys. */
export function stsKeysToDigis(keys: usize, digis: usize, n: i32): void { swapWords(keys, digis, n); }
