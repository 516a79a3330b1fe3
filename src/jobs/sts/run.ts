// Host side of the CBM STS digi sorts (seed 004): `stsSort(device, digis, {nChannels, method})`.
//
// On the device a digi is two u32 words (channel, time), so n digis are a u32[2n] array (the
// native baseline's struct and stsDigisForBench's layout). Methods:
//
//   'chunked'  counting sort, order preserving (default): per-thread chunk histograms in a
//              channel-major table, one exclusive scan, per-thread scatter. Same bytes on every
//              schedule; sorted by (channel, time) when each channel arrives time-ordered.
//   'atomic'   the talk's parallel counting sort: atomicAdd count, scan, atomicAdd scatter. The
//              order inside a channel depends on the schedule (`timeOrdered: false`); kept as a
//              race corpus case. Channels and their contents are exact.
//   'local'    the talk's per-thread local sort: each thread counting-sorts its chunk in its own
//              slice, then the (thread, channel) segments move to their global places.
//   'merge'    natural merge sort: detect (channel, time) runs, merge pairs until one remains.
//              Sorts any input by (channel, time), stable.
//   'key'      the xpu approach: keys channel << 32 | time, tile sort in shared memory, merge
//              rounds. Sorts any input by (channel, time).
//
// Digis given as two arrays {channel, time} (host arrays, copied in once, or device arrays used
// in place) sort as columns with 'chunked' (kernels/sts/countingSort.ts's SoA kernels: no
// interleaving before, no split after); the other methods interleave them on the device first
// (kernels/sts/layout.ts). `output: 'mapped'` returns the sorted columns as views of device
// arrays (no read-back copy, no fresh host pages).
//
// Every method first checks channel < nChannels on the device and throws StsChannelRangeError
// (naming the first bad digi) before any output is written.

import type { Kernel } from '../../kernel.js';
import type { GpuDevice, KernelArg, LaunchStats } from '../../deviceApi.js';
import type { DeviceArray } from '../../memory/deviceArray.js';
import { SimtError } from '../../errors.js';
import {
  stsCheckChannels, stsColumnOffsets, stsCountChannels, stsDigisToKeys, stsKeysToDigis, stsLocalMerge, stsLocalSort,
  stsMergeDigis, stsMergeKeys, stsRunFlags, stsRunStarts, stsScatterAtomic, stsScatterChunks, stsTileSort,
} from '../../kernels/sts.js';
import { shippedKernels } from '../../shippedModule.js';
import { gridStrideShape } from '../../ops/launchShape.js';
import { readElement, readWith } from '../../memory/hostAccess.js';
import { exclusiveScan } from '../../ops/scan.js';
import { StsInputError, type StsDigis } from './generate.js';

export type StsSortMethod = 'chunked' | 'atomic' | 'local' | 'merge' | 'key';
export const STS_SORT_METHODS: readonly StsSortMethod[] = ['chunked', 'atomic', 'local', 'merge', 'key'];

/** A digi's channel is not below nChannels. Thrown before any output is written. */
export class StsChannelRangeError extends SimtError {
  constructor(readonly index: number, readonly channel: number, readonly nChannels: number) {
    super(`digi ${index}: channel ${channel} is not below nChannels ${nChannels}`);
  }
}

export interface StsSortOptions {
  /** Channels: every digi's channel must be below it. */
  nChannels: number;
  method?: StsSortMethod;
  /** Threads owning a chunk in 'chunked' / 'local' (default 4 per worker). */
  chunks?: number;
  /**
   * 'chunked': each chunk owner derives its write positions from the whole count table inside the
   * scatter, instead of stsColumnOffsets and a scan in launches of their own (two launches fewer,
   * chunks × nChannels more reads per owner). Default: on the wasm pool when chunks × nChannels ≤
   * FUSED_OFFSETS_MAX_CELLS.
   */
  fuseOffsets?: boolean;
  /** Grid-stride shape of the element-wise kernels (block default 256). */
  block?: number;
  /** Outputs per thread in a merge round (default 256). */
  mergeElementsPerThread?: number;
  /** Threads per block of the key sort's tile sort: tiles of 2·block keys (power of two, default 512). */
  tileBlock?: number;
  /**
   * 'host' (default): `channel`/`time` are host copies. 'mapped': they are views of device arrays
   * the result keeps (no copy, see DeviceArray.view) until `result.free()` or the device is
   * destroyed; on a device without host mapping (webgpu) they are copies all the same.
   * 'device': the sorted (channel, time) words stay on the device as `device` (caller frees).
   */
  output?: 'host' | 'mapped' | 'device';
}

export interface StsSortResult {
  method: StsSortMethod;
  n: number;
  /** Host copies (output 'host'). */
  channel?: Uint32Array;
  time?: Uint32Array;
  /** The sorted digis as (channel, time) words (output 'device'). */
  device?: DeviceArray<'u32'>;
  /** False for 'atomic': inside a channel the order is the schedule's. */
  timeOrdered: boolean;
  /** Natural merge sort: runs found and merge rounds. */
  runs?: number;
  rounds?: number;
  launches: LaunchStats[];
  /** Wall time of the device part (upload and read-back excluded), ms. */
  ms: number;
  /** True when `channel`/`time` are views of device memory (`output: 'mapped'` on a host-mapped device). */
  mapped: boolean;
  /** Frees the device arrays the result holds (a mapped result's views, `device`); their contents are then undefined. */
  free(): void;
}

/** (channel, time) arrays → one u32[2n] of interleaved words. */
export function interleaveDigis(d: StsDigis): Uint32Array {
  const n = d.channel.length;
  const out = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) { out[2 * i] = d.channel[i]!; out[2 * i + 1] = d.time[i]!; }
  return out;
}

/** u32[2n] interleaved words → (channel, time) arrays. */
export function deinterleaveDigis(words: Uint32Array): StsDigis {
  const n = words.length >>> 1;
  const channel = new Uint32Array(n);
  const time = new Uint32Array(n);
  for (let i = 0; i < n; i++) { channel[i] = words[2 * i]!; time[i] = words[2 * i + 1]!; }
  return { channel, time };
}

/** STS digis as two device arrays (u32, equal lengths), e.g. filled in place through `view()`. */
export interface StsDeviceDigis {
  channel: DeviceArray<'u32'>;
  time: DeviceArray<'u32'>;
}

function isDeviceArray(x: unknown): x is DeviceArray<'u32'> {
  return typeof x === 'object' && x !== null && 'byteOffset' in x && 'dtype' in x && typeof (x as DeviceArray).read === 'function';
}

const OUTPUTS = ['host', 'mapped', 'device'] as const;

/** The input on the device: interleaved words, or the two columns; `owned` are freed after the sort. */
interface DeviceInput { words?: DeviceArray<'u32'>; columns?: StsDeviceDigis; n: number; owned: DeviceArray<'u32'>[] }

async function deviceInput(device: GpuDevice, digis: StsDigis | StsDeviceDigis | Uint32Array | DeviceArray<'u32'>): Promise<DeviceInput> {
  if (isDeviceArray(digis)) {
    if (digis.dtype !== 'u32' || digis.length % 2 !== 0) throw new StsInputError(`device digis must be a u32 array of 2n words, got ${digis.dtype}[${digis.length}]`);
    return { words: digis, n: digis.length / 2, owned: [] };
  }
  if (digis instanceof Uint32Array) {
    if (digis.length % 2 !== 0) throw new StsInputError(`interleaved digis need an even number of words, got ${digis.length}`);
    const words = await device.upload('u32', digis);
    return { words, n: digis.length / 2, owned: [words] };
  }
  const { channel, time } = (digis ?? {}) as Partial<StsDigis & StsDeviceDigis>;
  const onDevice = isDeviceArray(channel) && isDeviceArray(time);
  if (!onDevice && !(channel instanceof Uint32Array && time instanceof Uint32Array)) {
    throw new StsInputError('digis must be { channel, time } (both Uint32Array or both u32 device arrays), interleaved words or a device array of them');
  }
  if (channel.length !== time.length) throw new StsInputError(`channel (${channel.length}) and time (${time.length}) arrays differ in length`);
  if (onDevice) {
    for (const [name, a] of [['channel', channel], ['time', time]] as const) {
      if (a.dtype !== 'u32') throw new StsInputError(`device digis' ${name} must be a u32 array, got ${a.dtype}`);
      if (a.device !== device) throw new StsInputError(`device digis' ${name} belongs to another device`);
    }
    return { columns: { channel, time }, n: channel.length, owned: [] };
  }
  // Host columns: one copy each into device memory (a memcpy on host-mapped devices); the
  // interleaving, where a method needs it, then runs on the device.
  const owned: DeviceArray<'u32'>[] = [];
  try {
    const dChannel = await device.upload('u32', channel);
    owned.push(dChannel);
    const dTime = await device.upload('u32', time);
    owned.push(dTime);
    return { columns: { channel: dChannel, time: dTime }, n: channel.length, owned };
  } catch (e) {
    for (const a of owned) a.free();
    throw e;
  }
}

/**
 * Sorts STS digis by (channel, time) on `device`. `digis` is {channel, time} (host arrays, or
 * device arrays used in place), a u32[2n] of interleaved (channel, time) words, or such an array
 * already on the device (left unchanged). Digis given as columns sort as columns with the default
 * method ('chunked'): no interleaving pass before nor split after.
 */
export async function stsSort(
  device: GpuDevice, digis: StsDigis | StsDeviceDigis | Uint32Array | DeviceArray<'u32'>, options: StsSortOptions,
): Promise<StsSortResult> {
  const method = options.method ?? 'chunked';
  if (!STS_SORT_METHODS.includes(method)) throw new StsInputError(`unknown method '${String(method)}' (use ${STS_SORT_METHODS.join(', ')})`);
  const output = options.output ?? 'host';
  if (!OUTPUTS.includes(output)) throw new StsInputError(`unknown output '${String(output)}' (use ${OUTPUTS.join(', ')})`);
  const nChannels = options.nChannels;
  if (!Number.isSafeInteger(nChannels) || nChannels < 1 || nChannels > 0xffffffff) {
    throw new StsInputError(`nChannels must be an integer in [1, 2^32 - 1], got ${String(nChannels)}`);
  }
  const input = await deviceInput(device, digis);
  const n = input.n;
  const launches: LaunchStats[] = [];
  const extra: { runs?: number; rounds?: number } = {};
  // Arrays that end in the result (output 'device' or 'mapped'); everything else is freed here.
  const kept: DeviceArray<'u32'>[] = [];
  const temporary: DeviceArray<'u32'>[] = [...input.owned];
  const alloc = (length: number, keep: boolean) => {
    const a = device.alloc('u32', length);
    (keep ? kept : temporary).push(a);
    return a;
  };
  let returned = false;
  try {
    if (n > 0x7fffffff) throw new StsInputError(`at most 2^31 - 1 digis, got ${n}`);
    const t0 = performance.now();
    const k = n > 0 ? await stsKernels(device) : undefined;
    const mapped = output === 'mapped' && device.hostMapped;
    let columnsOut: StsDeviceDigis | undefined;
    let wordsOut: DeviceArray<'u32'> | undefined;
    if (input.columns && method === 'chunked' && output !== 'device') {
      columnsOut = { channel: alloc(n, mapped), time: alloc(n, mapped) };
      if (n > 0) await sortChunkedColumns({ device, n, nChannels, options, launches, k: k! }, input.columns, columnsOut);
    } else {
      let words = input.words;
      if (!words) {
        words = alloc(2 * n, false);
        if (n > 0) launches.push(await device.launch(k!.stsInterleaveDigis, elementShape({ device, options }, n), [input.columns!.channel, input.columns!.time, words, n]));
      }
      wordsOut = alloc(2 * n, output === 'device');
      if (n > 0) {
        const ctx: Ctx = { device, input: words, out: wordsOut, n, nChannels, options, launches, extra, k: k! };
        switch (method) {
          case 'atomic': await sortAtomic(ctx); break;
          case 'chunked': await sortChunked(ctx); break;
          case 'local': await sortLocal(ctx); break;
          case 'merge': await sortMerge(ctx); break;
          case 'key': await sortKey(ctx); break;
        }
        if (mapped) {
          columnsOut = { channel: alloc(n, true), time: alloc(n, true) };
          launches.push(await device.launch(k!.stsSplitDigis, elementShape({ device, options }, n), [wordsOut, columnsOut.channel, columnsOut.time, n]));
        }
      }
    }
    const ms = performance.now() - t0;
    const held = kept.splice(0);
    const result: StsSortResult = {
      method, n, timeOrdered: method !== 'atomic', launches, ms, ...extra, mapped: false,
      free: () => { for (const a of held.splice(0)) if (!a.freed) a.free(); },
    };
    if (output === 'device') {
      result.device = wordsOut;
    } else if (mapped && n > 0) {
      await device.synchronize();
      result.channel = columnsOut!.channel.view(0, n);
      result.time = columnsOut!.time.view(0, n);
      result.mapped = true;
    } else if (columnsOut) {
      [result.channel, result.time] = n > 0 ? await Promise.all([columnsOut.channel.read(0, n), columnsOut.time.read(0, n)]) : [new Uint32Array(0), new Uint32Array(0)];
    } else {
      // Split straight from the device array (host-mapped devices): no intermediate copy.
      const d = await readWith(wordsOut!, deinterleaveDigis, 0, 2 * n);
      result.channel = d.channel;
      result.time = d.time;
    }
    if (!result.mapped && output !== 'device') result.free();
    returned = true;
    return result;
  } finally {
    for (const a of temporary) if (!a.freed) a.free();
    if (!returned) for (const a of kept) if (!a.freed) a.free();
  }
}

interface Ctx {
  device: GpuDevice; input: DeviceArray<'u32'>; out: DeviceArray<'u32'>; n: number; nChannels: number;
  options: StsSortOptions; launches: LaunchStats[]; extra: { runs?: number; rounds?: number }; k: StsKernels;
}

/**
 * The sorts' kernels: those that run as written per thread (kernels/sts/, simt's shipped
 * module: as fast as their hand-written forms were), and the declared specializations of the
 * others (src/kernels/sts.ts).
 */
async function stsKernels(device: GpuDevice) {
  const shipped = await shippedKernels(device);
  return {
    stsCountChunks: shipped.stsCountChunks!, stsLocalOffsets: shipped.stsLocalOffsets!, stsHalveRuns: shipped.stsHalveRuns!, stsTileStarts: shipped.stsTileStarts!,
    stsCountChunksSoA: shipped.stsCountChunksSoA!, stsScatterChunksSoA: shipped.stsScatterChunksSoA!,
    stsScatterChunksFused: shipped.stsScatterChunksFused!, stsScatterChunksFusedSoA: shipped.stsScatterChunksFusedSoA!,
    stsInterleaveDigis: shipped.stsInterleaveDigis!, stsSplitDigis: shipped.stsSplitDigis!,
    stsScatterChunks, stsLocalSort, stsColumnOffsets, stsLocalMerge, stsCheckChannels, stsRunFlags, stsRunStarts, stsMergeDigis, stsMergeKeys,
    stsDigisToKeys, stsKeysToDigis, stsTileSort,
  } satisfies Record<string, Kernel>;
}
type StsKernels = Awaited<ReturnType<typeof stsKernels>>;

function elementShape(ctx: Pick<Ctx, 'device' | 'options'>, count: number): { grid: number; block: number } {
  return gridStrideShape(ctx.device, count, ctx.options.block ?? 256);
}

/** Histogram cells (nChannels × chunks) the webgpu default stays within: 16 MiB per table. */
const WEBGPU_DEFAULT_CELLS = 1 << 22;

function chunkShape(ctx: Pick<Ctx, 'device' | 'options' | 'n' | 'nChannels'>): { grid: number; block: number; threads: number } {
  if (ctx.options.chunks === undefined && ctx.device.backend === 'webgpu') {
    // A GPU wants many chunk owners: the largest power of two ≤ 1024 whose tables stay within
    // WEBGPU_DEFAULT_CELLS, in blocks of up to 64 (valid on any adapter: WebGPU guarantees 256).
    let threads = 1024;
    while (threads > 1 && threads * ctx.nChannels > WEBGPU_DEFAULT_CELLS) threads >>= 1;
    const block = Math.min(64, threads, ctx.device.maxThreadsPerBlock);
    return { grid: threads / block, block, threads };
  }
  const threads = ctx.options.chunks ?? defaultChunks(ctx.n, ctx.nChannels, Math.max(1, ctx.device.workers));
  if (!Number.isInteger(threads) || threads < 1) throw new StsInputError(`chunks must be a positive integer, got ${String(threads)}`);
  return { grid: threads, block: 1, threads };
}

/**
 * Chunk owners of 'chunked' / 'local' on the wasm pool: 4 per worker balances the load, but every
 * owner adds a histogram column of nChannels cells that is cleared, offset and scanned. So the
 * most of 4, 2 and 1 per worker whose table stays within n/8 cells (1 per worker at least):
 * measured on 2 workers, 1M digis with 100k channels take 4.4 ms with 2 chunks against 5.9 ms
 * with 8, while 1k channels keep 8 (2.7 vs 3.5 ms), as does every size above 8·nChannels·4·workers.
 */
export function defaultChunks(n: number, nChannels: number, workers: number): number {
  for (const per of [4, 2]) if (nChannels * workers * per <= n / 8) return workers * per;
  return workers;
}

/** Throws StsChannelRangeError when bad[0] names a digi (its channel read from `channels`, every `stride`-th word). */
async function checkBad(ctx: Pick<Ctx, 'nChannels'>, bad: DeviceArray<'u32'>, channels: DeviceArray<'u32'>, stride: 1 | 2): Promise<void> {
  const b = await readElement(bad, 0);
  if (b !== 0xffffffff) {
    const ch = await readElement(channels, stride * b);
    throw new StsChannelRangeError(b, ch, ctx.nChannels);
  }
}

async function withBad<T>(ctx: Pick<Ctx, 'device'>, fn: (bad: DeviceArray<'u32'>) => Promise<T>): Promise<T> {
  const bad = ctx.device.alloc('u32', 1);
  try {
    await bad.fill(0xffffffff);
    return await fn(bad);
  } finally {
    bad.free();
  }
}

function allocCells(ctx: Pick<Ctx, 'device'>, cells: number): DeviceArray<'u32'> {
  if (cells > 0x7fffffff) throw new StsInputError(`${cells} histogram cells (nChannels × threads) exceed 2^31`);
  return ctx.device.alloc('u32', cells);
}

async function sortAtomic(ctx: Ctx): Promise<void> {
  const { device, input, out, n, nChannels, launches } = ctx;
  const counts = allocCells(ctx, nChannels);
  try {
    await counts.fill(0);
    const shape = elementShape(ctx, n);
    await withBad(ctx, async (bad) => {
      launches.push(await device.launch(stsCountChannels, shape, [input, counts, n, nChannels, bad]));
      await checkBad(ctx, bad, ctx.input, 2);
    });
    await exclusiveScan(device, counts, counts, nChannels, {}, launches);
    launches.push(await device.launch(stsScatterAtomic, shape, [input, out, counts, n, nChannels]));
  } finally {
    counts.free();
  }
}

/**
 * The chunked sort's steps on either layout: count (each thread zeroes its own row of counts),
 * column offsets, scan of the channel totals into channel starts, scatter — or, for a small count
 * table, count and the fused scatter. `count`, `scatter` and `fused` give the layout's kernel and
 * arguments; a bad digi's channel is read from `channels`, one every `stride` words.
 */
interface ChunkedLayout {
  channels: DeviceArray<'u32'>;
  stride: 1 | 2;
  count(counts: DeviceArray<'u32'>, bad: DeviceArray<'u32'>): [Kernel, KernelArg[]];
  scatter(colOff: DeviceArray<'u32'>, chanStart: DeviceArray<'u32'>): [Kernel, KernelArg[]];
  /** The scatter that finds its own offsets in counts (column offsets, scan and scatter in one launch). */
  fused(counts: DeviceArray<'u32'>, colOff: DeviceArray<'u32'>): [Kernel, KernelArg[]];
}

/**
 * The most count cells (chunks × nChannels) for which 'chunked' fuses its offsets into the
 * scatter by default: every chunk owner then reads them all, which stays below the cost of the
 * two launches it saves up to about this size (measured: docs/sts.md, "Small inputs").
 */
export const FUSED_OFFSETS_MAX_CELLS = 1 << 14;

function fuseOffsets(ctx: Pick<Ctx, 'device' | 'options' | 'nChannels'>, chunks: number): boolean {
  const forced: unknown = ctx.options.fuseOffsets;
  if (forced !== undefined && typeof forced !== 'boolean') throw new StsInputError(`fuseOffsets must be a boolean, got ${String(forced)}`);
  if (forced !== undefined) return forced;
  return ctx.device.backend !== 'webgpu' && chunks * ctx.nChannels <= FUSED_OFFSETS_MAX_CELLS;
}

async function chunkedSteps(ctx: Omit<Ctx, 'input' | 'out' | 'extra'>, layout: ChunkedLayout): Promise<void> {
  const { device, nChannels, launches } = ctx;
  const cs = chunkShape(ctx);
  const cells = nChannels * cs.threads;
  const fused = fuseOffsets(ctx, cs.threads);
  const counts = allocCells(ctx, cells);
  const colOff = allocCells(ctx, cells);
  const totals = fused ? undefined : allocCells(ctx, nChannels);
  const launch = async ([kernel, args]: [Kernel, KernelArg[]], shape: { grid: number; block: number }) => {
    launches.push(await device.launch(kernel, shape, args));
  };
  try {
    await withBad(ctx, async (bad) => {
      await launch(layout.count(counts, bad), cs);
      await checkBad(ctx, bad, layout.channels, layout.stride);
    });
    if (fused || !totals) {
      await launch(layout.fused(counts, colOff), cs);
      return;
    }
    await launch([ctx.k.stsColumnOffsets, [counts, colOff, totals, nChannels, cs.threads]], elementShape(ctx, nChannels));
    await exclusiveScan(device, totals, totals, nChannels, {}, launches);
    await launch(layout.scatter(colOff, totals), cs);
  } finally {
    counts.free(); colOff.free(); totals?.free();
  }
}

/** 'chunked' on interleaved words: stsCountChunks (layout 1) → … → stsScatterChunks. */
function sortChunked(ctx: Ctx): Promise<void> {
  const { input, out, n, nChannels, k } = ctx;
  return chunkedSteps(ctx, {
    channels: input, stride: 2,
    count: (counts, bad) => [k.stsCountChunks, [input, counts, n, nChannels, bad, 1]],
    scatter: (colOff, chanStart) => [k.stsScatterChunks, [input, out, colOff, chanStart, n, nChannels]],
    fused: (counts, colOff) => [k.stsScatterChunksFused, [input, out, counts, colOff, n, nChannels]],
  });
}

/**
 * 'chunked' over two arrays {channel, time}, in and out: stsCountChunksSoA → … →
 * stsScatterChunksSoA (kernels/sts/countingSort.ts). The scatter's last argument is the number
 * of digis it sorts: all n, since a bad digi stops the sort before the scatter.
 */
function sortChunkedColumns(ctx: Omit<Ctx, 'input' | 'out' | 'extra'>, input: StsDeviceDigis, out: StsDeviceDigis): Promise<void> {
  const { n, nChannels, k } = ctx;
  return chunkedSteps(ctx, {
    channels: input.channel, stride: 1,
    count: (counts, bad) => [k.stsCountChunksSoA, [input.channel, counts, n, nChannels, bad]],
    scatter: (colOff, chanStart) => [k.stsScatterChunksSoA, [input.channel, input.time, out.channel, out.time, colOff, chanStart, n, nChannels, n]],
    fused: (counts, colOff) => [k.stsScatterChunksFusedSoA, [input.channel, input.time, out.channel, out.time, counts, colOff, n, nChannels, n]],
  });
}

async function sortLocal(ctx: Ctx): Promise<void> {
  const { device, input, out, n, nChannels, launches } = ctx;
  const cs = chunkShape(ctx);
  const cells = nChannels * cs.threads;
  const counts = allocCells(ctx, cells);
  const local = allocCells(ctx, cells);
  const colOff = allocCells(ctx, cells);
  const totals = allocCells(ctx, nChannels);
  const tmp = device.alloc('u32', 2 * n);
  try {
    await withBad(ctx, async (bad) => {
      // stsCountChunks zeroes each thread's row of counts itself.
      launches.push(await device.launch(ctx.k.stsCountChunks, cs, [input, counts, n, nChannels, bad, 1]));
      await checkBad(ctx, bad, ctx.input, 2);
    });
    launches.push(await device.launch(ctx.k.stsLocalOffsets, cs, [counts, local, nChannels]));
    launches.push(await device.launch(ctx.k.stsLocalSort, cs, [input, tmp, local, n, nChannels]));
    launches.push(await device.launch(ctx.k.stsColumnOffsets, elementShape(ctx, nChannels), [counts, colOff, totals, nChannels, cs.threads]));
    await exclusiveScan(device, totals, totals, nChannels, {}, launches);
    launches.push(await device.launch(ctx.k.stsLocalMerge, cs, [tmp, out, counts, local, colOff, totals, n, nChannels]));
  } finally {
    counts.free(); local.free(); colOff.free(); totals.free(); tmp.free();
  }
}

/**
 * Merge rounds over runs `starts` (nRuns + 1 entries) between src and two buffers; returns the
 * buffer holding the result (src itself when there is one run).
 */
async function mergeRounds<D extends 'u32' | 'u64'>(
  ctx: Ctx, kernel: Kernel, src: DeviceArray<D>, bufA: DeviceArray<D>, bufB: DeviceArray<D>,
  starts: DeviceArray<'u32'>, nRuns: number,
): Promise<{ result: DeviceArray<D>; rounds: number }> {
  const { device, n, launches } = ctx;
  const per = ctx.options.mergeElementsPerThread ?? 256;
  const shape = elementShape(ctx, Math.ceil(n / per));
  let cur = src;
  let runs = nRuns;
  let s = starts;
  let s2 = device.alloc('u32', Math.ceil(nRuns / 2) + 1);
  let rounds = 0;
  try {
    while (runs > 1) {
      const dst = cur === bufA ? bufB : bufA;
      launches.push(await device.launch(kernel, shape, [cur, dst, s, runs, n, per]));
      const half = Math.ceil(runs / 2);
      launches.push(await device.launch(ctx.k.stsHalveRuns, elementShape(ctx, half + 1), [s, s2, runs, n]));
      [s, s2] = [s2, s];
      runs = half;
      cur = dst;
      rounds++;
    }
  } finally {
    (s === starts ? s2 : s).free();
  }
  return { result: cur, rounds };
}

async function sortMerge(ctx: Ctx): Promise<void> {
  const { device, input, out, n, nChannels, launches } = ctx;
  await withBad(ctx, async (bad) => {
    launches.push(await device.launch(ctx.k.stsCheckChannels, elementShape(ctx, n), [input, n, nChannels, bad]));
    await checkBad(ctx, bad, ctx.input, 2);
  });
  const flags = device.alloc('u32', n);
  let starts: DeviceArray<'u32'> | undefined;
  const tmp = device.alloc('u32', 2 * n);
  try {
    launches.push(await device.launch(ctx.k.stsRunFlags, elementShape(ctx, n), [input, flags, n]));
    const runs = await exclusiveScan(device, flags, flags, n, {}, launches);
    starts = device.alloc('u32', runs + 1);
    launches.push(await device.launch(ctx.k.stsRunStarts, elementShape(ctx, n), [input, flags, starts, n, runs]));
    flags.free();
    const { result, rounds } = await mergeRounds(ctx, ctx.k.stsMergeDigis, input, out, tmp, starts, runs);
    if (result !== out) {
      // Copy the result into out (one more merge-free pass: a round over a single run).
      const one = device.alloc('u32', 2);
      try {
        await one.upload(Uint32Array.of(0, n));
        launches.push(await device.launch(ctx.k.stsMergeDigis, elementShape(ctx, Math.ceil(n / 256)), [result, out, one, 1, n, 256]));
      } finally {
        one.free();
      }
    }
    ctx.extra.runs = runs;
    ctx.extra.rounds = rounds;
  } finally {
    if (!flags.freed) flags.free();
    starts?.free();
    tmp.free();
  }
}

async function sortKey(ctx: Ctx): Promise<void> {
  const { device, input, out, n, nChannels, launches } = ctx;
  await withBad(ctx, async (bad) => {
    launches.push(await device.launch(ctx.k.stsCheckChannels, elementShape(ctx, n), [input, n, nChannels, bad]));
    await checkBad(ctx, bad, ctx.input, 2);
  });
  // Default 512 threads (1024-key tiles), or the largest power of two the device allows (256 on
  // SwiftShader: 512-key tiles; the sorted result is the same).
  let fit = 512;
  while (fit > device.maxThreadsPerBlock) fit >>= 1;
  const tileBlock = ctx.options.tileBlock ?? fit;
  if (!Number.isInteger(tileBlock) || tileBlock < 1 || (tileBlock & (tileBlock - 1)) !== 0 || tileBlock > 1024 || 16 * tileBlock > device.sharedMemoryLimit) {
    throw new StsInputError(`tileBlock must be a power of two ≤ 1024 whose tile fits shared memory, got ${String(tileBlock)}`);
  }
  const tile = 2 * tileBlock;
  // Keys channel << 32 | time as little-endian u32 pairs (time, channel): a u64 array's bytes.
  const keys = device.alloc('u32', 2 * n);
  const tmp = device.alloc('u32', 2 * n);
  const nTiles = Math.ceil(n / tile);
  const starts = device.alloc('u32', nTiles + 1);
  try {
    launches.push(await device.launch(ctx.k.stsDigisToKeys, elementShape(ctx, n), [input, keys, n]));
    launches.push(await device.launch(ctx.k.stsTileSort, { grid: nTiles, block: tileBlock, sharedBytes: 8 * tile }, [keys, n]));
    launches.push(await device.launch(ctx.k.stsTileStarts, elementShape(ctx, nTiles + 1), [starts, nTiles, tile, n]));
    const { result, rounds } = await mergeRounds(ctx, ctx.k.stsMergeKeys, keys, tmp, keys, starts, nTiles);
    launches.push(await device.launch(ctx.k.stsKeysToDigis, elementShape(ctx, n), [result, out, n]));
    ctx.extra.runs = nTiles;
    ctx.extra.rounds = rounds;
  } finally {
    keys.free(); tmp.free(); starts.free();
  }
}
