// Seed 001's time coincidence on time-sorted singles (kernels/pet/records.ts), the seed's four
// kernels per thread. CUDA:
//
//   inline __device__ int searchIndex(SinglesStruct* data, unsigned curIndex, unsigned arrayLength) {
//     unsigned next = curIndex + 1;
//     while (next < arrayLength && data[next].timevalue - data[curIndex].timevalue <= TIMEWINDOW) { ++next; }
//     return next == curIndex + 1 ? -1 : next - 1;
//   }
//   __global__ void CoinTimeKernel(SinglesStruct* data, int* nextIndex, unsigned arrayLength) {
//     calcDataBlockLength<THREAD_NUM, THREAD_ELEM>(offset, dataBlockLength, arrayLength);
//     for (unsigned tx = threadIdx.x; tx < dataBlockLength; tx += THREAD_NUM)
//       nextIndex[tx + offset] = searchIndex(data, offset + tx, arrayLength);
//   }
//   inline __device__ int leftIndex(SinglesStruct* data, unsigned curIndex) {
//     int left = curIndex - 1; unsigned pos = curIndex;
//     while (left >= 0 && data[curIndex].timevalue - data[left].timevalue <= TIMEWINDOW) { --curIndex; --left; }
//     return curIndex == pos ? -1 : curIndex;
//   }
//   __global__ void SelectKernel(SinglesStruct* data, int* nextIndex, …, unsigned arrayLength) {
//     calcDataBlockLength<THREAD_NUM, THREAD_ELEM>(offset, dataBlockLength, arrayLength);
//     for (unsigned tx = threadIdx.x; tx < dataBlockLength; tx += THREAD_NUM) {
//       int left = leftIndex(data, tx + offset), pos = left != -1 ? left : tx + offset;
//       if (nextIndex[tx + offset] == -1 && pos != tx + offset) {
//         while (pos <= offset + tx) {
//           if ((nextIndex[pos] - pos) >= 2) { for (begin = pos; begin <= nextIndex[pos]; ++begin) nextIndex[begin] = -1; pos = begin; }
//           else if ((nextIndex[pos] - pos) == 1) {
//             if (data[pos].globalCrystalIndex == data[nextIndex[pos]].globalCrystalIndex) nextIndex[pos] = -1;
//             nextIndex[++pos] = -1; ++pos;
//           } else if (nextIndex[pos] == -1) ++pos;
//         }
//       }
//     }
//   }
//   __global__ void FillDataKernel(…, int* nextIndex, unsigned arrayLength, unsigned* newLength, unsigned* scanId, unsigned* globalLen) {
//     unsigned id = threadIdx.x + blockDim.x * blockIdx.x, local1 = 0; __shared__ unsigned global1;
//     if (id * THREAD_ELEM < arrayLength) { offset1 = id * THREAD_ELEM; dataBlockLength1 = min(THREAD_ELEM, arrayLength - offset1); }
//     else return;
//     for (unsigned tx = 0; tx < dataBlockLength1; ++tx) if (nextIndex[tx + offset1] != -1) local1++;
//     __syncthreads();
//     scan1 = intraBlockScan<THREAD_NUM>(local1);
//     __syncthreads();
//     if (threadIdx.x == THREAD_NUM - 1 || offset1 + dataBlockLength1 == arrayLength) { atomicAdd(newLength, scan1); globalLen[blockIdx.x] = scan1; }
//     __syncthreads();
//     scanId[id] = scan1 - local1;
//   }
//   __global__ void CorrectPosKernel(SinglesStruct* d_SingleData, CoinStruct* d_data, …, unsigned* scanId, unsigned* globalLen, unsigned arrayLength, int* nextIndex) {
//     (offset1, dataBlockLength1 as FillDataKernel; return past the end)
//     for (int i = 0; i < blockIdx.x; ++i) global += globalLen[i];
//     unsigned localBegin = global + scanId[index];
//     for (unsigned tx = 0; tx < dataBlockLength1; ++tx) if (nextIndex[tx + offset1] != -1) {
//       d_data[localBegin].nCoinStruct[0] = d_SingleData[tx + offset1];
//       d_data[localBegin++].nCoinStruct[1] = d_SingleData[tx + offset1 + 1];
//     }
//   }
//
// THREAD_ELEM is the `elems` parameter, TIMEWINDOW `window`. Interpretations (docs/pet.md):
// - SelectKernel's "nextIndex[i] == -1" is meant as CoinTimeKernel wrote it (i ends its chain),
//   not as other threads of the chain may have erased it meanwhile: tested on the times instead,
//   so exactly one thread walks each chain and the result does not depend on the schedule.
// - FillDataKernel's threads past the end stay for the barriers with a zero count (the seed's
//   `return` before __syncthreads is a divergent barrier: the race corpus keeps that form), so
//   the block's last thread holds the block's total and is the one that publishes it.
// - CorrectPosKernel's sum over globalLen[0..blockIdx) (quadratic in blocks) is a device-wide
//   exclusive scan of globalLen beforehand (blockOffsets); pairFirst[k] = pair k's first single.
// The hand-written phase loops (assembly/kernels/pet/coincidence.ts) are declared specializations.
import { threadIdx, blockIdx, blockDim, __syncthreads, __shared__, atomicAdd } from "simt/kernel";

function searchIndex(data: u32[], curIndex: i32, arrayLength: i32, window: f64): i32 {
  let next = curIndex + 1;
  while (next < arrayLength && timeOf(data, next) - timeOf(data, curIndex) <= window) ++next;
  return next == curIndex + 1 ? -1 : next - 1;
}

/** CoinTimeKernel: block THREAD_NUM threads × elems singles. */
export function petCoinNextIndex(data: u32[], nextIndex: i32[], n: i32, window: f64, elems: i32): void {
  const offset = blockIdx.x * blockDim.x * elems;
  const dataBlockLength = offset + blockDim.x * elems <= n ? blockDim.x * elems : n - offset;
  for (let tx = threadIdx.x; tx < dataBlockLength; tx += blockDim.x) nextIndex[tx + offset] = searchIndex(data, offset + tx, n, window);
}

function leftIndex(data: u32[], curIndex: i32, window: f64): i32 {
  const pos = curIndex;
  let left = curIndex - 1;
  while (left >= 0 && timeOf(data, curIndex) - timeOf(data, left) <= window) { --curIndex; --left; }
  return curIndex == pos ? -1 : curIndex;
}

/** SelectKernel: block THREAD_NUM threads × elems singles. */
export function petCoinSelect(data: u32[], nextIndex: i32[], n: i32, window: f64, elems: i32): void {
  const offset = blockIdx.x * blockDim.x * elems;
  const dataBlockLength = offset + blockDim.x * elems <= n ? blockDim.x * elems : n - offset;
  for (let tx = threadIdx.x; tx < dataBlockLength; tx += blockDim.x) {
    const i = tx + offset;
    const endsChain = i + 1 >= n || !(timeOf(data, i + 1) - timeOf(data, i) <= window);   // nextIndex[i] == -1 as CoinTimeKernel wrote it
    const left = leftIndex(data, i, window);
    let pos = left != -1 ? left : i;
    if (endsChain && pos != i) {
      while (pos <= i) {
        const next = nextIndex[pos];
        if (next - pos >= 2) {
          let begin = pos;
          for (; begin <= next; ++begin) nextIndex[begin] = -1;
          pos = begin;
        } else if (next - pos == 1) {
          if (data[4 * pos] == data[4 * next]) nextIndex[pos] = -1;
          nextIndex[++pos] = -1;
          ++pos;
        } else {
          ++pos;                                   // nextIndex[pos] == -1
        }
      }
    }
  }
}

/** FillDataKernel: thread id counts the pair starts among singles [id·elems, +elems). */
export function petCoinCount(nextIndex: i32[], n: i32, scanId: u32[], globalLen: u32[], newLength: u32[], elems: i32): void {
  const scanTile = __shared__<u32>(2 * 1024);
  const id = threadIdx.x + blockDim.x * blockIdx.x;
  const offset1 = id * elems;
  const dataBlockLength1 = offset1 < n ? min(elems, n - offset1) : 0;
  let local1: u32 = 0;
  for (let tx = 0; tx < dataBlockLength1; ++tx) if (nextIndex[tx + offset1] != -1) local1++;
  __syncthreads();
  const scan1 = intraBlockScan(scanTile, local1, blockDim.x, 1);
  __syncthreads();
  if (threadIdx.x == blockDim.x - 1) {
    atomicAdd(newLength, 0, scan1);
    globalLen[blockIdx.x] = scan1;
  }
  scanId[id] = scan1 - local1;
}

/** CorrectPosKernel, the block's offset from blockOffsets (the exclusive scan of globalLen). */
export function petCoinFill(data: u32[], pairs: u32[], pairFirst: u32[], nextIndex: i32[], n: i32, scanId: u32[], blockOffsets: u32[], elems: i32): void {
  const index = threadIdx.x + blockDim.x * blockIdx.x;
  const offset1 = index * elems;
  if (offset1 >= n) return;
  const dataBlockLength1 = min(elems, n - offset1);
  let localBegin = <i32>(blockOffsets[blockIdx.x] + scanId[index]);
  for (let tx = 0; tx < dataBlockLength1; ++tx) {
    if (nextIndex[tx + offset1] != -1) {
      copySingle(pairs, 2 * localBegin, data, tx + offset1);
      copySingle(pairs, 2 * localBegin + 1, data, tx + offset1 + 1);
      pairFirst[localBegin++] = <u32>(tx + offset1);
    }
  }
}
