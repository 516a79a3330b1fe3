// A 256-bin histogram in shared memory with atomicAdd. CUDA original:
//
//   __global__ void histogram256(const unsigned char* data, int n, unsigned int* bins) {
//     __shared__ unsigned int local[256];
//     for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
//     __syncthreads();
//     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
//       atomicAdd(&local[data[i]], 1u);
//     __syncthreads();
//     for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
//   }
import { threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __shared__, atomicAdd } from "simt/kernel";

export function histogram256(data: u8[], n: i32, bins: u32[]): void {
  const local = __shared__<u32>(256);
  for (let i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(local, data[i], 1);
  __syncthreads();
  for (let i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(bins, i, local[i]);
}
