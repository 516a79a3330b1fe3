// SinglesStruct as the seed declares it, 16 bytes, one v128:
//   { uint32 globalCrystalIndex; float energy; double timevalue; }   // offsets 0, 4, 8
// A coincidence pair (CoinStruct) is two of them, 32 bytes.

export const SINGLE_BYTES: i32 = 16;
export const PAIR_BYTES: i32 = 32;
/** Crystal index of padding and of frames that failed validation. */
export const NO_CRYSTAL: u32 = 0xffffffff;

// @ts-ignore: decorator
@inline export function singleAt(base: usize, i: i32): usize { return base + (<usize>i << 4); }
// @ts-ignore: decorator
@inline export function timeOf(base: usize, i: i32): f64 { return load<f64>(base + (<usize>i << 4), 8); }
// @ts-ignore: decorator
@inline export function crystalOf(base: usize, i: i32): u32 { return load<u32>(base + (<usize>i << 4)); }
// @ts-ignore: decorator
@inline export function copySingle(dst: usize, src: usize): void { v128.store(dst, v128.load(src)); }

import { blockIdx, blockDim, gridDim, beginPhase, threadAt } from "../../runtime";

// petSplitSingles and petSplitPairs are declared specializations of the per-thread kernels of
// kernels/pet/split.ts (same bytes, test/specializations.test.ts): the phase loops need no
// bounds checks (about 3× and 2× the generic forms on the job's read-back, bench/RESULTS.md).

/**
 * SinglesStruct[n] (AoS) → crystal[n], energy[n], time[n] (SoA), so the host reads three
 * plain arrays instead of splitting records in JS. Grid-stride, one single per thread.
 */
export function petSplitSingles(src: usize, n: i32, crystal: usize, energy: usize, time: usize): void {
  const stride = gridDim.x * blockDim.x;
  for (let base = blockIdx.x * blockDim.x; base < n; base += stride) {
    const m = beginPhase();
    for (let k = 0; k < m; k++) {
      const i = base + threadAt(k);
      if (i >= n) continue;
      const p = singleAt(src, i);
      store<u32>(crystal + (<usize>i << 2), load<u32>(p));
      store<f32>(energy + (<usize>i << 2), load<f32>(p, 4));
      store<f64>(time + (<usize>i << 3), load<f64>(p, 8));
    }
  }
}

/**
 * CoinStruct[n] (two SinglesStruct each) and each pair's first single → the pair table's
 * columns (SoA): index1 = first + 1, crystal0/1, energy0/1, time0/1, so the host gets the
 * pairs as arrays without regrouping records itself (a single-threaded loop that took most
 * of the job's host time at 16 workers). Grid-stride, one pair per thread.
 */
export function petSplitPairs(pairs: usize, first: usize, n: i32, index1: usize, crystal0: usize, crystal1: usize,
                              energy0: usize, energy1: usize, time0: usize, time1: usize): void {
  const stride = gridDim.x * blockDim.x;
  for (let base = blockIdx.x * blockDim.x; base < n; base += stride) {
    const m = beginPhase();
    for (let k = 0; k < m; k++) {
      const i = base + threadAt(k);
      if (i >= n) continue;
      const p = pairs + (<usize>i << 5);
      const w = <usize>i << 2, d = <usize>i << 3;
      store<u32>(index1 + w, load<u32>(first + w) + 1);
      store<u32>(crystal0 + w, load<u32>(p));
      store<u32>(crystal1 + w, load<u32>(p, 16));
      store<f32>(energy0 + w, load<f32>(p, 4));
      store<f32>(energy1 + w, load<f32>(p, 20));
      store<f64>(time0 + d, load<f64>(p, 8));
      store<f64>(time1 + d, load<f64>(p, 24));
    }
  }
}
