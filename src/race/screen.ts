// The race screen: racecheck's fast pass. A compiled module's screen form (KernelModule.screenWasm,
// built from the same per-thread source as its block form, against assembly/runtime/checked.ts)
// runs a launch as the `wasm` backend runs it — a block at a time, its threads in loops between
// barriers, in the race tools' interval order — and records every access in a shadow memory in
// device memory, in wasm: no host call per access or per thread.
//
// Its model is the fine-grained detector's (shadow.ts), coarsened only where that adds findings
// (checked.ts says how), so a launch the screen finds clean has no race, barrier divergence or
// out-of-bounds access for the detector to report either. Anything else — a possible conflict,
// a divergent barrier, a trap, a module without a screen form — sends the job to the
// fine-grained detector, which finds and explains what there is (RaceSession.runJob).

import type { Device } from '../device.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import { toDim3 } from '../dims.js';
import type { Kernel } from '../kernel.js';
import type { KernelModule } from '../kernelModule.js';
import { shippedModule } from '../shippedModule.js';
import { marshalCompiledArgs, type KernelFn } from './threadProgram.js';
import { BlockOrder } from '../schedule/blockOrder.js';
import { splitSeed } from '../schedule/seeds.js';
import type { ThreadLaunch } from './threadRunner.js';

interface ScreenExports {
  __setScratch(base: number, sharedLimit: number): void;
  __scratchBytes(sharedLimit: number): number;
  __launch(gx: number, gy: number, gz: number, bx: number, by: number, bz: number, shared: number, seeded: number, seedLo: number, seedHi: number): void;
  __block(linear: number): void;
  __screenSetup(dir: number, pages: number, arena: number, arenaPages: number, sharedBytes: number, budget: number): void;
  __screenReset(): void;
  __screenConflicts(): number;
  __screenOverflow(): number;
  __screenDivergence(): number;
  __screenAccesses(): number;
}

/** A module's screen form: per kernel its pool entry (`__blocks_<name>`, blocks and threads in order) and its seeded entry (`<name>`). */
interface ScreenProgram { ex: ScreenExports; blocks: Map<string, KernelFn>; seeded: Map<string, KernelFn> }

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

export class RaceScreen {
  private readonly programs = new Map<string, ScreenProgram | null>();
  private scratch: DeviceArray<'u8'> | undefined;
  private dir: DeviceArray<'i32'> | undefined;
  private arena: DeviceArray<'u8'> | undefined;
  private shipped: KernelModule | undefined;
  private readonly sharedLimit: number;

  constructor(readonly device: Device) {
    this.sharedLimit = Math.ceil(device.sharedMemoryLimit / 128) * 128;
  }

  /** Instantiates the screen forms of simt's own module and of `modules` (once each); false when one has none. */
  async load(modules: readonly KernelModule[]): Promise<boolean> {
    this.shipped ??= await shippedModule();
    let all = true;
    for (const m of [this.shipped, ...modules]) {
      if (!this.programs.has(m.id)) this.programs.set(m.id, await this.instantiate(m));
      if (!this.programs.get(m.id)) all = false;
    }
    return all;
  }

  private async instantiate(m: KernelModule): Promise<ScreenProgram | null> {
    let module: WebAssembly.Module;
    try {
      // A module compiled in this process builds its screen on first use (the compiler is
      // loaded only then); one loaded from files carries it, or has none.
      const bytes = m.screenWasm ?? (m.screenSource !== undefined ? await (await import('../compiler/index.js')).buildScreen(m) : undefined);
      if (!bytes) return null;
      module = await WebAssembly.compile(bytes as BufferSource);
    } catch {
      return null;
    }
    const inst = new WebAssembly.Instance(module, { env: { memory: this.device.memory } });
    const ex = inst.exports as unknown as ScreenExports & Record<string, KernelFn>;
    if (typeof ex.__screenSetup !== 'function') return null;
    const blocks = new Map<string, KernelFn>(), seeded = new Map<string, KernelFn>();
    for (const k of m.meta.kernels) {
      const fn = ex[`__blocks_${k.name}`], s = ex[k.name];
      if (typeof fn === 'function' && typeof s === 'function') { blocks.set(k.name, fn); seeded.set(k.name, s); }
    }
    if (!this.scratch) this.scratch = this.device.alloc('u8', ex.__scratchBytes(this.sharedLimit));
    ex.__setScratch(this.scratch.byteOffset, this.sharedLimit);
    return { ex, blocks, seeded };
  }

  /**
   * Runs one launch in the screen form (synchronously, on this thread), on the job's buffers.
   * `maxAccesses` bounds it as the detector's step budget bounds a launch (a spin-wait on
   * another block would otherwise never end: blocks run one after another). With a `seed`, the
   * blocks and each phase's threads are permuted as the `serial` backend permutes a launch of
   * that seed; without, they run in order (the in-order interval schedule).
   */
  run(l: ThreadLaunch, maxAccesses: number, seed?: number): ScreenVerdict {
    let k = l.kernel;
    if (typeof k === 'string') k = this.shipped && Object.hasOwn(this.shipped.kernels, k) ? this.shipped.kernels[k]! : (undefined as unknown as Kernel);
    const prog = k?.module ? this.programs.get(k.module.id) : undefined;
    const fn = prog?.blocks.get(k.name), fnSeeded = prog?.seeded.get(k.name);
    if (!prog || !fn || !fnSeeded) return { clean: false, accesses: 0, why: 'no-screen' };
    const grid = toDim3('grid', l.grid), block = toDim3('block', l.block);
    if (l.warpSize !== undefined && l.warpSize !== 32) return { clean: false, accesses: 0, why: 'no-screen' };
    const { words, arrays } = marshalCompiledArgs(k, l.args, this.device);
    // Compiled kernels touch only their array arguments and the block's shared memory: the
    // shadow needs a page for each 4 KiB page of those.
    let pages = Math.ceil(this.sharedLimit / PAGE_BYTES) + 1;
    for (const { array } of arrays) {
      if (array.byteLength > 0) pages += Math.floor((array.byteOffset + array.byteLength - 1) / PAGE_BYTES) - Math.floor(array.byteOffset / PAGE_BYTES) + 1;
    }
    if (!this.shadowFor(pages)) return { clean: false, accesses: 0, why: 'memory' };
    const dynamicShared = l.sharedBytes ?? 0;
    // What device.launch refuses (shared bytes over the limit, __local__ arrays that do not fit)
    // the detector refuses with the same error: leave it to it.
    const staticShared = k.module!.staticSharedBytes;
    if (!Number.isInteger(dynamicShared) || dynamicShared < 0 || dynamicShared + staticShared > this.device.sharedMemoryLimit) return { clean: false, accesses: 0, why: 'no-screen' };
    if (k.requires?.({ grid, block, sharedBytes: dynamicShared + staticShared })) return { clean: false, accesses: 0, why: 'no-screen' };
    const ex = prog.ex;
    ex.__screenSetup(this.dir!.byteOffset, this.dir!.length, this.arena!.byteOffset, this.arena!.byteLength / SHADOW_PAGE_BYTES, this.sharedLimit, maxAccesses);
    ex.__screenReset();
    const blocks = grid.x * grid.y * grid.z;
    try {
      if (seed === undefined) {
        ex.__launch(grid.x, grid.y, grid.z, block.x, block.y, block.z, dynamicShared, 0, 0, 0);
        fn(0, blocks, ...words);
      } else {
        const [lo, hi] = splitSeed(seed);
        ex.__launch(grid.x, grid.y, grid.z, block.x, block.y, block.z, dynamicShared, 1, lo, hi);
        const order = new BlockOrder(blocks, lo, hi);
        for (let b = 0; b < blocks; b++) { ex.__block(order.at(b)); fnSeeded(...words); }
      }
    } catch {
      return { clean: false, accesses: ex.__screenAccesses(), why: ex.__screenOverflow() === 2 ? 'budget' : 'trap' };
    }
    const accesses = ex.__screenAccesses();
    if (ex.__screenOverflow()) return { clean: false, accesses, why: 'memory' };
    if (ex.__screenDivergence()) return { clean: false, accesses, why: 'barrier-divergence' };
    if (ex.__screenConflicts()) return { clean: false, accesses, why: 'conflict' };
    return { clean: true, accesses };
  }

  /** Page directory and arena for `pages` shadow pages (kept and grown across launches); false when memory is short. */
  private shadowFor(pages: number): boolean {
    const dirLength = Math.ceil(this.device.memoryBytes / PAGE_BYTES);
    try {
      if (!this.dir) this.dir = this.device.alloc('i32', dirLength);
      if (!this.arena || this.arena.byteLength < pages * SHADOW_PAGE_BYTES) {
        this.arena?.free();
        this.arena = undefined;
        this.arena = this.device.alloc('u8', pages * SHADOW_PAGE_BYTES);
      }
      return true;
    } catch {
      return false;
    }
  }

  /** Frees the screen's device memory. */
  close(): void {
    for (const a of [this.scratch, this.dir, this.arena]) if (a && !a.freed) a.free();
    this.scratch = this.dir = this.arena = undefined;
    this.programs.clear();
  }
}
