// A sum with warp shuffles: each thread sums a grid-stride slice, each warp reduces with
// __shfl_down_sync, lane 0 adds the warp's total to the result. CUDA original:
//
//   __global__ void shuffleSum(const float* in, float* out, int n) {
//     float sum = 0.0f;
//     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
//     for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
//     if ((threadIdx.x & 31) == 0) atomicAdd(out, sum);
//   }
import { threadIdx, blockIdx, blockDim, gridDim, __shfl_down_sync, atomicAdd } from "simt/kernel";

export function shuffleSum(input: f32[], out: f32[], n: i32): void {
  let sum: f32 = 0;
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += input[i];
  for (let offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, 0, sum);
}
