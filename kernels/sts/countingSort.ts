// CBM STS digi sorting by channel (seed 004): the talk's counting sorts in which global thread g
// of P owns the contiguous chunk [g·n/P, (g+1)·n/P) ("Alternative: each thread does its own
// sorting?") — order preserving on every schedule, since only thread g touches its row of the
// histogram. A digi is two u32 words, (channel, time): digis[2i] is digi i's channel. The
// atomic variant is kernels/sts/atomicSort.ts; the scan between the steps is simt's one scan
// (kernels/primitives/scan.ts). The talk's per-thread form, for thread g:
//
//   int* digisPerChannel = &hist[g * k];                    // k = channelCount
//   for (int i = begin(g); i < begin(g + 1); i++) digisPerChannel[a[i].channel]++;
//   prefixSum = exclusive scan of digisPerChannel;          // the thread's own
//   for (int i = begin(g); i < begin(g + 1); i++) sorted[prefixSum[a[i].channel]++] = a[i];
//
// chunked (the native baseline's algorithm): stsCountChunks (layout 1, row g of P·k cells, zeroed by g) →
// stsColumnOffsets (per channel, the rows' exclusive scan and the channel total) → scan of the
// totals → stsScatterChunks (thread g writes its chunk at chanStart[c] + colOff[g·k + c]++).
// local (the talk's sorted[n/p]): stsCountChunks → stsLocalOffsets (thread g scans its own row)
// → stsLocalSort (thread g counting-sorts its chunk into its slice of tmp) → stsColumnOffsets →
// scan → stsLocalMerge (thread g moves each (thread, channel) segment to its global place).
//
// chunked over two arrays {channel, time} (the job's default when the digis come as columns):
// stsCountChunksSoA → stsColumnOffsets → scan → stsScatterChunksSoA, the same steps without
// interleaving the columns into words first or splitting them after.
//
// chunked with a small count table (P·k cells): stsCountChunks[SoA] → stsScatterChunksFused[SoA],
// each thread deriving its own offsets from the whole table (two launches fewer).
//
// The talk writes these steps as the per-thread loops above; each kernel here is one of them.
//
// Every count kernel checks channel < nChannels: a bad digi is neither counted nor moved, and
// bad[0] (0xffffffff from the host) takes the smallest bad index by atomicMin (the chunked
// counts: one atomicMin per thread, after its loop, of the first bad index it saw — a loop without an
// atomic's compare-exchange loop in it is one V8 unrolls: 3–5 % of the count, bench/RESULTS.md).
import { threadIdx, blockIdx, blockDim, gridDim, atomicMin } from "simt/kernel";

/** ⌊a·b/c⌋ for a ≤ c, b < c, c < 2^31, bit by bit on the remainder: a·b needs 64 bits, which WGSL lacks. */
function mulDiv(a: u32, b: u32, c: u32): u32 {
  let q: u32 = 0;
  let rem: u32 = 0;
  for (let bit = 30; bit >= 0; bit--) {
    q <<= 1;
    rem <<= 1;
    if (rem >= c) { rem -= c; q++; }
    if (((b >> <u32>bit) & 1) != 0) {
      rem += a;
      if (rem >= c) { rem -= c; q++; }
    }
  }
  return q;
}

/**
 * The first digi of thread g's chunk: ⌊g·n/P⌋ = g·⌊n/P⌋ + ⌊g·(n mod P)/P⌋ (CUDA: (long long)g * n / P).
 * The kernels clamp a chunk to [0, n) where they call it, `max(chunkBegin(g, p, n), 0)` and
 * `min(chunkBegin(g + 1, p, n), n)`: a no-op, but the compiler's range proof does not look
 * inside a device function, and the clamps let it drop the checks of `channel[i]` in the loops.
 */
function chunkBegin(g: i32, p: i32, n: i32): i32 { return g * (n / p) + <i32>mulDiv(<u32>g, <u32>(n % p), <u32>p); }

/**
 * Thread g counts its chunk: layout 0, channel-major hist[c·P + g]; 1, thread-major hist[g·k + c].
 * Thread g first zeroes its own k cells, so the table needs no clearing before the launch: the
 * clearing is spread over the threads as native C's memset inside its parallel region, where a
 * host fill of P·k cells ran on one core (1.3 of 5.4 ms at 16 workers, 100k channels).
 */
export function stsCountChunks(digis: u32[], hist: u32[], n: i32, nChannels: u32, bad: u32[], layout: i32): void {
  const p = gridDim.x * blockDim.x;
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const row = <u32>g * nChannels;
  if (layout == 0) for (let c: u32 = 0; c < nChannels; c++) hist[c * <u32>p + <u32>g] = 0;
  else for (let c: u32 = 0; c < nChannels; c++) hist[row + c] = 0;
  const end = min(chunkBegin(g + 1, p, n), n);
  let firstBad: u32 = 0xffffffff;
  for (let i = max(chunkBegin(g, p, n), 0); i < end; i++) {
    const c = digis[2 * i];
    if (c >= nChannels) firstBad = min(firstBad, <u32>i);
    else if (layout == 0) hist[c * <u32>p + <u32>g] += 1;
    else hist[row + c] += 1;
  }
  if (firstBad != 0xffffffff) atomicMin(bad, 0, firstBad);
}

/**
 * Thread g writes its chunk, in input order, at chanStart[c] + colOff[g·k + c]++. It first adds
 * chanStart into its own row of colOff (k cells), so the loop over its digis reads one table
 * instead of two: a random load fewer per digi, which is what a large channel count pays for
 * (the native baseline's one table of write positions). colOff ends as the positions past each
 * of the thread's segments.
 */
export function stsScatterChunks(digis: u32[], out: u32[], colOff: u32[], chanStart: u32[], n: i32, nChannels: u32): void {
  const p = gridDim.x * blockDim.x;
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const row = <u32>g * nChannels;
  for (let c: u32 = 0; c < nChannels; c++) colOff[row + c] += chanStart[c];
  const end = min(chunkBegin(g + 1, p, n), n);
  for (let i = max(chunkBegin(g, p, n), 0); i < end; i++) {
    const c = digis[2 * i];
    if (c >= nChannels) continue;
    const pos = colOff[row + c];
    colOff[row + c] = pos + 1;
    out[2 * pos] = c;
    out[2 * pos + 1] = digis[2 * i + 1];
  }
}

/**
 * stsCountChunks (layout 1) over the channel column of digis held as two arrays {channel, time}:
 * the count reads 4 bytes a digi instead of every other word of 8, and no interleaving pass runs.
 */
export function stsCountChunksSoA(channel: u32[], hist: u32[], n: i32, nChannels: u32, bad: u32[]): void {
  const p = gridDim.x * blockDim.x;
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const row = <u32>g * nChannels;
  for (let c: u32 = 0; c < nChannels; c++) hist[row + c] = 0;
  const end = min(chunkBegin(g + 1, p, n), n);
  let firstBad: u32 = 0xffffffff;
  for (let i = max(chunkBegin(g, p, n), 0); i < end; i++) {
    const c = channel[i];
    if (c >= nChannels) firstBad = min(firstBad, <u32>i);
    else hist[row + c] += 1;
  }
  if (firstBad != 0xffffffff) atomicMin(bad, 0, firstBad);
}

/**
 * stsScatterChunks from and to two arrays {channel, time} (colOff ends as there). The sorted
 * channel column is runs of equal channels whose bounds chanStart already holds, so only the
 * time is scattered: thread g writes its chunk's times at chanStart[c] + colOff[g·k + c]++, and
 * fills its share of the channel column, positions [⌊g·nSorted/P⌋, ⌊(g+1)·nSorted/P⌋), run by
 * run, with sequential stores. One scattered store a digi instead of two: the scattered stores are the sort's cost.
 * nSorted = Σ totals, the digis whose channel is below nChannels (all of them in the job, which
 * stops at a bad digi before this step); chanStart is the exclusive scan of the totals.
 */
export function stsScatterChunksSoA(channel: u32[], time: u32[], outChannel: u32[], outTime: u32[], colOff: u32[], chanStart: u32[],
                                    n: i32, nChannels: u32, nSorted: i32): void {
  const p = gridDim.x * blockDim.x;
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  let pos = chunkBegin(g, p, nSorted);
  const fillEnd = chunkBegin(g + 1, p, nSorted);
  if (pos < fillEnd) {
    // The channel whose run holds pos: the last c with chanStart[c] <= pos (an empty channel's
    // run starts where the next one's does, so the last such c is the one with digis).
    let lo: u32 = 0;
    let hi: u32 = nChannels - 1;
    while (lo < hi) {
      const mid = hi - ((hi - lo) >> 1);
      if (chanStart[mid] <= <u32>pos) lo = mid;
      else hi = mid - 1;
    }
    let c = lo;
    while (pos < fillEnd) {
      let runEnd = fillEnd;
      if (c + 1 < nChannels && <i32>chanStart[c + 1] < fillEnd) runEnd = <i32>chanStart[c + 1];
      for (; pos < runEnd; pos++) outChannel[pos] = c;
      c++;
    }
  }
  // As stsScatterChunks: the row becomes absolute positions, one table read per digi.
  const row = <u32>g * nChannels;
  for (let c: u32 = 0; c < nChannels; c++) colOff[row + c] += chanStart[c];
  const end = min(chunkBegin(g + 1, p, n), n);
  for (let i = max(chunkBegin(g, p, n), 0); i < end; i++) {
    const c = channel[i];
    if (c >= nChannels) continue;
    const at = colOff[row + c];
    colOff[row + c] = at + 1;
    outTime[at] = time[i];
  }
}

/**
 * Thread g of P derives its own write positions from the whole count table, the work of
 * stsColumnOffsets and of the scan of the channel totals done by each thread for itself:
 * colOff[g·k + c] = (digis of channels below c) + (digis of channel c in rows before g). It reads
 * all P·k counts, so the fused scatters below pay off only while P·k is small, where they save
 * two launches. Positions [fillBegin, fillEnd) of outChannel, the thread's share of the sorted
 * channel column, get their channel on the way (none when fillBegin == fillEnd).
 */
function ownOffsets(counts: u32[], colOff: u32[], outChannel: u32[], g: u32, p: u32, nChannels: u32, fillBegin: i32, fillEnd: i32): void {
  let start: u32 = 0;
  for (let c: u32 = 0; c < nChannels; c++) {
    let before: u32 = 0;
    for (let h: u32 = 0; h < g; h++) before += counts[h * nChannels + c];
    let total = before;
    for (let h = g; h < p; h++) total += counts[h * nChannels + c];
    colOff[g * nChannels + c] = start + before;
    let a = <i32>start;
    if (a < fillBegin) a = fillBegin;
    let b = <i32>(start + total);
    if (b > fillEnd) b = fillEnd;
    for (; a < b; a++) outChannel[a] = c;
    start += total;
  }
}

/**
 * stsColumnOffsets, the scan and stsScatterChunks in one launch (small count tables: see
 * ownOffsets): thread g finds its positions in counts (stsCountChunks' layout 1), then writes its
 * chunk in input order. colOff (P·k cells) ends as stsScatterChunks leaves it. The loop over the
 * digis is stsScatterChunks' own, written out again: the range proof covers a kernel's accesses,
 * not a helper function's, and in a helper colOff[row + c] would be checked on every digi.
 */
export function stsScatterChunksFused(digis: u32[], out: u32[], counts: u32[], colOff: u32[], n: i32, nChannels: u32): void {
  const p = gridDim.x * blockDim.x;
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  ownOffsets(counts, colOff, out, <u32>g, <u32>p, nChannels, 0, 0);
  const row = <u32>g * nChannels;
  const end = min(chunkBegin(g + 1, p, n), n);
  for (let i = max(chunkBegin(g, p, n), 0); i < end; i++) {
    const c = digis[2 * i];
    if (c >= nChannels) continue;
    const pos = colOff[row + c];
    colOff[row + c] = pos + 1;
    out[2 * pos] = c;
    out[2 * pos + 1] = digis[2 * i + 1];
  }
}

/**
 * stsScatterChunksSoA with its offsets found by each thread (see ownOffsets): one launch after
 * the count instead of three. nSorted as in stsScatterChunksSoA.
 */
export function stsScatterChunksFusedSoA(channel: u32[], time: u32[], outChannel: u32[], outTime: u32[], counts: u32[], colOff: u32[],
                                         n: i32, nChannels: u32, nSorted: i32): void {
  const p = gridDim.x * blockDim.x;
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  ownOffsets(counts, colOff, outChannel, <u32>g, <u32>p, nChannels, chunkBegin(g, p, nSorted), chunkBegin(g + 1, p, nSorted));
  const row = <u32>g * nChannels;
  const end = min(chunkBegin(g + 1, p, n), n);
  for (let i = max(chunkBegin(g, p, n), 0); i < end; i++) {
    const c = channel[i];
    if (c >= nChannels) continue;
    const at = colOff[row + c];
    colOff[row + c] = at + 1;
    outTime[at] = time[i];
  }
}

/** Thread g: its own exclusive prefix sum of its row of counts (the talk's per-thread prefixSum). */
export function stsLocalOffsets(counts: u32[], localOff: u32[], nChannels: u32): void {
  const row = <u32>(blockIdx.x * blockDim.x + threadIdx.x) * nChannels;
  let run: u32 = 0;
  for (let c: u32 = 0; c < nChannels; c++) {
    const v = counts[row + c];
    localOff[row + c] = run;
    run += v;
  }
}

/** Thread g counting-sorts its chunk into tmp[chunk g]; localOff[g·k + c] ends as channel c's end there. */
export function stsLocalSort(digis: u32[], tmp: u32[], localOff: u32[], n: i32, nChannels: u32): void {
  const p = gridDim.x * blockDim.x;
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const begin = max(chunkBegin(g, p, n), 0);
  const end = min(chunkBegin(g + 1, p, n), n);
  for (let i = begin; i < end; i++) {
    const c = digis[2 * i];
    if (c >= nChannels) continue;
    const cell = <u32>g * nChannels + c;
    const pos = <u32>begin + localOff[cell];
    localOff[cell] += 1;
    tmp[2 * pos] = c;
    tmp[2 * pos + 1] = digis[2 * i + 1];
  }
}

/** Per channel c (grid-stride): colOff[g·k + c] = Σ_{g' < g} counts[g'·k + c], totals[c] = Σ_g counts[g·k + c]. */
export function stsColumnOffsets(counts: u32[], colOff: u32[], totals: u32[], nChannels: i32, nRows: i32): void {
  for (let c = blockIdx.x * blockDim.x + threadIdx.x; c < nChannels; c += blockDim.x * gridDim.x) {
    let run: u32 = 0;
    for (let g = 0; g < nRows; g++) {
      const cell = <u32>g * <u32>nChannels + <u32>c;
      const v = counts[cell];
      colOff[cell] = run;
      run += v;
    }
    totals[c] = run;
  }
}

/** Thread g moves each of its channel segments from tmp to chanStart[c] + colOff[g·k + c] (localEnd: stsLocalSort's ends). */
export function stsLocalMerge(tmp: u32[], out: u32[], counts: u32[], localEnd: u32[], colOff: u32[], chanStart: u32[],
                              n: i32, nChannels: u32): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const begin = <u32>chunkBegin(g, gridDim.x * blockDim.x, n);
  for (let c: u32 = 0; c < nChannels; c++) {
    const cell = <u32>g * nChannels + c;
    const m = counts[cell];
    const src = begin + localEnd[cell] - m;
    const dst = chanStart[c] + colOff[cell];
    for (let q: u32 = 0; q < m; q++) {
      out[2 * (dst + q)] = tmp[2 * (src + q)];
      out[2 * (dst + q) + 1] = tmp[2 * (src + q) + 1];
    }
  }
}

/** bad[0] = the smallest index whose channel is not below nChannels (grid-stride; for the sorts that do not count). */
export function stsCheckChannels(digis: u32[], n: i32, nChannels: u32, bad: u32[]): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (digis[2 * i] >= nChannels) atomicMin(bad, 0, <u32>i);
  }
}
