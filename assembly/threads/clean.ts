// The corpus's race-free thread kernels: each orders every conflicting pair of accesses by a
// barrier, __syncwarp, atomics or a kernel boundary, and stays in bounds.
import {
  threadIdx, blockIdx, blockDim, gridDim, sharedMem, threadLinear, laneId,
  ld, st, ldi, sti, atomicAdd, atomicMax, atomicCAS, atomicInc, syncthreads, syncwarp, threadfence,
} from "./runtime";

// @ts-ignore: decorator
@inline function gid(): i32 { return blockIdx.x * blockDim.x + threadIdx.x; }

export function tk_atomicCounter(counter: usize): void {
  atomicAdd<i32>(counter, 1);
}

export function tk_sharedAtomicCounter(out: usize): void {
  const s = sharedMem();
  if (threadLinear() == 0) st<i32>(s, 0);
  syncthreads();
  atomicAdd<i32>(s, 1);
  syncthreads();
  if (threadLinear() == 0) sti<i32>(out, blockIdx.x, ld<i32>(s));
}

export function tk_reduceSync(input: usize, out: usize): void {
  const t = threadLinear(); const s = sharedMem();
  sti<i32>(s, t, ldi<i32>(input, gid()));
  syncthreads();
  for (let k = blockDim.x >> 1; k > 0; k >>= 1) {
    if (t < k) sti<i32>(s, t, ldi<i32>(s, t) + ldi<i32>(s, t + k));
    syncthreads();
  }
  if (t == 0) sti<i32>(out, blockIdx.x, ldi<i32>(s, 0));
}

/** Last warp unrolled, each step's reads and writes separated by __syncwarp. */
export function tk_reduceWarpSync(input: usize, out: usize): void {
  const t = threadLinear(); const s = sharedMem();
  sti<i32>(s, t, ldi<i32>(input, gid()));
  syncthreads();
  for (let k = blockDim.x >> 1; k > 32; k >>= 1) {
    if (t < k) sti<i32>(s, t, ldi<i32>(s, t) + ldi<i32>(s, t + k));
    syncthreads();
  }
  if (t < 32) {
    for (let k = 32; k > 0; k >>= 1) {
      const v = ldi<i32>(s, t) + ldi<i32>(s, t + k);
      syncwarp();
      sti<i32>(s, t, v);
      syncwarp();
    }
  }
  if (t == 0) sti<i32>(out, blockIdx.x, ldi<i32>(s, 0));
}

export function tk_stencilSync(input: usize, out: usize): void {
  const t = threadLinear(); const s = sharedMem(); const n = blockDim.x;
  sti<i32>(s, t, ldi<i32>(input, gid()));
  syncthreads();
  sti<i32>(out, gid(), ldi<i32>(s, t) + ldi<i32>(s, (t + 1) % n));
}

export function tk_vectorAdd(a: usize, b: usize, out: usize, n: i32): void {
  const i = gid();
  if (i < n) sti<i32>(out, i, ldi<i32>(a, i) + ldi<i32>(b, i));
}

export function tk_gridStrideCopy(input: usize, out: usize, n: i32): void {
  for (let i = gid(); i < n; i += blockDim.x * 2) sti<i32>(out, i, ldi<i32>(input, i));
}

export function tk_histogramAtomic(input: usize, hist: usize, bins: i32): void {
  const b = ldi<i32>(input, gid()) % bins;
  atomicAdd<i32>(hist + (<usize>b << 2), 1);
}

/** 2-D block: transpose a blockDim.x × blockDim.x tile through shared memory. */
export function tk_transposeShared(input: usize, out: usize): void {
  const s = sharedMem(); const n = blockDim.x; const x = threadIdx.x; const y = threadIdx.y;
  sti<i32>(s, y * n + x, ldi<i32>(input, y * n + x));
  syncthreads();
  sti<i32>(out, y * n + x, ldi<i32>(s, x * n + y));
}

export function tk_doubleBufferSync(input: usize, out: usize): void {
  const t = threadLinear(); const s = sharedMem(); const n = blockDim.x;
  sti<i32>(s, t, ldi<i32>(input, gid()));
  syncthreads();
  for (let it = 0; it < 2; it++) {
    const v = ldi<i32>(s, (t + 1) % n) + ldi<i32>(s, (t + n - 1) % n);
    syncthreads();
    sti<i32>(s, t, v);
    syncthreads();
  }
  sti<i32>(out, gid(), ldi<i32>(s, t));
}

export function tk_broadcastSync(input: usize, out: usize): void {
  const s = sharedMem();
  if (threadLinear() == 0) st<i32>(s, ldi<i32>(input, 0));
  syncthreads();
  sti<i32>(out, gid(), ld<i32>(s));
}

export function tk_atomicMaxKernel(input: usize, m: usize): void {
  atomicMax<i32>(m, ldi<i32>(input, gid()));
}

/** Maximum by a compare-and-swap loop. */
export function tk_casMax(input: usize, m: usize): void {
  const v = ldi<i32>(input, gid());
  let old = atomicAdd<i32>(m, 0);
  while (v > old) {
    const seen = atomicCAS<i32>(m, old, v);
    if (seen == old) break;
    old = seen;
  }
}

/** Each thread works in its own shared slots only. */
export function tk_privateSlots(input: usize, out: usize): void {
  const s = sharedMem(); const t = threadLinear();
  sti<i32>(s, 2 * t, ldi<i32>(input, gid()));
  sti<i32>(s, 2 * t + 1, ldi<i32>(s, 2 * t) * 3);
  sti<i32>(out, gid(), ldi<i32>(s, 2 * t + 1));
}

/** Launch 1 of a producer/consumer pair: each thread writes its element. */
export function tk_produce(data: usize): void {
  sti<i32>(data, gid(), gid() * 7);
}

/** Launch 2: each thread reads an element another block wrote in launch 1 (ordered by the kernel boundary). */
export function tk_consume(data: usize, out: usize, n: i32): void {
  const i = gid();
  sti<i32>(out, i, ldi<i32>(data, n - 1 - i));
}

export function tk_warpExchangeSync(input: usize, out: usize): void {
  const s = sharedMem(); const t = threadLinear(); const l = laneId();
  sti<i32>(s, t, ldi<i32>(input, gid()));
  syncwarp();
  sti<i32>(out, gid(), ldi<i32>(s, (t & ~31) | (l ^ 1)));
}

/** Block reduction with barriers, then one integer atomicAdd per block. */
export function tk_blockSumAtomic(input: usize, total: usize): void {
  const t = threadLinear(); const s = sharedMem();
  sti<i32>(s, t, ldi<i32>(input, gid()));
  syncthreads();
  for (let k = blockDim.x >> 1; k > 0; k >>= 1) {
    if (t < k) sti<i32>(s, t, ldi<i32>(s, t) + ldi<i32>(s, t + k));
    syncthreads();
  }
  if (t == 0) atomicAdd<i32>(total, ldi<i32>(s, 0));
}

/**
 * The CUDA programming guide's __threadfence() example (the last block adds the partial sums):
 * each block's sum to result[blockIdx.x]; its thread 0 fences, then atomicInc(count); the block
 * whose atomicInc returned gridDim.x - 1 — it observed every other block's — adds the partials
 * into result[0] and resets count. Shared memory: word 0 the "last block" flag, then one word
 * per thread. `fence` = 0 leaves the fence out: the corpus's racy twin.
 */
export function tk_lastBlockSum(input: usize, result: usize, count: usize, fence: i32): void {
  const t = threadLinear(); const s = sharedMem();
  sti<i32>(s, t + 1, ldi<i32>(input, gid()));
  syncthreads();
  for (let k = blockDim.x >> 1; k > 0; k >>= 1) {
    if (t < k) sti<i32>(s, t + 1, ldi<i32>(s, t + 1) + ldi<i32>(s, t + k + 1));
    syncthreads();
  }
  if (t == 0) {
    sti<i32>(result, blockIdx.x, ldi<i32>(s, 1));
    if (fence != 0) threadfence();
    const ticket = atomicInc(count, <u32>gridDim.x);
    st<i32>(s, ticket == <u32>(gridDim.x - 1) ? 1 : 0);
  }
  syncthreads();
  if (ld<i32>(s) == 0) return;
  let sum = 0;
  for (let i = t; i < gridDim.x; i += blockDim.x) sum += ldi<i32>(result, i);
  sti<i32>(s, t + 1, sum);
  syncthreads();
  if (t == 0) {
    let total = 0;
    for (let k = 0; k < blockDim.x; k++) total += ldi<i32>(s, k + 1);
    sti<i32>(result, 0, total);
    st<u32>(count, 0);
  }
}
