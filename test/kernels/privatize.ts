// Kernels whose global arrays the block form may privatise: an array the kernel only ever
// atomicAdds into (result unused) is added into a per-worker copy for a chunk of blocks and
// flushed into the array at the chunk's end (runtime/compiled.ts, __privBegin).
import { threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __shared__, atomicAdd } from "simt/kernel";

/** i32 bins, added into only (negative values and wrap-around included): privatised. */
export function addBins(keys: i32[], vals: i32[], n: i32, bins: i32[]): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(bins, keys[i], vals[i]);
}

/** A shared histogram merged into global u32 bins (the histogram example's shape): privatised. */
export function mergeBins(data: u32[], n: i32, bins: u32[], nb: i32): void {
  const local = __shared__<u32>(64);
  for (let i = threadIdx.x; i < 64; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(local, data[i] % 64, 1);
  __syncthreads();
  for (let i = threadIdx.x; i < 64; i += blockDim.x) if (i < nb) atomicAdd(bins, i, local[i]);
}

/** The bins also read through a second parameter: when both name one array, each block sees its own add. */
export function aliasBins(bins: u32[], view: u32[], out: u32[]): void {
  if (threadIdx.x == 0) atomicAdd(bins, 0, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = view[0];
}

/** Bins read back by the kernel itself: not privatised. */
export function addAndRead(bins: u32[], out: u32[]): void {
  atomicAdd(bins, threadIdx.x, 1);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = bins[threadIdx.x];
}
