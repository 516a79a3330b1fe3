// Thread scheduling inside a block written as phase loops.
//
// A barrier-free stretch of a CUDA kernel (a "phase") is emulated as a loop over the block's
// threads. In the fast `wasm` backend that loop runs threads in index order (and kernels may
// vectorise it: `scheduleIsFree()`), since real concurrency between workers already makes the
// outcome nondeterministic. In the `serial` backend every phase runs its threads in an order
// drawn from a generator seeded by (launch seed, block index, phase number), so a seed fixes
// the whole interleaving and replays it bit for bit.
//
// Usage, for each phase:
//   const n = beginPhase();
//   for (let k = 0; k < n; k++) { const t = threadAt(k); ... thread t's code ... }

import { blockThreads, blockLinear } from "./dims";
import { threadOrderTable } from "./scratch";

/** 0: free (index order, SIMD allowed), 1: seeded (serial backend). */
let mode: i32 = 0;
let launchSeed: u64 = 0;
let rng: u64 = 0;

/** Set per launch by the worker. */
export function __setSchedule(seeded: i32, seedLo: u32, seedHi: u32): void {
  mode = seeded;
  launchSeed = (<u64>seedHi << 32) | <u64>seedLo;
}

/** splitmix64: a tiny, well-mixed generator; the schedule format pins it (see docs). */
// @ts-ignore: decorator
@inline function nextRandom(): u64 {
  rng += 0x9e3779b97f4a7c15;
  let z = rng;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

/** Uniform integer in [0, bound) (bound ≤ 2³²), by 64-bit multiply-shift. */
// @ts-ignore: decorator
@inline function below(bound: u32): u32 {
  return <u32>(((nextRandom() >> 32) * <u64>bound) >> 32);
}

/** Called by the worker before each block: reseeds the per-block stream. */
export function __beginBlock(): void {
  rng = launchSeed ^ (<u64>blockLinear * 0xd1b54a32d192ed03);
}

/** True when the phase may run its threads in any order the kernel likes (fast backend). */
// @ts-ignore: decorator
@inline export function scheduleIsFree(): bool { return mode == 0; }

/**
 * Starts a phase and returns the number of threads to run. In seeded mode it draws a fresh
 * thread order (Fisher–Yates over the block's threads).
 */
export function beginPhase(): i32 {
  const n = blockThreads;
  if (mode != 0) {
    const table = threadOrderTable();
    for (let k = 0; k < n; k++) store<i32>(table + (<usize>k << 2), k);
    for (let k = n - 1; k > 0; k--) {
      const j = <i32>below(<u32>(k + 1));
      const a = load<i32>(table + (<usize>k << 2));
      store<i32>(table + (<usize>k << 2), load<i32>(table + (<usize>j << 2)));
      store<i32>(table + (<usize>j << 2), a);
    }
  }
  return n;
}

/** The k-th thread to run in the current phase. */
// @ts-ignore: decorator
@inline export function threadAt(k: i32): i32 {
  return mode == 0 ? k : load<i32>(threadOrderTable() + (<usize>k << 2));
}
