// What the kernels simt compiles from per-thread sources call (src/compiler/): checked array
// accesses, atomics on global and shared arrays, the per-thread context slots that carry
// values across barriers, and the collective operations (warp shuffles and votes, the
// __syncthreads_count/_or/_and predicates) evaluated over the buffers a region filled.
//
// A compiled kernel's array parameter is a (pointer, length) pair. Every element access goes
// through `__ld`/`__st`/the atomics here, which trap with a recorded reason when the index is
// outside the array: the worker reads the reason back (`__trapKind` …) and names the kernel,
// array, index, block and thread in the KernelError.

import { blockThreads } from "./dims";
import { registers, threadOrderTable, REGISTER_SLOTS, sharedMem, sharedEnd } from "./scratch";
import * as atomics from "./atomics";

// --- trap details (per worker instance) -----------------------------------------------------

let trapKind: i32 = 0;      // 0 none, 1 index out of bounds, 2 divergent barrier, 3 divergent warp operation
let trapArray: i32 = 0;     // array id (module metadata) or the site of the divergent construct
let trapIndex: i64 = 0;
let trapLength: i32 = 0;
let trapSite: i32 = 0;
let trapThread: i32 = 0;
/**
 * Linear index of the thread the block function is running, for device functions' traps: the
 * thread loops set it only in modules with device functions (a kernel's own accesses pass
 * their thread to the check instead, so its loops store nothing per thread).
 */
export let __thread: i32 = 0;

export function __trapKind(): i32 { return trapKind; }
export function __trapArray(): i32 { return trapArray; }
export function __trapIndex(): f64 { return <f64>trapIndex; }
export function __trapLength(): i32 { return trapLength; }
export function __trapSite(): i32 { return trapSite; }
export function __trapThread(): i32 { return trapThread; }
export function __trapClear(): void { trapKind = 0; }

// @ts-ignore: decorator
@inline export function __setThread(t: i32): void { __thread = t; }

function outOfBounds(array: i32, index: i64, length: i32, site: i32, thread: i32): void {
  trapKind = 1; trapArray = array; trapIndex = index; trapLength = length; trapSite = site; trapThread = thread;
  unreachable();
}

function divergent(site: i32, thread: i32): void {
  trapKind = 2; trapArray = 0; trapSite = site; trapThread = thread;
  unreachable();
}

// @ts-ignore: decorator
@inline function check(len: i32, i: i64, array: i32, site: i32, thread: i32): void {
  if (<u64>i >= <u64><u32>len) outOfBounds(array, i, len, site, thread);
}

/**
 * Four lanes' indices i … i + 3 (threads t0 … t0 + 3), one of them outside [0, len): traps for
 * the first lane outside, naming its thread and index as the scalar loop would
 * (runtime/lanes.ts). The lanes increase, so that lane is found without a loop: the first when
 * i is negative, else the first at or past len. Inlined where the access is, as small as a
 * scalar check: a loop over the lanes there (Binaryen inlines it) cost VecMax 15 %, and a call
 * (kept out of line) 30 %.
 */
// @ts-ignore: decorator
@inline export function __checkLanes(len: i32, i: i64, array: i32, site: i32, t0: i32): void {
  const k = i < 0 ? <i64>0 : max<i64>(<i64>len - i, 0);
  outOfBounds(array, i + k, len, site, t0 + <i32>k);
}

// @ts-ignore: decorator
@inline function at<T>(base: usize, i: i64): usize { return base + ((<usize>i) << alignof<T>()); }

// --- element access ---------------------------------------------------------------------------

/** a[i] with a bounds check (array id and site name it in the trap). */
// @ts-ignore: decorator
@inline export function __ld<T>(base: usize, len: i32, i: i64, array: i32, site: i32, thread: i32): T {
  check(len, i, array, site, thread);
  return load<T>(at<T>(base, i));
}

/** a[i] = v with a bounds check. */
// @ts-ignore: decorator
@inline export function __st<T>(base: usize, len: i32, i: i64, array: i32, site: i32, thread: i32, v: T): void {
  check(len, i, array, site, thread);
  store<T>(at<T>(base, i), v);
}

/** a[i] without the check (the `unchecked` build option). */
// @ts-ignore: decorator
@inline export function __ldu<T>(base: usize, len: i32, i: i64, array: i32, site: i32, thread: i32): T {
  return load<T>(at<T>(base, i));
}

// @ts-ignore: decorator
@inline export function __stu<T>(base: usize, len: i32, i: i64, array: i32, site: i32, thread: i32, v: T): void {
  store<T>(at<T>(base, i), v);
}

// --- atomics: global arrays are shared between workers (real wasm atomics); a block's shared
// memory never leaves its worker, so its atomics are plain read-modify-writes. ---------------

// One function per CUDA atomic: (array, index, operands). `shared` is a literal at each call.
// @ts-ignore: decorator
@inline export function __atomicAdd<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  check(len, i, array, site, thread); const p = at<T>(base, i);
  if (shared) { const old = load<T>(p); store<T>(p, old + v); return old; }
  return atomics.atomicAdd<T>(p, v);
}
// --- atomicAdd into a private copy ---------------------------------------------------------------
// An array the kernel only ever atomicAdds into, result unused (a histogram's global bins): a
// chunk of blocks adds into the worker's own copy of it, placed in the shared-memory area past
// what the launch uses, and the copy goes into the array once at the chunk's end, one atomic per
// non-zero element (integer adds: the sums are the same in any order). Nothing in the kernel
// reads the array, so no thread sees the difference; 4,096 blocks merging 256 bins each no longer
// contend on the same 256 counters (the histogram: 0.54 of its time on one worker, 0.65 on two).

let privBase: usize = 0;    // the copy, 0 when the adds are atomics
let privTarget: usize = 0;
let privLen: i32 = 0;

/** Starts privatising `target` (len 32-bit elements) for a chunk, where the copy fits past `used` shared bytes. */
export function __privBegin(target: usize, len: i32, used: i32): void {
  const base = (sharedMem() + <usize>used + 15) & ~(<usize>15);
  if (len <= 0 || base + (<usize>len << 2) > sharedEnd()) return;
  memory.fill(base, 0, <usize>len << 2);
  privTarget = target; privLen = len; privBase = base;
}

/** Adds the copy into its array and stops privatising: at a chunk's end, and after a trap (the worker calls it). */
export function __privFlush(): void {
  if (privBase == 0) return;
  for (let k = 0; k < privLen; k++) {
    const v = load<u32>(privBase + (<usize>k << 2));
    if (v != 0) atomic.add<u32>(privTarget + (<usize>k << 2), v);
  }
  privBase = 0;
}

/** atomicAdd on a privatised array (32-bit elements): the copy's element while a chunk privatises it. */
// @ts-ignore: decorator
@inline export function __atomicAddP<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  check(len, i, array, site, thread);
  if (privBase != 0 && base == privTarget) { const p = privBase + ((<usize>i) << 2); const old = load<T>(p); store<T>(p, old + v); return old; }
  return atomics.atomicAdd<T>(at<T>(base, i), v);
}

// @ts-ignore: decorator
@inline export function __atomicSub<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  check(len, i, array, site, thread); const p = at<T>(base, i);
  if (shared) { const old = load<T>(p); store<T>(p, old - v); return old; }
  return atomics.atomicSub<T>(p, v);
}
// @ts-ignore: decorator
@inline export function __atomicExch<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  check(len, i, array, site, thread); const p = at<T>(base, i);
  if (shared) { const old = load<T>(p); store<T>(p, v); return old; }
  return atomics.atomicExch<T>(p, v);
}
// @ts-ignore: decorator
@inline export function __atomicMin<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  check(len, i, array, site, thread); const p = at<T>(base, i);
  if (shared) { const old = load<T>(p); if (v < old || (isFloat<T>() && old != old && v == v)) store<T>(p, v); return old; }
  return atomics.atomicMin<T>(p, v);
}
// @ts-ignore: decorator
@inline export function __atomicMax<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  check(len, i, array, site, thread); const p = at<T>(base, i);
  if (shared) { const old = load<T>(p); if (v > old || (isFloat<T>() && old != old && v == v)) store<T>(p, v); return old; }
  return atomics.atomicMax<T>(p, v);
}
/** atomicInc (u32): old >= val ? 0 : old + 1 — wraps, as CUDA does. */
// @ts-ignore: decorator
@inline export function __atomicInc<T>(shared: bool, base: usize, len: i32, i: i64, v: u32, array: i32, site: i32, thread: i32): u32 {
  check(len, i, array, site, thread); const p = at<u32>(base, i);
  if (shared) { const old = load<u32>(p); store<u32>(p, old >= v ? 0 : old + 1); return old; }
  return atomics.atomicInc(p, v);
}
/** atomicDec (u32): (old == 0 || old > val) ? val : old - 1. */
// @ts-ignore: decorator
@inline export function __atomicDec<T>(shared: bool, base: usize, len: i32, i: i64, v: u32, array: i32, site: i32, thread: i32): u32 {
  check(len, i, array, site, thread); const p = at<u32>(base, i);
  if (shared) { const old = load<u32>(p); store<u32>(p, (old == 0 || old > v) ? v : old - 1); return old; }
  return atomics.atomicDec(p, v);
}
// @ts-ignore: decorator
@inline export function __atomicCAS<T>(shared: bool, base: usize, len: i32, i: i64, compare: T, v: T, array: i32, site: i32, thread: i32): T {
  check(len, i, array, site, thread); const p = at<T>(base, i);
  if (shared) { const old = load<T>(p); if (old == compare) store<T>(p, v); return old; }
  return atomics.atomicCAS<T>(p, compare, v);
}
// @ts-ignore: decorator
@inline export function __atomicAnd<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  check(len, i, array, site, thread); const p = at<T>(base, i);
  if (shared) { const old = load<T>(p); store<T>(p, old & v); return old; }
  return atomics.atomicAnd<T>(p, v);
}
// @ts-ignore: decorator
@inline export function __atomicOr<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  check(len, i, array, site, thread); const p = at<T>(base, i);
  if (shared) { const old = load<T>(p); store<T>(p, old | v); return old; }
  return atomics.atomicOr<T>(p, v);
}
// @ts-ignore: decorator
@inline export function __atomicXor<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  check(len, i, array, site, thread); const p = at<T>(base, i);
  if (shared) { const old = load<T>(p); store<T>(p, old ^ v); return old; }
  return atomics.atomicXor<T>(p, v);
}

// --- memory fences -----------------------------------------------------------------------------

/**
 * __threadfence(), __threadfence_block() and __threadfence_system(): wasm's atomics are
 * sequentially consistent, so the atomic that follows a fence in CUDA's pattern already
 * publishes this worker's earlier writes to the worker that observes it; the fence itself is
 * an idempotent sequentially consistent read-modify-write (`atomic.or` of 0) on this worker's
 * own thread-order table, the lowering LLVM used before wasm had `atomic.fence` (which the
 * Binaryen this AssemblyScript builds with rejects as unordered). A block's threads run on
 * one worker, so the block scope needs nothing more.
 */
// @ts-ignore: decorator
@inline export function __fence(): void { atomic.or<i32>(threadOrderTable(), 0); }

// --- per-thread context slots -----------------------------------------------------------------

/** Thread t's 8-byte cell of context slot `slot` (`__ctx(slot, 0)`: the slot's start). */
// @ts-ignore: decorator
@inline export function __ctx(slot: i32, t: i32): usize { return registers(slot) + (<usize>t << 3); }

/**
 * Thread t's value of type T in context slot `slot` (values live across a barrier, operands of
 * warp operations): the block's values of one slot lie sizeof<T>() bytes apart, so four
 * threads' 32-bit values are one v128 (runtime/lanes.ts).
 */
// @ts-ignore: decorator
@inline export function __ctxAt<T>(slot: i32, t: i32): usize { return registers(slot) + (<usize>t << alignof<T>()); }

/** Marks thread t as exited (it returned): later regions skip it, barriers do not wait for it. */
// @ts-ignore: decorator
@inline export function __exit(slot: i32, t: i32): void { store<u8>(registers(slot) + <usize>t, 1); }
// @ts-ignore: decorator
@inline export function __exited(slot: i32, t: i32): bool { return load<u8>(registers(slot) + <usize>t) != 0; }
export function __clearExits(slot: i32): void { memory.fill(registers(slot), 0, <usize>blockThreads); }

/**
 * The value every live thread computed for the condition of a loop or `if` that contains a
 * barrier. CUDA requires it to be the same for the whole block; a block where it differs
 * traps (a divergent barrier), naming the construct's site.
 */
export function __uniform(slot: i32, exitSlot: i32, site: i32): bool {
  const p = registers(slot);
  let seen = -1;
  for (let t = 0; t < blockThreads; t++) {
    if (exitSlot >= 0 && __exited(exitSlot, t)) continue;
    const c = <i32>load<u8>(p + <usize>t);
    if (seen < 0) seen = c;
    else if (c != seen) divergent(site, t);
  }
  return seen == 1;
}

/** Thread t's predicate of a warp-uniform `if` (a byte per thread, stored by the region before it). */
// @ts-ignore: decorator
@inline export function __pred(slot: i32, t: i32): bool { return load<u8>(registers(slot) + <usize>t) != 0; }

/**
 * The condition of an `if` holding warp operations must be the same for every live lane of a
 * warp (CUDA: the lanes a warp operation names must reach it): a warp whose lanes disagree
 * traps as a divergent warp operation, naming the `if`'s site and the first disagreeing lane.
 */
export function __warpUniform(slot: i32, exitSlot: i32, site: i32): void {
  const p = registers(slot);
  for (let w = 0; w < blockThreads; w += 32) {
    const end = min(w + 32, blockThreads);
    let seen = -1;
    for (let t = w; t < end; t++) {
      if (exitSlot >= 0 && __exited(exitSlot, t)) continue;
      const c = <i32>(load<u8>(p + <usize>t) != 0);
      if (seen < 0) seen = c;
      else if (c != seen) { trapKind = 3; trapArray = 0; trapSite = site; trapThread = t; unreachable(); }
    }
  }
}

// --- block predicates ---------------------------------------------------------------------------

/** __syncthreads_count over the predicates a region stored (one byte per thread; exited threads skipped). */
export function __predCount(slot: i32, exitSlot: i32): i32 {
  const p = registers(slot);
  let n = 0;
  for (let t = 0; t < blockThreads; t++) {
    if (exitSlot >= 0 && __exited(exitSlot, t)) continue;
    if (load<u8>(p + <usize>t) != 0) n++;
  }
  return n;
}

/** Live threads of the block (for __syncthreads_and). */
export function __liveCount(exitSlot: i32): i32 {
  if (exitSlot < 0) return blockThreads;
  let n = 0;
  for (let t = 0; t < blockThreads; t++) if (!__exited(exitSlot, t)) n++;
  return n;
}

// --- warp operations --------------------------------------------------------------------------

/** Ballots of every warp: bit l of word w is lane l's predicate (live lanes only). */
export function __ballots(predSlot: i32, outSlot: i32, exitSlot: i32): void {
  const p = registers(predSlot);
  const out = registers(outSlot);
  const warps = (blockThreads + 31) >> 5;
  for (let w = 0; w < warps; w++) {
    let bits: u32 = 0;
    const end = min(32, blockThreads - (w << 5));
    for (let l = 0; l < end; l++) {
      const t = (w << 5) + l;
      if (exitSlot >= 0 && __exited(exitSlot, t)) continue;
      if (load<u8>(p + <usize>t) != 0) bits |= <u32>1 << <u32>l;
    }
    store<u32>(out + (<usize>w << 2), bits);
  }
}

/** Lanes of thread t's warp that exist and have not exited (CUDA's __activemask()). */
export function __activeLanes(t: i32, exitSlot: i32): u32 {
  const first = t & ~31;
  const end = min(32, blockThreads - first);
  let bits: u32 = 0;
  for (let l = 0; l < end; l++) if (exitSlot < 0 || !__exited(exitSlot, first + l)) bits |= <u32>1 << <u32>l;
  return bits;
}

// @ts-ignore: decorator
@inline export function __ballotOf(outSlot: i32, t: i32): u32 { return load<u32>(registers(outSlot) + (<usize>(t >> 5) << 2)); }

/** The value lane `src` of thread t's warp stored in `valSlot` (own value when src is not a thread). */
// @ts-ignore: decorator
@inline function laneValue<T>(valSlot: i32, t: i32, src: i32): T {
  const s = (t & ~31) + src;
  return load<T>(__ctxAt<T>(valSlot, s < blockThreads ? s : t));
}

// Each shuffle reads its lane argument (srcLane, delta, laneMask) either from a per-thread slot
// (`argSlot`) or, when the compiler proved it uniform and side-effect free, as a value (the
// `…U` forms: no per-thread store and load).

/** __shfl_sync: lane l reads lane (srcLane mod width) of its width-sized segment. */
// @ts-ignore: decorator
@inline export function __shflU<T>(valSlot: i32, src: i32, t: i32, width: i32): T {
  const lane = t & 31;
  return laneValue<T>(valSlot, t, (lane & ~(width - 1)) + (src & (width - 1)));
}

/**
 * __shfl_up_sync: lane l reads lane l - delta of its segment; lanes below delta keep their own.
 * CUDA's delta is unsigned: a negative one is past every lane, so each keeps its own value.
 */
// @ts-ignore: decorator
@inline export function __shflUpU<T>(valSlot: i32, delta: i32, t: i32, width: i32): T {
  const lane = t & 31;
  return laneValue<T>(valSlot, t, delta >= 0 && (lane & (width - 1)) >= delta ? lane - delta : lane);
}

/** __shfl_down_sync: lane l reads lane l + delta of its segment; lanes past the end (or a negative delta) keep their own. */
// @ts-ignore: decorator
@inline export function __shflDownU<T>(valSlot: i32, delta: i32, t: i32, width: i32): T {
  const lane = t & 31;
  return laneValue<T>(valSlot, t, delta >= 0 && (lane & (width - 1)) + delta < width ? lane + delta : lane);
}

/** __shfl_xor_sync: lane l reads lane l ^ laneMask (its own when that is in a later segment). */
// @ts-ignore: decorator
@inline export function __shflXorU<T>(valSlot: i32, laneMask: i32, t: i32, width: i32): T {
  const lane = t & 31;
  const src = lane ^ laneMask;
  const segmentEnd = (lane & ~(width - 1)) + width;
  return laneValue<T>(valSlot, t, src >= segmentEnd || src < 0 || src >= 32 ? lane : src);
}

// @ts-ignore: decorator
@inline function laneArg(argSlot: i32, t: i32): i32 { return load<i32>(__ctxAt<i32>(argSlot, t)); }
// @ts-ignore: decorator
@inline export function __shfl<T>(valSlot: i32, argSlot: i32, t: i32, width: i32): T { return __shflU<T>(valSlot, laneArg(argSlot, t), t, width); }
// @ts-ignore: decorator
@inline export function __shflUp<T>(valSlot: i32, argSlot: i32, t: i32, width: i32): T { return __shflUpU<T>(valSlot, laneArg(argSlot, t), t, width); }
// @ts-ignore: decorator
@inline export function __shflDown<T>(valSlot: i32, argSlot: i32, t: i32, width: i32): T { return __shflDownU<T>(valSlot, laneArg(argSlot, t), t, width); }
// @ts-ignore: decorator
@inline export function __shflXor<T>(valSlot: i32, argSlot: i32, t: i32, width: i32): T { return __shflXorU<T>(valSlot, laneArg(argSlot, t), t, width); }

// --- branch-free float min/max (src/compiler/minmax.ts rewrites `if (x > m) m = x;` into these) ---

/** `a < b ? b : a` without a branch: wasm's pmax is defined as exactly that comparison. */
// @ts-ignore: decorator
@inline export function __pmax<T>(a: T, b: T): T {
  if (sizeof<T>() == 4) return <T>f32x4.extract_lane(f32x4.pmax(f32x4.splat(<f32>a), f32x4.splat(<f32>b)), 0);
  return <T>f64x2.extract_lane(f64x2.pmax(f64x2.splat(<f64>a), f64x2.splat(<f64>b)), 0);
}

/** `b < a ? b : a` without a branch (wasm's pmin). */
// @ts-ignore: decorator
@inline export function __pmin<T>(a: T, b: T): T {
  if (sizeof<T>() == 4) return <T>f32x4.extract_lane(f32x4.pmin(f32x4.splat(<f32>a), f32x4.splat(<f32>b)), 0);
  return <T>f64x2.extract_lane(f64x2.pmin(f64x2.splat(<f64>a), f64x2.splat(<f64>b)), 0);
}

// --- __local__ arrays -------------------------------------------------------------------------

/**
 * The running block's __local__ arrays: `bytesPerThread` per thread, thread t's at
 * `__localMem(b) + t·b`, at the end of the worker's register area (below it are the context
 * slots, which grow from its start; the host checks at launch that both fit). Nothing clears
 * them between blocks: as CUDA's local memory, their contents are undefined until written.
 */
// @ts-ignore: decorator
@inline export function __localMem(bytesPerThread: i32): usize {
  return registers(REGISTER_SLOTS) - <usize>(bytesPerThread * blockThreads);
}
