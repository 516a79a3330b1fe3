// simt's device-wide exclusive scan of u32 (reduce-then-scan, three launches): the STS counting
// sorts' prefix sums (seed 004, step 2: "calculate the prefix sums to get the start index of
// each sequence"), the natural merge sort's run compaction and the PET pair table's offsets
// (seed 001). Host side: src/ops/scan.ts.
//
//   1. scanTileSums   grid = ceil(n / T) blocks, T = blockDim.x * itemsPerThread:
//                     sums[b] = Σ input[tile b]
//   2. scanSingle     one block: sums[0..nTiles) scanned in place (exclusive), total[0] ← Σ
//   3. scanTileApply  same grid as 1: output[i] = sums[b] + Σ input[tile start .. i)
//
// Inside a block the threads own consecutive runs of items (a blocked arrangement, as CUB's
// BLOCK_LOAD_DIRECT); the block scan of the runs' sums is a raking step by thread 0. Each
// launch takes 4·blockDim.x bytes of dynamic shared memory. Additions wrap mod 2³² as CUDA's
// unsigned adds. `input` and `output` may be the same array: each thread reads its items
// before it writes them, and a thread writes only its own items.
import { threadIdx, blockIdx, blockDim, __syncthreads, __extern_shared__ } from "simt/kernel";

/** Σ input[begin..end): one thread's run. */
function runSum(input: u32[], begin: i32, end: i32): u32 {
  let s: u32 = 0;
  for (let i = begin; i < end; i++) s += input[i];
  return s;
}

/** Thread 0: partial[0..blockDim.x) ← its exclusive scan starting at `start`; returns the sum. */
function rakeExclusive(partial: u32[], start: u32): u32 {
  let run = start;
  for (let t = 0; t < blockDim.x; t++) { const v = partial[t]; partial[t] = run; run += v; }
  return run;
}

export function scanTileSums(input: u32[], sums: u32[], n: i32, itemsPerThread: i32): void {
  const partial = __extern_shared__<u32>();
  const begin = min(n, (blockIdx.x * blockDim.x + threadIdx.x) * itemsPerThread);
  partial[threadIdx.x] = runSum(input, begin, min(n, begin + itemsPerThread));
  __syncthreads();
  if (threadIdx.x == 0) {
    let total: u32 = 0;
    for (let t = 0; t < blockDim.x; t++) total += partial[t];
    sums[blockIdx.x] = total;
  }
}

export function scanSingle(data: u32[], n: i32, total: u32[]): void {
  const partial = __extern_shared__<u32>();
  const items = (n + blockDim.x - 1) / blockDim.x;
  const begin = min(n, threadIdx.x * items);
  const end = min(n, begin + items);
  partial[threadIdx.x] = runSum(data, begin, end);
  __syncthreads();
  if (threadIdx.x == 0) total[0] = rakeExclusive(partial, 0);
  __syncthreads();
  let run = partial[threadIdx.x];
  for (let i = begin; i < end; i++) { const v = data[i]; data[i] = run; run += v; }
}

export function scanTileApply(input: u32[], output: u32[], sums: u32[], n: i32, itemsPerThread: i32): void {
  const partial = __extern_shared__<u32>();
  const begin = min(n, (blockIdx.x * blockDim.x + threadIdx.x) * itemsPerThread);
  const end = min(n, begin + itemsPerThread);
  partial[threadIdx.x] = runSum(input, begin, end);
  __syncthreads();
  if (threadIdx.x == 0) rakeExclusive(partial, sums[blockIdx.x]);
  __syncthreads();
  let run = partial[threadIdx.x];
  for (let i = begin; i < end; i++) { const v = input[i]; output[i] = run; run += v; }
}
