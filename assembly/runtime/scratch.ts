// This worker's private scratch region in the shared memory. Blocks run one at a time on a
// worker, so one region per worker is enough for the running block's `__shared__` bytes, the
// per-thread "registers" that live across a barrier in a phase loop, and the runtime's own
// per-block tables (the thread order of the current phase).
//
//   scratchBase ─┬─ __shared__ bytes (sharedLimit, 128-byte aligned)
//                ├─ thread order: MAX_THREADS × i32
//                ├─ warp lane scratch: 32 × 8 bytes
//                └─ register slots: REGISTER_SLOTS × MAX_THREADS × 8 bytes

export const MAX_THREADS: i32 = 1024;
export const REGISTER_SLOTS: i32 = 32;
export const REGISTER_SLOT_BYTES: i32 = MAX_THREADS * 8;
const WARP_SCRATCH_BYTES: i32 = 256;

import { __setWarpScratch } from "./warp";

let sharedBase: usize = 0;
let sharedBytes: i32 = 0;
let orderBase: usize = 0;
let registersBase: usize = 0;

/** Called once per worker instance by the host with the region it owns. */
export function __setScratch(base: usize, sharedLimit: i32): void {
  sharedBase = base;
  orderBase = base + <usize>sharedLimit;
  registersBase = orderBase + <usize>(MAX_THREADS * 4 + WARP_SCRATCH_BYTES);
  __setWarpScratch(orderBase + <usize>(MAX_THREADS * 4));
}

/** Called per launch: the dynamic shared-memory size the launch asked for. */
export function __setSharedBytes(bytes: i32): void {
  sharedBytes = bytes;
}

/** The block's `extern __shared__` array (dynamic shared memory): `sharedBytes` long. */
// @ts-ignore: decorator
@inline export function sharedMem(): usize { return sharedBase; }

/** The end of the worker's shared-memory area (its limit past sharedMem()). */
// @ts-ignore: decorator
@inline export function sharedEnd(): usize { return orderBase; }

/** Dynamic shared bytes requested by this launch. */
// @ts-ignore: decorator
@inline export function sharedSize(): i32 { return sharedBytes; }

/** The thread-order table of the current phase (used by schedule.ts). */
// @ts-ignore: decorator
@inline export function threadOrderTable(): usize { return orderBase; }

/**
 * A per-thread register that must survive a barrier: `slot` in [0, REGISTER_SLOTS) names an
 * array of MAX_THREADS cells of 8 bytes. Thread t's value of type T lives at
 * `registers(slot) + t * sizeof<T>()` (use `reg<T>(slot, t)`).
 */
// @ts-ignore: decorator
@inline export function registers(slot: i32): usize {
  return registersBase + <usize>(slot * REGISTER_SLOT_BYTES);
}

/** Address of thread t's cell of type T in register slot `slot`. */
// @ts-ignore: decorator
@inline export function reg<T>(slot: i32, t: i32): usize {
  return registersBase + <usize>(slot * REGISTER_SLOT_BYTES) + <usize>(t * sizeof<T>());
}

/** Bytes one worker's scratch needs for a given shared-memory limit (mirrored by the host). */
export function __scratchBytes(sharedLimit: i32): i32 {
  return sharedLimit + MAX_THREADS * 4 + WARP_SCRATCH_BYTES + REGISTER_SLOTS * REGISTER_SLOT_BYTES;
}
