// Seed 001's warp and block scans (the PET pipeline's intraWarpScan / intraBlockScan), as device
// functions any kernel of simt's module calls (they are inlined; the sources of one module share
// one scope), and the probe kernels that test them and feed the race tools.
//
//   template <unsigned blockSize>
//   inline __device__ unsigned intraWarpScan(volatile unsigned* scanTile, unsigned val) {
//     unsigned index = 2 * threadIdx.x - (threadIdx.x & (min(blockSize, WARP_SIZE) - 1));
//     scanTile[index] = 0;                                   // the lanes below read zeros
//     index += min(blockSize, WARP_SIZE);
//     scanTile[index] = val;
//     if (blockSize >= 2) scanTile[index] += scanTile[index - 1];
//     ...                                                    // 4, 8, 16
//     if (blockSize >= 32) scanTile[index] += scanTile[index - 16];
//     return scanTile[index] - val;                          // exclusive inside the warp
//   }
//   template <unsigned blockSize>
//   inline __device__ unsigned intraBlockScan(unsigned val) {
//     __shared__ unsigned scanTile[blockSize * 2];
//     unsigned warpIdx = threadIdx.x / WARP_SIZE;
//     unsigned laneIdx = threadIdx.x & (WARP_SIZE - 1);
//     unsigned warpResult = intraWarpScan<blockSize>(scanTile, val);
//     __syncthreads();
//     if (laneIdx == WARP_SIZE - 1) scanTile[warpIdx] = warpResult + val;   // the warps' totals
//     __syncthreads();
//     if (threadIdx.x < WARP_SIZE)
//       scanTile[threadIdx.x] = intraWarpScan<blockSize / WARP_SIZE>(scanTile, scanTile[threadIdx.x]);
//     __syncthreads();
//     return warpResult + scanTile[warpIdx] + val;           // inclusive over the block
//   }
//
// Differences, each for a reason:
// - blockSize is an argument (a template parameter in CUDA) and the warp width is rounded up to
//   a power of two, so any block up to 1024 threads scans (the seed needs a power of two or a
//   multiple of 32); the tile is then 2·blockSize + 32 words (host: blockScanSharedBytes).
// - sync = 1 puts __syncwarp() between each step's read and its write: the seed relies on the
//   lanes of a warp running in lock step through volatile shared memory, which CUDA no longer
//   promises (independent thread scheduling since Volta). sync = 0 is the seed as written, kept
//   for the race tools (its warp-synchronous hazard is reported at these lines).
// - The last thread of a partial last warp publishes that warp's total too, and zeroes the
//   zero column's cells of the lanes past the end (the seed's lanes always fill a warp: with
//   fewer, the first steps would read whatever the shared memory held); the second scan covers
//   ⌈blockSize / 32⌉ warps.
// - With sync = 1 every warp runs the second scan (on zeros past the first warp; only the first
//   warp's result is stored): on WebGPU warp operations are block-wide, so a __syncwarp() under
//   `threadIdx.x < WARP_SIZE` would be a divergent barrier there. sync = 0 (no warp operation)
//   keeps the seed's first warp only.
import { threadIdx, blockIdx, blockDim, __syncthreads, __syncwarp, __extern_shared__ } from "simt/kernel";

const WARP_SIZE: i32 = 32;

/** Exclusive scan of `val` over each group of min(blockSize, 32) lanes (rounded up to a power of two). */
function intraWarpScan(scanTile: u32[], val: u32, blockSize: i32, sync: i32): u32 {
  let width = 1;
  while (width < min(blockSize, WARP_SIZE)) width <<= 1;
  if (sync != 0) __syncwarp();
  let index = 2 * threadIdx.x - (threadIdx.x & (width - 1));
  scanTile[index] = 0;
  // A group of fewer lanes than its width (the last of a block that is no multiple of it): its
  // last lane zeroes the cells of the lanes past the end too, which the first steps read.
  const group = threadIdx.x - (threadIdx.x & (width - 1));
  if (threadIdx.x == min(group + width, blockDim.x) - 1) {
    for (let lane = (threadIdx.x & (width - 1)) + 1; lane < width; lane++) scanTile[2 * group + lane] = 0;
  }
  index += width;
  scanTile[index] = val;
  if (sync != 0) __syncwarp();
  for (let offset = 1; offset < width; offset <<= 1) {
    if (sync != 0) {
      const before = scanTile[index - offset];
      __syncwarp();
      scanTile[index] += before;
      __syncwarp();
    } else {
      scanTile[index] += scanTile[index - offset];
    }
  }
  const result = scanTile[index] - val;
  if (sync != 0) __syncwarp();
  return result;
}

/** Inclusive scan of `val` over the block (scanTile: 2·blockSize + 32 words of shared memory). */
function intraBlockScan(scanTile: u32[], val: u32, blockSize: i32, sync: i32): u32 {
  const warpIdx = threadIdx.x / WARP_SIZE;
  const laneIdx = threadIdx.x & (WARP_SIZE - 1);
  const warpResult = intraWarpScan(scanTile, val, blockSize, sync);
  __syncthreads();
  if (laneIdx == WARP_SIZE - 1 || threadIdx.x == blockSize - 1) scanTile[warpIdx] = warpResult + val;
  __syncthreads();
  if (threadIdx.x < WARP_SIZE || sync != 0) {
    const top = intraWarpScan(scanTile, threadIdx.x < WARP_SIZE ? scanTile[threadIdx.x] : 0, (blockSize + WARP_SIZE - 1) / WARP_SIZE, sync);
    if (threadIdx.x < WARP_SIZE) scanTile[threadIdx.x] = top;
  }
  __syncthreads();
  return warpResult + scanTile[warpIdx] + val;
}

/** Each block's scan of its blockDim.x elements (inclusive != 0: inclusive, else exclusive). Shared: blockScanSharedBytes. */
export function blockScanProbe(input: u32[], output: u32[], n: i32, inclusive: i32): void {
  const scanTile = __extern_shared__<u32>();
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  const val: u32 = i < n ? input[i] : 0;
  const scan = intraBlockScan(scanTile, val, blockDim.x, 1);
  if (i < n) output[i] = inclusive != 0 ? scan : scan - val;
}

/** Each warp's exclusive scan (intraWarpScan with __syncwarp). Shared: 4·(2·blockDim.x + 32). */
export function warpScanProbe(input: u32[], output: u32[], n: i32): void {
  const scanTile = __extern_shared__<u32>();
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  const val: u32 = i < n ? input[i] : 0;
  const scan = intraWarpScan(scanTile, val, blockDim.x, 1);
  if (i < n) output[i] = scan;
}

/** The seed's intraWarpScan as written (lock step, no __syncwarp): the result depends on the schedule. */
export function intraWarpScanUnsynced(input: u32[], output: u32[], n: i32): void {
  const scanTile = __extern_shared__<u32>();
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  const val: u32 = i < n ? input[i] : 0;
  const scan = intraWarpScan(scanTile, val, blockDim.x, 0);
  if (i < n) output[i] = scan;
}
