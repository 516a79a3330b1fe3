// Seed 001's GPU merge sort of singles by time (parallelMergeSort), stable:
//   1. addPadding: both buffers get padding singles (time +∞) on [n, n2), n2 = max(2^⌈log₂n⌉, 1024)
//      (petPadSingles: the generic kernel of kernels/pet/sort.ts);
//   2. petSortTiles (runMergeSortKernel): each 1024-element tile sorted in shared memory;
//   3. while sortedBlockSize < n: petMergeRanks (generateRanksKernel: one rank sample every
//      SUB_BLOCK_SIZE = 256 elements, its rank in the opposite sorted block) then
//      petMergeBlocks (mergeKernel: merge the even and odd sub-blocks between consecutive
//      samples), ping-ponging the two buffers; sortedBlockSize doubles.
//
// Keys are `timevalue` only. Ties: an element of an even block is placed before equal
// elements of the odd block, which makes every merge (and so the sort) stable.
//
// The seed's omitted helpers, as they evidently mean (see docs/pet.md):
// - binarySearchInclusive(data, key, lo, hi[, stride]) = the first index in lo, lo+stride, …,
//   hi+stride whose key is ≥ `key` (lower bound: `key` goes before its equals). An element of
//   an EVEN block ranks itself in the odd block with it.
// - binarySearchExclusive = the first index whose key is > `key` (upper bound). An element of
//   an ODD block ranks itself in the even block with it.
//   (The opposite reading sorts too, but puts the odd block's equal keys first: unstable.)
// - runMergeSortKernel: 512 threads × 2 elements per 1024-tile; for width 1, 2, …, 512 every
//   element finds its rank in the opposite width-run by the same two searches and moves to
//   (index in own run + rank in the other) — one phase per width, ping-pong in shared memory.
// - copyPaddedElements / lastPaddingMergePhase: the seed skips merging blocks that hold only
//   padding. Here a merge pair starting at ≥ n is skipped by both kernels: both buffers hold
//   identical padding there since addPadding, and a stable merge keeps padding (greater than
//   every real time) at [n, n2).
// - segment boundaries: the seed stores rank+1 for a sample's own block ("so that at least one
//   element takes part") and block x merges [ranks[x-1], ranks[x]) with block 0 starting at 0
//   and the last block ending at sortedBlockSize; the last sample's ranks are then never used
//   and the last block can get up to 511 elements of one side for a 256-element tile. We store
//   the plain rank (the sample OPENS its segment) and block x merges [ranks[x], ranks[x+1])
//   (the last one up to the end): ranks[0] = (0, 0) always, and every side of every block
//   holds at most 256 elements.
// - generateRanksKernel's index arithmetic: the opposite sample count is taken relative to the
//   opposite block's start (the seed subtracts sortedBlockSize, right only for the first pair).

import { blockIdx, blockDim, gridDim, beginPhase, threadAt, scheduleIsFree, sharedMem, registers } from "../../runtime";
import { singleAt, timeOf, copySingle } from "./singles";

export const TILE: i32 = 1024;
export const SUB_BLOCK_SIZE: i32 = 256;
/** Runs at least this long are trimmed before merging (see mergeRuns). */
const TRIM_MIN: i32 = 64;

/** First index i in [lo, hi] (stepping `stride`, result ≤ hi + stride) with key(i) ≥ key. */
// @ts-ignore: decorator
@inline function binarySearchInclusive(data: usize, key: f64, lo: i32, hi: i32, stride: i32): i32 {
  while (lo <= hi) {
    const mid = lo + ((hi - lo) / (2 * stride)) * stride;
    if (key <= timeOf(data, mid)) hi = mid - stride; else lo = mid + stride;
  }
  return lo;
}

/** First index i in [lo, hi] (stepping `stride`) with key(i) > key. */
// @ts-ignore: decorator
@inline function binarySearchExclusive(data: usize, key: f64, lo: i32, hi: i32, stride: i32): i32 {
  while (lo <= hi) {
    const mid = lo + ((hi - lo) / (2 * stride)) * stride;
    if (key < timeOf(data, mid)) hi = mid - stride; else lo = mid + stride;
  }
  return lo;
}

// addPadding is petPadSingles of kernels/pet/sort.ts (the generic kernel the job launches).

/**
 * Stable sequential merge of src[a..a+na) and src[b..b+nb) into dst (the free-schedule path).
 * Branch-free steps (selects instead of a data-dependent branch: on random times a branchy
 * merge spends most of its time in mispredictions), and two independent chains: the front
 * half of the output is merged from the heads while the back half is merged from the tails
 * (ties: the even run's element first, so from the back the odd run's goes first). Each
 * chain is a load → compare → select dependency; running two of them doubles the throughput.
 */
function mergeRuns(src: usize, a: i32, na: i32, b: i32, nb: i32, dst: usize): void {
  if (na >= TRIM_MIN && nb >= TRIM_MIN) {
    // Long runs that interleave only in a narrow band (nearly sorted data: the head of the
    // even run and the tail of the odd run are in place): the even elements ≤ the first odd
    // one go first, the odd elements ≥ the last even one go last (ties: even first) — two
    // copies and a binary search each; only the band between them is merged.
    const kb = timeOf(src, b), ka = timeOf(src, a + na - 1);
    if (timeOf(src, a) <= kb && ka > kb) {
      const h = binarySearchExclusive(src, kb, a, a + na - 1, 1) - a;     // even elements ≤ kb
      memory.copy(dst, singleAt(src, a), <usize>h << 4);
      dst += <usize>h << 4; a += h; na -= h;
    }
    if (timeOf(src, b + nb - 1) >= ka && kb < ka) {
      const t = b + nb - binarySearchInclusive(src, ka, b, b + nb - 1, 1); // odd elements ≥ ka
      nb -= t;
      memory.copy(dst + (<usize>(na + nb) << 4), singleAt(src, b + nb), <usize>t << 4);
    }
  }
  mergeCore(src, a, na, b, nb, dst);
}

/** mergeRuns without the trimming of in-place heads and tails. */
function mergeCore(src: usize, a: i32, na: i32, b: i32, nb: i32, dst: usize): void {
  const a0 = singleAt(src, a), b0 = singleAt(src, b);
  const ea = a0 + (<usize>na << 4), eb = b0 + (<usize>nb << 4);
  // Runs that do not interleave (one empty, or every even ≤ every odd, or every odd < every
  // even) are copies: the common case once the data is nearly in time order.
  if (na == 0 || nb == 0 || load<f64>(ea - 16, 8) <= load<f64>(b0, 8)) {
    memory.copy(dst, a0, ea - a0);
    memory.copy(dst + (ea - a0), b0, eb - b0);
    return;
  }
  if (load<f64>(eb - 16, 8) < load<f64>(a0, 8)) {
    memory.copy(dst, b0, eb - b0);
    memory.copy(dst + (eb - b0), a0, ea - a0);
    return;
  }
  let pa = a0, pb = b0;                 // front heads
  let qa = ea - 16, qb = eb - 16;       // back tails (inclusive)
  let o = dst;
  let q = dst + (<usize>(na + nb) << 4) - 16;
  let front = (na + nb) >> 1;
  let back = na + nb - front;
  // Masks rather than `select`, so that no engine turns the choice back into a branch.
  let steps = min(front, back);
  while (steps > 0 && pa < ea && pb < eb && qa >= a0 && qb >= b0) {
    const mB = -<usize>(load<f64>(pb, 8) < load<f64>(pa, 8));   // all ones: take the odd head
    const mA = -<usize>(load<f64>(qa, 8) > load<f64>(qb, 8));   // all ones: take the even tail
    v128.store(o, v128.load(pa ^ ((pa ^ pb) & mB)));
    v128.store(q, v128.load(qb ^ ((qb ^ qa) & mA)));
    o += 16; q -= 16;
    pb += 16 & mB;
    pa += 16 & ~mB;
    qa -= 16 & mA;
    qb -= 16 & ~mA;
    steps--;
  }
  const done = min(front, back) - steps;
  front -= done; back -= done;
  // Finish each half; a side that ran out leaves a plain copy.
  while (front > 0) {
    if (pa >= ea) { memory.copy(o, pb, <usize>front << 4); break; }
    if (pb >= eb) { memory.copy(o, pa, <usize>front << 4); break; }
    const takeB = load<f64>(pb, 8) < load<f64>(pa, 8);
    v128.store(o, v128.load(select<usize>(pb, pa, takeB)));
    pb += select<usize>(16, 0, takeB);
    pa += select<usize>(0, 16, takeB);
    o += 16; front--;
  }
  while (back > 0) {
    if (qb < b0) { memory.copy(q + 16 - (<usize>back << 4), qa + 16 - (<usize>back << 4), <usize>back << 4); break; }
    if (qa < a0) { memory.copy(q + 16 - (<usize>back << 4), qb + 16 - (<usize>back << 4), <usize>back << 4); break; }
    const takeA = load<f64>(qa, 8) > load<f64>(qb, 8);
    v128.store(q, v128.load(select<usize>(qa, qb, takeA)));
    qa -= select<usize>(16, 0, takeA);
    qb -= select<usize>(0, 16, takeA);
    q -= 16; back--;
  }
}

/** Order-preserving u64 of a time: -0 → +0, then the usual sign flip (NaN never occurs). */
// @ts-ignore: decorator
@inline function timeKey(t: f64): u64 {
  const u = reinterpret<u64>(t + 0.0);
  return (u >> 63) != 0 ? ~u : u | 0x8000000000000000;
}

/**
 * Stable LSD radix sort of the 1024 records at A by time, 8-bit digits over only the bits
 * that differ inside the tile (times in one tile span a narrow range: typically 3–4 passes).
 * Returns the buffer (A or B) holding the result, or 0 when the keys span more than 40 bits
 * (then merging is cheaper). Scratch: register slots 4–8 (two key arrays and the histogram).
 */
function radixTile(A: usize, B: usize): usize {
  let K = registers(4), K2 = registers(6);        // 1024 u64 each (two slots)
  const hist = registers(8);                        // 256 u32
  const k0 = timeKey(load<f64>(A, 8));
  let diff: u64 = 0;
  for (let i = 0; i < TILE; i++) {
    const k = timeKey(load<f64>(A + (<usize>i << 4), 8));
    store<u64>(K + (<usize>i << 3), k);
    diff |= k ^ k0;
  }
  if (diff == 0) return A;
  const low = <i32>ctz(diff);
  const high = 63 - <i32>clz(diff);
  if (high - low >= 40) return 0;
  for (let shift = low; shift <= high; shift += 8) {
    memory.fill(hist, 0, 1024);
    const sh = <u64>shift;
    for (let i = 0; i < TILE; i++) {
      const d = <usize>((load<u64>(K + (<usize>i << 3)) >> sh) & 255) << 2;
      store<u32>(hist + d, load<u32>(hist + d) + 1);
    }
    let sum: u32 = 0;
    for (let d = 0; d < 256; d++) { const c = load<u32>(hist + (<usize>d << 2)); store<u32>(hist + (<usize>d << 2), sum); sum += c; }
    for (let i = 0; i < TILE; i++) {
      const k = load<u64>(K + (<usize>i << 3));
      const d = <usize>((k >> sh) & 255) << 2;
      const o = load<u32>(hist + d);
      store<u32>(hist + d, o + 1);
      store<u64>(K2 + (<usize>o << 3), k);
      v128.store(B + (<usize>o << 4), v128.load(A + (<usize>i << 4)));
    }
    let t = K; K = K2; K2 = t;
    t = A; A = B; B = t;
  }
  return A;
}

/** Insertion sort of src[s..s+len) in place (stable). */
function insertionSort(src: usize, s: i32, len: i32): void {
  for (let i = s + 1; i < s + len; i++) {
    const rec = v128.load(singleAt(src, i));
    const key = f64x2.extract_lane(rec, 1);
    let j = i - 1;
    while (j >= s && timeOf(src, j) > key) { copySingle(singleAt(src, j + 1), singleAt(src, j)); j--; }
    v128.store(singleAt(src, j + 1), rec);
  }
}

/**
 * runMergeSortKernel: sorts data[1024·b … 1024·b + 1024) in place. Block: 512 threads, 2
 * elements each. Shared: 2 × 1024 × 16 = 32 KiB. Tiles starting at ≥ n (padding only) return.
 */
export function petSortTiles(data: usize, n: i32): void {
  const tileStart = blockIdx.x * TILE;
  if (tileStart >= n) return;
  const nt = blockDim.x;
  const per = TILE / nt;
  let A = sharedMem();
  let B = A + <usize>(TILE << 4);
  const src = singleAt(data, tileStart);
  if (scheduleIsFree()) {
    // Same permutation (the stable sort of the tile), one legal schedule: a tile-local radix
    // sort when the tile's times span few bits (real data), else sort runs of 4 by insertion
    // and merge runs sequentially.
    memory.copy(A, src, <usize>(TILE << 4));
    const r = radixTile(A, B);
    if (r != 0) { memory.copy(src, r, <usize>(TILE << 4)); return; }
    for (let s = 0; s < TILE; s += 4) insertionSort(A, s, 4);
    for (let width = 4; width < TILE; width <<= 1) {
      for (let s = 0; s < TILE; s += 2 * width) mergeRuns(A, s, width, s + width, width, singleAt(B, s));
      const tmp = A; A = B; B = tmp;
    }
    memory.copy(src, A, <usize>(TILE << 4));
    return;
  }
  let m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    for (let e = t; e < TILE; e += nt) copySingle(singleAt(A, e), singleAt(src, e));
  }
  for (let width = 1; width < TILE; width <<= 1) {
    m = beginPhase();
    for (let k = 0; k < m; k++) {
      const t = threadAt(k);
      for (let u = 0; u < per; u++) {
        const e = t + u * nt;
        const key = timeOf(A, e);
        const run = e / width;
        const within = e - run * width;
        const pairBase = (run & ~1) * width;
        let rank: i32;
        if ((run & 1) == 0) rank = binarySearchInclusive(A, key, pairBase + width, pairBase + 2 * width - 1, 1) - (pairBase + width);
        else rank = binarySearchExclusive(A, key, pairBase, pairBase + width - 1, 1) - pairBase;
        copySingle(singleAt(B, pairBase + within + rank), singleAt(A, e));
      }
    }
    const tmp = A; A = B; B = tmp;
  }
  m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    for (let e = t; e < TILE; e += nt) copySingle(singleAt(src, e), singleAt(A, e));
  }
}

const RANK_GROUP: i32 = 8;

/**
 * petMergeRanks on the free schedule: the block's samples in index order, giving the same
 * ranks. Consecutive samples of one sorted block have non-decreasing keys, so the opposite
 * sample count c only grows: it is advanced from the previous sample's (a few steps, then a
 * binary search). The fine searches inside the opposite sub-blocks (8 dependent loads, each a
 * likely cache miss) are run RANK_GROUP at a time in lock-step, so their misses overlap.
 * State per group in register slots 0–2.
 */
function mergeRanksFree(data: usize, ranksEven: usize, ranksOdd: usize, S: i32, n: i32, n2: i32): void {
  const subPerSorted = S / SUB_BLOCK_SIZE;
  const subPerMerged = 2 * subPerSorted;
  const base = blockIdx.x * blockDim.x;
  const gLo = registers(0), gHi = registers(1), gKey = registers(2);
  const gMeta = registers(3);          // per sample: idx (u32), rankCur (u32), oppStart, flags
  let prevBlk = -1, prevC = 0;
  for (let s0 = base; s0 < base + blockDim.x; s0 += RANK_GROUP) {
    let active = 0;
    for (let g = 0; g < RANK_GROUP; g++) {
      const s = s0 + g;
      const at = s * SUB_BLOCK_SIZE;
      const meta = gMeta + (<usize>g << 4);
      store<i32>(meta, -1, 12);
      if (s >= base + blockDim.x || at >= n2) continue;
      const blk = at / S;
      const pair = blk >> 1;
      if (pair * 2 * S >= n) continue;
      const even = (blk & 1) == 0;
      const key = timeOf(data, at);
      const oppStart = (blk ^ 1) * S;
      const kIn = s % subPerSorted;
      let c = 0;
      if (blk == prevBlk) {
        c = prevC;
        let steps = 0;
        while (c < subPerSorted && steps < 4 && (even ? timeOf(data, oppStart + c * SUB_BLOCK_SIZE) < key : timeOf(data, oppStart + c * SUB_BLOCK_SIZE) <= key)) { c++; steps++; }
        if (steps == 4 && c < subPerSorted) {
          const from = oppStart + c * SUB_BLOCK_SIZE;
          c = ((even ? binarySearchInclusive(data, key, from, oppStart + S - SUB_BLOCK_SIZE, SUB_BLOCK_SIZE)
                     : binarySearchExclusive(data, key, from, oppStart + S - SUB_BLOCK_SIZE, SUB_BLOCK_SIZE)) - oppStart) / SUB_BLOCK_SIZE;
        }
      } else {
        c = ((even ? binarySearchInclusive(data, key, oppStart, oppStart + S - SUB_BLOCK_SIZE, SUB_BLOCK_SIZE)
                   : binarySearchExclusive(data, key, oppStart, oppStart + S - SUB_BLOCK_SIZE, SUB_BLOCK_SIZE)) - oppStart) / SUB_BLOCK_SIZE;
      }
      prevBlk = blk; prevC = c;
      store<u32>(meta, <u32>(pair * subPerMerged + kIn + c));
      store<u32>(meta, <u32>(kIn * SUB_BLOCK_SIZE), 4);
      store<i32>(meta, oppStart, 8);
      store<i32>(meta, even ? 0 : 1, 12);
      store<f64>(gKey + (<usize>g << 3), key);
      if (c > 0) {
        const lo = oppStart + (c - 1) * SUB_BLOCK_SIZE + 1;
        store<i32>(gLo + (<usize>g << 2), lo);
        store<i32>(gHi + (<usize>g << 2), lo + SUB_BLOCK_SIZE - 2);
        active++;
      } else {
        store<i32>(gLo + (<usize>g << 2), oppStart);     // rank 0
        store<i32>(gHi + (<usize>g << 2), oppStart - 1);
      }
    }
    // Lock-step binary searches (each is binarySearchInclusive/Exclusive with stride 1).
    while (active > 0) {
      active = 0;
      for (let g = 0; g < RANK_GROUP; g++) {
        const fl = load<i32>(gMeta + (<usize>g << 4), 12);
        if (fl < 0) continue;
        const pl = gLo + (<usize>g << 2), ph = gHi + (<usize>g << 2);
        const lo = load<i32>(pl), hi = load<i32>(ph);
        if (lo > hi) continue;
        const mid = lo + ((hi - lo) >> 1);
        const key = load<f64>(gKey + (<usize>g << 3));
        const t = timeOf(data, mid);
        if (fl == 0 ? key <= t : key < t) store<i32>(ph, mid - 1); else store<i32>(pl, mid + 1);
        active++;
      }
    }
    for (let g = 0; g < RANK_GROUP; g++) {
      const meta = gMeta + (<usize>g << 4);
      const fl = load<i32>(meta, 12);
      if (fl < 0) continue;
      const idx = <usize>load<u32>(meta) << 2;
      const rankCur = load<u32>(meta, 4);
      const rankOpp = <u32>(load<i32>(gLo + (<usize>g << 2)) - load<i32>(meta, 8));
      if (fl == 0) { store<u32>(ranksEven + idx, rankCur); store<u32>(ranksOdd + idx, rankOpp); }
      else { store<u32>(ranksEven + idx, rankOpp); store<u32>(ranksOdd + idx, rankCur); }
    }
  }
}

/**
 * generateRanksKernel: one thread per sample (every SUB_BLOCK_SIZE-th element of `data`,
 * n2/256 samples). For the merge of sorted blocks (2p, 2p+1) of length S, writes at
 * pair·(2S/256) + (the sample's index among the pair's samples in merged order) the number of
 * even- and odd-block elements that precede the sample in the merged output. Block: 256 threads (any).
 */
export function petMergeRanks(data: usize, ranksEven: usize, ranksOdd: usize, S: i32, n: i32, n2: i32): void {
  const subPerSorted = S / SUB_BLOCK_SIZE;
  const subPerMerged = 2 * subPerSorted;
  const base = blockIdx.x * blockDim.x;
  if (scheduleIsFree()) { mergeRanksFree(data, ranksEven, ranksOdd, S, n, n2); return; }
  const m = beginPhase();
  for (let k = 0; k < m; k++) {
    const s = base + threadAt(k);                 // rankSampleCurrent
    const at = s * SUB_BLOCK_SIZE;
    if (at >= n2) continue;
    const blk = at / S;                           // indexBlockCurrent
    const pair = blk >> 1;
    if (pair * 2 * S >= n) continue;              // padding-only pair: skipped (see header)
    const key = timeOf(data, at);
    const opp = blk ^ 1;                          // indexBlockOpposite
    const oppStart = opp * S;
    const kIn = s % subPerSorted;
    let c: i32;                                   // opposite samples before this one
    if ((blk & 1) == 0) c = (binarySearchInclusive(data, key, oppStart, oppStart + S - SUB_BLOCK_SIZE, SUB_BLOCK_SIZE) - oppStart) / SUB_BLOCK_SIZE;
    else c = (binarySearchExclusive(data, key, oppStart, oppStart + S - SUB_BLOCK_SIZE, SUB_BLOCK_SIZE) - oppStart) / SUB_BLOCK_SIZE;
    const sortedIndex = kIn + c;
    const rankCur = kIn * SUB_BLOCK_SIZE;         // the sample opens its segment (no +1: see header)
    let rankOpp = 0;
    if (c > 0) {
      const lo = oppStart + (c - 1) * SUB_BLOCK_SIZE + 1;   // the opposite sub-block, without its sample
      const hi = lo + SUB_BLOCK_SIZE - 2;
      rankOpp = ((blk & 1) == 0 ? binarySearchInclusive(data, key, lo, hi, 1) : binarySearchExclusive(data, key, lo, hi, 1)) - oppStart;
    }
    const idx = <usize>(pair * subPerMerged + sortedIndex) << 2;
    if ((blk & 1) == 0) { store<u32>(ranksEven + idx, rankCur); store<u32>(ranksOdd + idx, rankOpp); }
    else { store<u32>(ranksEven + idx, rankOpp); store<u32>(ranksOdd + idx, rankCur); }
  }
}

/**
 * mergeKernel: grid (2S/256, n2/(2S)), block 256 threads, shared 2 × 256 × 16 = 8 KiB. Block
 * (x, pair) merges the even elements [ranksEven[x], ranksEven[x+1]) with the odd elements
 * [ranksOdd[x], ranksOdd[x+1]) of the pair into `out`.
 */
export function petMergeBlocks(data: usize, out: usize, ranksEven: usize, ranksOdd: usize, S: i32, n: i32): void {
  const pair = blockIdx.y;
  const pairStart = pair * 2 * S;
  if (pairStart >= n) return;
  const idx = pair * (2 * S / SUB_BLOCK_SIZE) + blockIdx.x;
  // Block x merges from its own sample up to the next one (the last block: to the end).
  const startE = load<i32>(ranksEven + (<usize>idx << 2)), startO = load<i32>(ranksOdd + (<usize>idx << 2));
  let endE = S, endO = S;
  if (blockIdx.x < gridDim.x - 1) { endE = load<i32>(ranksEven + (<usize>(idx + 1) << 2)); endO = load<i32>(ranksOdd + (<usize>(idx + 1) << 2)); }
  const numE = endE - startE, numO = endO - startO;
  const evenAt = pairStart + startE;
  const oddAt = pairStart + S + startO;
  const dst = pairStart + startE + startO;
  if (scheduleIsFree()) {
    mergeRuns(data, evenAt, numE, oddAt, numO, singleAt(out, dst));
    return;
  }
  if (numE > SUB_BLOCK_SIZE || numO > SUB_BLOCK_SIZE) unreachable();   // cannot happen: see header
  const tileE = sharedMem();
  const tileO = tileE + <usize>(SUB_BLOCK_SIZE << 4);
  let m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    if (t < numE) copySingle(singleAt(tileE, t), singleAt(data, evenAt + t));
    if (t < numO) copySingle(singleAt(tileO, t), singleAt(data, oddAt + t));
  }
  m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    if (t < numE) {
      const r = binarySearchInclusive(tileO, timeOf(tileE, t), 0, numO - 1, 1);
      copySingle(singleAt(out, dst + t + r), singleAt(tileE, t));
    }
    if (t < numO) {
      const r = binarySearchExclusive(tileE, timeOf(tileO, t), 0, numE - 1, 1);
      copySingle(singleAt(out, dst + t + r), singleAt(tileO, t));
    }
  }
}

/**
 * Several merge passes of one group at once (the host uses it on `wasm` for the low passes;
 * the specialization of kernels/pet/sort.ts's petMergeLevels). The block's whole work is one
 * sequential call, with no thread of its own and nothing shared between blocks, so every
 * schedule gives the same bytes and it needs no phase loops. Block b owns the group [G·b, G·b + G), G = S·2^levels, and does the
 * passes S, 2S, …, S·2^(levels−1) of the seed on it: whole-run stable merges (mergeRuns),
 * ping-ponging between `data` and `out` exactly as the per-pass launches do. A stable merge
 * of two sorted runs has one result, so both buffers end up holding the same bytes as after
 * the seed's passes (ranks + 256-element segments), with the group kept in cache between
 * passes. Padding-only pairs (start ≥ n) are skipped, as by petMergeBlocks.
 */
export function petMergeLevels(data: usize, out: usize, S: i32, levels: i32, n: i32): void {
  const g0 = blockIdx.x * (S << levels);
  if (g0 >= n) return;
  let src = data, dst = out;
  for (let l = 0; l < levels; l++) {
    const w = S << l;
    for (let p = g0; p < g0 + (S << levels) && p < n; p += 2 * w) mergeRuns(src, p, w, p + w, w, singleAt(dst, p));
    const t = src; src = dst; dst = t;
  }
}
