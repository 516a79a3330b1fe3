// The fine-grained scheduler: runs thread kernels (asyncify-instrumented: simt's own
// build/threads.wasm, and the fine-grained form of any compiled kernel module; see
// threadProgram.ts) on the host, one emulated thread at a time, in the device's own memory.
//
// Each emulated thread is a call of the kernel export that runs until a yield point (an
// access, an atomic or a barrier: imports `simt.access[At]` / `simt.barrier`). There the scheduler
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
import { DTYPES, isDType } from '../dtypes.js';
import { KernelArgumentError, KernelError, LaunchConfigError, SharedMemoryLimitError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { KernelModule, ModuleKernelMeta, ModuleSite } from '../kernelModule.js';
import type { Chooser } from './schedule.js';
import type { AccessKind, RaceReport, ThreadRef } from './reports.js';
import { fmtLocation } from './reports.js';
import {
  type KernelFn, type ThreadExports, type ThreadHooks, type ThreadProgram, OutOfBoundsTrap,
  describeModule, instantiateBuiltin, instantiateCompiled, kernelMeta, marshalCompiledArgs, siteLocation,
} from './threadProgram.js';

export { loadThreadsModule } from './threadProgram.js';

export interface NamedBuffer { name: string; base: number; bytes: number; elementBytes: number }

export interface ThreadLaunch {
  /** A thread kernel of simt's own (`tk_<name>` of build/threads.wasm), or a compiled module's kernel (`module.kernels.x`, loaded with `load`). */
  kernel: string | Kernel;
  grid: DimLike;
  block: DimLike;
  /** Dynamic shared bytes (`extern __shared__`); a compiled kernel's static `__shared__` arrays come on top. */
  sharedBytes?: number;
  /**
   * Simt's thread kernels: pointers (device arrays) and numbers, in parameter order. A compiled
   * kernel: its arguments as `device.launch` takes them (in order, or keyed by parameter name).
   */
  args: readonly (DeviceArray | number | bigint)[] | Readonly<Record<string, DeviceArray | number | bigint>>;
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

const READ = 0, WRITE = 1, ATOMIC = 2;
const ACCESS_NAMES: AccessKind[] = ['read', 'write', 'atomic'];
/** `waiting` states of a thread. */
const RUNS = 0, AT_SYNCTHREADS = 1, AT_SYNCWARP = 2, AT_COLLECTIVE = 3;

/** One access in the shadow state. */
interface Acc { gid: number; blk: number; tid: number; epoch: number; wepoch: number; kind: number; size: number; site: number }
interface Cell { w: Acc | null; r: Acc[] }

export class ThreadRunner {
  private builtin!: ThreadProgram;
  private readonly compiled = new Map<string, ThreadProgram>();
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
  private prog!: ThreadProgram;
  private ex!: ThreadExports;
  /** The compiled kernel's metadata (shared layout), when the launch runs one. */
  private meta: ModuleKernelMeta | undefined;
  private sites: readonly ModuleSite[] = [];
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
  private waiting!: Uint8Array;   // RUNS, AT_SYNCTHREADS, AT_SYNCWARP, AT_COLLECTIVE
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
    r.builtin = await instantiateBuiltin(device.memory, r.hooks);
    r.i32 = new Int32Array(device.memory.buffer);
    r.u8 = new Uint8Array(device.memory.buffer);
    return r;
  }

  /** The imports every program calls (bound once: programs share the scheduler). */
  private readonly hooks: ThreadHooks = {
    access: (k, a, s, site) => this.onAccess(k, a, s, site),
    barrier: (scope, site) => this.onBarrier(scope, site),
    outOfBounds: (array, index, length, site) => { throw new OutOfBoundsTrap(array, index, length, site); },
  };

  /**
   * Loads a compiled kernel module's fine-grained form (`compileKernels`, `simt build`) so its
   * kernels can run here; loading the same module again is a no-op.
   */
  async load(module: KernelModule): Promise<void> {
    if (this.compiled.has(module?.id)) return;
    const p = await instantiateCompiled(module, this.device.memory, this.hooks);
    this.compiled.set(module.id, p);
  }

  /** simt's own thread kernels (names without the `tk_` prefix). */
  get kernelNames(): string[] { return [...this.builtin.kernels.keys()]; }

  /** Names a device range for reports and bounds checks; only named ranges are in bounds. */
  nameBuffer(name: string, a: DeviceArray, elementBytes?: number): void {
    this.buffers = this.buffers.filter((b) => b.name !== name);
    this.buffers.push({ name, base: a.byteOffset, bytes: a.byteLength, elementBytes: elementBytes ?? (a.length ? a.byteLength / a.length : 1) });
    this.buffers.sort((x, y) => x.base - y.base);
  }

  clearBuffers(): void { this.buffers = []; }

  /** Runs one launch to completion under `opts.chooser`. */
  run(l: ThreadLaunch, opts: RunOptions): void {
    const grid = toDim3('grid', l.grid);
    const block = toDim3('block', l.block);
    const dynamicShared = l.sharedBytes ?? 0;
    if (!Number.isInteger(dynamicShared) || dynamicShared < 0) throw new LaunchConfigError(`sharedBytes must be a non-negative integer, got ${String(dynamicShared)}`);
    const { prog, fn, name, args, meta } = this.resolve(l);
    this.opts = opts;
    this.prog = prog;
    this.ex = prog.ex;
    this.meta = meta;
    this.sites = prog.module?.meta.sites ?? [];
    this.kernelName = name;
    this.grid = grid;
    this.blockDim = block;
    this.bt = block.x * block.y * block.z;
    this.sharedBytes = dynamicShared + (meta?.staticSharedBytes ?? 0);
    // A compiled kernel's shared memory is held to the device's limit, as device.launch holds it.
    if (meta && this.sharedBytes > this.device.sharedMemoryLimit) throw new SharedMemoryLimitError(this.sharedBytes, this.device.sharedMemoryLimit);
    this.sharedStride = Math.ceil(Math.max(prog.reservedShared + this.sharedBytes, 16) / 128) * 128;
    this.shadow.clear();
    this.seen.clear();
    const blocks = grid.x * grid.y * grid.z;
    const perWave = Math.max(1, Math.floor(this.maxResidentThreads / this.bt));
    this.ensureAreas(Math.min(perWave, blocks));
    this.ex.__setLaunch(grid.x, grid.y, grid.z, block.x, block.y, block.z);
    this.ex.__setDynamicShared?.(dynamicShared);
    for (let first = 0; first < blocks; first += perWave) {
      this.runWave(fn, args, first, Math.min(perWave, blocks - first));
    }
  }

  /** The program and export a launch runs, and its arguments as wasm values. */
  private resolve(l: ThreadLaunch): { prog: ThreadProgram; fn: KernelFn; name: string; args: (number | bigint)[]; meta?: ModuleKernelMeta } {
    const k = l.kernel;
    if (typeof k === 'string') {
      const fn = this.builtin.kernels.get(k);
      if (!fn) throw new LaunchConfigError(`no thread kernel '${k}' (known: ${this.kernelNames.join(', ')})`);
      if (!Array.isArray(l.args)) throw new KernelArgumentError(k, '(all)', 'a thread kernel takes its arguments in order (an array)');
      const args = (l.args as readonly (DeviceArray | number | bigint)[]).map((a) => (typeof a === 'object' ? a.byteOffset : a));
      return { prog: this.builtin, fn, name: k, args };
    }
    if (!k || typeof k.name !== 'string' || !Array.isArray(k.params)) {
      throw new KernelArgumentError(String((k as Kernel | undefined)?.name), '(kernel)', 'not a kernel: pass a kernel of a compiled module (module.kernels.name) or a thread kernel\'s name');
    }
    if (!k.module) throw new LaunchConfigError(`kernel '${k.name}' is not from a compiled kernel module: the race tools run compiled kernels (compileKernels, simt build) and simt's thread kernels`);
    const prog = this.compiled.get(k.module.id);
    if (!prog) throw new LaunchConfigError(`kernel '${k.name}' belongs to a kernel module the race tools have not loaded: give the job its module (defineJob({ module }), or runner.load(module))`);
    const fn = prog.kernels.get(k.name);
    const meta = kernelMeta(prog.module!, k.name);
    if (!fn || !meta) throw new LaunchConfigError(`kernel '${k.name}' is not in module ${describeModule(prog.module!)} (kernels: ${[...prog.kernels.keys()].join(', ')})`);
    const { words, arrays } = marshalCompiledArgs(k, l.args, this.device);
    if (fn.length !== words.length) {
      throw new KernelArgumentError(k.name, '(declaration)', `declared with ${k.params.length} parameters but the fine-grained export takes ${fn.length} words, not ${words.length}`);
    }
    // Arrays the job did not name are named after the kernel's parameter: reports and bounds checks know them.
    for (const { param, array } of arrays) {
      if (!this.buffers.some((b) => b.base === array.byteOffset && b.bytes === array.byteLength)) this.nameBuffer(param, array);
    }
    return { prog, fn, name: k.name, args: words, meta };
  }

  private ensureAreas(residentBlocks: number): void {
    const stackBytes = residentBlocks * this.bt * this.prog.stackBytes;
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

  private runWave(fn: KernelFn, args: (number | bigint)[], firstBlock: number, nBlocks: number): void {
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
        // Racecheck reports an index out of bounds and lets the other threads go on (the
        // trapping thread ends there); any other run fails as the device's launch would.
        if (!(e instanceof OutOfBoundsTrap && this.opts.detect)) throw this.trapError(i, e);
        this.reportTrap(i, e);
        this.done[i] = 1;
        this.runnableCount--;
        this.tryRelease(b);
        this.step++;
        next = this.pickNext();
        continue;
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

  private stackOf(i: number): number { return this.stackArea!.byteOffset + i * this.prog.stackBytes; }

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
    this.i32[(p >> 2) + 1] = p + this.prog.stackBytes;
    this.ex.asyncify_start_unwind(p);
    this.switches++;
  }

  private onAccess(kind: number, addr: number, size: number, site: number): number {
    if (this.rewinding) {
      this.ex.asyncify_stop_rewind();
      this.rewinding = false;
      return this.perform(this.cur, kind, addr, size, site);
    }
    this.step++;
    const next = this.pickNext();
    if (next === this.cur) return this.perform(this.cur, kind, addr, size, site);
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
      this.waiting[i] = AT_SYNCTHREADS;
      this.bcount[i]!++;
      this.site[i] = site;
      this.tryRelease(b);
    } else {
      this.waiting[i] = scope === 1 ? AT_SYNCWARP : AT_COLLECTIVE;
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
      if (this.waiting[i] !== AT_SYNCTHREADS) { if (this.waiting[i] !== RUNS) this.tryReleaseWarp(b, (i - lo) >> 5); return; }
      any = true;
    }
    if (!any) return;
    this.release(b, false);
  }

  /**
   * Releases warp w of block b when every live lane waits at a warp operation. Only __syncwarp
   * orders the warp's memory accesses (a new warp epoch); a shuffle's or vote's meeting point
   * exchanges values but, as in CUDA, orders no memory access.
   */
  private tryReleaseWarp(b: number, w: number): void {
    const lo = b * this.bt + w * 32, hi = Math.min(lo + 32, (b + 1) * this.bt);
    let any = false, orders = true;
    for (let i = lo; i < hi; i++) {
      if (this.done[i]) continue;
      const s = this.waiting[i];
      if (s !== AT_SYNCWARP && s !== AT_COLLECTIVE) return;
      if (s === AT_COLLECTIVE) orders = false;
      any = true;
    }
    if (!any) return;
    for (let i = lo; i < hi; i++) if (!this.done[i]) { this.waiting[i] = RUNS; this.runnableCount++; }
    this.released = true;
    if (orders) this.wepoch[b * Math.ceil(this.bt / 32) + w]!++;
  }

  /** Releases every waiting thread of block b, reporting divergence among them. */
  private release(b: number, forced: boolean): void {
    const lo = b * this.bt, hi = lo + this.bt;
    let ref = -1;
    for (let i = lo; i < hi; i++) if (!this.done[i] && this.waiting[i] === AT_SYNCTHREADS) { ref = i; break; }
    if (ref < 0) for (let i = lo; i < hi; i++) if (!this.done[i] && this.waiting[i]) { ref = i; break; }
    const target = ref >= 0 ? this.bcount[ref]! : 0;
    for (let i = lo; i < hi; i++) {
      if (i === ref) continue;
      let why = '';
      if (this.done[i] && this.bcount[i]! < target) why = 'exited without reaching it';
      else if (!this.done[i] && this.waiting[i] === AT_SYNCWARP) why = 'waits at a __syncwarp instead';
      else if (!this.done[i] && this.waiting[i] === AT_COLLECTIVE) why = 'waits at a warp shuffle or vote instead';
      else if (!this.done[i] && this.waiting[i] === AT_SYNCTHREADS && (this.bcount[i] !== target || this.site[i] !== this.site[ref])) {
        why = `waits at another __syncthreads (its #${this.bcount[i]}, ${this.siteText(this.site[i]!)} vs ${this.siteText(this.site[ref]!)})`;
      }
      if (why) {
        const key = `div:${this.waveFirstBlock + b}:${target}`;
        if (!this.seen.has(key)) {
          this.seen.add(key);
          const a = { ...this.threadRef(ref), ...this.siteRef(this.site[ref]!) }, o = this.threadRef(i);
          if (!this.done[i] && this.waiting[i] === AT_SYNCTHREADS) Object.assign(o, this.siteRef(this.site[i]!));
          this.report({
            kind: 'barrier-divergence', kernel: this.kernelName, barrier: target, first: a, second: o,
            message: `block (${a.block.join(',')}): thread (${a.thread.join(',')}) waits at __syncthreads #${target} (${this.siteText(this.site[ref]!)}) while thread (${o.thread.join(',')}) ${why}` +
              (forced ? ' (released to continue)' : ''),
          });
        }
      }
    }
    for (let i = lo; i < hi; i++) if (!this.done[i] && this.waiting[i]) { this.waiting[i] = RUNS; this.runnableCount++; }
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

  /** A compiled kernel's site as `file:line:column`, or simt's thread kernels' site number. */
  private siteText(site: number): string {
    return siteLocation(this.sites[site]) ?? `site ${site}`;
  }

  /** The location fields of a report's thread for a compiled kernel's site (none for simt's thread kernels). */
  private siteRef(site: number): { location?: string; what?: string } {
    const s = this.sites[site];
    return s ? { location: siteLocation(s), what: s.what } : {};
  }

  /** Block and thread of resident thread i as KernelError names them. */
  private trapWhere(i: number): { blockIdx: { x: number; y: number; z: number }; thread: string } {
    const r = this.threadRef(i);
    return { blockIdx: { x: r.block[0], y: r.block[1], z: r.block[2] }, thread: `thread (${r.thread.join(', ')})` };
  }

  /** A compiled kernel's failed bounds check, in the device's words (src/pool/workerLoop.ts). */
  private oobText(i: number, t: OutOfBoundsTrap): string {
    const array = this.prog.module?.meta.arrays[t.array] ?? '?';
    const at = siteLocation(this.sites[t.site]);
    return `index ${t.index} is out of bounds of '${array.slice(array.indexOf('.') + 1)}' (length ${t.length}) in ${this.trapWhere(i).thread}${at ? ` at ${at}` : ''}`;
  }

  /** The KernelError a trap of resident thread i becomes (what the device's launch would throw). */
  private trapError(i: number, e: unknown): KernelError {
    const { blockIdx, thread } = this.trapWhere(i);
    const trap = e instanceof OutOfBoundsTrap ? this.oobText(i, e)
      : `${e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e)} in ${thread}`;
    return new KernelError(this.kernelName, blockIdx, trap);
  }

  /** Racecheck: a compiled kernel's index out of bounds, as a report. */
  private reportTrap(i: number, t: OutOfBoundsTrap): void {
    // One report per source site: the first thread and index that went out of bounds there.
    const key = `oob-site:${t.site}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const array = this.prog.module?.meta.arrays[t.array] ?? '?';
    const what = this.sites[t.site]?.what ?? '';
    const access: AccessKind = what.startsWith('write') ? 'write' : what.startsWith('atomic') ? 'atomic' : 'read';
    const short = array.slice(array.indexOf('.') + 1);
    const dtype = this.meta?.params.find((p) => p.name === short && p.kind === 'array')?.dtype ?? this.meta?.shared?.find((x) => x.name === short)?.dtype;
    const size = dtype && isDType(dtype) ? DTYPES[dtype].bytes : 0;
    this.report({
      kind: 'out-of-bounds', kernel: this.kernelName, space: what.includes('__shared__') ? 'shared' : 'global',
      buffer: short, index: t.index,
      first: { ...this.threadRef(i), ...this.siteRef(t.site), access, size },
      message: `${this.oobText(i, t)} (the thread stopped there)`,
    });
  }

  private report(r: RaceReport): void {
    if (this.opts.reports.length < (this.opts.maxReports ?? 200)) this.opts.reports.push(r);
  }

  /** Performs the bookkeeping of thread i's access; returns 0 to suppress an out-of-bounds one. */
  private perform(i: number, kind: number, addr: number, size: number, site: number): number {
    const b = Math.floor(i / this.bt);
    const sbase = this.sharedBase(b);
    let space: 'shared' | 'global';
    let name = 'shared', base = sbase;
    if (addr >= sbase && addr + size <= sbase + this.sharedBytes) {
      space = 'shared';
    } else {
      const buf = this.findBuffer(addr, size);
      if (!buf) { this.reportOob(i, kind, addr, size); return 0; }
      space = 'global'; name = buf.name; base = buf.base;
    }
    if (this.opts.detect) this.shadowAccess(i, kind, addr, size, site, space, name, base);
    return 1;
  }

  /** Where block b's shared memory (as the kernel sees it, past the runtime's reserved bytes) starts. */
  private sharedBase(b: number): number {
    return this.sharedArea!.byteOffset + b * this.sharedStride + this.prog.reservedShared;
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
    const sbase = this.sharedBase(b);
    if (addr >= sbase && addr < sbase + this.sharedStride - this.prog.reservedShared) {
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

  private shadowAccess(i: number, kind: number, addr: number, size: number, site: number, space: 'shared' | 'global', name: string, base: number): void {
    const b = Math.floor(i / this.bt);
    const warps = Math.ceil(this.bt / 32);
    const tid = i - b * this.bt;
    const acc: Acc = { gid: this.gidOf(i), blk: this.waveFirstBlock + b, tid, epoch: this.epoch[b]!, wepoch: this.wepoch[b * warps + (tid >> 5)]!, kind, size, site };
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
    const first = { ...this.threadRefOf(a.gid), ...this.siteRef(a.site), access: ACCESS_NAMES[a.kind]!, size: a.size };
    const second = { ...this.threadRefOf(b.gid), ...this.siteRef(b.site), access: ACCESS_NAMES[b.kind]!, size: b.size };
    const offset = addr - base;
    let at: string, buffer = name, index = Math.floor(offset / b.size);
    const arr = space === 'shared' ? this.sharedArrayAt(offset) : undefined;
    if (arr) {
      // A compiled kernel's __shared__ array: name it and index it as the source does.
      buffer = arr.name;
      index = Math.floor((offset - arr.offset) / arr.elementBytes);
      at = `__shared__ ${arr.name}[${index}] of block (${first.block.join(',')})`;
    } else if (space === 'shared') {
      at = `shared memory byte ${offset} of block (${first.block.join(',')})`;
    } else {
      at = `'${name}' byte ${offset} (element ${index})`;
    }
    this.report({
      kind, kernel: this.kernelName, space, buffer, offset, index, address: addr,
      conflict: `${first.access}-${second.access}`, first, second,
      message: `${at}: ${fmt(first)} ${first.access}${fmtLocation(first)} and ${fmt(second)} ${second.access}${fmtLocation(second)}, not ordered by a barrier` +
        (sameWarp ? ' (lanes of one warp: lock-step assumed without __syncwarp)' : (a.blk !== b.blk ? ' (different blocks)' : '')),
    });
  }

  /** The compiled kernel's `__shared__` array holding byte `offset` of the block's shared memory. */
  private sharedArrayAt(offset: number): { name: string; offset: number; elementBytes: number } | undefined {
    let found: { name: string; offset: number; elementBytes: number } | undefined;
    for (const s of this.meta?.shared ?? []) {
      if (s.offset <= offset && (!found || s.offset >= found.offset)) found = { name: s.name, offset: s.offset, elementBytes: isDType(s.dtype) ? DTYPES[s.dtype].bytes : 1 };
    }
    return found;
  }
}

function fmt(t: ThreadRef): string { return `block (${t.block.join(',')}) thread (${t.thread.join(',')})`; }

function callKernel(fn: KernelFn, a: (number | bigint)[]): void {
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
