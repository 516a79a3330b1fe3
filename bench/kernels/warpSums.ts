// A benchmark of warp shuffles alone: every lane gets the sum of its warp's values (a butterfly
// of __shfl_xor_sync) and writes it. No atomics, so the warp operations are what a launch costs.
// CUDA original:
//
//   __global__ void warpSums(const int* a, int* out, int n) {
//     int g = blockIdx.x * blockDim.x + threadIdx.x;
//     int v = g < n ? a[g] : 0;
//     for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffff, v, m);
//     if (g < n) out[g] = v;
//   }
import { threadIdx, blockIdx, blockDim, __shfl_xor_sync } from "simt/kernel";

export function warpSums(a: i32[], out: i32[], n: i32): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  let v: i32 = g < n ? a[g] : 0;
  for (let m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffff, v, m);
  if (g < n) out[g] = v;
}
