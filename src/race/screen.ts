// The race screen: racecheck's fast pass. A compiled module's screen form (KernelModule.screenWasm,
// built from the same per-thread source as its block form, against assembly/runtime/checked.ts)
// runs a launch on the device's worker pool as the `wasm` backend runs it — a block at a time,
// its threads in loops between barriers, in the race tools' interval order — and records every
// access in a shadow memory in device memory, in wasm: no host call per access or per thread,
// and the host thread (a browser page's) stays free while it runs.
//
// Its model is the fine-grained detector's (shadow.ts), coarsened only where that adds findings
// (checked.ts says how), so a launch the screen finds clean has no race, barrier divergence or
// out-of-bounds access for the detector to report either. Anything else — a possible conflict,
// a divergent barrier, a trap, a module without a screen form — sends the job to the
// fine-grained detector, which finds and explains what there is (RaceSession.runJob).

import type { Device } from '../device.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import type { Kernel } from '../kernel.js';
import { makeKernelModule, type KernelModule } from '../kernelModule.js';
import { shippedModule } from '../shippedModule.js';
import { marshalCompiledArgs } from './threadProgram.js';
import type { ThreadLaunch } from './threadRunner.js';

/**
 * A module's screen form as a kernel module of its own (the same kernels and metadata under an
 * id of its own), for a device to load beside the block form; null when it has none. A module
 * compiled in this process builds its screen on first use (the compiler is loaded only then);
 * one loaded from files carries it, or has none.
 */
export async function screenForm(m: KernelModule): Promise<KernelModule | null> {
  const bytes = m.screenWasm ?? (m.screenSource !== undefined ? await (await import('../compiler/index.js')).buildScreen(m) : undefined);
  return bytes ? makeKernelModule({ ...m.meta, hash: `${m.meta.hash}:screen` }, bytes) : null;
}

/** What the screen found in one launch. */
export interface ScreenVerdict {
  /** Nothing for the detector to report: no possible conflict, no divergent barrier, no trap. */
  clean: boolean;
  /** Global and shared accesses recorded. */
  accesses: number;
  /** Why not clean (for the docs' and tests' sake). */
  why?: 'conflict' | 'barrier-divergence' | 'trap' | 'budget' | 'no-screen' | 'memory';
}

const PAGE_BYTES = 4096;
/** Shadow bytes per 4 KiB page of device memory: 1024 words × 8 i32 (assembly/runtime/checked.ts). */
const SHADOW_PAGE_BYTES = 32 * 1024;
/** The state block's byte offsets (assembly/runtime/checked.ts, S_*): the setup, then the findings. */
const STATE = {
  DIR: 0, DIR_PAGES: 4, ARENA: 8, ARENA_PAGES: 12, SHARED: 16, BUDGET: 24,
  CONFLICTS: 36, OVERFLOW: 40, DIVERGENCE: 44, ACCESSES: 48, BYTES: 64,
} as const;

export class RaceScreen {
  /** Per kernel module (by id): its screen form, loaded on the device as a module of its own; null: none. */
  private readonly forms = new Map<string, KernelModule | null>();
  private dir: DeviceArray<'i32'> | undefined;
  private arena: DeviceArray<'u8'> | undefined;
  /** Arenas replaced by a larger one while launches that use them may run (freed by settle). */
  private readonly retired: DeviceArray<'u8'>[] = [];
  private shipped: KernelModule | undefined;

  constructor(readonly device: Device) {}

  /** Loads the screen forms of simt's own module and of `modules` on the device (once each); false when one has none. */
  async load(modules: readonly KernelModule[]): Promise<boolean> {
    this.shipped ??= await shippedModule();
    let all = true;
    for (const m of [this.shipped, ...modules]) {
      if (!this.forms.has(m.id)) this.forms.set(m.id, await this.loadForm(m));
      if (!this.forms.get(m.id)) all = false;
    }
    return all;
  }

  private async loadForm(m: KernelModule): Promise<KernelModule | null> {
    try {
      const form = await screenForm(m);
      if (form) await this.device.load(form);
      return form;
    } catch {
      return null;
    }
  }

  /**
   * Starts one launch in the screen form on the device's worker pool, one worker taking every
   * block (so the order is the one asked for, and reproducible), on the job's buffers; resolves
   * with what it found. Launches issued one after another run in issue order (the device's
   * stream), each with a state block of its own, so a job's host code need not wait for them:
   * its reads of device memory wait, as they wait for any launch. `maxAccesses` bounds a launch
   * as the detector's step budget does (a spin-wait on another block would otherwise never end:
   * blocks run one after another). With a `seed`, the blocks and each phase's threads are
   * permuted as the `serial` backend permutes a launch of that seed; without, they run in order
   * (the in-order interval schedule).
   */
  launch(l: ThreadLaunch, maxAccesses: number, seed?: number): Promise<ScreenVerdict> {
    let k = l.kernel;
    if (typeof k === 'string') k = this.shipped && Object.hasOwn(this.shipped.kernels, k) ? this.shipped.kernels[k]! : (undefined as unknown as Kernel);
    const screenKernel = k?.module ? this.forms.get(k.module.id)?.kernels[k.name] : undefined;
    if (!screenKernel || (l.warpSize !== undefined && l.warpSize !== 32)) return Promise.resolve({ clean: false, accesses: 0, why: 'no-screen' });
    let arrays: ReturnType<typeof marshalCompiledArgs>['arrays'];
    try {
      arrays = marshalCompiledArgs(k, l.args, this.device).arrays;
    } catch {
      return Promise.resolve({ clean: false, accesses: 0, why: 'no-screen' }); // the detector reports the bad argument
    }
    // Compiled kernels touch only their array arguments and the block's shared memory: the
    // shadow needs a page for each 4 KiB page of those.
    const sharedLimit = this.device.sharedMemoryLimit;
    let pages = Math.ceil(sharedLimit / PAGE_BYTES) + 1;
    for (const { array } of arrays) {
      if (array.byteLength > 0) pages += Math.floor((array.byteOffset + array.byteLength - 1) / PAGE_BYTES) - Math.floor(array.byteOffset / PAGE_BYTES) + 1;
    }
    let stateArray: DeviceArray<'u8'>;
    try {
      this.shadowFor(pages);
      stateArray = this.device.alloc('u8', STATE.BYTES);
    } catch {
      return Promise.resolve({ clean: false, accesses: 0, why: 'memory' });
    }
    const dir = this.dir!, arena = this.arena!;
    const state = new DataView(this.device.memory.buffer, stateArray.byteOffset, STATE.BYTES);
    new Uint8Array(state.buffer, state.byteOffset, STATE.BYTES).fill(0);
    state.setUint32(STATE.DIR, dir.byteOffset, true);
    state.setUint32(STATE.DIR_PAGES, dir.length, true);
    state.setUint32(STATE.ARENA, arena.byteOffset, true);
    state.setInt32(STATE.ARENA_PAGES, arena.byteLength / SHADOW_PAGE_BYTES, true);
    state.setUint32(STATE.SHARED, Math.ceil(sharedLimit / 128) * 128, true);
    state.setFloat64(STATE.BUDGET, maxAccesses, true);
    const verdict = (trapped: boolean): ScreenVerdict => {
      const accesses = Number(state.getBigInt64(STATE.ACCESSES, true));
      const overflow = state.getInt32(STATE.OVERFLOW, true);
      const divergence = state.getInt32(STATE.DIVERGENCE, true), conflicts = state.getInt32(STATE.CONFLICTS, true);
      stateArray.free();
      if (trapped) return { clean: false, accesses, why: overflow === 2 ? 'budget' : 'trap' };
      if (overflow) return { clean: false, accesses, why: 'memory' };
      if (divergence) return { clean: false, accesses, why: 'barrier-divergence' };
      if (conflicts) return { clean: false, accesses, why: 'conflict' };
      return { clean: true, accesses };
    };
    // A trap, or what device.launch refuses (a bad shape, shared bytes over the limit): the
    // detector runs the launch and reports it.
    return this.device.launchWith(screenKernel, {
      grid: l.grid as never, block: l.block as never, sharedBytes: l.sharedBytes ?? 0, workers: 1, ...(seed !== undefined ? { seed } : {}),
    }, l.args as never, { seeded: seed !== undefined, screenState: stateArray.byteOffset }).then(() => verdict(false), () => verdict(true));
  }

  /**
   * The page directory (one per device) and an arena of at least `pages` shadow pages. A larger
   * arena replaces the old one, which launches issued before may still use: it is freed by
   * `settle`, when they are over.
   */
  private shadowFor(pages: number): void {
    this.dir ??= this.device.alloc('i32', Math.ceil(this.device.memoryBytes / PAGE_BYTES));
    if (!this.arena || this.arena.byteLength < pages * SHADOW_PAGE_BYTES) {
      const arena = this.device.alloc('u8', pages * SHADOW_PAGE_BYTES);
      if (this.arena) this.retired.push(this.arena);
      this.arena = arena;
    }
  }

  /** After the launches issued so far are over: frees the arenas they outgrew. */
  settle(): void {
    for (const a of this.retired.splice(0)) if (!a.freed) a.free();
  }

  /** Frees the screen's device memory (its forms stay loaded on the device, as modules do). */
  close(): void {
    this.settle();
    for (const a of [this.dir, this.arena]) if (a && !a.freed) a.free();
    this.dir = this.arena = undefined;
    this.forms.clear();
  }
}
