// The fine-grained scheduler: runs the fine-grained form of compiled kernel modules
// (asyncify-instrumented: simt's own kernels, `shippedModule()`, and any module the job loads;
// see threadProgram.ts) on the host, one emulated thread at a time, in the device's own memory.
//
// Each emulated thread is a call of the kernel export that runs until a yield point (an
// access, an atomic, a barrier or a fence: imports `simt.accessAt`, `simt.barrier`,
// `simt.fence`). There the scheduler asks its Chooser which runnable thread runs next; if it
// is another one, the current thread unwinds (asyncify saves its wasm locals and call stack
// into its own buffer in device memory) and the chosen one is rewound from its buffer. Staying
// on the same thread costs one import call; a switch costs an unwind and a rewind (≈1 µs).
//
// Blocks are resident together (up to `maxResidentThreads`; beyond that the grid runs in waves
// of consecutive blocks), so threads of different blocks interleave as on a GPU. A barrier
// releases when every live thread of its scope waits; a thread that exits does not hold a
// barrier (as on Volta and later), and the race detector reports that as divergence.

import type { Device } from '../device.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import { toDim3, type Dim3, type DimLike } from '../dims.js';
import { DTYPES, isDType } from '../dtypes.js';
import { KernelArgumentError, KernelError, LaunchConfigError, SharedMemoryLimitError, SimtError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { KernelModule, ModuleKernelMeta, ModuleSite } from '../kernelModule.js';
import { shippedModule } from '../shippedModule.js';
import type { Chooser } from './schedule.js';
import type { AccessKind, HazardType, RaceReport, ThreadRef } from './reports.js';
import { fmtLocation } from './reports.js';
import { FenceOrder } from './fences.js';
import { ATOMIC, type Conflict, READ, Shadow, Stamps, WRITE } from './shadow.js';
import type { MemoryChecker } from './memoryChecker.js';
import {
  type KernelFn, type ThreadExports, type ThreadHooks, type ThreadProgram, OutOfBoundsTrap,
  describeModule, instantiateCompiled, kernelMeta, marshalCompiledArgs, siteLocation,
} from './threadProgram.js';

export interface NamedBuffer { name: string; base: number; bytes: number; elementBytes: number }

export interface ThreadLaunch {
  /** A kernel of simt's own by name (`shippedModule().kernels[name]`, e.g. the race corpus's), or a compiled module's kernel (`module.kernels.x`, loaded with `load`). */
  kernel: string | Kernel;
  grid: DimLike;
  block: DimLike;
  /** Dynamic shared bytes (`extern __shared__`); a compiled kernel's static `__shared__` arrays come on top. */
  sharedBytes?: number;
  /** The kernel's arguments as `device.launch` takes them (in order, or keyed by parameter name). */
  args: readonly (DeviceArray | number | bigint)[] | Readonly<Record<string, DeviceArray | number | bigint>>;
  /**
   * Lanes per warp as the race detector sees them (a power of two, 1–32; default 32): which
   * threads __syncwarp orders and which pairs are warp-level hazards, for code written for
   * narrower warps.
   */
  warpSize?: number;
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
  /** Scheduling points (accesses, barriers, exits) a launch may take before it is stopped (default DEFAULT_MAX_STEPS). */
  maxSteps?: number;
  /** Memcheck mode: every access goes through the checker, and an out-of-bounds one is skipped instead of ending the thread. */
  memcheck?: MemoryChecker;
}

/** The default step budget of one launch: far above any kernel the race tools are meant for, low enough that a spin-wait ends. */
export const DEFAULT_MAX_STEPS = 200_000_000;

/** A launch ran past its step budget (a spin-wait on another block, or a loop without end): says where each stopped. */
export class StepBudgetError extends SimtError {}

/** Thrown by a hook through the running thread's wasm frames when the budget is spent. */
class StepBudgetTrap extends Error {}

const ACCESS_NAMES: AccessKind[] = ['read', 'write', 'atomic'];
/** `waiting` states of a thread. */
const RUNS = 0, AT_SYNCTHREADS = 1, AT_SYNCWARP = 2, AT_COLLECTIVE = 3;

/** A write-write hazard whose values are compared once the second store has happened. */
interface PendingStore { addr: number; size: number; old: number[]; report: RaceReport }

export class ThreadRunner {
  /** simt's own kernels (kernels/ → build/simt.simt.*), which a launch names by a string. */
  private shipped!: KernelModule;
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
  /** A lane at a warp shuffle or vote: its site, and the mask it names; once released, the warp's lanes that had not exited. */
  private warpSite!: Int32Array;
  private warpMask!: Uint32Array;
  private epoch!: Int32Array;     // per resident block
  private wepoch!: Int32Array;    // per resident (block, warp)
  private cur = -1;
  /** Threads neither finished nor waiting at a barrier. */
  private runnableCount = 0;
  /** Set when a barrier released threads since the last full choice (the runnable set grew). */
  private released = false;
  private switchTo = -1;
  private rewinding = false;
  /** Cross-block order through fences and atomics (the detector's; fences.ts). */
  private readonly fences = new FenceOrder();
  private readonly stamps = new Stamps(this.fences);
  private readonly shadow = new Shadow(this.stamps);
  /** Per resident thread: its interval stamp (-1: none yet in this barrier interval). */
  private stampOf!: Int32Array;
  private seen = new Set<string>();
  /** Races reported so far in this launch, by hazard (kind, type, space, buffer, both sites). */
  private readonly hazards = new Map<string, RaceReport>();
  /** Write-write hazards whose second value is known only after the store: settled at the thread's next hook. */
  private pending: PendingStore | undefined;
  /** WAW reports for which every pair so far wrote the same value (warnings until one differs). */
  private readonly sameValue = new Set<RaceReport>();
  /** Lanes per warp (32; narrower for code written for another width). */
  private warpSize = 32;
  private warpsPerBlock = 1;
  private maxSteps = DEFAULT_MAX_STEPS;
  /** Ascending gids of the runnable threads, valid while `listValid` (rebuilt after a release). */
  private runList: number[] = [];
  private listValid = false;
  /** Every resident thread below this index is done or waiting (in-order's next thread is found from here). */
  private scanFrom = 0;

  private constructor(readonly device: Device, readonly maxResidentThreads: number) {}

  static async create(device: Device, maxResidentThreads = 4096): Promise<ThreadRunner> {
    const r = new ThreadRunner(device, maxResidentThreads);
    r.shipped = await shippedModule();
    await r.load(r.shipped);
    r.i32 = new Int32Array(device.memory.buffer);
    r.u8 = new Uint8Array(device.memory.buffer);
    return r;
  }

  /** The imports every program calls (bound once: programs share the scheduler). */
  private readonly hooks: ThreadHooks = {
    access: (k, a, s, site) => this.onAccess(k, a, s, site),
    barrier: (scope, site, mask) => this.onBarrier(scope, site, mask),
    fence: (scope, site) => this.onFence(scope, site),
    outOfBounds: (kind, array, index, length, site, base, size) => {
      if (!this.opts.memcheck) throw new OutOfBoundsTrap(array, index, length, site);
      this.opts.memcheck.outOfBounds(this.gidOf(this.cur), kind, array, index, length, site, base, size);
    },
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

  /** The names of simt's own kernels, which a launch may give as a string. */
  get kernelNames(): string[] { return this.shipped.meta.kernels.map((k) => k.name); }

  /** Names a device range for reports and bounds checks; only named ranges are in bounds. A name given again moves. */
  nameBuffer(name: string, a: DeviceArray, elementBytes?: number): void {
    this.buffers = this.buffers.filter((b) => b.name !== name);
    this.addBuffer(name, a, elementBytes);
  }

  /** Adds a named range (names may repeat), dropping the ranges it overlaps: memory freed and allocated again. */
  private addBuffer(name: string, a: DeviceArray, elementBytes?: number): void {
    const lo = a.byteOffset, hi = lo + a.byteLength;
    this.buffers = this.buffers.filter((b) => b.base + b.bytes <= lo || b.base >= hi);
    this.buffers.push({ name, base: lo, bytes: a.byteLength, elementBytes: elementBytes ?? (a.length ? a.byteLength / a.length : 1) });
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
    this.sites = prog.module.meta.sites;
    this.kernelName = name;
    this.grid = grid;
    this.blockDim = block;
    this.bt = block.x * block.y * block.z;
    this.sharedBytes = dynamicShared + (meta?.staticSharedBytes ?? 0);
    // A compiled kernel's shared memory is held to the device's limit, as device.launch holds it.
    if (meta && this.sharedBytes > this.device.sharedMemoryLimit) throw new SharedMemoryLimitError(this.sharedBytes, this.device.sharedMemoryLimit);
    // A compiled kernel's __local__ arrays follow the block's shared bytes in its area (assembly/threads/compiled.ts __localBase).
    const localBytes = this.bt * (meta?.localBytes ?? 0);
    this.sharedStride = Math.ceil(Math.max(prog.reservedShared + Math.ceil(this.sharedBytes / 16) * 16 + localBytes, 16) / 128) * 128;
    const ws = l.warpSize ?? 32;
    if (!Number.isInteger(ws) || ws < 1 || ws > 32 || (ws & (ws - 1)) !== 0) throw new LaunchConfigError(`warpSize must be a power of two from 1 to 32, got ${String(ws)}`);
    this.warpSize = ws;
    this.warpsPerBlock = Math.ceil(this.bt / ws);
    this.maxSteps = opts.maxSteps ?? DEFAULT_MAX_STEPS;
    this.shadow.clear();
    this.stamps.reset();
    this.fences.clear();
    this.seen.clear();
    this.hazards.clear();
    this.sameValue.clear();
    this.pending = undefined;
    const blocks = grid.x * grid.y * grid.z;
    const perWave = Math.max(1, Math.floor(this.maxResidentThreads / this.bt));
    this.ensureAreas(Math.min(perWave, blocks));
    this.ex.__setLaunch(grid.x, grid.y, grid.z, block.x, block.y, block.z);
    this.ex.__setDynamicShared?.(dynamicShared);
    opts.memcheck?.beginLaunch({ kernel: name, module: prog.module, meta, locate: (gid) => this.threadRefOf(gid), buffers: () => this.buffers });
    try {
      for (let first = 0; first < blocks; first += perWave) {
        this.runWave(fn, args, first, Math.min(perWave, blocks - first));
      }
    } finally {
      this.finishHazards();
    }
  }

  /** Write-write hazards where every pair stored the same value end as warnings. */
  private finishHazards(): void {
    for (const r of this.sameValue) {
      r.severity = 'warning';
      r.message += ' (both stored the same value)';
    }
    this.sameValue.clear();
  }

  /** The program and export a launch runs, and its arguments as wasm values. */
  private resolve(l: ThreadLaunch): { prog: ThreadProgram; fn: KernelFn; name: string; args: (number | bigint)[]; meta?: ModuleKernelMeta } {
    let k = l.kernel;
    if (typeof k === 'string') {
      const own = Object.hasOwn(this.shipped.kernels, k) ? this.shipped.kernels[k] : undefined;
      if (!own) throw new LaunchConfigError(`no kernel '${k}' among simt's own kernels (known: ${this.kernelNames.join(', ')})`);
      k = own;
    }
    if (!k || typeof k.name !== 'string' || !Array.isArray(k.params)) {
      throw new KernelArgumentError(String((k as Kernel | undefined)?.name), '(kernel)', 'not a kernel: pass a kernel of a compiled module (module.kernels.name) or the name of one of simt\'s own kernels');
    }
    if (!k.module) throw new LaunchConfigError(`kernel '${k.name}' is not from a compiled kernel module: the race tools run compiled kernels (compileKernels, simt build)`);
    const prog = this.compiled.get(k.module.id);
    if (!prog) throw new LaunchConfigError(`kernel '${k.name}' belongs to a kernel module the race tools have not loaded: give the job its module (defineJob({ module }), or runner.load(module))`);
    const fn = prog.kernels.get(k.name);
    const meta = kernelMeta(prog.module, k.name);
    if (!fn || !meta) throw new LaunchConfigError(`kernel '${k.name}' is not in module ${describeModule(prog.module)} (kernels: ${[...prog.kernels.keys()].join(', ')})`);
    const { words, arrays } = marshalCompiledArgs(k, l.args, this.device);
    if (fn.length !== words.length) {
      throw new KernelArgumentError(k.name, '(declaration)', `declared with ${k.params.length} parameters but the fine-grained export takes ${fn.length} words, not ${words.length}`);
    }
    // Arrays the job did not name are named after the kernel's parameter (without taking the
    // name from a job buffer that has it): reports and bounds checks know them.
    for (const { param, array } of arrays) {
      if (!this.buffers.some((b) => b.base === array.byteOffset && b.bytes === array.byteLength)) this.addBuffer(param, array);
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
    // Written at a lane's arrival before anything reads them: kept from wave to wave.
    if (!this.warpMask || this.warpMask.length < n) { this.warpSite = new Int32Array(n); this.warpMask = new Uint32Array(n); }
    this.epoch = new Int32Array(nBlocks);
    this.wepoch = new Int32Array(nBlocks * this.warpsPerBlock);
    this.stampOf = new Int32Array(n).fill(-1);
    this.fences.wave(n);
    const s0 = this.sharedArea!.byteOffset, s1 = s0 + nBlocks * this.sharedStride;
    this.u8.fill(0, s0, s1);
    this.opts.memcheck?.beginWave(s0, s1);
    if (firstBlock > 0 && this.opts.detect) this.shadow.forget(s0, s1);
    const ex = this.ex;
    this.cur = -1;
    this.runnableCount = n;
    this.listValid = false;
    this.scanFrom = 0;
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
        this.settle();
        if (e instanceof StepBudgetTrap) throw this.budgetError(i);
        // Racecheck reports an index out of bounds and lets the other threads go on (the
        // trapping thread ends there); any other run fails as the device's launch would.
        if (!(e instanceof OutOfBoundsTrap && this.opts.detect)) throw this.trapError(i, e);
        this.reportTrap(i, e);
        this.markBlocked(i, true);
        this.tryRelease(b);
        this.step++;
        next = this.pickNext();
        continue;
      }
      if (ex.asyncify_get_state() === 1) {
        ex.asyncify_stop_unwind();
        next = this.switchTo;
      } else {
        this.settle();
        this.markBlocked(i, true);
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
    const cur = this.cur;
    const ch = this.opts.chooser;
    const base = this.waveFirstBlock * this.bt;
    const curRuns = cur >= 0 && !this.done[cur] && !this.waiting[cur];
    // Fast path for choosers that keep the running thread (in-order): no list to build.
    if (curRuns && !this.released && (ch.keepsCurrent || (ch.keepsCurrentAt && ch.keepsCurrentAt(this.step)))) {
      if (this.runnableCount >= 2 && !ch.coarse) this.opts.decisions.push(cur + base);
      return cur;
    }
    // A replay whose next decision is the running thread (most of an in-order schedule's).
    if (curRuns && !this.released && this.runnableCount >= 2 && ch.takesCurrent && ch.takesCurrent(cur + base)) {
      this.opts.decisions.push(cur + base);
      return cur;
    }
    this.released = false;
    if (this.runnableCount === 0 && !this.forceRelease()) return -1;
    if (this.runnableCount === 0) return -1;
    if (this.runnableCount === 1) return this.lowestRunnable();
    const current = cur >= 0 && !this.done[cur] ? cur + base : -1;
    let g: number | undefined;
    // Choosers that can decide from a membership test (in-order, replay) cost O(1) per point;
    // only the ones that choose among all runnable threads (random, PCT, exhaustive) get the list.
    if (ch.lowest) g = (curRuns ? cur : this.lowestRunnable()) + base;
    else if (ch.pick) g = ch.pick(this.isRunnableGid, current, this.step);
    if (g === undefined) g = ch.choose(this.runnableList(), current, this.step);
    this.opts.decisions.push(g);
    return g - base;
  }

  /** True when global thread `gid` is resident and runnable (a replay's membership test). */
  private readonly isRunnableGid = (gid: number): boolean => {
    const i = gid - this.waveFirstBlock * this.bt;
    return i >= 0 && i < this.n && !this.done[i] && !this.waiting[i];
  };

  /** The lowest runnable resident thread (amortised O(1): nothing below `scanFrom` runs). */
  private lowestRunnable(): number {
    for (let i = this.scanFrom; i < this.n; i++) {
      if (!this.done[i] && !this.waiting[i]) { this.scanFrom = i; return i; }
    }
    return -1;
  }

  /** The runnable threads' gids, ascending (kept up to date while valid; rebuilt after a release). */
  private runnableList(): number[] {
    if (!this.listValid) {
      const base = this.waveFirstBlock * this.bt, list = this.runList;
      list.length = 0;
      for (let i = this.scanFrom; i < this.n; i++) if (!this.done[i] && !this.waiting[i]) list.push(i + base);
      this.listValid = true;
    }
    return this.runList;
  }

  /** Thread i stops being runnable: it finished (`done`) or waits at a barrier. */
  private markBlocked(i: number, done: boolean): void {
    if (done) this.done[i] = 1;
    this.runnableCount--;
    if (this.listValid) {
      const g = i + this.waveFirstBlock * this.bt, list = this.runList;
      let lo = 0, hi = list.length;
      while (lo < hi) { const m = (lo + hi) >> 1; if (list[m]! < g) lo = m + 1; else hi = m; }
      if (list[lo] === g) list.splice(lo, 1);
    }
  }

  /** Threads [lo, hi) waiting at a barrier may run again. */
  private markReleased(lo: number): void {
    this.released = true;
    this.listValid = false;
    if (lo < this.scanFrom) this.scanFrom = lo;
  }

  private unwind(i: number): void {
    const p = this.stackOf(i);
    this.i32[p >> 2] = p + 8;
    this.i32[(p >> 2) + 1] = p + this.prog.stackBytes;
    this.ex.asyncify_start_unwind(p);
    this.switches++;
  }

  /** Counts a scheduling point against the launch's budget (throws through the thread's frames when spent). */
  private tick(): void {
    if (++this.step > this.maxSteps) throw new StepBudgetTrap();
  }

  private onAccess(kind: number, addr: number, size: number, site: number): number {
    if (this.pending) this.settle();
    if (this.rewinding) {
      this.ex.asyncify_stop_rewind();
      this.rewinding = false;
      return this.perform(this.cur, kind, addr, size, site);
    }
    this.lastSite = site;
    this.tick();
    // Interval order: a thread runs until it blocks or ends, so an access is no scheduling point.
    if (this.opts.chooser.coarse) return this.perform(this.cur, kind, addr, size, site);
    const next = this.pickNext();
    if (next === this.cur) return this.perform(this.cur, kind, addr, size, site);
    this.switchTo = next;
    this.unwind(this.cur);
    return 0;
  }

  /** A fence is a scheduling point (explore may switch threads there), like an access. */
  private onFence(scope: number, site: number): void {
    if (this.pending) this.settle();
    if (this.rewinding) {
      this.ex.asyncify_stop_rewind();
      this.rewinding = false;
      this.performFence(this.cur, scope);
      return;
    }
    this.lastSite = site;
    this.tick();
    if (this.opts.chooser.coarse) { this.performFence(this.cur, scope); return; }
    const next = this.pickNext();
    if (next === this.cur) { this.performFence(this.cur, scope); return; }
    this.switchTo = next;
    this.unwind(this.cur);
  }

  /** Returns (to a thread that runs on) the lanes of its warp that had not exited when it was released. */
  private onBarrier(scope: number, site: number, mask: number): number {
    if (this.pending) this.settle();
    if (this.rewinding) {
      this.ex.asyncify_stop_rewind();
      this.rewinding = false;
      return this.warpMask[this.cur]!;
    }
    const i = this.cur;
    const b = Math.floor(i / this.bt);
    // Shuffles and votes exchange values among 32 lanes (the runtime's layout): a narrower warp would meet too early.
    if (scope === 2 && this.warpSize !== 32) throw new LaunchConfigError(`warp shuffles, votes and __activemask need warpSize 32 (this launch has ${this.warpSize})`);
    this.lastSite = site;
    this.markBlocked(i, false);
    if (scope === 0) {
      this.waiting[i] = AT_SYNCTHREADS;
      this.bcount[i]!++;
      this.site[i] = site;
      this.tryRelease(b);
    } else {
      this.waiting[i] = scope === 1 ? AT_SYNCWARP : AT_COLLECTIVE;
      this.warpSite[i] = site;
      this.warpMask[i] = mask;
      this.tryReleaseWarp(b, Math.floor((i - b * this.bt) / this.warpSize));
    }
    this.tick();
    const next = this.pickNext();
    if (next === i) return this.warpMask[i]!;
    this.switchTo = next;
    this.unwind(i);
    return 0;
  }

  /** The site of the running thread's last scheduling point (where a budget stop names it). */
  private lastSite = -1;

  /** The error a spent step budget becomes: the kernel, the budget, and where the running thread was. */
  private budgetError(i: number): StepBudgetError {
    const r = this.threadRef(i);
    const at = this.siteText(this.lastSite);
    return new StepBudgetError(`kernel ${this.kernelName} stopped after ${this.maxSteps} scheduling steps (its step budget): block (${r.block.join(',')}) thread (${r.thread.join(',')}) was at ${this.lastSite >= 0 ? at : 'an access'}; ` +
      'a thread waiting for another block (which a GPU does not promise to run) or a loop without end never finishes: fix the kernel, or raise the budget (maxSteps, --max-steps)');
  }

  /** Releases block b's __syncthreads if every live thread of b waits there. */
  private tryRelease(b: number): void {
    const lo = b * this.bt, hi = lo + this.bt;
    let any = false;
    for (let i = lo; i < hi; i++) {
      if (this.done[i]) continue;
      if (this.waiting[i] !== AT_SYNCTHREADS) { if (this.waiting[i] !== RUNS) this.tryReleaseWarp(b, Math.floor((i - lo) / this.warpSize)); return; }
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
    const lo = b * this.bt + w * this.warpSize, hi = Math.min(lo + this.warpSize, (b + 1) * this.bt);
    let any = false, orders = true;
    for (let i = lo; i < hi; i++) {
      if (this.done[i]) continue;
      const s = this.waiting[i];
      if (s !== AT_SYNCWARP && s !== AT_COLLECTIVE) return;
      if (s === AT_COLLECTIVE) orders = false;
      any = true;
    }
    if (!any) return;
    if (!orders) this.checkWarpMasks(b, w, lo, hi);
    this.setLiveLanes(lo, hi);
    for (let i = lo; i < hi; i++) if (!this.done[i]) { this.waiting[i] = RUNS; this.runnableCount++; }
    this.markReleased(lo);
    if (orders) {
      this.wepoch[b * this.warpsPerBlock + w]!++;
      this.stampOf.fill(-1, lo, hi);
      if (this.fences.active) this.fences.barrier(lo, hi);
    }
  }

  /** The lanes of warp [lo, hi) that have not exited: what each of its released threads is told (CUDA's __activemask()). */
  private setLiveLanes(lo: number, hi: number): void {
    let live = 0;
    for (let i = lo; i < hi; i++) if (!this.done[i]) live |= 1 << (i - lo);
    for (let i = lo; i < hi; i++) this.warpMask[i] = live;
  }

  /**
   * A warp shuffle or vote meets: the lanes its mask names must all take part (CUDA leaves the
   * result undefined otherwise). Lanes named that exited without reaching it are reported as
   * `warp-divergence`, once per source site (with a count of the warps).
   */
  private checkWarpMasks(b: number, w: number, lo: number, hi: number): void {
    let named = 0, exited = 0, waiting = 0, first = -1;
    for (let i = lo; i < hi; i++) {
      const bit = 1 << (i - lo);
      if (this.done[i]) exited |= bit;
      else if (this.waiting[i] === AT_COLLECTIVE && this.warpMask[i]) {
        named |= this.warpMask[i]!;
        waiting |= bit;
        if (first < 0) first = i;
      }
    }
    const missing = (named & exited) >>> 0;
    if (!missing) return;
    const site = this.warpSite[first]!;
    const key = `warp-divergence:${site}`;
    const known = this.hazards.get(key);
    if (known) { known.count = (known.count ?? 1) + 1; return; }
    const a = { ...this.threadRef(first), ...this.siteRef(site) };
    const lanes = laneList(missing);
    const o = this.threadRef(lo + lanes[0]!);
    const what = this.sites[site]?.what ?? 'a warp shuffle or vote';
    const r: RaceReport = {
      kind: 'warp-divergence', kernel: this.kernelName, severity: 'error', first: a, second: o, count: 1,
      warp: w, mask: named >>> 0, missingLanes: lanes,
      message: `block (${a.block.join(',')}) warp ${w}: ${what}${fmtLocation(a)} names lanes ${fmtLanes(lanes)} in its mask 0x${(named >>> 0).toString(16)}, ` +
        `but they exited without reaching it (lanes ${fmtLanes(laneList(waiting >>> 0))} wait there): CUDA leaves the result undefined when a lane the mask names does not take part`,
    };
    if (this.opts.reports.length >= (this.opts.maxReports ?? 200)) return;
    this.hazards.set(key, r);
    this.report(r);
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
    for (let l = lo; l < hi; l += this.warpSize) this.setLiveLanes(l, Math.min(l + this.warpSize, hi));
    for (let i = lo; i < hi; i++) if (!this.done[i] && this.waiting[i]) { this.waiting[i] = RUNS; this.runnableCount++; }
    this.markReleased(lo);
    this.epoch[b]!++;
    const warps = this.warpsPerBlock;
    for (let w = 0; w < warps; w++) this.wepoch[b * warps + w]!++;
    this.stampOf.fill(-1, lo, hi);
    if (this.fences.active) this.fences.barrier(lo, hi);
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

  /** A kernel's site as `file:line:column` (`site N` if the module has no such site). */
  private siteText(site: number): string {
    return siteLocation(this.sites[site]) ?? `site ${site}`;
  }

  /** The location fields of a report's thread for a kernel's site. */
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
    const array = this.prog.module.meta.arrays[t.array] ?? '?';
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
    const array = this.prog.module.meta.arrays[t.array] ?? '?';
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
    // Neither detector nor memcheck: nothing to record. (A compiled kernel's accesses are
    // bounds-checked against its arrays, which are named, or its shared memory: no access can
    // fall outside every buffer, so there is nothing to look up either.)
    if (!this.opts.detect && !this.opts.memcheck) return 1;
    const b = Math.floor(i / this.bt);
    const sbase = this.sharedBase(b);
    let space: 'shared' | 'global';
    let name = 'shared', base = sbase;
    if (addr >= sbase && addr + size <= sbase + this.sharedBytes) {
      space = 'shared';
    } else {
      const buf = this.findBuffer(addr, size);
      if (!buf) {
        if (this.opts.memcheck) this.opts.memcheck.outside(this.gidOf(i), kind, addr, size, site);
        else this.reportOob(i, kind, addr, size);
        return 0;
      }
      space = 'global'; name = buf.name; base = buf.base;
    }
    if (this.opts.memcheck && !this.opts.memcheck.access(this.gidOf(i), kind, addr, size, site, space, name, base)) return 0;
    if (this.opts.detect) this.shadowAccess(i, kind, addr, size, site, space, name, base);
    return 1;
  }

  /** Thread i passes a fence: its accesses so far are released (fences.ts); later ones get a new stamp. */
  private performFence(i: number, scope: number): void {
    if (!this.opts.detect) return;
    const b = Math.floor(i / this.bt);
    this.fences.fence(i, scope, this.waveFirstBlock + b, this.epoch[b]!, this.gidOf(i), this.stamps.count);
    this.stampOf[i] = -1;
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

  /** Thread i's interval stamp (a new one after each barrier that orders it). */
  private stampFor(i: number): number {
    let st = this.stampOf[i]!;
    if (st < 0) {
      const b = Math.floor(i / this.bt), w = Math.floor((i - b * this.bt) / this.warpSize);
      const clock = this.fences.active ? this.fences.clockOf(i) : 0;
      st = this.stamps.add(this.gidOf(i), this.waveFirstBlock + b, w, this.epoch[b]!, this.wepoch[b * this.warpsPerBlock + w]!, clock);
      this.stampOf[i] = st;
    }
    return st;
  }

  private shadowAccess(i: number, kind: number, addr: number, size: number, site: number, space: 'shared' | 'global', name: string, base: number): void {
    const s = this.stampFor(i);
    const c = this.shadow.access(s, kind, addr, size, site);
    if (c) this.reportRace(c, s, kind, size, site, addr, space, name, base);
    // An atomic after a fence publishes; one after another's publication acquires (fences.ts).
    if (kind === ATOMIC && this.fences.active && this.fences.atomic(i, this.waveFirstBlock + Math.floor(i / this.bt), addr, space === 'shared')) this.stampOf[i] = -1;
  }

  /** Settles a pending write-write hazard once the second store has happened: did it store another value? */
  private settle(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    for (let k = 0; k < p.size; k++) {
      if (this.u8[p.addr + k] !== p.old[k]) { this.sameValue.delete(p.report); return; }
    }
  }

  private reportRace(c: Conflict, s: number, kind: number, size: number, site: number, addr: number, space: 'shared' | 'global', name: string, base: number): void {
    const st = this.stamps;
    const sameWarp = st.blk[c.stamp] === st.blk[s] && st.warp[c.stamp] === st.warp[s];
    // Lanes of one warp storing to one address in the same instruction: __syncwarp cannot order
    // that, so it is a plain data race, not a warp-synchronous hazard.
    const oneInstruction = sameWarp && site >= 0 && c.site === site && c.kind === WRITE && kind === WRITE;
    const rkind = sameWarp && !oneInstruction ? 'warp-sync-hazard' : 'data-race';
    const hazard: HazardType = c.kind === READ ? 'WAR' : kind === READ ? 'RAW' : 'WAW';
    const atomic = c.kind === ATOMIC || kind === ATOMIC;
    const key = `${rkind}:${hazard}:${atomic}:${space}:${name}:${c.site}:${site}`;
    const known = this.hazards.get(key);
    if (known) {
      known.count = (known.count ?? 1) + 1;
      if (hazard === 'WAW' && !atomic && this.sameValue.has(known)) this.watchStore(addr, size, known);
      return;
    }
    const first = { ...this.threadRefOf(st.gid[c.stamp]!), ...this.siteRef(c.site), access: ACCESS_NAMES[c.kind]!, size: c.size };
    const second = { ...this.threadRefOf(st.gid[s]!), ...this.siteRef(site), access: ACCESS_NAMES[kind]!, size };
    const offset = addr - base;
    let at: string, buffer = name, index = Math.floor(offset / size);
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
    const why = oneInstruction ? ' (lanes of one warp storing in one instruction: no __syncwarp can order them)'
      : sameWarp ? ' (lanes of one warp: lock-step assumed without __syncwarp)' : (first.block.join() !== second.block.join() ? ' (different blocks)' : '');
    const r: RaceReport = {
      kind: rkind, kernel: this.kernelName, severity: 'error', hazard, atomic, count: 1, space, buffer, offset, index, address: addr,
      conflict: `${first.access}-${second.access}`, first, second,
      message: `${at}: ${fmt(first)} ${first.access}${fmtLocation(first)} and ${fmt(second)} ${second.access}${fmtLocation(second)}, not ordered by a barrier${why}`,
    };
    if (this.opts.reports.length >= (this.opts.maxReports ?? 200)) return;
    this.hazards.set(key, r);
    this.report(r);
    if (hazard === 'WAW' && !atomic) { this.sameValue.add(r); this.watchStore(addr, size, r); }
  }

  /** Compares the bytes at addr now (the earlier store's) with those after the running thread's store. */
  private watchStore(addr: number, size: number, r: RaceReport): void {
    const old: number[] = [];
    for (let k = 0; k < size; k++) old.push(this.u8[addr + k]!);
    this.pending = { addr, size, old, report: r };
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

/** The lane numbers of a 32-bit mask, ascending. */
function laneList(mask: number): number[] {
  const out: number[] = [];
  for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) out.push(l);
  return out;
}

/** Lanes as runs: [0, 1, 2, 5, 7, 8] → "0-2, 5, 7-8". */
function fmtLanes(lanes: readonly number[]): string {
  const runs: string[] = [];
  for (let k = 0; k < lanes.length;) {
    let j = k;
    while (j + 1 < lanes.length && lanes[j + 1] === lanes[j]! + 1) j++;
    runs.push(j === k ? `${lanes[k]}` : `${lanes[k]}-${lanes[j]}`);
    k = j + 1;
  }
  return runs.join(', ');
}

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
