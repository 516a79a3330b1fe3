// The race corpus's race-free kernels (src/race/corpus.ts says what each one checks): every
// conflicting pair of accesses is ordered by a barrier, __syncwarp, an atomic or a kernel boundary,
// and every access is in bounds.
import {
  threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __syncwarp, __threadfence, __shared__, __extern_shared__,
  atomicAdd, atomicMax, atomicCAS, atomicInc,
} from "simt/kernel";

/** Every thread of the grid adds 1 to counter[0] with atomicAdd. */
export function atomicCounter(counter: i32[]): void {
  atomicAdd(counter, 0, 1);
}

/** A shared counter: init, barrier, atomicAdd, barrier, publish. */
export function sharedAtomicCounter(out: i32[]): void {
  const count = __shared__<i32>(1);
  if (threadIdx.x == 0) count[0] = 0;
  __syncthreads();
  atomicAdd(count, 0, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = count[0];
}

/** Shared tree reduction with a barrier per step. */
export function reduceSync(input: i32[], out: i32[]): void {
  const s = __extern_shared__<i32>();
  const t = threadIdx.x;
  s[t] = input[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (let k = blockDim.x >> 1; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

/** Last warp unrolled, each step's reads and writes separated by __syncwarp. */
export function reduceWarpSync(input: i32[], out: i32[]): void {
  const s = __extern_shared__<i32>();
  const t = threadIdx.x;
  s[t] = input[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (let k = blockDim.x >> 1; k > 32; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t < 32) {
    for (let k = 32; k > 0; k >>= 1) {
      const v = s[t] + s[t + k];
      __syncwarp();
      s[t] = v;
      __syncwarp();
    }
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

/** Tile, barrier, read neighbours. */
export function stencilSync(input: i32[], out: i32[]): void {
  const tile = __extern_shared__<i32>();
  const t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  tile[t] = input[g];
  __syncthreads();
  out[g] = tile[t] + tile[(t + 1) % blockDim.x];
}

/** out[i] = a[i] + b[i] with an i < n guard. */
export function vectorAdd(a: i32[], b: i32[], out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

/** Grid-stride copy: each element by one thread. */
export function gridStrideCopy(input: i32[], out: i32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = input[i];
}

/** Histogram with atomicAdd. */
export function histogramAtomic(input: i32[], hist: i32[], bins: i32): void {
  atomicAdd(hist, input[blockIdx.x * blockDim.x + threadIdx.x] % bins, 1);
}

/** 2-D block: transpose a blockDim.x × blockDim.x tile through shared memory, a barrier between. */
export function transposeShared(input: i32[], out: i32[]): void {
  const tile = __extern_shared__<i32>();
  const n = blockDim.x;
  const x = threadIdx.x, y = threadIdx.y;
  tile[y * n + x] = input[y * n + x];
  __syncthreads();
  out[y * n + x] = tile[x * n + y];
}

/** In-place smoothing with barriers before and after the write. */
export function doubleBufferSync(input: i32[], out: i32[]): void {
  const s = __extern_shared__<i32>();
  const n = blockDim.x;
  const t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = input[g];
  __syncthreads();
  for (let it = 0; it < 2; it++) {
    const v = s[(t + 1) % n] + s[(t + n - 1) % n];
    __syncthreads();
    s[t] = v;
    __syncthreads();
  }
  out[g] = s[t];
}

/** Thread 0 fills a shared word; barrier; all read. */
export function broadcastSync(input: i32[], out: i32[]): void {
  const value = __shared__<i32>(1);
  if (threadIdx.x == 0) value[0] = input[0];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = value[0];
}

/** Maximum by atomicMax. */
export function atomicMaxKernel(input: i32[], m: i32[]): void {
  atomicMax(m, 0, input[blockIdx.x * blockDim.x + threadIdx.x]);
}

/** Maximum by an atomicCAS loop. */
export function casMax(input: i32[], m: i32[]): void {
  const v = input[blockIdx.x * blockDim.x + threadIdx.x];
  let old = atomicAdd(m, 0, 0);
  while (v > old) {
    const seen = atomicCAS(m, 0, old, v);
    if (seen == old) break;
    old = seen;
  }
}

/** Each thread works in its own shared slots only. */
export function privateSlots(input: i32[], out: i32[]): void {
  const s = __extern_shared__<i32>();
  const t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  s[2 * t] = input[g];
  s[2 * t + 1] = s[2 * t] * 3;
  out[g] = s[2 * t + 1];
}

/** Launch 1 of a producer/consumer pair: each thread writes its element. */
export function produce(data: i32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = i * 7;
}

/** Launch 2: each thread reads an element another block wrote in launch 1 (ordered by the kernel boundary). */
export function consume(data: i32[], out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = data[n - 1 - i];
}

/** Lanes swap values through shared memory with __syncwarp between the store and the read. */
export function warpExchangeSync(input: i32[], out: i32[]): void {
  const s = __extern_shared__<i32>();
  const t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  s[t] = input[g];
  __syncwarp();
  out[g] = s[(t & ~31) | ((t & 31) ^ 1)];
}

/** Block reduction with barriers, then one integer atomicAdd per block. */
export function blockSumAtomic(input: i32[], total: i32[]): void {
  const s = __extern_shared__<i32>();
  const t = threadIdx.x;
  s[t] = input[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (let k = blockDim.x >> 1; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) atomicAdd(total, 0, s[0]);
}

/**
 * The CUDA programming guide's __threadfence() example (the last block sums the partials): each
 * block's sum to result[blockIdx.x]; its thread 0 fences, then atomicInc(count); the block whose
 * atomicInc returned gridDim.x - 1 (it saw every other block's) adds the partials into result[0]
 * and resets count. fence = 0 leaves the fence out: the corpus's racy twin (a data race).
 */
export function lastBlockSum(input: i32[], result: i32[], count: u32[], fence: i32): void {
  const isLastBlockDone = __shared__<i32>(1);
  const partial = __extern_shared__<i32>();
  const t = threadIdx.x;
  partial[t] = input[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (let k = blockDim.x >> 1; k > 0; k >>= 1) {
    if (t < k) partial[t] += partial[t + k];
    __syncthreads();
  }
  if (t == 0) {
    result[blockIdx.x] = partial[0];
    if (fence != 0) __threadfence();
    const ticket = atomicInc(count, 0, <u32>gridDim.x);
    isLastBlockDone[0] = ticket == <u32>(gridDim.x - 1) ? 1 : 0;
  }
  __syncthreads();
  if (isLastBlockDone[0] == 0) return;
  let sum = 0;
  for (let i = t; i < gridDim.x; i += blockDim.x) sum += result[i];
  partial[t] = sum;
  __syncthreads();
  if (t == 0) {
    let total = 0;
    for (let k = 0; k < blockDim.x; k++) total += partial[k];
    result[0] = total;
    count[0] = 0;
  }
}
