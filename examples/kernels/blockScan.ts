// Seed 001's intra-block scan (the PET coincidence pipeline's SelectKernel counts with it): each
// thread's count, scanned over the block through shared memory, a warp at a time, then over the
// warps' totals by the first warp. Two device functions holding barriers (inlined by the
// compiler) and the first warp's scan under `if (threadIdx.x < WARP_SIZE)`.
//
// CUDA original (seed 001; blockSize a template parameter, here up to 1024):
//
//   template <unsigned blockSize>
//   inline __device__ unsigned intraWarpScan(volatile unsigned* scanTile, unsigned val) {
//     unsigned index = 2 * threadIdx.x - (threadIdx.x & (min(blockSize, WARP_SIZE) - 1));
//     scanTile[index] = 0;
//     index += min(blockSize, WARP_SIZE);
//     scanTile[index] = val;
//     if (blockSize >= 2) scanTile[index] += scanTile[index - 1];
//     if (blockSize >= 4) scanTile[index] += scanTile[index - 2];
//     ...                                                   // 8, 16
//     if (blockSize >= 32) scanTile[index] += scanTile[index - 16];
//     return scanTile[index] - val;
//   }
//   template <unsigned blockSize>
//   inline __device__ unsigned intraBlockScan(unsigned val) {
//     __shared__ unsigned scanTile[blockSize * 2];
//     unsigned warpIdx = threadIdx.x / WARP_SIZE;
//     unsigned laneIdx = threadIdx.x & (WARP_SIZE - 1);
//     unsigned warpResult = intraWarpScan<blockSize>(scanTile, val);
//     __syncthreads();
//     if (laneIdx == WARP_SIZE - 1) scanTile[warpIdx] = warpResult + val;
//     __syncthreads();
//     if (threadIdx.x < WARP_SIZE)
//       scanTile[threadIdx.x] = intraWarpScan<blockSize / WARP_SIZE>(scanTile, scanTile[threadIdx.x]);
//     __syncthreads();
//     return warpResult + scanTile[warpIdx] + val;
//   }
//
// The seed's warp scan relies on the lanes of a warp running in lock step through volatile
// shared memory, which CUDA no longer promises (independent thread scheduling since Volta):
// here each step reads its neighbour, then `__syncwarp()`, then adds, then `__syncwarp()`.
// Without them the race tools report the warp-synchronous hazard at these lines.
import { threadIdx, blockIdx, blockDim, __syncthreads, __syncwarp, __shared__ } from "simt/kernel";

const WARP_SIZE = 32;

function intraWarpScan(scanTile: u32[], val: u32): u32 {
  let index = 2 * threadIdx.x - (threadIdx.x & (WARP_SIZE - 1));
  scanTile[index] = 0;
  index += WARP_SIZE;
  scanTile[index] = val;
  __syncwarp();
  for (let offset = 1; offset < WARP_SIZE; offset *= 2) {
    const before = scanTile[index - offset];
    __syncwarp();
    scanTile[index] += before;
    __syncwarp();
  }
  return scanTile[index] - val;
}

function intraBlockScan(val: u32): u32 {
  const scanTile = __shared__<u32>(2048);
  const warpIdx = threadIdx.x / WARP_SIZE;
  const laneIdx = threadIdx.x & (WARP_SIZE - 1);
  const warpResult = intraWarpScan(scanTile, val);
  __syncthreads();
  if (laneIdx == WARP_SIZE - 1) scanTile[warpIdx] = warpResult + val;
  __syncthreads();
  if (threadIdx.x < WARP_SIZE) scanTile[threadIdx.x] = intraWarpScan(scanTile, scanTile[threadIdx.x]);
  __syncthreads();
  return warpResult + scanTile[warpIdx] + val;
}

/** Each block's inclusive prefix sum of `counts` (threads past n count 0); blockDim.x a multiple of 32. */
export function blockScan(counts: u32[], out: u32[], n: i32): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const val: u32 = g < n ? counts[g] : 0;
  const inclusive = intraBlockScan(val);
  if (g < n) out[g] = inclusive;
}
