// Block-level loops with a constant trip count, for test/compiler-trips.test.ts (the block form
// writes them out) and test/webgpu-compiled.test.ts (the WGSL does).
import { threadIdx, blockIdx, blockDim, __syncthreads, __shared__, __shfl_down_sync } from "simt/kernel";

// 8 trips (written out) and 9 trips (a loop), each around two barriers.
export function trips(out: i32[]): void {
  const s = __shared__<i32>(64);
  let v: i32 = threadIdx.x;
  for (let k = 0; k < 8; k++) { s[threadIdx.x] = v; __syncthreads(); v += s[(threadIdx.x + 1) & 63]; __syncthreads(); }
  for (let k = 1; k < 512; k *= 2) { s[threadIdx.x] = v; __syncthreads(); v ^= s[(threadIdx.x + k) & 63]; __syncthreads(); }
  out[threadIdx.x] = v;
}

// The warp reduction: five shuffles by 16, 8, 4, 2, 1; lane 0 writes its warp's sum.
export function warpSum(a: i32[], sums: i32[]): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  let v = a[g];
  for (let offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if ((threadIdx.x & 31) == 0) sums[g >> 5] = v;
}

// Halving trees from the block size, as block reductions write them: the WGSL writes each out
// as guarded copies that fold once the pipeline fixes the block size (wgslUnroll.ts,
// halvingLoop); block sizes need not be powers of two. out[2b] and out[2b + 1]: block b's trees.
export function halvingTrees(a: i32[], out: i32[]): void {
  const s = __shared__<i32>(1024);
  const t = threadIdx.x;
  const g = blockIdx.x * blockDim.x + t;
  s[t] = a[g];
  __syncthreads();
  let ib = blockDim.x / 2;
  while (ib != 0) {
    if (t < ib) s[t] = s[t] + s[t + ib] * 3;
    __syncthreads();
    ib /= 2;
  }
  const first = s[0];
  __syncthreads();
  s[t] = a[g];
  __syncthreads();
  for (let k = blockDim.x >> 1; k > 0; k >>= 1) {
    if (t < k) s[t] = s[t] ^ (s[t + k] + k);
    __syncthreads();
  }
  if (t == 0) { out[2 * blockIdx.x] = first; out[2 * blockIdx.x + 1] = s[0]; }
}
