/**
 * The PET job of seed 001 on any GpuDevice: raw DataFrameV2 frames → singles (convert) →
 * time-sorted singles (merge sort) → coincidence pairs (four kernels). Inputs are validated
 * before anything is launched; frames whose fields fall outside the geometry are found by the
 * conversion kernel and reported (PetFrameError) before any result is returned.
 * Kernels and launch shapes: src/kernels/pet.ts; interpretations of the seed: docs/pet.md.
 */
import type { GpuDevice, LaunchStats } from '../../deviceApi.js';
import type { DeviceArray } from '../../memory/deviceArray.js';
import { compactionSharedBytes, blockScanSharedBytes } from '../../kernels/primitives.js';
import {
  PET_SHAPES, petCoinCount, petCoinFill, petCoinNextIndex, petCoinSelect, petConvert, petMergeBlocks,
  petMergeLevels, petMergeRanks, petSortTiles, petSplitPairs, petSplitSingles,
} from '../../kernels/pet.js';
import { shippedKernels } from '../../shippedModule.js';
import { deviceExclusiveScan } from '../../ops/scan.js';
import { readElement } from '../../memory/hostAccess.js';
import { FRAME_BYTES, frameCount } from './format.js';
import { geometrySizes, type PetGeometry, validateGeometry, validateTables } from './geometry.js';
import {
  CoincidenceOptionsError, type CoincidencePairs, DEFAULT_COINCIDENCE_WINDOW, DEFAULT_ENERGY_WINDOW, PetFrameError,
} from './reference.js';

export interface PetTables {
  /** uint8 position table: bdmCount × duNum × positionSize² entries. */
  positionTable: Uint8Array;
  /** float32 energy-correction table: bdmCount × duNum × crystalSize² × 1000 factors. */
  energyTable: Float32Array;
}

export interface PetRunOptions {
  /** Energy window [low, high] (inclusive, corrected energy), or null for none. Default [350, 650]. */
  energyWindow?: readonly [number, number] | null;
  /** Coincidence window in time ticks (default 4000 = 4 ns at 1 ps per tick); `<=`. */
  window?: number;
  /** Called after each stage and each merge pass: (stage, done, total). */
  onProgress?: (stage: string, done: number, total: number) => void;
  /**
   * 'host' (default): `singles` and `sorted` are host copies. 'mapped': they are views of device
   * arrays the result keeps (no copy, see DeviceArray.view) until `result.free()` or the device
   * is destroyed; on a device without host mapping (webgpu) they are copies all the same.
   */
  output?: 'host' | 'mapped';
}

/** SinglesStruct as a structure of arrays. */
export interface PetSingles {
  crystal: Uint32Array;
  energy: Float32Array;
  time: Float64Array;
}

export interface PetTimings {
  upload: number;
  convert: number;
  sort: number;
  coincidences: number;
  download: number;
  total: number;
}

export interface PetRunResult {
  /** Convert's output: the kept singles, blocks in atomicAdd order (schedule dependent). */
  singles: PetSingles;
  /** Stable sort of `singles` by time. */
  sorted: PetSingles;
  /** Coincidence pairs over `sorted`: pair k = (sorted[index0[k]], sorted[index0[k] + 1]). */
  pairs: CoincidencePairs;
  /** Wall-clock milliseconds per stage (launches and the small counter reads they need). */
  timings: PetTimings;
  frames: number;
  /** Merge passes after the 1024-tile sort. */
  mergePasses: number;
  launches: LaunchStats[];
  /** True when `singles`/`sorted` are views of device memory (`output: 'mapped'` on a host-mapped device). */
  mapped: boolean;
  /** Frees the device arrays a mapped result's views show (their contents are then undefined); a no-op otherwise. */
  free(): void;
}

export class PetOptionsError extends Error {
  constructor(message: string) { super(message); this.name = 'PetOptionsError'; }
}

const NO_BAD_FRAME = 0x7fffffff;

/** Singles per petMergeLevels group (2 × 512 KiB: the group stays in L2 across its passes). */
export const MERGE_GROUP = 32768;
/** Higher merge passes fused per petMergeLevels launch, while there are ≥ 4 groups per worker. */
const FUSE_HIGH = 4;

function nextPow2(x: number): number { let p = 1; while (p < x) p *= 2; return p; }

/**
 * The sort stage on its own (parallelMergeSort): sorts the m SinglesStruct records of `a` by
 * time, stably, ping-ponging with `b`. Both buffers must hold max(2^⌈log₂m⌉, 1024) records;
 * [m, n2) of both is overwritten with padding. Returns the buffer holding the result.
 */
export async function sortSinglesByTime(device: GpuDevice, a: DeviceArray<'u32'>, b: DeviceArray<'u32'>, m: number,
  options: { onPass?: (pass: number, total: number) => void; launches?: LaunchStats[]; perPass?: boolean } = {}):
  Promise<{ result: DeviceArray<'u32'>; mergePasses: number }> {
  const n2 = Math.max(nextPow2(m), PET_SHAPES.sortTile);
  if (a.length < 4 * n2 || b.length < 4 * n2) throw new PetOptionsError(`sortSinglesByTime: buffers need ${n2} records (4 words each)`);
  const launches = options.launches ?? [];
  const launch = async (...x: Parameters<GpuDevice['launch']>) => { const st = await device.launch(...x); launches.push(st); return st; };
  let data = a, other = b;
  let passes = 0;
  if (m <= 1) return { result: a, mergePasses: 0 };
  // addPadding and the crystal table are the generic kernels of kernels/pet/ (simt's own module).
  await launch((await shippedKernels(device)).petPadSingles!, { grid: Math.min(1024, Math.ceil((n2 - m) / 256) || 1), block: 256 }, [a, b, m, n2]);
  await launch(petSortTiles, { grid: n2 / PET_SHAPES.sortTile, block: PET_SHAPES.sortThreads, sharedBytes: 2 * PET_SHAPES.sortTile * 16 }, [data, m]);
  const sub = PET_SHAPES.subBlock;
  const totalPasses = Math.max(0, Math.ceil(Math.log2(m / PET_SHAPES.sortTile)));
  const ranksEven = device.alloc('u32', n2 / sub);
  const ranksOdd = device.alloc('u32', n2 / sub);
  try {
    let S = PET_SHAPES.sortTile;
    if (device.backend === 'wasm' && !options.perPass) {
      // The low passes, where runs really interleave, fused per cache-sized group (petMergeLevels):
      // the same bytes in both buffers as the per-pass launches below.
      let levels = 0;
      while ((S << (levels + 1)) <= MERGE_GROUP && (S << levels) < m) levels++;
      if (levels > 0) {
        await launch(petMergeLevels, { grid: n2 / (S << levels), block: 1 }, [data, other, S, levels, m]);
        if (levels & 1) [data, other] = [other, data];
        S <<= levels;
        passes += levels;
        options.onPass?.(passes, totalPasses);
      }
      // Higher passes: mostly copies (the runs interleave in narrow bands that mergeRuns trims
      // to); fused FUSE_HIGH at a time while there are enough groups to keep the workers busy;
      // the top passes keep the per-pass launches (their 256-element segments spread over all workers).
      const minGroups = 4 * device.workers;
      while (S < m) {
        let lv = 0;
        while (lv < FUSE_HIGH && (S << lv) < m && n2 / (S << (lv + 1)) >= minGroups) lv++;
        if (lv < 2) break;
        await launch(petMergeLevels, { grid: n2 / (S << lv), block: 1 }, [data, other, S, lv, m]);
        if (lv & 1) [data, other] = [other, data];
        S <<= lv;
        passes += lv;
        options.onPass?.(passes, totalPasses);
      }
    }
    for (; S < m; S *= 2) {
      await launch(petMergeRanks, { grid: Math.ceil(n2 / sub / 256), block: 256 }, [data, ranksEven, ranksOdd, S, m, n2]);
      await launch(petMergeBlocks, { grid: { x: (2 * S) / sub, y: n2 / (2 * S) }, block: sub, sharedBytes: 2 * sub * 16 },
        [data, other, ranksEven, ranksOdd, S, m]);
      [data, other] = [other, data];
      passes++;
      options.onPass?.(passes, totalPasses);
    }
  } finally {
    ranksEven.free();
    ranksOdd.free();
  }
  return { result: data, mergePasses: passes };
}

/**
 * Bytes of device memory runPet needs for n frames (upper bound). With `output: 'mapped'` the
 * split singles and sorted singles stay allocated until the result is freed: 2 × 16 bytes per
 * record more.
 */
export function petMemoryBytes(nFrames: number, geometry: PetGeometry, output: 'host' | 'mapped' = 'host'): number {
  const s = geometrySizes(geometry);
  const cap = Math.max(nextPow2(nFrames), PET_SHAPES.sortTile);
  return (output === 'mapped' ? 2 * cap * 16 : 0) + nFrames * FRAME_BYTES + 3 * cap * 16 /* two buffers + the split read-back */ + cap * 4 /* nextIndex */ + (cap / 2) * 72 /* pairs: records, first singles, columns */ +
    s.positionTableLength + s.energyTableLength * 4 + (s.positionTableLength / (geometry.positionSize ** 2)) * 256 * 8 +
    (cap / 128) * 8 + (1 << 20);
}

/**
 * Reads `count` SinglesStruct records of `buf` as three arrays, split on the device. With `held`
 * (a host-mapped device) the arrays are views of the split device arrays, which are pushed on
 * `held` for the caller to free: no copy. Otherwise they are host copies.
 */
async function readSingles(device: GpuDevice, buf: DeviceArray<'u32'>, count: number, launches: LaunchStats[],
                           held?: DeviceArray[]): Promise<PetSingles> {
  if (count === 0) return { crystal: new Uint32Array(0), energy: new Float32Array(0), time: new Float64Array(0) };
  const c = device.alloc('u32', count), e = device.alloc('f32', count), t = device.alloc('f64', count);
  let keep = false;
  try {
    launches.push(await device.launch(petSplitSingles, { grid: Math.min(4096, Math.ceil(count / 256)), block: 256 }, [buf, count, c, e, t]));
    if (held && device.hostMapped) {
      held.push(c, e, t);
      keep = true;
      return { crystal: c.view(), energy: e.view(), time: t.view() };
    }
    return { crystal: await c.read(), energy: await e.read(), time: await t.read() };
  } finally {
    if (!keep) { c.free(); e.free(); t.free(); }
  }
}

const NO_PAIRS: CoincidencePairs = {
  count: 0, index0: new Uint32Array(0), index1: new Uint32Array(0), crystal0: new Uint32Array(0), crystal1: new Uint32Array(0),
  energy0: new Float32Array(0), energy1: new Float32Array(0), time0: new Float64Array(0), time1: new Float64Array(0),
};

/**
 * The pair table of `count` CoinStruct records of `pairs` (and each one's first single,
 * `first`), split into its columns on the device (petSplitPairs). With `held` (a host-mapped
 * device) the columns are views of device arrays pushed on `held` for the caller to free (index0
 * is `first` itself, which the caller holds): no copy, no regrouping on the host. Otherwise they
 * are host copies.
 */
async function readPairs(device: GpuDevice, pairs: DeviceArray<'u32'>, first: DeviceArray<'u32'>, count: number,
                         launches: LaunchStats[], held?: DeviceArray[]): Promise<CoincidencePairs> {
  if (count === 0) return NO_PAIRS;
  const u32 = () => device.alloc('u32', count), f32 = () => device.alloc('f32', count), f64 = () => device.alloc('f64', count);
  const cols = { index1: u32(), crystal0: u32(), crystal1: u32(), energy0: f32(), energy1: f32(), time0: f64(), time1: f64() };
  const all = Object.values(cols);
  let keep = false;
  try {
    launches.push(await device.launch(petSplitPairs, { grid: Math.min(4096, Math.ceil(count / 256)), block: 256 },
      [pairs, first, count, cols.index1, cols.crystal0, cols.crystal1, cols.energy0, cols.energy1, cols.time0, cols.time1]));
    if (held && device.hostMapped) {
      held.push(...all);
      keep = true;
      return {
        count, index0: first.view(), index1: cols.index1.view(), crystal0: cols.crystal0.view(), crystal1: cols.crystal1.view(),
        energy0: cols.energy0.view(), energy1: cols.energy1.view(), time0: cols.time0.view(), time1: cols.time1.view(),
      };
    }
    return {
      count, index0: await first.read(0, count), index1: await cols.index1.read(), crystal0: await cols.crystal0.read(),
      crystal1: await cols.crystal1.read(), energy0: await cols.energy0.read(), energy1: await cols.energy1.read(),
      time0: await cols.time0.read(), time1: await cols.time1.read(),
    };
  } finally {
    if (!keep) for (const a of all) a.free();
  }
}

/** Why frame i (whose 16 bytes start at `o` of `frames`) addresses outside the geometry. */
function describeBadFrame(frames: Uint8Array, i: number, g: PetGeometry, o = i * FRAME_BYTES): string {
  const s = geometrySizes(g);
  const du = frames[o]! & 0x0f, bdm = frames[o + 1]!, x = frames[o + 10]!, y = frames[o + 11]!;
  if (bdm >= s.bdmCount) return `frame ${i}: BDM ${bdm} >= BDM count ${s.bdmCount}`;
  if (du >= g.duNum) return `frame ${i}: DU ${du} >= DU count ${g.duNum}`;
  return `frame ${i}: position (${x}, ${y}) outside the ${g.positionSize} x ${g.positionSize} flood map`;
}

/** Checks everything runPet can check on the host; throws the typed errors of format.ts/geometry.ts/reference.ts. */
export function validatePetInputs(frames: Uint8Array | DeviceArray<'u8'>, geometry: PetGeometry, tables: PetTables, options: PetRunOptions = {}):
  { n: number; geometry: Readonly<PetGeometry>; energyWindow: readonly [number, number] | null; window: number } {
  if (!(frames instanceof Uint8Array) && !(isDeviceArray(frames) && frames.dtype === 'u8')) {
    throw new PetOptionsError('frames must be a Uint8Array of 16-byte DataFrameV2 records, or a u8 device array of them');
  }
  const n = frameCount(frames);
  const g = validateGeometry(geometry);
  if (tables === null || typeof tables !== 'object') throw new PetOptionsError('tables must be { positionTable, energyTable }');
  validateTables(g, tables.positionTable, tables.energyTable);
  const win = options.energyWindow === undefined ? DEFAULT_ENERGY_WINDOW : options.energyWindow;
  if (win !== null && (!Array.isArray(win) || win.length !== 2 || typeof win[0] !== 'number' || typeof win[1] !== 'number' ||
      Number.isNaN(win[0]) || Number.isNaN(win[1]) || !(win[0] <= win[1]))) {
    throw new CoincidenceOptionsError(`energyWindow must be [low, high] with low <= high, got ${JSON.stringify(win)}`);
  }
  const w = options.window ?? DEFAULT_COINCIDENCE_WINDOW;
  if (typeof w !== 'number' || !Number.isFinite(w) || w < 0) {
    throw new CoincidenceOptionsError(`coincidence window must be a finite number >= 0, got ${String(w)}`);
  }
  if (n > 2 ** 27) throw new PetOptionsError(`${n} frames: at most 2^27 fit the 4 GiB device memory`);
  return { n, geometry: g, energyWindow: win, window: w };
}

function isDeviceArray(x: unknown): x is DeviceArray {
  return typeof x === 'object' && x !== null && 'dtype' in x && 'byteOffset' in x && typeof (x as DeviceArray).read === 'function';
}

/**
 * Runs the whole PET job. Device memory needed: petMemoryBytes(n, geometry, options.output).
 * `frames` may already be on the device (a u8 array of `device`, filled through `view()` or
 * read from a file into it): then nothing is uploaded and the array is left as it was.
 */
export async function runPet(device: GpuDevice, frames: Uint8Array | DeviceArray<'u8'>, geometry: PetGeometry, tables: PetTables,
                             options: PetRunOptions = {}): Promise<PetRunResult> {
  const v = validatePetInputs(frames, geometry, tables, options);
  const g = v.geometry;
  const n = v.n;
  const s = geometrySizes(g);
  const progress = options.onProgress ?? (() => undefined);
  const launches: LaunchStats[] = [];
  const owned: DeviceArray[] = [];
  const keep = <T extends DeviceArray>(a: T): T => { owned.push(a); return a; };
  // output 'mapped': the split singles stay on the device and the result's views show them.
  const held: DeviceArray[] | undefined = options.output === 'mapped' && device.hostMapped ? [] : undefined;
  let returned = false;
  const finish = (r: Omit<PetRunResult, 'mapped' | 'free'>): PetRunResult => {
    returned = true;
    const arrays = held ?? [];
    return { ...r, mapped: held !== undefined, free: () => { for (const a of arrays.splice(0)) if (!a.freed) a.free(); } };
  };
  const launch = async (...a: Parameters<GpuDevice['launch']>) => { const st = await device.launch(...a); launches.push(st); return st; };
  const t0 = performance.now();
  try {
    // ---- upload
    const dFrames = frames instanceof Uint8Array ? keep(await device.upload('u8', n > 0 ? frames : new Uint8Array(16))) : frames;
    const dPos = keep(await device.upload('u8', tables.positionTable));
    const dEnergy = keep(await device.upload('f32', tables.energyTable));
    const geoWords = new Uint32Array([s.bdmCount, g.duNum, g.positionSize, s.crystalsPerDu, s.bdmPerRing, g.blockNumY,
      g.blockNumZ, g.crystalNumY, g.crystalNumZ, s.crystalsPerRing]);
    const dGeo = keep(await device.upload('u32', geoWords));
    const cap = Math.max(nextPow2(n), PET_SHAPES.sortTile);
    const bufA = keep(device.alloc('u32', 4 * cap));
    const bufB = keep(device.alloc('u32', 4 * cap));
    const counters = keep(await device.upload('u32', new Uint32Array([0, 0, 0, 0])));
    const badFrame = keep(await device.upload('i32', new Int32Array([NO_BAD_FRAME])));
    const t1 = performance.now();

    // ---- convert
    const lutCount = s.bdmCount * g.duNum * s.crystalsPerDu;
    const dLut = keep(device.alloc('u32', 2 * lutCount));
    await launch((await shippedKernels(device)).petCrystalLut!, { grid: Math.ceil(lutCount / 256), block: 256 }, [dGeo, dLut, lutCount]);
    const ct = PET_SHAPES.convertThreads, ce = PET_SHAPES.convertElems;
    if (n > 0) {
      const win = v.energyWindow;
      await launch(petConvert, { grid: Math.ceil(n / (ct * ce)), block: ct, sharedBytes: compactionSharedBytes(ct) },
        [dFrames, n, bufA, bufB, counters, dPos, dLut, dEnergy, dGeo, win ? win[0] : 0, win ? win[1] : 0, win ? 1 : 0, badFrame, ce]);
    }
    const bad = await readElement(badFrame, 0);
    if (bad !== NO_BAD_FRAME) {
      throw new PetFrameError(frames instanceof Uint8Array ? describeBadFrame(frames, bad, g)
        : describeBadFrame(await frames.read(bad * FRAME_BYTES, (bad + 1) * FRAME_BYTES), bad, g, 0));
    }
    const m = await readElement(counters, 0);
    const t2 = performance.now();
    progress('convert', 1, 1);
    const tr0 = performance.now();
    const singles = await readSingles(device, bufA, m, launches, held);
    let download = performance.now() - tr0;
    const tSort = performance.now();

    // ---- sort (stable, by time)
    const sortOut = await sortSinglesByTime(device, bufA, bufB, m, { onPass: (p, t) => progress('sort', p, t), launches });
    const data = sortOut.result;
    const passes = sortOut.mergePasses;
    const t3 = performance.now();
    const tr1 = performance.now();
    const sorted = m <= 1 ? singles : await readSingles(device, data, m, launches, held);
    download += performance.now() - tr1;

    // ---- coincidences
    const cth = PET_SHAPES.coinThreads, cel = PET_SHAPES.coinElems;
    const t4 = performance.now();
    let pairs: CoincidencePairs;
    if (m >= 2) {
      const nextIndex = keep(device.alloc('i32', m));
      const gridA = Math.ceil(m / (cth * cel));
      await launch(petCoinNextIndex, { grid: gridA, block: cth }, [data, nextIndex, m, v.window, cel]);
      await launch(petCoinSelect, { grid: gridA, block: cth }, [data, nextIndex, m, v.window, cel]);
      const threads = Math.ceil(m / cel);
      const gridB = Math.ceil(threads / cth);
      const scanId = keep(device.alloc('u32', gridB * cth));
      const globalLen = keep(device.alloc('u32', gridB));
      const newLength = keep(await device.upload('u32', new Uint32Array([0])));
      await launch(petCoinCount, { grid: gridB, block: cth, sharedBytes: blockScanSharedBytes(cth) },
        [nextIndex, m, scanId, globalLen, newLength, cel]);
      const nPairs = await readElement(newLength, 0);
      launches.push(...await deviceExclusiveScan(device, globalLen, globalLen, gridB));
      const dPairs = keep(device.alloc('u32', Math.max(1, 8 * nPairs)));
      // A mapped result's index0 column: freed with the result, not here.
      const dFirst = device.alloc('u32', Math.max(1, nPairs));
      (held ?? owned).push(dFirst);
      await launch(petCoinFill, { grid: gridB, block: cth }, [data, dPairs, dFirst, nextIndex, m, scanId, globalLen, cel]);
      const t5 = performance.now();
      progress('coincidences', 1, 1);
      pairs = await readPairs(device, dPairs, dFirst, nPairs, launches, held);
      download += performance.now() - t5;
      const t6 = performance.now();
      return finish({
        singles, sorted, pairs, frames: n, mergePasses: passes, launches,
        timings: { upload: t1 - t0, convert: t2 - t1, sort: t3 - tSort, coincidences: t5 - t4, download, total: t6 - t0 },
      });
    }
    pairs = NO_PAIRS;
    const t6 = performance.now();
    return finish({
      singles, sorted, pairs, frames: n, mergePasses: passes, launches,
      timings: { upload: t1 - t0, convert: t2 - t1, sort: t3 - tSort, coincidences: t6 - t4, download, total: t6 - t0 },
    });
  } finally {
    for (const a of owned) if (!a.freed) a.free();
    if (!returned) for (const a of held ?? []) if (!a.freed) a.free();
  }
}
