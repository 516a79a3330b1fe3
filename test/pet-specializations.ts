// Inputs and plain-TS references for the PET kernels (seed 001): PET_INPUTS for the declared
// specializations (test/specializations.test.ts: each case is one launch of the generic kernel
// of kernels/pet/ and of the hand-written one with the same arguments), PET_GENERIC_INPUTS for
// the generic kernels the job launches without a hand-written form (test/pet-generic.test.ts). The references restate
// the seed's kernels over whole arrays (src/jobs/pet/reference.ts's formulas where it has them),
// so agreement of the two kernels is not agreement on a wrong answer.
import fc from 'fast-check';
import { crystalIndices, energyBin, coincidenceNextIndex, coincidenceSelect, makeSingles } from '../src/jobs/pet/reference.js';
import { energyTableBase, geometrySizes, positionTableBase, type PetGeometry, DEFAULT_GEOMETRY } from '../src/jobs/pet/geometry.js';
import { frameTimeAsDouble, FRAME_BYTES } from '../src/jobs/pet/format.js';
import { makeEnergyTable, makePositionTable } from '../src/jobs/pet/generate.js';
import { coincidenceRecords } from '../src/jobs/pet/coincidenceStage.js';
import { compactionSharedBytes, blockScanSharedBytes } from '../src/kernels/primitives.js';
import { PET_SHAPES } from '../src/kernels/pet.js';
import { Xoshiro128ss } from '../src/data/random.js';
import { rng } from './helpers.js';

export interface PetCase {
  label: string;
  grid: number | { x: number; y: number };
  block: number;
  sharedBytes?: number;
  args: Record<string, ArrayBufferView | number>;
}
type Outputs = Record<string, Uint8Array>;
export interface PetInputs {
  cases(opsShape: unknown, big: boolean): PetCase[];
  arbitrary: fc.Arbitrary<PetCase>;
  reference(c: PetCase): Outputs;
}

const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength).slice();
const u32 = (c: PetCase, name: string) => c.args[name] as Uint32Array;
const outputs = (c: PetCase, changed: Record<string, ArrayBufferView>): Outputs => {
  const o: Outputs = {};
  for (const [k, v] of Object.entries(c.args)) if (typeof v !== 'number') o[k] = bytesOf(v);
  for (const [k, v] of Object.entries(changed)) o[k] = bytesOf(v);
  return o;
};
const nextPow2 = (x: number): number => { let p = 1; while (p < x) p *= 2; return p; };

// --- convert (petCrystalLut, petConvert) ------------------------------------------------------

const SMALL_GEOMETRY: PetGeometry = {
  channelNum: 3, moduleNumX: 1, moduleNumY: 1, moduleNumZ: 2, blockNumX: 1, blockNumY: 2, blockNumZ: 1,
  crystalNumX: 1, crystalNumY: 4, crystalNumZ: 4, crystalSize: 4, positionSize: 16, duNum: 2,
};

interface Tables { g: PetGeometry; words: Uint32Array; positionTable: Uint8Array; energyTable: Float32Array; lut: Uint32Array }
const tablesCache = new Map<PetGeometry, Tables>();
function tables(g: PetGeometry): Tables {
  let t = tablesCache.get(g);
  if (!t) {
    const s = geometrySizes(g);
    const words = Uint32Array.of(s.bdmCount, g.duNum, g.positionSize, s.crystalsPerDu, s.bdmPerRing, g.blockNumY, g.blockNumZ, g.crystalNumY, g.crystalNumZ, s.crystalsPerRing);
    t = { g, words, positionTable: makePositionTable(g, 3).table, energyTable: makeEnergyTable(g, 4).table, lut: lutReference(g) };
    tablesCache.set(g, t);
  }
  return t;
}

/** petCrystalLut's table from reference.ts's crystalIndices. */
function lutReference(g: PetGeometry, count = Infinity): Uint32Array {
  const s = geometrySizes(g);
  const lut = new Uint32Array(2 * s.bdmCount * g.duNum * s.crystalsPerDu);
  for (let bdm = 0; bdm < s.bdmCount; bdm++) for (let du = 0; du < g.duNum; du++) for (let origin = 0; origin < s.crystalsPerDu; origin++) {
    const e = (bdm * g.duNum + du) * s.crystalsPerDu + origin;
    if (e >= count) continue;
    const idx = crystalIndices(g, bdm, du, origin);
    lut[2 * e] = idx.global;
    lut[2 * e + 1] = energyTableBase(g, bdm, du, idx.local);
  }
  return lut;
}

function lutCase(label: string, g: PetGeometry, count: number, grid: number, block: number): PetCase {
  const t = tables(g);
  return { label, grid, block, args: { geometry: t.words, lut: new Uint32Array(t.lut.length).fill(0xdeadbeef), count } };
}

function lutRef(c: PetCase): Outputs {
  const g = [...tablesCache.values()].find((t) => t.words === c.args.geometry)!.g;
  const lut = u32(c, 'lut').slice();
  const ref = lutReference(g, c.args.count as number);
  for (let i = 0; i < 2 * (c.args.count as number); i++) lut[i] = ref[i]!;
  return outputs(c, { lut });
}

/** n frames of geometry g: random fields inside it, raw energies mostly near the window, times of 64 bits; `bad` outside it. */
function frames(g: PetGeometry, n: number, bad: number, seed: number): Uint8Array {
  const r = rng(seed);
  const s = geometrySizes(g);
  const out = new Uint8Array(n * FRAME_BYTES);
  for (let i = 0; i < n; i++) {
    const o = i * FRAME_BYTES;
    for (let k = 0; k < 16; k++) out[o + k] = Math.floor(r() * 256);
    out[o] = (out[o]! & 0xf0) | Math.floor(r() * g.duNum);
    out[o + 1] = Math.floor(r() * s.bdmCount);
    out[o + 10] = Math.floor(r() * g.positionSize);
    out[o + 11] = Math.floor(r() * g.positionSize);
    const raw = r() < 0.8 ? 250 + Math.floor(r() * 500) : Math.floor(r() * 65536);
    out[o + 12] = raw >> 8; out[o + 13] = raw & 255;
    if (r() < 0.3) out[o + 2] = out[o + 3] = 0;             // some times below 2^53 (exact)
    if (r() < bad) {
      const which = Math.floor(r() * 3);
      if (which === 0) out[o + 1] = s.bdmCount + Math.floor(r() * (256 - s.bdmCount));
      else if (which === 1 && g.duNum < 16) out[o] = (out[o]! & 0xf0) | (g.duNum + Math.floor(r() * (16 - g.duNum)));
      else out[o + 10 + Math.floor(r() * 2)] = g.positionSize + Math.floor(r() * (256 - g.positionSize));
    }
  }
  return out;
}

function convertCase(label: string, g: PetGeometry, f: Uint8Array, window: [number, number] | null, grid?: number, block = PET_SHAPES.convertThreads, elems = PET_SHAPES.convertElems): PetCase {
  const t = tables(g);
  const n = f.length / FRAME_BYTES;
  return {
    label: `${label}, n=${n}, block ${block} × ${elems}${window ? '' : ', no energy window'}`,
    grid: grid ?? Math.max(1, Math.ceil(n / (block * elems))), block, sharedBytes: compactionSharedBytes(block),
    args: {
      frames: n > 0 ? f : new Uint8Array(16), n, dst: new Uint32Array(4 * Math.max(1, n)).fill(0xdeadbeef),
      dstBuffer: new Uint32Array(4 * Math.max(1, n)).fill(0xdeadbeef), counter: Uint32Array.of(0), positionTable: t.positionTable,
      lut: t.lut, energyTable: t.energyTable, geometry: t.words, eLow: window ? window[0] : 0, eHigh: window ? window[1] : 0,
      useWindow: window ? 1 : 0, badFrame: Int32Array.of(0x7fffffff), elems,
    },
  };
}

/** convertUdpToSinglesKernel over the frames the grid covers; dst in frame order (compared as a multiset). */
function convertRef(c: PetCase): Outputs {
  const t = [...tablesCache.values()].find((x) => x.words === c.args.geometry)!;
  const g = t.g, s = geometrySizes(g);
  const f = c.args.frames as Uint8Array, n = c.args.n as number;
  const covered = Math.min(n, (c.grid as number) * c.block * (c.args.elems as number));
  const dst = u32(c, 'dst').slice(), dstBuffer = u32(c, 'dstBuffer').slice();
  const f32 = new Float32Array(1), w32 = new Uint32Array(f32.buffer), f64 = new Float64Array(1), w64 = new Uint32Array(f64.buffer);
  let kept = 0, bad = 0x7fffffff;
  for (let i = 0; i < covered; i++) {
    const o = i * FRAME_BYTES;
    const du = f[o]! & 0x0f, bdm = f[o + 1]!, x = f[o + 10]!, y = f[o + 11]!;
    let crystal = 0xffffffff;
    f32[0] = NaN;
    if (bdm < s.bdmCount && du < g.duNum && x < g.positionSize && y < g.positionSize) {
      const idx = crystalIndices(g, bdm, du, t.positionTable[positionTableBase(g, bdm, du) + x + y * g.positionSize]!);
      const raw = (f[o + 12]! << 8) | f[o + 13]!;
      crystal = idx.global;
      f32[0] = raw * t.energyTable[energyTableBase(g, bdm, du, idx.local) + energyBin(raw)]!;
    } else bad = Math.min(bad, i);
    f64[0] = frameTimeAsDouble(f, i);
    const rec = [crystal, w32[0]!, w64[0]!, w64[1]!];
    dstBuffer.set(rec, 4 * i);
    if (crystal !== 0xffffffff && (c.args.useWindow === 0 || (f32[0] >= (c.args.eLow as number) && f32[0] <= (c.args.eHigh as number)))) dst.set(rec, 4 * kept++);
  }
  return outputs(c, { dst, dstBuffer, counter: Uint32Array.of(kept), badFrame: Int32Array.of(bad) });
}

// --- sort (petPadSingles, petSortTiles, petMergeRanks, petMergeBlocks) -----------------------

/** m records, crystal = index, energy random bits, times with many duplicates and a wide range. */
function unsortedRecords(m: number, n2: number, seed: number): Uint32Array {
  const r = rng(seed);
  const w = new Uint32Array(4 * n2);
  const f64 = new Float64Array(w.buffer);
  for (let i = 0; i < n2; i++) {
    w[4 * i] = i; w[4 * i + 1] = Math.floor(r() * 2 ** 32);
    f64[2 * i + 1] = i >= m ? Infinity : r() < 0.3 ? Math.floor(r() * 20) : r() < 0.5 ? r() * 1e6 : 2 ** 40 + Math.floor(r() * 1e9);
  }
  return w;
}

const timeAt = (w: Uint32Array, i: number): number => new Float64Array(w.buffer, w.byteOffset + 16 * i + 8, 1)[0]!;

/** Stable sort by time of records [lo, hi) of w (in place). */
function stableSortRange(w: Uint32Array, lo: number, hi: number): void {
  const idx = Array.from({ length: hi - lo }, (_, k) => lo + k).sort((a, b) => timeAt(w, a) - timeAt(w, b) || a - b);
  const copy = w.slice(4 * lo, 4 * hi);
  idx.forEach((i, k) => w.set(copy.subarray(4 * (i - lo), 4 * (i - lo) + 4), 4 * (lo + k)));
}

function padCase(label: string, m: number, n2: number, grid: number, block: number): PetCase {
  return { label: `${label}, n=${m}, total ${n2}, ${grid}×${block}`, grid, block, args: { a: unsortedRecords(n2, n2, m + 1), b: new Uint32Array(4 * n2).fill(7), n: m, total: n2 } };
}
function padRef(c: PetCase): Outputs {
  const a = u32(c, 'a').slice(), b = u32(c, 'b').slice();
  for (let i = c.args.n as number; i < (c.args.total as number); i++) { a.set([0xffffffff, 0, 0, 0x7ff00000], 4 * i); b.set([0xffffffff, 0, 0, 0x7ff00000], 4 * i); }
  return outputs(c, { a, b });
}

function tilesCase(label: string, m: number, block = PET_SHAPES.sortThreads, seed = m): PetCase {
  const n2 = Math.max(nextPow2(m), 1024);
  return { label: `${label}, n=${m}, block ${block}`, grid: n2 / 1024, block, sharedBytes: 2 * 1024 * 16, args: { data: unsortedRecords(m, n2, seed), n: m } };
}
function tilesRef(c: PetCase): Outputs {
  const data = u32(c, 'data').slice();
  for (let t = 0; t * 1024 < (c.args.n as number); t++) stableSortRange(data, t * 1024, t * 1024 + 1024);
  return outputs(c, { data });
}

/** Records whose runs of S are each sorted (the input of merge pass S). */
function runsSorted(m: number, S: number, seed: number): Uint32Array {
  const n2 = Math.max(nextPow2(m), 1024);
  const w = unsortedRecords(m, n2, seed);
  for (let lo = 0; lo < n2; lo += S) stableSortRange(w, lo, lo + S);
  return w;
}

/** generateRanksKernel's output, stated as counts: the merged position of each sample among the pair's. */
function ranksReference(data: Uint32Array, S: number, n: number, n2: number, ranksEven: Uint32Array, ranksOdd: Uint32Array): void {
  for (let at = 0; at < n2; at += 256) {
    const blk = Math.floor(at / S), pair = blk >> 1, even = (blk & 1) === 0;
    if (pair * 2 * S >= n) continue;
    const key = timeAt(data, at), opp = (blk ^ 1) * S;
    const before = (i: number) => (even ? timeAt(data, i) < key : timeAt(data, i) <= key);
    let samples = 0, elements = 0;
    for (let k = 0; k < S; k++) if (before(opp + k)) { elements++; if (k % 256 === 0) samples++; }
    const kIn = (at % S) / 256;
    const index = pair * (2 * S / 256) + kIn + samples;
    ranksEven[index] = even ? kIn * 256 : elements;
    ranksOdd[index] = even ? elements : kIn * 256;
  }
}

function ranksCase(label: string, m: number, S: number, seed = m): PetCase {
  const n2 = Math.max(nextPow2(m), 1024);
  return {
    label: `${label}, n=${m}, S=${S}`, grid: Math.ceil(n2 / 256 / 256), block: 256,
    args: { data: runsSorted(m, S, seed), ranksEven: new Uint32Array(n2 / 256).fill(0xdeadbeef), ranksOdd: new Uint32Array(n2 / 256).fill(0xdeadbeef), sortedBlockSize: S, n: m, n2 },
  };
}
function ranksRef(c: PetCase): Outputs {
  const ranksEven = u32(c, 'ranksEven').slice(), ranksOdd = u32(c, 'ranksOdd').slice();
  ranksReference(u32(c, 'data'), c.args.sortedBlockSize as number, c.args.n as number, c.args.n2 as number, ranksEven, ranksOdd);
  return outputs(c, { ranksEven, ranksOdd });
}

function mergeCase(label: string, m: number, S: number, seed = m): PetCase {
  const n2 = Math.max(nextPow2(m), 1024);
  const data = runsSorted(m, S, seed);
  const ranksEven = new Uint32Array(n2 / 256), ranksOdd = new Uint32Array(n2 / 256);
  ranksReference(data, S, m, n2, ranksEven, ranksOdd);
  return {
    label: `${label}, n=${m}, S=${S}`, grid: { x: (2 * S) / 256, y: n2 / (2 * S) }, block: 256, sharedBytes: 2 * 256 * 16,
    args: { data, out: new Uint32Array(4 * n2).fill(0xdeadbeef), ranksEven, ranksOdd, sortedBlockSize: S, n: m },
  };
}
/** mergeKernel: every pair that holds real records, stably merged (even block's records first among equals). */
function mergeRef(c: PetCase): Outputs {
  const data = u32(c, 'data'), out = u32(c, 'out').slice(), S = c.args.sortedBlockSize as number;
  for (let p = 0; p < (c.args.n as number); p += 2 * S) {
    const merged = data.slice(4 * p, 4 * (p + 2 * S));
    stableSortRange(merged, 0, 2 * S);
    out.set(merged, 4 * p);
  }
  return outputs(c, { out });
}

/** petMergeLevels: block b does passes S … S·2^(levels−1) on its group; grid n2/G, as the job launches it. */
function levelsCase(label: string, m: number, S: number, levels: number, block = 1, seed = m): PetCase {
  const n2 = Math.max(nextPow2(m), 1024);
  const group = S << levels;
  return {
    label: `${label}, n=${m}, S=${S}, ${levels} levels, block ${block}`, grid: Math.max(1, n2 / group), block,
    args: { data: runsSorted(m, S, seed), out: new Uint32Array(4 * n2).fill(0xdeadbeef), sortedBlockSize: S, levels, n: m },
  };
}
/** The per-pass launches' buffers: pass l stably merges the pairs of src that hold real records into dst, then they swap. */
function levelsRef(c: PetCase): Outputs {
  const bufs = [u32(c, 'data').slice(), u32(c, 'out').slice()];
  const S = c.args.sortedBlockSize as number, levels = c.args.levels as number, n = c.args.n as number;
  const groupEnd = Math.min(bufs[0]!.length / 4, (c.grid as number) * (S << levels));
  for (let l = 0; l < levels; l++) {
    const src = bufs[l & 1]!, dst = bufs[(l + 1) & 1]!, w = S << l;
    for (let p = 0; p < n && p < groupEnd; p += 2 * w) {
      const merged = src.slice(4 * p, 4 * (p + 2 * w));
      stableSortRange(merged, 0, 2 * w);
      dst.set(merged, 4 * p);
    }
  }
  return outputs(c, { data: bufs[0]!, out: bufs[1]! });
}

// --- coincidences (petCoinNextIndex, petCoinSelect, petCoinCount, petCoinFill) --------------

const WINDOW = 4000;
const singlesOf = (w: Uint32Array) => {
  const m = w.length / 4;
  return makeSingles(Array.from({ length: m }, (_, i) => w[4 * i]!), new Float32Array(m), Array.from({ length: m }, (_, i) => timeAt(w, i)));
};
const coinShape = (m: number, elems: number, block: number) => ({ grid: Math.max(1, Math.ceil(m / (block * elems))), block });

function nextIndexCase(label: string, data: Uint32Array, elems = PET_SHAPES.coinElems, block = PET_SHAPES.coinThreads): PetCase {
  const m = data.length / 4;
  return { label: `${label}, n=${m}, ${block} × ${elems}`, ...coinShape(m, elems, block), args: { data, nextIndex: new Int32Array(Math.max(1, m)).fill(-7), n: m, window: WINDOW, elems } };
}
function nextIndexRef(c: PetCase): Outputs {
  const nextIndex = (c.args.nextIndex as Int32Array).slice();
  nextIndex.set(coincidenceNextIndex(singlesOf(u32(c, 'data')), { window: c.args.window as number }));
  return outputs(c, { nextIndex });
}

function selectCase(label: string, data: Uint32Array, elems = PET_SHAPES.coinElems, block = PET_SHAPES.coinThreads): PetCase {
  const c = nextIndexCase(label, data, elems, block);
  (c.args.nextIndex as Int32Array).set(coincidenceNextIndex(singlesOf(data), { window: WINDOW }));
  return c;
}
function selectRef(c: PetCase): Outputs {
  const nextIndex = (c.args.nextIndex as Int32Array).slice();
  const m = c.args.n as number;
  nextIndex.set(coincidenceSelect(singlesOf(u32(c, 'data')), nextIndex.subarray(0, m), { window: c.args.window as number }));
  return outputs(c, { nextIndex });
}

/** The selected nextIndex of m records (pair starts != -1), from the references. */
function selected(data: Uint32Array): Int32Array {
  const s = singlesOf(data);
  return coincidenceSelect(s, coincidenceNextIndex(s, { window: WINDOW }), { window: WINDOW });
}

function countCase(label: string, nextIndex: Int32Array, elems = PET_SHAPES.coinElems, block = PET_SHAPES.coinThreads, extraBlocks = 0): PetCase {
  const m = nextIndex.length;
  const grid = Math.max(1, Math.ceil(Math.ceil(m / elems) / block)) + extraBlocks;
  return {
    label: `${label}, n=${m}, ${grid}×${block} × ${elems}`, grid, block, sharedBytes: blockScanSharedBytes(block),
    args: { nextIndex: m > 0 ? nextIndex : Int32Array.of(-1), n: m, scanId: new Uint32Array(grid * block).fill(0xdeadbeef), globalLen: new Uint32Array(grid).fill(0xdeadbeef), newLength: Uint32Array.of(5), elems },
  };
}
/** FillDataKernel: per-thread counts of pair starts, their exclusive scan per block, block totals. */
function countRef(c: PetCase): Outputs {
  const next = c.args.nextIndex as Int32Array, m = c.args.n as number, elems = c.args.elems as number;
  const grid = c.grid as number;
  const scanId = new Uint32Array(grid * c.block), globalLen = new Uint32Array(grid);
  let total = 0;
  for (let b = 0; b < grid; b++) {
    let run = 0;
    for (let t = 0; t < c.block; t++) {
      scanId[b * c.block + t] = run;
      const first = (b * c.block + t) * elems;
      for (let i = first; i < Math.min(m, first + elems); i++) if (next[i] !== -1) run++;
    }
    globalLen[b] = run;
    total += run;
  }
  return outputs(c, { scanId, globalLen, newLength: Uint32Array.of(5 + total) });
}

function fillCase(label: string, data: Uint32Array, elems = PET_SHAPES.coinElems, block = PET_SHAPES.coinThreads): PetCase {
  const m = data.length / 4;
  const next = selected(data);
  const counted = countRef(countCase(label, next, elems, block));
  const scanId = new Uint32Array(counted.scanId!.buffer), globalLen = new Uint32Array(counted.globalLen!.buffer);
  const blockOffsets = new Uint32Array(globalLen.length);
  for (let b = 1; b < globalLen.length; b++) blockOffsets[b] = blockOffsets[b - 1]! + globalLen[b - 1]!;
  const pairsCount = next.filter((x) => x !== -1).length;
  return {
    label: `${label}, n=${m}, ${pairsCount} pairs, block ${block} × ${elems}`, grid: globalLen.length, block,
    args: {
      data: m > 0 ? data : new Uint32Array(4), pairs: new Uint32Array(8 * Math.max(1, pairsCount)).fill(0xdeadbeef),
      pairFirst: new Uint32Array(Math.max(1, pairsCount)).fill(0xdeadbeef), nextIndex: m > 0 ? next : Int32Array.of(-1), n: m, scanId, blockOffsets, elems,
    },
  };
}
/** CorrectPosKernel: the pairs (i, i + 1) at every pair start, in index order. */
function fillRef(c: PetCase): Outputs {
  const data = u32(c, 'data'), next = c.args.nextIndex as Int32Array;
  const pairs = u32(c, 'pairs').slice(), pairFirst = u32(c, 'pairFirst').slice();
  let k = 0;
  for (let i = 0; i < (c.args.n as number); i++) {
    if (next[i] === -1) continue;
    pairs.set(data.subarray(4 * i, 4 * i + 8), 8 * k);
    pairFirst[k++] = i;
  }
  return outputs(c, { pairs, pairFirst });
}

// --- the cases ---------------------------------------------------------------------------------

/** Sizes around the edges: empty, one, not powers of two, block and tile boundaries. */
const COIN_SIZES = [0, 1, 2, 3, 255, 4095, 4096, 4097, 10_001];
const records = (m: number, seed: number, start?: number) => coincidenceRecords(m, seed, WINDOW, start);
/** Every single alone in its window: nextIndex all -1, no pair. */
const lonely = (m: number) => { const w = records(m, 1); const f = new Float64Array(w.buffer); for (let i = 0; i < m; i++) f[2 * i + 1] = i * 10 * WINDOW; return w; };
/** One chain of m singles: every window holds ≥ 3 (all rejected). */
const crowded = (m: number) => { const w = records(m, 2); const f = new Float64Array(w.buffer); for (let i = 0; i < m; i++) f[2 * i + 1] = 1e6 + i; return w; };

function coinCases(make: (label: string, data: Uint32Array, elems?: number, block?: number) => PetCase) {
  return (_: unknown, big: boolean): PetCase[] => {
    const out: PetCase[] = [];
    for (const m of COIN_SIZES) out.push(make('chains of 1–4', records(m, m + 1)));
    out.push(make('times ≥ 2^53 (rounded differences)', records(3000, 9, 2 ** 53 + 12345)));
    out.push(make('no single within the window of another', lonely(1000)));
    out.push(make('one crowded chain', crowded(777)));
    out.push(make('small blocks', records(2000, 5), 3, 32), make('one element per thread', records(700, 6), 1, 64));
    if (big) out.push(make('chains of 1–4', records(300_001, 7)));
    return out;
  };
}

// --- read-back (petSplitSingles, petSplitPairs) -------------------------------------------------

/** Words the split kernels copy as they are: random bits, with NaNs of either sign and payload, ±0 and ±∞ planted. */
const SPECIAL_F32 = [0x7fc00000, 0xffc00001, 0x7f800001, 0x80000000, 0x7f800000, 0xff800000];
const SPECIAL_F64_HI = [0x7ff80000, 0xfff00001, 0x7ff00000, 0xfff00000, 0x80000000];
function recordWords(singles: number, seed: number): Uint32Array {
  const g = new Xoshiro128ss(seed);
  const w = Uint32Array.from({ length: 4 * singles }, () => g.nextU32());
  for (let i = 0; i < singles; i++) {
    if (g.nextU32() % 8 === 0) w[4 * i + 1] = SPECIAL_F32[g.nextU32() % SPECIAL_F32.length]!;
    if (g.nextU32() % 8 === 0) { w[4 * i + 3] = SPECIAL_F64_HI[g.nextU32() % SPECIAL_F64_HI.length]!; if (g.nextU32() % 2) w[4 * i + 2] = 0; }
  }
  return w;
}
/** Output columns of `n` elements and 3 more, all 0xdeadbeef words: a write past n shows. */
const column = <T extends Uint32Array | Float32Array | Float64Array>(make: new (length: number) => T, n: number): T => {
  const c = new make(n + 3);
  new Uint32Array(c.buffer).fill(0xdeadbeef);
  return c;
};

/** n of the records (3 more follow them, which the kernel must leave alone). */
function splitSinglesCase(label: string, n: number, grid: number, block: number, seed = n + 1): PetCase {
  return {
    label: `${label}, n=${n}, ${grid}×${block}`, grid, block,
    args: { src: recordWords(n + 3, seed), n, crystal: column(Uint32Array, n), energy: column(Float32Array, n), time: column(Float64Array, n) },
  };
}
function splitSinglesRef(c: PetCase): Outputs {
  const src = u32(c, 'src'), n = c.args.n as number;
  const crystal = u32(c, 'crystal').slice();
  const energy = new Uint32Array((c.args.energy as Float32Array).slice().buffer), time = new Uint32Array((c.args.time as Float64Array).slice().buffer);
  for (let i = 0; i < n; i++) {
    crystal[i] = src[4 * i]!;
    energy[i] = src[4 * i + 1]!;
    time[2 * i] = src[4 * i + 2]!; time[2 * i + 1] = src[4 * i + 3]!;
  }
  return outputs(c, { crystal, energy, time });
}

/** n CoinStruct records (3 more follow) and first singles, some 0xffffffff (index1 wraps to 0 as u32 arithmetic does). */
function splitPairsCase(label: string, n: number, grid: number, block: number, seed = n + 1): PetCase {
  const g = new Xoshiro128ss(seed ^ 0x5bd1e995);
  const first = Uint32Array.from({ length: n + 3 }, (_, k) => (g.nextU32() % 16 === 0 ? 0xffffffff : 2 * k + (g.nextU32() % 3)));
  return {
    label: `${label}, n=${n}, ${grid}×${block}`, grid, block,
    args: {
      pairs: recordWords(2 * (n + 3), seed), first, n, index1: column(Uint32Array, n), crystal0: column(Uint32Array, n), crystal1: column(Uint32Array, n),
      energy0: column(Float32Array, n), energy1: column(Float32Array, n), time0: column(Float64Array, n), time1: column(Float64Array, n),
    },
  };
}
function splitPairsRef(c: PetCase): Outputs {
  const pairs = u32(c, 'pairs'), first = u32(c, 'first'), n = c.args.n as number;
  const words = (name: string) => { const v = c.args[name] as ArrayBufferView; return new Uint32Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength)); };
  const out = {
    index1: words('index1'), crystal0: words('crystal0'), crystal1: words('crystal1'), energy0: words('energy0'), energy1: words('energy1'),
    time0: words('time0'), time1: words('time1'),
  };
  for (let i = 0; i < n; i++) {
    out.index1[i] = (first[i]! + 1) >>> 0;
    for (const s of [0, 1] as const) {
      const r = 8 * i + 4 * s;
      out[`crystal${s}`][i] = pairs[r]!;
      out[`energy${s}`][i] = pairs[r + 1]!;
      out[`time${s}`][2 * i] = pairs[r + 2]!; out[`time${s}`][2 * i + 1] = pairs[r + 3]!;
    }
  }
  return outputs(c, out);
}

/** The job's shape (block 256, at most 4096 blocks) and the edge shapes, for both split kernels. */
function splitCases(make: (label: string, n: number, grid: number, block: number) => PetCase) {
  return (_: unknown, big: boolean): PetCase[] => [
    make('no record', 0, 1, 256), make('one record', 1, 1, 256), make('the job\'s shape, not a multiple of the block', 1000, 4, 256),
    make('a multiple of the block', 512, 2, 256), make('grid-stride, few blocks', 5000, 2, 32), make('grid-stride, one thread', 40, 1, 1),
    make('odd shape', 777, 3, 7), make('more threads than records', 10, 4, 64),
    ...(big ? [make('the job\'s shape', 70_001, Math.min(4096, Math.ceil(70_001 / 256)), 256), make('grid-stride, the job\'s block', 70_001, 64, 256)] : []),
  ];
}
const splitArbitrary = (make: (label: string, n: number, grid: number, block: number, seed: number) => PetCase) =>
  fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 1, max: 9 }), fc.constantFrom(1, 7, 32, 256), fc.integer({ min: 1, max: 1 << 30 }))
    .map(([n, grid, block, seed]) => make(`fast-check, seed ${seed}`, n, grid, block, seed));

export const PET_INPUTS: Record<string, PetInputs> = {
  petConvert: {
    cases: (_, big) => {
      const out: PetCase[] = [];
      for (const n of [0, 1, 2, 127, 4095, 4096, 4097, 10_001]) out.push(convertCase('random frames', SMALL_GEOMETRY, frames(SMALL_GEOMETRY, n, 0, n + 1), [350, 650]));
      out.push(convertCase('random frames', SMALL_GEOMETRY, frames(SMALL_GEOMETRY, 5000, 0, 3), null));
      out.push(convertCase('some frames outside the geometry', SMALL_GEOMETRY, frames(SMALL_GEOMETRY, 3000, 0.02, 4), [350, 650]));
      out.push(convertCase('every frame outside the geometry', SMALL_GEOMETRY, frames(SMALL_GEOMETRY, 600, 1, 5), [350, 650]));
      out.push(convertCase('a narrow window', SMALL_GEOMETRY, frames(SMALL_GEOMETRY, 600, 0, 6), [700, 700.5]));
      out.push(convertCase('the default geometry', DEFAULT_GEOMETRY, frames(DEFAULT_GEOMETRY, 9000, 0.001, 7), [350, 650]));
      out.push(convertCase('blocks of 32 × 3', SMALL_GEOMETRY, frames(SMALL_GEOMETRY, 1000, 0.01, 8), [350, 650], undefined, 32, 3));
      out.push(convertCase('more blocks than frames', SMALL_GEOMETRY, frames(SMALL_GEOMETRY, 100, 0, 9), [350, 650], 3, 64, 1));
      if (big) out.push(convertCase('random frames', SMALL_GEOMETRY, frames(SMALL_GEOMETRY, 300_000, 0.0001, 10), [350, 650]));
      return out;
    },
    arbitrary: fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 1000 }), fc.constantFrom(32, 64, 128, 256), fc.integer({ min: 1, max: 8 }), fc.boolean())
      .map(([n, seed, block, elems, win]) => convertCase(`fast-check, seed ${seed}`, SMALL_GEOMETRY, frames(SMALL_GEOMETRY, n, 0.01, seed), win ? [350, 650] : null, undefined, block, elems)),
    reference: convertRef,
  },
  petSortTiles: {
    cases: (_, big) => [...[0, 1, 2, 1000, 1024, 1025, 3000, 4096].map((m) => tilesCase('random times', m)),
      tilesCase('block 256 (SwiftShader\'s)', 2500, 256), tilesCase('block 1024', 2500, 1024), ...(big ? [tilesCase('random times', 40_000)] : [])],
    arbitrary: fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.constantFrom(128, 256, 512, 1024), fc.integer({ min: 0, max: 1000 })).map(([m, block, seed]) => tilesCase(`fast-check, seed ${seed}`, m, block, seed)),
    reference: tilesRef,
  },
  petMergeRanks: {
    cases: (_, big) => [ranksCase('first pass', 1025, 1024), ranksCase('first pass', 2048, 1024), ranksCase('padding-only pairs skipped', 3000, 1024),
      ranksCase('second pass', 4097, 2048), ranksCase('third pass', 7000, 4096), ...(big ? [ranksCase('a late pass', 100_000, 65536)] : [])],
    arbitrary: fc.tuple(fc.integer({ min: 1025, max: 9000 }), fc.integer({ min: 0, max: 1000 })).chain(([m, seed]) =>
      fc.constantFrom(...[1024, 2048, 4096, 8192].filter((S) => S < m)).map((S) => ranksCase(`fast-check, seed ${seed}`, m, S, seed))),
    reference: ranksRef,
  },
  petMergeBlocks: {
    cases: (_, big) => [mergeCase('first pass', 1025, 1024), mergeCase('first pass', 2048, 1024), mergeCase('padding-only pairs skipped', 3000, 1024),
      mergeCase('second pass', 4097, 2048), mergeCase('third pass', 7000, 4096), ...(big ? [mergeCase('a late pass', 100_000, 65536)] : [])],
    arbitrary: fc.tuple(fc.integer({ min: 1025, max: 9000 }), fc.integer({ min: 0, max: 1000 })).chain(([m, seed]) =>
      fc.constantFrom(...[1024, 2048, 4096, 8192].filter((S) => S < m)).map((S) => mergeCase(`fast-check, seed ${seed}`, m, S, seed))),
    reference: mergeRef,
  },
  petMergeLevels: {
    cases: (_, big) => [levelsCase('no singles', 0, 256, 1), levelsCase('one single', 1, 256, 2), levelsCase('a group past the end', 300, 256, 1, 32), levelsCase('one level', 1025, 1024, 1), levelsCase('padding-only pairs skipped', 3000, 1024, 2), levelsCase('the job\'s low passes', 40_000, 1024, 5),
      levelsCase('three levels from S = 2048', 9000, 2048, 3), levelsCase('block 256', 7000, 1024, 3, 256), levelsCase('a group past the end', 1500, 1024, 1, 64),
      ...(big ? [levelsCase('the job\'s low passes', 100_000, 1024, 5)] : [])],
    // Groups no larger than the padded length, as the job chooses them.
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 12_000 }), fc.integer({ min: 0, max: 1000 }), fc.constantFrom(256, 1024, 2048), fc.integer({ min: 1, max: 4 }), fc.constantFrom(1, 32, 256))
      .filter(([m, , S, levels]) => S << levels <= Math.max(nextPow2(m), 1024))
      .map(([m, seed, S, levels, block]) => levelsCase(`fast-check, seed ${seed}`, m, S, levels, block, seed)),
    reference: levelsRef,
  },
  petCoinNextIndex: {
    cases: coinCases(nextIndexCase),
    arbitrary: fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 1000 }), fc.constantFrom(1, 4, 16), fc.constantFrom(32, 256)).map(([m, seed, e, b]) => nextIndexCase(`fast-check, seed ${seed}`, records(m, seed), e, b)),
    reference: nextIndexRef,
  },
  petCoinSelect: {
    cases: coinCases(selectCase),
    arbitrary: fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 1000 }), fc.constantFrom(1, 4, 16), fc.constantFrom(32, 256)).map(([m, seed, e, b]) => selectCase(`fast-check, seed ${seed}`, records(m, seed), e, b)),
    reference: selectRef,
  },
  petCoinCount: {
    cases: (_, big) => [
      ...COIN_SIZES.map((m) => countCase('selected chains', selected(records(m, m + 3)))),
      countCase('no pair', Int32Array.from({ length: 5000 }, () => -1)), countCase('a pair start everywhere', Int32Array.from({ length: 5000 }, (_, i) => i + 1)),
      countCase('blocks of 32', selected(records(3000, 4)), 3, 32), countCase('blocks of 1024', selected(records(30_000, 5)), 4, 1024),
      countCase('blocks of 48 (a partial last warp)', selected(records(3000, 8)), 2, 48), countCase('blocks of 7', selected(records(500, 9)), 3, 7),
      countCase('a block past the end', selected(records(1000, 6)), 16, 64, 2),
      ...(big ? [countCase('selected chains', selected(records(300_001, 7)))] : []),
    ],
    arbitrary: fc.tuple(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 1000 }), fc.constantFrom(1, 4, 16), fc.constantFrom(32, 48, 64, 256, 1000, 1024), fc.integer({ min: 0, max: 2 }))
      .map(([m, seed, e, b, extra]) => countCase(`fast-check, seed ${seed}`, selected(records(m, seed)), e, b, extra)),
    reference: countRef,
  },
  petCoinFill: {
    cases: coinCases(fillCase),
    arbitrary: fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 1000 }), fc.constantFrom(1, 4, 16), fc.constantFrom(32, 256)).map(([m, seed, e, b]) => fillCase(`fast-check, seed ${seed}`, records(m, seed), e, b)),
    reference: fillRef,
  },
  petSplitSingles: { cases: splitCases(splitSinglesCase), arbitrary: splitArbitrary(splitSinglesCase), reference: splitSinglesRef },
  petSplitPairs: { cases: splitCases(splitPairsCase), arbitrary: splitArbitrary(splitPairsCase), reference: splitPairsRef },
};

/** The generic kernels the job launches itself (no hand-written form left): test/pet-generic.test.ts. */
export const PET_GENERIC_INPUTS: Record<string, PetInputs> = {
  petCrystalLut: {
    cases: () => {
      const small = geometrySizes(SMALL_GEOMETRY), def = geometrySizes(DEFAULT_GEOMETRY);
      const nSmall = small.bdmCount * SMALL_GEOMETRY.duNum * small.crystalsPerDu, nDef = def.bdmCount * DEFAULT_GEOMETRY.duNum * def.crystalsPerDu;
      return [
        lutCase('small geometry, the job\'s shape', SMALL_GEOMETRY, nSmall, Math.ceil(nSmall / 256), 256),
        lutCase('small geometry, grid-stride', SMALL_GEOMETRY, nSmall, 2, 32),
        lutCase('small geometry, no entry', SMALL_GEOMETRY, 0, 1, 64),
        lutCase('small geometry, one entry', SMALL_GEOMETRY, 1, 1, 64),
        lutCase('small geometry, 77 entries', SMALL_GEOMETRY, 77, 3, 7),
        lutCase('default geometry', DEFAULT_GEOMETRY, nDef, Math.ceil(nDef / 256), 256),
      ];
    },
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 9 }), fc.constantFrom(1, 32, 100, 256)).map(([grid, block]) => lutCase(`fast-check, ${grid}×${block}`, SMALL_GEOMETRY, tables(SMALL_GEOMETRY).lut.length / 2, grid, block)),
    reference: lutRef,
  },
  petPadSingles: {
    cases: () => [padCase('the job\'s shape', 3000, 4096, 5, 256), padCase('nothing to pad', 1024, 1024, 1, 256), padCase('all padding', 0, 1024, 4, 256),
      padCase('grid-stride', 1, 2048, 2, 32), padCase('odd shape', 777, 1024, 3, 7)],
    arbitrary: fc.tuple(fc.integer({ min: 0, max: 4096 }), fc.integer({ min: 1, max: 9 }), fc.constantFrom(1, 32, 256)).map(([m, grid, block]) => padCase('fast-check', m, Math.max(nextPow2(m), 1024), grid, block)),
    reference: padRef,
  },
};
