// The declared specializations (src/kernels/index.ts, `specializes`): each hand-written SIMD
// kernel, launched with the same arguments as its generic kernel of the shipped module (kernels/,
// written per thread), leaves the same bytes in every array — its order-free outputs the same
// multiset — on wasm and on serial (several schedule seeds), on random and edge inputs and the
// launch shapes the ops use. The generic kernel's bytes are checked against a plain TS replica
// of the CUDA code, so agreement is not agreement on a wrong answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { builtinKernels, handWrittenKernels, specializations as declared } from '../src/kernels/index.js';
import { shippedModule } from '../src/shippedModule.js';
import { createDevice, type Device } from '../src/device.js';
import { DTYPES, type DType } from '../src/dtypes.js';
import type { Kernel } from '../src/kernel.js';
import type { KernelModule } from '../src/kernelModule.js';
import { gridStrideShape } from '../src/ops/launchShape.js';
import {
  canonicalizeClusterIds, clusterChargeCutReference, countModulesReference, findClusReference, INVALID_MODULE_ID,
} from '../src/jobs/pixel/reference.js';
import { CHARGE_THRESHOLD_LAYER1, CHARGE_THRESHOLD_OTHER, MAX_NUM_MODULES } from '../src/jobs/pixel/constants.js';
import { generatePixelEvent } from '../src/jobs/pixel/generate.js';
import { CHARGE_CUT_SHARED_BYTES, FIND_CLUS_SHARED_BYTES } from '../src/kernels/pixel.js';
import { pixelModuleAtCapacity, rng, type PixelColumns } from './helpers.js';
import { PET_INPUTS } from './pet-specializations.js';
import { WGSL_KERNELS } from '../src/webgpu/kernels.js';
import { allCases as stsKernelCases, countingCases, digis as stsKernelDigis, mergeCases, tileCases, type StsKernelCase } from './stsKernelCases.js';

const handWritten = handWrittenKernels();
const specializations = declared();

/** One launch: its shape and arguments by parameter name (host arrays are uploaded afresh per launch). */
interface Case {
  label: string;
  grid: number | { x: number; y: number };
  block: number;
  sharedBytes?: number;
  args: Record<string, ArrayBufferView | number>;
  /** The arrays after the launch, where the case's builder states them (the STS sorts' kernels). */
  reference?: Outputs;
}

type Outputs = Record<string, Uint8Array>;

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength).slice();
}

// --- the reductions (seed 002) ------------------------------------------------------------

/** The CUDA VecMax form in plain TS: each thread folds its grid-stride slice, then the block's tree. */
function blockTree(A: Float32Array, grid: number, block: number, init: number, fold: (acc: number, x: number) => number): number[] {
  const out: number[] = [];
  for (let b = 0; b < grid; b++) {
    const cache: number[] = [];
    for (let t = 0; t < block; t++) {
      let temp = init;
      for (let i = b * block + t; i < A.length; i += block * grid) temp = fold(temp, A[i]!);
      cache.push(temp);
    }
    for (let ib = block >> 1; ib !== 0; ib >>= 1) for (let t = 0; t < ib; t++) cache[t] = fold(cache[t]!, cache[t + ib]!);
    out.push(cache[0]!);
  }
  return out;
}

const FOLDS = {
  vecMax: { init: -Infinity, fold: (acc: number, x: number) => (x > acc ? x : acc), partial: Float32Array },
  vecMin: { init: Infinity, fold: (acc: number, x: number) => (x < acc ? x : acc), partial: Float32Array },
  vecSum: { init: 0, fold: (acc: number, x: number) => acc + x, partial: Float64Array },
} as const;

/** Float data of several kinds: the SIMD max/min take a faithful path for ±0 results, the sum cancels. */
const FLOAT_KINDS: Record<string, (r: () => number) => number> = {
  uniform: (r) => (r() - 0.5) * 2000,
  'signed zeros and negatives': (r) => [0, -0, -0, -1.5, -(r() * 10)][Math.floor(r() * 5)]!,
  'NaN and infinities': (r) => [NaN, Infinity, -Infinity, (r() - 0.5) * 1e30, r()][Math.floor(r() * 5)]!,
  'all NaN': () => NaN,
  'huge magnitudes': (r) => (r() - 0.5) * 6e38,
};

function floats(n: number, kind: string, seed: number): Float32Array {
  const r = rng(seed);
  const gen = FLOAT_KINDS[kind]!;
  return Float32Array.from({ length: n }, () => gen(r));
}

/** Output partials prefilled with a pattern, so a block that writes nothing shows. */
function prefilled(ctor: Float32ArrayConstructor | Float64ArrayConstructor, n: number): Float32Array | Float64Array {
  const a = new ctor(n);
  new Uint8Array(a.buffer).fill(0xa5);
  return a;
}

function reduceCase(name: keyof typeof FOLDS, label: string, A: Float32Array, grid: number, block: number): Case {
  const bytes = FOLDS[name].partial === Float64Array ? 8 : 4;
  return { label, grid, block, sharedBytes: bytes * block, args: { A, B: prefilled(FOLDS[name].partial, grid), N: A.length } };
}

/** Sizes around the SIMD widths and the ops' block of 1024; the largest is the ops' shape at 4097 blocks. */
const REDUCE_SIZES = [0, 1, 2, 3, 7, 31, 33, 1000, 1023, 1025, 4097, 100_003];
/** Grid-stride shapes (several elements per thread), down to one thread. */
const SMALL_SHAPES: readonly [number, number][] = [[1, 1], [3, 64], [7, 32], [2, 256], [1, 1024]];

/** The launch shape the ops choose for n elements on the device under test. */
type OpsShape = (n: number) => { grid: number; block: number };

function reduceCases(name: keyof typeof FOLDS, opsShape: OpsShape, big: boolean): Case[] {
  const out: Case[] = [];
  for (const n of [...REDUCE_SIZES, ...(big ? [(4 << 20) + 5] : [])]) {
    const ops = opsShape(n);
    for (const [kind, k] of Object.keys(FLOAT_KINDS).map((x, i) => [x, i] as const)) {
      if (n > 100_003 && kind !== 'uniform' && kind !== 'signed zeros and negatives') continue;
      const A = floats(n, kind, 1000 * n + k);
      out.push(reduceCase(name, `${kind}, n=${n}, ops shape ${ops.grid}×${ops.block}`, A, ops.grid, ops.block));
      if (n <= 100_003) for (const [grid, block] of SMALL_SHAPES) out.push(reduceCase(name, `${kind}, n=${n}, ${grid}×${block}`, A, grid, block));
    }
  }
  return out;
}

function reduceReference(name: keyof typeof FOLDS): (c: Case) => Outputs {
  return (c) => {
    const { init, fold, partial } = FOLDS[name];
    const A = c.args.A as Float32Array;
    return { A: bytesOf(A), B: bytesOf(partial.from(blockTree(A, c.grid as number, c.block, init, fold))) };
  };
}

// --- countModules (seed 000) ----------------------------------------------------------------

const N_MAX = 1856; // the op's default (phase 1)

/** Module ids: runs of one module broken by invalid digis; `modules` runs in all (at most). */
function moduleIds(n: number, modules: number, invalid: number, seed: number): Uint16Array {
  const r = rng(seed);
  const ids = new Uint16Array(n);
  const p = modules / Math.max(1, n);
  for (let i = 0, m = 0; i < n; i++) {
    if (r() < p) m = (m + 1 + Math.floor(r() * 3)) % 60000;
    ids[i] = r() < invalid ? INVALID_MODULE_ID : m;
  }
  return ids;
}

function countCase(label: string, id: Uint16Array, grid: number, block: number, nMax = N_MAX): Case {
  const clusterId = new Int32Array(id.length).fill(-7);
  return { label, grid, block, args: { id, moduleStart: new Uint32Array(nMax + 2), clusterId, numElements: id.length, nMaxModules: nMax } };
}

function countCases(opsShape: OpsShape, big: boolean): Case[] {
  const out: Case[] = [];
  const add = (label: string, id: Uint16Array, nMax = N_MAX) => {
    const ops = opsShape(id.length);
    out.push(countCase(`${label}, n=${id.length}, ops shape ${ops.grid}×${ops.block}`, id, ops.grid, ops.block, nMax));
    if (id.length <= 100_003) for (const [grid, block] of [[1, 1], [9, 64], [3, 32], [2, 1024]] as const) out.push(countCase(`${label}, n=${id.length}, ${grid}×${block}`, id, grid, block, nMax));
  };
  for (const n of [0, 1, 2, 15, 16, 17, 33, 1000, 1025, 4097, 100_003]) add('random modules, 2 % invalid', moduleIds(n, Math.min(1500, n >> 2), 0.02, n + 1));
  for (const n of [1, 17, 1025, 5000]) add('all invalid', new Uint16Array(n).fill(INVALID_MODULE_ID));
  add('one valid digi', Uint16Array.of(3));
  add('one module, no invalid', new Uint16Array(40_000).fill(12));
  add('invalid digis between equal ids (no boundary)', Uint16Array.from({ length: 3000 }, (_, i) => (i % 3 === 1 ? INVALID_MODULE_ID : 5 + (i >> 9))));
  add('every digi its own module', Uint16Array.from({ length: N_MAX }, (_, i) => i));
  add('exactly nMaxModules + 1 boundaries (every slot written, the count wraps to 0)', Uint16Array.from({ length: N_MAX + 1 }, (_, i) => i));
  add('half invalid', moduleIds(20_000, 1000, 0.5, 99));
  if (big) add('random modules, 1 % invalid', moduleIds((4 << 20) + 3, 1800, 0.01, 5));
  return out;
}

function countReference(c: Case): Outputs {
  const ref = countModulesReference(c.args.id as Uint16Array, c.args.nMaxModules as number);
  return { id: bytesOf(c.args.id as Uint16Array), moduleStart: bytesOf(ref.moduleStart), clusterId: bytesOf(ref.clusterIdInit) };
}

// --- the STS atomic counting sort (seed 004) -----------------------------------------------

/** n digis as (channel, time) words: runs of equal channels (as the detector delivers them), some channels out of range. */
function stsDigis(n: number, nChannels: number, badFraction: number, seed: number): Uint32Array {
  const r = rng(seed);
  const d = new Uint32Array(2 * n);
  let c = Math.floor(r() * nChannels);
  for (let i = 0; i < n; i++) {
    if (r() < 0.3) c = Math.floor(r() * nChannels);
    d[2 * i] = r() < badFraction ? nChannels + Math.floor(r() * 5) : c;
    d[2 * i + 1] = Math.floor(r() * 1e9);
  }
  return d;
}

function stsCountCase(label: string, digis: Uint32Array, nChannels: number, grid: number, block: number): Case {
  return { label, grid, block, args: { digis, counts: new Uint32Array(nChannels), n: digis.length / 2, nChannels, bad: Uint32Array.of(0xffffffff) } };
}

/** Scatter inputs: offsets = the exclusive scan of the valid digis' channel counts; out prefilled. */
function stsScatterCase(label: string, digis: Uint32Array, nChannels: number, grid: number, block: number): Case {
  const counts = new Uint32Array(nChannels);
  for (let i = 0; i < digis.length; i += 2) if (digis[i]! < nChannels) counts[digis[i]!]!++;
  const offsets = new Uint32Array(nChannels);
  for (let c = 1; c < nChannels; c++) offsets[c] = offsets[c - 1]! + counts[c - 1]!;
  return { label, grid, block, args: { digis, out: new Uint32Array(digis.length).fill(0xdeadbeef), offsets, n: digis.length / 2, nChannels } };
}

function stsCases(make: typeof stsCountCase) {
  return (opsShape: OpsShape, big: boolean): Case[] => {
    const out: Case[] = [];
    const add = (label: string, digis: Uint32Array, nChannels: number) => {
      const n = digis.length / 2;
      const ops = opsShape(n);
      out.push(make(`${label}, n=${n}, ${nChannels} channels, ops shape ${ops.grid}×${ops.block}`, digis, nChannels, ops.grid, ops.block));
      if (n <= 100_003) for (const [grid, block] of [[1, 1], [7, 64], [3, 32], [2, 1024]] as const) out.push(make(`${label}, n=${n}, ${nChannels} channels, ${grid}×${block}`, digis, nChannels, grid, block));
    };
    for (const n of [0, 1, 2, 33, 1000, 1025, 4097, 100_003]) add('runs of channels', stsDigis(n, 1000, 0, n + 3), 1000);
    add('one channel', stsDigis(5000, 1, 0, 8), 1);
    add('every digi in its own channel', Uint32Array.from({ length: 2 * 3000 }, (_, k) => (k % 2 === 0 ? k / 2 : k)), 3000);
    add('some channels out of range', stsDigis(20_000, 100_000, 0.01, 9), 100_000);
    add('all channels out of range', stsDigis(777, 10, 1, 10), 10);
    if (big) add('runs of channels', stsDigis((1 << 20) + 3, 1000, 0, 11), 1000);
    return out;
  };
}

/** The talk's countKernel in plain TS: counts per valid channel, bad[0] the smallest bad index. */
function stsCountReference(c: Case): Outputs {
  const digis = c.args.digis as Uint32Array, k = c.args.nChannels as number;
  const counts = new Uint32Array(k);
  let bad = 0xffffffff;
  for (let i = 0; i < digis.length / 2; i++) { const ch = digis[2 * i]!; if (ch < k) counts[ch]!++; else bad = Math.min(bad, i); }
  return { digis: bytesOf(digis), counts: bytesOf(counts), bad: bytesOf(Uint32Array.of(bad)) };
}

/** The talk's scatterKernel in plain TS, threads in index order (the output is compared as a multiset of digis). */
function stsScatterReference(c: Case): Outputs {
  const digis = c.args.digis as Uint32Array, k = c.args.nChannels as number;
  const out = (c.args.out as Uint32Array).slice();
  const offsets = (c.args.offsets as Uint32Array).slice();
  for (let i = 0; i < digis.length / 2; i++) {
    const ch = digis[2 * i]!;
    if (ch >= k) continue;
    const pos = offsets[ch]!++;
    out[2 * pos] = ch; out[2 * pos + 1] = digis[2 * i + 1]!;
  }
  return { digis: bytesOf(digis), out: bytesOf(out), offsets: bytesOf(offsets) };
}


// --- findClus and clusterChargeCut (seed 003) ------------------------------------------------

/** An event's columns from id, x, y, adc lists. */
function columns(ids: ArrayLike<number>, xs: ArrayLike<number>, ys: ArrayLike<number>, adcs: ArrayLike<number>): PixelColumns {
  return { moduleInd: Uint16Array.from(ids), xx: Uint16Array.from(xs), yy: Uint16Array.from(ys), adc: Uint16Array.from(adcs) };
}

/** What countModules leaves for the clustering kernels: moduleStart = [count, sorted starts…], clusterId[i] = i. */
function modulesOf(ev: PixelColumns): { moduleStart: Uint32Array; count: number; clusterId: Int32Array } {
  const cm = countModulesReference(ev.moduleInd, MAX_NUM_MODULES - 1);
  return { moduleStart: Uint32Array.of(cm.sortedStarts.length, ...cm.sortedStarts), count: cm.sortedStarts.length, clusterId: cm.clusterIdInit };
}

/** findClus on an event; grid defaults to one block per module (the job's shape). */
function findClusCase(label: string, ev: PixelColumns, block = 256, grid?: number): Case {
  const { moduleStart, count, clusterId } = modulesOf(ev);
  const g = grid ?? Math.max(1, count);
  return {
    label: `${label}, n=${ev.moduleInd.length}, ${count} modules, ${g}×${block}`, grid: g, block, sharedBytes: FIND_CLUS_SHARED_BYTES,
    args: {
      id: ev.moduleInd, x: ev.xx, y: ev.yy, moduleStart, nClustersInModule: new Uint32Array(MAX_NUM_MODULES),
      moduleId: new Uint32Array(Math.max(1, count)), clusterId, numElements: ev.moduleInd.length,
    },
  };
}

/** clusterChargeCut on findClus's output (the reference's numbering); layer-1 and other thresholds. */
function chargeCutCase(label: string, ev: PixelColumns, block = 256, grid?: number): Case {
  const { moduleStart, count, clusterId } = modulesOf(ev);
  const fc = findClusReference({ id: ev.moduleInd, x: ev.xx, y: ev.yy }, { moduleStarts: moduleStart.subarray(1), clusterIdInit: clusterId });
  const g = grid ?? Math.max(1, count);
  return {
    label: `${label}, n=${ev.moduleInd.length}, ${count} modules, ${g}×${block}`, grid: g, block, sharedBytes: CHARGE_CUT_SHARED_BYTES,
    args: {
      id: fc.id, adc: ev.adc, moduleStart, nClustersInModule: fc.nClustersInModule, clusterId: fc.clusterId, numElements: ev.moduleInd.length,
      layer1Threshold: CHARGE_THRESHOLD_LAYER1, otherThreshold: CHARGE_THRESHOLD_OTHER,
    },
  };
}

/**
 * Edge and random events: empty, one digi, all invalid, one module, a module of maxPixInModule
 * digis with more than 1024 clusters (between invalid digis and another module), random events
 * (invalid runs, edges, diagonals, a noisy module), grid-stride over modules, blocks from 250
 * (blockDim · maxiter ≥ maxPixInModule) up.
 */
function pixelEvents(big: boolean): { label: string; ev: PixelColumns; shapes: [number, number | undefined][] }[] {
  const full = pixelModuleAtCapacity(7, 97);
  const pre = 37;
  const ops: [number, number | undefined][] = [[256, undefined]];
  return [
    { label: 'empty', ev: columns([], [], [], []), shapes: ops },
    { label: 'one digi', ev: columns([5], [3], [4], [5000]), shapes: ops },
    { label: 'one weak digi', ev: columns([5], [3], [4], [50]), shapes: ops },
    { label: 'all invalid', ev: columns(Array(70).fill(INVALID_MODULE_ID), Array(70).fill(1), Array(70).fill(1), Array(70).fill(9)), shapes: ops },
    { label: 'one module', ev: generatePixelEvent({ seed: 31, activeModules: 1, invalidRunProbability: 0 }), shapes: [[256, undefined], [250, undefined]] },
    { label: 'a module of 4000 digis', ev: full, shapes: [[256, undefined], [250, undefined], [512, undefined]] },
    {
      label: 'a module of 4000 digis between invalid digis and another module',
      ev: columns([...Array(pre).fill(INVALID_MODULE_ID), ...full.moduleInd, 200, 200], [...Array(pre).fill(0), ...full.xx, 5, 6],
        [...Array(pre).fill(0), ...full.yy, 9, 9], [...Array(pre).fill(0), ...full.adc, 3000, 3000]),
      shapes: ops,
    },
    ...[1, 2, 3].map((seed) => ({ label: `random event (seed ${seed})`, ev: generatePixelEvent({ seed, activeModules: 40 * seed, noisyPixels: 300 }), shapes: [[256, undefined], [320, 7], [256, 1]] as [number, number | undefined][] })),
    ...(big ? [{ label: 'a full event (1856 modules, 24 clusters each)', ev: generatePixelEvent({ seed: 1, activeModules: 1856, clustersPerModule: 24 }), shapes: ops }] : []),
  ];
}

function pixelInputs(make: typeof findClusCase, reference: (c: Case) => Outputs, normalize?: (c: Case, o: Outputs) => Outputs): Inputs {
  return {
    cases: (_opsShape, big) => pixelEvents(big).flatMap(({ label, ev, shapes }) => shapes.map(([block, grid]) => make(label, ev, block, grid))),
    arbitrary: fc.record({
      seed: fc.nat({ max: 1e6 }), activeModules: fc.integer({ min: 0, max: 60 }), clustersPerModule: fc.integer({ min: 0, max: 30 }),
      noisyPixels: fc.integer({ min: 0, max: 400 }), block: fc.constantFrom(250, 256, 384), grid: fc.integer({ min: 1, max: 70 }),
    }).map(({ block, grid, ...o }) => {
      const ev = generatePixelEvent(o);
      return make(`fast-check ${JSON.stringify(o)}`, ev, block, grid);
    }),
    reference,
    ...(normalize ? { normalize } : {}),
  };
}

/** findClus's outputs by the reference: cluster numbering canonical (the kernels number in atomicInc order). */
function findClusOutputs(c: Case): Outputs {
  const a = c.args as Record<string, never>;
  const ms = a.moduleStart as Uint32Array;
  const fc = findClusReference({ id: a.id, x: a.x, y: a.y }, { moduleStarts: ms.subarray(1), clusterIdInit: a.clusterId });
  const moduleId = new Uint32Array((a.moduleId as Uint32Array).length);
  moduleId.set(fc.moduleId);
  return {
    id: bytesOf(a.id), x: bytesOf(a.x), y: bytesOf(a.y), moduleStart: bytesOf(ms),
    nClustersInModule: bytesOf(fc.nClustersInModule), moduleId: bytesOf(moduleId), clusterId: bytesOf(fc.clusterId),
  };
}

/** findClus's clusterId numbered canonically (0, 1, … by each cluster's first digi in its module). */
function canonicalClusterIds(c: Case, o: Outputs): Outputs {
  const id = c.args.id as Uint16Array;
  const clusterId = new Int32Array(o.clusterId!.slice().buffer);
  return { ...o, clusterId: bytesOf(canonicalizeClusterIds(id, clusterId)) };
}

function chargeCutOutputs(c: Case): Outputs {
  const a = c.args as Record<string, never>;
  const ms = a.moduleStart as Uint32Array;
  const cc = clusterChargeCutReference({ id: a.id, adc: a.adc, clusterId: a.clusterId, nClustersInModule: a.nClustersInModule, moduleStarts: ms.subarray(1) },
    { layer1Threshold: a.layer1Threshold, otherThreshold: a.otherThreshold });
  return {
    id: bytesOf(cc.id), adc: bytesOf(a.adc), moduleStart: bytesOf(ms), nClustersInModule: bytesOf(cc.nClustersInModule), clusterId: bytesOf(cc.clusterId),
  };
}

// --- the STS sorts' other kernels (seed 004): cases and references of test/stsKernelCases.ts ----

function stsKernelCase(c: StsKernelCase): Case {
  const k = specializations.find((s) => s.name === c.kernel)!;
  const args: Case['args'] = {};
  const reference: Outputs = {};
  k.params.forEach((p, i) => {
    args[p.name] = c.args[i]!;
    const e = c.expected[i]!;
    if (typeof e !== 'number') reference[p.name] = bytesOf(e);
  });
  return { label: c.label, grid: c.grid, block: c.block, sharedBytes: c.sharedBytes, args, reference };
}

function stsKernelInputs(name: string): Inputs {
  const pick = (cs: StsKernelCase[]): Case[] => cs.filter((c) => c.kernel === name).map(stsKernelCase);
  const random = (n: number, k: number, seed: number, grid: number, block: number, per: number): StsKernelCase[] => (name === 'stsTileSort'
    ? tileCases(n, block, seed)
    : [...countingCases(stsKernelDigis(n, k, seed, 0.02), k, grid, block, 'fast-check'), ...mergeCases(n, seed, grid, block, per)]);
  return {
    cases(opsShape, big) {
      const out = pick(stsKernelCases(false));
      // The sort's launches: 8 chunk owners of block 1 (2 workers), merge rounds of 256 outputs a thread, 1024-key tiles.
      for (const n of big ? [4097, (1 << 20) + 3] : [4097]) {
        out.push(...pick(countingCases(stsKernelDigis(n, 1000, n, 0.001), 1000, 8, 1, 'the sort\'s chunk shape')));
        const ops = opsShape(Math.ceil(n / 256));
        out.push(...pick(mergeCases(n, n, ops.grid, ops.block, 256)));
        if (n < 1 << 20) out.push(...pick(tileCases(n, 512, n)));
      }
      if (big) out.push(...pick(tileCases(100_003, 512, 3)));
      return out;
    },
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 1000 }), arbitraryShape, fc.constantFrom(1, 7, 256))
      .map(([n, k, seed, s, per]) => pick(random(n, k, seed, s.grid, s.block, per))[0]!),
    reference: (c) => c.reference!,
  };
}

/** The STS sorts' hand-written kernels that stay, each a declared specialization of kernels/sts/countingSort.ts or mergeSort.ts. */
const STS_SORT_SPECIALIZATIONS = [
  'stsScatterChunks', 'stsLocalSort', 'stsColumnOffsets', 'stsLocalMerge', 'stsCheckChannels',
  'stsRunFlags', 'stsRunStarts', 'stsMergeDigis', 'stsMergeKeys', 'stsDigisToKeys', 'stsKeysToDigis', 'stsTileSort',
];

// --- the table: inputs and reference per specialization, by kernel name -------------------

interface Inputs {
  /** Edge and random cases; `big` adds the largest sizes (wasm only: serial runs them slowly). */
  cases(opsShape: OpsShape, big: boolean): Case[];
  /** A random case from a fast-check seed (property style). */
  arbitrary: fc.Arbitrary<Case>;
  /** The generic kernel's bytes by a plain TS replica of the CUDA code. */
  reference(c: Case): Outputs;
  /**
   * The generic kernel's outputs as the reference states them (default: as they are): findClus
   * numbers clusters in the order threads reach atomicInc (the schedule's, as on a GPU), the
   * reference canonically.
   */
  normalize?(c: Case, o: Outputs): Outputs;
}

const arbitraryShape = fc.record({ grid: fc.integer({ min: 1, max: 9 }), block: fc.constantFrom(1, 2, 4, 32, 64, 256, 1024) });
const arbitraryDigis = fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 1000 }), arbitraryShape);

function reduceInputs(name: keyof typeof FOLDS): Inputs {
  return {
    cases: (opsShape, big) => reduceCases(name, opsShape, big),
    arbitrary: fc.tuple(fc.float32Array({ maxLength: 5000, size: 'max' }), arbitraryShape)
      .map(([A, s]) => reduceCase(name, `fast-check, n=${A.length}, ${s.grid}×${s.block}`, A, s.grid, s.block)),
    reference: reduceReference(name),
  };
}

const INPUTS: Record<string, Inputs> = {
  vecMax: reduceInputs('vecMax'),
  vecMin: reduceInputs('vecMin'),
  vecSum: reduceInputs('vecSum'),
  countModules: {
    cases: countCases,
    arbitrary: fc.tuple(fc.array(fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(INVALID_MODULE_ID)), { maxLength: 3000, size: 'max' }), arbitraryShape, fc.integer({ min: 0, max: 300 }))
      // At most nMax + 1 boundaries: beyond them atomicInc wraps and later starts overwrite
      // earlier ones in schedule order, so moduleStart[1..] is no multiset invariant any more.
      .map(([ids, s, nMax]) => countCase(`fast-check, n=${ids.length}, ${s.grid}×${s.block}, nMax=${Math.max(nMax, ids.length)}`, Uint16Array.from(ids), s.grid, s.block, Math.max(nMax, ids.length))),
    reference: countReference,
  },
  stsCountChannels: {
    cases: stsCases(stsCountCase),
    arbitrary: arbitraryDigis.map(([n, k, seed, s]) => stsCountCase(`fast-check, n=${n}, ${k} channels, ${s.grid}×${s.block}`, stsDigis(n, k, 0.02, seed), k, s.grid, s.block)),
    reference: stsCountReference,
  },
  stsScatterAtomic: {
    cases: stsCases(stsScatterCase),
    arbitrary: arbitraryDigis.map(([n, k, seed, s]) => stsScatterCase(`fast-check, n=${n}, ${k} channels, ${s.grid}×${s.block}`, stsDigis(n, k, 0.02, seed), k, s.grid, s.block)),
    reference: stsScatterReference,
  },
  findClus: pixelInputs(findClusCase, findClusOutputs, canonicalClusterIds),
  clusterChargeCut: pixelInputs(chargeCutCase, chargeCutOutputs),
  // The PET pipeline (seed 001): test/pet-specializations.ts.
  ...PET_INPUTS,
  ...Object.fromEntries(STS_SORT_SPECIALIZATIONS.map((name) => [name, stsKernelInputs(name)])),
};

// --- running and comparing ------------------------------------------------------------------

/** Runs `kernel` on a fresh upload of the case's arrays; every array parameter's bytes after it. */
async function run(dev: Device, kernel: Kernel, c: Case): Promise<Outputs> {
  const arrays: { name: string; a: Awaited<ReturnType<Device['upload']>> }[] = [];
  try {
    const args = [];
    for (const p of kernel.params) {
      const v = c.args[p.name];
      if (p.kind === 'scalar') { args.push(v as number); continue; }
      const a = await dev.upload(p.dtype, v as never);
      arrays.push({ name: p.name, a });
      args.push(a);
    }
    await dev.launch(kernel, { grid: c.grid, block: c.block, sharedBytes: c.sharedBytes ?? 0 }, args as never);
    const out: Outputs = {};
    for (const { name, a } of arrays) out[name] = bytesOf(await a.read());
    return out;
  } finally {
    for (const { a } of arrays) a.free();
  }
}

/** Where two byte strings first differ, as "element i: x vs y" (undefined when equal). */
function difference(x: Uint8Array, y: Uint8Array, elemBytes: number): string | undefined {
  if (x.length !== y.length) return `lengths ${x.length} vs ${y.length}`;
  for (let i = 0; i < x.length; i++) {
    if (x[i] === y[i]) continue;
    const e = Math.floor(i / elemBytes) * elemBytes;
    const hex = (b: Uint8Array) => Buffer.from(b.subarray(e, e + elemBytes)).toString('hex');
    return `element ${e / elemBytes}: ${hex(x)} vs ${hex(y)}`;
  }
  return undefined;
}

/** The items of `b` (each `itemBytes` long) from byte `start` on, sorted: a multiset. */
function multiset(b: Uint8Array, itemBytes: number, start: number): string[] {
  const out: string[] = [];
  for (let e = start; e < b.length; e += itemBytes) out.push(Buffer.from(b.subarray(e, e + itemBytes)).toString('hex'));
  return out.sort();
}

/**
 * A label output (i32) renumbered by first appearance within each group of equal `groupBy`
 * values (u16): two runs with the same partition give the same bytes.
 */
function firstAppearance(labels: Uint8Array, groups: Uint8Array): Uint8Array {
  const l = new Int32Array(labels.slice().buffer);
  const g = new Uint16Array(groups.slice().buffer);
  const seen = new Map<string, number>();
  const count = new Map<number, number>();
  const out = new Int32Array(l.length);
  for (let i = 0; i < l.length; i++) {
    const key = `${g[i]}:${l[i]}`;
    let v = seen.get(key);
    if (v === undefined) { v = count.get(g[i]!) ?? 0; count.set(g[i]!, v + 1); seen.set(key, v); }
    out[i] = v;
  }
  return bytesOf(out);
}

/**
 * The differences between two runs of `kernel`'s outputs, by its declaration (order-free outputs
 * as multisets, `anyNaN` ones NaN as NaN, `labels` as partitions unless `asDeclared.labels` is
 * false: the generic kernel against the reference, whose numbering `normalize` matches exactly).
 */
function differences(kernel: Kernel, x: Outputs, y: Outputs, asDeclared = { labels: true }): string[] {
  const out: string[] = [];
  const anyNaN = kernel.specializes?.anyNaN ?? [];
  if (anyNaN.length > 0) { x = nanAsOne(kernel, x, anyNaN); y = nanAsOne(kernel, y, anyNaN); }
  for (const { param, groupBy } of asDeclared.labels ? kernel.specializes?.labels ?? [] : []) {
    x = { ...x, [param]: firstAppearance(x[param]!, x[groupBy]!) };
    y = { ...y, [param]: firstAppearance(y[param]!, y[groupBy]!) };
  }
  for (const p of kernel.params) {
    if (p.kind !== 'array') continue;
    const size = DTYPES[p.dtype as DType].bytes;
    const free = kernel.specializes?.orderFree?.find((o) => o.param === p.name);
    const exact = free ? [x[p.name]!.subarray(0, free.from * size), y[p.name]!.subarray(0, free.from * size)] : [x[p.name]!, y[p.name]!];
    const d = difference(exact[0]!, exact[1]!, size);
    if (d !== undefined) out.push(`${p.name}: ${d}`);
    const item = size * (free?.itemElements ?? 1);
    if (free && JSON.stringify(multiset(x[p.name]!, item, free.from * size)) !== JSON.stringify(multiset(y[p.name]!, item, free.from * size))) {
      out.push(`${p.name}[${free.from}..]: different multisets`);
    }
  }
  return out;
}

/**
 * The outputs with every NaN of the named float arrays (default: all) as one NaN: for the
 * declared `anyNaN` outputs, and against the TS reference, since JS keeps no NaN's sign or payload.
 */
function nanAsOne(kernel: Kernel, x: Outputs, names?: readonly string[]): Outputs {
  const out: Outputs = { ...x };
  for (const p of kernel.params) {
    if (p.kind !== 'array' || (p.dtype !== 'f32' && p.dtype !== 'f64') || (names && !names.includes(p.name))) continue;
    const b = x[p.name]!.slice();
    const v = p.dtype === 'f32' ? new Float32Array(b.buffer) : new Float64Array(b.buffer);
    for (let i = 0; i < v.length; i++) if (Number.isNaN(v[i])) v[i] = NaN;
    out[p.name] = b;
  }
  return out;
}

let mod: KernelModule;
beforeAll(async () => { mod = await shippedModule(); });

describe('the declared specializations', () => {
  it('cover every hand-written kernel whose name the shipped module has, and only those', () => {
    // The walk reaches the namespaces' declarations too.
    expect(handWritten.map((k) => k.name)).toEqual(expect.arrayContaining(['vecMax', 'emptyKernel', 'pixelCountModules', 'petConvert']));
    for (const k of handWritten) {
      expect(k.specializes?.generic, `${k.name}: has a generic form in the shipped module, so must declare it`).toBe(mod.kernels[k.name] ? k.name : undefined);
    }
    expect(specializations.map((k) => k.name).sort()).toEqual([
      'clusterChargeCut', 'countModules', 'findClus', 'petCoinCount', 'petCoinFill', 'petCoinNextIndex', 'petCoinSelect', 'petConvert',
      'petMergeBlocks', 'petMergeLevels', 'petMergeRanks', 'petSortTiles', 'petSplitPairs', 'petSplitSingles', 'stsCountChannels', 'stsScatterAtomic',
      ...STS_SORT_SPECIALIZATIONS, 'vecMax', 'vecMin', 'vecSum',
    ].sort());
  });

  it.each(specializations.map((k) => [k.name, k] as const))('%s names a generic kernel with the same parameters', (_, k) => {
    const generic = mod.kernels[k.specializes!.generic];
    expect(generic, `no kernel '${k.specializes!.generic}' in the shipped module`).toBeDefined();
    expect(generic!.params).toEqual(k.params);
  });

  it('each has inputs and a reference here, and nothing else has', () => {
    expect(Object.keys(INPUTS).sort()).toEqual(specializations.map((k) => k.name).sort());
  });

  it('a wrong declaration is caught: order-free outputs must be array parameters, anyNaN ones float arrays', async () => {
    const { defineKernel } = await import('../src/kernel.js');
    expect(() => defineKernel('k', { a: 'u32[]', n: 'i32' }, { specializes: { generic: 'k', orderFree: [{ param: 'n', from: 1 }] } })).toThrow(/orderFree names 'n', which is not an array parameter/);
    expect(() => defineKernel('k', { a: 'u32[]' }, { specializes: { generic: 'k', orderFree: [{ param: 'a', from: -1 }] } })).toThrow(/not a non-negative integer/);
    expect(() => defineKernel('k', { a: 'u32[]' }, { specializes: { generic: 'k', anyNaN: ['a'] } })).toThrow(/anyNaN names 'a', which is not a float array parameter/);
    expect(() => defineKernel('k', { a: 'i32[]', n: 'i32' }, { specializes: { generic: 'k', labels: [{ param: 'a', groupBy: 'n' }] } })).toThrow(/labels names 'n', which is not an array parameter/);
  });

  it('the comparison: exact bytes, multisets only where the declaration says order-free', () => {
    const x: Outputs = { A: new Uint8Array(4), B: bytesOf(Float32Array.of(3)) };
    const y: Outputs = { A: new Uint8Array(4), B: bytesOf(Float32Array.of(-3)) };
    expect(differences(builtinKernels.vecMax, x, y)).toEqual(['B: element 0: 00004040 vs 000040c0']);
    // A NaN's bits count, except in the outputs declared anyNaN (vecSum's B).
    const negNaN = (bytes: number) => { const b = new Uint8Array(bytes); b[bytes - 1] = 0xff; b[bytes - 2] = bytes === 4 ? 0xc0 : 0xf8; return b; };
    expect(differences(builtinKernels.vecMax, { A: new Uint8Array(4), B: bytesOf(Float32Array.of(NaN)) }, { A: new Uint8Array(4), B: negNaN(4) })).toEqual(['B: element 0: 0000c07f vs 0000c0ff']);
    expect(differences(builtinKernels.vecSum, { A: new Uint8Array(4), B: bytesOf(Float64Array.of(NaN)) }, { A: new Uint8Array(4), B: negNaN(8) })).toEqual([]);
    expect(differences(builtinKernels.vecSum, { A: new Uint8Array(4), B: bytesOf(Float64Array.of(NaN)) }, { A: new Uint8Array(4), B: bytesOf(Float64Array.of(0)) })).toHaveLength(1);
    const ms = (...v: number[]) => bytesOf(Uint32Array.from(v));
    const cm = builtinKernels.countModules as Kernel;
    const cmOut = (...v: number[]): Outputs => ({ id: new Uint8Array(2), moduleStart: ms(...v), clusterId: ms(0) });
    expect(differences(cm, cmOut(2, 5, 9, 0), cmOut(2, 9, 5, 0))).toEqual([]);
    expect(differences(cm, cmOut(2, 5, 9, 0), cmOut(1, 9, 5, 0))).toEqual(['moduleStart: element 0: 02000000 vs 01000000']);
    expect(differences(cm, cmOut(2, 5, 9, 0), cmOut(2, 5, 5, 0))).toEqual(['moduleStart[1..]: different multisets']);
    // labels: the same partition per group passes, a merged or split cluster does not
    const fcK = specializations.find((k) => k.name === 'findClus')!;
    const fcOut = (labels: number[], groups: number[]): Outputs => ({
      id: bytesOf(Uint16Array.from(groups)), x: new Uint8Array(2), y: new Uint8Array(2), moduleStart: ms(1), nClustersInModule: ms(2), moduleId: ms(0), clusterId: bytesOf(Int32Array.from(labels)),
    });
    expect(differences(fcK, fcOut([0, 1, 0, 0, -9999], [4, 4, 4, 9, 4]), fcOut([1, 0, 1, 0, -9999], [4, 4, 4, 9, 4]))).toEqual([]);
    expect(differences(fcK, fcOut([0, 1, 0, 0], [4, 4, 4, 9]), fcOut([0, 0, 0, 0], [4, 4, 4, 9]))).toEqual(['clusterId: element 1: 01000000 vs 00000000']);
    expect(differences(fcK, fcOut([0, 1, 0, 0], [4, 4, 4, 9]), fcOut([0, 1, 2, 0], [4, 4, 4, 9]))).toEqual(['clusterId: element 2: 00000000 vs 02000000']);
  });
});

const BACKENDS = [
  { backend: 'wasm', seed: 1, big: true },
  { backend: 'serial', seed: 1, big: true },
  { backend: 'serial', seed: 2, big: false },
  { backend: 'serial', seed: 3, big: false },
] as const;

for (const { backend, seed, big } of BACKENDS) {
  describe(`${backend} (seed ${seed}): specialization and generic give the same bytes`, () => {
    let dev: Device;
    beforeAll(async () => {
      dev = await createDevice({ backend, seed, workers: 2, memoryBytes: 96 << 20 });
      await dev.load(mod);
    });
    afterAll(async () => { await dev?.destroy(); });

    for (const k of specializations) {
      const inputs = INPUTS[k.name];
      it(`${k.name}: edge and random cases`, async () => {
        const generic = mod.kernels[k.specializes!.generic]!;
        const cases = inputs!.cases((n) => gridStrideShape(dev, n), big);
        for (const c of cases) {
          const g = await run(dev, generic, c);
          const s = await run(dev, k, c);
          expect(differences(k, g, s), `${k.name} against ${generic.name}: ${c.label}`).toEqual([]);
          expect(differences(k, nanAsOne(k, inputs!.reference(c)), nanAsOne(k, inputs!.normalize?.(c, g) ?? g), { labels: false }), `${generic.name} against the reference: ${c.label}`).toEqual([]);
        }
      });

      it(`${k.name}: random cases (property-based)`, async () => {
        const generic = mod.kernels[k.specializes!.generic]!;
        await fc.assert(fc.asyncProperty(inputs!.arbitrary, async (c) => {
          const g = await run(dev, generic, c);
          const s = await run(dev, k, c);
          expect(differences(k, g, s), `${k.name} against ${generic.name}: ${c.label}`).toEqual([]);
          expect(differences(k, nanAsOne(k, inputs!.reference(c)), nanAsOne(k, inputs!.normalize?.(c, g) ?? g), { labels: false }), `${generic.name} against the reference: ${c.label}`).toEqual([]);
        }), { numRuns: backend === 'wasm' ? 60 : 20, seed });
      });
    }
  });
}

// On webgpu a declared specialization without a hand-written WGSL twin runs as its generic
// kernel's generated WGSL (src/webgpu/device.ts): each of them against the reference, on the
// edge and random cases above (blocks the adapter allows).
describe('webgpu: the built-ins that run as their generic kernel\'s generated WGSL give the reference\'s outputs', () => {
  let gpu: Device;
  let setupError: unknown;
  beforeAll(async () => {
    try { gpu = await createDevice({ backend: 'webgpu', memoryBytes: 256 << 20 }) as unknown as Device; } catch (e) { setupError = e; }
  });
  afterAll(async () => { await gpu?.destroy(); });
  // Read at collection time (the build wrote it): one test per such kernel.
  const shippedWgsl = (JSON.parse(readFileSync('build/simt.simt.json', 'utf8')) as KernelModule['meta']).wgsl ?? {};
  const generated = specializations.filter((k) => !(k.name in WGSL_KERNELS) && shippedWgsl[k.specializes!.generic]?.source !== undefined);

  it('cover every specialization without a twin whose generic kernel has a WGSL form, findClus and countModules among them', () => {
    if (setupError !== undefined) throw setupError;
    const names = generated.map((k) => k.name);
    expect(names).toEqual(expect.arrayContaining(['vecMax', 'vecMin', 'countModules', 'findClus', 'clusterChargeCut', 'petCoinCount']));
    for (const k of specializations) if (!names.includes(k.name) && !(k.name in WGSL_KERNELS)) expect(shippedWgsl[k.specializes!.generic]?.diagnostics, k.name).toBeDefined();
  });

  for (const k of generated) {
    it(`${k.name}: edge and random cases`, async () => {
      if (setupError !== undefined) throw setupError;
      const inputs = INPUTS[k.name]!;
      const cases = inputs.cases((n) => gridStrideShape(gpu, n), false).filter((c) => c.block <= gpu.maxThreadsPerBlock);
      expect(cases.length).toBeGreaterThan(0);
      for (const c of cases) {
        const g = await run(gpu, k, c);
        expect(differences(k, nanAsOne(k, inputs.reference(c)), nanAsOne(k, inputs.normalize?.(c, g) ?? g), { labels: false }), `${k.name} on webgpu against the reference: ${c.label}`).toEqual([]);
      }
    });
  }
});

