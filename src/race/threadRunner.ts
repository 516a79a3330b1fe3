// The fine-grained scheduler: runs thread kernels (build/threads.wasm, asyncify-instrumented)
// on the host, one emulated thread at a time, in the device's own memory.
//
// Each emulated thread is a call of the kernel export that runs until a yield point (an
// access, an atomic or a barrier: imports `simt.access` / `simt.barrier`). There the scheduler
// asks its Chooser which runnable thread runs next; if it is another one, the current thread
// unwinds (asyncify saves its wasm locals and call stack into its own buffer in device memory)
// and the chosen one is rewound from its buffer. Staying on the same thread costs one import
// call; a switch costs an unwind and a rewind (≈1 µs).
//
// Blocks are resident together (up to `maxResidentThreads`; beyond that the grid runs in waves
// of consecutive blocks), so threads of different blocks interleave as on a GPU. A barrier
// releases when every live thread of its scope waits; a thread that exits does not hold a
// barrier (as on Volta and later), and the race detector reports that as divergence.

import type { Device } from '../device.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import { toDim3, type Dim3, type DimLike } from '../dims.js';
import { readPackageFile } from '../platform.js';
import type { Chooser } from './schedule.js';
import type { AccessKind, RaceReport, ThreadRef } from './reports.js';

type KernelFn = (...args: number[]) => void;

interface ThreadExports {
  memory: WebAssembly.Memory;
  __setLaunch(gx: number, gy: number, gz: number, bx: number, by: number, bz: number): void;
  __setThread(tx: number, ty: number, tz: number, bx: number, by: number, bz: number, shared: number): void;
  asyncify_start_unwind(p: number): void;
  asyncify_stop_unwind(): void;
  asyncify_start_rewind(p: number): void;
  asyncify_stop_rewind(): void;
  asyncify_get_state(): number;
}

let cachedModule: Promise<WebAssembly.Module> | undefined;

/** The thread-kernels module, compiled once per process. */
export function loadThreadsModule(): Promise<WebAssembly.Module> {
  cachedModule ??= (async () => {
    try {
      return await WebAssembly.compile(await readPackageFile('build/threads.wasm') as BufferSource);
    } catch (e) {
      cachedModule = undefined;
      throw new Error(`cannot load build/threads.wasm (${(e as Error).message}): run \`npm run build\` first`);
    }
  })();
  return cachedModule;
}

export interface NamedBuffer { name: string; base: number; bytes: number; elementBytes: number }

export interface ThreadLaunch {
  kernel: string;
  grid: DimLike;
  block: DimLike;
  sharedBytes?: number;
  /** Pointers (device arrays) and numbers, in the kernel's parameter order. */
  args: readonly (DeviceArray | number)[];
}

export interface RunOptions {
  chooser: Chooser;
  /** Shadow-memory race detection (racecheck mode). Bounds and barrier checks always run. */
  detect: boolean;
  /** Receives every decision (gid chosen where ≥ 2 threads were runnable). */
  decisions: number[];
  reports: RaceReport[];
  /** Stop collecting reports past this many (default 200). */
  maxReports?: number;
}

const STACK_BYTES = 2048;
const READ = 0, WRITE = 1, ATOMIC = 2;
const ACCESS_NAMES: AccessKind[] = ['read', 'write', 'atomic'];

/** One access in the shadow state. */
interface Acc { gid: number; blk: number; tid: number; epoch: number; wepoch: number; kind: number; size: number }
interface Cell { w: Acc | null; r: Acc[] }

export class ThreadRunner {
  private ex!: ThreadExports;
  private kernels = new Map<string, KernelFn>();
  private buffers: NamedBuffer[] = [];
  private stackArea: DeviceArray<'u8'> | undefined;
  private sharedArea: DeviceArray<'u8'> | undefined;
  private i32!: Int32Array;
  private u8!: Uint8Array;
  /** Total scheduling points (yields) so far in this run; PCT's step counter. */
  step = 0;
  /** Unwind/rewind pairs so far (context switches). */
  switches = 0;

  // --- per-launch state ---
  private opts!: RunOptions;
  private kernelName = '';
  private grid!: Dim3;
  private blockDim!: Dim3;
  private bt = 0;
  private sharedBytes = 0;
  private sharedStride = 0;
  private waveFirstBlock = 0;
  private waveBlocks = 0;
  private n = 0;
  private started!: Uint8Array;
  private done!: Uint8Array;
  private waiting!: Uint8Array;   // 0 runs, 1 at __syncthreads, 2 at __syncwarp
  private bcount!: Int32Array;    // __syncthreads arrived at
  private site!: Int32Array;
  private epoch!: Int32Array;     // per resident block
  private wepoch!: Int32Array;    // per resident (block, warp)
  private cur = -1;
  /** Threads neither finished nor waiting at a barrier. */
  private runnableCount = 0;
  /** Set when a barrier released threads since the last full choice (the runnable set grew). */
  private released = false;
  private switchTo = -1;
  private rewinding = false;
  private shadow = new Map<number, Cell>();
  private seen = new Set<string>();
  private readonly runnable: number[] = [];

  private constructor(readonly device: Device, readonly maxResidentThreads: number) {}

  static async create(device: Device, maxResidentThreads = 4096): Promise<ThreadRunner> {
    const r = new ThreadRunner(device, maxResidentThreads);
    const module = await loadThreadsModule();
    const instance = new WebAssembly.Instance(module, {
      env: { memory: device.memory },
      simt: { access: (k: number, a: number, s: number) => r.onAccess(k, a >>> 0, s), barrier: (sc: number, si: number) => r.onBarrier(sc, si) },
    });
    r.ex = instance.exports as unknown as ThreadExports;
    for (const e of WebAssembly.Module.exports(module)) {
      if (e.kind === 'function' && e.name.startsWith('tk_')) r.kernels.set(e.name.slice(3), instance.exports[e.name] as KernelFn);
    }
    r.i32 = new Int32Array(device.memory.buffer);
    r.u8 = new Uint8Array(device.memory.buffer);
    return r;
  }

  /** Thread kernels in the module (names without the `tk_` prefix). */
  get kernelNames(): string[] { return [...this.kernels.keys()]; }

  /** Names a device range for reports and bounds checks; only named ranges are in bounds. */
  nameBuffer(name: string, a: DeviceArray, elementBytes?: number): void {
    this.buffers = this.buffers.filter((b) => b.name !== name);
    this.buffers.push({ name, base: a.byteOffset, bytes: a.byteLength, elementBytes: elementBytes ?? (a.length ? a.byteLength / a.length : 1) });
    this.buffers.sort((x, y) => x.base - y.base);
  }

  clearBuffers(): void { this.buffers = []; }

  /** Runs one launch to completion under `opts.chooser`. */
  run(l: ThreadLaunch, opts: RunOptions): void {
    const fn = this.kernels.get(l.kernel);
    if (!fn) throw new Error(`no thread kernel '${l.kernel}' (known: ${this.kernelNames.join(', ')})`);
    this.opts = opts;
    this.kernelName = l.kernel;
    this.grid = toDim3('grid', l.grid);
    this.blockDim = toDim3('block', l.block);
    this.bt = this.blockDim.x * this.blockDim.y * this.blockDim.z;
    this.sharedBytes = l.sharedBytes ?? 0;
    this.sharedStride = Math.ceil(Math.max(this.sharedBytes, 16) / 128) * 128;
    this.shadow.clear();
    this.seen.clear();
    const args = l.args.map((a) => (typeof a === 'number' ? a : a.byteOffset));
    const blocks = this.grid.x * this.grid.y * this.grid.z;
    const perWave = Math.max(1, Math.floor(this.maxResidentThreads / this.bt));
    this.ensureAreas(Math.min(perWave, blocks));
    this.ex.__setLaunch(this.grid.x, this.grid.y, this.grid.z, this.blockDim.x, this.blockDim.y, this.blockDim.z);
    for (let first = 0; first < blocks; first += perWave) {
      this.runWave(fn, args, first, Math.min(perWave, blocks - first));
    }
  }

  private ensureAreas(residentBlocks: number): void {
    const stackBytes = residentBlocks * this.bt * STACK_BYTES;
    if (!this.stackArea || this.stackArea.byteLength < stackBytes) {
      this.stackArea?.free();
      this.stackArea = this.device.alloc('u8', stackBytes);
    }
    const sharedBytes = residentBlocks * this.sharedStride;
    if (!this.sharedArea || this.sharedArea.byteLength < sharedBytes) {
      this.sharedArea?.free();
      this.sharedArea = this.device.alloc('u8', sharedBytes);
    }
  }

  private runWave(fn: KernelFn, args: number[], firstBlock: number, nBlocks: number): void {
    const n = nBlocks * this.bt;
    this.waveFirstBlock = firstBlock;
    this.waveBlocks = nBlocks;
    this.n = n;
    this.started = new Uint8Array(n);
    this.done = new Uint8Array(n);
    this.waiting = new Uint8Array(n);
    this.bcount = new Int32Array(n);
    this.site = new Int32Array(n);
    this.epoch = new Int32Array(nBlocks);
    this.wepoch = new Int32Array(nBlocks * Math.ceil(this.bt / 32));
    const s0 = this.sharedArea!.byteOffset, s1 = s0 + nBlocks * this.sharedStride;
    this.u8.fill(0, s0, s1);
    if (firstBlock > 0 && this.opts.detect) for (let a = s0; a < s1; a++) this.shadow.delete(a);
    const ex = this.ex;
    this.cur = -1;
    this.runnableCount = n;
    let next = this.pickNext();
    while (next >= 0) {
      const i = next;
      this.cur = i;
      const b = Math.floor(i / this.bt), t = i - b * this.bt;
      const bl = firstBlock + b;
      const bd = this.blockDim, g = this.grid;
      const bz = Math.floor(bl / (g.x * g.y)), br = bl - bz * g.x * g.y, by = Math.floor(br / g.x);
      const tz = Math.floor(t / (bd.x * bd.y)), tr = t - tz * bd.x * bd.y, ty = Math.floor(tr / bd.x);
      ex.__setThread(tr - ty * bd.x, ty, tz, br - by * g.x, by, bz, this.sharedArea!.byteOffset + b * this.sharedStride);
      if (this.started[i]) {
        this.rewinding = true;
        ex.asyncify_start_rewind(this.stackOf(i));
      } else {
        this.started[i] = 1;
      }
      try {
        callKernel(fn, args);
      } catch (e) {
        this.resetAsyncify();
        const where = this.threadRef(i);
        throw new Error(`thread kernel ${this.kernelName} trapped in block (${where.block.join(',')}) thread (${where.thread.join(',')}): ${(e as Error).message}`);
      }
      if (ex.asyncify_get_state() === 1) {
        ex.asyncify_stop_unwind();
        next = this.switchTo;
      } else {
        this.done[i] = 1;
        this.runnableCount--;
        this.tryRelease(b);
        this.step++;
        next = this.pickNext();
      }
    }
  }

  private resetAsyncify(): void {
    const s = this.ex.asyncify_get_state();
    if (s === 1) this.ex.asyncify_stop_unwind();
    else if (s === 2) this.ex.asyncify_stop_rewind();
    this.rewinding = false;
  }

  private stackOf(i: number): number { return this.stackArea!.byteOffset + i * STACK_BYTES; }

  private gidOf(i: number): number { return this.waveFirstBlock * this.bt + i; }

  /** The next thread to run (resident index), or -1 when every thread has finished. */
  private pickNext(): number {
    // Fast path for choosers that keep the running thread (in-order): no list to build.
    const cur = this.cur;
    const ch = this.opts.chooser;
    if (cur >= 0 && !this.released && !this.done[cur] && !this.waiting[cur] && (ch.keepsCurrent || (ch.keepsCurrentAt && ch.keepsCurrentAt(this.step)))) {
      if (this.runnableCount >= 2) this.opts.decisions.push(cur + this.waveFirstBlock * this.bt);
      return cur;
    }
    this.released = false;
    const run = this.runnable;
    run.length = 0;
    for (let i = 0; i < this.n; i++) if (!this.done[i] && !this.waiting[i]) run.push(i);
    if (run.length === 0) {
      if (!this.forceRelease()) return -1;
      for (let i = 0; i < this.n; i++) if (!this.done[i] && !this.waiting[i]) run.push(i);
      if (run.length === 0) return -1;
    }
    if (run.length === 1) return run[0]!;
    const base = this.waveFirstBlock * this.bt;
    const gids = run.map((i) => i + base);
    const g = this.opts.chooser.choose(gids, this.cur >= 0 && !this.done[this.cur] ? this.cur + base : -1, this.step);
    this.opts.decisions.push(g);
    return g - base;
  }

  private unwind(i: number): void {
    const p = this.stackOf(i);
    this.i32[p >> 2] = p + 8;
    this.i32[(p >> 2) + 1] = p + STACK_BYTES;
    this.ex.asyncify_start_unwind(p);
    this.switches++;
  }

  private onAccess(kind: number, addr: number, size: number): number {
    if (this.rewinding) {
      this.ex.asyncify_stop_rewind();
      this.rewinding = false;
      return this.perform(this.cur, kind, addr, size);
    }
    this.step++;
    const next = this.pickNext();
    if (next === this.cur) return this.perform(this.cur, kind, addr, size);
    this.switchTo = next;
    this.unwind(this.cur);
    return 0;
  }

  private onBarrier(scope: number, site: number): void {
    if (this.rewinding) {
      this.ex.asyncify_stop_rewind();
      this.rewinding = false;
      return;
    }
    const i = this.cur;
    const b = Math.floor(i / this.bt);
    this.runnableCount--;
    if (scope === 0) {
      this.waiting[i] = 1;
      this.bcount[i]!++;
      this.site[i] = site;
      this.tryRelease(b);
    } else {
      this.waiting[i] = 2;
      this.tryReleaseWarp(b, (i - b * this.bt) >> 5);
    }
    this.step++;
    const next = this.pickNext();
    if (next === i) return;
    this.switchTo = next;
    this.unwind(i);
  }

  /** Releases block b's __syncthreads if every live thread of b waits there. */
  private tryRelease(b: number): void {
    const lo = b * this.bt, hi = lo + this.bt;
    let any = false;
    for (let i = lo; i < hi; i++) {
      if (this.done[i]) continue;
      if (this.waiting[i] !== 1) { if (this.waiting[i] === 2) this.tryReleaseWarp(b, (i - lo) >> 5); return; }
      any = true;
    }
    if (!any) return;
    this.release(b, false);
  }

  private tryReleaseWarp(b: number, w: number): void {
    const lo = b * this.bt + w * 32, hi = Math.min(lo + 32, (b + 1) * this.bt);
    let any = false;
    for (let i = lo; i < hi; i++) {
      if (this.done[i]) continue;
      if (this.waiting[i] !== 2) return;
      any = true;
    }
    if (!any) return;
    for (let i = lo; i < hi; i++) if (!this.done[i]) { this.waiting[i] = 0; this.runnableCount++; }
    this.released = true;
    this.wepoch[b * Math.ceil(this.bt / 32) + w]!++;
  }

  /** Releases every waiting thread of block b, reporting divergence among them. */
  private release(b: number, forced: boolean): void {
    const lo = b * this.bt, hi = lo + this.bt;
    let ref = -1;
    for (let i = lo; i < hi; i++) if (!this.done[i] && this.waiting[i] === 1) { ref = i; break; }
    if (ref < 0) for (let i = lo; i < hi; i++) if (!this.done[i] && this.waiting[i]) { ref = i; break; }
    const target = ref >= 0 ? this.bcount[ref]! : 0;
    for (let i = lo; i < hi; i++) {
      if (i === ref) continue;
      let why = '';
      if (this.done[i] && this.bcount[i]! < target) why = 'exited without reaching it';
      else if (!this.done[i] && this.waiting[i] === 2) why = 'waits at a __syncwarp instead';
      else if (!this.done[i] && this.waiting[i] === 1 && (this.bcount[i] !== target || this.site[i] !== this.site[ref])) {
        why = `waits at another __syncthreads (its #${this.bcount[i]}, site ${this.site[i]} vs site ${this.site[ref]})`;
      }
      if (why) {
        const key = `div:${this.waveFirstBlock + b}:${target}`;
        if (!this.seen.has(key)) {
          this.seen.add(key);
          const a = this.threadRef(ref), o = this.threadRef(i);
          this.report({
            kind: 'barrier-divergence', kernel: this.kernelName, barrier: target, first: a, second: o,
            message: `block (${a.block.join(',')}): thread (${a.thread.join(',')}) waits at __syncthreads #${target} (site ${this.site[ref]}) while thread (${o.thread.join(',')}) ${why}` +
              (forced ? ' (released to continue)' : ''),
          });
        }
      }
    }
    for (let i = lo; i < hi; i++) if (!this.done[i] && this.waiting[i]) { this.waiting[i] = 0; this.runnableCount++; }
    this.released = true;
    this.epoch[b]!++;
    const warps = Math.ceil(this.bt / 32);
    for (let w = 0; w < warps; w++) this.wepoch[b * warps + w]!++;
  }

  /** Nothing runnable but threads wait: release a block whose live threads all wait (mixed barriers). */
  private forceRelease(): boolean {
    for (let b = 0; b < this.waveBlocks; b++) {
      const lo = b * this.bt, hi = lo + this.bt;
      let any = false;
      for (let i = lo; i < hi; i++) if (!this.done[i] && this.waiting[i]) { any = true; break; }
      if (any) { this.release(b, true); return true; }
    }
    return false;
  }

  /** Coordinates of resident thread i. */
  private threadRef(i: number): ThreadRef { return this.threadRefOf(this.gidOf(i)); }

  /** Coordinates of global thread gid. */
  private threadRefOf(gid: number): ThreadRef {
    const bl = Math.floor(gid / this.bt), t = gid - bl * this.bt;
    const g = this.grid, bd = this.blockDim;
    const bz = Math.floor(bl / (g.x * g.y)), br = bl - bz * g.x * g.y, by = Math.floor(br / g.x);
    const tz = Math.floor(t / (bd.x * bd.y)), tr = t - tz * bd.x * bd.y, ty = Math.floor(tr / bd.x);
    return { block: [br - by * g.x, by, bz], thread: [tr - ty * bd.x, ty, tz] };
  }

  private report(r: RaceReport): void {
    if (this.opts.reports.length < (this.opts.maxReports ?? 200)) this.opts.reports.push(r);
  }

  /** Performs the bookkeeping of thread i's access; returns 0 to suppress an out-of-bounds one. */
  private perform(i: number, kind: number, addr: number, size: number): number {
    const b = Math.floor(i / this.bt);
    const sbase = this.sharedArea!.byteOffset + b * this.sharedStride;
    let space: 'shared' | 'global';
    let name = 'shared', base = sbase;
    if (addr >= sbase && addr + size <= sbase + this.sharedBytes) {
      space = 'shared';
    } else {
      const buf = this.findBuffer(addr, size);
      if (!buf) { this.reportOob(i, kind, addr, size); return 0; }
      space = 'global'; name = buf.name; base = buf.base;
    }
    if (this.opts.detect) this.shadowAccess(i, kind, addr, size, space, name, base);
    return 1;
  }

  private findBuffer(addr: number, size: number): NamedBuffer | undefined {
    for (const buf of this.buffers) if (addr >= buf.base && addr + size <= buf.base + buf.bytes) return buf;
    return undefined;
  }

  private reportOob(i: number, kind: number, addr: number, size: number): void {
    const key = `oob:${addr}:${kind}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const who = { ...this.threadRef(i), access: ACCESS_NAMES[kind]!, size };
    // Name the nearest allocation (the one just below the address, or the block's shared memory).
    let where = `address ${addr} is in no allocation`;
    let buffer: string | undefined, offset: number | undefined;
    const b = Math.floor(i / this.bt);
    const sbase = this.sharedArea!.byteOffset + b * this.sharedStride;
    if (addr >= sbase && addr < sbase + this.sharedStride) {
      buffer = 'shared'; offset = addr - sbase;
      where = `byte ${offset} of the block's shared memory, which has ${this.sharedBytes} bytes`;
    } else {
      let below: NamedBuffer | undefined;
      for (const buf of this.buffers) if (buf.base <= addr) below = buf;
      if (below) {
        buffer = below.name; offset = addr - below.base;
        const past = offset - below.bytes;
        where = past >= 0
          ? `element ${Math.floor(offset / below.elementBytes)} of '${below.name}' (${below.bytes / below.elementBytes} elements): ${past} bytes past its end`
          : `bytes [${offset}, ${offset + size}) of '${below.name}' straddle its end (${below.bytes} bytes)`;
      }
    }
    this.report({
      kind: 'out-of-bounds', kernel: this.kernelName, space: buffer === 'shared' ? 'shared' : 'global', buffer, offset,
      index: offset === undefined ? undefined : Math.floor(offset / size), address: addr, first: who,
      message: `${fmt(who)} ${who.access}s ${size} bytes at ${where} (suppressed)`,
    });
  }

  private shadowAccess(i: number, kind: number, addr: number, size: number, space: 'shared' | 'global', name: string, base: number): void {
    const b = Math.floor(i / this.bt);
    const warps = Math.ceil(this.bt / 32);
    const tid = i - b * this.bt;
    const acc: Acc = { gid: this.gidOf(i), blk: this.waveFirstBlock + b, tid, epoch: this.epoch[b]!, wepoch: this.wepoch[b * warps + (tid >> 5)]!, kind, size };
    // Shared memory of different blocks is distinct memory: key by address (regions do not overlap).
    for (let a = addr; a < addr + size; a++) {
      let cell = this.shadow.get(a);
      if (!cell) { cell = { w: null, r: [] }; this.shadow.set(a, cell); }
      let conflict: Acc | null = null;
      if (cell.w && this.conflicts(cell.w, acc)) conflict = cell.w;
      if (!conflict && kind !== READ) for (const r of cell.r) if (this.conflicts(r, acc)) { conflict = r; break; }
      if (conflict) { this.reportRace(conflict, acc, addr, space, name, base); break; }
    }
    for (let a = addr; a < addr + size; a++) {
      const cell = this.shadow.get(a)!;
      if (kind === READ) {
        const k = cell.r.findIndex((r) => r.gid === i);
        if (k >= 0) cell.r[k] = acc; else cell.r.push(acc);
      } else {
        cell.w = acc;
        cell.r = kind === ATOMIC ? [acc] : [];
      }
    }
  }

  /** True when a and b (a earlier) conflict: different threads, unordered, not both atomic, one writes. */
  private conflicts(a: Acc, b: Acc): boolean {
    if (a.gid === b.gid) return false;
    if (a.kind === ATOMIC && b.kind === ATOMIC) return false;
    if (a.kind === READ && b.kind === READ) return false;
    if (a.blk !== b.blk) return true;
    if (a.epoch !== b.epoch) return false;
    if ((a.tid >> 5) === (b.tid >> 5) && a.wepoch !== b.wepoch) return false;
    return true;
  }

  private reportRace(a: Acc, b: Acc, addr: number, space: 'shared' | 'global', name: string, base: number): void {
    const sameWarp = a.blk === b.blk && (a.tid >> 5) === (b.tid >> 5);
    const kind = sameWarp ? 'warp-sync-hazard' : 'data-race';
    const key = `${kind}:${addr}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const first = { ...this.threadRefOf(a.gid), access: ACCESS_NAMES[a.kind]!, size: a.size };
    const second = { ...this.threadRefOf(b.gid), access: ACCESS_NAMES[b.kind]!, size: b.size };
    const offset = addr - base;
    const at = space === 'shared' ? `shared memory byte ${offset} of block (${first.block.join(',')})` : `'${name}' byte ${offset} (element ${Math.floor(offset / b.size)})`;
    this.report({
      kind, kernel: this.kernelName, space, buffer: name, offset, index: Math.floor(offset / b.size), address: addr,
      conflict: `${first.access}-${second.access}`, first, second,
      message: `${at}: ${fmt(first)} ${first.access} and ${fmt(second)} ${second.access}, not ordered by a barrier` +
        (sameWarp ? ' (lanes of one warp: lock-step assumed without __syncwarp)' : (a.blk !== b.blk ? ' (different blocks)' : '')),
    });
  }
}

function fmt(t: ThreadRef): string { return `block (${t.block.join(',')}) thread (${t.thread.join(',')})`; }

function callKernel(fn: KernelFn, a: number[]): void {
  switch (a.length) {
    case 0: fn(); return;
    case 1: fn(a[0]!); return;
    case 2: fn(a[0]!, a[1]!); return;
    case 3: fn(a[0]!, a[1]!, a[2]!); return;
    case 4: fn(a[0]!, a[1]!, a[2]!, a[3]!); return;
    case 5: fn(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!); return;
    case 6: fn(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!, a[5]!); return;
    default: fn(...a);
  }
}
