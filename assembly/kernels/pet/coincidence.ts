// Seed 001's time coincidence on time-sorted singles, four kernels:
//   1. petCoinNextIndex (CoinTimeKernel): nextIndex[i] = the last j > i reached by stepping
//      while time[j] - time[i] ≤ window, or -1;
//   2. petCoinSelect (SelectKernel): one thread per chain (a maximal run of singles whose
//      consecutive gaps are ≤ window) walks it from its start: a window holding ≥ 3 singles is
//      erased, one holding exactly 2 is a pair unless both crystals are equal;
//   3. petCoinCount (FillDataKernel): per-thread counts of pair starts, block scan → scanId,
//      block totals → globalLen, the total → newLength (atomicAdd);
//   4. petCoinFill (CorrectPosKernel): pair k = (singles[i], singles[i+1]) at
//      blockOffsets[block] + scanId[thread] + (pairs before i in the thread's elements).
// Launch: THREAD_NUM = 256 threads; kernels 1–2 give each block THREAD_NUM·elems consecutive
// singles (calcDataBlockLength, threads strided), kernels 3–4 give each thread `elems`
// consecutive singles (the seed's THREAD_ELEM; we use 16).
//
// Interpretations (docs/pet.md):
// - SelectKernel decides "am I the chain's last single" by reading nextIndex[i] == -1 while
//   other threads of the same chain may be erasing entries to -1: a thread that reads an
//   erased entry starts a second walk over a half-erased chain and can erase a valid pair
//   further on. What it evidently means is the original nextIndex (K1's output); we test the
//   same condition on the times (i is last ⇔ i = n-1 or time[i+1] - time[i] > window), so
//   exactly one thread walks each chain and the result is schedule independent.
// - CorrectPosKernel sums globalLen[0..blockIdx) in every thread (quadratic in the number of
//   blocks); we run the device-wide exclusive scan over globalLen instead (blockOffsets).
// - FillDataKernel lets threads past the end `return` before __syncthreads (a divergent
//   barrier): petCoinCount keeps them in the block with a zero count. The seed's version, for
//   the race tools, is the race corpus's petFillData (kernels/race/seeds.ts).

import { blockIdx, blockDim, beginPhase, threadAt, scheduleIsFree, sharedMem, registers, atomicAdd } from "../../runtime";
import { blockScanExclusive } from "../../primitives/blockScan";
import { singleAt, timeOf, crystalOf, copySingle } from "./singles";

// @ts-ignore: decorator
@inline function at(p: usize, i: i32): usize { return p + (<usize>i << 2); }

/** searchIndex */
// @ts-ignore: decorator
@inline function searchIndex(data: usize, cur: i32, n: i32, window: f64): i32 {
  let next = cur + 1;
  const t0 = timeOf(data, cur);
  while (next < n && timeOf(data, next) - t0 <= window) ++next;
  return next == cur + 1 ? -1 : next - 1;
}

export function petCoinNextIndex(data: usize, nextIndex: usize, n: i32, window: f64, elems: i32): void {
  const nt = blockDim.x;
  const perBlock = nt * elems;
  const offset = blockIdx.x * perBlock;
  const len = offset + perBlock <= n ? perBlock : n - offset;
  if (scheduleIsFree()) {
    // The block's threads in index order, as one sweep: on time-sorted singles the end of
    // i's window never moves backwards, so it is carried from i to i + 1 (same values as
    // searchIndex for each i).
    let j = offset;
    for (let i = offset; i < offset + len; i++) {
      if (j < i) j = i;
      const ti = timeOf(data, i);
      while (j + 1 < n && timeOf(data, j + 1) - ti <= window) ++j;
      store<i32>(at(nextIndex, i), j == i ? -1 : j);
    }
    return;
  }
  const m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    for (let tx = t; tx < len; tx += nt) store<i32>(at(nextIndex, offset + tx), searchIndex(data, offset + tx, n, window));
  }
}

/** leftIndex: the start of i's chain, or -1 when i starts it. */
// @ts-ignore: decorator
@inline function leftIndex(data: usize, cur: i32, window: f64): i32 {
  const pos = cur;
  let left = cur - 1;
  while (left >= 0 && timeOf(data, cur) - timeOf(data, left) <= window) { --cur; --left; }
  return cur == pos ? -1 : cur;
}

// @ts-ignore: decorator
@inline function selectOne(data: usize, nextIndex: usize, i: i32, n: i32, window: f64): void {
  const ti = timeOf(data, i);
  // nextIndex[i] == -1 as kernel 1 wrote it, and not a chain start.
  if (i + 1 < n && timeOf(data, i + 1) - ti <= window) return;
  if (i == 0 || ti - timeOf(data, i - 1) > window) return;
  let pos = leftIndex(data, i, window);
  while (pos <= i) {
    const np = load<i32>(at(nextIndex, pos));
    if (np - pos >= 2) {
      let begin = pos;
      for (; begin <= np; ++begin) store<i32>(at(nextIndex, begin), -1);
      pos = begin;
    } else if (np - pos == 1) {
      if (crystalOf(data, pos) == crystalOf(data, np)) store<i32>(at(nextIndex, pos), -1);
      store<i32>(at(nextIndex, ++pos), -1);
      ++pos;
    } else {
      ++pos;        // nextIndex[pos] == -1
    }
  }
}

export function petCoinSelect(data: usize, nextIndex: usize, n: i32, window: f64, elems: i32): void {
  const nt = blockDim.x;
  const perBlock = nt * elems;
  const offset = blockIdx.x * perBlock;
  const len = offset + perBlock <= n ? perBlock : n - offset;
  if (scheduleIsFree()) {
    // Index order, the neighbours' times carried in registers; only a chain's last single walks.
    if (len <= 0) return;
    let prev = offset > 0 ? timeOf(data, offset - 1) : NaN;
    let cur = timeOf(data, offset);
    for (let i = offset; i < offset + len; i++) {
      const next = i + 1 < n ? timeOf(data, i + 1) : NaN;
      // last of a chain: no next within the window (NaN compares false) and a previous within it
      if (!(next - cur <= window) && cur - prev <= window) selectOne(data, nextIndex, i, n, window);
      prev = cur; cur = next;
    }
    return;
  }
  const m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    for (let tx = t; tx < len; tx += nt) selectOne(data, nextIndex, offset + tx, n, window);
  }
}

const REG_LOCAL: i32 = 0;
const REG_SCAN: i32 = 1;

// @ts-ignore: decorator
@inline function countStarts(nextIndex: usize, first: i32, last: i32): u32 {
  let c: u32 = 0;
  for (let i = first; i < last; i++) if (load<i32>(at(nextIndex, i)) != -1) c++;
  return c;
}

/**
 * FillDataKernel, with every thread taking part in the barriers. scanId: one u32 per thread of
 * the grid; globalLen: one per block; newLength[0] += the block's total. Shared:
 * blockScanTileBytes(blockDim).
 */
export function petCoinCount(nextIndex: usize, n: i32, scanId: usize, globalLen: usize, newLength: usize, elems: i32): void {
  const nt = blockDim.x;
  const local = registers(REG_LOCAL);
  const scan = registers(REG_SCAN);
  const firstThread = blockIdx.x * nt;
  let m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    const first = (firstThread + t) * elems;
    store<u32>(at(local, t), first < n ? countStarts(nextIndex, first, min(n, first + elems)) : 0);
  }
  const total = blockScanExclusive(local, scan, sharedMem());
  m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    if (t == nt - 1) {
      atomicAdd<u32>(newLength, total);
      store<u32>(at(globalLen, blockIdx.x), total);
    }
    store<u32>(at(scanId, firstThread + t), load<u32>(at(scan, t)));
  }
}

/** CorrectPosKernel with the block offsets precomputed (device exclusive scan of globalLen). */
export function petCoinFill(data: usize, pairs: usize, pairFirst: usize, nextIndex: usize, n: i32,
                            scanId: usize, blockOffsets: usize, elems: i32): void {
  const nt = blockDim.x;
  const firstThread = blockIdx.x * nt;
  const global = load<u32>(at(blockOffsets, blockIdx.x));
  const m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = scheduleIsFree() ? k : threadAt(k);
    const first = (firstThread + t) * elems;
    if (first >= n) continue;
    let o = global + load<u32>(at(scanId, firstThread + t));
    const last = min(n, first + elems);
    for (let i = first; i < last; i++) {
      if (load<i32>(at(nextIndex, i)) != -1) {
        const p = pairs + (<usize>o << 5);
        copySingle(p, singleAt(data, i));
        copySingle(p + 16, singleAt(data, i + 1));
        store<u32>(at(pairFirst, <i32>o), <u32>i);
        o++;
      }
    }
  }
}
