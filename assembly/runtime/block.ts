// Block-wide barriers with a predicate, for phase-loop kernels: each thread's predicate sits
// in an i32 array (one element per linear thread index), written in the phase before the
// barrier; the result is the same for every thread, as CUDA defines it.

import { blockThreads } from "./dims";

/** __syncthreads_count: the number of threads whose predicate is non-zero. */
export function syncthreadsCount(preds: usize): i32 {
  let count = 0;
  for (let t = 0; t < blockThreads; t++) if (load<i32>(preds + (<usize>t << 2)) != 0) count++;
  return count;
}

/** __syncthreads_or: non-zero when any thread's predicate is non-zero. */
export function syncthreadsOr(preds: usize): bool {
  for (let t = 0; t < blockThreads; t++) if (load<i32>(preds + (<usize>t << 2)) != 0) return true;
  return false;
}

/** __syncthreads_and: non-zero when every thread's predicate is non-zero. */
export function syncthreadsAnd(preds: usize): bool {
  for (let t = 0; t < blockThreads; t++) if (load<i32>(preds + (<usize>t << 2)) == 0) return false;
  return true;
}
