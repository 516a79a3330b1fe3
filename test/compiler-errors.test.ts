// What the kernel compiler rejects: one-line diagnostics with the file, line and reason.
import { describe, expect, it } from 'vitest';
import { compileKernels, KernelCompileError } from '../src/compiler/index.js';

const HEAD = 'import { threadIdx, blockIdx, blockDim, __syncthreads, __shfl_down_sync, __shared__ } from "simt/kernel";\n';

// `line` (and `column`, where given) is the place in the whole source (HEAD is line 1).
const CASES: { what: string; body: string; line: number; column?: number; message: RegExp }[] = [
  { what: 'a barrier under thread-dependent control flow', line: 3, message: /thread-dependent control flow.*threadIdx/,
    body: 'export function k(a: f32[]): void {\n  if (threadIdx.x < 16) {\n    __syncthreads();\n  }\n}' },
  { what: 'a barrier in a loop bounded by a value computed from threadIdx', line: 5, message: /thread-dependent control flow/,
    body: 'export function k(a: f32[]): void {\n  const lim = threadIdx.x * 2;\n  let i = 0;\n  while (i < lim) { __syncthreads(); i++; }\n}' },
  { what: 'a shuffle in a loop with a thread-dependent trip count', line: 4, message: /thread-dependent control flow/,
    body: 'export function k(a: f32[]): void {\n  let v: f32 = a[threadIdx.x];\n  for (let i = 0; i < threadIdx.x; i++) {\n    v = __shfl_down_sync(0xffffffff, v, 1);\n  }\n  a[threadIdx.x] = v;\n}' },
  { what: 'managed allocation (a class)', line: 2, message: /classes are not supported/,
    body: 'class Box { v: i32 = 0; }\nexport function k(a: f32[]): void { }' },
  { what: 'a non-kernel import', line: 2, message: /self-contained/,
    body: 'import { x } from "./other";\nexport function k(a: f32[]): void { }' },
  { what: 'an unknown parameter type', line: 2, message: /parameter 'p': type 'string'/,
    body: 'export function k(p: string): void { }' },
  { what: 'a kernel returning a value', line: 2, message: /must return void/,
    body: 'export function k(a: f32[]): i32 { return 1; }' },
  { what: 'a __shared__ array without a constant size', line: 3, message: /compile-time constant/,
    body: 'export function k(a: f32[], n: i32): void {\n  const s = __shared__<f32>(n);\n}' },
  { what: 'an array used as a value', line: 3, message: /array 'a' used as a value/,
    body: 'export function k(a: f32[]): void {\n  const b = a;\n}' },
  { what: 'break in a loop that contains a barrier', line: 5, message: /break in a loop that contains a barrier/,
    body: 'export function k(a: f32[], n: i32): void {\n  for (let i = 0; i < n; i++) {\n    __syncthreads();\n    if (a[0] > 0) break;\n  }\n}' },
  { what: 'a device function with a barrier called inside an expression', line: 3, message: /'helper' is inlined into the kernel \(it holds barriers.*call it as a statement of its own/,
    body: 'function helper(): i32 { __syncthreads(); return 1; }\nexport function k(a: i32[]): void { a[0] = 1 + helper(); }' },
  { what: 'a device function with a barrier called in a for loop\'s initializer', line: 3, message: /'helper' is inlined into the kernel \(it holds barriers.*call it as a statement of its own/,
    body: 'function helper(): i32 { __syncthreads(); return 1; }\nexport function k(a: i32[]): void { for (let i = helper(); i < 2; i++) a[i] = 1; }' },
  { what: 'a device function with a barrier that returns before its end', line: 2, message: /'helper' is inlined into kernels.*may return only at its end/,
    body: 'function helper(v: i32): i32 { if (v > 0) return v; __syncthreads(); return 0; }\nexport function k(a: i32[]): void { const x = helper(a[0]); a[1] = x; }' },
  { what: 'a device function with a barrier called under thread-dependent control flow (at the call)', line: 4, message: /thread-dependent control flow/,
    body: 'function helper(): void { __syncthreads(); }\nexport function k(a: f32[]): void {\n  if (threadIdx.x < 16) {\n    helper();\n  }\n}' },
  { what: 'a type error in the kernel (reported at its line)', line: 5, message: /not assignable|Conversion from type|cannot be applied/,
    body: 'export function k(a: f32[]): void {\n  const i = threadIdx.x;\n\n  a[i] = "x" + 1.5;\n}' },
  { what: 'a module-level let (global state)', line: 2, message: /must be a const/,
    body: 'let counter = 0;\nexport function k(a: f32[]): void { }' },
  { what: 'atomicInc on a non-u32 array', line: 3, message: /atomicInc works on u32 arrays/,
    body: 'import { atomicInc } from "simt/kernel";\nexport function k(a: i32[]): void { atomicInc(a, 0, 5); }' },
  // Memory is reached only through arrays: nothing bypasses the bounds checks, the race tools or
  // memcheck, and no access can be misaligned (docs/race-tools.md, "memcheck").
  { what: 'a raw store (misaligned address)', line: 3, message: /'store' reaches memory without an array/,
    body: 'export function k(a: f32[]): void {\n  store<i32>(<usize>6, 1);\n}' },
  { what: 'a raw load in a device function', line: 2, message: /'load' reaches memory without an array/,
    body: 'function peek(p: usize): i32 { return load<i32>(p); }\nexport function k(a: i32[]): void { a[0] = peek(4); }' },
  { what: 'a typed raw load (i32.load8_u)', line: 2, message: /'i32\.load8_u' reaches memory without an array/,
    body: 'export function k(a: i32[]): void { a[0] = i32.load8_u(3); }' },
  { what: 'a wasm atomic on an address', line: 2, message: /'atomic\.add' reaches memory/,
    body: 'export function k(a: i32[]): void { atomic.add<i32>(8, 1); }' },
  { what: 'bulk memory', line: 2, message: /'memory\.copy' reaches memory/,
    body: 'export function k(a: i32[]): void { memory.copy(0, 64, 4); }' },
  { what: 'a SIMD store', line: 2, message: /'v128\.store' reaches memory/,
    body: 'export function k(a: i32[]): void { v128.store(16, i32x4.splat(1)); }' },
  { what: 'a raw load in a module-level const', line: 2, message: /'load' reaches memory/,
    body: 'const X: i32 = load<i32>(16);\nexport function k(a: i32[]): void { a[0] = X; }' },
  { what: 'an object allocated with new', line: 2, message: /'new Array<i32>' allocates memory/,
    body: 'export function k(a: i32[]): void { const b = new Array<i32>(4); a[0] = b[0]; }' },
  { what: 'a call of simt\'s runtime (an unchecked access)', line: 2, message: /'__ldu' is simt's runtime, not part of the kernel language/,
    body: 'export function k(a: i32[]): void { a[0] = __ldu<i32>(0, 0, 0, 0, 0, 0); }' },
  { what: 'a fence with an argument', line: 4, message: /__threadfence_block\(\) takes no arguments/,
    body: 'import { __threadfence_block } from "simt/kernel";\nexport function k(a: i32[]): void {\n  __threadfence_block(1);\n}' },
  // Errors that AssemblyScript finds in the generated code come back at the user's line and
  // column: each were once reported in the generated file, or at a neighbouring line.
  { what: 'an unknown name in a module-level const', line: 2, column: 16, message: /Cannot find name 'nopeConst'/,
    body: 'const K: i32 = nopeConst;\nexport function k(a: f32[]): void {\n  a[threadIdx.x] = <f32>K;\n}' },
  { what: 'an unknown name in a device function with a barrier (inlined: its own line, not the call\'s)', line: 4, column: 3, message: /Cannot find name 'nope'/,
    body: 'function helper(a: f32[]): void {\n  __syncthreads();\n  a[0] = nope;\n}\nexport function k(a: f32[]): void {\n  a[1] = 2;\n  helper(a);\n}' },
  { what: 'an unknown name in the condition of a loop with a barrier', line: 3, column: 23, message: /Cannot find name 'limit'/,
    body: 'export function k(a: f32[], n: i32): void {\n  for (let j = 0; j < limit; j++) {\n    __syncthreads();\n  }\n}' },
  { what: 'an unknown name in a shuffle\'s lane operand', line: 4, column: 39, message: /Cannot find name 'offset'/,
    body: 'export function k(a: f32[]): void {\n  let v = a[threadIdx.x];\n  v = __shfl_down_sync(0xffffffff, v, offset);\n  a[threadIdx.x] = v;\n}' },
  { what: 'an unknown name on the third line of a statement written over three', line: 6, column: 5, message: /Cannot find name 'missing'/,
    body: 'export function k(a: f32[]): void {\n  const i = threadIdx.x;\n  const v = a[i] +\n    a[i + 1] +\n    missing;\n  a[i] = v;\n}' },
  { what: 'an unknown name after an early return', line: 4, column: 20, message: /Cannot find name 'qq'/,
    body: 'export function k(a: f32[]): void {\n  if (threadIdx.x > 3) return;\n  a[threadIdx.x] = qq;\n}' },
  { what: 'an unknown name in a grid-stride loop\'s bound (compiled as written and strip-mined)', line: 3, column: 59, message: /Cannot find name 'count'/,
    body: 'export function k(a: f32[]): void {\n  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += blockDim.x * gridDim.x) a[i] = 1;\n}' },
  { what: 'an unknown name in a grid-stride loop\'s body (compiled as written and strip-mined: reported once)', line: 5, column: 19, message: /Cannot find name 'bogus'/,
    body: 'export function k(a: f32[], n: i32): void {\n  const s = blockDim.x * gridDim.x;\n  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += s) {\n    a[i] = a[i] + bogus;\n  }\n}' },
];

describe('kernel compile errors', () => {
  for (const c of CASES) {
    it(c.what, async () => {
      const source = HEAD + c.body.replace(/^/, '');
      const p = compileKernels([{ path: 'user/k.ts', source }], { cacheDir: false, optimize: false });
      await expect(p).rejects.toBeInstanceOf(KernelCompileError);
      const e = await p.catch((x: KernelCompileError) => x);
      const d = e.diagnostics.find((x) => c.message.test(x.message));
      expect(d, e.message).toBeDefined();
      expect(d!.file).toBe('user/k.ts');
      expect(d!.line).toBe(c.line);
      if (c.column !== undefined) expect(d!.column).toBe(c.column);
      // Every problem is in the user's file (none in the compiler's generated sources), once
      // (not again from the fine-grained form at a neighbouring line).
      expect(e.diagnostics.map((x) => x.file), e.message).toEqual(e.diagnostics.map(() => 'user/k.ts'));
      const place = (x: { line: number; column: number; message: string }): string => `${x.line}:${x.column}: ${x.message.replace(/ \(in: .*\)$/s, '')}`;
      expect(new Set(e.diagnostics.map(place)).size, e.message).toBe(e.diagnostics.length);
      expect(e.message.split('\n')).toHaveLength(1);
    });
  }

  it('a construct without a WGSL form in an inlined device function is reported at its own line', async () => {
    const source = HEAD + 'function square(a: i32[]): void {\n  __syncthreads();\n  a[threadIdx.x] = a[threadIdx.x] ** 2;\n}\nexport function k(a: i32[]): void {\n  a[threadIdx.x] = 3;\n  square(a);\n}';
    const mod = await compileKernels([{ path: 'user/k.ts', source }], { cacheDir: false, optimize: false });
    expect(mod.meta.wgsl!.k!.source).toBeUndefined();
    expect(mod.meta.wgsl!.k!.diagnostics).toEqual([{ file: 'user/k.ts', line: 4, column: 3, message: '** on integers has no WGSL form' }]);
  });

  it('sites (trap and race locations) of code inlined from a device function name its own lines, in the wasm forms and the WGSL', async () => {
    const source = 'import { threadIdx, __syncwarp } from "simt/kernel";\n' +
      'function bump(a: i32[]): void {\n  __syncwarp();\n  a[threadIdx.x] = a[threadIdx.x] + 1;\n}\n' +
      'export function k(a: i32[]): void {\n  if (threadIdx.x < 32) bump(a);\n}\n';
    const mod = await compileKernels([{ path: 'user/k.ts', source }], { cacheDir: false, optimize: false });
    const at = (sites: readonly { file: string; line: number; column: number; what: string }[], what: RegExp) =>
      sites.filter((x) => what.test(x.what)).map((x) => `${x.file}:${x.line}:${x.column}`);
    for (const sites of [mod.meta.sites, mod.meta.wgsl!.k!.sites!]) {
      expect(at(sites, /^(read|write) a\[\]$/).length).toBeGreaterThan(0);
      expect(new Set(at(sites, /^(read|write) a\[\]$/))).toEqual(new Set(['user/k.ts:4:3']));
      expect(at(sites, /^condition of an if/).length).toBeGreaterThan(0);
      expect(new Set(at(sites, /^condition of an if/))).toEqual(new Set(['user/k.ts:7:3']));
    }
  });

  it('a module-level const declared in two sources of one module: an error at the second, naming the first', async () => {
    const a = { path: 'user/a.ts', source: 'const limit: i32 = 4;\nexport function ka(o: i32[]): void { o[0] = limit; }\n' };
    const b = { path: 'user/b.ts', source: 'import { threadIdx } from "simt/kernel";\n\nconst limit: i32 = 5;\nexport function kb(o: i32[]): void { o[threadIdx.x] = limit; }\n' };
    const err = await compileKernels([a, b], { cacheDir: false, optimize: false }).catch((e) => e);
    expect(err).toBeInstanceOf(KernelCompileError);
    expect(err.message).toBe("user/b.ts:3:7: 'limit' is declared again (first at user/a.ts:1): the sources of one module share one scope, so declare it once");
    // Each alone compiles.
    for (const s of [a, b]) await expect(compileKernels([s], { cacheDir: false, optimize: false })).resolves.toBeDefined();
  });

  it('a kernel that compiles has typed handles with its parameter spec', async () => {
    const mod = await compileKernels([{ path: 'ok.ts', source: HEAD + 'export function k(a: f32[], n: i32, b: u16[]): void { }' }], { cacheDir: false, optimize: false });
    expect(mod.kernels.k!.spec).toEqual({ a: 'f32[]', n: 'i32', b: 'u16[]' });
    expect(mod.meta.kernels[0]!.file).toBe('ok.ts');
  });
});
