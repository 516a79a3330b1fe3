// The race screen's runtime (src/race/screen.ts): the block form of a compiled kernel, built a
// third time against this file instead of ./compiled, records every global and shared access in
// a shadow memory and counts the pairs that may race. It runs the block's threads as the fast
// path does — in loops between barriers, a block at a time — so a racecheck costs a few
// times a launch instead of a host call per access; the fine-grained detector
// (src/race/shadow.ts) runs only where the screen finds something, to explain it.
//
// The screen must never miss what the detector would report; it may report more (then the
// detector decides). So its model is the detector's, coarsened where that only adds findings:
//   - two accesses are ordered when they are of one thread, or of one block with a
//     __syncthreads between them; __syncwarp, warp operations and fences order nothing here;
//   - memory is tracked per 4-byte word, each record with the bytes of the word it covers;
//   - each word keeps the last plain write, the last atomic and two plain reads (the
//     detector's per-byte records: shadow.ts says why that is enough). Where the detector
//     would keep different records for different bytes of one word (threads writing
//     neighbouring bytes), the screen merges them into one record of "every thread of the block"
//     (or of any block) over the bytes of both, in the later barrier interval: a later access
//     to those bytes in that interval is then a finding.
// A record is (block + 1, thread << 22 | bytes << 18 | epoch): the epoch is the block's
// __syncthreads count (mod 2^18: a wrap can only make two accesses look unordered, a finding).
// Shared memory is reused by the next block on the worker, so a shared word's record of another
// block is stale.
//
// Layout (set by the host in a state block, src/race/screen.ts): a page directory (one i32 per
// 4 KiB of device memory: 0, or 1 + the index of its shadow page) and an arena of shadow pages
// (1024 words × 8 i32 = 32 KiB each), both in device memory. A full arena is a finding
// ("overflow").
//
// The screen runs on the device's worker pool, one worker taking every block (a reproducible
// order), as a launch of this module: the worker's instance reads the launch's state block's
// address from the launch description (SCREEN_STATE_BYTE, src/layout.ts) at __launch, takes
// the setup from it, and writes what it finds back to it as it goes; the host reads the
// findings there after the launch.

import { blockLinear } from "./dims";
import { __launch as launchBlocks } from "./launch";
import { sharedMem } from "./scratch";
import { __exited } from "./compiled";
import * as c from "./compiled";

export { __ctx, __ctxAt, __exit, __exited, __clearExits, __uniform, __predCount, __liveCount, __ballots, __ballotOf, __activeLanes,
  __shfl, __shflUp, __shflDown, __shflXor, __shflU, __shflUpU, __shflDownU, __shflXorU, __pred, __warpUniform, __setThread,
  __thread, __pmax, __pmin, __fence, __localMem,
  __trapKind, __trapArray, __trapIndex, __trapLength, __trapSite, __trapThread, __trapClear, __privBegin, __privFlush } from "./compiled";

const READ: i32 = 0, WRITE: i32 = 1, ATOMIC: i32 = 2;
const PAGE_BITS: u32 = 12;
const WORDS_PER_PAGE: i32 = 1024;
const SLOTS: i32 = 8; // W (block, tw), A, R1, R2
const SHADOW_PAGE_BYTES: i32 = WORDS_PER_PAGE * SLOTS * 4;
/** A record's second word: thread << 22 | bytes of the word << 18 | barrier interval (mod 2^18). */
const THREAD_SHIFT: i32 = 22;
const MASK_SHIFT: i32 = 18;
const EPOCH_MASK: i32 = (1 << MASK_SHIFT) - 1;
/** A record's first word: block + 1; -(block + 1) for a merged record of several threads of one block; this for several blocks. */
const MULTI_BLOCK: i32 = i32.MIN_VALUE;

/** The launch description's word with the state block's address (src/layout.ts, CTL.SCREEN_STATE). */
const SCREEN_STATE_BYTE: usize = (8 * 32 + 19) * 4;
// The state block (src/race/screen.ts, STATE): the setup, then the findings.
const S_DIR: usize = 0, S_DIR_PAGES: usize = 4, S_ARENA: usize = 8, S_ARENA_PAGES: usize = 12, S_SHARED: usize = 16;
const S_BUDGET: usize = 24, S_CONFLICTS: usize = 36, S_OVERFLOW: usize = 40;
const S_DIVERGENCE: usize = 44, S_ACCESSES: usize = 48;

let state: usize = 0;
let dirBase: usize = 0;
let dirPages: u32 = 0;
let arenaBase: usize = 0;
let arenaPages: i32 = 0;
let arenaUsed: i32 = 0;
let sharedLimit: u32 = 0;
let maxAccesses: i64 = 0;
let accesses: i64 = 0;

/** The block whose epoch is counted, and its __syncthreads count. */
let epochBlock: i64 = -1;
let epoch: i32 = 0;

/** The worker's hook before a launch's blocks: the block form's, then the launch's screen state. */
export function __launch(gx: i32, gy: i32, gz: i32, bx: i32, by: i32, bz: i32,
                         sharedBytes: i32, seeded: i32, seedLo: u32, seedHi: u32): void {
  launchBlocks(gx, gy, gz, bx, by, bz, sharedBytes, seeded, seedLo, seedHi);
  state = <usize>load<u32>(SCREEN_STATE_BYTE);
  dirBase = <usize>load<u32>(state, S_DIR); dirPages = load<u32>(state, S_DIR_PAGES);
  arenaBase = <usize>load<u32>(state, S_ARENA); arenaPages = load<i32>(state, S_ARENA_PAGES);
  sharedLimit = load<u32>(state, S_SHARED); maxAccesses = <i64>load<f64>(state, S_BUDGET);
  // A new launch forgets every record (launches are ordered): the directory is shared by the
  // launches of a job, each with a state block of its own.
  memory.fill(dirBase, 0, <usize>dirPages << 2);
  arenaUsed = 0; accesses = 0;
  epochBlock = -1; epoch = 0;
}

/** The accesses recorded so far, for the host (after each block or chunk of blocks: the kernels' entries call it). */
export function __screenFlush(): void { store<i64>(state + S_ACCESSES, accesses); }

/** A finding, written to the state block at once (the host reads it there after the launch). */
// @ts-ignore: decorator
@inline function found(at: usize, value: i32): void { store<i32>(state + at, value); }

// @ts-ignore: decorator
@inline function curEpoch(): i32 {
  if (blockLinear != epochBlock) { epochBlock = blockLinear; epoch = 0; }
  return epoch;
}

/**
 * A collective of the running block: `block` 1 for a __syncthreads (or _count/_or/_and), a new
 * barrier interval; 0 for __syncwarp, a shuffle or a vote (no new interval here). A thread that
 * exited before it does not take part (Volta and later), which the detector reports as barrier
 * or warp divergence where the collective names it: a finding.
 */
export function __screenBarrier(exitSlot: i32, threads: i32, block: i32): void {
  curEpoch();
  if (block) epoch = (epoch + 1) & EPOCH_MASK;
  if (exitSlot >= 0) {
    for (let t = 0; t < threads; t++) if (__exited(exitSlot, t)) { found(S_DIVERGENCE, 1); break; }
  }
}

function shadowPage(word: u32): usize {
  const page = word >> (PAGE_BITS - 2);
  if (page >= dirPages) { found(S_OVERFLOW, 1); return 0; }
  const slot = dirBase + (<usize>page << 2);
  let p = load<i32>(slot);
  if (p == 0) {
    if (arenaUsed >= arenaPages) { found(S_OVERFLOW, 1); return 0; }
    p = ++arenaUsed;
    memory.fill(arenaBase + <usize>(p - 1) * <usize>SHADOW_PAGE_BYTES, 0, <usize>SHADOW_PAGE_BYTES);
    store<i32>(slot, p);
  }
  return arenaBase + <usize>(p - 1) * <usize>SHADOW_PAGE_BYTES;
}

/** The bytes of its word a record covers (bit k: byte k). */
// @ts-ignore: decorator
@inline function maskOf(t: i32): i32 { return (t >>> MASK_SHIFT) & 15; }

/**
 * True when the record (pb, pt) is ordered before the current access (cb, ct): empty; of the
 * same thread; or of the same block in an earlier barrier interval (a merged record of several
 * threads of one block: its latest interval is earlier). A record merged across blocks never is.
 */
// @ts-ignore: decorator
@inline function ordered(pb: i32, pt: i32, cb: i32, ct: i32): bool {
  if (pb == 0) return true;
  if (pb > 0) return pb == cb && ((pt >>> THREAD_SHIFT) == (ct >>> THREAD_SHIFT) || (pt & EPOCH_MASK) != (ct & EPOCH_MASK));
  return pb == -cb && (pt & EPOCH_MASK) != (ct & EPOCH_MASK);
}

/** No conflict between the record and the current access: ordered, or on other bytes of the word. */
// @ts-ignore: decorator
@inline function quiet(pb: i32, pt: i32, cb: i32, ct: i32): bool {
  return pb == 0 || (maskOf(pt) & maskOf(ct)) == 0 || ordered(pb, pt, cb, ct);
}

// The record that keeps what both the old record and the current access say (mergedBlock and
// mergedTw): the current one where it covers the old one's bytes; the same thread's with both
// masks; else a merged record — every thread of the block (or of any block), the bytes of both,
// the current interval — which can only make later accesses look unordered (a finding).
let mergedBlock: i32 = 0, mergedTw: i32 = 0;
function merge(pb: i32, pt: i32, cb: i32, ct: i32): void {
  const m = maskOf(ct), pm = maskOf(pt);
  if (pb == 0 || (pm & ~m) == 0) { mergedBlock = cb; mergedTw = ct; return; }
  if (pb == cb && (pt >>> THREAD_SHIFT) == (ct >>> THREAD_SHIFT)) { mergedBlock = cb; mergedTw = ct | (pm << MASK_SHIFT); return; }
  mergedBlock = pb == cb || pb == -cb ? -cb : MULTI_BLOCK;
  mergedTw = ((pm | m) << MASK_SHIFT) | (ct & EPOCH_MASK);
}

function accessWord(word: u32, kind: i32, cb: i32, ct: i32, shared: bool): void {
  const page = shadowPage(word);
  if (page == 0) return;
  const r = page + (<usize>(word & <u32>(WORDS_PER_PAGE - 1)) << 5);
  let wb = load<i32>(r), wt = load<i32>(r, 4);
  let ab = load<i32>(r, 8), at_ = load<i32>(r, 12);
  let r1b = load<i32>(r, 16), r1t = load<i32>(r, 20);
  let r2b = load<i32>(r, 24), r2t = load<i32>(r, 28);
  if (shared) {
    // Another block's records of this worker's shared memory are stale.
    if (wb != cb && wb != -cb) wb = 0;
    if (ab != cb && ab != -cb) ab = 0;
    if (r1b != cb && r1b != -cb) r1b = 0;
    if (r2b != cb && r2b != -cb) r2b = 0;
  }
  // A plain write races with everything; an atomic with plain accesses; a plain read with writes.
  let race = !quiet(wb, wt, cb, ct);
  if (kind != ATOMIC && !quiet(ab, at_, cb, ct)) race = true;
  if (kind != READ && (!quiet(r1b, r1t, cb, ct) || !quiet(r2b, r2t, cb, ct))) race = true;
  if (race) found(S_CONFLICTS, load<i32>(state, S_CONFLICTS) + 1);
  const m = maskOf(ct);
  if (kind == READ) {
    // The detector's policy where the kept reads are of these very bytes; a merge otherwise.
    if (r1b == 0) { store<i32>(r, cb, 16); store<i32>(r, ct, 20); return; }
    if (ordered(r1b, r1t, cb, ct)) { merge(r1b, r1t, cb, ct); store<i32>(r, mergedBlock, 16); store<i32>(r, mergedTw, 20); return; }
    if (r1b > 0 && maskOf(r1t) == m && (r2b == 0 || (r2b > 0 && maskOf(r2t) == m))) {
      if (r2b != 0 && !ordered(r2b, r2t, cb, ct) && r2b != r1b) return;
      store<i32>(r, cb, 24); store<i32>(r, ct, 28);
      return;
    }
    merge(r2b, r2t, cb, ct); store<i32>(r, mergedBlock, 24); store<i32>(r, mergedTw, 28);
  } else if (kind == WRITE) {
    merge(wb, wt, cb, ct); store<i32>(r, mergedBlock); store<i32>(r, mergedTw, 4);
    // The write supersedes the reads of its bytes, and an atomic it follows (of its bytes).
    if (r1b != 0 && (maskOf(r1t) & ~m) == 0) store<i32>(r, 0, 16);
    if (r2b != 0 && (maskOf(r2t) & ~m) == 0) store<i32>(r, 0, 24);
    if (ab != 0 && (maskOf(at_) & ~m) == 0 && ordered(ab, at_, cb, ct)) store<i32>(r, 0, 8);
  } else {
    merge(ab, at_, cb, ct); store<i32>(r, mergedBlock, 8); store<i32>(r, mergedTw, 12);
  }
}

/** Records one access of `size` bytes at `addr` by thread `t` of the running block. */
function screen(addr: usize, size: i32, kind: i32, t: i32): void {
  if (++accesses > maxAccesses) { __screenFlush(); found(S_OVERFLOW, 2); unreachable(); }
  const cb = <i32>blockLinear + 1;
  const te = (t << THREAD_SHIFT) | curEpoch();
  const s = sharedMem();
  const shared = addr >= s && addr < s + <usize>sharedLimit;
  const end = addr + <usize>size;
  for (let w = <u32>(addr >> 2); w <= <u32>((end - 1) >> 2); w++) {
    // The bytes of word w the access covers.
    const lo = max<usize>(addr, <usize>w << 2) - (<usize>w << 2), hi = min<usize>(end, (<usize>w + 1) << 2) - (<usize>w << 2);
    const mask = <i32>(((1 << <i32>hi) - 1) & ~((1 << <i32>lo) - 1));
    accessWord(w, kind, cb, te | (mask << MASK_SHIFT), shared);
  }
}

// @ts-ignore: decorator
@inline function at<T>(base: usize, i: i64): usize { return base + ((<usize>i) << alignof<T>()); }

// --- the accessors of ./compiled, each recording its access once the bounds check passed --------

// @ts-ignore: decorator
@inline export function __ld<T>(base: usize, len: i32, i: i64, array: i32, site: i32, thread: i32): T {
  const v = c.__ld<T>(base, len, i, array, site, thread);
  screen(at<T>(base, i), sizeof<T>(), READ, thread);
  return v;
}
// @ts-ignore: decorator
@inline export function __st<T>(base: usize, len: i32, i: i64, array: i32, site: i32, thread: i32, v: T): void {
  c.__st<T>(base, len, i, array, site, thread, v);
  screen(at<T>(base, i), sizeof<T>(), WRITE, thread);
}
// @ts-ignore: decorator
@inline export function __ldu<T>(base: usize, len: i32, i: i64, array: i32, site: i32, thread: i32): T {
  screen(at<T>(base, i), sizeof<T>(), READ, thread);
  return c.__ldu<T>(base, len, i, array, site, thread);
}
// @ts-ignore: decorator
@inline export function __stu<T>(base: usize, len: i32, i: i64, array: i32, site: i32, thread: i32, v: T): void {
  screen(at<T>(base, i), sizeof<T>(), WRITE, thread);
  c.__stu<T>(base, len, i, array, site, thread, v);
}

// @ts-ignore: decorator
@inline export function __atomicAdd<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  const old = c.__atomicAdd<T>(shared, base, len, i, v, array, site, thread); screen(at<T>(base, i), sizeof<T>(), ATOMIC, thread); return old;
}
// @ts-ignore: decorator
@inline export function __atomicAddP<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  const old = c.__atomicAddP<T>(shared, base, len, i, v, array, site, thread); screen(at<T>(base, i), sizeof<T>(), ATOMIC, thread); return old;
}
// @ts-ignore: decorator
@inline export function __atomicSub<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  const old = c.__atomicSub<T>(shared, base, len, i, v, array, site, thread); screen(at<T>(base, i), sizeof<T>(), ATOMIC, thread); return old;
}
// @ts-ignore: decorator
@inline export function __atomicExch<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  const old = c.__atomicExch<T>(shared, base, len, i, v, array, site, thread); screen(at<T>(base, i), sizeof<T>(), ATOMIC, thread); return old;
}
// @ts-ignore: decorator
@inline export function __atomicMin<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  const old = c.__atomicMin<T>(shared, base, len, i, v, array, site, thread); screen(at<T>(base, i), sizeof<T>(), ATOMIC, thread); return old;
}
// @ts-ignore: decorator
@inline export function __atomicMax<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  const old = c.__atomicMax<T>(shared, base, len, i, v, array, site, thread); screen(at<T>(base, i), sizeof<T>(), ATOMIC, thread); return old;
}
// @ts-ignore: decorator
@inline export function __atomicInc<T>(shared: bool, base: usize, len: i32, i: i64, v: u32, array: i32, site: i32, thread: i32): u32 {
  const old = c.__atomicInc<T>(shared, base, len, i, v, array, site, thread); screen(at<u32>(base, i), 4, ATOMIC, thread); return old;
}
// @ts-ignore: decorator
@inline export function __atomicDec<T>(shared: bool, base: usize, len: i32, i: i64, v: u32, array: i32, site: i32, thread: i32): u32 {
  const old = c.__atomicDec<T>(shared, base, len, i, v, array, site, thread); screen(at<u32>(base, i), 4, ATOMIC, thread); return old;
}
// @ts-ignore: decorator
@inline export function __atomicCAS<T>(shared: bool, base: usize, len: i32, i: i64, compare: T, v: T, array: i32, site: i32, thread: i32): T {
  const old = c.__atomicCAS<T>(shared, base, len, i, compare, v, array, site, thread); screen(at<T>(base, i), sizeof<T>(), ATOMIC, thread); return old;
}
// @ts-ignore: decorator
@inline export function __atomicAnd<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  const old = c.__atomicAnd<T>(shared, base, len, i, v, array, site, thread); screen(at<T>(base, i), sizeof<T>(), ATOMIC, thread); return old;
}
// @ts-ignore: decorator
@inline export function __atomicOr<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  const old = c.__atomicOr<T>(shared, base, len, i, v, array, site, thread); screen(at<T>(base, i), sizeof<T>(), ATOMIC, thread); return old;
}
// @ts-ignore: decorator
@inline export function __atomicXor<T>(shared: bool, base: usize, len: i32, i: i64, v: T, array: i32, site: i32, thread: i32): T {
  const old = c.__atomicXor<T>(shared, base, len, i, v, array, site, thread); screen(at<T>(base, i), sizeof<T>(), ATOMIC, thread); return old;
}
