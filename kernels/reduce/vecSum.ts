// Seed 002's VecMax as a sum, with the seed's own advice for a precise float sum ("use double"):
// f32 in, every addition in f64, B[blockIdx.x] the block's f64 partial (the host adds the
// partials). CUDA form (cache has blockDim.x doubles):
//
//   __global__ void VecSum(const float* A, double* B, int N) {
//     extern __shared__ double cache[];
//     int i = blockDim.x * blockIdx.x + threadIdx.x;
//     int cacheIndex = threadIdx.x;
//     double temp = 0;
//     while (i < N) { temp += A[i]; i += blockDim.x * gridDim.x; }
//     cache[cacheIndex] = temp;
//     __syncthreads();
//     int ib = blockDim.x / 2;
//     while (ib != 0) {
//       if (cacheIndex < ib) cache[cacheIndex] += cache[cacheIndex + ib];
//       __syncthreads();
//       ib /= 2;
//     }
//     if (cacheIndex == 0) B[blockIdx.x] = cache[0];
//   }
//
// The order of the additions is this form's: each thread adds its grid-stride elements in index
// order, starting from 0, then the tree adds cache[t + ib] into cache[t]. The SIMD specialization
// (assembly/kernels/reduce.ts) makes exactly these additions, so both give the same bits.
import { threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __extern_shared__ } from "simt/kernel";

export function vecSum(A: f32[], B: f64[], N: i32): void {
  const cache = __extern_shared__<f64>();
  let i = blockDim.x * blockIdx.x + threadIdx.x;
  const cacheIndex = threadIdx.x;
  let temp: f64 = 0;
  while (i < N) { temp += <f64>A[i]; i += blockDim.x * gridDim.x; }
  cache[cacheIndex] = temp;
  __syncthreads();
  let ib = blockDim.x / 2;
  while (ib != 0) {
    if (cacheIndex < ib) cache[cacheIndex] += cache[cacheIndex + ib];
    __syncthreads();
    ib /= 2;
  }
  if (cacheIndex == 0) B[blockIdx.x] = cache[0];
}
