// Seed 001's intraBlockScan and intraWarpScan (a block's inclusive scan through a shared tile
// of 2·blockSize words), shared by the PET kernels (petConvert, petCoinCount) and the race
// corpus's copies of FillDataKernel (kernels/race/seeds.ts). CUDA:
//
//   template <unsigned blockSize>
//   inline __device__ unsigned intraWarpScan(volatile unsigned* scanTile, unsigned val) {
//     unsigned index = 2 * threadIdx.x - (threadIdx.x & (min(blockSize, WARP_SIZE) - 1));
//     scanTile[index] = 0;
//     index += min(blockSize, WARP_SIZE);
//     scanTile[index] = val;
//     if (blockSize >= 2) scanTile[index] += scanTile[index - 1];
//     … (4, 8, 16, 32)
//     return scanTile[index] - val;
//   }
//   template <unsigned blockSize>
//   inline __device__ unsigned intraBlockScan(unsigned val) {
//     __shared__ unsigned scanTile[blockSize * 2];
//     unsigned warpIdx = threadIdx.x / WARP_SIZE, laneIdx = threadIdx.x & (WARP_SIZE - 1);
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
// The template's blockSize is a parameter here; blockSize must be a power of two, a multiple of
// 32, at most 1024 (the seed's launches: 128 and 256). The tile is the caller's (a __shared__
// array declared in the kernel). The seed relies on a warp's lanes running in lock step
// (volatile): sync = 0 keeps that (the race corpus's hazard: lanes are independent threads since
// Volta, and simt's block form runs them one after the other, so its sums are wrong there);
// sync = 1, what the PET kernels use, puts __syncwarp() between every read and the next write.
import { threadIdx, __syncthreads, __syncwarp } from "simt/kernel";

/**
 * intraWarpScan: exclusive scan of `val` over the warp through shared memory. sync = 0:
 * as the seed, relying on lock-step lanes (volatile); sync = 1: __syncwarp() between every read
 * and the next write (the fix for independent thread scheduling).
 */
function intraWarpScan(scanTile: u32[], val: u32, blockSize: i32, sync: i32): u32 {
  const w = min(blockSize, 32);
  if (sync != 0) __syncwarp();
  let index = 2 * threadIdx.x - (threadIdx.x & (w - 1));
  scanTile[index] = 0;
  index += w;
  scanTile[index] = val;
  if (sync != 0) __syncwarp();
  for (let k = 1; k <= 16; k <<= 1) {
    if (blockSize >= 2 * k) {
      if (sync != 0) {
        const other = scanTile[index - k];
        __syncwarp();
        scanTile[index] += other;
        __syncwarp();
      } else {
        scanTile[index] += scanTile[index - k];
      }
    }
  }
  const r = scanTile[index] - val;
  if (sync != 0) __syncwarp();
  return r;
}

/** The seed's intraBlockScan: inclusive scan of `val` over the block (scanTile: 2 · blockSize words). */
function intraBlockScan(scanTile: u32[], val: u32, blockSize: i32, sync: i32): u32 {
  const warpIdx = threadIdx.x >> 5;
  const warpResult = intraWarpScan(scanTile, val, blockSize, sync);
  __syncthreads();
  if ((threadIdx.x & 31) == 31) scanTile[warpIdx] = warpResult + val;
  __syncthreads();
  if (threadIdx.x < 32) scanTile[threadIdx.x] = intraWarpScan(scanTile, scanTile[threadIdx.x], blockSize / 32, sync);
  __syncthreads();
  return warpResult + scanTile[warpIdx] + val;
}
