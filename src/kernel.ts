// Kernel declarations: the launch contract of a kernel, visible where it is declared (as
// xpu does). A declaration names the wasm export and lists the parameters in order, each a
// device array of a dtype ('f32[]') or a scalar ('i32'); launches are checked against it.

import { type DType, isDType } from './dtypes.js';
import type { Dim3 } from './dims.js';

export type ScalarDType = 'i32' | 'u32' | 'f32' | 'f64' | 'i64' | 'u64';
export type ParamSpec = `${DType}[]` | ScalarDType;

export type Param =
  | { readonly name: string; readonly kind: 'array'; readonly dtype: DType }
  | { readonly name: string; readonly kind: 'scalar'; readonly dtype: ScalarDType };

export interface Kernel<P extends Record<string, ParamSpec> = Record<string, ParamSpec>> {
  /** The kernel's name: the AssemblyScript export (and the WGSL file) of the same name. */
  readonly name: string;
  readonly params: readonly Param[];
  /** The spec object it was declared with (for typing launch arguments). */
  readonly spec: P;
  /** The kernel's own launch requirements (shared bytes it needs, block shape). */
  readonly requires?: LaunchRequirement;
  /**
   * Set for kernels of a compiled module (`compileKernels`, `simt build`): the module's id, and
   * the bytes of the kernel's static `__shared__` arrays. Their array parameters are passed as
   * (pointer, length) pairs, so every access is bounds-checked.
   */
  readonly module?: CompiledKernelRef;
  /**
   * Set on a hand-written kernel (assembly/kernels/) that is a declared specialization of a
   * generic kernel of simt's shipped module (kernels/, written per thread as a user writes):
   * same parameters, the same bytes on `wasm` and `serial` (the webgpu backend runs its WGSL
   * twin), only faster.
   * test/specializations.test.ts holds every such pair to that; the `specializations` bench suite
   * measures what each one gains (bench/RESULTS.md).
   */
  readonly specializes?: Specialization;
  /**
   * Set on a hand-written kernel on a byte store (one `u8[]` array laid out as CMSSW's SoA views:
   * column `loc` starts at byte loc · stride · 2) that is a generic kernel applied to the store's
   * columns. A backend that cannot bind parts of one buffer as separate arrays (webgpu) runs the
   * generic kernel on copies of the columns.
   */
  readonly storeColumns?: StoreColumns;
}

/**
 * How a store kernel's launch is its generic kernel's: the generic kernel's array parameters
 * named in `columns` are the store's columns, every other parameter is the store kernel's
 * parameter of the same name.
 */
export interface StoreColumns<ParamName extends string = string> {
  /** The generic kernel's name in the shipped module (`shippedModule().kernels[generic]`). */
  readonly generic: string;
  /** The `u8[]` parameter holding the store. */
  readonly store: ParamName;
  /** The `u32` parameter: column `loc` starts at byte loc · stride · 2 and holds `stride` elements. */
  readonly stride: ParamName;
  /** The generic kernel's array parameters that are columns of the store, by the column's `loc`. */
  readonly columns: Readonly<Record<string, number>>;
}

/**
 * What a specialization promises about its generic kernel: every array parameter holds the same
 * bytes after the launch, except the `orderFree` ones — their elements from `from` on are written
 * in the order threads reach an atomic (schedule dependent, as on a GPU), so they are compared as
 * multisets, the elements before `from` exactly — and the NaNs of the `anyNaN` ones.
 */
export interface Specialization<ParamName extends string = string> {
  /** The generic kernel's name in the shipped module (`shippedModule().kernels[generic]`). */
  readonly generic: string;
  /**
   * Outputs whose order is the atomics' (schedule dependent): from element `from` on they are
   * compared as a multiset of items of `itemElements` consecutive elements (default 1; an STS
   * digi is 2 u32 words).
   */
  readonly orderFree?: readonly { readonly param: ParamName; readonly from: number; readonly itemElements?: number }[];
  /**
   * Float outputs computed by arithmetic whose NaNs compare as NaN, not bit for bit: WebAssembly
   * leaves the sign and payload of an arithmetic NaN to the engine (which of two NaN operands an
   * add returns, for one), so no kernel can promise them; seen: vecSum's partials, +NaN from the
   * generic kernel where the SIMD one gave −NaN.
   */
  readonly anyNaN?: readonly ParamName[];
  /**
   * Outputs holding labels numbered in the order threads reach an atomic (findClus's cluster
   * numbers, from atomicInc): the same partition, not the same numbers — two elements with equal
   * `groupBy` values (the module id) share a label in one output exactly when they do in the other.
   */
  readonly labels?: readonly { readonly param: ParamName; readonly groupBy: ParamName }[];
}

export interface CompiledKernelRef { readonly id: string; readonly staticSharedBytes: number }

/**
 * A kernel's launch contract beyond CUDA's limits: returns a problem description, or
 * undefined when the launch is fine. Checked before anything runs (LaunchConfigError).
 * Example: a shared-memory tree needs `sharedBytes >= 4 * block.x` and a power-of-two block.
 */
export type LaunchRequirement = (launch: { grid: Dim3; block: Dim3; sharedBytes: number }) => string | undefined;

/** Common requirement: a 1-D power-of-two block and `bytesPerThread * block.x` shared bytes. */
export function sharedTreeRequirement(bytesPerThread: number): LaunchRequirement {
  return ({ block, sharedBytes }) => {
    if (block.y !== 1 || block.z !== 1) return `needs a 1-D block, got ${block.x}×${block.y}×${block.z}`;
    if ((block.x & (block.x - 1)) !== 0) return `needs blockDim.x to be a power of two (its shared-memory tree halves it), got ${block.x}`;
    if (sharedBytes < bytesPerThread * block.x) return `needs at least ${bytesPerThread * block.x} shared bytes (${bytesPerThread} per thread), got ${sharedBytes}`;
    return undefined;
  };
}

const SCALARS: readonly string[] = ['i32', 'u32', 'f32', 'f64', 'i64', 'u64'];

/**
 * Declares a kernel: `defineKernel('vecMax', { A: 'f32[]', B: 'f32[]', N: 'i32' })`.
 * Parameter order is the object's key order, which is the AS function's parameter order.
 */
export function defineKernel<P extends Record<string, ParamSpec>>(name: string, spec: P, options: { requires?: LaunchRequirement; module?: CompiledKernelRef; specializes?: Specialization<keyof P & string>; storeColumns?: StoreColumns<keyof P & string> } = {}): Kernel<P> {
  const params: Param[] = Object.entries(spec).map(([pname, s]) => {
    if (s.endsWith('[]')) {
      const d = s.slice(0, -2);
      if (!isDType(d)) throw new TypeError(`kernel ${name}: parameter '${pname}': unknown dtype '${d}'`);
      return { name: pname, kind: 'array', dtype: d };
    }
    if (!SCALARS.includes(s)) throw new TypeError(`kernel ${name}: parameter '${pname}': unknown scalar type '${s}'`);
    return { name: pname, kind: 'scalar', dtype: s as ScalarDType };
  });
  for (const o of options.specializes?.orderFree ?? []) {
    if (!params.some((p) => p.name === o.param && p.kind === 'array')) throw new TypeError(`kernel ${name}: orderFree names '${o.param}', which is not an array parameter`);
    if (!Number.isInteger(o.from) || o.from < 0) throw new TypeError(`kernel ${name}: orderFree '${o.param}' starts at ${o.from}, not a non-negative integer`);
    if (o.itemElements !== undefined && (!Number.isInteger(o.itemElements) || o.itemElements < 1)) throw new TypeError(`kernel ${name}: orderFree '${o.param}' has items of ${o.itemElements} elements, not a positive integer`);
  }
  for (const l of options.specializes?.labels ?? []) {
    for (const n of [l.param, l.groupBy]) {
      if (!params.some((p) => p.name === n && p.kind === 'array')) throw new TypeError(`kernel ${name}: labels names '${n}', which is not an array parameter`);
    }
  }
  for (const n of options.specializes?.anyNaN ?? []) {
    if (!params.some((p) => p.name === n && p.kind === 'array' && (p.dtype === 'f32' || p.dtype === 'f64'))) throw new TypeError(`kernel ${name}: anyNaN names '${n}', which is not a float array parameter`);
  }
  const sc = options.storeColumns;
  if (sc) {
    if (!params.some((p) => p.name === sc.store && p.kind === 'array' && p.dtype === 'u8')) throw new TypeError(`kernel ${name}: storeColumns' store '${sc.store}' is not a u8[] parameter`);
    if (!params.some((p) => p.name === sc.stride && p.kind === 'scalar' && p.dtype === 'u32')) throw new TypeError(`kernel ${name}: storeColumns' stride '${sc.stride}' is not a u32 parameter`);
    for (const [col, loc] of Object.entries(sc.columns)) {
      if (!Number.isInteger(loc) || loc < 0) throw new TypeError(`kernel ${name}: storeColumns' column '${col}' is at ${loc}, not a non-negative integer`);
    }
  }
  return Object.freeze({
    name, params: Object.freeze(params), spec, requires: options.requires,
    ...(options.module ? { module: options.module } : {}),
    ...(options.specializes ? { specializes: options.specializes } : {}),
    ...(sc ? { storeColumns: sc } : {}),
  });
}
