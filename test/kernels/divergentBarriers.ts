// The race corpus's two barrier-divergence kernels whose divergence is visible in the source: a
// __syncthreads() that only part of the block reaches, chosen by threadIdx. The kernel language
// rejects both at compile time (CUDA requires every thread of the block to reach the same
// __syncthreads), so they are compile-time findings, not race jobs: test/race-corpus.test.ts.
import { threadIdx, blockIdx, blockDim, __syncthreads } from "simt/kernel";

/** Barrier in a branch only half the block takes. */
export function divergentBarrier(out: i32[]): void {
  if (threadIdx.x < (blockDim.x >> 1)) __syncthreads(); // DIVERGENT: half the block
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}

/** Odd and even threads wait at two different barriers. */
export function barrierSites(out: i32[]): void {
  if (threadIdx.x & 1) __syncthreads(); else __syncthreads(); // DIVERGENT: two sites
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}
