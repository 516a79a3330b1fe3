// The runtime of thread kernels: kernels written per thread, CUDA-style, compiled to their own
// module (build/threads.wasm) and transformed by Binaryen's asyncify so that the host can
// suspend an emulated thread at every yield point and resume threads in any order it chooses.
//
// Yield points are calls of the host imports below: every `ld`/`st`, every atomic, every
// barrier (`syncthreads`, `syncwarp`) and every fence (`threadfence`, `threadfence_block`). A
// thread kernel must reach memory that other threads can see (global arrays, `sharedMem()`)
// only through these helpers; a plain `load`/`store` is not a yield point and is invisible to
// the race detector.
//
// Rules (see docs/race-tools.md):
// - No static data and no managed allocation: the module shares the device memory with the
//   kernels module and must not write anything at instantiation (the build checks this).
// - Module globals are shared by all emulated threads; per-thread state lives in locals (which
//   asyncify saves per thread). The host sets threadIdx/blockIdx/sharedMem before resuming a
//   thread.

/** Access kinds passed to the host (keep in sync with src/race/threadRunner.ts). */
export const READ: i32 = 0;
export const WRITE: i32 = 1;
export const ATOMIC: i32 = 2;

// @ts-ignore: decorator
@external("simt", "access") declare function hostAccess(kind: i32, addr: usize, size: i32): i32;
// @ts-ignore: decorator
@external("simt", "barrier") declare function hostBarrier(scope: i32, site: i32): void;
// @ts-ignore: decorator
@external("simt", "fence") declare function hostFence(scope: i32, site: i32): void;

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

/** Host hook: the thread about to run (or resume). */
export function __setThread(tx: i32, ty: i32, tz: i32, bx: i32, by: i32, bz: i32, shared: usize): void {
  threadIdx.x = tx; threadIdx.y = ty; threadIdx.z = tz;
  blockIdx.x = bx; blockIdx.y = by; blockIdx.z = bz;
  sharedBase = shared;
}

/** The block's dynamic shared memory (`extern __shared__`), zeroed at block start. */
// @ts-ignore: decorator
@inline export function sharedMem(): usize { return sharedBase; }

/** Linear thread index in the block. */
// @ts-ignore: decorator
@inline export function threadLinear(): i32 { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
/** blockIdx.x * blockDim.x + threadIdx.x. */
// @ts-ignore: decorator
@inline export function globalX(): i32 { return blockIdx.x * blockDim.x + threadIdx.x; }
// @ts-ignore: decorator
@inline export function laneId(): i32 { return threadLinear() & 31; }
// @ts-ignore: decorator
@inline export function warpId(): i32 { return threadLinear() >> 5; }

/** A load another thread may race with (a yield point). Out of bounds: reported, reads 0. */
// @ts-ignore: decorator
@inline export function ld<T>(p: usize): T {
  if (hostAccess(READ, p, sizeof<T>()) != 0) return load<T>(p);
  return <T>0;
}

/** A store another thread may race with (a yield point). Out of bounds: reported, skipped. */
// @ts-ignore: decorator
@inline export function st<T>(p: usize, v: T): void {
  if (hostAccess(WRITE, p, sizeof<T>()) != 0) store<T>(p, v);
}

/** Element helpers: ld/st of element i of an array of T at p. */
// @ts-ignore: decorator
@inline export function ldi<T>(p: usize, i: i32): T { return ld<T>(p + (<usize>i) * sizeof<T>()); }
// @ts-ignore: decorator
@inline export function sti<T>(p: usize, i: i32, v: T): void { st<T>(p + (<usize>i) * sizeof<T>(), v); }

// Atomics. The host runs one emulated thread at a time and only switches at yield points, so
// a read-modify-write between two yield points is atomic; each atomic is one yield point.

export function atomicAdd<T>(p: usize, v: T): T {
  if (hostAccess(ATOMIC, p, sizeof<T>()) == 0) return <T>0;
  const old = load<T>(p); store<T>(p, old + v); return old;
}
export function atomicSub<T>(p: usize, v: T): T {
  if (hostAccess(ATOMIC, p, sizeof<T>()) == 0) return <T>0;
  const old = load<T>(p); store<T>(p, old - v); return old;
}
export function atomicExch<T>(p: usize, v: T): T {
  if (hostAccess(ATOMIC, p, sizeof<T>()) == 0) return <T>0;
  const old = load<T>(p); store<T>(p, v); return old;
}
export function atomicMax<T>(p: usize, v: T): T {
  if (hostAccess(ATOMIC, p, sizeof<T>()) == 0) return <T>0;
  const old = load<T>(p); if (v > old) store<T>(p, v); return old;
}
export function atomicMin<T>(p: usize, v: T): T {
  if (hostAccess(ATOMIC, p, sizeof<T>()) == 0) return <T>0;
  const old = load<T>(p); if (v < old) store<T>(p, v); return old;
}
export function atomicCAS<T>(p: usize, compare: T, v: T): T {
  if (hostAccess(ATOMIC, p, sizeof<T>()) == 0) return <T>0;
  const old = load<T>(p); if (old == compare) store<T>(p, v); return old;
}
/** CUDA atomicInc: old >= val ? 0 : old + 1. */
export function atomicInc(p: usize, val: u32): u32 {
  if (hostAccess(ATOMIC, p, 4) == 0) return 0;
  const old = load<u32>(p); store<u32>(p, old >= val ? 0 : old + 1); return old;
}

/** __syncthreads(). `site` optionally labels the barrier so that divergence between two different barriers is named. */
export function syncthreads(site: i32 = 0): void { hostBarrier(0, site); }
/** __syncwarp() (full mask): orders the accesses of the lanes of this warp. */
export function syncwarp(site: i32 = 0): void { hostBarrier(1, site); }
/** __threadfence(): this thread's earlier writes are seen by a thread of any block that observes its next atomic. */
export function threadfence(site: i32 = 0): void { hostFence(0, site); }
/** __threadfence_block(): the same for the threads of this block. */
export function threadfence_block(site: i32 = 0): void { hostFence(1, site); }
