// The race corpus's racy kernels (beyond the seeds'): each has exactly the defect its comment
// names, and racecheck must report it (src/race/corpus.ts says which report kinds).
// Two more cases, a __syncthreads() that only part of the block reaches by its threadIdx, are
// compile errors of the kernel language: test/kernels/divergentBarriers.ts holds them.
import { threadIdx, blockIdx, blockDim, __syncthreads, __shared__, __extern_shared__, atomicAdd } from "simt/kernel";

/** Lost update: counter++ as a plain read-modify-write in global memory. */
export function lostUpdate(counter: i32[]): void {
  counter[0] += 1;
}

/** Lost update in shared memory; thread 0 publishes the count. */
export function lostUpdateShared(out: i32[]): void {
  const count = __shared__<i32>(1);
  if (threadIdx.x == 0) count[0] = 0;
  __syncthreads();
  count[0] += 1;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = count[0];
}

/** Missing barrier: neighbours' tile entries read before they are written. */
export function stencilNoSync(input: i32[], out: i32[]): void {
  const tile = __extern_shared__<i32>();
  const t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  tile[t] = input[g];
  out[g] = tile[t] + tile[(t + 1) % blockDim.x];
}

/** Tree reduction without the barrier inside the loop. */
export function reduceNoSync(input: i32[], out: i32[]): void {
  const s = __extern_shared__<i32>();
  const t = threadIdx.x;
  s[t] = input[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (let k = blockDim.x >> 1; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

/** Reduction whose last warp is unrolled without __syncwarp (warp-synchronous programming). */
export function reduceWarpUnrolled(input: i32[], out: i32[]): void {
  const s = __extern_shared__<i32>();
  const t = threadIdx.x;
  s[t] = input[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (let k = blockDim.x >> 1; k > 32; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t < 32) {
    for (let k = 32; k > 0; k >>= 1) s[t] += s[t + k];
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

/** Write-write: every thread stores its index to out[0]. */
export function writeWrite(out: i32[]): void {
  out[0] = blockIdx.x * blockDim.x + threadIdx.x;
}

/** Block 0 publishes data then a flag; block 1 reads the flag then the data: no order between blocks. */
export function crossBlockPublish(data: i32[], flag: i32[], out: i32[]): void {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = 42;
    flag[0] = 1;
  } else {
    const f = flag[0];
    out[0] = f != 0 ? data[0] : -1;
  }
}

/** Out of bounds: no `i < n` guard; the launch has more threads than elements. */
export function oobWrite(out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = i;
}

/** Out of bounds: reads input[i + 1] for i < n. */
export function oobRead(input: i32[], out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = input[i + 1];
}

/** Histogram with plain increments. */
export function histogramPlain(input: i32[], hist: i32[], bins: i32): void {
  hist[input[blockIdx.x * blockDim.x + threadIdx.x] % bins] += 1;
}

/** An atomic and a plain read of the same word, unordered. */
export function atomicVsPlain(counter: i32[], out: i32[]): void {
  if (threadIdx.x == 0) atomicAdd(counter, 0, 1);
  else out[threadIdx.x] = counter[0];
}

/** Double buffering with the barrier after the write but not before it (write-after-read). */
export function doubleBufferNoSync(input: i32[], out: i32[]): void {
  const s = __extern_shared__<i32>();
  const n = blockDim.x;
  const t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = input[g];
  __syncthreads();
  for (let it = 0; it < 2; it++) {
    const v = s[(t + 1) % n] + s[(t + n - 1) % n];
    s[t] = v;          // missing __syncthreads() before this write
    __syncthreads();
  }
  out[g] = s[t];
}

/** Thread 0 fills a shared word the others read without a barrier. */
export function broadcastNoSync(input: i32[], out: i32[]): void {
  const value = __shared__<i32>(1);
  if (threadIdx.x == 0) value[0] = input[0];
  out[blockIdx.x * blockDim.x + threadIdx.x] = value[0];
}

/** Lanes exchange through shared memory relying on lock-step (no __syncwarp). */
export function warpExchangeNoSync(input: i32[], out: i32[]): void {
  const s = __extern_shared__<i32>();
  const t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  s[t] = input[g];
  out[g] = s[(t & ~31) | ((t & 31) ^ 1)];
}

/** Maximum by plain compare-and-store. */
export function plainMax(input: i32[], m: i32[]): void {
  const v = input[blockIdx.x * blockDim.x + threadIdx.x];
  if (v > m[0]) m[0] = v;
}
