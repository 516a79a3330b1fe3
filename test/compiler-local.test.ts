// __local__ arrays (CUDA's per-thread local memory) in compiled kernels (test/kernels/local.ts):
// private per thread, alive across barriers, bounds-checked, on `wasm`, `serial` under several
// seeds and the fine-grained form the race tools run, against TS references; the launch
// limit they share with the context slots; what the compiler rejects.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { compileKernelFiles, compileKernels, KernelCompileError } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import type { Device } from '../src/device.js';
import { KernelError, LaunchConfigError } from '../src/errors.js';
import { defineJob, racecheck, replay } from '../src/race/index.js';
import { compiledBackends, onCompiledBackend, testDevice, rng } from './helpers.js';

const FILE = 'test/kernels/local.ts';
let mod: KernelModule;
beforeAll(async () => { mod = await compileKernelFiles([FILE]); });

const BACKENDS = compiledBackends([1, 7]);

const floats = (n: number, seed: number): Float32Array => { const r = rng(seed); return Float32Array.from({ length: n }, () => Math.round((r() * 200 - 100) * 4) / 4); };
const ints = (n: number, seed: number): Int32Array => { const r = rng(seed); return Int32Array.from({ length: n }, () => Math.floor(r() * 2001) - 1000); };

/** neighbourAdd's reference: per block of `threads`, each value plus its right neighbour's 4-value sum (wrapping). */
function neighbourAddRef(x: Float32Array, threads: number): { out: Float32Array; negatives: Uint16Array } {
  const nThreads = x.length / 4;
  const out = new Float32Array(x.length);
  const negatives = new Uint16Array(nThreads);
  const sum = (g: number): number => { let s = Math.fround(0); for (let k = 0; k < 4; k++) s = Math.fround(s + x[4 * g + k]!); return s; };
  for (let g = 0; g < nThreads; g++) {
    const b = Math.floor(g / threads), t = g % threads;
    const right = sum(b * threads + ((t + 1) % threads));
    for (let k = 0; k < 4; k++) out[4 * g + k] = Math.fround(x[4 * g + k]! + right);
    negatives[g] = [0, 1, 2, 3].filter((k) => x[4 * g + k]! < 0).length;
  }
  return { out, negatives };
}

for (const b of BACKENDS) {
  describe(`__local__ arrays on ${b.name}`, () => {
    const be = onCompiledBackend(b, () => mod);

    async function run(kernel: string, grid: number, block: number | { x: number; y: number }, args: unknown[], sharedBytes = 0): Promise<void> {
      await be.launch(kernel, grid, block, args, sharedBytes, true);
      // Private memory: never a race, whatever the threads do with it (the fine form detects; the others report nothing).
      expect(be.reports.filter((r) => r.kind === 'data-race' || r.kind === 'warp-sync-hazard')).toEqual([]);
    }

    it.each([[1, 1], [3, 32], [2, 100], [5, 64]])('sortEight: grid %i × block %i sorts each thread\'s 8 values', async (grid, block) => {
      const n = grid * block * 8 - (block > 1 ? 8 : 0); // the last thread has no values when block > 1
      const x = ints(Math.max(n, 1), grid * 31 + block);
      const input = await be.dev.upload('i32', x);
      const out = be.dev.alloc('i32', Math.max(n, 1));
      await out.fill(0);
      await run('sortEight', grid, block, [input, out, n]);
      const got = await out.read();
      for (let g = 0; g * 8 < n; g++) expect(Array.from(got.slice(8 * g, 8 * g + 8))).toEqual(Array.from(x.slice(8 * g, 8 * g + 8)).sort((p, q) => p - q));
      input.free(); out.free();
    });

    it.each([[1, 1], [3, 32], [2, 100]])('sortEightCalls: the local array passed to inlined device functions (grid %i × block %i)', async (grid, block) => {
      const n = grid * block * 8;
      const x = ints(n, grid * 7 + block);
      const input = await be.dev.upload('i32', x);
      const out = be.dev.alloc('i32', n);
      const sums = be.dev.alloc('i32', grid * block);
      await run('sortEightCalls', grid, block, [input, out, sums, n]);
      const got = await out.read(), s = await sums.read();
      for (let g = 0; g < grid * block; g++) {
        const mine = Array.from(x.slice(8 * g, 8 * g + 8));
        expect(Array.from(got.slice(8 * g, 8 * g + 8))).toEqual([...mine].sort((p, q) => p - q));
        expect(s[g]).toBe(mine.reduce((a, b) => a + b, 0));
      }
      input.free(); out.free(); sums.free();
    });

    it.each([[1, { x: 32, y: 1 }], [4, { x: 8, y: 4 }], [3, { x: 96, y: 1 }], [2, { x: 5, y: 3 }]])('neighbourAdd: values and a u16 count kept across two barriers (grid %i, block %o)', async (grid, block) => {
      const threads = block.x * block.y;
      const x = floats(4 * grid * threads, threads + grid);
      const ref = neighbourAddRef(x, threads);
      const input = await be.dev.upload('f32', x);
      const out = be.dev.alloc('f32', x.length);
      const neg = be.dev.alloc('u16', grid * threads);
      await run('neighbourAdd', grid, block, [input, out, neg], 4 * threads);
      expect(Array.from(await out.read())).toEqual(Array.from(ref.out));
      expect(Array.from(await neg.read())).toEqual(Array.from(ref.negatives));
      input.free(); out.free(); neg.free();
    });
  });
}

describe('__local__ arrays: bounds and limits', () => {
  let dev: Device;
  beforeAll(async () => { dev = await testDevice({ backend: 'wasm', workers: 2, memoryBytes: 64 << 20 }); await dev.load(mod); });

  it('an index past a local array traps with a KernelError naming the kernel, array, index and thread', async () => {
    const out = dev.alloc('i32', 64);
    const err = await dev.launch(mod.kernels.localPastEnd!, { grid: 2, block: 32 }, [out, 4]).catch((e) => e);
    expect(err).toBeInstanceOf(KernelError);
    expect(err.message).toMatch(/index 4 is out of bounds of 'a' \(length 4\)/);
    expect(err.message).toContain(`${FILE}:`);
    // In bounds the same kernel runs, and the device stays usable after the trap.
    await dev.launch(mod.kernels.localPastEnd!, { grid: 2, block: 32 }, [out, 3]);
    expect(Array.from(await out.read())).toEqual(new Array(64).fill(7));
    out.free();
  });

  it('a block whose local arrays do not fit beside its context slots is refused at launch, naming the most threads that fit', async () => {
    const out = dev.alloc('f64', 128);
    const slots = mod.meta.kernels.find((k) => k.name === 'bigLocal')!.slots;
    const fit = Math.floor((262144 - slots * 8192) / 4096);
    const err = await dev.launch(mod.kernels.bigLocal!, { grid: 1, block: fit + 1 }, [out]).catch((e) => e);
    expect(err).toBeInstanceOf(LaunchConfigError);
    expect(err.message).toContain(`needs 4096 bytes of __local__ arrays per thread`);
    expect(err.message).toContain(`launch at most ${fit} threads per block`);
    await dev.launch(mod.kernels.bigLocal!, { grid: 2, block: fit }, [out]);
    const got = await out.read();
    for (let g = 0; g < 2 * fit; g++) {
      const t = g % fit;
      let s = 0;
      for (let k = 0; k < 512; k += 100) s += k + t;
      expect(got[g]).toBe(s);
    }
    out.free();
  });

  it('the metadata states the bytes per thread; the WGSL form holds each local array as a private array', () => {
    const k = (name: string) => mod.meta.kernels.find((x) => x.name === name)!;
    expect(k('sortEight').localBytes).toBe(32);
    expect(k('neighbourAdd').localBytes).toBe(24); // 16 bytes of f32, then 6 of u16 at offset 16, rounded to 8
    expect(mod.meta.wgsl!.sortEight!.source).toMatch(/var<private> l_v: array<i32, 8>;/);
    expect(mod.meta.wgsl!.neighbourAdd!.source).toMatch(/var<private> l_neg: array<u32, 3>;/);
  });

  it('racecheck of a job on a local-array kernel: no report, and the job\'s outputs are right', async () => {
    const x = floats(4 * 64, 5);
    const job = defineJob({
      name: 'neighbourAddJob', module: mod,
      buffers: { input: { dtype: 'f32', data: x }, out: { dtype: 'f32', length: x.length }, negatives: { dtype: 'u16', length: 64 } },
      launches: [{ kernel: 'neighbourAdd', grid: 2, block: 32, sharedBytes: 128, args: ['input', 'out', 'negatives'] }],
      outputs: ['out', 'negatives'],
    });
    const r = await racecheck(job);
    expect(r.reports).toEqual([]);
    // A racechecked schedule replayed gives the reference's bytes.
    const run = await replay(job, r.schedules[0]!);
    const ref = neighbourAddRef(x, 32);
    expect(Array.from(run.outputs.out!)).toEqual(Array.from(ref.out));
    expect(Array.from(run.outputs.negatives!)).toEqual(Array.from(ref.negatives));
  });
});

describe('__local__ arrays: what the compiler rejects', () => {
  const header = 'import { threadIdx, atomicAdd, __local__ } from "simt/kernel";\n';
  const cases: [string, string, RegExp, number][] = [
    ['a size that is not a compile-time constant', 'export function k(out: i32[], n: i32): void { const a = __local__<i32>(n); a[0] = 1; out[0] = a[0]; }', /size of a __local__ array must be a positive compile-time constant/, 2],
    ['let instead of const', 'export function k(out: i32[]): void { let a = __local__<i32>(4); a[0] = 1; out[0] = a[0]; }', /'a': a __local__ array is declared with const/, 2],
    ['no element type', 'export function k(out: i32[]): void { const a = __local__(4); out[0] = 1; }', /__local__ needs an element type/, 2],
    ['an atomic on a local array', 'export function k(out: i32[]): void { const a = __local__<i32>(4); a[0] = 0; atomicAdd(a, 0, 1); out[0] = a[0]; }', /atomicAdd on 'a', a __local__ array: it is private to its thread/, 2],
    ['a local array in a device function', 'function f(): i32 { const a = __local__<i32>(4); a[0] = 1; return a[0]; }\nexport function k(out: i32[]): void { out[0] = f(); }', /declare __local__ arrays in the kernel/, 2],
    ['a device function given a local array, called inside an expression (it is inlined)', 'function f(a: i32[]): i32 { return a[0]; }\nexport function k(out: i32[]): void { const a = __local__<i32>(4); a[0] = 1; out[0] = f(a) + 1; }', /'f' is inlined into the kernel \(it holds barriers, warp operations or __shared__ memory, or is given a __local__ array\): call it as a statement of its own/, 3],
  ];
  it.each(cases)('%s', async (_what, body, re, line) => {
    const err = await compileKernels([{ path: 'bad.ts', source: header + body }], { cacheDir: false }).catch((e) => e);
    expect(err).toBeInstanceOf(KernelCompileError);
    expect(err.message).toMatch(new RegExp(`^bad\\.ts:${line}:\\d+: `));
    expect(err.message).toMatch(re);
  });
});

it('the test kernels file is what the module was built from', () => {
  expect(readFileSync(FILE, 'utf8')).toContain('__local__<u16>(3)');
});

describe('kernel parameters named like the pool entry\'s own variables', () => {
  // The pool's __blocks_ entry once looped with `k` over `first`/`count`: a kernel parameter
  // named k read the loop counter on the wasm pool (serial was right), and `first`/`count`
  // did not compile.
  it.each(['wasm', 'serial'] as const)('k, first and count reach the kernel on %s', async (backend) => {
    const mod2 = await compileKernels([{ path: 'names.ts', source: 'import { threadIdx } from "simt/kernel";\nexport function names(out: i32[], k: i32, first: i32, count: i32): void { out[threadIdx.x] = k * 100 + first * 10 + count; }' }], { cacheDir: false });
    const dev = await testDevice({ backend, workers: 2, memoryBytes: 16 << 20 });
    await dev.load(mod2);
    const out = await dev.upload('i32', [0, 0, 0]);
    await dev.launch(mod2.kernels.names!, { grid: 1, block: 3 }, [out, 9, 4, 2]);
    expect(Array.from(await out.read())).toEqual([942, 942, 942]);
  });
});

describe('one statement declaring a thread\'s value and a block-uniform one', () => {
  // `const t = threadIdx.x, n = blockDim.x;` before a barrier failed with "internal: uniform 'n'
  // assigned in a region": the compiler places each declarator by itself now.
  const source = `import { threadIdx, blockDim, __syncthreads, __shared__, __extern_shared__ } from "simt/kernel";
function rotate(v: i32): i32 {
  const s = __shared__<i32>(64);
  const t = threadIdx.x, n = blockDim.x;
  s[t] = v;
  __syncthreads();
  const r = s[(t + 1) % n];
  __syncthreads();
  return r;
}
export function rotKernel(a: i32[], out: i32[]): void {
  const s = __extern_shared__<i32>();
  const t = threadIdx.x, n = blockDim.x, two = 2;
  s[t] = a[t];
  __syncthreads();
  out[t] = s[(t + 1) % n] * two;
}
export function rotDevice(a: i32[], out: i32[]): void {
  const t = threadIdx.x, one = 1;
  const r = rotate(a[t]);
  out[t] = r * one;
}`;
  it.each(['wasm', 'serial'] as const)('in a kernel and in an inlined device function, on %s', async (backend) => {
    const m = await compileKernels([{ path: 'split.ts', source }], { cacheDir: false });
    const dev = await testDevice({ backend, workers: 2, memoryBytes: 16 << 20 });
    await dev.load(m);
    const x = ints(48, 3);
    const a = await dev.upload('i32', x);
    const out = dev.alloc('i32', 48);
    const rotated = Array.from(x, (_, t) => x[(t + 1) % 48]!);
    await dev.launch(m.kernels.rotKernel!, { grid: 1, block: 48, sharedBytes: 4 * 48 }, [a, out]);
    expect(Array.from(await out.read())).toEqual(rotated.map((v) => 2 * v));
    await dev.launch(m.kernels.rotDevice!, { grid: 1, block: 48 }, [a, out]);
    expect(Array.from(await out.read())).toEqual(rotated);
  });
});
