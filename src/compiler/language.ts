// The kernel language: the CUDA names a per-thread kernel source may use, and how each maps
// onto the element types simt's device arrays have. One table, read by the front end.

import type { DType } from '../dtypes.js';

/** AssemblyScript element types of device arrays (the dtype of the same name). */
export const ELEMENT_TYPES: readonly DType[] = ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64'];

/** Scalar parameter types a kernel may take (the host passes numbers or bigints). */
export const SCALAR_TYPES = ['i32', 'u32', 'f32', 'f64', 'i64', 'u64'] as const;

/** Array parameter spellings besides `T[]`: the JS typed-array names. */
export const TYPED_ARRAY_NAMES: Record<string, DType> = {
  Int8Array: 'i8', Uint8Array: 'u8', Int16Array: 'i16', Uint16Array: 'u16', Int32Array: 'i32', Uint32Array: 'u32',
  Int64Array: 'i64', Uint64Array: 'u64', Float32Array: 'f32', Float64Array: 'f64',
};

/** Built-in index variables: `threadIdx.x` …, each an i32 (CUDA's are unsigned; see docs/kernels.md). */
export const INDEX_VARIABLES = new Set(['threadIdx', 'blockIdx', 'blockDim', 'gridDim']);

/** Barriers: end a region (a loop over the block's threads) where they stand. */
export const BARRIERS = new Set(['__syncthreads', '__syncwarp']);

/** Block predicates: a barrier that also reduces one predicate per thread. */
export const BLOCK_PREDICATES = new Set(['__syncthreads_count', '__syncthreads_or', '__syncthreads_and']);

/** Warp votes: reduce one predicate per lane of the warp. */
export const WARP_VOTES = new Set(['__ballot_sync', '__any_sync', '__all_sync']);

/** Warp shuffles: (mask, value, lane/delta/laneMask, width = 32). */
export const WARP_SHUFFLES: Record<string, string> = {
  __shfl_sync: '__shfl', __shfl_up_sync: '__shflUp', __shfl_down_sync: '__shflDown', __shfl_xor_sync: '__shflXor',
};

/** CUDA atomics as `atomicAdd(array, index, value)`; the runtime helper of each. */
export const ATOMICS: Record<string, { helper: string; operands: number; u32only?: boolean; integerOnly?: boolean }> = {
  atomicAdd: { helper: '__atomicAdd', operands: 1 },
  atomicSub: { helper: '__atomicSub', operands: 1, integerOnly: true },
  atomicExch: { helper: '__atomicExch', operands: 1 },
  atomicMin: { helper: '__atomicMin', operands: 1 },
  atomicMax: { helper: '__atomicMax', operands: 1 },
  atomicInc: { helper: '__atomicInc', operands: 1, u32only: true },
  atomicDec: { helper: '__atomicDec', operands: 1, u32only: true },
  atomicCAS: { helper: '__atomicCAS', operands: 2, integerOnly: true },
  atomicAnd: { helper: '__atomicAnd', operands: 1, integerOnly: true },
  atomicOr: { helper: '__atomicOr', operands: 1, integerOnly: true },
  atomicXor: { helper: '__atomicXor', operands: 1, integerOnly: true },
};

/**
 * Memory fences: `__threadfence()` (device scope), `__threadfence_block()` (the block),
 * `__threadfence_system()` (device and host: the device here). No scheduling point of the
 * block form (a wasm `atomic.fence()` where it stands); one of the fine-grained form, where
 * the race detector takes a fence followed by an atomic as publishing the thread's writes.
 */
export const FENCES = new Set(['__threadfence', '__threadfence_block', '__threadfence_system']);

/** Shared-memory declarations: `__shared__<T>(n)` (static) and `__extern_shared__<T>()` (the launch's dynamic bytes). */
export const SHARED_DECLS = new Set(['__shared__', '__extern_shared__']);

/**
 * A per-thread array (CUDA's local memory, `float acc[8];`): `const acc = __local__<f32>(8)`,
 * n a compile-time constant. Private to its thread, it keeps its contents across barriers;
 * like CUDA's, its contents are undefined until the thread writes them.
 */
export const LOCAL_DECL = '__local__';

/**
 * AssemblyScript built-ins that reach memory without an array: raw loads and stores, bulk
 * memory, wasm atomics, SIMD loads and stores, the managed heap. A kernel reads and writes
 * memory only through its array parameters and `__shared__` arrays — bounds-checked, aligned
 * to their element size, and seen by the race tools and memcheck — so these are compile errors.
 * `callee` is the call's callee as written, without spaces (`load`, `memory.copy`, `i32.atomic.load`).
 */
export function isRawMemoryCall(callee: string): boolean {
  return /^(load|store|changetype|__alloc|__new|__renew|__free|__realloc)$/.test(callee) ||
    /^(memory|heap|atomic)\./.test(callee) ||
    /^(i32|i64|f32|f64|v128|i8x16|i16x8|i32x4|i64x2|f32x4|f64x2)\.(atomic\.|load|store)/.test(callee);
}

/** Every name of the language (what `import … from "simt/kernel"` may bring in). */
export function isLanguageName(name: string): boolean {
  return INDEX_VARIABLES.has(name) || BARRIERS.has(name) || BLOCK_PREDICATES.has(name) || WARP_VOTES.has(name) ||
    name in WARP_SHUFFLES || name in ATOMICS || SHARED_DECLS.has(name) || name === LOCAL_DECL || FENCES.has(name) || name === 'warpSize' || name === '__activemask';
}

/** Calls that are scheduling points of the block (regions split at them). */
export function isCollective(name: string): boolean {
  return BARRIERS.has(name) || BLOCK_PREDICATES.has(name) || WARP_VOTES.has(name) || name in WARP_SHUFFLES;
}

/** Pure built-ins whose result depends only on their arguments (uniform when they are). */
export const PURE_CALLS = new Set([
  'min', 'max', 'abs', 'sqrt', 'floor', 'ceil', 'trunc', 'nearest', 'copysign', 'clz', 'ctz', 'popcnt', 'rotl', 'rotr',
  'i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64', 'bool', 'isize', 'usize',
]);

export const CONVERSION_TYPES = new Set(['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64', 'bool', 'isize', 'usize']);
