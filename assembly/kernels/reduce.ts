// Block reductions from seed 002 (`VecMax`): each thread folds a grid-stride slice of A into a
// register, the block folds those in a shared-memory tree (blockDim.x a power of two, as the
// seed requires), and thread 0 writes the block's partial to B[blockIdx.x]. A second launch
// with one block (or the host) folds the partials.
//
// The seed's `temp = RAND_MIN` is not a C constant; what it evidently means is "below every
// input": we start from -Infinity for max (and +Infinity for min, 0 for sum). NaN inputs are
// skipped by max/min, exactly as the seed's `if (A[i] > temp)` skips them.

import { blockIdx, blockDim, gridDim, sharedMem, beginPhase, threadAt, scheduleIsFree } from "../runtime";

// @ts-ignore: decorator
@inline const MAX: i32 = 0;
// @ts-ignore: decorator
@inline const MIN: i32 = 1;

// @ts-ignore: decorator
@inline function better(op: i32, candidate: f32, current: f32): bool {
  return op == MAX ? candidate > current : candidate < current;
}

// @ts-ignore: decorator
@inline function extremum(op: i32, A: usize, B: usize, N: i32): void {
  const cache = sharedMem();                  // extern __shared__ float cache[blockDim.x]
  const nt = blockDim.x;
  const stride = blockDim.x * gridDim.x;
  const start = blockDim.x * blockIdx.x;
  const init: f32 = op == MAX ? -Infinity : Infinity;

  if (scheduleIsFree()) {
    // Fast path. The block's partial is the extremum of its grid-stride slice; the per-thread
    // registers and the shared-memory tree only decide which of several equal values wins,
    // which is observable only for zeros (-0 vs +0). So take the extremum with SIMD
    // registers, streaming the slice; if it is ±0, fall through to the faithful phase loops
    // below for the exact bits CUDA's tree would produce.
    // pmax(acc, a) = acc < a ? a : acc — the seed's `if (A[i] > temp) temp = A[i]` (NaN never wins).
    let a0 = f32x4.splat(init), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    let best = init;
    for (let base = start; base < N; base += stride) {
      const lim = N - base >= nt ? nt : N - base;
      const src = A + (<usize>base << 2);
      let t = 0;
      // Eight independent accumulators hide the latency of pmax/pmin.
      for (; t + 32 <= lim; t += 32) {
        const p = src + (<usize>t << 2);
        if (op == MAX) {
          a0 = f32x4.pmax(a0, v128.load(p)); a1 = f32x4.pmax(a1, v128.load(p, 16));
          a2 = f32x4.pmax(a2, v128.load(p, 32)); a3 = f32x4.pmax(a3, v128.load(p, 48));
          a4 = f32x4.pmax(a4, v128.load(p, 64)); a5 = f32x4.pmax(a5, v128.load(p, 80));
          a6 = f32x4.pmax(a6, v128.load(p, 96)); a7 = f32x4.pmax(a7, v128.load(p, 112));
        } else {
          a0 = f32x4.pmin(a0, v128.load(p)); a1 = f32x4.pmin(a1, v128.load(p, 16));
          a2 = f32x4.pmin(a2, v128.load(p, 32)); a3 = f32x4.pmin(a3, v128.load(p, 48));
          a4 = f32x4.pmin(a4, v128.load(p, 64)); a5 = f32x4.pmin(a5, v128.load(p, 80));
          a6 = f32x4.pmin(a6, v128.load(p, 96)); a7 = f32x4.pmin(a7, v128.load(p, 112));
        }
      }
      for (; t + 4 <= lim; t += 4) {
        const a = v128.load(src + (<usize>t << 2));
        a0 = op == MAX ? f32x4.pmax(a0, a) : f32x4.pmin(a0, a);
      }
      for (; t < lim; t++) {
        const a = load<f32>(src + (<usize>t << 2));
        if (better(op, a, best)) best = a;
      }
    }
    a0 = op == MAX ? f32x4.pmax(f32x4.pmax(a0, a1), f32x4.pmax(a2, a3)) : f32x4.pmin(f32x4.pmin(a0, a1), f32x4.pmin(a2, a3));
    a4 = op == MAX ? f32x4.pmax(f32x4.pmax(a4, a5), f32x4.pmax(a6, a7)) : f32x4.pmin(f32x4.pmin(a4, a5), f32x4.pmin(a6, a7));
    const v = op == MAX ? f32x4.pmax(a0, a4) : f32x4.pmin(a0, a4);
    for (let l = 0; l < 4; l++) {
      const x = l == 0 ? f32x4.extract_lane(v, 0) : l == 1 ? f32x4.extract_lane(v, 1) : l == 2 ? f32x4.extract_lane(v, 2) : f32x4.extract_lane(v, 3);
      if (better(op, x, best)) best = x;
    }
    if (best != 0) {
      store<f32>(B + (<usize>blockIdx.x << 2), best);
      return;
    }
  }
  // Phase 1: every thread's grid-stride loop, its `temp` kept in cache[t].
  let n = beginPhase();
  for (let k = 0; k < n; k++) store<f32>(cache + (<usize>threadAt(k) << 2), init);
  for (let base = start; base < N; base += stride) {
    n = beginPhase();
    for (let k = 0; k < n; k++) {
      const t = threadAt(k);
      const i = base + t;
      if (i >= N) continue;
      const p = cache + (<usize>t << 2);
      const a = load<f32>(A + (<usize>i << 2));
      if (better(op, a, load<f32>(p))) store<f32>(p, a);
    }
  }
  // __syncthreads(); then the tree: one phase per halving.
  for (let ib = nt >> 1; ib != 0; ib >>= 1) {
    n = beginPhase();
    for (let k = 0; k < n; k++) {
      const t = threadAt(k);
      if (t < ib) {
        const other = load<f32>(cache + (<usize>(t + ib) << 2));
        if (better(op, other, load<f32>(cache + (<usize>t << 2)))) store<f32>(cache + (<usize>t << 2), other);
      }
    }
  }
  store<f32>(B + (<usize>blockIdx.x << 2), load<f32>(cache));
}

/** Seed 002's VecMax: B[blockIdx.x] = max of this block's grid-stride slice of A[0..N). */
export function vecMax(A: usize, B: usize, N: i32): void { extremum(MAX, A, B, N); }

/** The same with min. */
export function vecMin(A: usize, B: usize, N: i32): void { extremum(MIN, A, B, N); }

/**
 * Sum of f32 with f64 accumulation: each thread adds its grid-stride slice in f64, the block
 * tree adds in f64, B[blockIdx.x] is an f64 partial. Error bound: every addition is in f64, so
 * |result − exact| ≤ (N − 1)·2⁻⁵³·Σ|Aᵢ| (far below one f32 ulp of the sum for any N < 2²⁹);
 * the order of additions (grid-stride, then tree) is fixed by the launch shape, so the result
 * does not depend on the schedule.
 */
export function vecSum(A: usize, B: usize, N: i32): void {
  const acc = sharedMem();                    // extern __shared__ double acc[blockDim.x]
  const nt = blockDim.x;
  const stride = blockDim.x * gridDim.x;
  const start = blockDim.x * blockIdx.x;
  let n = beginPhase();
  for (let k = 0; k < n; k++) store<f64>(acc + (<usize>threadAt(k) << 3), 0);
  if (scheduleIsFree()) {
    for (let base = start; base < N; base += stride) {
      const lim = N - base >= nt ? nt : N - base;
      const vlim = lim & ~1;
      const src = A + (<usize>base << 2);
      for (let t = 0; t < vlim; t += 2) {
        const p = acc + (<usize>t << 3);
        const a = f64x2.promote_low_f32x4(v128.load64_zero(src + (<usize>t << 2)));
        v128.store(p, f64x2.add(v128.load(p), a));
      }
      if (vlim < lim) {
        const p = acc + (<usize>vlim << 3);
        store<f64>(p, load<f64>(p) + <f64>load<f32>(src + (<usize>vlim << 2)));
      }
    }
  } else {
    for (let base = start; base < N; base += stride) {
      n = beginPhase();
      for (let k = 0; k < n; k++) {
        const t = threadAt(k);
        const i = base + t;
        if (i >= N) continue;
        const p = acc + (<usize>t << 3);
        store<f64>(p, load<f64>(p) + <f64>load<f32>(A + (<usize>i << 2)));
      }
    }
  }
  for (let ib = nt >> 1; ib != 0; ib >>= 1) {
    if (scheduleIsFree() && ib >= 2) {
      // Threads t < ib each add acc[t + ib] into acc[t]: independent, so two at a time in
      // f64x2 — the same additions, so the same bits as the scalar phase.
      for (let t = 0; t < ib; t += 2) {
        const p = acc + (<usize>t << 3);
        v128.store(p, f64x2.add(v128.load(p), v128.load(acc + (<usize>(t + ib) << 3))));
      }
      continue;
    }
    n = beginPhase();
    for (let k = 0; k < n; k++) {
      const t = threadAt(k);
      if (t < ib) {
        const p = acc + (<usize>t << 3);
        store<f64>(p, load<f64>(p) + load<f64>(acc + (<usize>(t + ib) << 3)));
      }
    }
  }
  store<f64>(B + (<usize>blockIdx.x << 3), load<f64>(acc));
}
