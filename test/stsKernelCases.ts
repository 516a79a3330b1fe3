// Launches of the STS sorts' kernels (kernels/sts/countingSort.ts, mergeSort.ts and their
// declared specializations) with the arguments after each launch as an independent plain-TS
// reference states them: stable sorts by channel or (channel, time) from Array.prototype.sort,
// not the kernels' algorithms. Used by test/sts-kernels.test.ts (the generic kernels on every
// backend) and test/specializations.test.ts (the specializations against them).
import { rng } from './helpers.js';

export type Arg = Uint32Array | number;
export interface StsKernelCase {
  label: string; kernel: string; grid: number; block: number; sharedBytes?: number;
  args: Arg[];
  /** The arguments after the launch (arrays; scalars as given). */
  expected: Arg[];
}

const U = (xs: ArrayLike<number>): Uint32Array => Uint32Array.from(xs);
const chunkBegin = (g: number, p: number, n: number): number => Math.floor((g * n) / p);

/** n digis (channel, time): per-channel runs as the detector delivers them, some channels bad. */
export function digis(n: number, nChannels: number, seed: number, badFraction = 0, maxWord = 0x100000000): Uint32Array {
  const r = rng(seed);
  const d = new Uint32Array(2 * n);
  let c = Math.floor(r() * nChannels);
  for (let i = 0; i < n; i++) {
    if (r() < 0.3) c = Math.floor(r() * nChannels);
    d[2 * i] = r() < badFraction ? nChannels + Math.floor(r() * 3) : c;
    d[2 * i + 1] = Math.floor(r() * maxWord);
  }
  return d;
}

type Digi = [number, number];
const pairsOf = (w: Uint32Array, from = 0, to = w.length / 2): Digi[] => Array.from({ length: to - from }, (_, k) => [w[2 * (from + k)]!, w[2 * (from + k) + 1]!]);
const byChannel = (a: Digi, b: Digi): number => a[0] - b[0];
const byKey = (hi: 0 | 1) => (a: Digi, b: Digi): number => (a[hi] - b[hi]) || (a[1 - hi]! - b[1 - hi]!);
function put(w: Uint32Array, at: number, ps: Digi[]): void { ps.forEach((p, k) => { w[2 * (at + k)] = p[0]; w[2 * (at + k) + 1] = p[1]; }); }

/** Counts of thread g's chunk (layout 1: g·k + c) and the smallest bad index. */
function chunkCounts(d: Uint32Array, k: number, p: number): { counts: Uint32Array; bad: number } {
  const n = d.length / 2;
  const counts = new Uint32Array(p * k);
  let bad = 0xffffffff;
  for (let g = 0; g < p; g++) {
    for (let i = chunkBegin(g, p, n); i < chunkBegin(g + 1, p, n); i++) {
      if (d[2 * i]! < k) counts[g * k + d[2 * i]!]!++;
      else bad = Math.min(bad, i);
    }
  }
  return { counts, bad };
}
function columnOffsets(counts: Uint32Array, k: number, p: number): { colOff: Uint32Array; totals: Uint32Array } {
  const colOff = new Uint32Array(p * k), totals = new Uint32Array(k);
  for (let c = 0; c < k; c++) for (let g = 0; g < p; g++) { colOff[g * k + c] = totals[c]!; totals[c] += counts[g * k + c]!; }
  return { colOff, totals };
}
const exclusive = (x: Uint32Array): Uint32Array => { const o = new Uint32Array(x.length); for (let i = 1; i < x.length; i++) o[i] = o[i - 1]! + x[i - 1]!; return o; };
const rowScan = (counts: Uint32Array, k: number, p: number): Uint32Array => { const o = new Uint32Array(p * k); for (let g = 0; g < p; g++) o.set(exclusive(counts.subarray(g * k, (g + 1) * k)), g * k); return o; };
const add = (a: Uint32Array, b: Uint32Array): Uint32Array => a.map((x, i) => x + b[i]!);
/** The valid digis stably sorted by channel. */
const stableByChannel = (d: Uint32Array, k: number): Digi[] => pairsOf(d).filter((p) => p[0] < k).sort(byChannel);

// --- the counting sorts' kernels -----------------------------------------------------------------

export function countingCases(d: Uint32Array, k: number, grid: number, block: number, label: string): StsKernelCase[] {
  const n = d.length / 2, p = grid * block;
  const at = `${label}, n=${n}, k=${k}, ${grid}×${block}`;
  const { counts, bad } = chunkCounts(d, k, p);
  const channelMajor = new Uint32Array(p * k);
  for (let g = 0; g < p; g++) for (let c = 0; c < k; c++) channelMajor[c * p + g] = counts[g * k + c]!;
  const { colOff, totals } = columnOffsets(counts, k, p);
  const chanStart = exclusive(totals);
  // The scatters leave colOff as the absolute positions past each (thread, channel) segment.
  const scattered = colOff.map((x, cell) => x + chanStart[cell % k]! + counts[cell]!);
  const sorted = new Uint32Array(2 * n).fill(0xdeadbeef);
  put(sorted, 0, stableByChannel(d, k));
  const local = rowScan(counts, k, p);
  const tmp = new Uint32Array(2 * n).fill(0xdeadbeef);
  for (let g = 0; g < p; g++) put(tmp, chunkBegin(g, p, n), pairsOf(d, chunkBegin(g, p, n), chunkBegin(g + 1, p, n)).filter((x) => x[0] < k).sort(byChannel));
  const fresh = () => new Uint32Array(2 * n).fill(0xdeadbeef);
  const cases: StsKernelCase[] = [];
  for (const layout of [0, 1]) {
    cases.push({ label: `${at}, layout ${layout}`, kernel: 'stsCountChunks', grid, block,
      args: [d, new Uint32Array(p * k).fill(0xdeadbeef), n, k, U([0xffffffff]), layout], expected: [d, layout ? counts : channelMajor, n, k, U([bad]), layout] });
  }
  cases.push({ label: at, kernel: 'stsColumnOffsets', grid, block, args: [counts, new Uint32Array(p * k), new Uint32Array(k), k, p], expected: [counts, colOff, totals, k, p] });
  cases.push({ label: at, kernel: 'stsScatterChunks', grid, block, args: [d, fresh(), colOff, chanStart, n, k], expected: [d, sorted, scattered, chanStart, n, k] });
  cases.push({ label: at, kernel: 'stsScatterChunksFused', grid, block, args: [d, fresh(), counts, new Uint32Array(p * k).fill(0xdeadbeef), n, k],
    expected: [d, sorted, counts, scattered, n, k] });
  cases.push({ label: at, kernel: 'stsLocalOffsets', grid, block, args: [counts, new Uint32Array(p * k), k], expected: [counts, local, k] });
  cases.push({ label: at, kernel: 'stsLocalSort', grid, block, args: [d, fresh(), local, n, k], expected: [d, tmp, add(local, counts), n, k] });
  cases.push({ label: at, kernel: 'stsLocalMerge', grid, block, args: [tmp, fresh(), counts, add(local, counts), colOff, chanStart, n, k],
    expected: [tmp, sorted, counts, add(local, counts), colOff, chanStart, n, k] });
  cases.push({ label: at, kernel: 'stsCheckChannels', grid, block, args: [d, n, k, U([0xffffffff])], expected: [d, n, k, U([bad])] });
  // The same sort over two arrays {channel, time}: columns of d in, columns of `sorted` out.
  const [channel, time] = columnsOf(d), [sortedChannel, sortedTime] = columnsOf(sorted);
  const freshColumn = () => new Uint32Array(n).fill(0xdeadbeef);
  const valid = counts.reduce((sum, x) => sum + x, 0); // the digis with a channel below k
  cases.push({ label: at, kernel: 'stsCountChunksSoA', grid, block,
    args: [channel, new Uint32Array(p * k).fill(0xdeadbeef), n, k, U([0xffffffff])], expected: [channel, counts, n, k, U([bad])] });
  cases.push({ label: at, kernel: 'stsScatterChunksSoA', grid, block, args: [channel, time, freshColumn(), freshColumn(), colOff, chanStart, n, k, valid],
    expected: [channel, time, sortedChannel, sortedTime, scattered, chanStart, n, k, valid] });
  cases.push({ label: at, kernel: 'stsScatterChunksFusedSoA', grid, block, args: [channel, time, freshColumn(), freshColumn(), counts, new Uint32Array(p * k).fill(0xdeadbeef), n, k, valid],
    expected: [channel, time, sortedChannel, sortedTime, counts, scattered, n, k, valid] });
  cases.push({ label: at, kernel: 'stsInterleaveDigis', grid, block, args: [channel, time, fresh(), n], expected: [channel, time, d, n] });
  cases.push({ label: at, kernel: 'stsSplitDigis', grid, block, args: [d, freshColumn(), freshColumn(), n], expected: [d, channel, time, n] });
  return cases;
}

/** Interleaved (channel, time) words → their two columns. */
function columnsOf(w: Uint32Array): [Uint32Array, Uint32Array] {
  const n = w.length / 2, c = new Uint32Array(n), t = new Uint32Array(n);
  for (let i = 0; i < n; i++) { c[i] = w[2 * i]!; t[i] = w[2 * i + 1]!; }
  return [c, t];
}

// --- the merge and key sorts' kernels ------------------------------------------------------------

/** Run starts of d by (channel, time) and the flags. */
function runsOf(d: Uint32Array): { flags: Uint32Array; starts: number[] } {
  const ps = pairsOf(d), flags = new Uint32Array(ps.length), starts: number[] = [];
  ps.forEach((x, i) => { if (i === 0 || byKey(0)(ps[i - 1]!, x) > 0) { flags[i] = 1; starts.push(i); } });
  return { flags, starts };
}

/** One merge round by sort: each pair of runs concatenated and stably sorted (the left run first). */
function mergedPairs(w: Uint32Array, starts: number[], hi: 0 | 1): Uint32Array {
  const n = w.length / 2, out = new Uint32Array(2 * n);
  const b = [...starts, n];
  for (let j = 0; j < starts.length; j += 2) put(out, b[j]!, pairsOf(w, b[j]!, b[Math.min(j + 2, starts.length)]!).sort(byKey(hi)));
  return out;
}

/** Words with runs that each sort ascending by `hi` word first: random run lengths, some of one element. */
function sortedRuns(n: number, seed: number, hi: 0 | 1): { w: Uint32Array; starts: number[] } {
  const r = rng(seed), ps = pairsOf(digis(n, 7, seed, 0, seed % 2 ? 0x100000000 : 5));
  const starts: number[] = [];
  for (let i = 0; i < n;) { starts.push(i); const len = 1 + Math.floor(r() * (r() < 0.2 ? 2 : 60)); ps.splice(i, Math.min(len, n - i), ...ps.slice(i, i + len).sort(byKey(hi))); i += len; }
  const w = new Uint32Array(2 * n);
  put(w, 0, ps);
  return { w, starts };
}

export function mergeCases(n: number, seed: number, grid: number, block: number, per: number): StsKernelCase[] {
  const at = `n=${n}, seed ${seed}, ${grid}×${block}`;
  const cases: StsKernelCase[] = [];
  const d = digis(n, 5, seed, 0, seed % 3 === 0 ? 4 : 0x100000000); // few times: many equal keys
  const { flags, starts } = runsOf(d);
  const pos = exclusive(flags);
  cases.push({ label: at, kernel: 'stsRunFlags', grid, block, args: [d, new Uint32Array(n), n], expected: [d, flags, n] });
  if (n > 0) cases.push({ label: at, kernel: 'stsRunStarts', grid, block, args: [d, pos, new Uint32Array(starts.length + 1), n, starts.length], expected: [d, pos, U([...starts, n]), n, starts.length] });
  for (const hi of [0, 1] as const) {
    const { w, starts: s } = sortedRuns(n, seed + hi, hi);
    const kernel = hi === 0 ? 'stsMergeDigis' : 'stsMergeKeys';
    const st = U([...s, n]);
    if (n > 0) cases.push({ label: `${at}, ${s.length} runs, ${per} per thread`, kernel, grid, block, args: [w, new Uint32Array(2 * n), st, s.length, n, per], expected: [w, mergedPairs(w, s, hi), st, s.length, n, per] });
    const half = Math.ceil(s.length / 2);
    const next = U([...s.filter((_, j) => j % 2 === 0), n]);
    if (n > 0) cases.push({ label: `${at}, ${s.length} runs`, kernel: 'stsHalveRuns', grid, block, args: [st, new Uint32Array(half + 1), s.length, n], expected: [st, next, s.length, n] });
  }
  const swapped = d.map((_, i) => d[i ^ 1]!);
  cases.push({ label: at, kernel: 'stsDigisToKeys', grid, block, args: [d, new Uint32Array(2 * n), n], expected: [d, swapped, n] });
  cases.push({ label: at, kernel: 'stsKeysToDigis', grid, block, args: [swapped, new Uint32Array(2 * n), n], expected: [swapped, d, n] });
  return cases;
}

export function tileCases(n: number, block: number, seed: number): StsKernelCase[] {
  const tile = 2 * block, nTiles = Math.ceil(n / tile);
  const keys = digis(n, 0x100000000, seed, 0, seed % 2 ? 0x100000000 : 3).map((_, i, w) => w[i ^ 1]!); // (time, channel) pairs
  if (n > 2) { keys[0] = 0xffffffff; keys[1] = 0xffffffff; } // the largest key, as the padding is
  const sorted = new Uint32Array(2 * n);
  for (let t = 0; t < nTiles; t++) put(sorted, t * tile, pairsOf(keys, t * tile, Math.min(n, (t + 1) * tile)).sort(byKey(1)));
  const starts = U(Array.from({ length: nTiles + 1 }, (_, j) => Math.min(j * tile, n)));
  const at = `n=${n}, block ${block} (tile ${tile})`;
  return [
    { label: at, kernel: 'stsTileSort', grid: Math.max(1, nTiles), block, sharedBytes: 8 * tile, args: [keys, n], expected: [sorted, n] },
    { label: at, kernel: 'stsTileStarts', grid: 2, block: 32, args: [new Uint32Array(nTiles + 1), nTiles, tile, n], expected: [starts, nTiles, tile, n] },
  ];
}

export function allCases(small: boolean): StsKernelCase[] {
  const cases: StsKernelCase[] = [];
  const sizes = small ? [0, 1, 2, 33, 200] : [0, 1, 2, 33, 1000, 4097, 20_011];
  const shapes: [number, number][] = small ? [[1, 1], [3, 4], [2, 32]] : [[1, 1], [3, 4], [8, 1], [7, 64], [2, 256]];
  for (const n of sizes) {
    for (const [grid, block] of shapes) {
      for (const k of small ? [1, 13] : [1, 13, 1000]) cases.push(...countingCases(digis(n, k, n * 31 + k + grid, 0.02), k, grid, block, 'runs of channels'));
      for (const per of small ? [1, 7] : [1, 7, 256]) cases.push(...mergeCases(n, n + grid + per, grid, block, per));
    }
    for (const block of small ? [1, 2, 32] : [1, 2, 32, 256, 1024]) cases.push(...tileCases(n, block, n + block));
  }
  if (!small) {
    // The largest channel count (2^32 - 1): only the check, which keeps no table; one digi at channel 2^32 - 1 is bad.
    const big = digis(5000, 0xffffffff, 4, 0);
    big[2 * 4321] = 0xffffffff;
    cases.push({ label: 'n=5000, k=2^32-1', kernel: 'stsCheckChannels', grid: 3, block: 64, args: [big, 5000, 0xffffffff, U([0xffffffff])], expected: [big, 5000, 0xffffffff, U([4321])] });
    cases.push(...countingCases(digis(3000, 3000, 5, 0.5), 3000, 4, 2, 'half the channels bad'));
    cases.push(...tileCases(3 * 2048 + 5, 1024, 77));
  }
  return cases;
}

