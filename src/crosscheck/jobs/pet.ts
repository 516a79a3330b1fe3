// Cross-check job `pet`: the stages of the PET pipeline (seed 001) that have WGSL twins, run on
// every backend from the same inputs.
//
// - `scan`: deviceExclusiveScan (simt's one scan, kernels/primitives/scan.ts) of random u32
//   (wrapping sums): exact.
// - `compacted`, `compactedCount`: compactNonZeroU32 (block scan + one atomicAdd per block) over
//   the same words with ~40% zeros: the count exactly; the output as a multiset, since blocks
//   reserve their ranges in atomicAdd order (schedule dependent).
// - `lut`, `converted`, `singles`, `singlesCount`, `badFrame`: the convert stage (petCrystalLut,
//   petConvert) over `size` synthetic frames (generatePetData, default geometry, window
//   350–650): the table, every frame's uncompacted record and the counters exactly; the kept
//   singles as a multiset of 16-byte records (both sides sorted by time, crystal, energy, then
//   exact). Times are the f64 bit patterns (two u32 words), compared as integers.
// - `coinNextIndex`, `coinSelected`, `coinScanId`, `coinGlobalLen`, `pairs`, `pairFirst`,
//   `pairsCount`: the coincidence stage (petCoinNextIndex, petCoinSelect, petCoinCount, device
//   scan, petCoinFill) over `size` time-sorted records in chains of 1–4 (coincidenceRecords,
//   window 4000 ticks): all exact (one thread per chain; pairs land by a scan, not atomics).
// - `sortTiles`, `sortRanks`, `sorted`: the sort stage (petPadSingles, petSortTiles, petMergeRanks,
//   petMergeBlocks; runPetSortStage) over the convert stage's `converted` records (every frame,
//   in frame order: an input that does not depend on the schedule): the tiles after
//   petSortTiles, every merge pass's ranks and the sorted records, all exact (a stable sort and
//   its rank searches are deterministic).
import { deviceExclusiveScan } from '../../ops/scan.js';
import { compactionSharedBytes } from '../../kernels/primitives.js';
import { shippedKernels } from '../../shippedModule.js';
import type { GpuDevice } from '../../deviceApi.js';
import type { Job } from '../types.js';
import { Xoshiro128ss } from '../../data/random.js';
import { generatePetData } from '../../jobs/pet/generate.js';
import { DEFAULT_GEOMETRY, type PetGeometry } from '../../jobs/pet/geometry.js';
import { canonicalNaNEnergies, runPetConvertStage, sortRecords } from '../../jobs/pet/convertStage.js';
import { coincidenceRecords, runPetCoincidenceStage } from '../../jobs/pet/coincidenceStage.js';
import { runPetSortStage } from '../../jobs/pet/sortStage.js';

export interface PetInputs {
  /** Random u32 words, ~40% zero (scan input and compaction input). */
  words: Uint32Array;
  /** DataFrameV2 frames and the tables for the convert stage. */
  frames: Uint8Array;
  geometry: PetGeometry;
  positionTable: Uint8Array;
  energyTable: Float32Array;
  energyWindow: readonly [number, number] | null;
  /** Time-sorted SinglesStruct records for the coincidence stage, and its window (ticks). */
  sortedRecords: Uint32Array;
  window: number;
}

/** Synthetic PET inputs of `nFrames` frames (generatePetData; nFrames may be 0). */
export function petFrames(nFrames: number, seed: number): Pick<PetInputs, 'frames' | 'geometry' | 'positionTable' | 'energyTable'> {
  const d = generatePetData({ nFrames, seed, geometry: DEFAULT_GEOMETRY });
  return { frames: d.frames, geometry: d.geometry, positionTable: d.positionTable, energyTable: d.energyTable };
}

export const PET_COMPACT_BLOCK = 256;
export const PET_COMPACT_ITEMS = 8;

/**
 * Random u32 words; about `zeros` of them are 0, some near 2³² (so the scan wraps). Drawn from
 * `Xoshiro128ss((seed ^ 0x9e3779b9) >>> 0)` (a stream apart from petFrames' of the same seed): per
 * word `r = nextU32()`; the word is 0 when `r * 2^-32 < zeros`, else `v = nextU32()` and the word is
 * `v`, `2^32 - 1 - (v & 0xff)` or `(v & 0xffff) + 1` for `r & 3` = 0, 1, other.
 */
export function petWords(n: number, seed: number, zeros = 0.4): Uint32Array {
  const rng = new Xoshiro128ss((seed ^ 0x9e3779b9) >>> 0);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const r = rng.nextU32();
    if (r / 2 ** 32 < zeros) continue;
    const v = rng.nextU32();
    out[i] = (r & 3) === 0 ? v : (r & 3) === 1 ? (0xffffffff - (v & 0xff)) >>> 0 : (v & 0xffff) + 1;
  }
  return out;
}

/** compactNonZeroU32 (kernels/primitives/compaction.ts) over `words`: the kept words (in the backend's order) and the counter. */
export async function compactOnDevice(device: GpuDevice, words: Uint32Array): Promise<{ compacted: Uint32Array; count: number }> {
  const { compactNonZeroU32 } = await shippedKernels(device);
  const n = words.length;
  const input = await device.upload('u32', n ? words : new Uint32Array(1));
  const output = device.alloc('u32', Math.max(1, n));
  const counter = await device.upload('u32', new Uint32Array([0]));
  try {
    const grid = Math.max(1, Math.ceil(n / (PET_COMPACT_BLOCK * PET_COMPACT_ITEMS)));
    await device.launch(compactNonZeroU32!, { grid, block: PET_COMPACT_BLOCK, sharedBytes: compactionSharedBytes(PET_COMPACT_BLOCK) },
      [input, n, output, counter, PET_COMPACT_ITEMS]);
    const count = (await counter.read())[0]!;
    const all = await output.read();
    return { compacted: all.slice(0, Math.min(count, n)), count };
  } finally {
    input.free(); output.free(); counter.free();
  }
}

/** deviceExclusiveScan over `words` (a copy on the device; `output` distinct from `input`). */
export async function scanOnDevice(device: GpuDevice, words: Uint32Array): Promise<Uint32Array> {
  const n = words.length;
  if (n === 0) return new Uint32Array(0);
  const input = await device.upload('u32', words);
  const output = device.alloc('u32', n);
  try {
    await deviceExclusiveScan(device, input, output, n);
    return await output.read();
  } finally {
    input.free(); output.free();
  }
}

export const petJob: Job<PetInputs> = {
  name: 'pet',
  description: 'PET pipeline stages with WGSL twins: device scan, compaction, convert (atomics-ordered outputs as multisets), coincidences and merge sort (exact)',
  defaultSize: 1 << 16,
  edgeSizes: [0, 1, 2, 3, 255, 256, 257, 2047, 2048, 2049, 2048 * 4 + 3],
  generate: (n, seed) => ({
    words: petWords(n, seed), ...petFrames(n, seed), energyWindow: [350, 650], sortedRecords: coincidenceRecords(n, seed, 4000), window: 4000,
  }),
  async run(device, inp) {
    const scan = await scanOnDevice(device, inp.words);
    const { compacted, count } = await compactOnDevice(device, inp.words);
    const c = await runPetConvertStage(device, inp.frames, inp.geometry, inp, inp.energyWindow);
    return {
      scan, compacted, compactedCount: count,
      lut: c.lut, converted: canonicalNaNEnergies(c.converted), singles: sortRecords(c.singles), singlesCount: c.count, badFrame: c.badFrame,
      ...await (async () => {
        // The sort input: every converted frame, in frame order (schedule independent).
        const recs = canonicalNaNEnergies(c.converted);
        const st = await runPetSortStage(device, recs);
        const ranks = st.passes.flatMap((p) => [...p.ranksEven, ...p.ranksOdd]);
        return { sortTiles: st.tiles, sortRanks: Uint32Array.from(ranks), sorted: st.sorted };
      })(),
      ...await (async () => {
        const k = await runPetCoincidenceStage(device, inp.sortedRecords, inp.window);
        return {
          coinNextIndex: k.nextIndex, coinSelected: k.selected, coinScanId: k.scanId, coinGlobalLen: k.globalLen,
          pairs: k.pairs, pairFirst: k.pairFirst, pairsCount: k.count,
        };
      })(),
    };
  },
  compare: () => ({
    scan: { kind: 'exact' }, compacted: { kind: 'multiset' }, compactedCount: { kind: 'exact' },
    lut: { kind: 'exact' }, converted: { kind: 'exact' }, singles: { kind: 'exact' }, singlesCount: { kind: 'exact' }, badFrame: { kind: 'exact' },
    coinNextIndex: { kind: 'exact' }, coinSelected: { kind: 'exact' }, coinScanId: { kind: 'exact' }, coinGlobalLen: { kind: 'exact' },
    pairs: { kind: 'exact' }, pairFirst: { kind: 'exact' }, pairsCount: { kind: 'exact' },
    sortTiles: { kind: 'exact' }, sortRanks: { kind: 'exact' }, sorted: { kind: 'exact' },
  }),
};
