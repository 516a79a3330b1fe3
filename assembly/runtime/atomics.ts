// CUDA's atomic functions with CUDA's exact semantics, on wasm atomics (all sequentially
// consistent). Each returns the old value, as CUDA does. Generic over the element type, so a
// kernel reads `atomicAdd<f32>(p, v)` where CUDA reads `atomicAdd(float*, float)`.
//
// Supported types (as CUDA): atomicAdd i32 u32 u64 f32 f64 · atomicSub i32 u32 · atomicExch
// i32 u32 u64 f32 · atomicMin/atomicMax i32 u32 i64 u64 f32 · atomicInc/atomicDec u32 ·
// atomicCAS i32 u32 u64 · atomicAnd/Or/Xor i32 u32 u64.
//
// What wasm lacks is built from a compare-exchange loop: float add, min/max, inc/dec.
// Float min/max follow fminf/fmaxf: a NaN operand loses to a number (the stored value is
// replaced by `val` only when `val` compares greater/less); -0 and +0 compare equal, so the
// stored one is kept.


/** atomicAdd: *p = old + v. */
export function atomicAdd<T>(ptr: usize, v: T): T {
  if (isFloat<T>()) {
    if (sizeof<T>() == 4) {
      let old = atomic.load<u32>(ptr);
      while (true) {
        const next = reinterpret<u32>(reinterpret<f32>(old) + <f32>v);
        const seen = atomic.cmpxchg<u32>(ptr, old, next);
        if (seen == old) return <T>reinterpret<f32>(old);
        old = seen;
      }
    } else {
      let old = atomic.load<u64>(ptr);
      while (true) {
        const next = reinterpret<u64>(reinterpret<f64>(old) + <f64>v);
        const seen = atomic.cmpxchg<u64>(ptr, old, next);
        if (seen == old) return <T>reinterpret<f64>(old);
        old = seen;
      }
    }
  } else {
    return atomic.add<T>(ptr, v);
  }
}

/** atomicSub: *p = old - v. */
// @ts-ignore: decorator
@inline export function atomicSub<T>(ptr: usize, v: T): T { return atomic.sub<T>(ptr, v); }

/** atomicExch: *p = v. */
export function atomicExch<T>(ptr: usize, v: T): T {
  if (isFloat<T>()) {
    if (sizeof<T>() == 4) return <T>reinterpret<f32>(atomic.xchg<u32>(ptr, reinterpret<u32>(<f32>v)));
    return <T>reinterpret<f64>(atomic.xchg<u64>(ptr, reinterpret<u64>(<f64>v)));
  }
  return atomic.xchg<T>(ptr, v);
}

/** atomicCAS: *p = (old == compare) ? v : old. */
// @ts-ignore: decorator
@inline export function atomicCAS<T>(ptr: usize, compare: T, v: T): T {
  return atomic.cmpxchg<T>(ptr, compare, v);
}

/** atomicAnd / atomicOr / atomicXor. */
// @ts-ignore: decorator
@inline export function atomicAnd<T>(ptr: usize, v: T): T { return atomic.and<T>(ptr, v); }
// @ts-ignore: decorator
@inline export function atomicOr<T>(ptr: usize, v: T): T { return atomic.or<T>(ptr, v); }
// @ts-ignore: decorator
@inline export function atomicXor<T>(ptr: usize, v: T): T { return atomic.xor<T>(ptr, v); }

/** atomicMax: *p = max(old, v) (signed or unsigned by T; fmaxf-like for f32). */
export function atomicMax<T>(ptr: usize, v: T): T {
  if (isFloat<T>()) {
    let old = atomic.load<u32>(ptr);
    while (true) {
      const o = reinterpret<f32>(old);
      // Replace when v is greater, or when the stored value is NaN and v is a number.
      if (!(<f32>v > o) && !(o != o && <f32>v == <f32>v)) return <T>o;
      const seen = atomic.cmpxchg<u32>(ptr, old, reinterpret<u32>(<f32>v));
      if (seen == old) return <T>o;
      old = seen;
    }
  } else {
    let old = atomic.load<T>(ptr);
    while (true) {
      if (!(v > old)) return old;
      const seen = atomic.cmpxchg<T>(ptr, old, v);
      if (seen == old) return old;
      old = seen;
    }
  }
}

/** atomicMin: *p = min(old, v) (signed or unsigned by T; fminf-like for f32). */
export function atomicMin<T>(ptr: usize, v: T): T {
  if (isFloat<T>()) {
    let old = atomic.load<u32>(ptr);
    while (true) {
      const o = reinterpret<f32>(old);
      if (!(<f32>v < o) && !(o != o && <f32>v == <f32>v)) return <T>o;
      const seen = atomic.cmpxchg<u32>(ptr, old, reinterpret<u32>(<f32>v));
      if (seen == old) return <T>o;
      old = seen;
    }
  } else {
    let old = atomic.load<T>(ptr);
    while (true) {
      if (!(v < old)) return old;
      const seen = atomic.cmpxchg<T>(ptr, old, v);
      if (seen == old) return old;
      old = seen;
    }
  }
}

/**
 * atomicInc (u32 only): *p = (old >= val) ? 0 : old + 1 — wraps to 0, it does not saturate
 * (CMS's CPU fallback saturates; CUDA does not).
 */
export function atomicInc(ptr: usize, val: u32): u32 {
  let old = atomic.load<u32>(ptr);
  while (true) {
    const next: u32 = old >= val ? 0 : old + 1;
    const seen = atomic.cmpxchg<u32>(ptr, old, next);
    if (seen == old) return old;
    old = seen;
  }
}

/** atomicDec (u32 only): *p = (old == 0 || old > val) ? val : old - 1. */
export function atomicDec(ptr: usize, val: u32): u32 {
  let old = atomic.load<u32>(ptr);
  while (true) {
    const next: u32 = (old == 0 || old > val) ? val : old - 1;
    const seen = atomic.cmpxchg<u32>(ptr, old, next);
    if (seen == old) return old;
    old = seen;
  }
}
