// A kernel module built by simt's compiler (`simt build`, `compileKernels`): the block-form
// wasm (fast and seeded), the fine-grained wasm (race tools), and the metadata that gives the
// host a typed handle per kernel. A device loads any number of them (`device.load`).

import { SimtError } from './errors.js';
import type { LaunchProofMeta } from './launchProof.js';
import { type Kernel, type LaunchRequirement, type ParamSpec, defineKernel } from './kernel.js';

export const MODULE_FORMAT = 'simt-kernels/1';

export interface ModuleKernelMeta {
  name: string;
  file: string;
  line: number;
  params: { name: string; kind: 'array' | 'scalar'; dtype: string }[];
  staticSharedBytes: number;
  regions: number;
  slots: number;
  /** Bytes of the kernel's `__local__` arrays per thread (absent or 0: none). */
  localBytes?: number;
  /** The `__shared__` arrays (byte offset in the block's shared memory; count null: `extern __shared__`). Race reports name them. */
  shared?: { name: string; dtype: string; offset: number; count: number | null }[];
}

export interface ModuleSite { file: string; line: number; column: number; what: string }

/** A kernel's WGSL form (src/compiler/wgsl.ts): the compute shader, or the reasons it has none. */
export interface ModuleWgslKernel {
  /** The compute shader (entry point `main`); absent when the kernel has no WGSL form. */
  source?: string;
  /** Why the kernel has no WGSL form (file, line, column): it still runs on wasm and serial. */
  diagnostics?: { file: string; line: number; column: number; message: string }[];
  /** Element size in bytes of the `__extern_shared__` array (its length is sharedBytes / this). */
  dynamicSharedElemBytes?: number;
  /** The shader's trap sites, by the numbers its trap records carry. */
  sites?: ModuleSite[];
  /**
   * A kernel with warp operations: the same kernel with them as subgroup builtins (`enable
   * subgroups;`), for devices whose subgroups are CUDA's warps (32 lanes, lane = thread index mod 32).
   */
  subgroups?: { source: string; sites: ModuleSite[] };
  /**
   * An entry point of the same shader (and bindings) that the backend dispatches once, one
   * invocation, just before the kernel's: it decides per launch whether a global atomicInc
   * counter may take the fast ticket form (src/compiler/wgslTicket.ts).
   */
  guardEntryPoint?: string;
  /**
   * The kernel's range proof (src/compiler/rangeProof.ts) for the host to evaluate per launch
   * (src/launchProof.ts): where it holds for every block, the launch sets the shader's
   * `sx_proven` constant and the accesses it covers run unchecked. Absent where no access is
   * proven (and in unchecked modules).
   */
  launchProof?: LaunchProofMeta;
  /**
   * Every trap site of the shader (and of its subgroup form) is an access the launch proof
   * covers: a launch the proof holds for cannot trap, so the backend reads no trap record back
   * for it (an awaited launch then waits for the GPU alone).
   */
  trapFreeWhenProven?: true;
}

export interface KernelModuleMeta {
  format: typeof MODULE_FORMAT;
  /** Content hash of the sources and options (the cache key). */
  hash: string;
  /** The sources' paths, as given to the compiler. */
  sources: string[];
  unchecked: boolean;
  kernels: ModuleKernelMeta[];
  sites: ModuleSite[];
  /** `kernel.array` by array id (trap messages). */
  arrays: string[];
  /** Compiler timings, ms. */
  compileMs?: number;
  /** Each kernel's WGSL form, for the webgpu backend (modules built before it have none). */
  wgsl?: Record<string, ModuleWgslKernel>;
}

/** The typed kernel handles of a module: `module.kernels.histogram` is a `Kernel` with its parameter spec. */
export type ModuleKernels<K extends Record<string, Record<string, ParamSpec>>> = { readonly [N in keyof K]: Kernel<K[N]> };

export interface KernelModule<K extends Record<string, Record<string, ParamSpec>> = Record<string, Record<string, ParamSpec>>> {
  /** Unique per content: two loads of the same build are the same module. */
  readonly id: string;
  readonly meta: KernelModuleMeta;
  /** Block form: `<kernel>` (seeded), `__fast_<kernel>`, `__blocks_<kernel>`, the runtime hooks. */
  readonly wasm: Uint8Array;
  /**
   * Fine-grained form: `tk_<kernel>`, asyncify-instrumented (the race tools' `explore`, `replay`
   * and detector). A module compiled in this process has none until the race tools first need
   * it (`buildFine`) or it is written to files: it keeps `fineSource` meanwhile.
   */
  readonly fineWasm?: Uint8Array;
  /** The fine-grained form's generated source, while it is not built (compileKernels builds it on demand: buildFine). */
  readonly fineSource?: string;
  /**
   * The race screen's form (src/race/screen.ts): the block form recording every access in a
   * shadow memory. Absent in modules built before it (the race tools then run the fine-grained
   * detector alone).
   */
  readonly screenWasm?: Uint8Array;
  /** The screen form's generated source, while it is not built (compileKernels builds it on demand: buildScreen). */
  readonly screenSource?: string;
  readonly kernels: ModuleKernels<K>;
}

/** A module file that is not a simt kernel module, or of another format version. */
export class KernelModuleError extends SimtError {}

/** A worker's register area (assembly/runtime/scratch.ts: REGISTER_SLOTS × MAX_THREADS × 8 bytes). */
const REGISTER_AREA_BYTES = 32 * 1024 * 8;
const SLOT_BYTES = 1024 * 8;

/**
 * A block's __local__ arrays share the worker's register area with its context slots (as a
 * GPU's local memory and registers share an SM): a block whose threads need more is refused
 * at launch, as CUDA refuses a launch that requests too many resources.
 */
function localMemoryRequirement(localBytes: number, slots: number): LaunchRequirement {
  return ({ block }) => {
    const threads = block.x * block.y * block.z;
    const room = REGISTER_AREA_BYTES - slots * SLOT_BYTES;
    return localBytes * threads > room
      ? `needs ${localBytes} bytes of __local__ arrays per thread, ${localBytes * threads} for ${threads} threads, beside its ${slots} context slots; a block has room for ${room}: launch at most ${Math.floor(room / localBytes)} threads per block`
      : undefined;
  };
}

/** Builds the module object (kernel handles) from its parts. */
export function makeKernelModule<K extends Record<string, Record<string, ParamSpec>>>(meta: KernelModuleMeta, wasm: Uint8Array, fineWasm?: Uint8Array, screenWasm?: Uint8Array, sources: { fine?: string; screen?: string } = {}): KernelModule<K> {
  if (meta?.format !== MODULE_FORMAT) throw new KernelModuleError(`not a simt kernel module (format ${String(meta?.format)}; expected ${MODULE_FORMAT})`);
  const module = {
    id: meta.hash, meta, wasm,
    ...(fineWasm ? { fineWasm } : sources.fine !== undefined ? { fineSource: sources.fine } : {}),
    ...(screenWasm ? { screenWasm } : sources.screen !== undefined ? { screenSource: sources.screen } : {}), kernels: {} as Record<string, Kernel>,
  };
  for (const k of meta.kernels) {
    const spec: Record<string, ParamSpec> = {};
    for (const p of k.params) spec[p.name] = (p.kind === 'array' ? `${p.dtype}[]` : p.dtype) as ParamSpec;
    module.kernels[k.name] = defineKernel(k.name, spec, {
      module: { id: meta.hash, staticSharedBytes: k.staticSharedBytes },
      requires: k.localBytes ? localMemoryRequirement(k.localBytes, k.slots) : undefined,
    });
  }
  Object.freeze(module.kernels);
  return Object.freeze(module) as unknown as KernelModule<K>;
}

/** Reads a module written by `simt build` (its `.simt.json`; the wasm files sit beside it). */
export async function loadKernelModule<K extends Record<string, Record<string, ParamSpec>> = Record<string, Record<string, ParamSpec>>>(metaPath: string | URL): Promise<KernelModule<K>> {
  const read = async (u: URL): Promise<Uint8Array> => {
    if (u.protocol === 'file:') {
      const { readFile } = await import('node:fs/promises');
      return new Uint8Array(await readFile(u));
    }
    const res = await fetch(u);
    if (!res.ok) throw new KernelModuleError(`cannot load ${u.href}: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
  let url: URL;
  if (metaPath instanceof URL) url = metaPath;
  else if (/^[a-z]+:\/\//i.test(metaPath)) url = new URL(metaPath);
  else {
    const { pathToFileURL } = await import('node:url');
    const { resolve } = await import('node:path');
    url = pathToFileURL(resolve(metaPath));
  }
  let meta: KernelModuleMeta;
  try {
    meta = JSON.parse(new TextDecoder().decode(await read(url))) as KernelModuleMeta;
  } catch (e) {
    throw new KernelModuleError(`cannot read kernel module ${url.pathname}: ${(e as Error).message}`);
  }
  const base = url.href.replace(/\.simt\.json$/, '');
  const [wasm, fine, screen] = await Promise.all([
    read(new URL(`${base}.simt.wasm`)), read(new URL(`${base}.simt.fine.wasm`)),
    // Optional: modules built before the race screen have none.
    read(new URL(`${base}.simt.screen.wasm`)).catch(() => undefined),
  ]);
  return makeKernelModule<K>(meta, wasm, fine, screen);
}
