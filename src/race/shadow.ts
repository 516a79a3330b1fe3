// The race detector's shadow memory: constant state per byte of device memory, in typed
// arrays (no object per access), so a racecheck's cost follows the accesses, not the threads.
//
// Two accesses race when they come from different threads, are not ordered by a barrier (same
// barrier interval of one block, or different blocks of one launch) nor by a fence and an
// atomic that the later access's thread observed (fences.ts), are not both atomic and at least
// one writes. Each byte keeps four records — the last plain write, the last atomic and
// up to two plain reads (of different threads) — which is enough to find a race on every racy
// byte; a report needs one pair, and the pair count of a hazard is counted per access.
//
// A record is an *interval stamp* (which thread, in which barrier interval of its block and
// warp; one row of `Stamps`, shared by every access the thread makes in that interval) and
// the access's source site. Records are per byte, so accesses of different sizes that overlap
// (a u8 store and an i32 store of the same word) meet on the bytes they share.

import { type FenceOrder, clockKnows } from './fences.js';

export const READ = 0, WRITE = 1, ATOMIC = 2;

/** Where a thread stands in the barrier order: one row per (thread, interval). */
export class Stamps {
  constructor(readonly fences: FenceOrder) {}
  gid = new Int32Array(1024);
  blk = new Int32Array(1024);
  /** The thread's warp within its block (threadLinear / warpSize). */
  warp = new Int32Array(1024);
  /** The block's __syncthreads count when the access was made. */
  epoch = new Int32Array(1024);
  /** The warp's barrier count (__syncwarp and __syncthreads) when the access was made. */
  wepoch = new Int32Array(1024);
  /** What the thread knew through fences and atomics (FenceOrder's clock row; 0: nothing). */
  clock = new Int32Array(1024);
  count = 0;

  reset(): void { this.count = 0; }

  add(gid: number, blk: number, warp: number, epoch: number, wepoch: number, clock: number): number {
    if (this.count === this.gid.length) this.grow();
    const s = this.count++;
    this.gid[s] = gid; this.blk[s] = blk; this.warp[s] = warp; this.epoch[s] = epoch; this.wepoch[s] = wepoch; this.clock[s] = clock;
    return s;
  }

  private grow(): void {
    const n = this.gid.length * 2;
    const g = (a: Int32Array): Int32Array<ArrayBuffer> => { const b = new Int32Array(n); b.set(a); return b; };
    this.gid = g(this.gid); this.blk = g(this.blk); this.warp = g(this.warp); this.epoch = g(this.epoch); this.wepoch = g(this.wepoch);
    this.clock = g(this.clock);
  }

  /** True when the clock of `b` knows access `a` (of another thread, not ordered by a barrier). */
  knows(a: number, b: number): boolean {
    const c = this.clock[b]!;
    return c !== 0 && clockKnows(this.fences.clock(c), this.blk[a]!, this.epoch[a]!, this.gid[a]!, a);
  }

  /**
   * True when access `a` (made earlier in the run) happens before `b`: the same thread, or
   * one block with a __syncthreads between them, or one warp with a __syncwarp between them,
   * or a fence and an atomic that b's thread observed (fences.ts).
   */
  ordered(a: number, b: number): boolean {
    if (this.gid[a] === this.gid[b]) return true;
    if (this.blk[a] !== this.blk[b]) return this.knows(a, b);
    if (this.epoch[a] !== this.epoch[b]) return true;
    if (this.warp[a] === this.warp[b] && this.wepoch[a] !== this.wepoch[b]) return true;
    return this.knows(a, b);
  }
}

/** Record slots per byte: [stamp + 1, (site + 1) · 16 + size] for the write, the atomic, and two reads. */
const W = 0, A = 2, R1 = 4, R2 = 6, SLOTS = 8;
const PAGE_BITS = 12, PAGE = 1 << PAGE_BITS, PAGE_MASK = PAGE - 1;

/** A conflict found by `access`: the earlier access's stamp, site, size and kind. */
export interface Conflict { stamp: number; site: number; size: number; kind: number }

function conflict(stamp: number, packed: number, kind: number): Conflict {
  return { stamp, site: (packed >> 4) - 1, size: packed & 15, kind };
}

export class Shadow {
  private readonly pages = new Map<number, Int32Array>();
  /** Pages allocated so far (for the bench's memory figure). */
  get bytesHeld(): number { return this.pages.size * PAGE * SLOTS * 4; }

  constructor(readonly stamps: Stamps) {}

  /** Pages of earlier launches, zeroed when taken again (a launch after launch allocates nothing). */
  private readonly spare: Int32Array[] = [];

  clear(): void {
    for (const p of this.pages.values()) this.spare.push(p);
    this.pages.clear();
    this.lastPageNo = -1;
  }

  /** Forgets the bytes [lo, hi) (a wave's shared memory, reused by the next wave's blocks). */
  forget(lo: number, hi: number): void {
    for (let p = lo >> PAGE_BITS; p <= (hi - 1) >> PAGE_BITS; p++) {
      const page = this.pages.get(p);
      if (!page) continue;
      const a = Math.max(lo, p << PAGE_BITS) & PAGE_MASK, b = Math.min(hi, (p + 1) << PAGE_BITS) - (p << PAGE_BITS);
      page.fill(0, a * SLOTS, b * SLOTS);
    }
  }

  /** The stamp of the access being recorded. */
  private cur = 0;

  /**
   * True when the access of stamp x happens before the current one (Stamps.ordered, inlined by
   * hand: the inner loop). The clock test runs only where barriers leave the pair unordered,
   * and costs one load when the current access's thread knows nothing through fences.
   */
  private before(x: number): boolean {
    const st = this.stamps, s = this.cur;
    if (x === s) return true;
    const gid = st.gid;
    if (gid[x] === gid[s]) return true;
    if (st.blk[x] !== st.blk[s]) return st.clock[s] !== 0 && st.knows(x, s);
    if (st.epoch[x] !== st.epoch[s]) return true;
    if (st.warp[x] === st.warp[s] && st.wepoch[x] !== st.wepoch[s]) return true;
    return st.clock[s] !== 0 && st.knows(x, s);
  }

  private lastPageNo = -1;
  private lastPage: Int32Array = new Int32Array(0);

  private page(addr: number): Int32Array {
    const p = addr >>> PAGE_BITS;
    if (p === this.lastPageNo) return this.lastPage;
    let page = this.pages.get(p);
    if (!page) {
      page = this.spare.pop()?.fill(0) ?? new Int32Array(PAGE * SLOTS);
      this.pages.set(p, page);
    }
    this.lastPageNo = p;
    this.lastPage = page;
    return page;
  }

  /**
   * Records an access of `size` bytes at `addr` by interval stamp `s` and returns the first
   * earlier access it races with (or undefined). Every byte is checked and updated: a conflict
   * on the first byte does not leave later bytes without a record.
   */
  access(s: number, kind: number, addr: number, size: number, site: number): Conflict | undefined {
    const blk = this.stamps.blk;
    this.cur = s;
    let found: Conflict | undefined;
    const info = (site + 1) * 16 + size;
    let page = this.page(addr);
    for (let a = addr; a < addr + size; a++) {
      if ((a & PAGE_MASK) === 0 && a !== addr) page = this.page(a);
      const o = (a & PAGE_MASK) * SLOTS;
      if (!found) {
        // A plain write races with everything; an atomic with plain accesses; a plain read with writes.
        const w = page[o + W]! - 1;
        if (w >= 0 && !this.before(w)) found = conflict(w, page[o + W + 1]!, WRITE);
        if (!found && kind !== ATOMIC) {
          const x = page[o + A]! - 1;
          if (x >= 0 && !this.before(x)) found = conflict(x, page[o + A + 1]!, ATOMIC);
        }
        if (!found && kind !== READ) {
          const r1 = page[o + R1]! - 1, r2 = page[o + R2]! - 1;
          if (r1 >= 0 && !this.before(r1)) found = conflict(r1, page[o + R1 + 1]!, READ);
          else if (r2 >= 0 && !this.before(r2)) found = conflict(r2, page[o + R2 + 1]!, READ);
        }
      }
      if (kind === READ) {
        // Keep two readers of different threads, preferring ones a later write could race with.
        const r1 = page[o + R1]! - 1;
        if (r1 < 0 || this.before(r1)) { page[o + R1] = s + 1; page[o + R1 + 1] = info; continue; }
        const r2 = page[o + R2]! - 1;
        // Both kept readers race with a later write from elsewhere: keep them unless they are of one block.
        if (r2 >= 0 && !this.before(r2) && blk[r2] !== blk[r1]) continue;
        page[o + R2] = s + 1; page[o + R2 + 1] = info;
      } else if (kind === WRITE) {
        // A plain write supersedes the reads (a later write that races with them races with
        // this write too, or was reported here) and an atomic it is ordered after.
        page[o + W] = s + 1; page[o + W + 1] = info;
        page[o + R1] = 0; page[o + R2] = 0;
        const x = page[o + A]! - 1;
        if (x >= 0 && this.before(x)) page[o + A] = 0;
      } else {
        // An atomic leaves the plain write in place: another thread's unordered atomic still
        // races with it (a thread's own atomic must not erase its earlier plain store).
        page[o + A] = s + 1; page[o + A + 1] = info;
      }
    }
    return found;
  }
}
