// Seed 001's GPU merge sort of singles by time (parallelMergeSort), per thread as the seed's
// kernels are written. Records: kernels/pet/records.ts. Host side: src/jobs/pet/run.ts.
//
//   void parallelMergeSort(SinglesStruct* dst, SinglesStruct* dstBuffer, unsigned arrayLength) {
//     addPadding(dst, dstBuffer, arrayLength);          // both buffers padded to a power of 2
//     runMergeSortKernel(dst, arrayLength);             // every 1024 elements sorted
//     while (sortedBlockSize < arrayLength) {
//       swap(dst, dstBuffer); …
//       runGenerateRanksKernel(dstBuffer, d_ranksEven, d_ranksOdd, arrayLength, sortedBlockSize);
//       runMergeKernel(dstBuffer, dst, d_ranksEven, d_ranksOdd, arrayLength, sortedBlockSize);
//       sortedBlockSize *= 2;
//     }
//   }
//   template <unsigned subBlockSize>
//   __global__ void generateRanksKernel(SinglesStruct* data, unsigned* ranksEven, unsigned* ranksOdd, unsigned sortedBlockSize) {
//     unsigned subBlocksPerSortedBlock = sortedBlockSize / subBlockSize;
//     unsigned subBlocksPerMergedBlock = 2 * subBlocksPerSortedBlock;
//     SinglesStruct sampleValue = data[blockIdx.x * (blockDim.x * subBlockSize) + threadIdx.x * subBlockSize];
//     unsigned rankSampleCurrent = blockIdx.x * blockDim.x + threadIdx.x;
//     unsigned indexBlockCurrent = rankSampleCurrent / subBlocksPerSortedBlock;
//     unsigned indexBlockOpposite = indexBlockCurrent ^ 1;
//     if (indexBlockCurrent % 2 == 0) { rankSampleOpposite = binarySearchInclusive<subBlockSize>(data, sampleValue,
//         indexBlockOpposite * sortedBlockSize, indexBlockOpposite * sortedBlockSize + sortedBlockSize - subBlockSize);
//       rankSampleOpposite = (rankSampleOpposite - sortedBlockSize) / subBlockSize; }
//     else { rankSampleOpposite = binarySearchExclusive<subBlockSize>(…); rankSampleOpposite /= subBlockSize; }
//     unsigned sortedIndex = rankSampleCurrent % subBlocksPerSortedBlock + rankSampleOpposite;
//     unsigned rankDataCurrent = (rankSampleCurrent * subBlockSize % sortedBlockSize) + 1;
//     unsigned indexSubBlockOpposite = sortedIndex % subBlocksPerMergedBlock - rankSampleCurrent % subBlocksPerSortedBlock - 1;
//     unsigned indexStart = indexBlockOpposite * sortedBlockSize + indexSubBlockOpposite * subBlockSize + 1;
//     unsigned indexEnd = indexStart + subBlockSize - 2;
//     if ((int)(indexStart - indexBlockOpposite * sortedBlockSize) >= 0) {
//       rankDataOpposite = indexBlockOpposite % 2 == 0 ? binarySearchExclusive(data, sampleValue, indexStart, indexEnd)
//                                                      : binarySearchInclusive(data, sampleValue, indexStart, indexEnd);
//       rankDataOpposite -= indexBlockOpposite * sortedBlockSize;
//     } else rankDataOpposite = 0;
//     if ((rankSampleCurrent / subBlocksPerSortedBlock) % 2 == 0) { ranksEven[sortedIndex] = rankDataCurrent; ranksOdd[sortedIndex] = rankDataOpposite; }
//     else { ranksEven[sortedIndex] = rankDataOpposite; ranksOdd[sortedIndex] = rankDataCurrent; }
//   }
//   template <unsigned subBlockSize>
//   __global__ void mergeKernel(SinglesStruct* data, SinglesStruct* dataBuffer, unsigned* ranksEven, unsigned* ranksOdd, unsigned sortedBlockSize) {
//     __shared__ SinglesStruct tileEven[subBlockSize], tileOdd[subBlockSize];
//     unsigned indexRank = blockIdx.y * (sortedBlockSize / subBlockSize * 2) + blockIdx.x;
//     unsigned indexSortedBlock = blockIdx.y * 2 * sortedBlockSize;
//     indexStartEven/Odd = blockIdx.x > 0 ? ranksEven/Odd[indexRank - 1] : 0;
//     indexEndEven/Odd = blockIdx.x < gridDim.x - 1 ? ranksEven/Odd[indexRank] : sortedBlockSize;
//     numElementsEven = indexEndEven - indexStartEven; numElementsOdd = indexEndOdd - indexStartOdd;
//     if (threadIdx.x < numElementsEven) { offsetEven = indexSortedBlock + indexStartEven + threadIdx.x; tileEven[threadIdx.x] = data[offsetEven]; }
//     if (threadIdx.x < numElementsOdd) { offsetOdd = indexSortedBlock + indexStartOdd + threadIdx.x; tileOdd[threadIdx.x] = data[offsetOdd + sortedBlockSize]; }
//     __syncthreads();
//     if (threadIdx.x < numElementsEven) { unsigned rankOdd = binarySearchInclusive(tileOdd, tileEven[threadIdx.x], 0, numElementsOdd - 1);
//       dataBuffer[offsetEven + rankOdd + indexStartOdd] = tileEven[threadIdx.x]; }
//     if (threadIdx.x < numElementsOdd) { unsigned rankEven = binarySearchExclusive(tileEven, tileOdd[threadIdx.x], 0, numElementsEven - 1);
//       dataBuffer[offsetOdd + rankEven + indexStartEven] = tileOdd[threadIdx.x]; }
//   }
//
// The seed does not show addPadding, runMergeSortKernel nor the binary searches; they are
// written here as it evidently means them, and its rank bookkeeping is adjusted so that every
// merge is stable and every segment fits its 256-element tile (docs/pet.md, "Sort"):
// - binarySearchInclusive = the first index whose key is ≥ the sample's (an EVEN block's element
//   ranks itself in the odd block with it); binarySearchExclusive = the first whose key is >.
// - the sample OPENS its segment (rank, not rank + 1) and block x merges [ranks[x], ranks[x+1]);
//   the opposite sample count is taken relative to the opposite block's start.
// - runMergeSortKernel: the 1024-element tile in shared memory, for width 1, 2, …, 512 every
//   element moves to (its index in its run + its rank in the other run of the pair).
// - merge pairs starting at ≥ n hold padding only and are skipped (the seed's copyPaddedElements).
// petMergeLevels (simt's own, no kernel in the seed) fuses several passes on one group for
// the host's wasm path. The hand-written phase loops (assembly/kernels/pet/sort.ts) are
// declared specializations.
import { threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __shared__, __extern_shared__ } from "simt/kernel";

/** runMergeSortKernel's tile: THREADS_MERGESORT × ELEMS_MERGESORT = 512 × 2 elements. */
const SORT_TILE: i32 = 1024;
/** SUB_BLOCK_SIZE: a rank sample every 256 elements; the merge tiles' size. */
const SUB_BLOCK_SIZE: i32 = 256;

/** First i in lo, lo + stride, … ≤ hi with key ≤ time(i) (hi + stride at most): a lower bound. */
function binarySearchInclusive(data: u32[], key: f64, lo: i32, hi: i32, stride: i32): i32 {
  while (lo <= hi) {
    const mid = lo + ((hi - lo) / (2 * stride)) * stride;
    if (key <= timeOf(data, mid)) hi = mid - stride; else lo = mid + stride;
  }
  return lo;
}

/** First i in lo, lo + stride, … ≤ hi with key < time(i): an upper bound. */
function binarySearchExclusive(data: u32[], key: f64, lo: i32, hi: i32, stride: i32): i32 {
  while (lo <= hi) {
    const mid = lo + ((hi - lo) / (2 * stride)) * stride;
    if (key < timeOf(data, mid)) hi = mid - stride; else lo = mid + stride;
  }
  return lo;
}

/** addPadding: a[i] = b[i] = { NO_CRYSTAL, 0, +∞ } for n ≤ i < total. */
export function petPadSingles(a: u32[], b: u32[], n: i32, total: i32): void {
  for (let i = n + blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x * gridDim.x) {
    a[4 * i] = NO_CRYSTAL; a[4 * i + 1] = 0; a[4 * i + 2] = 0; a[4 * i + 3] = 0x7ff00000;
    b[4 * i] = NO_CRYSTAL; b[4 * i + 1] = 0; b[4 * i + 2] = 0; b[4 * i + 3] = 0x7ff00000;
  }
}

/** runMergeSortKernel: sorts data[1024·blockIdx.x, +1024) stably by time; tiles at ≥ n are padding. Shared: 32 KiB. */
export function petSortTiles(data: u32[], n: i32): void {
  const tile = __extern_shared__<u32>();           // two SinglesStruct[1024], ping-pong
  const tileStart = blockIdx.x * SORT_TILE;
  if (tileStart >= n) return;
  for (let e = threadIdx.x; e < SORT_TILE; e += blockDim.x) copySingle(tile, e, data, tileStart + e);
  __syncthreads();
  let src: i32 = 0;                                // the half holding the sorted runs
  for (let width = 1; width < SORT_TILE; width <<= 1) {
    const dst = SORT_TILE - src;
    for (let e = threadIdx.x; e < SORT_TILE; e += blockDim.x) {
      const key = timeOf(tile, src + e);
      const run = e / width;
      const pairBase = src + (run & ~1) * width;
      let rank: i32;
      if ((run & 1) == 0) rank = binarySearchInclusive(tile, key, pairBase + width, pairBase + 2 * width - 1, 1) - (pairBase + width);
      else rank = binarySearchExclusive(tile, key, pairBase, pairBase + width - 1, 1) - pairBase;
      copySingle(tile, dst + (run & ~1) * width + (e - run * width) + rank, tile, src + e);
    }
    __syncthreads();
    src = dst;
  }
  for (let e = threadIdx.x; e < SORT_TILE; e += blockDim.x) copySingle(data, tileStart + e, tile, src + e);
}

/** generateRanksKernel: one thread per sample (every 256th element of the n2 = padded length). */
export function petMergeRanks(data: u32[], ranksEven: u32[], ranksOdd: u32[], sortedBlockSize: i32, n: i32, n2: i32): void {
  const subBlocksPerSortedBlock = sortedBlockSize / SUB_BLOCK_SIZE;
  const subBlocksPerMergedBlock = 2 * subBlocksPerSortedBlock;
  const rankSampleCurrent = blockIdx.x * blockDim.x + threadIdx.x;
  const at = rankSampleCurrent * SUB_BLOCK_SIZE;
  if (at >= n2) return;
  const indexBlockCurrent = at / sortedBlockSize;
  if ((indexBlockCurrent >> 1) * 2 * sortedBlockSize >= n) return;       // a padding-only pair
  const sampleValue = timeOf(data, at);
  const indexBlockOpposite = indexBlockCurrent ^ 1;
  const oppositeStart = indexBlockOpposite * sortedBlockSize;
  const even = (indexBlockCurrent & 1) == 0;
  const last = oppositeStart + sortedBlockSize - SUB_BLOCK_SIZE;
  const rankSampleOpposite = ((even ? binarySearchInclusive(data, sampleValue, oppositeStart, last, SUB_BLOCK_SIZE)
    : binarySearchExclusive(data, sampleValue, oppositeStart, last, SUB_BLOCK_SIZE)) - oppositeStart) / SUB_BLOCK_SIZE;
  const sortedIndex = rankSampleCurrent % subBlocksPerSortedBlock + rankSampleOpposite;
  const rankDataCurrent = rankSampleCurrent % subBlocksPerSortedBlock * SUB_BLOCK_SIZE;
  let rankDataOpposite = 0;
  if (rankSampleOpposite > 0) {                    // inside the opposite sub-block before it, without its sample
    const indexStart = oppositeStart + (rankSampleOpposite - 1) * SUB_BLOCK_SIZE + 1;
    const indexEnd = indexStart + SUB_BLOCK_SIZE - 2;
    rankDataOpposite = (even ? binarySearchInclusive(data, sampleValue, indexStart, indexEnd, 1)
      : binarySearchExclusive(data, sampleValue, indexStart, indexEnd, 1)) - oppositeStart;
  }
  const index = (indexBlockCurrent >> 1) * subBlocksPerMergedBlock + sortedIndex;
  ranksEven[index] = even ? rankDataCurrent : rankDataOpposite;
  ranksOdd[index] = even ? rankDataOpposite : rankDataCurrent;
}

/** mergeKernel: grid (2S/256, n2/2S), block 256; block x merges [ranks[x], ranks[x+1]) of each side. */
export function petMergeBlocks(data: u32[], out: u32[], ranksEven: u32[], ranksOdd: u32[], sortedBlockSize: i32, n: i32): void {
  const tileEven = __shared__<u32>(4 * 256);
  const tileOdd = __shared__<u32>(4 * 256);
  const indexSortedBlock = blockIdx.y * 2 * sortedBlockSize;
  if (indexSortedBlock >= n) return;               // a padding-only pair
  const indexRank = blockIdx.y * (sortedBlockSize / SUB_BLOCK_SIZE * 2) + blockIdx.x;
  const indexStartEven = ranksEven[indexRank];
  const indexStartOdd = ranksOdd[indexRank];
  let indexEndEven = sortedBlockSize;
  let indexEndOdd = sortedBlockSize;
  if (blockIdx.x < gridDim.x - 1) {
    indexEndEven = ranksEven[indexRank + 1];
    indexEndOdd = ranksOdd[indexRank + 1];
  }
  const numElementsEven = indexEndEven - indexStartEven;
  const numElementsOdd = indexEndOdd - indexStartOdd;
  const offsetEven = indexSortedBlock + indexStartEven + threadIdx.x;
  const offsetOdd = indexSortedBlock + indexStartOdd + threadIdx.x;
  if (threadIdx.x < numElementsEven) copySingle(tileEven, threadIdx.x, data, offsetEven);
  if (threadIdx.x < numElementsOdd) copySingle(tileOdd, threadIdx.x, data, offsetOdd + sortedBlockSize);
  __syncthreads();
  if (threadIdx.x < numElementsEven) {
    const rankOdd = binarySearchInclusive(tileOdd, timeOf(tileEven, threadIdx.x), 0, numElementsOdd - 1, 1) + indexStartOdd;
    copySingle(out, offsetEven + rankOdd, tileEven, threadIdx.x);
  }
  if (threadIdx.x < numElementsOdd) {
    const rankEven = binarySearchExclusive(tileEven, timeOf(tileOdd, threadIdx.x), 0, numElementsEven - 1, 1) + indexStartEven;
    copySingle(out, offsetOdd + rankEven, tileOdd, threadIdx.x);
  }
}

/**
 * Several merge passes on one group (simt's own: the host fuses the low passes on wasm). Block b
 * owns the group [G·b, G·b + G), G = sortedBlockSize·2^levels, and does the passes S, 2S, …,
 * S·2^(levels−1) on it as petSortTiles does in its tile — every element moves to its index in
 * its run plus its rank in the other run — ping-ponging between data and out exactly as the
 * per-pass launches do, so both buffers end up as after the seed's passes (a stable merge has
 * one result). Pairs starting at ≥ n hold padding only and are skipped, as by petMergeBlocks.
 */
export function petMergeLevels(data: u32[], out: u32[], sortedBlockSize: i32, levels: i32, n: i32): void {
  const group = sortedBlockSize << levels;
  const groupStart = blockIdx.x * group;
  if (groupStart >= n) return;
  for (let level = 0; level < levels; level++) {
    if ((level & 1) == 0) mergePass(data, out, groupStart, group, sortedBlockSize << level, n);
    else mergePass(out, data, groupStart, group, sortedBlockSize << level, n);
    __syncthreads();
  }
}

/** One pass of width `width` over the group: src's sorted runs, pairwise merged into dst. */
function mergePass(src: u32[], dst: u32[], groupStart: i32, group: i32, width: i32, n: i32): void {
  for (let e = threadIdx.x; e < group; e += blockDim.x) {
    const run = e / width;
    const pairBase = groupStart + (run & ~1) * width;
    if (pairBase >= n) break;                      // this and every later pair: padding only
    const key = timeOf(src, groupStart + e);
    let rank: i32;
    if ((run & 1) == 0) rank = binarySearchInclusive(src, key, pairBase + width, pairBase + 2 * width - 1, 1) - (pairBase + width);
    else rank = binarySearchExclusive(src, key, pairBase, pairBase + width - 1, 1) - pairBase;
    copySingle(dst, pairBase + (e - run * width) + rank, src, groupStart + e);
  }
}
