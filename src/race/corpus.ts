// The race corpus: jobs on simt's own compiled kernels (kernels/race/*.ts, and seed 000's shipped
// kernels/pixel/countModules.ts; a launch names them by string, which the race tools resolve in
// `shippedModule()`) with what the corpus says about each — racy or race-free, and for racy ones
// which report kinds racecheck must give. Every job's data is small enough to explore thousands
// of schedules. A __syncthreads() that part of the block skips by its threadIdx is not a job
// here: the kernel language rejects it at compile time (test/kernels/divergentBarriers.ts).

import type { DType } from '../dtypes.js';
import type { DimLike } from '../dims.js';
import type { Outputs, RaceJob } from './job.js';
import type { ReportKind } from './reports.js';

type Inputs = Record<string, number[]>;

interface Spec {
  name: string;
  summary: string;
  racy: boolean;
  expect?: ReportKind[];
  seed?: string;
  note?: string;
  /** Buffers in creation order: dtype and initial contents (an array) or a length (zeros). */
  buffers: Record<string, [DType, number[] | number]>;
  launches: { kernel: string; grid: DimLike; block: DimLike; shared?: number; args: (string | number)[] }[];
  outputs: string[];
}

const RACE: ReportKind[] = ['data-race', 'warp-sync-hazard'];

function job(s: Spec): RaceJob<Inputs> {
  return {
    name: s.name, summary: s.summary, racy: s.racy, expect: s.expect ?? (s.racy ? RACE : []), seed: s.seed, note: s.note,
    inputs() {
      const out: Inputs = {};
      for (const [name, [, init]] of Object.entries(s.buffers)) if (Array.isArray(init)) out[name] = [...init];
      return out;
    },
    async run(ctx, inputs) {
      const bufs = new Map<string, Awaited<ReturnType<typeof ctx.buffer>>>();
      for (const [name, [dtype, init]] of Object.entries(s.buffers)) {
        bufs.set(name, await ctx.buffer(name, dtype, inputs[name] ?? (Array.isArray(init) ? init : init)));
      }
      for (const l of s.launches) {
        ctx.launch({
          kernel: l.kernel, grid: l.grid, block: l.block, sharedBytes: l.shared ?? 0,
          args: l.args.map((a) => (typeof a === 'number' ? a : bufs.get(a)!)),
        });
      }
      const outputs: Outputs = {};
      for (const name of s.outputs) outputs[name] = await bufs.get(name)!.read();
      return outputs;
    },
  };
}

const range = (n: number, f: (k: number) => number = (k) => k): number[] => Array.from({ length: n }, (_, k) => f(k));
const INV = 65534;
const moduleIds = [1, 1, 1, 2, 2, INV, 2, 3, 3, 3, INV, INV, 4, 5, 5, 5, 6, 6, 7, 7, 7, 8, 8, 9];
const stsChannel = [1, 1, 1, 0, 0, 3, 3, 1, 1, 0, 2, 2, 3, 1, 0, 2];
const stsTime = range(16, (k) => 10 * (k + 1));
const stsPrefix = ((): number[] => {
  const counts = [0, 0, 0, 0];
  for (const c of stsChannel) counts[c]!++;
  const p: number[] = [];
  let acc = 0;
  for (const c of counts) { p.push(acc); acc += c; }
  return p;
})();
/** The same digis as (channel, time) word pairs, as the STS sort's kernels take them. */
const stsDigis = stsChannel.flatMap((c, k) => [c, stsTime[k]!]);
const nextIndex = range(150, (k) => (k % 3 === 2 ? -1 : k));
const vals = (n: number): number[] => range(n, (k) => ((k * 7) % 11) - 3);

export const corpus: RaceJob<Inputs>[] = [
  // ---- racy ----------------------------------------------------------------------------------
  job({
    name: 'countModules', seed: '000', racy: true, expect: ['atomic-order-output'],
    summary: 'CMS countModules: moduleStart[1..] filled in atomicInc order',
    note: 'benign: no data race; the order of moduleStart is the atomics\' order, which the schedule decides (the seed shows three runs, three orders). Consumers must treat it as a set.',
    buffers: { id: ['u16', moduleIds], moduleStart: ['u32', 17], clusterId: ['i32', moduleIds.length] },
    launches: [{ kernel: 'countModules', grid: 2, block: 8, args: ['id', 'moduleStart', 'clusterId', moduleIds.length, 16] }],
    outputs: ['moduleStart', 'clusterId'],
  }),
  job({
    name: 'countModulesPlain', seed: '000', racy: true,
    summary: 'countModules with a plain read-modify-write of the counter: lost updates lose module starts',
    buffers: { id: ['u16', moduleIds], moduleStart: ['u32', 17], clusterId: ['i32', moduleIds.length] },
    launches: [{ kernel: 'countModulesPlain', grid: 2, block: 8, args: ['id', 'moduleStart', 'clusterId', moduleIds.length, 16] }],
    outputs: ['moduleStart'],
  }),
  job({
    name: 'petIntraWarpScan', seed: '001', racy: true, expect: ['warp-sync-hazard'],
    summary: 'PET intraWarpScan through volatile shared memory without __syncwarp',
    note: 'correct only if the 32 lanes run in lock-step, which independent thread scheduling (Volta+) does not promise',
    buffers: { input: ['u32', range(32, (k) => (k % 3) + 1)], out: ['u32', 32] },
    launches: [{ kernel: 'petWarpScan', grid: 1, block: 32, shared: 256, args: ['input', 'out', 0] }],
    outputs: ['out'],
  }),
  job({
    name: 'petFillData', seed: '001', racy: true, expect: ['barrier-divergence'],
    summary: 'PET FillDataKernel: threads past the data return before the block\'s __syncthreads',
    buffers: { nextIndex: ['i32', nextIndex], newLength: ['u32', 1], scanId: ['u32', 38], globalLen: ['u32', 1] },
    launches: [{ kernel: 'petFillData', grid: 1, block: 64, shared: 512, args: ['nextIndex', 150, 'newLength', 'scanId', 'globalLen'] }],
    outputs: ['newLength', 'scanId', 'globalLen'],
  }),
  job({
    name: 'stsAtomicScatter', seed: '004', racy: true, expect: ['atomic-order-output'],
    summary: 'CBM STS counting sort: output[atomicAdd(&prefix[channel], 1)] = digi (the sort\'s own stsScatterAtomic)',
    note: 'no data race, but the digis of one channel land in atomics order: the per-channel time order is lost unless a later sort restores it',
    buffers: { digis: ['u32', stsDigis], out: ['u32', 32], offsets: ['u32', stsPrefix] },
    launches: [{ kernel: 'stsScatterAtomic', grid: 2, block: 8, args: ['digis', 'out', 'offsets', 16, 4] }],
    outputs: ['out'],
  }),
  job({
    name: 'stsPlainScatter', seed: '004', racy: true,
    summary: 'STS scatter with a plain increment of the channel\'s insertion point',
    buffers: { digis: ['u32', stsDigis], out: ['u32', 32], offsets: ['u32', stsPrefix] },
    launches: [{ kernel: 'stsScatterPlain', grid: 2, block: 8, args: ['digis', 'out', 'offsets', 16, 4] }],
    outputs: ['out', 'offsets'],
  }),
  job({
    name: 'lostUpdate', racy: true, summary: 'counter++ by 8 threads of 2 blocks, non-atomic',
    buffers: { counter: ['i32', 1] }, launches: [{ kernel: 'lostUpdate', grid: 2, block: 4, args: ['counter'] }], outputs: ['counter'],
  }),
  job({
    name: 'lostUpdateShared', racy: true, summary: 'shared counter++ without an atomic',
    buffers: { out: ['i32', 1] }, launches: [{ kernel: 'lostUpdateShared', grid: 1, block: 8, args: ['out'] }], outputs: ['out'],
  }),
  job({
    name: 'stencilNoSync', racy: true, summary: 'reads a neighbour\'s tile entry with no barrier after the tile is written',
    buffers: { input: ['i32', vals(8)], out: ['i32', 8] },
    launches: [{ kernel: 'stencilNoSync', grid: 1, block: 8, shared: 32, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'reduceNoSync', racy: true, summary: 'shared tree reduction missing the barrier in its loop',
    buffers: { input: ['i32', vals(8)], out: ['i32', 1] },
    launches: [{ kernel: 'reduceNoSync', grid: 1, block: 8, shared: 32, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'reduceWarpUnrolled', racy: true, expect: ['warp-sync-hazard'], summary: 'reduction whose last warp is unrolled without __syncwarp',
    buffers: { input: ['i32', vals(64)], out: ['i32', 1] },
    launches: [{ kernel: 'reduceWarpUnrolled', grid: 1, block: 64, shared: 256, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'writeWrite', racy: true, summary: 'every thread of 2 blocks stores its index to out[0]',
    buffers: { out: ['i32', 1] }, launches: [{ kernel: 'writeWrite', grid: 2, block: 4, args: ['out'] }], outputs: ['out'],
  }),
  job({
    name: 'crossBlockPublish', racy: true, expect: ['data-race'], summary: 'block 0 writes data then a flag, block 1 reads them: no order between blocks',
    buffers: { data: ['i32', 1], flag: ['i32', 1], out: ['i32', 1] },
    launches: [{ kernel: 'crossBlockPublish', grid: 2, block: 2, args: ['data', 'flag', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'lastBlockSumNoFence', racy: true, expect: ['data-race'],
    summary: 'the CUDA guide\'s last-block sum without its __threadfence(): the last block reads the partial sums unordered',
    buffers: { input: ['i32', vals(12)], result: ['i32', 3], count: ['u32', 1] },
    launches: [{ kernel: 'lastBlockSum', grid: 3, block: 4, shared: 16, args: ['input', 'result', 'count', 0] }], outputs: ['result', 'count'],
  }),
  job({
    name: 'oobWrite', racy: true, expect: ['out-of-bounds'], summary: '8 threads write a 6-element array without a bounds guard',
    buffers: { out: ['i32', 6] }, launches: [{ kernel: 'oobWrite', grid: 1, block: 8, args: ['out', 6] }], outputs: ['out'],
  }),
  job({
    name: 'oobRead', racy: true, expect: ['out-of-bounds'], summary: 'reads input[i + 1] for i < n',
    buffers: { input: ['i32', vals(8)], out: ['i32', 8] },
    launches: [{ kernel: 'oobRead', grid: 1, block: 8, args: ['input', 'out', 8] }], outputs: ['out'],
  }),
  job({
    name: 'histogramPlain', racy: true, summary: 'histogram bins bumped without atomics',
    buffers: { input: ['i32', range(16, (k) => (k * 5) % 7)], hist: ['i32', 4] },
    launches: [{ kernel: 'histogramPlain', grid: 2, block: 8, args: ['input', 'hist', 4] }], outputs: ['hist'],
  }),
  job({
    name: 'atomicVsPlain', racy: true, summary: 'an atomicAdd and plain reads of the same word, unordered',
    buffers: { counter: ['i32', 1], out: ['i32', 4] },
    launches: [{ kernel: 'atomicVsPlain', grid: 1, block: 4, args: ['counter', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'doubleBufferNoSync', racy: true, summary: 'in-place smoothing with no barrier between the reads and the write',
    buffers: { input: ['i32', vals(8)], out: ['i32', 8] },
    launches: [{ kernel: 'doubleBufferNoSync', grid: 1, block: 8, shared: 32, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'broadcastNoSync', racy: true, summary: 'thread 0 fills a shared word the others read without a barrier',
    buffers: { input: ['i32', [7]], out: ['i32', 8] },
    launches: [{ kernel: 'broadcastNoSync', grid: 1, block: 8, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'warpExchangeNoSync', racy: true, expect: ['warp-sync-hazard'], summary: 'lanes swap values through shared memory relying on lock-step',
    buffers: { input: ['i32', vals(32)], out: ['i32', 32] },
    launches: [{ kernel: 'warpExchangeNoSync', grid: 1, block: 32, shared: 128, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'plainMax', racy: true, summary: 'maximum by plain compare-and-store',
    buffers: { input: ['i32', vals(8)], m: ['i32', [-1000]] },
    launches: [{ kernel: 'plainMax', grid: 1, block: 8, args: ['input', 'm'] }], outputs: ['m'],
  }),

  // ---- race-free -----------------------------------------------------------------------------
  job({
    name: 'countModulesCount', seed: '000', racy: false, summary: 'countModules counting module starts with atomicAdd (order-free)',
    buffers: { id: ['u16', moduleIds], count: ['u32', 1], clusterId: ['i32', moduleIds.length] },
    launches: [{ kernel: 'countModulesCount', grid: 2, block: 8, args: ['id', 'count', 'clusterId', moduleIds.length] }],
    outputs: ['count', 'clusterId'],
  }),
  job({
    name: 'petIntraWarpScanSync', seed: '001', racy: false, summary: 'PET intraWarpScan with __syncwarp between reads and writes',
    buffers: { input: ['u32', range(32, (k) => (k % 3) + 1)], out: ['u32', 32] },
    launches: [{ kernel: 'petWarpScan', grid: 1, block: 32, shared: 256, args: ['input', 'out', 1] }], outputs: ['out'],
  }),
  job({
    name: 'petFillDataFixed', seed: '001', racy: false,
    summary: 'FillDataKernel with every thread reaching every barrier and synchronised warp scans (the pipeline\'s own petCoinCount)',
    buffers: { nextIndex: ['i32', nextIndex], newLength: ['u32', 1], scanId: ['u32', 64], globalLen: ['u32', 1] },
    launches: [{ kernel: 'petCoinCount', grid: 1, block: 64, args: ['nextIndex', 150, 'scanId', 'globalLen', 'newLength', 4] }],
    outputs: ['newLength', 'scanId', 'globalLen'],
  }),
  job({
    name: 'stsCount', seed: '004', racy: false, summary: 'STS step 1: digis per channel by atomicAdd (the sort\'s own stsCountChannels)',
    buffers: { digis: ['u32', stsDigis], counts: ['u32', 4], bad: ['u32', [0xffffffff]] },
    launches: [{ kernel: 'stsCountChannels', grid: 2, block: 8, args: ['digis', 'counts', 16, 4, 'bad'] }], outputs: ['counts', 'bad'],
  }),
  job({
    name: 'stsOwnerScatter', seed: '004', racy: false, summary: 'STS scatter where thread c owns channel c (the seed\'s alternative): stable',
    buffers: { channel: ['i32', stsChannel], time: ['u32', stsTime], prefix: ['i32', stsPrefix], out: ['u32', 16] },
    launches: [{ kernel: 'stsOwnerScatter', grid: 1, block: 4, args: ['channel', 'time', 'prefix', 'out', 16, 4] }], outputs: ['out'],
  }),
  job({
    name: 'atomicCounter', racy: false, summary: 'atomicAdd by 8 threads of 2 blocks',
    buffers: { counter: ['i32', 1] }, launches: [{ kernel: 'atomicCounter', grid: 2, block: 4, args: ['counter'] }], outputs: ['counter'],
  }),
  job({
    name: 'sharedAtomicCounter', racy: false, summary: 'shared counter: init, barrier, atomicAdd, barrier, publish',
    buffers: { out: ['i32', 2] }, launches: [{ kernel: 'sharedAtomicCounter', grid: 2, block: 8, args: ['out'] }], outputs: ['out'],
  }),
  job({
    name: 'reduceSync', racy: false, summary: 'shared tree reduction with a barrier per step',
    buffers: { input: ['i32', vals(16)], out: ['i32', 2] },
    launches: [{ kernel: 'reduceSync', grid: 2, block: 8, shared: 32, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'reduceWarpSync', racy: false, summary: 'reduction with the last warp unrolled and __syncwarp per step',
    buffers: { input: ['i32', vals(64)], out: ['i32', 1] },
    launches: [{ kernel: 'reduceWarpSync', grid: 1, block: 64, shared: 256, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'stencilSync', racy: false, summary: 'tile, barrier, read neighbours',
    buffers: { input: ['i32', vals(8)], out: ['i32', 8] },
    launches: [{ kernel: 'stencilSync', grid: 1, block: 8, shared: 32, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'vectorAdd', racy: false, summary: 'out[i] = a[i] + b[i] with an i < n guard',
    buffers: { a: ['i32', vals(13)], b: ['i32', range(13)], out: ['i32', 13] },
    launches: [{ kernel: 'vectorAdd', grid: 2, block: 8, args: ['a', 'b', 'out', 13] }], outputs: ['out'],
  }),
  job({
    name: 'gridStrideCopy', racy: false, summary: 'grid-stride copy of 20 elements by 8 threads',
    buffers: { input: ['i32', vals(20)], out: ['i32', 20] },
    launches: [{ kernel: 'gridStrideCopy', grid: 2, block: 4, args: ['input', 'out', 20] }], outputs: ['out'],
  }),
  job({
    name: 'histogramAtomic', racy: false, summary: 'histogram with atomicAdd',
    buffers: { input: ['i32', range(16, (k) => (k * 5) % 7)], hist: ['i32', 4] },
    launches: [{ kernel: 'histogramAtomic', grid: 2, block: 8, args: ['input', 'hist', 4] }], outputs: ['hist'],
  }),
  job({
    name: 'transposeShared', racy: false, summary: '4×4 transpose through shared memory (2-D block)',
    buffers: { input: ['i32', range(16)], out: ['i32', 16] },
    launches: [{ kernel: 'transposeShared', grid: 1, block: { x: 4, y: 4 }, shared: 64, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'doubleBufferSync', racy: false, summary: 'in-place smoothing with barriers before and after the write',
    buffers: { input: ['i32', vals(8)], out: ['i32', 8] },
    launches: [{ kernel: 'doubleBufferSync', grid: 1, block: 8, shared: 32, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'broadcastSync', racy: false, summary: 'thread 0 fills a shared word; barrier; all read',
    buffers: { input: ['i32', [7]], out: ['i32', 8] },
    launches: [{ kernel: 'broadcastSync', grid: 1, block: 8, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'atomicMax', racy: false, summary: 'maximum by atomicMax',
    buffers: { input: ['i32', vals(8)], m: ['i32', [-1000]] },
    launches: [{ kernel: 'atomicMaxKernel', grid: 1, block: 8, args: ['input', 'm'] }], outputs: ['m'],
  }),
  job({
    name: 'casMax', racy: false, summary: 'maximum by an atomicCAS loop',
    buffers: { input: ['i32', vals(8)], m: ['i32', [-1000]] },
    launches: [{ kernel: 'casMax', grid: 1, block: 8, args: ['input', 'm'] }], outputs: ['m'],
  }),
  job({
    name: 'privateSlots', racy: false, summary: 'each thread touches only its own shared slots',
    buffers: { input: ['i32', vals(8)], out: ['i32', 8] },
    launches: [{ kernel: 'privateSlots', grid: 1, block: 8, shared: 64, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'produceConsume', racy: false, summary: 'two launches: one writes, the next reads other blocks\' elements (ordered by the kernel boundary)',
    buffers: { data: ['i32', 8], out: ['i32', 8] },
    launches: [
      { kernel: 'produce', grid: 2, block: 4, args: ['data'] },
      { kernel: 'consume', grid: 2, block: 4, args: ['data', 'out', 8] },
    ],
    outputs: ['out'],
  }),
  job({
    name: 'warpExchangeSync', racy: false, summary: 'lanes swap values through shared memory with __syncwarp',
    buffers: { input: ['i32', vals(32)], out: ['i32', 32] },
    launches: [{ kernel: 'warpExchangeSync', grid: 1, block: 32, shared: 128, args: ['input', 'out'] }], outputs: ['out'],
  }),
  job({
    name: 'lastBlockSum', racy: false,
    summary: 'the CUDA guide\'s __threadfence() example: partial sums, fence, atomicInc; the block that saw the others\' atomics adds the partials',
    buffers: { input: ['i32', vals(12)], result: ['i32', 3], count: ['u32', 1] },
    launches: [{ kernel: 'lastBlockSum', grid: 3, block: 4, shared: 16, args: ['input', 'result', 'count', 1] }], outputs: ['result', 'count'],
  }),
  job({
    name: 'blockSumAtomic', racy: false, summary: 'block reductions with barriers, one integer atomicAdd per block',
    buffers: { input: ['i32', vals(16)], total: ['i32', 1] },
    launches: [{ kernel: 'blockSumAtomic', grid: 2, block: 8, shared: 32, args: ['input', 'total'] }], outputs: ['total'],
  }),
];

export function findJob(name: string): RaceJob<Inputs> | undefined {
  return corpus.find((j) => j.name.toLowerCase() === name.toLowerCase());
}
