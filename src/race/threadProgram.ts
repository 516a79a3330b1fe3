// What the fine-grained scheduler runs: the fine-grained form of a compiled kernel module
// (`KernelModule.fineWasm`: simt's own kernels, `shippedModule()`, and the user's), instantiated on
// the device's memory with the scheduler's hooks as its imports. Its accesses carry a source site
// (`simt.accessAt`), its bounds checks call `simt.outOfBoundsAt`, and its array parameters are
// (pointer, length) pairs.

import { WasmDeviceArray } from '../device.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import type { Kernel } from '../kernel.js';
import { KernelModuleError, type KernelModule, type ModuleKernelMeta, type ModuleSite } from '../kernelModule.js';
import { argumentList, checkArrayArg, checkScalarArg } from '../launchArgs.js';

export type KernelFn = (...args: (number | bigint)[]) => void;

export interface ThreadExports {
  __setLaunch(gx: number, gy: number, gz: number, bx: number, by: number, bz: number): void;
  __setThread(tx: number, ty: number, tz: number, bx: number, by: number, bz: number, shared: number): void;
  /** Compiled modules: the launch's dynamic `extern __shared__` bytes. */
  __setDynamicShared?(bytes: number): void;
  asyncify_start_unwind(p: number): void;
  asyncify_stop_unwind(): void;
  asyncify_start_rewind(p: number): void;
  asyncify_stop_rewind(): void;
  asyncify_get_state(): number;
}

/** The scheduler's side of a program's imports. */
export interface ThreadHooks {
  /** A scheduling point before an access: returns 0 to suppress it (out of bounds). `site` is -1 when unknown. */
  access(kind: number, addr: number, size: number, site: number): number;
  /**
   * scope 0 __syncthreads, 1 __syncwarp, 2 a warp collective's meeting point (orders no
   * memory; `mask`: the lanes the shuffle or vote names, 0 for none). Returns the lanes of the
   * caller's warp that have not exited, once it runs on.
   */
  barrier(scope: number, site: number, mask: number): number;
  /** A memory fence: scope 0 __threadfence (device), 1 __threadfence_block, 2 __threadfence_system. A scheduling point. */
  fence(scope: number, site: number): void;
  /**
   * A compiled kernel's bounds check failed (`kind` as in `access`; `base` the array's address,
   * `size` its element bytes): throws OutOfBoundsTrap to end the thread there, or (memcheck)
   * returns, and the kernel skips the access.
   */
  outOfBounds(kind: number, array: number, index: number, length: number, site: number, base: number, size: number): void;
}

export interface ThreadProgram {
  readonly ex: ThreadExports;
  readonly kernels: ReadonlyMap<string, KernelFn>;
  /** Bytes at the start of each block's shared memory that the runtime keeps (warp collectives' exchange area). */
  readonly reservedShared: number;
  /** Bytes of asyncify state per emulated thread (saved locals and call stack). */
  readonly stackBytes: number;
  /** The compiled module it comes from (site and array metadata). */
  readonly module: KernelModule;
}

/** Thrown by the outOfBounds hook through the trapping thread's wasm frames; the runner catches it. */
export class OutOfBoundsTrap extends Error {
  constructor(readonly array: number, readonly index: number, readonly length: number, readonly site: number) {
    super('index out of bounds');
  }
}

/**
 * Bytes of the collective-exchange area at the start of a compiled kernel's block shared memory:
 * 8 bytes per thread of the largest block (keep in sync with COLLECTIVE_BYTES in assembly/threads/compiled.ts).
 */
export const COLLECTIVE_BYTES = 8 * 1024;

/** Asyncify state per thread (saved locals and call stack): compiled kernels may nest device functions. */
const STACK_BYTES = 4096;

function kernelExports(module: WebAssembly.Module, instance: WebAssembly.Instance): Map<string, KernelFn> {
  const kernels = new Map<string, KernelFn>();
  for (const e of WebAssembly.Module.exports(module)) {
    if (e.kind === 'function' && e.name.startsWith('tk_')) kernels.set(e.name.slice(3), instance.exports[e.name] as KernelFn);
  }
  return kernels;
}

/** What a compiled module's fine form may import: anything else was built by another simt. */
const FINE_IMPORTS = new Set(['env.memory', 'simt.accessAt', 'simt.barrier', 'simt.fence', 'simt.outOfBoundsAt']);
const fineModules = new Map<string, Promise<WebAssembly.Module>>();

/** Compiles a module's fine-grained form (once per module id) and checks its imports and exports. */
function compileFine(m: KernelModule): Promise<WebAssembly.Module> {
  let p = fineModules.get(m.id);
  if (!p) {
    p = (async () => {
      // A module compiled in this process builds its fine form on first use (the compiler is
      // loaded only then); one loaded from files carries it.
      const bytes = m.fineWasm ?? await (await import('../compiler/index.js')).buildFine(m);
      let module: WebAssembly.Module;
      try {
        module = await WebAssembly.compile(bytes as BufferSource);
      } catch (e) {
        throw new KernelModuleError(`kernel module ${describeModule(m)}: its fine-grained form does not compile (${(e as Error).message}): rebuild it with this version of simt`);
      }
      for (const i of WebAssembly.Module.imports(module)) {
        if (!FINE_IMPORTS.has(`${i.module}.${i.name}`)) {
          throw new KernelModuleError(`kernel module ${describeModule(m)}: its fine-grained form imports ${i.module}.${i.name}, which simt's race tools do not provide: rebuild it with this version of simt`);
        }
      }
      const exported = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
      for (const k of m.meta.kernels) {
        if (!exported.has(`tk_${k.name}`)) throw new KernelModuleError(`kernel module ${describeModule(m)}: its fine-grained form lacks kernel ${k.name}: rebuild it`);
      }
      return module;
    })();
    fineModules.set(m.id, p);
    p.catch(() => fineModules.delete(m.id));
  }
  return p;
}

/** A compiled module's fine-grained form on `memory`. */
export async function instantiateCompiled(m: KernelModule, memory: WebAssembly.Memory, hooks: ThreadHooks): Promise<ThreadProgram> {
  if (!m || typeof m.id !== 'string' || !m.meta || !(m.fineWasm instanceof Uint8Array || typeof m.fineSource === 'string')) {
    throw new KernelModuleError('not a kernel module: build one with compileKernels() or `simt build`');
  }
  const module = await compileFine(m);
  const instance = new WebAssembly.Instance(module, {
    env: { memory },
    simt: {
      accessAt: (k: number, a: number, s: number, site: number) => hooks.access(k, a >>> 0, s, site),
      barrier: (sc: number, si: number, mask: number) => hooks.barrier(sc, si, mask >>> 0),
      fence: (sc: number, si: number) => hooks.fence(sc, si),
      outOfBoundsAt: (kind: number, array: number, index: number, length: number, site: number, base: number, size: number) =>
        hooks.outOfBounds(kind, array, index, length, site, base >>> 0, size),
    },
  });
  return { ex: instance.exports as unknown as ThreadExports, kernels: kernelExports(module, instance), reservedShared: COLLECTIVE_BYTES, stackBytes: STACK_BYTES, module: m };
}

/** The module's sources, for messages ("examples/kernels/histogram.ts"). */
export function describeModule(m: KernelModule): string {
  return m.meta?.sources?.length ? m.meta.sources.join(', ') : String(m.id);
}

/** A compiled kernel's metadata (parameters, shared layout) from its module. */
export function kernelMeta(m: KernelModule, name: string): ModuleKernelMeta | undefined {
  return m.meta.kernels.find((k) => k.name === name);
}

/** `file:line:column` of a site, or undefined. */
export function siteLocation(s: ModuleSite | undefined): string | undefined {
  return s ? `${s.file}:${s.line}:${s.column}` : undefined;
}

/** One checked argument of a compiled launch, for naming the arrays it touches. */
export interface MarshalledArgs { words: (number | bigint)[]; arrays: { param: string; array: DeviceArray }[] }

/**
 * A compiled kernel's arguments, checked as `device.launch` checks them (KernelArgumentError):
 * array parameters become (byteOffset, length) — the kernel bounds-checks every access against
 * that length — and scalars pass through (i64/u64 as bigint).
 */
export function marshalCompiledArgs(kernel: Kernel, args: unknown, device: { id: number; backend: string }): MarshalledArgs {
  const values = argumentList(kernel, args);
  const words: (number | bigint)[] = [];
  const arrays: MarshalledArgs['arrays'] = [];
  kernel.params.forEach((p, k) => {
    if (p.kind === 'array') {
      const a = checkArrayArg(kernel.name, p, values[k], WasmDeviceArray, device);
      words.push(a.byteOffset, a.length);
      arrays.push({ param: p.name, array: a });
      return;
    }
    const v = checkScalarArg(kernel.name, p, values[k]);
    words.push(p.dtype === 'i64' || p.dtype === 'u64' ? BigInt.asIntN(64, v as bigint) : v);
  });
  return { words, arrays };
}
