// Host declarations of the hand-written pet kernels (assembly/kernels/pet/, seed 001), each a
// declared specialization of its generic kernel in kernels/pet/ (the read-back's petSplitSingles
// and petSplitPairs and the fused petMergeLevels are simt's own, with no seed kernel). Singles are
// SinglesStruct records of 16 bytes ({u32 crystal, f32 energy, f64 time}) held in u32[]
// arrays of 4 words per single; pairs are 32-byte CoinStruct records (8 words).
import { defineKernel } from '../kernel.js';

/** Launch shapes the pipeline uses (the seed's defaults where it gives them). */
export const PET_SHAPES = {
  /** convertUdpToSinglesKernel: threadsConvert × elemsConvert. */
  convertThreads: 128,
  convertElems: 32,
  /** runMergeSortKernel: THREADS_MERGESORT × ELEMS_MERGESORT = 1024-element tiles. */
  sortThreads: 512,
  sortTile: 1024,
  /** SUB_BLOCK_SIZE: rank samples and merge tiles. */
  subBlock: 256,
  /** Coincidence kernels: THREAD_NUM × THREAD_ELEM. */
  coinThreads: 256,
  coinElems: 16,
} as const;

/** Geometry words of petConvert's `geometry` argument, in order. */
export const PET_GEOMETRY_WORDS = [
  'bdmCount', 'duNum', 'positionSize', 'crystalsPerDu', 'bdmPerRing', 'blockNumY', 'blockNumZ',
  'crystalNumY', 'crystalNumZ', 'crystalsPerRing',
] as const;

// petCrystalLut ((bdm, du, origin) → [global crystal, energy-table row start]) and petPadSingles
// (addPadding) are only the generic kernels of kernels/pet/ (simt's shipped module: shippedKernels).
/**
 * convertUdpToSinglesKernel. Block 128 threads × `elems` frames; shared compactionSharedBytes(block).
 * counter[0] += kept singles; badFrame[0] = min index of an out-of-geometry frame (init 2³¹-1).
 */
export const petConvert = defineKernel('petConvert', {
  frames: 'u8[]', n: 'i32', dst: 'u32[]', dstBuffer: 'u32[]', counter: 'u32[]', positionTable: 'u8[]', lut: 'u32[]',
  energyTable: 'f32[]', geometry: 'u32[]', eLow: 'f64', eHigh: 'f64', useWindow: 'i32', badFrame: 'i32[]', elems: 'i32',
}, { specializes: { generic: 'petConvert', orderFree: [{ param: 'dst', from: 0, itemElements: 4 }] } });
/** runMergeSortKernel: grid n2/1024, block 512, shared 32 KiB. */
export const petSortTiles = defineKernel('petSortTiles', { data: 'u32[]', n: 'i32' }, { specializes: { generic: 'petSortTiles' } });
/** generateRanksKernel: one thread per 256 elements (n2/256 threads), block 256. */
export const petMergeRanks = defineKernel('petMergeRanks', {
  data: 'u32[]', ranksEven: 'u32[]', ranksOdd: 'u32[]', sortedBlockSize: 'i32', n: 'i32', n2: 'i32',
}, { specializes: { generic: 'petMergeRanks' } });
/** mergeKernel: grid (2S/256, n2/2S), block 256, shared 8 KiB. */
export const petMergeBlocks = defineKernel('petMergeBlocks', {
  data: 'u32[]', out: 'u32[]', ranksEven: 'u32[]', ranksOdd: 'u32[]', sortedBlockSize: 'i32', n: 'i32',
}, { specializes: { generic: 'petMergeBlocks' } });
/**
 * `levels` merge passes S, 2S, … in one launch, one block per group of S·2^levels singles
 * (whole-run merges in cache: the host's wasm path); same bytes in both buffers as the passes.
 */
export const petMergeLevels = defineKernel('petMergeLevels', {
  data: 'u32[]', out: 'u32[]', sortedBlockSize: 'i32', levels: 'i32', n: 'i32',
}, { specializes: { generic: 'petMergeLevels' } });
/** CoinTimeKernel: block 256 × elems singles. */
export const petCoinNextIndex = defineKernel('petCoinNextIndex', { data: 'u32[]', nextIndex: 'i32[]', n: 'i32', window: 'f64', elems: 'i32' }, { specializes: { generic: 'petCoinNextIndex' } });
/** SelectKernel: block 256 × elems singles. */
export const petCoinSelect = defineKernel('petCoinSelect', { data: 'u32[]', nextIndex: 'i32[]', n: 'i32', window: 'f64', elems: 'i32' }, { specializes: { generic: 'petCoinSelect' } });
/** FillDataKernel (count + block scan), every thread at the barriers. Shared blockScanSharedBytes(block). */
export const petCoinCount = defineKernel('petCoinCount', {
  nextIndex: 'i32[]', n: 'i32', scanId: 'u32[]', globalLen: 'u32[]', newLength: 'u32[]', elems: 'i32',
}, { specializes: { generic: 'petCoinCount' } });
/** CorrectPosKernel with block offsets from a device scan of globalLen. */
export const petCoinFill = defineKernel('petCoinFill', {
  data: 'u32[]', pairs: 'u32[]', pairFirst: 'u32[]', nextIndex: 'i32[]', n: 'i32', scanId: 'u32[]', blockOffsets: 'u32[]', elems: 'i32',
}, { specializes: { generic: 'petCoinFill' } });
/** SinglesStruct[n] → crystal/energy/time arrays (the read-back, simt's own; kernels/pet/split.ts); grid-stride. */
export const petSplitSingles = defineKernel('petSplitSingles', { src: 'u32[]', n: 'i32', crystal: 'u32[]', energy: 'f32[]', time: 'f64[]' }, { specializes: { generic: 'petSplitSingles' } });
/** CoinStruct[n] + each pair's first single → the pair table's columns (index1 = first + 1; kernels/pet/split.ts); grid-stride. */
export const petSplitPairs = defineKernel('petSplitPairs', {
  pairs: 'u32[]', first: 'u32[]', n: 'i32', index1: 'u32[]', crystal0: 'u32[]', crystal1: 'u32[]',
  energy0: 'f32[]', energy1: 'f32[]', time0: 'f64[]', time1: 'f64[]',
}, { specializes: { generic: 'petSplitPairs' } });
