// The device's one shared memory:
//
//   0        control page (CONTROL_BYTES): launch words, each hot word on its own 128-byte line
//   65536    static data of the kernels module (its stripped data segments)
//   …        per-worker scratch regions (shared memory + registers of the running block)
//   …        device heap: what `device.alloc` hands out, 128-byte aligned
//   memoryBytes … 4 GiB   guard: not memory, so every access there traps (at least GUARD_BYTES)
//
// The control page is the launch protocol between the host and the workers; the word indices
// below are Int32Array indices (byte offset / 4).

export const PAGE_BYTES = 65536;
export const CONTROL_BYTES = 65536;
export const MEMORY_BASE = 65536;
export const MAX_WASM32_BYTES = 65536 * PAGE_BYTES; // 4 GiB: wasm32's addressable limit
/**
 * Why the device memory stops below 4 GiB. A wasm32 address is a u32: `ptr + offset` past
 * 4 GiB wraps around to 0, where the control page, the static data and the workers' scratch
 * live, and no part of a wasm memory can be made to trap except what lies past its end. So the
 * memory ends at least GUARD_BYTES below 4 GiB: an access that runs off the end of the heap
 * lands in [memoryBytes, 4 GiB), which is not memory, and traps (a KernelError) before any of
 * its addresses can wrap. An overrun reaches low memory only by jumping the whole guard in one
 * step: an overrun whose successive accesses are less than 64 MiB apart (element by element, or
 * a grid-stride loop of fewer than 16 M threads over 4-byte elements) traps first. 64 MiB costs
 * 1.6 % of the largest device. What the guard cannot stop — a wild pointer aimed straight at
 * low memory, an index that jumps the guard — the host catches after the launch for the
 * control page (src/pool/controlCheck.ts); static data and scratch are not checked.
 */
export const GUARD_BYTES = 64 << 20;
/** The largest device memory: 4 GiB less the guard (4032 MiB). */
export const MAX_DEVICE_BYTES = MAX_WASM32_BYTES - GUARD_BYTES;
export const HEAP_ALIGN = 128;

const LINE = 128 / 4; // words per 128-byte line

export const CTL = {
  /**
   * Launch generation, a seqlock: odd while the host writes a launch description, even once
   * it is complete. Workers wait for it to change to a new even value, read the description,
   * and accept it only if the word did not change meanwhile.
   */
  GEN: 0,
  /**
   * Block claims, a 64-bit word at byte CLAIM_BYTE: high half the generation the claims belong
   * to, low half the next chunk. Workers claim a chunk by compare-exchange, so a worker that
   * wakes late can never claim blocks of a later launch with an earlier launch's arguments.
   */
  CLAIM_BYTE: 1 * LINE * 4,
  /** Chunks completed in this launch (the launch is over when it reaches TOTAL_CHUNKS). */
  CHUNKS_DONE: 2 * LINE,
  /** Workers between "about to claim" and "done with the claimed chunk" (for aborts). */
  IN_FLIGHT: 13 * LINE,
  /** Bumped (and notified) by workers whenever a chunk ends or a worker leaves the launch. */
  PROGRESS: 14 * LINE,
  /** 0: no error; 1: a worker trapped (details below). */
  ERROR: 4 * LINE,
  ERROR_WORKER: 4 * LINE + 1,
  ERROR_MSG_LEN: 4 * LINE + 2,
  /** f64 slot (byte offset ERROR_BLOCK_BYTE): linear index of the trapping block. */
  ERROR_BLOCK_BYTE: (4 * LINE + 4) * 4,
  ERROR_MSG_BYTE: (4 * LINE + 8) * 4,
  ERROR_MSG_MAX: 512,
  /** Launch description, written before GEN is bumped. */
  COMMAND: 8 * LINE, // 0 run, 1 shutdown
  KERNEL: 8 * LINE + 1,
  GRID_X: 8 * LINE + 2, GRID_Y: 8 * LINE + 3, GRID_Z: 8 * LINE + 4,
  BLOCK_X: 8 * LINE + 5, BLOCK_Y: 8 * LINE + 6, BLOCK_Z: 8 * LINE + 7,
  SHARED_BYTES: 8 * LINE + 8,
  SEEDED: 8 * LINE + 9,
  SEED_LO: 8 * LINE + 10, SEED_HI: 8 * LINE + 11,
  CHUNK_BLOCKS: 8 * LINE + 12,
  ACTIVE_WORKERS: 8 * LINE + 13,
  NARGS: 8 * LINE + 14,
  TOTAL_CHUNKS: 8 * LINE + 18,
  /**
   * A race-screen launch: the byte address of its state block (src/race/screen.ts), read by the
   * screen form's __launch (assembly/runtime/checked.ts, SCREEN_STATE_BYTE); 0 otherwise.
   */
  SCREEN_STATE: 8 * LINE + 19,
  /** f64 slot: total blocks of the launch (≤ 2⁵³). */
  TOTAL_BLOCKS_BYTE: (8 * LINE + 16) * 4,
  /** Argument slots: 8 bytes each, MAX_ARGS of them. */
  ARGS_BYTE: 9 * LINE * 4,
  MAX_ARGS: 32,
  /** One i32 tag per argument: 'p','i','u','f','d','l' as char codes (see protocol.ts). */
  ARG_TAGS: 11 * LINE,
} as const;

export const enum Command { Run = 0, Shutdown = 1 }
