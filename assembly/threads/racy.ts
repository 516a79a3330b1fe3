// The corpus's racy thread kernels (beyond the seeds'): each has exactly the defect its
// comment names. Host side: src/race/corpus.ts.
import {
  threadIdx, blockIdx, blockDim, sharedMem, threadLinear, laneId,
  ld, st, ldi, sti, atomicAdd, syncthreads,
} from "./runtime";

// @ts-ignore: decorator
@inline function gid(): i32 { return blockIdx.x * blockDim.x + threadIdx.x; }

/** Lost update: counter++ as a plain read-modify-write in global memory. */
export function tk_lostUpdate(counter: usize): void {
  const v = ld<i32>(counter);
  st<i32>(counter, v + 1);
}

/** Lost update in shared memory; thread 0 publishes the count. */
export function tk_lostUpdateShared(out: usize): void {
  const s = sharedMem();
  if (threadLinear() == 0) st<i32>(s, 0);
  syncthreads();
  st<i32>(s, ld<i32>(s) + 1);
  syncthreads();
  if (threadLinear() == 0) sti<i32>(out, blockIdx.x, ld<i32>(s));
}

/** Missing barrier: neighbours' tile entries read before they are written. */
export function tk_stencilNoSync(input: usize, out: usize): void {
  const t = threadLinear(); const s = sharedMem(); const n = blockDim.x;
  sti<i32>(s, t, ldi<i32>(input, gid()));
  sti<i32>(out, gid(), ldi<i32>(s, t) + ldi<i32>(s, (t + 1) % n));
}

/** Tree reduction without the barrier inside the loop. */
export function tk_reduceNoSync(input: usize, out: usize): void {
  const t = threadLinear(); const s = sharedMem();
  sti<i32>(s, t, ldi<i32>(input, gid()));
  syncthreads();
  for (let k = blockDim.x >> 1; k > 0; k >>= 1) {
    if (t < k) sti<i32>(s, t, ldi<i32>(s, t) + ldi<i32>(s, t + k));
  }
  if (t == 0) sti<i32>(out, blockIdx.x, ldi<i32>(s, 0));
}

/** Reduction whose last warp is unrolled without __syncwarp (warp-synchronous programming). */
export function tk_reduceWarpUnrolled(input: usize, out: usize): void {
  const t = threadLinear(); const s = sharedMem();
  sti<i32>(s, t, ldi<i32>(input, gid()));
  syncthreads();
  for (let k = blockDim.x >> 1; k > 32; k >>= 1) {
    if (t < k) sti<i32>(s, t, ldi<i32>(s, t) + ldi<i32>(s, t + k));
    syncthreads();
  }
  if (t < 32) {
    for (let k = 32; k > 0; k >>= 1) sti<i32>(s, t, ldi<i32>(s, t) + ldi<i32>(s, t + k));
  }
  if (t == 0) sti<i32>(out, blockIdx.x, ldi<i32>(s, 0));
}

/** Write-write: every thread stores its index to out[0]. */
export function tk_writeWrite(out: usize): void {
  sti<i32>(out, 0, gid());
}

/** Block 0 publishes data then a flag; block 1 reads the flag then the data: no order between blocks. */
export function tk_crossBlockPublish(data: usize, flag: usize, out: usize): void {
  if (threadLinear() != 0) return;
  if (blockIdx.x == 0) {
    sti<i32>(data, 0, 42);
    sti<i32>(flag, 0, 1);
  } else {
    const f = ldi<i32>(flag, 0);
    sti<i32>(out, 0, f != 0 ? ldi<i32>(data, 0) : -1);
  }
}

/** Out of bounds: no `i < n` guard; the launch has more threads than elements. */
export function tk_oobWrite(out: usize, n: i32): void {
  sti<i32>(out, gid(), gid());
}

/** Out of bounds: reads input[i + 1] for i < n. */
export function tk_oobRead(input: usize, out: usize, n: i32): void {
  const i = gid();
  if (i < n) sti<i32>(out, i, ldi<i32>(input, i + 1));
}

/** Barrier in a branch only half the block takes. */
export function tk_divergentBarrier(out: usize): void {
  const t = threadLinear();
  if (t < (blockDim.x >> 1)) syncthreads(1);
  sti<i32>(out, gid(), t);
}

/** Odd and even threads wait at two different barriers. */
export function tk_barrierSites(out: usize): void {
  const t = threadLinear();
  if (t & 1) syncthreads(1); else syncthreads(2);
  sti<i32>(out, gid(), t);
}

/** Histogram with plain increments. */
export function tk_histogramPlain(input: usize, hist: usize, bins: i32): void {
  const b = ldi<i32>(input, gid()) % bins;
  sti<i32>(hist, b, ldi<i32>(hist, b) + 1);
}

/** An atomic and a plain read of the same word, unordered. */
export function tk_atomicVsPlain(counter: usize, out: usize): void {
  const t = threadLinear();
  if (t == 0) atomicAdd<i32>(counter, 1);
  else sti<i32>(out, t, ldi<i32>(counter, 0));
}

/** Double buffering with the barrier after the write but not before it (write-after-read). */
export function tk_doubleBufferNoSync(input: usize, out: usize): void {
  const t = threadLinear(); const s = sharedMem(); const n = blockDim.x;
  sti<i32>(s, t, ldi<i32>(input, gid()));
  syncthreads();
  for (let it = 0; it < 2; it++) {
    const v = ldi<i32>(s, (t + 1) % n) + ldi<i32>(s, (t + n - 1) % n);
    sti<i32>(s, t, v);          // missing __syncthreads() before this write
    syncthreads();
  }
  sti<i32>(out, gid(), ldi<i32>(s, t));
}

/** Thread 0 fills a shared word the others read without a barrier. */
export function tk_broadcastNoSync(input: usize, out: usize): void {
  const s = sharedMem();
  if (threadLinear() == 0) st<i32>(s, ldi<i32>(input, 0));
  sti<i32>(out, gid(), ld<i32>(s));
}

/** Lanes exchange through shared memory relying on lock-step (no __syncwarp). */
export function tk_warpExchangeNoSync(input: usize, out: usize): void {
  const s = sharedMem(); const t = threadLinear(); const l = laneId();
  sti<i32>(s, t, ldi<i32>(input, gid()));
  sti<i32>(out, gid(), ldi<i32>(s, (t & ~31) | (l ^ 1)));
}

/** Maximum by plain compare-and-store. */
export function tk_plainMax(input: usize, m: usize): void {
  const v = ldi<i32>(input, gid());
  if (v > ld<i32>(m)) st<i32>(m, v);
}
