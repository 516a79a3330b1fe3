// CBM STS digi sorting by channel (seed 004): counting sorts — the hand-written fast paths, each
// a declared specialization of its generic kernel in kernels/sts/atomicSort.ts or
// countingSort.ts (written per thread; src/kernels/sts.ts). stsCountChunks and stsLocalOffsets
// run as compiled from kernels/sts/countingSort.ts: their hand-written forms were no faster.
//
// A digi is two u32 words, (channel, time), 8 bytes, as the native baseline's struct and
// `stsDigisForBench` lay it out. Digis arrive as per-channel time-ordered runs, so a sort by
// channel that keeps the input order inside a channel sorts by (channel, time).
//
// Three variants, all three steps of the talk (count, exclusive scan, scatter):
//
// * atomic (the talk's "Parallel in O(n/p + k)?"): stsCountChannels counts with atomicAdd on
//   one global histogram, the scan turns it into channel starts, stsScatterAtomic places every
//   digi at `atomicAdd(&prefixSum[channel], 1)`. Which thread wins each atomic decides the order
//   inside a channel: schedule dependent by design (the talk's "two or more threads want to
//   insert into the same channel"). Kept as a corpus case for the race tools.
// * chunked, order preserving (the talk's per-thread approach with a global layout): global
//   thread g of P owns the contiguous chunk [g·n/P, (g+1)·n/P) and counts it into its own
//   row of a histogram cnt[g·k + c]; per channel the rows are scanned (stsColumnOffsets) and
//   the channel totals scanned (kernels/primitives/scan.ts), which gives every (channel, thread) pair its own
//   output range, in input order, so thread g's scatter (plain increments: only g touches row
//   g) is stable on every schedule. This is the native baseline's algorithm.
// * local (the talk's "Alternative: each thread does its own sorting?"): thread g counts its
//   chunk into its own row cnt[g·k + c], scans the row (its own prefixSum), counting-sorts its
//   chunk into its slice of a temporary array (`sorted[n/p]`), and a second pass moves every
//   (thread, channel) segment to its global place: O(n/p + k) per thread, O(p·k + n) memory.
//
// Validation: every count kernel checks channel < nChannels and records the smallest bad
// index with atomicMin in *bad (initialised to 0xffffffff by the host), so the host can raise
// a typed error before any output is written. A bad digi is not counted and never scattered.

import {
  blockIdx, blockDim, gridDim, beginPhase, threadAt, scheduleIsFree, atomicAdd, atomicMin,
} from "../../runtime";

// @ts-ignore: decorator
@inline function channelOf(digis: usize, i: i32): u32 { return load<u32>(digis + (<usize>i << 3)); }

/** Copies m digis (8 bytes each): a loop for short runs, memory.copy for long ones. */
// @ts-ignore: decorator
@inline function copyDigis(dst: usize, src: usize, m: i32): void {
  if (m > 16) { memory.copy(dst, src, <usize>m << 3); return; }
  for (let q = 0; q < m; q++) store<u64>(dst + (<usize>q << 3), load<u64>(src + (<usize>q << 3)));
}

// @ts-ignore: decorator
@inline function flagBad(bad: usize, i: i32): void { atomicMin<u32>(bad, <u32>i); }

// ---------------------------------------------------------------------------------------------
// atomic variant
// ---------------------------------------------------------------------------------------------

/**
 * Step 1 (talk's countKernel, grid-stride): atomicAdd(&digisPerChannel[channel], 1).
 * Fast path (free schedule): a run of equal channels among the block's consecutive threads is
 * executed back to back and its increments fused into one atomicAdd(m) — an outcome the
 * unfused kernel can produce (those threads simply ran one after the other).
 */
export function stsCountChannels(digis: usize, counts: usize, n: i32, nChannels: u32, bad: usize): void {
  const stride = gridDim.x * blockDim.x;
  const nt = blockDim.x;
  for (let base = blockIdx.x * nt; base < n; base += stride) {
    if (!scheduleIsFree()) {
      const cnt = beginPhase();
      for (let k = 0; k < cnt; k++) {
        const i = base + threadAt(k);
        if (i >= n) continue;
        const c = channelOf(digis, i);
        if (c >= nChannels) { flagBad(bad, i); continue; }
        atomicAdd<u32>(counts + (<usize>c << 2), 1);
      }
      continue;
    }
    const lim = min(n, base + nt);
    let i = base;
    while (i < lim) {
      const c = channelOf(digis, i);
      let j = i + 1;
      while (j < lim && channelOf(digis, j) == c) j++;
      if (c >= nChannels) flagBad(bad, i);
      else atomicAdd<u32>(counts + (<usize>c << 2), <u32>(j - i));
      i = j;
    }
  }
}

/**
 * Step 3 of the talk, in parallel: output[atomicAdd(&prefixSum[channel], 1)] = digi. The order
 * of the digis inside a channel is the order in which threads won the atomic (schedule
 * dependent). Fast path as in stsCountChannels: a run of equal channels takes one
 * atomicAdd(m) and is copied in index order.
 */
export function stsScatterAtomic(digis: usize, out: usize, offsets: usize, n: i32, nChannels: u32): void {
  const stride = gridDim.x * blockDim.x;
  const nt = blockDim.x;
  for (let base = blockIdx.x * nt; base < n; base += stride) {
    if (!scheduleIsFree()) {
      const cnt = beginPhase();
      for (let k = 0; k < cnt; k++) {
        const i = base + threadAt(k);
        if (i >= n) continue;
        const c = channelOf(digis, i);
        if (c >= nChannels) continue;
        const pos = atomicAdd<u32>(offsets + (<usize>c << 2), 1);
        store<u64>(out + (<usize>pos << 3), load<u64>(digis + (<usize>i << 3)));
      }
      continue;
    }
    const lim = min(n, base + nt);
    let i = base;
    while (i < lim) {
      const c = channelOf(digis, i);
      let j = i + 1;
      while (j < lim && channelOf(digis, j) == c) j++;
      if (c < nChannels) {
        const pos = atomicAdd<u32>(offsets + (<usize>c << 2), <u32>(j - i));
        copyDigis(out + (<usize>pos << 3), digis + (<usize>i << 3), j - i);
      }
      i = j;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// chunked (order preserving) and local variants: global thread g owns a contiguous chunk
// ---------------------------------------------------------------------------------------------

// @ts-ignore: decorator
@inline function chunkBegin(g: i32, p: i32, n: i32): i32 { return <i32>((<i64>g * <i64>n) / <i64>p); }

/**
 * Chunked scatter: thread g writes its chunk in input order at chanStart[c] + colOff[g·k + c]++
 * (colOff: stsColumnOffsets over the thread-major counts, chanStart: the scan of the channel
 * totals) — stable, and the same bytes on every schedule. As the generic kernel, thread g adds
 * chanStart into its row of colOff first, which ends as the positions past its segments. Thread-major cells keep the workers'
 * counters on separate cache lines.
 */
export function stsScatterChunks(digis: usize, out: usize, colOff: usize, chanStart: usize, n: i32, nChannels: u32): void {
  const p = gridDim.x * blockDim.x;
  const cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const g = blockIdx.x * blockDim.x + threadAt(k);
    const e = chunkBegin(g + 1, p, n);
    const row = colOff + ((<usize>g * <usize>nChannels) << 2);
    // The row becomes absolute write positions first: one table read per digi, not two.
    for (let c: u32 = 0; c < nChannels; c++) {
      const cell = row + (<usize>c << 2);
      store<u32>(cell, load<u32>(cell) + load<u32>(chanStart + (<usize>c << 2)));
    }
    for (let i = chunkBegin(g, p, n); i < e; i++) {
      const d = load<u64>(digis + (<usize>i << 3));
      const c = <u32>d;
      if (c >= nChannels) continue;
      const cell = row + (<usize>c << 2);
      const pos = load<u32>(cell);
      store<u32>(cell, pos + 1);
      store<u64>(out + (<usize>pos << 3), d);
    }
  }
}

/**
 * Local sort, step 3: thread g counting-sorts its chunk into tmp[chunk g] (its `sorted[n/p]`).
 * Afterwards localOff[g·k + c] is the end of channel c's segment in the chunk (the talk's
 * "end index").
 */
export function stsLocalSort(digis: usize, tmp: usize, localOff: usize, n: i32, nChannels: u32): void {
  const p = gridDim.x * blockDim.x;
  const cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const g = blockIdx.x * blockDim.x + threadAt(k);
    const b = chunkBegin(g, p, n);
    const e = chunkBegin(g + 1, p, n);
    const row = localOff + ((<usize>g * <usize>nChannels) << 2);
    const dst = tmp + (<usize>b << 3);
    for (let i = b; i < e; i++) {
      const d = load<u64>(digis + (<usize>i << 3));
      const c = <u32>d;
      if (c >= nChannels) continue;
      const cell = row + (<usize>c << 2);
      const r = load<u32>(cell);
      store<u32>(cell, r + 1);
      store<u64>(dst + (<usize>r << 3), d);
    }
  }
}

/**
 * Local sort, step 4: one thread per channel c (grid-stride) walks the P rows:
 * colOff[g·k + c] = Σ_{g' < g} counts[g'·k + c], totals[c] = Σ_g counts[g·k + c].
 * Fast path: the block's channels are independent, so the g loop runs outside the thread loop
 * (an interleaving of the same threads) and reads each row contiguously, four channels a lane.
 */
export function stsColumnOffsets(counts: usize, colOff: usize, totals: usize, nChannels: i32, nRows: i32): void {
  const stride = gridDim.x * blockDim.x;
  const nt = blockDim.x;
  for (let base = blockIdx.x * nt; base < nChannels; base += stride) {
    if (!scheduleIsFree()) {
      const cnt = beginPhase();
      for (let k = 0; k < cnt; k++) {
        const c = base + threadAt(k);
        if (c >= nChannels) continue;
        let run: u32 = 0;
        for (let g = 0; g < nRows; g++) {
          const at = (<usize>g * <usize>nChannels + <usize>c) << 2;
          const v = load<u32>(counts + at);
          store<u32>(colOff + at, run);
          run += v;
        }
        store<u32>(totals + (<usize>c << 2), run);
      }
      continue;
    }
    const lim = min(nChannels, base + nt);
    // totals[c] doubles as the running sum while the rows are walked.
    for (let c = base; c < lim; c++) store<u32>(totals + (<usize>c << 2), 0);
    for (let g = 0; g < nRows; g++) {
      const row = <usize>g * <usize>nChannels;
      let c = base;
      for (; c + 4 <= lim; c += 4) {
        const at = (row + <usize>c) << 2;
        const run = v128.load(totals + (<usize>c << 2));
        v128.store(colOff + at, run);
        v128.store(totals + (<usize>c << 2), i32x4.add(run, v128.load(counts + at)));
      }
      for (; c < lim; c++) {
        const at = (row + <usize>c) << 2;
        const run = load<u32>(totals + (<usize>c << 2));
        store<u32>(colOff + at, run);
        store<u32>(totals + (<usize>c << 2), run + load<u32>(counts + at));
      }
    }
  }
}

/**
 * Local sort, step 5: thread g moves each of its channel segments from tmp to its global place
 * chanStart[c] + colOff[g·k + c]. localEnd is stsLocalSort's end offsets.
 */
export function stsLocalMerge(tmp: usize, out: usize, counts: usize, localEnd: usize, colOff: usize,
                              chanStart: usize, n: i32, nChannels: u32): void {
  const p = gridDim.x * blockDim.x;
  const cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const g = blockIdx.x * blockDim.x + threadAt(k);
    const b = <u32>chunkBegin(g, p, n);
    const row = <usize>g * <usize>nChannels;
    for (let c: u32 = 0; c < nChannels; c++) {
      const at = (row + <usize>c) << 2;
      const m = load<u32>(counts + at);
      if (m == 0) continue;
      const src = b + load<u32>(localEnd + at) - m;
      const dst = load<u32>(chanStart + (<usize>c << 2)) + load<u32>(colOff + at);
      copyDigis(out + (<usize>dst << 3), tmp + (<usize>src << 3), <i32>m);
    }
  }
}

/**
 * Checks channel < nChannels for every digi (grid-stride; for the sorts that do not count):
 * *bad = smallest bad index. Fast path: two digis per v128.
 */
export function stsCheckChannels(digis: usize, n: i32, nChannels: u32, bad: usize): void {
  const stride = gridDim.x * blockDim.x;
  const nt = blockDim.x;
  for (let base = blockIdx.x * nt; base < n; base += stride) {
    if (!scheduleIsFree()) {
      const cnt = beginPhase();
      for (let k = 0; k < cnt; k++) {
        const i = base + threadAt(k);
        if (i < n && channelOf(digis, i) >= nChannels) flagBad(bad, i);
      }
      continue;
    }
    const lim = min(n, base + nt);
    const limit = i32x4.splat(<i32>(nChannels - 1));
    const chanLanes = i32x4(-1, 0, -1, 0);
    let i = base;
    for (; i + 2 <= lim; i += 2) {
      const v = v128.load(digis + (<usize>i << 3));
      if (v128.any_true(v128.and(i32x4.gt_u(v, limit), chanLanes))) {
        if (channelOf(digis, i) >= nChannels) flagBad(bad, i);
        else flagBad(bad, i + 1);
      }
    }
    for (; i < lim; i++) if (channelOf(digis, i) >= nChannels) flagBad(bad, i);
  }
}
