// An independent TypeScript model of CUDA's atomic functions (CUDA C Programming Guide,
// "Atomic Functions"), used as the oracle for the AssemblyScript runtime.
export const f32 = Math.fround;
const U32 = 2 ** 32;
const U64 = 1n << 64n;

export type AtomicOp =
  | 'addI32' | 'addU32' | 'addU64' | 'addF32' | 'addF64' | 'subI32' | 'exchI32' | 'minI32' | 'maxI32'
  | 'minU32' | 'maxU32' | 'minU64' | 'maxU64' | 'minF32' | 'maxF32' | 'incU32' | 'decU32' | 'casU32'
  | 'casU64' | 'andU32' | 'orU32' | 'xorU32' | 'exchF32' | 'exchU64' | 'minI64' | 'maxI64' | 'subU32';

/** The op codes of the atomicProbe kernel. */
export const OP_CODE: Record<AtomicOp, number> = {
  addI32: 0, addU32: 1, addU64: 2, addF32: 3, addF64: 4, subI32: 5, exchI32: 6, minI32: 7, maxI32: 8, minU32: 9,
  maxU32: 10, minU64: 11, maxU64: 12, minF32: 13, maxF32: 14, incU32: 15, decU32: 16, casU32: 17, casU64: 18,
  andU32: 19, orU32: 20, xorU32: 21, exchF32: 22, exchU64: 23, minI64: 24, maxI64: 25, subU32: 26,
};

export const KIND: Record<AtomicOp, 'i32' | 'u32' | 'u64' | 'i64' | 'f32' | 'f64'> = {
  addI32: 'i32', addU32: 'u32', addU64: 'u64', addF32: 'f32', addF64: 'f64', subI32: 'i32', exchI32: 'i32', minI32: 'i32',
  maxI32: 'i32', minU32: 'u32', maxU32: 'u32', minU64: 'u64', maxU64: 'u64', minF32: 'f32', maxF32: 'f32', incU32: 'u32',
  decU32: 'u32', casU32: 'u32', casU64: 'u64', andU32: 'u32', orU32: 'u32', xorU32: 'u32', exchF32: 'f32', exchU64: 'u64',
  minI64: 'i64', maxI64: 'i64', subU32: 'u32',
};

type V = number | bigint;

/** fmaxf/fminf: a NaN loses to a number; otherwise the larger/smaller (ties keep `old`). */
function fmax(old: number, v: number): number { if (Number.isNaN(v)) return old; if (Number.isNaN(old)) return v; return v > old ? v : old; }
function fmin(old: number, v: number): number { if (Number.isNaN(v)) return old; if (Number.isNaN(old)) return v; return v < old ? v : old; }

/** Applies one atomic: returns [new stored value, returned old value]. */
export function applyAtomic(op: AtomicOp, old: V, v: V, v2?: V): [V, V] {
  const n = old as number, b = old as bigint;
  switch (op) {
    case 'addI32': return [((n + (v as number)) | 0), old];
    case 'addU32': return [((n + (v as number)) % U32 + U32) % U32, old];
    case 'subI32': return [((n - (v as number)) | 0), old];
    case 'subU32': return [(((n - (v as number)) % U32) + U32) % U32, old];
    case 'addU64': return [(b + (v as bigint)) % U64, old];
    case 'addF32': return [f32(n + f32(v as number)), old];
    case 'addF64': return [n + (v as number), old];
    case 'exchI32': case 'exchF32': case 'exchU64': return [v, old];
    case 'minI32': case 'minU32': return [Math.min(n, v as number), old];
    case 'maxI32': case 'maxU32': return [Math.max(n, v as number), old];
    case 'minU64': case 'minI64': return [b < (v as bigint) ? b : (v as bigint), old];
    case 'maxU64': case 'maxI64': return [b > (v as bigint) ? b : (v as bigint), old];
    case 'minF32': return [fmin(n, v as number), old];
    case 'maxF32': return [fmax(n, v as number), old];
    // CUDA: atomicInc: ((old >= val) ? 0 : (old+1)); atomicDec: (((old == 0) || (old > val)) ? val : (old-1))
    case 'incU32': return [n >= (v as number) ? 0 : n + 1, old];
    case 'decU32': return [n === 0 || n > (v as number) ? v : n - 1, old];
    case 'casU32': return [n === v ? v2! : n, old];
    case 'casU64': return [b === v ? v2! : b, old];
    case 'andU32': return [(n & (v as number)) >>> 0, old];
    case 'orU32': return [(n | (v as number)) >>> 0, old];
    case 'xorU32': return [(n ^ (v as number)) >>> 0, old];
  }
}

/** CUDA's atomicInc applied n times to a counter starting at `start`: the values returned in order, and the counter after. */
export function incSequence(start: number, limit: number, n: number): { got: number[]; final: number } {
  const got: number[] = [];
  let c = start >>> 0;
  for (let k = 0; k < n; k++) { got.push(c); c = applyAtomic('incU32', c, limit >>> 0)[0] as number; }
  return { got, final: c };
}

/** atomicInc cases: below, at and above the bound, u32 wrap, bound 0, a bound of 2^31 or more, a counter stored in the kernel. */
export const INC_CASES = [
  { start: 0, limit: 100, store: 0, grid: 10, block: 64 },
  { start: 100, limit: 100, store: 0, grid: 4, block: 64 },
  { start: 500, limit: 100, store: 0, grid: 4, block: 64 },
  { start: 0xfffffff0, limit: 0xffffffff, store: 0, grid: 2, block: 64 },
  { start: 7, limit: 0, store: 0, grid: 2, block: 32 },
  { start: 3, limit: 0x90000000, store: 0, grid: 3, block: 96 },
  { start: 500, limit: 100, store: 1, grid: 1, block: 256 },
  { start: 5, limit: 100, store: 1, grid: 1, block: 256 },
] as const;
