// Kernels for test/race-defects.test.ts: each reproduces one defect the race tools had (issue
// 13) — a crash, a missed race, a mislabelled hazard — or exercises a block/warp operation in
// the fine-grained form.
import {
  threadIdx, blockIdx, blockDim, __syncthreads, __syncthreads_count, __syncthreads_or, __shfl_up_sync,
  __extern_shared__, atomicAdd, atomicExch,
} from "simt/kernel";

/** Thread 0 stores a byte inside the word thread 32 stores: accesses of different sizes overlap. */
export function mixedSizes(out: i32[]): void {
  const bytes = __extern_shared__<u8>();
  const words = __extern_shared__<i32>();
  const t = threadIdx.x;
  if (t == 0) bytes[1] = 7; // HAZARD: byte store
  if (t == 32) words[0] = 1; // HAZARD: word store
  __syncthreads();
  if (t == 0) out[0] = words[0];
}

/** Thread 0 stores, then adds atomically; thread 32 adds atomically: the store races with thread 32's add. */
export function storeThenAtomic(a: i32[]): void {
  const t = threadIdx.x;
  if (t == 0) {
    a[0] = 5; // HAZARD: plain store
    atomicAdd(a, 0, 1);
  }
  if (t == 32) atomicAdd(a, 0, 1); // HAZARD: unordered atomic
}

/** The lanes of warp 0 store their own index to one element, in one instruction. */
export function laneStores(out: i32[]): void {
  if (threadIdx.x < 32) out[0] = threadIdx.x; // HAZARD: lanes store different values
}

/** The lanes of warp 0 store the same value to one element. */
export function laneStoresSame(out: i32[]): void {
  if (threadIdx.x < 32) out[0] = 7; // SAME: one value
}

/** Block votes and an inclusive warp scan by __shfl_up_sync. */
export function votesAndScan(input: i32[], out: i32[], flags: i32[]): void {
  const t = threadIdx.x;
  const g = blockIdx.x * blockDim.x + t;
  let v = input[g];
  const n = __syncthreads_count(v > 0);
  const big = __syncthreads_or(v > 8);
  for (let d = 1; d < 32; d *= 2) {
    const up = __shfl_up_sync(0xffffffff, v, d);
    if ((t & 31) >= d) v += up;
  }
  out[g] = v;
  if (t == 0) {
    flags[blockIdx.x * 2] = n;
    flags[blockIdx.x * 2 + 1] = big;
  }
}

/** Block 0 spins until block 1 sets a flag: nothing promises block 1 runs meanwhile. */
export function spinOnFlag(flag: i32[], out: i32[]): void {
  if (blockIdx.x == 0) {
    while (atomicAdd(flag, 0, 0) == 0) {} // SPIN
    out[0] = 1;
  } else {
    atomicExch(flag, 0, 1);
  }
}
