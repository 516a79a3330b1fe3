// Seed 002's VecMax with min: a grid-stride minimum per thread, then a shared-memory tree per
// block. CUDA form (B[blockIdx.x] is the block's minimum; cache has blockDim.x floats):
//
//   __global__ void VecMin(const float* A, float* B, int N) {
//     extern __shared__ float cache[];
//     int i = blockDim.x * blockIdx.x + threadIdx.x;
//     int cacheIndex = threadIdx.x;
//     float temp = INFINITY;
//     while (i < N) { if (A[i] < temp) temp = A[i]; i += blockDim.x * gridDim.x; }
//     cache[cacheIndex] = temp;
//     __syncthreads();
//     int ib = blockDim.x / 2;
//     while (ib != 0) {
//       if (cacheIndex < ib && cache[cacheIndex + ib] < cache[cacheIndex]) cache[cacheIndex] = cache[cacheIndex + ib];
//       __syncthreads();
//       ib /= 2;
//     }
//     if (cacheIndex == 0) B[blockIdx.x] = cache[0];
//   }
//
// NaN elements never win (`A[i] < temp` is false for them); a block with none but NaN gives +Infinity.
import { threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __extern_shared__ } from "simt/kernel";

export function vecMin(A: f32[], B: f32[], N: i32): void {
  const cache = __extern_shared__<f32>();
  let i = blockDim.x * blockIdx.x + threadIdx.x;
  const cacheIndex = threadIdx.x;
  let temp: f32 = Infinity;
  while (i < N) { if (A[i] < temp) temp = A[i]; i += blockDim.x * gridDim.x; }
  cache[cacheIndex] = temp;
  __syncthreads();
  let ib = blockDim.x / 2;
  while (ib != 0) {
    if (cacheIndex < ib && cache[cacheIndex + ib] < cache[cacheIndex]) cache[cacheIndex] = cache[cacheIndex + ib];
    __syncthreads();
    ib /= 2;
  }
  if (cacheIndex == 0) B[blockIdx.x] = cache[0];
}
