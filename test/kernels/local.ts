// Kernels with __local__ arrays (CUDA's per-thread local memory), for test/compiler-local.test.ts.
import { threadIdx, blockIdx, blockDim, __syncthreads, __extern_shared__, __local__ } from "simt/kernel";

/** Each thread sorts its 8 values in a local array (insertion sort) and writes them back. */
export function sortEight(input: i32[], out: i32[], n: i32): void {
  const v = __local__<i32>(8);
  const base = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  if (base >= n) return;
  for (let k = 0; k < 8; k++) v[k] = input[base + k];
  for (let k = 1; k < 8; k++) {
    const x = v[k];
    let j = k - 1;
    while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; }
    v[j + 1] = x;
  }
  for (let k = 0; k < 8; k++) out[base + k] = v[k];
}

/** Insertion sort of v[0..n): a device function given a thread's local array is inlined into the kernel. */
function insertionSort(v: i32[], n: i32): void {
  for (let k = 1; k < n; k++) {
    const x = v[k];
    let j = k - 1;
    while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; }
    v[j + 1] = x;
  }
}

function sumOf(v: i32[], n: i32): i32 {
  let s = 0;
  for (let k = 0; k < n; k++) s += v[k];
  return s;
}

/** sortEight through device functions: the local array passed to insertionSort and sumOf. */
export function sortEightCalls(input: i32[], out: i32[], sums: i32[], n: i32): void {
  const v = __local__<i32>(8);
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  if (8 * g >= n) return;
  for (let k = 0; k < 8; k++) v[k] = input[8 * g + k];
  insertionSort(v, 8);
  const s = sumOf(v, 8);
  for (let k = 0; k < 8; k++) out[8 * g + k] = v[k];
  sums[g] = s;
}

/**
 * Local arrays of two element types that live across two barriers: each thread keeps its 4
 * values and their running count of negatives, publishes its sum, and adds its right
 * neighbour's sum (in its block, wrapping) to each value.
 */
export function neighbourAdd(input: f32[], out: f32[], negatives: u16[]): void {
  const sums = __extern_shared__<f32>();
  const mine = __local__<f32>(4);
  const neg = __local__<u16>(3);
  const t = threadIdx.x + blockDim.x * threadIdx.y;
  const g = blockIdx.x * blockDim.x * blockDim.y + t;
  let s: f32 = 0;
  neg[0] = 0;
  for (let k = 0; k < 4; k++) { mine[k] = input[4 * g + k]; s += mine[k]; if (mine[k] < 0) neg[0]++; }
  sums[t] = s;
  __syncthreads();
  const right = sums[(t + 1) % (blockDim.x * blockDim.y)];
  neg[2] = neg[0];
  __syncthreads();
  for (let k = 0; k < 4; k++) out[4 * g + k] = mine[k] + right;
  negatives[g] = neg[2];
}

/** Writes a[k] of a 4-element local array: k = 4 is out of its bounds. */
export function localPastEnd(out: i32[], k: i32): void {
  const a = __local__<i32>(4);
  a[k] = 7;
  out[blockIdx.x * blockDim.x + threadIdx.x] = a[k];
}

/** 4096 bytes of local arrays per thread: at most 64 threads per block fit beside no context slots. */
export function bigLocal(out: f64[]): void {
  const big = __local__<f64>(512);
  for (let k = 0; k < 512; k++) big[k] = <f64>(k + threadIdx.x);
  let s: f64 = 0;
  for (let k = 0; k < 512; k += 100) s += big[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
