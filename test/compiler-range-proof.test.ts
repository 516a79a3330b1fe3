// Bounds checks proven per block (src/compiler/rangeProof.ts): the block form runs an unchecked
// copy of a kernel for each block whose index ranges are inside their arrays. A wrong proof is
// silent corruption, so the proof is checked against a TypeScript reference on random kernels:
// random integer index expressions (wrap-around, division, shifts, masks, ternaries, min/max,
// variables with several assignments, loop counters), each launched where every index is
// inside the array (no trap, the writes exact) and where the largest one is one past its end
// (a KernelError naming an index that is outside).
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { compileKernels } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import { KernelError } from '../src/errors.js';
import { compiledBackends, onCompiledBackend, rng } from './helpers.js';

// --- random kernels and their reference --------------------------------------------------------

/** An i32 expression: its AssemblyScript text and its value for one thread (i32 arithmetic). */
interface Expr { text: string; value(env: Env): number }
interface Env { tx: number; bx: number; bd: number; p: number; q: number; v: number; j: number }

const BIG = [32768, 65536, 1048576, 1000003, 46341];

function randomExpr(r: () => number, depth: number, leaves: (keyof Env)[]): Expr {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  if (depth <= 0 || r() < 0.25) {
    const k = r();
    if (k < 0.55) {
      const name = pick(leaves);
      const text = { tx: 'threadIdx.x', bx: 'blockIdx.x', bd: 'blockDim.x', p: 'p', q: 'q', v: 'v', j: 'j' }[name];
      return { text, value: (e) => e[name] };
    }
    const c = k < 0.85 ? Math.floor(r() * 40) : pick(BIG);
    return { text: String(c), value: () => c };
  }
  const a = randomExpr(r, depth - 1, leaves), b = randomExpr(r, depth - 1, leaves);
  const c = 1 + Math.floor(r() * 9);
  switch (pick(['+', '+', '-', '*', '*', '/', '%', '>>', '&', '?:', 'min', 'max'])) {
    case '+': return { text: `(${a.text} + ${b.text})`, value: (e) => (a.value(e) + b.value(e)) | 0 };
    case '-': return { text: `(${a.text} - ${b.text})`, value: (e) => (a.value(e) - b.value(e)) | 0 };
    case '*': return { text: `(${a.text} * ${b.text})`, value: (e) => Math.imul(a.value(e), b.value(e)) };
    case '/': return { text: `(${a.text} / ${c})`, value: (e) => Math.trunc(a.value(e) / c) | 0 };
    case '%': return { text: `(${a.text} % ${c})`, value: (e) => (a.value(e) % c) | 0 };
    case '>>': { const s = Math.floor(r() * 20); return { text: `(${a.text} >> ${s})`, value: (e) => a.value(e) >> s }; }
    case '&': { const m = Math.floor(r() * 5000); return { text: `(${a.text} & ${m})`, value: (e) => a.value(e) & m }; }
    case '?:': {
      const x = randomExpr(r, depth - 1, leaves);
      return { text: `(${a.text} < ${b.text} ? ${x.text} : ${b.text})`, value: (e) => (a.value(e) < b.value(e) ? x.value(e) : b.value(e)) };
    }
    case 'min': return { text: `min(${a.text}, ${b.text})`, value: (e) => Math.min(a.value(e), b.value(e)) };
    default: return { text: `max(${a.text}, ${b.text})`, value: (e) => Math.max(a.value(e), b.value(e)) };
  }
}

/** A random kernel: the indices each thread writes (out[i] = i), and its source. */
interface RandomKernel { name: string; source: string; indices(env: Omit<Env, 'v' | 'j'>): number[]; reads?(env: Omit<Env, 'v' | 'j'>): number[] }

function randomKernel(r: () => number, k: number): RandomKernel {
  const name = `rp${k}`;
  const base: (keyof Env)[] = ['tx', 'bx', 'bd', 'p', 'q'];
  if (k % 5 === 0) {
    // A variable with two assignments (the proof takes their hull), then an index from it.
    const e1 = randomExpr(r, 3, base), e2 = randomExpr(r, 2, base), e3 = randomExpr(r, 3, [...base, 'v', 'v']);
    return {
      name,
      source: `export function ${name}(out: i32[], p: i32, q: i32): void {\n  let v: i32 = ${e1.text};\n  if ((threadIdx.x & 1) == 1) v = ${e2.text};\n  const i = ${e3.text};\n  out[i] = i;\n}\n`,
      indices: (env) => {
        const v = (env.tx & 1) === 1 ? e2.value({ ...env, v: 0, j: 0 }) : e1.value({ ...env, v: 0, j: 0 });
        return [e3.value({ ...env, v, j: 0 })];
      },
    };
  }
  if (k % 5 === 2) {
    // A guarded access: v between two bounds (if, &&), sometimes assigned again between the test
    // and the access (the guard then no longer holds for it).
    const e1 = randomExpr(r, 3, base), lo = randomExpr(r, 1, base), hi = randomExpr(r, 1, base), e3 = randomExpr(r, 2, [...base, 'v', 'v', 'v']);
    const bump = r() < 0.4 ? 1 + Math.floor(r() * 40) : 0;
    return {
      name,
      source: `export function ${name}(out: i32[], p: i32, q: i32): void {\n  let v: i32 = ${e1.text};\n  if (v >= ${lo.text} && v < ${hi.text}) {\n${bump ? `    v = v + ${bump};\n` : ''}    const i = ${e3.text};\n    out[i] = i;\n  }\n}\n`,
      indices: (env) => {
        const e = { ...env, v: 0, j: 0 };
        let v = e1.value(e);
        if (!(v >= lo.value(e) && v < hi.value(e))) return [];
        if (bump) v = (v + bump) | 0;
        return [e3.value({ ...e, v })];
      },
    };
  }
  if (k % 5 === 3) {
    // A while loop stepping v up to the bound q (a grid-stride loop's shape).
    const step = r() < 0.5 ? 'blockDim.x' : String(1 + Math.floor(r() * 5));
    const e3 = randomExpr(r, 3, [...base, 'v', 'v', 'v']);
    return {
      name,
      source: `export function ${name}(out: i32[], p: i32, q: i32): void {\n  let v = blockIdx.x * 3 + (threadIdx.x & 3);\n  while (v < q) {\n    const i = ${e3.text};\n    out[i] = i;\n    v += ${step};\n  }\n}\n`,
      indices: (env) => {
        const out: number[] = [];
        for (let v = env.bx * 3 + (env.tx & 3); v < env.q; v += step === 'blockDim.x' ? env.bd : Number(step)) out.push(e3.value({ ...env, v, j: 0 }));
        return out;
      },
    };
  }
  if (k % 5 === 4) {
    // An early return (if (…) return;) guarding the rest, and a variable stepping down under a guard.
    const e1 = randomExpr(r, 3, base), e3 = randomExpr(r, 2, [...base, 'v', 'j', 'j']);
    return {
      name,
      source: `export function ${name}(out: i32[], p: i32, q: i32): void {\n  const v: i32 = ${e1.text};\n  if (v < 0 || v >= q) return;\n  let j: i32 = v;\n  while (j >= 0 && out[j] != -7) {\n    const i = ${e3.text};\n    out[i] = i;\n    j -= 2;\n  }\n}\n`,
      indices: (env) => {
        const e = { ...env, v: 0, j: 0 };
        const v = e1.value(e);
        if (v < 0 || v >= env.q) return [];
        const out: number[] = [];
        for (let j = v; j >= 0; j -= 2) out.push(e3.value({ ...e, v, j }));
        return out;
      },
      reads: (env) => {
        const v = e1.value({ ...env, v: 0, j: 0 });
        const out: number[] = [];
        if (v >= 0 && v < env.q) for (let j = v; j >= 0; j -= 2) out.push(j);
        return out;
      },
    };
  }
  // A counted loop: j from a small start (per thread, or the same for all) to a bound (the
  // parameter q, or a constant: then the last value is exact) in steps of 1 to 5.
  const e3 = randomExpr(r, 3, [...base, 'j', 'j', 'j']);
  const start = r() < 0.5 ? null : Math.floor(r() * 6), bound = r() < 0.4 ? 'q' : String(4 + Math.floor(r() * 30)), step = 1 + Math.floor(r() * 5);
  const loopOp = r() < 0.5 ? '<' : '<=';
  return {
    name,
    source: `export function ${name}(out: i32[], p: i32, q: i32): void {\n  for (let j = ${start ?? 'threadIdx.x & 7'}; j ${loopOp} ${bound}; j += ${step}) {\n    const i = ${e3.text};\n    out[i] = i;\n  }\n}\n`,
    indices: (env) => {
      const out: number[] = [];
      const end = bound === 'q' ? env.q : Number(bound);
      for (let j = start ?? env.tx & 7; loopOp === '<' ? j < end : j <= end; j += step) out.push(e3.value({ ...env, v: 0, j }));
      return out;
    },
  };
}

const random = rng(20261128);
const KERNELS = Array.from({ length: 40 }, (_, k) => randomKernel(random, k));

/** Fixed kernels: arithmetic that wraps inside the index, and a counter also assigned in its loop. */
const FIXED = `
// ((bx * 32768) * 65536) is 2^31 for block 1: it wraps to -2^31, and >> 16 gives -32768 (the
// unwrapped value, 32768, would be inside an array of 40000).
export function wrapShift(out: i32[]): void {
  const i = ((blockIdx.x * 32768) * 65536) >> 16;
  out[i + threadIdx.x] = 1;
}
// j also steps in the body: not a counter the proof can follow.
export function counterStepped(out: i32[], n: i32): void {
  for (let j = 0; j < n; j++) { out[j] = j; j += threadIdx.x; }
}
// Guards that stop holding: i assigned between the test and the access; i stepped in a loop
// inside the guarded code (its next iteration reads the stepped value); a step that wraps.
export function guardBump(out: i32[], n: i32): void {
  let i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { i += 1; out[i] = i; }
}
export function guardLoop(out: i32[], n: i32, m: i32): void {
  let i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { for (let k = 0; k < m; k++) { out[i] = k; i += 1; } }
}
export function guardLess(out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = i;
}
export function guardLow(out: i32[], lo: i32): void {
  const j = threadIdx.x - 2;
  if (j >= lo) out[j] = j;
}
// Bounds guards the proven copy folds (to true for a block whose every thread passes them).
export function foldEdge(out: i32[], n: i32, m: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= m) out[i] = i;
}
export function foldExit(out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || i < 3) return;
  out[i] = i;
}
// A table lookup by a byte: the byte's range, 0..255, bounds the index.
export function lookup(out: i32[], lut: i32[], src: u8[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < out.length) out[i] = lut[src[i]];
}
export function stepWrap(out: i32[], start: i32, end: i32, step: i32): void {
  let i = start;
  while (i < end) { out[i - start] = 1; i += step; }
}
// An index read from memory and bounded by the kernel's own guards: proven against n (u32, and
// i32 with both ends guarded); the same read unguarded at its lower end stays checked.
export function guardedRead(out: i32[], idx: u32[], n: u32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= idx.length) return;
  const c = idx[i];
  if (c >= n) return;
  out[c] = i;
}
export function guardedReadSigned(out: i32[], idx: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= idx.length) return;
  const c = idx[i];
  if (c < 0 || c >= n) return;
  out[c] = i;
}
export function guardedReadHalf(out: i32[], idx: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= idx.length) return;
  const c = idx[i];
  if (c >= n) return;
  out[c] = i;
}
// Chunk bounds from a device function, which the proof does not look into: clamped where they
// are used, the loops over [max(begin, 0), min(end, n)) are proven against n; unclamped they
// stay checked. (chunkAt is any i32 — its result here is the usual ⌊g·n/P⌋.)
function chunkAt(g: i32, p: i32, n: i32): i32 { return <i32>((<i64>g * <i64>n) / <i64>p); }
export function clampedChunk(out: i32[], src: i32[], n: i32): void {
  const p = gridDim.x * blockDim.x;
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const end = min(chunkAt(g + 1, p, n), n);
  for (let i = max(chunkAt(g, p, n), 0); i < end; i++) out[i] = src[i] * 2;
}
export function clampedWalk(out: i32[], src: i32[], n: i32): void {
  const p = gridDim.x * blockDim.x;
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const end = min(chunkAt(g + 1, p, n), n);
  let i = max(chunkAt(g, p, n), 0);
  while (i < end) { out[i] = src[i] + 1; i++; }
}
export function unclampedChunk(out: i32[], src: i32[], n: i32): void {
  const p = gridDim.x * blockDim.x;
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const end = chunkAt(g + 1, p, n);
  for (let i = chunkAt(g, p, n); i < end; i++) out[i] = src[i] * 2;
}
// An index read from memory clamped on both sides: proven against n.
export function clampedGather(out: i32[], src: i32[], idx: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= out.length) return;
  out[i] = src[min(max(idx[i], 0), n - 1)];
}
// Data-dependent: the index is read from memory (stays checked in both copies).
export function gather(out: f32[], src: f32[], idx: i32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < out.length) out[i] = src[idx[i]];
}
`;

const FILE = 'test/kernels/rangeProofRandom.ts';
let mod: KernelModule;
let blockForm = '';
let transposeForm = '';
beforeAll(async () => {
  const source = KERNELS.map((k) => k.source).join('\n') + FIXED;
  mod = await compileKernels([{ path: FILE, source }], { cacheDir: false, onGenerated: (g) => { blockForm = g.block; } });
  await compileKernels([{ path: 'examples/kernels/transpose.ts', source: readFileSync('examples/kernels/transpose.ts', 'utf8') }],
    { cacheDir: false, onGenerated: (g) => { transposeForm = g.block; } });
}, 120_000);

const fnText = (form: string, name: string): string => {
  const a = form.search(new RegExp(`function ${name}\\(`));
  return a < 0 ? '' : form.slice(a, form.indexOf('\n}', a));
};

describe('range proof: the generated block form', () => {
  it('transpose: every block whose four accesses are proven runs the copy with none checked', () => {
    expect(fnText(transposeForm, '__blocks_transpose')).toMatch(/if \(__proof_transpose\([^)]*\)\) __fast_transpose_u\([^)]*\); else __fast_transpose\(/);
    const copy = transposeForm.slice(transposeForm.indexOf('// region 0 of transpose_u'), transposeForm.indexOf('function __fast_transpose_u('));
    expect(copy).toContain('__transpose_u_r1_x4');
    expect(copy).not.toMatch(/__ld<|__st<|__ld4<f32>\(true|__st4<f32>\(true|__ldv4<f32>\(true/);
    // the checked form is unchanged
    const checked = transposeForm.slice(transposeForm.indexOf('// region 0 of transpose\n'), transposeForm.indexOf('// region 0 of transpose_u'));
    expect(checked).toMatch(/__ld4<f32>\(true/);
    expect(checked).toMatch(/__st4<f32>\(true/);
    // the tile's row counter j is 0, 8, 16, 24: its last value is exact, so (ty + j) * 33 + tx fits 1056 for blocks of 32 × 8
    expect(fnText(transposeForm, '__proof_transpose')).toMatch(/\(<i64>32 - 1 - <i64>0\) \/ <i64>8 \* <i64>8/);
  });

  it('gather: the index read from memory stays checked in the copy, the others are not', () => {
    const copy = fnText(blockForm, '__gather_u_r0');
    expect(copy).toMatch(/__ld<f32>\(__p_src/);
    expect(copy).toMatch(/__ldu<i32>\(__p_idx/);
    expect(copy).toMatch(/__stu<f32>\(__p_out/);
    // A proven access's index is computed in i32 (the proof bounds every value on the way to it);
    // the checked one keeps its i64 index, which the check compares against the length.
    expect(copy).toMatch(/__ldu<i32>\(__p_idx, __n_idx, <i64>\(<i32>\(/);
    expect(copy).toMatch(/__stu<f32>\(__p_out, __n_out, <i64>\(<i32>\(/);
    expect(copy).not.toMatch(/__ld<f32>\(__p_src, __n_src, <i64>\(<i32>/);
  });

  it('foldEdge, foldExit: the bounds guards are their values in the proven copy, and proven per block', () => {
    expect(fnText(blockForm, '__foldEdge_u_r0')).toMatch(/if \(true\) __stu<i32>/);
    expect(fnText(blockForm, '__foldEdge_r0')).toMatch(/if \(i < n && i >= m\) __st<i32>/);
    expect(fnText(blockForm, '__proof_foldEdge')).toMatch(/<i64>n\)\) return false;|< <i64>n/);
    expect(fnText(blockForm, '__foldExit_u_r0')).toMatch(/if \(false\)/);
  });

  it('lookup: an index that is a byte read is proven against a table of 256', () => {
    expect(fnText(blockForm, '__lookup_u_r0_x4')).toMatch(/__ldv4<i32>\(false, __p_lut/);
  });

  it('guardedRead: an index read from memory is proven where the kernel\'s guards bound it, and stays checked where they leave an end open', () => {
    expect(fnText(blockForm, '__guardedRead_u_r0')).toMatch(/__stu<i32>\(__p_out/);
    expect(fnText(blockForm, '__guardedRead_r0')).toMatch(/__st<i32>\(__p_out/);
    expect(fnText(blockForm, '__proof_guardedRead')).toMatch(/<i64>n/);
    expect(fnText(blockForm, '__guardedReadSigned_u_r0')).toMatch(/__stu<i32>\(__p_out/);
    // c < 0 is not excluded: out[c] stays checked in the copy; the read idx[i] is still proven
    expect(fnText(blockForm, '__guardedReadHalf_u_r0')).toMatch(/__st<i32>\(__p_out/);
    expect(fnText(blockForm, '__guardedReadHalf_u_r0')).toMatch(/__ldu<i32>\(__p_idx/);
  });

  it('clamped results of a device function bound a loop: proven where clamped, checked where not', () => {
    expect(fnText(blockForm, '__clampedChunk_u_r0')).toMatch(/__ldu<i32>\(__p_src/);
    expect(fnText(blockForm, '__clampedChunk_u_r0')).toMatch(/__stu<i32>\(__p_out/);
    expect(fnText(blockForm, '__clampedWalk_u_r0')).toMatch(/__ldu<i32>\(__p_src/);
    expect(fnText(blockForm, '__clampedWalk_u_r0')).toMatch(/__stu<i32>\(__p_out/);
    expect(blockForm).not.toContain('__proof_unclampedChunk');
    expect(fnText(blockForm, '__unclampedChunk_r0')).toMatch(/__ld<i32>\(__p_src/);
    expect(fnText(blockForm, '__clampedGather_u_r0')).toMatch(/__ldu<i32>\(__p_src/);
  });

  it('a kernel with nothing to prove has no copy', () => {
    expect(blockForm).not.toContain('__proof_counterStepped');
    expect(blockForm).not.toContain('__fast_counterStepped_u');
  });
});

const PARAMS = [0, 1, 5, 37, 100, -3, -1000, 70000, 1 << 30, -(1 << 30), 2147483647, -2147483648];

for (const b of compiledBackends([1])) {
  describe(`range proof on ${b.name}: random index expressions against the reference`, () => {
    const be = onCompiledBackend(b, () => mod);
    const kernelsInside = new Set<string>();

    it.each(KERNELS.map((k, i) => [k.name, i] as const))('%s: inside (exact writes) and one past the end (a trap naming an index outside)', async (_name, ki) => {
      const k = KERNELS[ki]!;
      const r = rng(ki + 1);
      let inside = 0, outside = 0;
      for (let attempt = 0; attempt < 40 && inside + outside < 6; attempt++) {
        const grid = 1 + Math.floor(r() * 5), block = [1, 7, 32, 64][Math.floor(r() * 4)]!;
        const p = PARAMS[Math.floor(r() * PARAMS.length)]!, q = [0, 3, 10, 40][Math.floor(r() * 4)]!;
        const all: number[] = [], written: number[] = [];
        for (let bx = 0; bx < grid; bx++) {
          for (let tx = 0; tx < block; tx++) {
            const w = k.indices({ tx, bx, bd: block, p, q });
            written.push(...w);
            all.push(...w, ...(k.reads?.({ tx, bx, bd: block, p, q }) ?? []));
          }
        }
        if (all.length === 0) continue;
        const lo = Math.min(...all), hi = Math.max(...all);
        if (lo < 0 || hi >= 1 << 21) {
          // Always outside: only some of these (the launch must trap).
          if (outside >= 3) continue;
          outside++;
          const out = be.dev.alloc('i32', 100);
          const err = await be.launch(k.name, grid, block, [out, p, q]).then(() => undefined, (e: unknown) => e);
          expect(err, `${k.source} grid ${grid} block ${block} p ${p} q ${q}`).toBeInstanceOf(KernelError);
          const m = /index (-?\d+) is out of bounds of 'out' \(length 100\)/.exec(String((err as Error).message));
          expect(m).not.toBeNull();
          expect(Number(m![1]) < 0 || Number(m![1]) >= 100).toBe(true);
          expect(all).toContain(Number(m![1]));
          out.free();
          continue;
        }
        // Every index inside: exact writes; then the array one element short: a trap at the largest index (or another outside).
        inside++;
        const out = be.dev.alloc('i32', hi + 1);
        await out.fill(-1);
        await be.launch(k.name, grid, block, [out, p, q]);
        const ref = new Int32Array(hi + 1).fill(-1);
        for (const i of written) ref[i] = i;
        const got = await out.read();
        const bad = ref.findIndex((v, i) => got[i] !== v);
        expect(bad, `${k.source} grid ${grid} block ${block} p ${p} q ${q}: element ${bad}`).toBe(-1);
        out.free();
        if (hi === 0) continue;
        const short = be.dev.alloc('i32', hi);
        const err = await be.launch(k.name, grid, block, [short, p, q]).then(() => undefined, (e: unknown) => e);
        expect(err, `${k.source} grid ${grid} block ${block} p ${p} q ${q}, length ${hi}`).toBeInstanceOf(KernelError);
        expect(String((err as Error).message)).toContain(`index ${hi} is out of bounds of 'out' (length ${hi})`);
        short.free();
      }
      if (inside > 0) kernelsInside.add(k.name);
    });

    it('most random kernels had launches with every index inside (the proven copy runs there)', () => {
      expect(kernelsInside.size).toBeGreaterThanOrEqual(KERNELS.length / 2);
    });

    it('wrapShift: the i32 product that wraps makes the proof fail, and the checked form traps at -32768', async () => {
      const out = be.dev.alloc('i32', 40_000);
      await out.fill(0);
      await be.launch('wrapShift', 1, 32, [out]);
      expect(Array.from((await out.read()).subarray(0, 33))).toEqual([...Array(32).fill(1), 0]);
      const err = await be.launch('wrapShift', 2, 32, [out]).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(KernelError);
      // block 1's threads write -32768 + tx: the first in the backend's thread order traps
      const m = /index (-\d+) is out of bounds of 'out' \(length 40000\)/.exec(String((err as Error).message));
      expect(Number(m?.[1])).toBeGreaterThanOrEqual(-32768);
      expect(Number(m?.[1])).toBeLessThan(-32768 + 32);
      out.free();
    });

    it('counterStepped: a counter also stepped in its body traps where it leaves the array', async () => {
      const out = be.dev.alloc('i32', 10);
      await out.fill(-1);
      await be.launch('counterStepped', 1, 1, [out, 10]);
      expect(Array.from(await out.read())).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // thread 3 writes j = 0, 4, 8, 12: 12 is outside
      const err = await be.launch('counterStepped', 1, 4, [out, 13]).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(KernelError);
      expect(String((err as Error).message)).toMatch(/index 1[0-2] is out of bounds of 'out' \(length 10\)/);
      out.free();
    });

    it('guards: an access after its guarded variable changes, or past the bound the guard allows, traps where it leaves the array', async () => {
      const out = be.dev.alloc('i32', 256);
      await out.fill(-1);
      await be.launch('guardBump', 4, 64, [out, 255]);
      expect((await out.read())[255]).toBe(255);
      const trap = async (kernel: string, args: unknown[], grid = 4, block = 64) => {
        const err = await be.launch(kernel, grid, block, [out, ...args]).then(() => undefined, (e: unknown) => e);
        expect(err, kernel).toBeInstanceOf(KernelError);
        return /index (-?\d+) is out of bounds of 'out' \(length 256\)/.exec(String((err as Error).message))?.[1];
      };
      expect(await trap('guardBump', [256])).toBe('256'); // thread 255 passes i < 256, then writes out[256]
      await be.launch('guardLoop', 4, 64, [out, 254, 2]);
      expect(await trap('guardLoop', [256, 3])).toMatch(/^25[6-7]$/);
      await be.launch('guardLess', 4, 64, [out, 256]);
      expect(Array.from(await out.read()).every((v, i) => v === i)).toBe(true);
      expect(await trap('guardLess', [257], 5, 64)).toBe('256');
      await be.launch('guardLow', 1, 64, [out, 0]);
      expect(await trap('guardLow', [-1], 1, 64)).toBe('-1');
      // from 2147483600 in steps of 100: the second wraps to a negative i that still passes
      // i < end, and i - start wraps back to 100, 200, 300 (outside)
      await be.launch('stepWrap', 1, 1, [out, 2147483000, 2147483200, 100]);
      expect(await trap('stepWrap', [2147483600, 2147483647, 100], 1, 1)).toBe('300');
      out.free();
    });

    it.each([[4, 64, 256, 0], [4, 64, 100, 30], [4, 64, 200, 64], [3, 100, 299, 1], [5, 7, 33, 8]])(
      'foldEdge / foldExit: grid %i × block %i, n %i, m %i: only the threads the guards pass write', async (grid, block, n, m) => {
        const len = grid * block;
        const out = be.dev.alloc('i32', len);
        for (const [kernel, args, pass] of [
          ['foldEdge', [n, m], (i: number) => i < n && i >= m],
          ['foldExit', [n], (i: number) => !(i >= n || i < 3)],
        ] as const) {
          await out.fill(-1);
          await be.launch(kernel, grid, block, [out, ...args]);
          expect(Array.from(await out.read()), kernel).toEqual(Array.from({ length: len }, (_, i) => (pass(i) ? i : -1)));
        }
        out.free();
      });

    it('lookup: bytes index a table of 256 (proven) and of 200 (checked: a byte of 200 or more traps)', async () => {
      const n = 1000;
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 255);
      const src = await be.dev.upload('u8', bytes), out = be.dev.alloc('i32', n);
      const lut = await be.dev.upload('i32', Int32Array.from({ length: 256 }, (_, i) => i * 3 - 7));
      await be.launch('lookup', 8, 128, [out, lut, src]);
      expect(Array.from(await out.read())).toEqual(Array.from(bytes, (b) => b * 3 - 7));
      const small = await be.dev.upload('i32', Int32Array.from({ length: 200 }, (_, i) => i));
      const err = await be.launch('lookup', 8, 128, [out, small, src]).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(KernelError);
      const m = /index (\d+) is out of bounds of 'lut' \(length 200\)/.exec(String((err as Error).message));
      expect(Number(m?.[1])).toBeGreaterThanOrEqual(200);
      src.free(); out.free(); lut.free(); small.free();
    });

    it('guardedRead: indices from memory below n are written; with n past the end of out, the one outside traps', async () => {
      for (const [kernel, dtype] of [['guardedRead', 'u32'], ['guardedReadSigned', 'i32'], ['guardedReadHalf', 'i32']] as const) {
        const n = 700, len = 500;
        const values = Array.from({ length: n }, (_, i) => (i * 7919) % 900 - (dtype === 'u32' || kernel === 'guardedReadHalf' ? 0 : 40));
        const idx = await be.dev.upload(dtype, dtype === 'u32' ? Uint32Array.from(values) : Int32Array.from(values));
        const out = await be.dev.upload('i32', new Int32Array(len).fill(-1));
        // n = len: every index the guards let through is inside out (the proven copy runs)
        await be.launch(kernel, 6, 128, [out, idx, len]);
        const want = new Int32Array(len).fill(-1);
        values.forEach((c, i) => { if (c >= 0 && c < len) want[c] = i; });
        expect(Array.from(await out.read()), kernel).toEqual(Array.from(want));
        // n past out's end: an index in [len, n) reaches out and traps (the checked form)
        const err = await be.launch(kernel, 6, 128, [out, idx, len + 100]).then(() => undefined, (e: unknown) => e);
        expect(err, kernel).toBeInstanceOf(KernelError);
        const m = /index (\d+) is out of bounds of 'out' \(length 500\)/.exec(String((err as Error).message));
        expect(Number(m?.[1]), kernel).toBeGreaterThanOrEqual(len);
        idx.free(); out.free();
      }
    });

    it('clamped chunks: every element of [0, n) is written; with n past the end of the arrays, the one outside traps', async () => {
      for (const kernel of ['clampedChunk', 'clampedWalk', 'unclampedChunk']) {
        for (const [grid, block, n] of [[3, 7, 500], [1, 1, 1], [4, 32, 0], [2, 5, 499], [5, 64, 37]] as const) {
          const src = await be.dev.upload('i32', Int32Array.from({ length: 500 }, (_, i) => i * 3 - 700));
          const out = await be.dev.upload('i32', new Int32Array(500).fill(-1));
          await be.launch(kernel, grid, block, [out, src, n]);
          const want = Array.from({ length: 500 }, (_, i) => (i < n ? (i * 3 - 700) * (kernel === 'clampedWalk' ? 1 : 2) + (kernel === 'clampedWalk' ? 1 : 0) : -1));
          expect(Array.from(await out.read()), `${kernel} ${grid}×${block} n=${n}`).toEqual(want);
          const err = await be.launch(kernel, grid, block, [out, src, 600]).then(() => undefined, (e: unknown) => e);
          expect(err, kernel).toBeInstanceOf(KernelError);
          const m = /index (\d+) is out of bounds of '(src|out)' \(length 500\)/.exec(String((err as Error).message));
          expect(Number(m?.[1]), kernel).toBeGreaterThanOrEqual(500);
          src.free(); out.free();
        }
      }
    });

    it('clampedGather: indices clamped into [0, n) read src; with n past its end, one outside traps', async () => {
      const len = 64, m = 300;
      const src = await be.dev.upload('i32', Int32Array.from({ length: len }, (_, i) => i * 5 + 1));
      const values = Array.from({ length: m }, (_, i) => ((i * 7919) % 200) - 60);
      const idx = await be.dev.upload('i32', Int32Array.from(values));
      const out = be.dev.alloc('i32', m);
      await be.launch('clampedGather', 3, 128, [out, src, idx, len]);
      expect(Array.from(await out.read())).toEqual(values.map((v) => Math.min(Math.max(v, 0), len - 1) * 5 + 1));
      const err = await be.launch('clampedGather', 3, 128, [out, src, idx, len + 50]).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(KernelError);
      expect(String((err as Error).message)).toMatch(/out of bounds of 'src' \(length 64\)/);
      src.free(); idx.free(); out.free();
    });

    it('gather: an index read from memory outside src traps in a block whose other accesses are proven', async () => {
      const n = 256;
      const src = await be.dev.upload('f32', Float32Array.from({ length: 64 }, (_, i) => i * 0.5));
      const idx = await be.dev.upload('i32', Int32Array.from({ length: n }, (_, i) => (i === 200 ? 64 : (i * 7) % 64)));
      const out = be.dev.alloc('f32', n);
      const err = await be.launch('gather', 4, 64, [out, src, idx]).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(KernelError);
      expect(String((err as Error).message)).toMatch(/index 64 is out of bounds of 'src' \(length 64\)/);
      const good = await be.dev.upload('i32', Int32Array.from({ length: n }, (_, i) => (i * 7) % 64));
      await be.launch('gather', 4, 64, [out, src, good]);
      expect(Array.from(await out.read())).toEqual(Array.from({ length: n }, (_, i) => ((i * 7) % 64) * 0.5));
      src.free(); idx.free(); good.free(); out.free();
    });
  });
}
