// Ordering across blocks: CUDA's fence-and-atomic message passing, for the race detector.
//
// Without fences, accesses of different blocks are never ordered (a GPU promises nothing about
// them). With them, the CUDA programming guide's pattern is: a thread writes, calls
// `__threadfence()`, then performs an atomic; a thread of another block whose atomic on the same
// address comes later in that address's order (its returned value shows the first atomic came
// before: `atomicInc(count, …) == gridDim.x - 1` in the last-block reduction) may read what the
// first thread wrote before its fence — and after a `__syncthreads`, so may the rest of its
// block. The model:
//
// - A fence *releases*: the thread's own accesses so far (interval stamps below the current
//   count), its block's accesses of earlier barrier intervals (the barrier ordered them before
//   the fence, and CUDA's fences are cumulative), and whatever the thread had acquired itself.
//   `__threadfence_block()` releases only to threads of its own block.
// - Each later atomic of that thread publishes that release on its address.
// - An atomic *acquires* what the earlier atomics on its address published (atomics on one
//   address are totally ordered; the host runs them one at a time, so "earlier" is the run's
//   order). Plain reads observe nothing: a flag read without an atomic orders nothing.
// - `__syncthreads` (and `__syncwarp`) share what the threads of the block (warp) acquired.
//
// What a thread knows is a Clock: per block, the barrier intervals it knows (epoch bound), per
// thread, the interval stamps it knows (stamp bound), and views of the atomics' addresses at
// a version (what had been published there when it looked). Views keep an acquisition O(1):
// the last block of a reduction over G blocks holds one view of the counter, not G entries.
// None of this runs before a launch's first fence: kernels without fences pay one branch.

/** A (sync variable, version) pair: what the atomics on one address had published before that version. */
export type View = readonly [SyncVar, number];

const EMPTY: ReadonlyMap<number, number> = new Map();

/** What a thread (and each access it makes) knows of other threads' accesses beyond its block's barriers. */
export class Clock {
  /** Its row in Stamps' clock table (0 until an access is stamped with it). */
  id = 0;
  constructor(
    /** block → E: the block's accesses made before its E-th __syncthreads. */
    readonly epochs: ReadonlyMap<number, number>,
    /** gid → S: that thread's accesses under interval stamps below S. */
    readonly threads: ReadonlyMap<number, number>,
    readonly views: readonly View[],
  ) {}
}

/** Values that only grow, recorded with the version at which each was reached: [version, value, …]. */
type Versioned = number[];

function valueAt(list: Versioned | undefined, version: number): number {
  if (!list) return -1;
  for (let k = list.length - 2; k >= 0; k -= 2) if (list[k]! < version) return list[k + 1]!;
  return -1;
}

function raise<K>(map: Map<K, Versioned>, key: K, version: number, value: number): void {
  const list = map.get(key);
  if (!list) { map.set(key, [version, value]); return; }
  if (value <= list[list.length - 1]!) return;
  if (list[list.length - 2] === version) list[list.length - 1] = value;
  else list.push(version, value);
}

/**
 * What the atomics on one address have published, release by release: a view at version v
 * sees the releases made before it. Entries are kept per key with the version they were
 * raised at, so any older view is answered from the same maps.
 */
export class SyncVar {
  version = 0;
  readonly epochs = new Map<number, Versioned>();
  readonly threads = new Map<number, Versioned>();
  /** Other addresses' views the releasing threads held (a chain of message passing). */
  readonly views = new Map<SyncVar, Versioned>();

  publish(r: Clock): void {
    const v = this.version++;
    for (const [b, e] of r.epochs) raise(this.epochs, b, v, e);
    for (const [g, s] of r.threads) raise(this.threads, g, v, s);
    for (const [L, lv] of r.views) if (L !== this) raise(this.views, L, v, lv);
  }
}

/** How far a chain of views (address to address) is followed: deeper chains are taken as unordered. */
const MAX_CHAIN = 8;

function varKnows(L: SyncVar, v: number, blk: number, epoch: number, gid: number, x: number, depth: number): boolean {
  if (valueAt(L.epochs.get(blk), v) > epoch) return true;
  if (valueAt(L.threads.get(gid), v) > x) return true;
  if (depth >= MAX_CHAIN) return false;
  for (const [L2, list] of L.views) {
    const v2 = valueAt(list, v);
    if (v2 > 0 && varKnows(L2, v2, blk, epoch, gid, x, depth + 1)) return true;
  }
  return false;
}

/** True when clock c knows the access of stamp x (of thread gid, block blk, barrier interval epoch). */
export function clockKnows(c: Clock, blk: number, epoch: number, gid: number, x: number): boolean {
  const e = c.epochs.get(blk);
  if (e !== undefined && epoch < e) return true;
  const s = c.threads.get(gid);
  if (s !== undefined && x < s) return true;
  for (const [L, v] of c.views) if (varKnows(L, v, blk, epoch, gid, x, 0)) return true;
  return false;
}

function maxInto(into: Map<number, number>, from: ReadonlyMap<number, number>): void {
  for (const [k, v] of from) if (!(into.get(k)! >= v)) into.set(k, v);
}

/** The join of two clocks (either may be undefined): what both know. */
function join(a: Clock | undefined, b: Clock | undefined): Clock | undefined {
  if (!a || a === b) return b ?? a;
  if (!b) return a;
  const epochs = new Map(a.epochs), threads = new Map(a.threads);
  maxInto(epochs, b.epochs);
  maxInto(threads, b.threads);
  const views = new Map<SyncVar, number>(a.views);
  for (const [L, v] of b.views) if (!(views.get(L)! >= v)) views.set(L, v);
  return new Clock(epochs, threads, [...views]);
}

/** A clock that also holds the view (L, v): the same clock when it already does. */
function withView(c: Clock | undefined, L: SyncVar, v: number): Clock {
  if (!c) return new Clock(EMPTY, EMPTY, [[L, v]]);
  const k = c.views.findIndex(([x]) => x === L);
  if (k >= 0 && c.views[k]![1] >= v) return c;
  const views = k >= 0 ? c.views.map((w, j) => (j === k ? [L, v] as const : w)) : [...c.views, [L, v] as const];
  return new Clock(c.epochs, c.threads, views);
}

/** Fence scopes as the fine-grained runtimes pass them: 0 __threadfence, 1 __threadfence_block, 2 __threadfence_system (as 0). */
const FENCE_BLOCK = 1;

/**
 * The per-launch state of the model: each resident thread's clock and pending releases, and
 * the sync variable of every address an atomic published on. ThreadRunner feeds it.
 */
export class FenceOrder {
  /** Set at the launch's first fence: until then nothing here runs (and nothing is allocated per wave). */
  active = false;
  private residents = 0;
  private known: (Clock | undefined)[] = [];
  private releaseDevice: (Clock | undefined)[] = [];
  private releaseBlock: (Clock | undefined)[] = [];
  private readonly deviceVars = new Map<number, SyncVar>();
  private readonly blockVars = new Map<string, SyncVar>();
  /** Clocks that stamped accesses, by id - 1. */
  private readonly table: Clock[] = [];

  /** A new launch: nothing is known or published. */
  clear(): void {
    this.active = false;
    this.deviceVars.clear();
    this.blockVars.clear();
    for (const c of this.table) c.id = 0;
    this.table.length = 0;
  }

  /** A new wave of `n` resident threads (the published atomics stay: waves are one launch). */
  wave(n: number): void {
    this.residents = n;
    if (this.active) this.resetThreads();
  }

  private resetThreads(): void {
    const n = this.residents;
    this.known = new Array<Clock | undefined>(n);
    this.releaseDevice = new Array<Clock | undefined>(n);
    this.releaseBlock = new Array<Clock | undefined>(n);
  }

  /** The clock row an access of resident thread i is stamped with (0: it knows nothing beyond barriers). */
  clockOf(i: number): number {
    const c = this.known[i];
    if (!c) return 0;
    if (c.id === 0) { this.table.push(c); c.id = this.table.length; }
    return c.id;
  }

  /** The clock of row `id` (Shadow's ordering test). */
  clock(id: number): Clock { return this.table[id - 1]!; }

  /**
   * Resident thread i (global thread gid of block blk, in its block's barrier interval epoch)
   * passes a fence; `stampBound` is above every interval stamp it has had so far.
   */
  fence(i: number, scope: number, blk: number, epoch: number, gid: number, stampBound: number): void {
    if (!this.active) { this.active = true; this.resetThreads(); }
    const own = new Clock(new Map([[blk, epoch]]), new Map([[gid, stampBound]]), []);
    const r = join(this.known[i], own)!;
    if (scope === FENCE_BLOCK) this.releaseBlock[i] = r;
    else this.releaseDevice[i] = r;
  }

  /**
   * Resident thread i of block blk performs an atomic at addr: it acquires what earlier atomics
   * there published (to its block, or to any), then publishes its own release. True when what
   * it knows grew (its later accesses need a new stamp). A shared-memory address is its
   * block's alone (and reused by the next wave's blocks): only its block's variable is used.
   */
  atomic(i: number, blk: number, addr: number, shared: boolean): boolean {
    const before = this.known[i];
    let k = before;
    const key = `${blk}:${addr}`;
    const bv = this.blockVars.get(key);
    if (bv && bv.version > 0) k = withView(k, bv, bv.version);
    const dv = shared ? undefined : this.deviceVars.get(addr);
    if (dv && dv.version > 0) k = withView(k, dv, dv.version);
    const rd = this.releaseDevice[i], rb = this.releaseBlock[i];
    if (rd && !shared) this.variable(this.deviceVars, addr).publish(rd);
    if (rb || (rd && shared)) this.variable(this.blockVars, key).publish(join(rb, shared ? rd : undefined)!);
    this.known[i] = k;
    return k !== before;
  }

  private variable<K>(vars: Map<K, SyncVar>, key: K): SyncVar {
    let v = vars.get(key);
    if (!v) { v = new SyncVar(); vars.set(key, v); }
    return v;
  }

  /** A barrier released resident threads [lo, hi): each of them knows what any of them knew. */
  barrier(lo: number, hi: number): void {
    let j: Clock | undefined;
    for (let t = lo; t < hi; t++) j = join(j, this.known[t]);
    if (j) for (let t = lo; t < hi; t++) this.known[t] = j;
  }
}
