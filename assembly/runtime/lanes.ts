// Four consecutive threads in the lanes of one wasm SIMD vector: what the block form's x4
// region functions call (src/compiler/laneVector.ts). A region's thread loop runs its threads
// four at a time, lane k being thread t0 + k; a value that differs between the threads is a
// v128 (i32x4 for integers and booleans — a boolean lane is 0 or -1 —, f32x4 for floats).
//
// Every access keeps the scalar form's bounds check and trap: a contiguous access checks its
// first and last element, and when either is outside the array the lanes are checked one by one
// in thread order, so the trap names the first thread whose index is outside, as the scalar
// loop would.

import { blockThreads } from "./dims";
import { registers } from "./scratch";
import { __ld, __st, __ldu, __stu, __checkLanes, __shflU, __shflUpU, __shflDownU, __shflXorU } from "./compiled";

/** The four threads' values of `base + lane`: (base, base + 1, base + 2, base + 3). */
// @ts-ignore: decorator
@inline export function __lanes(base: i32): v128 {
  return i32x4.add(i32x4.splat(base), i32x4(0, 1, 2, 3));
}

// `lane op b` over the lanes a, a + 1, a + 2, a + 3 (i32, wrapping as __lanes does), op coded
// 0 <, 1 <=, 2 >, 3 >=, 4 ==, 5 != (src/compiler/laneVector.ts, affineTest), tested on a alone
// instead of a lane mask: whether all four lanes satisfy it (true only if they do) and whether
// any lane does (false only if none does). Where a + 3 wraps, __affAll may say false and
// __affAny true: the caller then runs the lanes one by one, which decides exactly. A loop's
// test is its hottest code: `<i64>a + 3 < <i64>b` measured VecMax 20 % faster than the exact
// form with a select.

/** The least of the lanes a … a + 3: a, or i32.MIN_VALUE where a + 3 wraps. */
// @ts-ignore: decorator
@inline function laneMin(a: i32): i32 { return a + 3 < a ? i32.MIN_VALUE : a; }

/** Do all four lanes satisfy `lane op b`? (False where unsure.) */
// @ts-ignore: decorator
@inline export function __affAll(op: i32, a: i32, b: i32): bool {
  if (op == 0) return <i64>a + 3 < <i64>b;
  if (op == 1) return <i64>a + 3 <= <i64>b;
  if (op == 2) return laneMin(a) > b;
  if (op == 3) return laneMin(a) >= b;
  if (op == 4) return false; // four different values
  return <u32>(b - a) > 3;
}

/** Does any lane satisfy `lane op b`? (True where unsure.) */
// @ts-ignore: decorator
@inline export function __affAny(op: i32, a: i32, b: i32): bool {
  if (op == 0) return laneMin(a) < b;
  if (op == 1) return laneMin(a) <= b;
  if (op == 2) return <i64>a + 3 > <i64>b;
  if (op == 3) return <i64>a + 3 >= <i64>b;
  if (op == 4) return <u32>(b - a) <= 3;
  return true;
}

/** A lane's index as the scalar form converts it: sign-extended for i32, zero-extended for u32. */
// @ts-ignore: decorator
@inline function indexAt(iv: v128, k: i32, unsigned: bool): i64 {
  const x = laneOf<i32>(iv, k);
  return unsigned ? <i64><u32>x : <i64>x;
}

/**
 * Is every lane / some lane of a mask (lanes 0 or -1) set? From the lanes' sign bits (one
 * movmskps on x64) rather than i32x4.all_true / v128.any_true: countModules' x4 loop tests
 * about ten masks per four digis, and took 15–20 % less time so.
 */
// @ts-ignore: decorator
@inline export function __all4(m: v128): bool { return i32x4.bitmask(m) == 15; }
// @ts-ignore: decorator
@inline export function __any4(m: v128): bool { return i32x4.bitmask(m) != 0; }

/** Are the lanes base, base + 1, base + 2, base + 3 (a contiguous run)? */
// @ts-ignore: decorator
@inline function contiguous(iv: v128): bool {
  return __all4(i32x4.eq(iv, __lanes(i32x4.extract_lane(iv, 0))));
}

// @ts-ignore: decorator
@inline function ldLane<T>(checked: bool, base: usize, len: i32, i: i64, array: i32, site: i32, t: i32): T {
  return checked ? __ld<T>(base, len, i, array, site, t) : __ldu<T>(base, len, i, array, site, t);
}

// @ts-ignore: decorator
@inline function stLane<T>(checked: bool, base: usize, len: i32, i: i64, array: i32, site: i32, t: i32, v: T): void {
  if (checked) __st<T>(base, len, i, array, site, t, v); else __stu<T>(base, len, i, array, site, t, v);
}

/**
 * Is some lane of i, i + 1, i + 2, i + 3 outside [0, len)? A negative i sets every bit of the
 * left side. One compare and branch: a loop's access is its hot path, where a second branch
 * (`|| i < 0`) cost VecMax 40 % and a `max` 25 %.
 */
// @ts-ignore: decorator
@inline function lanesOutside(i: i32, len: i32): bool {
  return (<u64>(<i64>i + 3) | <u64>(<i64>i >> 63)) >= <u64><u32>len;
}

/** Are the four lanes' indices i … i + 3 all inside [0, len)? */
// @ts-ignore: decorator
@inline export function __inside4(i: i32, len: i32): bool { return !lanesOutside(i, len); }

// --- loads ---------------------------------------------------------------------------------------

/** Lanes' elements a[i], a[i + 1], a[i + 2], a[i + 3] of a 32-bit element type (one load). */
// @ts-ignore: decorator
@inline export function __ld4<T>(checked: bool, base: usize, len: i32, i: i32, array: i32, site: i32, t0: i32): v128 {
  // Some lane outside: the first one (thread order) traps.
  if (checked && lanesOutside(i, len)) __checkLanes(len, <i64>i, array, site, t0);
  const p = base + (<usize>i << alignof<T>());
  if (sizeof<T>() == 4) return v128.load(p);
  // 8- and 16-bit elements: one narrow load, widened to i32 lanes as the scalar load extends them.
  if (sizeof<T>() == 2) return isSigned<T>() ? i32x4.extend_low_i16x8_s(v128.load64_zero(p)) : i32x4.extend_low_i16x8_u(v128.load64_zero(p));
  return isSigned<T>() ? i32x4.extend_low_i16x8_s(i16x8.extend_low_i8x16_s(v128.load32_zero(p)))
    : i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(v128.load32_zero(p)));
}

/** Lanes' elements a[iv[k]] (one load when the indices are contiguous). */
// @ts-ignore: decorator
@inline export function __ldv4<T>(checked: bool, base: usize, len: i32, iv: v128, unsigned: bool, array: i32, site: i32, t0: i32): v128 {
  if (sizeof<T>() <= 4 && contiguous(iv)) return __ld4<T>(checked, base, len, i32x4.extract_lane(iv, 0), array, site, t0);
  return __gather4<T>(checked, base, len, iv, unsigned, array, site, t0);
}

/**
 * Lanes' elements a[iv[k]] where lane k of m is set, 0 elsewhere: the loads of `p && a[i] …`
 * (only the lanes where p holds read a[i], as in the scalar form).
 */
// @ts-ignore: decorator
@inline export function __ldm4<T>(m: v128, checked: bool, base: usize, len: i32, iv: v128, unsigned: bool, array: i32, site: i32, t0: i32): v128 {
  if (__all4(m)) return __ldv4<T>(checked, base, len, iv, unsigned, array, site, t0);
  return fromLanes<T>(i32x4.extract_lane(m, 0) != 0 ? ldLane<T>(checked, base, len, indexAt(iv, 0, unsigned), array, site, t0) : <T>0,
    i32x4.extract_lane(m, 1) != 0 ? ldLane<T>(checked, base, len, indexAt(iv, 1, unsigned), array, site, t0 + 1) : <T>0,
    i32x4.extract_lane(m, 2) != 0 ? ldLane<T>(checked, base, len, indexAt(iv, 2, unsigned), array, site, t0 + 2) : <T>0,
    i32x4.extract_lane(m, 3) != 0 ? ldLane<T>(checked, base, len, indexAt(iv, 3, unsigned), array, site, t0 + 3) : <T>0);
}

/** Lane k's element a[iv[k]], loaded one by one in thread order (each checked). */
// @ts-ignore: decorator
@inline export function __gather4<T>(checked: bool, base: usize, len: i32, iv: v128, unsigned: bool, array: i32, site: i32, t0: i32): v128 {
  return fromLanes<T>(ldLane<T>(checked, base, len, indexAt(iv, 0, unsigned), array, site, t0),
    ldLane<T>(checked, base, len, indexAt(iv, 1, unsigned), array, site, t0 + 1),
    ldLane<T>(checked, base, len, indexAt(iv, 2, unsigned), array, site, t0 + 2),
    ldLane<T>(checked, base, len, indexAt(iv, 3, unsigned), array, site, t0 + 3));
}

/** Four scalars (32 bits or narrower) as the lanes of an f32x4 (floats) or i32x4 (integers, extended). */
// @ts-ignore: decorator
@inline function fromLanes<T>(a: T, b: T, c: T, d: T): v128 {
  if (isFloat<T>()) return f32x4.replace_lane(f32x4.replace_lane(f32x4.replace_lane(f32x4.splat(<f32>a), 1, <f32>b), 2, <f32>c), 3, <f32>d);
  return i32x4.replace_lane(i32x4.replace_lane(i32x4.replace_lane(i32x4.splat(<i32>a), 1, <i32>b), 2, <i32>c), 3, <i32>d);
}

// --- stores --------------------------------------------------------------------------------------

/** a[i + k] = lane k, for a 32-bit element type (one store when all four are inside). */
// @ts-ignore: decorator
@inline export function __st4<T>(checked: bool, base: usize, len: i32, i: i32, array: i32, site: i32, t0: i32, v: v128): void {
  if (sizeof<T>() == 4) {
    if (checked && lanesOutside(i, len)) __checkLanes(len, <i64>i, array, site, t0);
    v128.store(base + (<usize>i << 2), v);
    return;
  }
  __scatter4<T>(checked, base, len, __lanes(i), false, array, site, t0, v);
}

/** a[iv[k]] = lane k (one store when the indices are contiguous and inside). */
// @ts-ignore: decorator
@inline export function __stv4<T>(checked: bool, base: usize, len: i32, iv: v128, unsigned: bool, array: i32, site: i32, t0: i32, v: v128): void {
  if (sizeof<T>() == 4 && contiguous(iv)) { __st4<T>(checked, base, len, i32x4.extract_lane(iv, 0), array, site, t0, v); return; }
  __scatter4<T>(checked, base, len, iv, unsigned, array, site, t0, v);
}

/** a[iv[k]] = lane k, one by one in thread order (each checked; a later lane's store wins). */
// @ts-ignore: decorator
@inline export function __scatter4<T>(checked: bool, base: usize, len: i32, iv: v128, unsigned: bool, array: i32, site: i32, t0: i32, v: v128): void {
  stLane<T>(checked, base, len, indexAt(iv, 0, unsigned), array, site, t0, laneOf<T>(v, 0));
  stLane<T>(checked, base, len, indexAt(iv, 1, unsigned), array, site, t0 + 1, laneOf<T>(v, 1));
  stLane<T>(checked, base, len, indexAt(iv, 2, unsigned), array, site, t0 + 2, laneOf<T>(v, 2));
  stLane<T>(checked, base, len, indexAt(iv, 3, unsigned), array, site, t0 + 3, laneOf<T>(v, 3));
}

/** Lane k (a constant) of v as a T: an f32x4 lane for floats, an i32x4 lane (wrapped to T) for integers. */
// @ts-ignore: decorator
@inline function laneOf<T>(v: v128, k: i32): T {
  if (isFloat<T>()) return <T>(k == 0 ? f32x4.extract_lane(v, 0) : k == 1 ? f32x4.extract_lane(v, 1) : k == 2 ? f32x4.extract_lane(v, 2) : f32x4.extract_lane(v, 3));
  return <T>(k == 0 ? i32x4.extract_lane(v, 0) : k == 1 ? i32x4.extract_lane(v, 1) : k == 2 ? i32x4.extract_lane(v, 2) : i32x4.extract_lane(v, 3));
}

// --- context slots (runtime/compiled.ts __ctxAt: 32-bit values 4 bytes apart) -----------------

/** The four threads' 32-bit values in a context slot. */
// @ts-ignore: decorator
@inline export function __ctxLoad4(slot: i32, t0: i32): v128 { return v128.load(registers(slot) + (<usize>t0 << 2)); }

/** Stores the four threads' 32-bit values in a context slot. */
// @ts-ignore: decorator
@inline export function __ctxStore4(slot: i32, t0: i32, v: v128): void { v128.store(registers(slot) + (<usize>t0 << 2), v); }

/** The four threads' predicates (a byte each, as the scalar form's `(p) ? 1 : 0`). */
// @ts-ignore: decorator
@inline export function __predStore4(slot: i32, t0: i32, m: v128): void {
  const p = registers(slot) + <usize>t0;
  store<u8>(p, i32x4.extract_lane(m, 0) & 1);
  store<u8>(p, i32x4.extract_lane(m, 1) & 1, 1);
  store<u8>(p, i32x4.extract_lane(m, 2) & 1, 2);
  store<u8>(p, i32x4.extract_lane(m, 3) & 1, 3);
}

// --- warp shuffles with a uniform lane argument (runtime/compiled.ts __shfl…U) ----------------

/** Lane k's value of one of the scalar shuffles, for threads t0 … t0 + 3 (one by one). */
// @ts-ignore: decorator
@inline function shuffleLanes<T>(kind: i32, valSlot: i32, arg: i32, t0: i32, width: i32): v128 {
  return fromLanes<T>(shuffleLane<T>(kind, valSlot, arg, t0, width), shuffleLane<T>(kind, valSlot, arg, t0 + 1, width),
    shuffleLane<T>(kind, valSlot, arg, t0 + 2, width), shuffleLane<T>(kind, valSlot, arg, t0 + 3, width));
}

// @ts-ignore: decorator
@inline function shuffleLane<T>(kind: i32, valSlot: i32, arg: i32, t: i32, width: i32): T {
  return kind == 0 ? __shflU<T>(valSlot, arg, t, width) : kind == 1 ? __shflUpU<T>(valSlot, arg, t, width)
    : kind == 2 ? __shflDownU<T>(valSlot, arg, t, width) : __shflXorU<T>(valSlot, arg, t, width);
}

/** Are threads t0 … t0 + 3 lanes of one warp (then four partners in a row are one slot load)? */
// @ts-ignore: decorator
@inline function inOneWarp(t0: i32): bool { return (t0 & 31) <= 28; }

/** __shfl_down_sync(mask, v, delta, width) for four threads (delta uniform). */
// @ts-ignore: decorator
@inline export function __shflDownU4<T>(valSlot: i32, delta: i32, t0: i32, width: i32): v128 {
  if (width == 32 && delta >= 0 && inOneWarp(t0)) {
    const l0 = t0 & 31;
    if (l0 + 3 + delta < 32 && t0 + 3 + delta < blockThreads) return __ctxLoad4(valSlot, t0 + delta);
    if (l0 + delta >= 32) return __ctxLoad4(valSlot, t0);
  }
  return shuffleLanes<T>(2, valSlot, delta, t0, width);
}

/** __shfl_up_sync(mask, v, delta, width) for four threads (delta uniform). */
// @ts-ignore: decorator
@inline export function __shflUpU4<T>(valSlot: i32, delta: i32, t0: i32, width: i32): v128 {
  if (width == 32 && delta >= 0 && inOneWarp(t0)) {
    const l0 = t0 & 31;
    if (l0 >= delta) return __ctxLoad4(valSlot, t0 - delta);
    if (l0 + 3 < delta) return __ctxLoad4(valSlot, t0);
  }
  return shuffleLanes<T>(1, valSlot, delta, t0, width);
}

/** __shfl_xor_sync(mask, v, laneMask, width) for four threads (laneMask uniform). */
// @ts-ignore: decorator
@inline export function __shflXorU4<T>(valSlot: i32, laneMask: i32, t0: i32, width: i32): v128 {
  if (width == 32 && (laneMask & 3) == 0 && laneMask > 0 && laneMask < 32 && (t0 & 3) == 0) {
    const src = (t0 & ~31) + ((t0 & 31) ^ laneMask);
    if (src + 3 < blockThreads) return __ctxLoad4(valSlot, src);
  }
  return shuffleLanes<T>(3, valSlot, laneMask, t0, width);
}

/** __shfl_sync(mask, v, srcLane, width) for four threads (srcLane uniform). */
// @ts-ignore: decorator
@inline export function __shflU4<T>(valSlot: i32, srcLane: i32, t0: i32, width: i32): v128 {
  return shuffleLanes<T>(0, valSlot, srcLane, t0, width);
}
