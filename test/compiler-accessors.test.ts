// Accessor device functions (a single `return expression;`) are written into the kernels that call
// them (src/compiler/inlineAccessors.ts), so the range proof covers their accesses: checked against
// a TypeScript reference on every compiled backend, and on the block form the compiler generates
// (which calls are written in, which stay calls and why).
import { beforeAll, describe, expect, it } from 'vitest';
import { compileKernels } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import { KernelError } from '../src/errors.js';
import { compiledBackends, onCompiledBackend, rng } from './helpers.js';

const FILE = 'test/kernels/accessors.ts';
const SOURCE = `import { threadIdx, blockIdx, blockDim } from "simt/kernel";
const STRIDE: i32 = 3;
/** record i's second word (records of STRIDE words) */
function fieldB(data: u32[], i: i32): u32 {
  return data[STRIDE * i + 1];
}
/** the sum of record i's first and last words: reads its index twice */
function ends(data: u32[], i: i32): u32 {
  return data[STRIDE * i] + data[STRIDE * i + 2];
}
/** an accessor calling another */
function fieldBTwice(data: u32[], i: i32): u32 {
  return fieldB(data, i) * 2;
}
/** not an accessor: two statements */
function lastWord(data: u32[], i: i32): u32 {
  const at = STRIDE * i + 2;
  return data[at];
}
/** reads v only when flag is set */
function pick(flag: i32, v: u32): u32 {
  return flag != 0 ? v : 0;
}
export function readB(out: u32[], data: u32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fieldB(data, i) + fieldBTwice(data, i);
}
export function readEnds(out: u32[], data: u32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ends(data, i) + lastWord(data, i);
}
// An argument read from memory, used twice by ends: the call stays a call (one read, as written).
export function readEndsAt(out: u32[], data: u32[], idx: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ends(data, idx[i]) + fieldB(data, idx[i]);
}
// pick reads its value conditionally: a read of memory there stays a call (the call read it
// always, and would trap where the copy would not); a plain value is written in.
export function conditionalArg(out: u32[], data: u32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = pick(i & 1, data[3 * i]) + pick(i & 2, <u32>i);
}
// An argument of another type than its parameter's (a u32 where fieldB takes an i32, an f32
// array where it takes a u32 one): the call stays a call, so the compiler judges it as written.
export function otherTypes(out: u32[], data: u32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fieldB(data, <u32>i + 0) + fieldB(data, 0);
}
// The kernel's own STRIDE would change what fieldB's expression means: the call stays a call.
export function shadowed(out: u32[], data: u32[], n: i32): void {
  const STRIDE = 1;
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fieldB(data, i) + <u32>STRIDE;
}
`;

let mod: KernelModule;
let block = '';
beforeAll(async () => {
  mod = await compileKernels([{ path: FILE, source: SOURCE }], { cacheDir: false, onGenerated: (g) => { block = g.block; } });
}, 120_000);

const fnText = (name: string): string => {
  const a = block.search(new RegExp(`function ${name}\\(`));
  return a < 0 ? '' : block.slice(a, block.indexOf('\n}', a));
};
const lineOf = (text: string): number => SOURCE.split('\n').findIndex((l) => l.includes(text)) + 1;

describe('accessor device functions in the generated block form', () => {
  it('a call with plain arguments is written into the kernel, and the proof covers its accesses', () => {
    expect(fnText('__readB_r0')).not.toMatch(/fieldB\(/);
    expect(fnText('__readB_r0')).not.toMatch(/fieldBTwice\(/);
    expect(fnText('__readB_u_r0')).toMatch(/__ldu<u32>\(__p_data/);
    expect(fnText('__readB_u_r0')).not.toMatch(/__ld<u32>\(__p_data/);
    expect(fnText('__readEnds_u_r0')).toMatch(/__ldu<u32>\(__p_data/);
  });

  it('two statements, an argument read twice, a name the kernel shadows: the call stays a call', () => {
    expect(fnText('__readEnds_r0')).toMatch(/lastWord\(/);
    expect(fnText('__readEndsAt_r0')).toMatch(/ends\(/);
    // fieldB reads its index once: written in, with the read of idx[i] in its place
    expect(fnText('__readEndsAt_r0')).not.toMatch(/fieldB\(/);
    expect(fnText('__shadowed_r0')).toMatch(/fieldB\(/);
    // <u32>i + 0 is a u32, fieldB takes an i32: stays a call; the literal 0 is written in
    expect(fnText('__otherTypes_r0').match(/fieldB\(/g)).toHaveLength(1);
    expect(fnText('__conditionalArg_r0').match(/pick\(/g)).toHaveLength(1);
    expect(fnText('__conditionalArg_r0')).toMatch(/pick\(i & 1, __ld<u32>\(__p_data/);
  });
});

function records(m: number, seed: number): Uint32Array {
  const r = rng(seed);
  return Uint32Array.from({ length: 3 * m }, () => Math.floor(r() * 2 ** 20));
}

for (const b of compiledBackends([1, 7])) {
  describe(`accessors on ${b.name}: against the reference`, () => {
    const be = onCompiledBackend(b, () => mod);

    it.each([0, 1, 5, 64, 257, 1000])('n = %i: readB, readEnds, readEndsAt and shadowed equal the reference', async (n) => {
      const m = Math.max(n, 1);
      const rec = records(m, n + 3);
      const idx = Int32Array.from({ length: m }, (_, i) => (i * 7919) % m);
      const data = await be.dev.upload('u32', rec);
      const ix = await be.dev.upload('i32', idx);
      const out = be.dev.alloc('u32', m);
      const grid = Math.max(1, Math.ceil(n / 64));
      const ref = (f: (i: number) => number) => Array.from({ length: m }, (_, i) => (i < n ? f(i) >>> 0 : 0));
      const B = (i: number) => rec[3 * i + 1]!, E = (i: number) => rec[3 * i]! + rec[3 * i + 2]!;
      for (const [kernel, args, want] of [
        ['readB', [out, data, n], ref((i) => B(i) + 2 * B(i))],
        ['readEnds', [out, data, n], ref((i) => E(i) + rec[3 * i + 2]!)],
        ['readEndsAt', [out, data, ix, n], ref((i) => E(idx[i]!) + B(idx[i]!))],
        ['shadowed', [out, data, n], ref((i) => B(i) + 1)],
        ['conditionalArg', [out, data, n], ref((i) => ((i & 1) !== 0 ? rec[3 * i]! : 0) + ((i & 2) !== 0 ? i : 0))],
        ['otherTypes', [out, data, n], ref((i) => B(i) + B(0))],
      ] as const) {
        await out.fill(0);
        await be.launch(kernel, grid, 64, [...args]);
        expect(Array.from(await out.read()), kernel).toEqual(want);
      }
      data.free(); ix.free(); out.free();
    });

    it('an index past the records traps, named at the accessor\'s line and the kernel\'s argument', async () => {
      const data = await be.dev.upload('u32', records(10, 1));
      const out = be.dev.alloc('u32', 20);
      const err = await be.launch('readB', 1, 32, [out, data, 20]).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(KernelError);
      const msg = String((err as Error).message);
      // (which thread traps first depends on the schedule: any index of records 10..19)
      const m = /index (\d+) is out of bounds of 'data' \(length 30\)/.exec(msg);
      expect(Number(m?.[1])).toBeGreaterThanOrEqual(30);
      expect(msg).toContain(`${FILE}:${lineOf('return data[STRIDE * i + 1]')}:`);
      data.free(); out.free();
    });
  });
}
