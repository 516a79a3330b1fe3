// Kernels with CUDA's assert / __trap(): `unreachable()` where a condition fails. On wasm the
// launch traps there; on webgpu the trap record names the thread and the line
// (test/webgpu-compiled.test.ts).
import { threadIdx, blockIdx, blockDim, __syncthreads, __shared__ } from "simt/kernel";

/** out[i] = 2·a[i], asserting a[i] ≥ 0 (CUDA: assert(a[i] >= 0)). */
export function assertNonNegative(a: i32[], out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (a[i] < 0) unreachable();
  out[i] = 2 * a[i];
}

/** The same assertion before a barrier (blocks of at most 256): the thread that trapped still meets it. */
export function assertBeforeBarrier(a: i32[], out: i32[], n: i32): void {
  const s = __shared__<i32>(256);
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  const v = i < n ? a[i] : 0;
  if (v < 0) unreachable();
  s[threadIdx.x] = v;
  __syncthreads();
  if (i < n) out[i] = s[blockDim.x - 1 - threadIdx.x];
}
