// The fine-grained runtime of compiled kernels (src/compiler/): the same per-thread source
// the fast path runs, with every global and shared access, atomic, barrier and warp
// operation a scheduling point of the host's ThreadRunner, carrying its source site.
//
// Collective operations (shuffles, votes, __syncthreads_count/_or/_and) exchange values
// through a per-block area at the start of the block's shared memory, with plain loads and
// stores between two barriers: invisible to the race detector, ordered by the barriers.
//
// Barrier scopes passed to the host: 0 __syncthreads (orders the block's memory accesses),
// 1 __syncwarp (orders the warp's), 2 a warp collective's meeting point (shuffle, vote): the
// lanes meet to exchange values, but as in CUDA this orders no memory access, so code that
// relies on a shuffle to publish a shared-memory store still gets a warp-sync hazard. A
// collective passes its mask: the host reports lanes it names that exited without reaching it.
// The host returns the lanes of the caller's warp that have not exited (CUDA's __activemask()
// once the warp has met).

//
// Module globals are shared by all emulated threads; per-thread state lives in locals (which
// asyncify saves per thread). The host sets the launch's dimensions once, and the thread's
// indices and its block's shared memory before it runs or resumes a thread.

export namespace threadIdx { export let x: i32 = 0; export let y: i32 = 0; export let z: i32 = 0; }
export namespace blockIdx { export let x: i32 = 0; export let y: i32 = 0; export let z: i32 = 0; }
export namespace blockDim { export let x: i32 = 1; export let y: i32 = 1; export let z: i32 = 1; }
export namespace gridDim { export let x: i32 = 1; export let y: i32 = 1; export let z: i32 = 1; }
let sharedBase: usize = 0;

/** Host hook: the launch's dimensions. */
export function __setLaunch(gx: i32, gy: i32, gz: i32, bx: i32, by: i32, bz: i32): void {
  gridDim.x = gx; gridDim.y = gy; gridDim.z = gz;
  blockDim.x = bx; blockDim.y = by; blockDim.z = bz;
}

/** Host hook: the thread about to run (or resume), and its block's shared memory (zeroed at block start). */
export function __setThread(tx: i32, ty: i32, tz: i32, bx: i32, by: i32, bz: i32, shared: usize): void {
  threadIdx.x = tx; threadIdx.y = ty; threadIdx.z = tz;
  blockIdx.x = bx; blockIdx.y = by; blockIdx.z = bz;
  sharedBase = shared;
}

/** The block's shared memory: the collective-exchange area, then the kernel's. */
// @ts-ignore: decorator
@inline function sharedMem(): usize { return sharedBase; }

// @ts-ignore: decorator
@external("simt", "accessAt") declare function hostAccessAt(kind: i32, addr: usize, size: i32, site: i32): i32;
// @ts-ignore: decorator
@external("simt", "barrier") declare function hostBarrier(scope: i32, site: i32, mask: u32): u32;
// @ts-ignore: decorator
@external("simt", "fence") declare function hostFence(scope: i32, site: i32): void;
// @ts-ignore: decorator
@external("simt", "outOfBoundsAt") declare function hostOutOfBounds(kind: i32, array: i32, index: f64, length: i32, site: i32, base: usize, size: i32): void;

const READ: i32 = 0;
const WRITE: i32 = 1;
const ATOMIC: i32 = 2;

/** Bytes of the collective-exchange area at the start of a block's shared memory. */
export const COLLECTIVE_BYTES: i32 = 1024 * 8;

// @ts-ignore: decorator
@inline function tid(): i32 { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
// @ts-ignore: decorator
@inline function blockSize(): i32 { return blockDim.x * blockDim.y * blockDim.z; }

let dynamicSharedBytes: i32 = 0;
/** Host hook: the launch's dynamic shared bytes (`extern __shared__`). */
export function __setDynamicShared(bytes: i32): void { dynamicSharedBytes = bytes; }
// @ts-ignore: decorator
@inline export function __dynamicSharedBytes(): i32 { return dynamicSharedBytes; }

/** The user's shared memory (static arrays, then the dynamic `extern __shared__` bytes). */
// @ts-ignore: decorator
@inline export function __sharedBase(): usize { return sharedMem() + <usize>COLLECTIVE_BYTES; }

/**
 * True when `i` is inside the array. Otherwise the host's hook runs: racecheck, explore and
 * replay end the thread there (the hook throws), memcheck records the access and returns, and
 * the access is skipped (a read gives 0, a write is dropped).
 */
// @ts-ignore: decorator
@inline function inBounds<T>(kind: i32, base: usize, len: i32, i: i64, array: i32, site: i32): bool {
  if (<u64>i < <u64><u32>len) return true;
  hostOutOfBounds(kind, array, <f64>i, len, site, base, sizeof<T>());
  return false;
}

// @ts-ignore: decorator
@inline function at<T>(base: usize, i: i64): usize { return base + ((<usize>i) << alignof<T>()); }

// @ts-ignore: decorator
@inline export function __ld<T>(base: usize, len: i32, i: i64, array: i32, site: i32): T {
  if (!inBounds<T>(READ, base, len, i, array, site)) return <T>0;
  const p = at<T>(base, i);
  if (hostAccessAt(READ, p, sizeof<T>(), site) != 0) return load<T>(p);
  return <T>0;
}

// @ts-ignore: decorator
@inline export function __st<T>(base: usize, len: i32, i: i64, array: i32, site: i32, v: T): void {
  if (!inBounds<T>(WRITE, base, len, i, array, site)) return;
  const p = at<T>(base, i);
  if (hostAccessAt(WRITE, p, sizeof<T>(), site) != 0) store<T>(p, v);
}

/**
 * A __local__ array's base for the running thread: the block's local bytes follow its shared
 * bytes in the block's area (the host sizes the area for them), thread t's at t·bytesPerThread.
 */
// @ts-ignore: decorator
@inline export function __localBase(staticShared: i32, bytesPerThread: i32): usize {
  return __sharedBase() + <usize>((staticShared + dynamicSharedBytes + 15) & ~15) + <usize>(tid() * bytesPerThread);
}

/** A __local__ array's element: private to its thread, so bounds-checked but no scheduling point. */
// @ts-ignore: decorator
@inline export function __ldl<T>(base: usize, len: i32, i: i64, array: i32, site: i32): T {
  if (!inBounds<T>(READ, base, len, i, array, site)) return <T>0;
  return load<T>(at<T>(base, i));
}

// @ts-ignore: decorator
@inline export function __stl<T>(base: usize, len: i32, i: i64, array: i32, site: i32, v: T): void {
  if (!inBounds<T>(WRITE, base, len, i, array, site)) return;
  store<T>(at<T>(base, i), v);
}

// @ts-ignore: decorator
@inline export function __ldu<T>(base: usize, len: i32, i: i64, array: i32, site: i32): T { return __ld<T>(base, len, i, array, site); }
// @ts-ignore: decorator
@inline export function __stu<T>(base: usize, len: i32, i: i64, array: i32, site: i32, v: T): void { __st<T>(base, len, i, array, site, v); }

// Atomics: the host switches threads only at scheduling points, so a read-modify-write
// between two of them is atomic; each atomic is one scheduling point.
// @ts-ignore: decorator
@inline function rmw<T>(base: usize, len: i32, i: i64, array: i32, site: i32): usize {
  if (!inBounds<T>(ATOMIC, base, len, i, array, site)) return 0;
  const p = at<T>(base, i);
  return hostAccessAt(ATOMIC, p, sizeof<T>(), site) != 0 ? p : 0;
}

export function __atomicAdd<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32): T {
  const p = rmw<T>(base, len, i, array, site); if (!p) return <T>0;
  const old = load<T>(p); store<T>(p, old + v); return old;
}
export function __atomicSub<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32): T {
  const p = rmw<T>(base, len, i, array, site); if (!p) return <T>0;
  const old = load<T>(p); store<T>(p, old - v); return old;
}
export function __atomicExch<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32): T {
  const p = rmw<T>(base, len, i, array, site); if (!p) return <T>0;
  const old = load<T>(p); store<T>(p, v); return old;
}
export function __atomicMin<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32): T {
  const p = rmw<T>(base, len, i, array, site); if (!p) return <T>0;
  const old = load<T>(p); if (v < old || (isFloat<T>() && old != old && v == v)) store<T>(p, v); return old;
}
export function __atomicMax<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32): T {
  const p = rmw<T>(base, len, i, array, site); if (!p) return <T>0;
  const old = load<T>(p); if (v > old || (isFloat<T>() && old != old && v == v)) store<T>(p, v); return old;
}
export function __atomicInc<T>(shared: bool, base: usize, len: i32, i: i64, v: u32, array: i32, site: i32): u32 {
  const p = rmw<u32>(base, len, i, array, site); if (!p) return 0;
  const old = load<u32>(p); store<u32>(p, old >= v ? 0 : old + 1); return old;
}
export function __atomicDec<T>(shared: bool, base: usize, len: i32, i: i64, v: u32, array: i32, site: i32): u32 {
  const p = rmw<u32>(base, len, i, array, site); if (!p) return 0;
  const old = load<u32>(p); store<u32>(p, (old == 0 || old > v) ? v : old - 1); return old;
}
export function __atomicCAS<T>(shared: bool, base: usize, len: i32, i: i64, compare: T, v: T, array: i32, site: i32): T {
  const p = rmw<T>(base, len, i, array, site); if (!p) return <T>0;
  const old = load<T>(p); if (old == compare) store<T>(p, v); return old;
}
export function __atomicAnd<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32): T {
  const p = rmw<T>(base, len, i, array, site); if (!p) return <T>0;
  const old = load<T>(p); store<T>(p, old & v); return old;
}
export function __atomicOr<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32): T {
  const p = rmw<T>(base, len, i, array, site); if (!p) return <T>0;
  const old = load<T>(p); store<T>(p, old | v); return old;
}
export function __atomicXor<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32): T {
  const p = rmw<T>(base, len, i, array, site); if (!p) return <T>0;
  const old = load<T>(p); store<T>(p, old ^ v); return old;
}

// --- barriers and collectives ------------------------------------------------------------------

export function __syncthreads(site: i32): void { hostBarrier(0, site, 0); }
export function __syncwarp(site: i32): void { hostBarrier(1, site, 0); }

// Memory fences (scopes as src/race/threadRunner.ts reads them: 0 device, 1 block, 2 system).
// The host runs one thread at a time, so a fence needs no wasm fence here: it is a scheduling
// point whose site the race detector records (a fence, then an atomic, publishes the thread's
// earlier writes to the threads that observe that atomic).
export function __threadfence(site: i32): void { hostFence(0, site); }
export function __threadfence_block(site: i32): void { hostFence(1, site); }
export function __threadfence_system(site: i32): void { hostFence(2, site); }

// @ts-ignore: decorator
@inline function cell(t: i32): usize { return sharedMem() + (<usize>t << 3); }

/** Block predicate: every thread stores its predicate, all meet, each reads all, all meet again. */
function blockPredicate(pred: bool, site: i32, mode: i32): i32 {
  const me = tid();
  store<i32>(cell(me), pred ? 1 : 2); // 0 marks a thread that never arrived (exited)
  hostBarrier(0, site, 0);
  let n = 0, live = 0;
  const nt = blockSize();
  for (let t = 0; t < nt; t++) {
    const v = load<i32>(cell(t));
    if (v != 0) live++;
    if (v == 1) n++;
  }
  hostBarrier(0, site, 0);
  store<i32>(cell(me), 0);
  return mode == 0 ? n : mode == 1 ? <i32>(n > 0) : <i32>(n == live);
}
export function __syncthreads_count(pred: bool, site: i32): i32 { return blockPredicate(pred, site, 0); }
export function __syncthreads_or(pred: bool, site: i32): i32 { return blockPredicate(pred, site, 1); }
export function __syncthreads_and(pred: bool, site: i32): i32 { return blockPredicate(pred, site, 2); }

/** Exchange through the warp: store, meet at a warp barrier (checking `mask`), read lane `src`, meet again. */
function exchange<T>(v: T, src: i32, site: i32, mask: u32): T {
  const me = tid();
  store<T>(cell(me), v);
  hostBarrier(2, site, mask);
  const s = (me & ~31) + src;
  const r = s < blockSize() ? load<T>(cell(s)) : v;
  hostBarrier(2, site, 0);
  return r;
}

export function __shfl_sync<T>(mask: u32, v: T, srcLane: i32, width: i32, site: i32): T {
  const lane = tid() & 31;
  return exchange<T>(v, (lane & ~(width - 1)) + (srcLane & (width - 1)), site, mask);
}
export function __shfl_up_sync<T>(mask: u32, v: T, delta: u32, width: i32, site: i32): T {
  const lane = tid() & 31;
  // CUDA's delta is unsigned: a negative one is past every lane (each keeps its own value).
  return exchange<T>(v, <i32>delta >= 0 && (lane & (width - 1)) >= <i32>delta ? lane - <i32>delta : lane, site, mask);
}
export function __shfl_down_sync<T>(mask: u32, v: T, delta: u32, width: i32, site: i32): T {
  const lane = tid() & 31;
  return exchange<T>(v, <i32>delta >= 0 && (lane & (width - 1)) + <i32>delta < width ? lane + <i32>delta : lane, site, mask);
}
export function __shfl_xor_sync<T>(mask: u32, v: T, laneMask: i32, width: i32, site: i32): T {
  const lane = tid() & 31;
  const src = lane ^ laneMask;
  const segmentEnd = (lane & ~(width - 1)) + width;
  return exchange<T>(v, src >= segmentEnd || src < 0 || src >= 32 ? lane : src, site, mask);
}

/** The predicates of the warp's lanes that have not exited, as bits (the host says which those are). */
function ballot(pred: bool, site: i32, mask: u32): u32 {
  const me = tid();
  store<i32>(cell(me), pred ? 1 : 0);
  const live = hostBarrier(2, site, mask);
  const first = me & ~31;
  const end = min(32, blockSize() - first);
  let bits: u32 = 0;
  for (let l = 0; l < end; l++) if ((live >> <u32>l) & 1 && load<i32>(cell(first + l)) != 0) bits |= <u32>1 << <u32>l;
  hostBarrier(2, site, 0);
  return bits;
}
export function __ballot_sync(mask: u32, pred: bool, site: i32): u32 { return ballot(pred, site, mask) & mask; }
export function __any_sync(mask: u32, pred: bool, site: i32): bool { return (ballot(pred, site, mask) & mask) != 0; }
/** Every live lane of the mask has the predicate: none of them has its negation. */
export function __all_sync(mask: u32, pred: bool, site: i32): bool { return (ballot(!pred, site, mask) & mask) == 0; }
/** CUDA's __activemask(): the warp meets (naming no lanes), and the host says which lanes have not exited. */
export function __activemask(site: i32): u32 { return hostBarrier(2, site, 0); }
