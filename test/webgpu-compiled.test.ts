/**
 * Kernels compiled from per-thread sources run on webgpu as the WGSL the compiler generates
 * (src/compiler/wgsl.ts), cross-checked launch by launch against wasm: every kernel of
 * examples/kernels/ and every WGSL-expressible kernel of test/kernels/language.ts, every array
 * argument compared after the launch (exact: integer-valued or order-free data). Out-of-bounds
 * indices and divergent barriers are the same KernelError on both; constructs without a WGSL
 * form are diagnostics with file and line, and the kernel still runs on wasm.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createDevice, type Device } from '../src/device.js';
import { WebGpuDevice, createWebGpuDevice } from '../src/webgpu/device.js';
import { probeSubgroupWarps } from '../src/webgpu/subgroupProbe.js';
import { compileKernelFiles, compileKernels } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import type { DType } from '../src/dtypes.js';
import { KernelError, KernelTimeoutError, LaunchConfigError } from '../src/errors.js';
import { halvingTreesRef, rng, withWasmAndWebGpu } from './helpers.js';
import { INC_CASES, incSequence } from './cuda-model.js';
import { crossCheck, type Job } from '../src/crosscheck/index.js';
import type { GpuDevice } from '../src/deviceApi.js';
import type { Kernel } from '../src/kernel.js';

let gpu: WebGpuDevice;
let wasm: Device;
let examples: KernelModule;
let language: KernelModule;
withWasmAndWebGpu(async () => {
  examples = await compileKernelFiles([...['histogram', 'transpose', 'shuffleSum'].map((k) => `examples/kernels/${k}.ts`), 'kernels/reduce/vecMax.ts', 'kernels/pixel/countModules.ts']);
  language = await compileKernelFiles(['test/kernels/language.ts']);
  wasm = await createDevice({ backend: 'wasm', workers: 2, memoryBytes: 128 << 20, modules: [examples, language] });
  gpu = await createDevice({ backend: 'webgpu', memoryBytes: 128 << 20, modules: [examples] });
  await gpu.load(language);
}, () => [gpu, wasm]);

type Dim = number | { x: number; y?: number; z?: number };
/** An array argument (uploaded on both devices) or a scalar. */
type Arg = { dtype: DType; data: ArrayLike<number> } | number;

/** Runs one launch on both devices with the same arguments; returns every array argument afterwards. */
async function both(mod: () => KernelModule, kernel: string, grid: Dim, block: Dim, args: Arg[], sharedBytes = 0) {
  const out: Record<'wasm' | 'webgpu', ArrayLike<number>[]> = { wasm: [], webgpu: [] };
  for (const [name, dev] of [['wasm', wasm], ['webgpu', gpu]] as const) {
    const values = await Promise.all(args.map((a) => (typeof a === 'number' ? a : dev.upload(a.dtype, a.data as never))));
    await dev.launch(mod().kernels[kernel]!, { grid, block, sharedBytes }, values as never);
    for (const v of values) if (typeof v !== 'number') { out[name].push(await v.read() as ArrayLike<number>); v.free(); }
  }
  return out;
}

async function same(mod: () => KernelModule, kernel: string, grid: Dim, block: Dim, args: Arg[], sharedBytes = 0) {
  const r = await both(mod, kernel, grid, block, args, sharedBytes);
  r.wasm.forEach((w, k) => expect(Array.from(r.webgpu[k]!), `${kernel}: array argument ${k}`).toEqual(Array.from(w)));
  return r;
}

/** A kernel file compiled once for a describe block and loaded on both devices: the module, once the block's tests run. */
function loadedOnBoth(file: string): () => KernelModule {
  let mod: KernelModule | undefined;
  beforeAll(async () => {
    mod = await compileKernelFiles([file]);
    await wasm.load(mod);
    await gpu.load(mod);
  });
  return () => mod!;
}

const ints = (n: number, seed: number, lo = -50, hi = 50): Int32Array => { const r = rng(seed); return Int32Array.from({ length: n }, () => lo + Math.floor(r() * (hi - lo + 1))); };

/**
 * The KernelError messages of one trapping launch on wasm and on webgpu: `a` (an i32 array of
 * `data`) and `out` (length `outLength`) uploaded to each, the kernel launched with them and the
 * scalars; both must reject with a KernelError.
 */
async function trapMessages(kernel: () => Kernel, grid: Dim, block: Dim, data: Int32Array, outLength: number, scalars: number[]): Promise<[string, string]> {
  const messages: string[] = [];
  for (const dev of [wasm, gpu]) {
    const a = await dev.upload('i32', data);
    const o = dev.alloc('i32', outLength);
    const p = dev.launch(kernel(), { grid, block }, [a, o, ...scalars] as never);
    await expect(p).rejects.toThrow(KernelError);
    messages.push(await p.catch((e: Error) => e.message) as string);
    a.free(); o.free();
  }
  return messages as [string, string];
}
const ex = () => examples;
const lang = () => language;

describe('examples/kernels on webgpu, against wasm', () => {
  for (const n of [0, 1, 255, 100_003]) {
    it(`histogram256 over ${n} bytes (u8 input packed four per word, shared-memory atomics)`, async () => {
      const r = rng(n + 1);
      const data = Uint8Array.from({ length: Math.max(n, 1) }, () => Math.floor(r() * 256));
      const res = await same(ex, 'histogram256', 13, 96, [{ dtype: 'u8', data }, n, { dtype: 'u32', data: new Uint32Array(256) }]);
      expect(Array.from(res.webgpu[1]!).reduce((x, y) => x + y, 0)).toBe(n);
    });

    it(`shuffleSum and vecMax over ${n} floats (warp shuffles, dynamic shared memory)`, async () => {
      const r = rng(n + 2);
      const a = Float32Array.from({ length: Math.max(n, 1) }, () => Math.round((r() - 0.5) * 2000));
      // Integer-valued floats: every partial sum is exact, so any order of atomics gives the same total.
      const s = await same(ex, 'shuffleSum', 7, 128, [{ dtype: 'f32', data: a }, { dtype: 'f32', data: [0] }, n]);
      expect(s.webgpu[1]![0]).toBe(a.subarray(0, n).reduce((x, y) => x + y, 0));
      await same(ex, 'vecMax', 5, 256, [{ dtype: 'f32', data: a }, { dtype: 'f32', data: new Float32Array(5) }, n], 4 * 256);
    });
  }

  for (const [w, h] of [[1, 1], [33, 17], [100, 37]] as const) {
    it(`transpose ${w}×${h} (2-D grid and blocks)`, async () => {
      const m = Float32Array.from({ length: w * h }, (_, i) => i * 0.5);
      const r = await same(ex, 'transpose', { x: Math.ceil(w / 32), y: Math.ceil(h / 32) }, { x: 32, y: 8 }, [{ dtype: 'f32', data: new Float32Array(w * h) }, { dtype: 'f32', data: m }, w, h]);
      expect(r.webgpu[0]![w * h - 1]).toBe(m[w * h - 1]);
    });
  }

  for (const n of [1, 1000, 54_321]) {
    it(`countModules over ${n} digis (u16 input, atomicInc): equal counts, the same slots as a set`, async () => {
      const r = rng(n);
      const ids = new Uint16Array(n);
      let m = 0;
      for (let i = 0; i < n; i++) { if (r() < 0.02) m++; ids[i] = r() < 0.02 ? 65534 : m; }
      const res = await both(ex, 'countModules', 9, 64, [{ dtype: 'u16', data: ids }, { dtype: 'u32', data: new Uint32Array(2000) }, { dtype: 'i32', data: new Int32Array(n) }, n, 1999]);
      const [ws, gs] = [res.wasm[1]!, res.webgpu[1]!];
      expect(gs[0]).toBe(ws[0]);
      const slots = (s: ArrayLike<number>) => Array.from(s).slice(1, 1 + s[0]!).sort((x, y) => x - y);
      expect(slots(gs)).toEqual(slots(ws));
      expect(Array.from(res.webgpu[2]!)).toEqual(Array.from(res.wasm[2]!));
    });
  }
});

describe('test/kernels/language.ts on webgpu, against wasm', () => {
  for (const [n, block] of [[1, 1], [100, 64], [777, 96]] as const) {
    it(`reverseBlock n=${n} block=${block}`, async () => {
      await same(lang, 'reverseBlock', Math.ceil(n / block), block, [{ dtype: 'i32', data: ints(n, n) }, { dtype: 'i32', data: new Int32Array(n).fill(-7) }, n], 4 * block);
    });
  }

  it('blockScan (a barrier in a uniform loop, a value live across barriers)', async () => {
    await same(lang, 'blockScan', 4, 256, [{ dtype: 'i32', data: ints(1000, 3) }, { dtype: 'i32', data: new Int32Array(1000) }, 1000]);
  });

  it('earlyExit (threads return before a barrier) and uniformIf', async () => {
    await same(lang, 'earlyExit', 2, 64, [{ dtype: 'i32', data: ints(100, 4, 0, 9) }, { dtype: 'i32', data: new Int32Array(100) }, 100]);
    await same(lang, 'uniformIf', 8, 128, [{ dtype: 'i32', data: ints(1000, 5) }, { dtype: 'i32', data: new Int32Array(1000) }, 1000]);
  });

  it('dims3: 2-D grids and 3-D blocks', async () => {
    await same(lang, 'dims3', { x: 2, y: 2 }, { x: 4, y: 4, z: 2 }, [{ dtype: 'i32', data: new Int32Array(4 * 32) }]);
  });

  it('block predicates: __syncthreads_count/_or/_and', async () => {
    const a = ints(4 * 64, 6, -3, 30);
    a.fill(1, 64, 128); a.fill(-1, 128, 192);
    await same(lang, 'predicates', 4, 64, [{ dtype: 'i32', data: a }, { dtype: 'i32', data: new Int32Array(12) }]);
  });

  for (const [delta, width] of [[3, 32], [1, 8], [5, 16]] as const) {
    it(`warp shuffles (idx, up, down, xor) delta=${delta} width=${width}, with a partial warp`, async () => {
      for (let op = 0; op < 4; op++) {
        await same(lang, 'shuffles', 2, 80, [{ dtype: 'i32', data: ints(160, op + delta) }, { dtype: 'i32', data: new Int32Array(160) }, op, delta, width]);
      }
    });
  }

  for (const mask of [0xffffffff, 0x0f0f00ff]) {
    it(`warp votes with mask ${mask.toString(16)} (and __activemask in a partial warp)`, async () => {
      await same(lang, 'votes', 2, 80, [{ dtype: 'i32', data: ints(160, 7) }, { dtype: 'u32', data: new Uint32Array(640) }, mask]);
    });
  }

  for (const [n, grid, block] of [[1, 1, 32], [200, 2, 64], [1000, 3, 256], [700, 3, 96]] as const) {
    it(`warpUniformIf: warp operations under conditions the same per warp (block reduce), n=${n} grid=${grid} block=${block}`, async () => {
      await same(lang, 'warpUniformIf', grid, block, [{ dtype: 'i32', data: ints(n, n + 3) }, { dtype: 'i32', data: new Int32Array(grid * block) }, n]);
    });
  }

  it('warpDivergentIf: a condition around a warp operation that differs inside a warp is the KernelError wasm throws', async () => {
    const messages: string[] = [];
    for (const dev of [wasm, gpu] as GpuDevice[]) {
      const o = dev.alloc('i32', 64);
      const p = dev.launch(language.kernels.warpDivergentIf!, { grid: 1, block: 64 }, [o] as never);
      await expect(p).rejects.toThrow(KernelError);
      messages.push(await p.catch((e: Error) => e.message) as string);
      o.free();
    }
    expect(messages[1]).toBe(messages[0]);
    expect(messages[1]).toMatch(/divergent warp operation: the condition of an if with warp operations at test\/kernels\/language\.ts:\d+:\d+ differs between the lanes of warp 0 \(first seen in thread \(5, 0, 0\)\)/);
  });

  it('atomics on global and shared arrays (add, max, min, inc with wrap, CAS, exch)', async () => {
    const r = await same(lang, 'atomics', 6, 64, [{ dtype: 'i32', data: ints(384, 8, -1000, 1000) }, { dtype: 'i32', data: [0, -2147483648, 2147483647, 0, 0] }, { dtype: 'u32', data: [0] }, 100]);
    expect(r.webgpu[1]![4]).toBe(7);
  });

  for (const c of INC_CASES) {
    it(`atomicInc on one global counter from ${c.start} with bound ${c.limit}${c.store ? ' (stored in the kernel)' : ''}: the ticket form where the guard allows it, CUDA's values`, async () => {
      const n = c.grid * c.block;
      const r = await both(lang, 'incTickets', c.grid, c.block, [{ dtype: 'u32', data: [c.store ? 0 : c.start] }, { dtype: 'u32', data: new Uint32Array(n) }, c.limit, c.start, c.store]);
      const ref = incSequence(c.start, c.limit, n);
      for (const dev of ['wasm', 'webgpu'] as const) {
        expect(Array.from(r[dev][1]!).sort((x, y) => x - y), dev).toEqual([...ref.got].sort((x, y) => x - y));
        expect(r[dev][0]![0], dev).toBe(ref.final);
      }
    });
  }

  it('a global atomicInc counter gets the guarded ticket form; a counter with another atomic on it, or a bound that is not launch-uniform, does not', async () => {
    const w = language.meta.wgsl!['incTickets']!;
    expect(w.guardEntryPoint).toBe('sx_guard');
    expect(w.source).toMatch(/fn sx_guard\(\)/);
    expect(w.source).toMatch(/cudaAtomicIncFromBelow\(&a_counters\[i\], v\)/);
    expect(language.meta.wgsl!['atomics']!.source).toMatch(/cudaAtomicIncFromBelow\(&a_counters\[i\], v\)/);
    const m = await compileKernels([{ path: 'inc.ts', source: [
      'import { threadIdx, blockDim, atomicInc, atomicAdd } from "simt/kernel";',
      'export function mixed(c: u32[], limit: u32): void { atomicInc(c, 0, limit); atomicAdd(c, 0, 1); }',
      'export function twoIndices(c: u32[], limit: u32): void { atomicInc(c, threadIdx.x & 1, limit); }',
      'export function threadBound(c: u32[]): void { atomicInc(c, 0, <u32>threadIdx.x); }',
      'export function blockBound(c: u32[]): void { atomicInc(c, 0, <u32>blockDim.x); }', ''].join('\n') }], { cacheDir: false });
    for (const k of ['mixed', 'twoIndices', 'threadBound', 'blockBound']) {
      expect(m.meta.wgsl![k]!.guardEntryPoint, k).toBeUndefined();
      expect(m.meta.wgsl![k]!.source, k).not.toMatch(/cudaAtomicIncFromBelow|sx_guard/);
    }
  });

  it('a shared array indexed by threadIdx.x is checked against BLOCK_X (folded per pipeline); a block the array does not fit traps as on wasm', async () => {
    const src = language.meta.wgsl!['reverseBlock']!.source!;
    // The launch proof covers the store too (`_p`: checked only where the launch is not proven, src/launchProof.ts).
    expect(src).toMatch(/fn sx_st_w_s_tx_p\(i: u32[^\n]*\n  let n = sx_dyn_len;\n  let bad = !sx_proven && BLOCK_X > n && i >= n;/);
    expect(src).toMatch(/sx_st_w_s_tx_p\(u32\(u_t\)/);
    await same(lang, 'reverseBlock', 2, 64, [{ dtype: 'i32', data: ints(128, 21) }, { dtype: 'i32', data: new Int32Array(128) }, 128], 4 * 64);
    const messages: string[] = [];
    for (const dev of [wasm, gpu]) {
      const a = await dev.upload('i32', ints(64, 1)); const o = dev.alloc('i32', 64);
      const p = dev.launch(language.kernels.reverseBlock!, { grid: 1, block: 64, sharedBytes: 4 * 63 }, [a, o, 64] as never);
      await expect(p).rejects.toThrow(KernelError);
      messages.push(await p.catch((e: Error) => e.message) as string);
      a.free(); o.free();
    }
    // Thread 63 writes s[63] and thread 0 reads it: either is the launch's first trap.
    for (const m of messages) expect(m).toMatch(/^kernel reverseBlock trapped in block \(0, 0, 0\): index 63 is out of bounds of 's' \(length 63\) in thread \((63|0), 0, 0\) at test\/kernels\/language\.ts:\d+:\d+$/);
  });

  it('axpy through a device function (arrays bound per call site)', async () => {
    const n = 1000;
    await same(lang, 'axpy', 3, 64, [2, { dtype: 'f32', data: Float32Array.from(ints(n, 9)) }, { dtype: 'f32', data: Float32Array.from(ints(n, 10)) }, n]);
  });

  describe('launches in flight share a command buffer (runtime batches)', () => {
    /** Counts queue.submit calls on the webgpu device while `f` runs. */
    async function submitsDuring(f: () => Promise<void>): Promise<number> {
      const queue = (gpu as WebGpuDevice).context.device.queue;
      const submit = queue.submit;
      let n = 0;
      queue.submit = function (this: GPUQueue, ...a: Parameters<GPUQueue['submit']>) { n++; return submit.apply(this, a); };
      try { await f(); } finally { queue.submit = submit; }
      return n;
    }
    const n = 1000;
    const x = Float32Array.from({ length: n }, (_, i) => (i % 13) - 6);

    it('a burst of launches with the same arguments: one submit, every launch applied', async () => {
      const X = await gpu.upload('f32', x); const Y = await gpu.upload('f32', new Float32Array(n));
      const launches = 30;
      const submits = await submitsDuring(async () => {
        await Promise.all(Array.from({ length: launches }, () => gpu.launch(language.kernels.axpy!, { grid: 2, block: 64 }, [1, X, Y, n] as never)));
      });
      expect(submits).toBe(1);
      expect(Array.from(await Y.read())).toEqual(Array.from(x, (v) => v * launches));
      X.free(); Y.free();
    });

    it('a burst of proven launches that cannot trap (no trap record read back): one submit, one wait for the GPU', async () => {
      const k = language.kernels.gridStrideCopy!;
      expect(language.meta.wgsl!['gridStrideCopy']!.trapFreeWhenProven).toBe(true);
      const a = Int32Array.from({ length: n }, (_, i) => i * 7 - 3);
      const A = await gpu.upload('i32', a); const B = await gpu.upload('i32', new Int32Array(n));
      const queue = (gpu as WebGpuDevice).context.device.queue;
      const done = queue.onSubmittedWorkDone;
      let waits = 0;
      queue.onSubmittedWorkDone = function (this: GPUQueue) { waits++; return done.apply(this); };
      try {
        const submits = await submitsDuring(async () => {
          const stats = await Promise.all(Array.from({ length: 30 }, () => gpu.launch(k, { grid: 3, block: 64 }, [A, B, n] as never)));
          for (const s of stats) expect(s.proven).toBe(true);
        });
        expect(submits).toBe(1);
        expect(waits).toBe(1);
      } finally {
        queue.onSubmittedWorkDone = done;
      }
      expect(Array.from(await B.read())).toEqual(Array.from(a, (v) => 2 * v + 1));
      A.free(); B.free();
    });

    it('a burst whose scalars change: each launch reads its own uniform words (a rewrite submits the launches before it)', async () => {
      const X = await gpu.upload('f32', x); const Y = await gpu.upload('f32', new Float32Array(n));
      const alphas = [1, 2, 3, 4, 5, 6, 7, 8];
      await Promise.all(alphas.map((alpha) => gpu.launch(language.kernels.axpy!, { grid: 2, block: 64 }, [alpha, X, Y, n] as never)));
      expect(Array.from(await Y.read())).toEqual(Array.from(x, (v) => v * 36));
      X.free(); Y.free();
    });

    it('launches, uploads and reads in flight keep stream order', async () => {
      const X = await gpu.upload('f32', x); const Y = await gpu.upload('f32', new Float32Array(n));
      const k = language.kernels.axpy!;
      const ops = [gpu.launch(k, { grid: 2, block: 64 }, [1, X, Y, n] as never), gpu.launch(k, { grid: 2, block: 64 }, [1, X, Y, n] as never),
        X.upload(Float32Array.from(x, (v) => 10 * v)), gpu.launch(k, { grid: 2, block: 64 }, [1, X, Y, n] as never)];
      const mid = Y.read();
      ops.push(gpu.launch(k, { grid: 2, block: 64 }, [1, X, Y, n] as never));
      await Promise.all(ops);
      expect(Array.from(await mid)).toEqual(Array.from(x, (v) => 12 * v));
      expect(Array.from(await Y.read())).toEqual(Array.from(x, (v) => 22 * v));
      X.free(); Y.free();
    });

    it('a launch that traps in the middle of a burst fails alone; the launches around it run', async () => {
      const X = await gpu.upload('f32', x); const Y = await gpu.upload('f32', new Float32Array(n));
      const k = language.kernels.axpy!;
      const results = await Promise.allSettled([1, 2, 3].map((alpha) => gpu.launch(k, { grid: 2, block: 64 }, [alpha, X, Y, alpha === 2 ? n + 1 : n] as never)));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(KernelError);
      expect((results[1] as PromiseRejectedResult).reason.message).toMatch(/index 1000 is out of bounds of 'x' \(length 1000\)/);
      // The trapping launch wrote every in-bounds element before the trap; CUDA leaves the same.
      expect(Array.from(await Y.read())).toEqual(Array.from(x, (v) => 6 * v));
      X.free(); Y.free();
    });

    it('an array freed right after the launches that read it: they run (cudaFree waits for the work queued before it), and its bytes are free at once', async () => {
      const X = await gpu.upload('f32', x); const Y = await gpu.upload('f32', new Float32Array(n));
      const k = language.kernels.axpy!;
      const used = gpu.memoryInfo().usedBytes;
      const launches = [gpu.launch(k, { grid: 2, block: 64 }, [2, X, Y, n] as never), gpu.launch(k, { grid: 2, block: 64 }, [1, X, Y, n] as never)];
      X.free();
      expect(gpu.memoryInfo().usedBytes).toBe(used - 4 * n);
      const X2 = await gpu.upload('f32', x);
      launches.push(gpu.launch(k, { grid: 2, block: 64 }, [4, X2, Y, n] as never));
      await Promise.all(launches);
      expect(Array.from(await Y.read())).toEqual(Array.from(x, (v) => 7 * v));
      expect(() => X.free()).toThrow(/freed/);
      X2.free(); Y.free();
    });

    it('150 launches in flight (three batches, two readback buffers) with every 7th trapping: each record goes to its own launch', async () => {
      // The trapping launches bind an x one element short: other buffers, the same uniform words.
      const X = await gpu.upload('f32', x); const Xshort = await gpu.upload('f32', x.subarray(0, n - 1)); const Y = await gpu.upload('f32', new Float32Array(n));
      const k = language.kernels.axpy!;
      const bad = (j: number) => j % 7 === 3;
      const submits = await submitsDuring(async () => {
        const results = await Promise.allSettled(Array.from({ length: 150 }, (_, j) => gpu.launch(k, { grid: 2, block: 64 }, [1, bad(j) ? Xshort : X, Y, n] as never)));
        expect(results.map((r) => r.status)).toEqual(Array.from({ length: 150 }, (_, j) => (bad(j) ? 'rejected' : 'fulfilled')));
        for (const r of results) if (r.status === 'rejected') expect(r.reason.message).toMatch(/index 999 is out of bounds of 'x' \(length 999\) in thread \(39, 0, 0\)/);
      });
      expect(submits).toBe(3);
      // Every launch added x below the short array's end (the trapping thread's own element is left out).
      expect(Array.from((await Y.read()).subarray(0, n - 1))).toEqual(Array.from(x.subarray(0, n - 1), (v) => 150 * v));
      Xshort.free();
      X.free(); Y.free();
    });
  });

  it('perThreadUniformLoop: a block-level loop whose condition is checked at run time', async () => {
    await same(lang, 'perThreadUniformLoop', 2, 64, [{ dtype: 'i32', data: new Int32Array(128) }, 3]);
  });

  it('a conditional f32 min/max assignment is a select in WGSL (one read per operand, no branch); a storage target keeps its if', async () => {
    const w = language.meta.wgsl!['floatMinMax']!.source!;
    // `if (a[i] > hi) hi = a[i];` and the shared tree's `if (t < s && c[t + s] > c[t]) c[t] = c[t + s];`
    expect(w).toMatch(/let (sx_t\d+) = u_hi;\s*let (sx_t\d+) = a_a\[[^\]]*\];\s*u_hi = select\(\1, \2, \1 < \2\);/);
    expect(w).toMatch(/if \(\(u_t < u_s\)\) \{\s*let (sx_t\d+) = w_c\[[^;]*;\s*let (sx_t\d+) = w_c\[[^;]*;\s*sx_st_w_c(?:_tx)?(?:_p)?\([^;]*select\(\1, \2, \1 < \2\)\);/);
    // A storage element is stored only when the condition holds (another workgroup may write it).
    const m = await compileKernels([{ path: 'maxInto.ts', source: 'import { threadIdx } from "simt/kernel";\nexport function maxInto(a: f32[], out: f32[]): void { const t = threadIdx.x; if (a[t] > out[t]) out[t] = a[t]; }\n' }], { cacheDir: false });
    const st = m.meta.wgsl!['maxInto']!.source!;
    expect(st).toMatch(/if \(\(a_a\[[^\n]*> a_out\[/);
    expect(st).not.toMatch(/select\(sx_t\d+/);
  });

  it('floatMinMax: comparisons with NaN and signed zeros as written', async () => {
    const r = rng(12);
    const a = Float32Array.from({ length: 3000 }, () => (r() - 0.5) * 100);
    a[5] = NaN; a[77] = -0; a[78] = 0; a[1000] = -Infinity; a[2000] = Infinity;
    await same(lang, 'floatMinMax', 3, 64, [{ dtype: 'f32', data: a }, { dtype: 'f32', data: new Float32Array(3 * 64 * 7) }, 3000]);
  });

  it('gridStrideCopy (for and while grid-stride loops)', async () => {
    await same(lang, 'gridStrideCopy', 3, 64, [{ dtype: 'i32', data: ints(1000, 13) }, { dtype: 'i32', data: new Int32Array(1000) }, 1000]);
  });
});

describe('8- and 16-bit values on webgpu', () => {
  const source = `import { threadIdx, blockIdx, blockDim } from "simt/kernel";
export function narrow(src: i32[], b: u8[], s: i8[], h: u16[], k: i16[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    let x: u8 = <u8>src[i];
    x += 200;
    b[i] = x;
    s[i] = <i8>(src[i] * 3);
    h[i] = <u16>(src[i] * 1000);
    k[i] = <i16>(src[i] * -700);
    s[i] += 1;
  }
}
export function widen(b: u8[], s: i8[], h: u16[], k: i16[], out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = <i32>b[i] * 1000000 + <i32>s[i] * 10000 + <i32>h[i] + <i32>k[i];
}
`;
  let mod: KernelModule;
  beforeAll(async () => {
    mod = await compileKernels([{ path: 'kernels/narrow.ts', source }]);
    await wasm.load(mod); await gpu.load(mod);
  });

  it('writes of neighbouring bytes and halves of one word by different threads (compare-exchange), reads sign- and zero-extended', async () => {
    const n = 1001;
    const src = ints(n, 21, -100000, 100000);
    const arrays = (): Arg[] => [{ dtype: 'u8', data: new Uint8Array(n) }, { dtype: 'i8', data: new Int8Array(n) }, { dtype: 'u16', data: new Uint16Array(n) }, { dtype: 'i16', data: new Int16Array(n) }];
    const r = await same(() => mod, 'narrow', 16, 64, [{ dtype: 'i32', data: src }, ...arrays(), n]);
    expect(r.webgpu[1]![3]).toBe((((src[3]! & 255) + 200) & 255));
    await same(() => mod, 'widen', 16, 64, [...r.wasm.slice(1).map((d, k) => ({ dtype: (['u8', 'i8', 'u16', 'i16'] as const)[k]!, data: d })), { dtype: 'i32', data: new Int32Array(n) }, n]);
  });
});

describe('traps on webgpu: the KernelError wasm throws', () => {
  it('an index past an array\'s end: same kernel, block, thread, array, index, length and site', async () => {
    const messages = await trapMessages(() => language.kernels.gridStrideCopy!, 2, 32, ints(50, 1), 60, [51]);
    expect(messages[1]).toMatch(/^kernel gridStrideCopy trapped in block \(1, 0, 0\): index 50 is out of bounds of 'a' \(length 50\) in thread \(18, 0, 0\) at test\/kernels\/language\.ts:\d+:\d+$/);
    expect(messages[1]).toBe(messages[0]);
    // The trap record is cleared: the next launch runs clean.
    await same(lang, 'gridStrideCopy', 1, 32, [{ dtype: 'i32', data: ints(40, 2) }, { dtype: 'i32', data: new Int32Array(40) }, 40]);
  });

  it('relaunches on the same arrays (kept uniform and bind groups) see each launch\'s scalars; a trap between them is still caught', async () => {
    const a = await gpu.upload('i32', ints(64, 30));
    const o = gpu.alloc('i32', 64);
    for (const n of [10, 40, 64, 5]) {
      await o.fill(-1);
      await gpu.launch(language.kernels.gridStrideCopy!, { grid: 2, block: 32 }, [a, o, n] as never);
      const got = Array.from(await o.read());
      expect(got.slice(0, n)).toEqual(Array.from(await a.read()).slice(0, n).map((v) => v * 2 + 1));
      expect(got.slice(n).every((v) => v === -1), `n=${n}`).toBe(true);
      if (n === 40) {
        await expect(gpu.launch(language.kernels.gridStrideCopy!, { grid: 2, block: 32 }, [a, o, 65] as never)).rejects.toThrow(/index 64 is out of bounds of 'a' \(length 64\)/);
      }
    }
    a.free(); o.free();
  });

  it('a barrier in a loop whose condition differs between threads is a divergent barrier', async () => {
    const o = gpu.alloc('i32', 64);
    const t = await gpu.upload('i32', [0]);
    const p = gpu.launch(language.kernels.divergentLoop!, { grid: 1, block: 64 }, [o, t] as never);
    await expect(p).rejects.toThrow(KernelError);
    await expect(p).rejects.toThrow(/divergent barrier: the condition of a loop with a barrier at test\/kernels\/language\.ts:\d+:\d+ differs/);
  });
});

describe('unreachable() (CUDA\'s assert, __trap) on webgpu, against wasm', () => {
  const mod = loadedOnBoth('test/kernels/asserts.ts');
  const kernels = ['assertNonNegative', 'assertBeforeBarrier'];

  it('has a WGSL form; launches that never reach it equal wasm', async () => {
    for (const k of kernels) expect(mod().meta.wgsl![k]!.diagnostics, k).toBeUndefined();
    for (const k of kernels) {
      for (const n of [1, 100, 256]) {
        await same(mod, k, Math.ceil(n / 64), 64, [{ dtype: 'i32', data: ints(n, n, 0, 99) }, { dtype: 'i32', data: new Int32Array(n) }, n]);
      }
    }
  });

  it('a launch that reaches it is the KernelError wasm throws, in the same block; webgpu names the thread and the line', async () => {
    for (const k of kernels) {
      const data = ints(200, 7, 0, 99);
      data[133] = -1; // block 2 (of 64 threads), thread 5
      const errors: unknown[] = [];
      for (const dev of [wasm, gpu]) {
        const a = await dev.upload('i32', data), o = dev.alloc('i32', 200);
        errors.push(await dev.launch(mod().kernels[k]!, { grid: 4, block: 64 }, [a, o, 200] as never).then(() => undefined, (e: unknown) => e));
        a.free(); o.free();
      }
      for (const e of errors) expect(e, k).toBeInstanceOf(KernelError);
      expect((errors[0] as Error).message).toMatch(new RegExp(`^kernel ${k} trapped in block \\(2, 0, 0\\): .*unreachable`));
      expect((errors[1] as Error).message).toMatch(new RegExp(`^kernel ${k} trapped in block \\(2, 0, 0\\): unreachable executed in thread \\(5, 0, 0\\) at test/kernels/asserts\\.ts:\\d+:\\d+$`));
      expect(mod().meta.wgsl![k]!.trapFreeWhenProven, k).toBeUndefined();
    }
    // The device runs clean after it.
    await same(mod, 'assertNonNegative', 1, 64, [{ dtype: 'i32', data: ints(64, 3, 0, 9) }, { dtype: 'i32', data: new Int32Array(64) }, 64]);
  });

  it("simt's own findClus (kernels/pixel/clustering.ts, whose neighbour count is asserted) now has a WGSL form", async () => {
    const meta = JSON.parse((await import('node:fs')).readFileSync('build/simt.simt.json', 'utf8')) as KernelModule['meta'];
    expect(meta.wgsl!['findClus']!.diagnostics).toBeUndefined();
    expect(meta.wgsl!['findClus']!.source).toMatch(/sx_trapIf\(true, 4u/);
  });
});

describe('launch deadlines on webgpu', () => {
  const source = `import { threadIdx } from "simt/kernel";
export function busy(out: u32[], rounds: i32): void {
  let x: u32 = <u32>threadIdx.x;
  for (let r = 0; r < rounds; r++) x = x * 1664525 + 1013904223;
  out[threadIdx.x] = x;
}
`;
  let mod: KernelModule;
  beforeAll(async () => { mod = await compileKernels([{ path: 'kernels/busy.ts', source }]); await gpu.load(mod); });
  const lcg = (t: number, rounds: number): number => { let x = t >>> 0; for (let r = 0; r < rounds; r++) x = (Math.imul(x, 1664525) + 1013904223) >>> 0; return x; };

  it('a launch past its timeoutMs is a KernelTimeoutError naming that timeout and what became of the launch; the device runs on', async () => {
    const out = gpu.alloc('u32', 64);
    const err = await gpu.launch(mod.kernels.busy!, { grid: 1, block: 64, timeoutMs: 20 }, [out, 10_000_000] as never).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(KernelTimeoutError);
    expect((err as Error).message).toBe("kernel busy did not finish within 20 ms; WebGPU cannot stop a dispatch: the GPU may still be running it, and the device's later work waits behind it");
    // Later work waits behind the long launch, and is right.
    await gpu.launch(mod.kernels.busy!, { grid: 1, block: 64 }, [out, 3] as never);
    expect(Array.from(await out.read())).toEqual(Array.from({ length: 64 }, (_, t) => lcg(t, 3)));
    out.free();
  });

  it('launches in flight with the default deadline, and one with a shorter one, each settle on their own', async () => {
    const out = gpu.alloc('u32', 64);
    const quick = Array.from({ length: 20 }, () => gpu.launch(mod.kernels.busy!, { grid: 1, block: 64 }, [out, 5] as never));
    const short = gpu.launch(mod.kernels.busy!, { grid: 1, block: 64, timeoutMs: 60_000 }, [out, 7] as never);
    const settled = await Promise.allSettled([...quick, short]);
    expect(settled.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(Array.from(await out.read())).toEqual(Array.from({ length: 64 }, (_, t) => lcg(t, 7)));
    out.free();
  });
});

describe('constructs without a WGSL form', () => {
  const source = `import { threadIdx, blockIdx, blockDim, __threadfence, atomicAdd } from "simt/kernel";
export function scale(a: f32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * 2;
}
export function rootsF64(a: f64[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = Math.sign(a[i]);
}
export function mathF32(a: f32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = <f32>Math.sign(a[i]);
}
function fact(k: i32): i32 { return k <= 1 ? 1 : k * fact(k - 1); }
export function factorials(out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fact(i);
}
export function fenced(a: i32[], count: i32[]): void {
  a[blockIdx.x] = blockIdx.x + 1;
  __threadfence();
  atomicAdd(count, 0, 1);
}
`;
  let mod: KernelModule;
  beforeAll(async () => { mod = await compileKernels([{ path: 'kernels/noWgsl.ts', source }]); });

  it('are diagnostics with file and line in meta.wgsl; the other kernels have WGSL', () => {
    const w = mod.meta.wgsl!;
    expect(w.scale!.source).toMatch(/@compute/);
    expect(w.rootsF64!.source).toBeUndefined();
    // f64 itself has a WGSL form (software binary64: test/webgpu-wide.test.ts), and so have Math's
    // functions that are wasm instructions (sqrt, floor, …); Math.sign and the like do not.
    expect(w.rootsF64!.diagnostics![0]).toMatchObject({ file: 'kernels/noWgsl.ts', line: 8, message: expect.stringMatching(/Math\.sign has no WGSL form: WGSL computes f64 in software.*Mathf\.sign/) });
    expect(w.mathF32!.diagnostics![0]).toMatchObject({ file: 'kernels/noWgsl.ts', line: 12, message: expect.stringMatching(/Math\.sign has no WGSL form.*Mathf\.sign/) });
    expect(w.factorials!.diagnostics![0]).toMatchObject({ file: 'kernels/noWgsl.ts', line: 14, message: expect.stringMatching(/recursive call of 'fact'/) });
    // A device-scope fence: WGSL's atomics are relaxed and it has no fence.
    expect(w.fenced!.diagnostics![0]).toMatchObject({ file: 'kernels/noWgsl.ts', line: 21, message: expect.stringMatching(/__threadfence\(\) has no WGSL form: WGSL has no memory fence/) });
  });

  it('a kernel with __threadfence() is a LaunchConfigError on webgpu saying why; wasm runs it', async () => {
    await gpu.load(mod);
    const a = await gpu.upload('i32', new Int32Array(3)), c = await gpu.upload('i32', [0]);
    await expect(gpu.launch(mod.kernels.fenced!, { grid: 3, block: 2 }, [a, c] as never))
      .rejects.toThrow(/kernel 'fenced' has no WGSL form.*kernels\/noWgsl\.ts:21:\d+: __threadfence\(\) has no WGSL form/);
    await wasm.load(mod);
    const wa = await wasm.upload('i32', new Int32Array(3)), wc = await wasm.upload('i32', [0]);
    await wasm.launch(mod.kernels.fenced!, { grid: 3, block: 2 }, [wa, wc] as never);
    expect([Array.from(await wa.read()), Array.from(await wc.read())]).toEqual([[1, 2, 3], [6]]);
  });

  it('launching one on webgpu is a LaunchConfigError naming file and line; wasm runs it', async () => {
    await gpu.load(mod);
    const g = await gpu.upload('i32', new Int32Array(4));
    await expect(gpu.launch(mod.kernels.factorials!, { grid: 1, block: 4 }, [g, 4] as never))
      .rejects.toThrow(LaunchConfigError);
    await expect(gpu.launch(mod.kernels.factorials!, { grid: 1, block: 4 }, [g, 4] as never))
      .rejects.toThrow(/kernel 'factorials' has no WGSL form.*kernels\/noWgsl\.ts:14:\d+: recursive call/);
    await wasm.load(mod);
    const w = await wasm.upload('i32', new Int32Array(4));
    await wasm.launch(mod.kernels.factorials!, { grid: 1, block: 4 }, [w, 4] as never);
    expect(Array.from(await w.read())).toEqual([1, 1, 2, 6]);
    // The module's WGSL kernels run.
    await same(() => mod, 'scale', 1, 64, [{ dtype: 'f32', data: [1, 2, 3] }, 3]);
  });

  it('a module the device has not loaded is a LaunchConfigError', async () => {
    const other = await compileKernels([{ path: 'kernels/other.ts', source: source.replace('scale', 'scale2') }]);
    const a = await gpu.upload('f32', [1]);
    await expect(gpu.launch(other.kernels.scale2!, { grid: 1, block: 1 }, [a, 1] as never)).rejects.toThrow(/has not loaded: call device.load/);
  });
});

describe('crossCheck on a compiled module', () => {
  it('a job over a user kernel: loads the module on each device, exact outputs equal', async () => {
    interface Inputs { data: Uint8Array; n: number }
    const job: Job<Inputs> = {
      name: 'histogram256', description: 'examples/kernels/histogram.ts', defaultSize: 10_000, edgeSizes: [0, 1],
      generate: (n, seed) => { const r = rng(seed); return { n, data: Uint8Array.from({ length: Math.max(n, 1) }, () => Math.floor(r() * 256)) }; },
      async run(device: GpuDevice, { data, n }) {
        await device.load(examples);
        const d = await device.upload('u8', data);
        const bins = device.alloc('u32', 256); await bins.fill(0);
        await device.launch(examples.kernels.histogram256!, { grid: 13, block: 96 }, [d, n, bins] as never);
        const out = await bins.read();
        d.free(); bins.free();
        return { bins: out };
      },
      compare: () => ({ bins: { kind: 'exact' } }),
    };
    for (const n of [0, 1, 12_345]) {
      const r = await crossCheck(job, job.generate(n, n + 3), { devices: { wasm, webgpu: gpu } });
      expect(r.equal, JSON.stringify(r.outputs)).toBe(true);
      expect(r.runs.map((x) => x.backend)).toEqual(['wasm', 'webgpu']);
    }
  });
});

describe('__local__ arrays (test/kernels/local.ts) on webgpu, against wasm', () => {
  const loc = loadedOnBoth('test/kernels/local.ts');
  it.each([[1, 1], [3, 32], [2, 100]])('sortEight: grid %i × block %i, each thread\'s 8 values sorted in a private array', async (grid, block) => {
    const n = grid * block * 8;
    const x = ints(n, grid + block, -1000, 1000);
    const r = await same(loc, 'sortEight', grid, block, [{ dtype: 'i32', data: x }, { dtype: 'i32', data: new Int32Array(n) }, n]);
    const out = r.webgpu[1]!;
    for (let g = 0; g < n / 8; g++) expect(Array.from(out).slice(8 * g, 8 * g + 8)).toEqual(Array.from(x.slice(8 * g, 8 * g + 8)).sort((p, q) => p - q));
  });
  it.each([[1, 32], [3, 64]])('neighbourAdd: f32 and u16 local arrays across two barriers (grid %i × block %i)', async (grid, block) => {
    const x = Float32Array.from(ints(4 * grid * block, block, -40, 40), (v) => v / 4);
    await same(loc, 'neighbourAdd', grid, block, [{ dtype: 'f32', data: x }, { dtype: 'f32', data: new Float32Array(x.length) }, { dtype: 'u16', data: new Uint16Array(grid * block) }], 4 * block);
  });
  it('an index past a local array is the same KernelError on both', async () => {
    for (const dev of [wasm, gpu] as const) {
      const out = dev.alloc('i32', 32);
      await expect(dev.launch(loc().kernels.localPastEnd!, { grid: 1, block: 32 }, [out, 4] as never)).rejects.toThrow(/index 4 is out of bounds of 'a' \(length 4\)/);
      out.free();
    }
  });
  it('a kernel whose local array is f64 runs on webgpu as on wasm (64-bit values as word pairs)', async () => {
    expect(loc().meta.wgsl!.bigLocal!.source).toMatch(/var<private> l_\w+: array<vec2u, 512>/);
    await same(loc, 'bigLocal', 2, 64, [{ dtype: 'f64', data: new Float64Array(128) }]);
  });
});

// __syncthreads orders global memory too in CUDA; WGSL's workgroupBarrier() orders only workgroup
// memory, so the compiler adds storageBarrier() where threads may talk through a storage array
// (written and read — an atomic both —, written at two sites, or written in a loop) and leaves it
// out elsewhere.
const BARRIER_SOURCE = `import { threadIdx, blockIdx, blockDim, __syncthreads, __shared__ } from "simt/kernel";
export function exchangeThroughGlobal(g: i32[], out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = i * 3 + 1;
  __syncthreads();
  const j = blockIdx.x * blockDim.x + (threadIdx.x ^ 1);
  if (i < n && j < n) out[i] = g[j];
}
export function trapThenReturn(a: i32[], out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = a[i + n];           // past a's end for every i when a has n elements
  if (i >= 0) return;
  out[0] = -1;
}
export function lastWriterWins(out: i32[]): void {
  for (let r = 0; r < 4; r++) {
    if (<i32>threadIdx.x == r) out[blockIdx.x] = r;
    __syncthreads();
  }
}
export function writeOnceAfterTree(a: f32[], b: f32[]): void {
  const s = __shared__<f32>(64);
  s[threadIdx.x] = a[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) { let m: f32 = 0; for (let k = 0; k < 64; k++) m += s[k]; b[blockIdx.x] = m; }
}
export function stridedSum(a: i32[], out: i32[], n: i32, step: i32): void {
  const t = blockIdx.x * blockDim.x + threadIdx.x;
  let s = 0;
  for (let i = t; i < n; i += step) {
    if (a[i] < 0) continue;
    s += a[i];
  }
  out[t] = s;
}
export function stridedMax(a: i32[], out: i32[], n: i32): void {
  let i = blockIdx.x * blockDim.x + threadIdx.x;
  let m = -1000000;
  while (i < n) { m = max(m, a[i]); i += blockDim.x * gridDim.x; }
  out[blockIdx.x * blockDim.x + threadIdx.x] = m;
}
`;
/** BARRIER_SOURCE compiled once and loaded on both devices (the two describes below share it). */
let barrierModule: Promise<KernelModule> | undefined;
function loadBarrierModule(): Promise<KernelModule> {
  barrierModule ??= (async () => {
    const m = await compileKernels([{ path: 'test/barriers.ts', source: BARRIER_SOURCE }], { cacheDir: false });
    await wasm.load(m);
    await gpu.load(m);
    return m;
  })();
  return barrierModule;
}

describe('__syncthreads and storage memory on webgpu', () => {
  let mod: KernelModule;
  beforeAll(async () => { mod = await loadBarrierModule(); });
  const barriers = (k: string) => (mod.meta.wgsl![k]!.source!.match(/storageBarrier\(\)/g) ?? []).length;

  it('storageBarrier() joins workgroupBarrier() only where threads may talk through a storage array', () => {
    expect(barriers('exchangeThroughGlobal')).toBe(1);     // g written, then read by a neighbour
    expect(barriers('lastWriterWins')).toBe(4);            // out written in a loop with a barrier (its 4 trips written out)
    expect(barriers('writeOnceAfterTree')).toBe(0);        // a read only, b written once
    expect(mod.meta.wgsl!.writeOnceAfterTree!.source).toMatch(/workgroupBarrier\(\)/);
    expect(examples.meta.wgsl!.vecMax!.source).not.toMatch(/storageBarrier/);
    expect(examples.meta.wgsl!.histogram256!.source).toMatch(/storageBarrier/);   // global atomics read too
  });

  for (const n of [1, 2, 255, 1000]) {
    it(`a value written to global memory before __syncthreads is read by another thread after it (n = ${n})`, async () => {
      const block = 64, grid = Math.ceil(n / block);
      const r = await same(() => mod, 'exchangeThroughGlobal', grid, block, [{ dtype: 'i32', data: new Int32Array(n) }, { dtype: 'i32', data: new Int32Array(n) }, n]);
      const want = Int32Array.from({ length: n }, (_, i) => { const j = i ^ 1; return j < n ? j * 3 + 1 : 0; });
      expect(Array.from(r.webgpu[1]!)).toEqual(Array.from(want));
    });
  }

  it('a trap followed by an early return is still reported (the record is written when the invocation ends)', async () => {
    const messages = await trapMessages(() => mod.kernels.trapThenReturn!, 1, 1, ints(40, 4), 40, [40]);
    expect(messages[1]).toMatch(/index 40 is out of bounds of 'a' \(length 40\) in thread \(0, 0, 0\)/);
    expect(messages[1]).toBe(messages[0]);
  });

  it('the last write before the last barrier wins', async () => {
    const r = await same(() => mod, 'lastWriterWins', 9, 32, [{ dtype: 'i32', data: new Int32Array(9).fill(-1) }]);
    expect(Array.from(r.webgpu[0]!)).toEqual(new Array(9).fill(3));
  });

  it('a block sum through shared memory, written once without storageBarrier', async () => {
    const a = Float32Array.from({ length: 64 * 5 }, (_, i) => (i % 17) - 8);
    const r = await same(() => mod, 'writeOnceAfterTree', 5, 64, [{ dtype: 'f32', data: a }, { dtype: 'f32', data: new Float32Array(5) }]);
    const want = Array.from({ length: 5 }, (_, b) => a.subarray(b * 64, b * 64 + 64).reduce((x, y) => x + y, 0));
    expect(Array.from(r.webgpu[1]!)).toEqual(want);
  });
});

// Strided loops (grid-stride and the like) run unrolled 4x in the WGSL, then as written for the
// iterations left (src/compiler/wgslUnroll.ts): the same iterations in the same order.
describe('unrolled strided loops on webgpu, against wasm', () => {
  let mod: KernelModule;
  beforeAll(async () => { mod = await loadBarrierModule(); });

  it('a for loop with continue and a while loop are unrolled; a loop whose bound changes is not', () => {
    const sum = mod.meta.wgsl!.stridedSum!.source!;
    expect(sum).toMatch(/> 3i \* sx_t\d+\)\) \{ break; \}/);
    expect(sum.match(/^ *loop \{\n(?:.*\n)*? *break;\n *\}$/gm)).not.toBeNull();   // each copy is a one-trip loop
    expect(sum.match(/\bcontinue;/g)).toHaveLength(1);   // the loop as written; the copies' continues are breaks
    expect(mod.meta.wgsl!.stridedMax!.source!).toMatch(/> 3i \* sx_t\d+\)\) \{ break; \}/);
    expect(mod.meta.wgsl!.lastWriterWins!.source!).not.toMatch(/3i \*/);   // r++ is not a strided step
    // A body with a loop of its own stays one copy (countModules scans back over invalid ids).
    expect(examples.meta.wgsl!.countModules!.source!).not.toMatch(/3i \*/);
    expect(examples.meta.wgsl!.vecMax!.source!).toMatch(/> 3i \* sx_t\d+\)\) \{ break; \}/);
  });

  const data = (n: number, seed: number) => ints(Math.max(n, 1), seed, -20, 100);
  for (const [n, step] of [[0, 1], [1, 1], [7, 3], [1000, 7], [4099, 64], [4096, 1024], [5000, 0x20000000]] as const) {
    it(`stridedSum, n = ${n}, step = ${step} (negatives skipped by continue)`, async () => {
      const a = data(n, n + step);
      const threads = 64;
      const r = await same(() => mod, 'stridedSum', 1, threads, [{ dtype: 'i32', data: a }, { dtype: 'i32', data: new Int32Array(threads) }, n, step]);
      const want = Array.from({ length: threads }, (_, t) => { let s = 0; for (let i = t; i < n; i += step) if (a[i]! >= 0) s += a[i]!; return s; });
      expect(Array.from(r.webgpu[1]!)).toEqual(want);
    });
  }

  for (const n of [0, 5, 255, 256 * 3 + 17, 100_003]) {
    it(`stridedMax (grid-stride while loop), n = ${n}`, async () => {
      const a = data(n, 7 * n + 1);
      const grid = 3, block = 128;
      const r = await same(() => mod, 'stridedMax', grid, block, [{ dtype: 'i32', data: a }, { dtype: 'i32', data: new Int32Array(grid * block) }, n]);
      const want = Array.from({ length: grid * block }, (_, t) => { let m = -1000000; for (let i = t; i < n; i += grid * block) m = Math.max(m, a[i]!); return m; });
      expect(Array.from(r.webgpu[1]!)).toEqual(want);
    });
  }

  it('an index past the end inside an unrolled trip: the KernelError wasm throws', async () => {
    const messages = await trapMessages(() => mod.kernels.stridedSum!, 1, 1, data(40, 3).map(Math.abs), 1, [41, 1]);
    expect(messages[1]).toMatch(/index 40 is out of bounds of 'a' \(length 40\) in thread \(0, 0, 0\) at test\/barriers\.ts:\d+:\d+$/);
    expect(messages[1]).toBe(messages[0]);
  });
});

// Launches are ordered by submission (as CUDA's stream is): the next is submitted while the
// previous runs; each launch's promise settles when it has run and its own trap record is read.
describe('launches in flight on webgpu', () => {
  it('80 dependent launches issued without awaiting run in order (each adds alpha·x to y)', async () => {
    const n = 1000;
    const x = await gpu.upload('f32', new Float32Array(n).fill(1));
    const y = await gpu.upload('f32', new Float32Array(n));
    const launches = Array.from({ length: 80 }, (_, k) => gpu.launch(language.kernels.axpy!, { grid: 2, block: 64 }, [k % 2 === 0 ? 1 : 2, x, y, n] as never));
    const got = await y.read();   // queued after the launches: sees all of them
    expect(Array.from(new Set(got))).toEqual([40 * 1 + 40 * 2]);
    const stats = await Promise.all(launches);
    expect(stats.every((s) => s.kernel === 'axpy' && s.elapsedMs >= 0)).toBe(true);
    x.free(); y.free();
  });

  it('a trap in one of several launches in flight rejects that launch only, with its own record', async () => {
    const a = await gpu.upload('i32', ints(50, 9));
    const o = gpu.alloc('i32', 64);
    const ns = [10, 20, 51, 30, 64, 40];   // 51 and 64 read past a's 50 elements
    const results = await Promise.allSettled(ns.map((n) => gpu.launch(language.kernels.gridStrideCopy!, { grid: 2, block: 32 }, [a, o, n] as never)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/index 50 is out of bounds of 'a' \(length 50\)/);
    expect(String((results[4] as PromiseRejectedResult).reason)).toMatch(/index (5\d|6[0-3]) is out of bounds of 'a' \(length 50\)/);
    // The last launch (n = 40) ran clean after the traps: its outputs are right.
    const got = Array.from(await o.read()).slice(0, 40);
    expect(got).toEqual(Array.from(await a.read()).slice(0, 40).map((v) => v * 2 + 1));
    a.free(); o.free();
  });

  it('synchronize() returns once every launch in flight has settled', async () => {
    const n = 4096;
    const x = await gpu.upload('f32', new Float32Array(n).fill(1));
    const y = await gpu.upload('f32', new Float32Array(n));
    let settled = 0;
    for (let k = 0; k < 30; k++) void gpu.launch(language.kernels.axpy!, { grid: 4, block: 64 }, [1, x, y, n] as never).then(() => { settled++; });
    await gpu.synchronize();
    await Promise.resolve();
    expect(settled).toBe(30);
    expect((await y.read())[n - 1]).toBe(30);
    x.free(); y.free();
  });
});

describe('warp operations as subgroup builtins (the subgroup form of a kernel)', () => {
  const warpKernels = ['shuffles', 'warpShuffles', 'votes', 'deviceBarriers', 'warpUniformIf', 'warpDivergentIf'];

  it('every kernel with a warp shuffle or vote has a subgroup form; the others have none', () => {
    for (const [name, w] of Object.entries(language.meta.wgsl!)) {
      if (!w.source) continue;
      if (!warpKernels.includes(name)) { expect(w.subgroups, name).toBeUndefined(); continue; }
      const sg = w.subgroups!.source;
      expect(sg.startsWith('enable subgroups;\n'), name).toBe(true);
      expect(sg, name).toMatch(name === 'votes' ? /subgroupBallot/ : /subgroupShuffle|subgroupBallot/);
      // No workgroup-memory emulation left in it.
      expect(sg, name).not.toMatch(/sx_shfl_|sx_ballot/);
      expect(w.subgroups!.sites.map((x) => `${x.line}:${x.column}`), name).toEqual(w.sites!.map((x) => `${x.line}:${x.column}`));
    }
    // A whole-warp shuffle by a uniform offset is the matching builtin; a narrower one goes through subgroupShuffle.
    expect(examples.meta.wgsl!['shuffleSum']!.subgroups!.source).toMatch(/subgroupShuffleDown\(/);
    expect(language.meta.wgsl!['warpShuffles']!.subgroups!.source).toMatch(/subgroupShuffleUp\([\s\S]*subgroupShuffleDown\([\s\S]*subgroupShuffleXor\(/);
    expect(language.meta.wgsl!['shuffles']!.subgroups!.source).toMatch(/sx_sg_xor_i32\(/);
  });

  it('a loop with a constant trip count around warp operations or barriers is written out (up to 8 trips)', async () => {
    // shuffleSum's `for (offset = 16; offset > 0; offset /= 2)`: five shuffles, no loop around them.
    expect(examples.meta.wgsl!['shuffleSum']!.subgroups!.source.match(/subgroupShuffleDown\(/g)).toHaveLength(5);
    const mod = await compileKernelFiles(['test/kernels/trips.ts'], { cacheDir: false });
    const wgsl = mod.meta.wgsl!['trips']!.source!;
    // 8 trips written out (16 barriers), 9 trips left as a loop (2 barriers in its body).
    expect(wgsl.match(/workgroupBarrier\(\)/g)).toHaveLength(18);
    expect(wgsl.match(/\bloop \{/g)).toHaveLength(1);
    const outs: number[][] = [];
    for (const dev of [wasm, gpu] as GpuDevice[]) {
      await dev.load(mod);
      const o = dev.alloc('i32', 64);
      await dev.launch(mod.kernels.trips!, { grid: 1, block: 64 }, [o] as never);
      outs.push(Array.from(await o.read()));
      o.free();
    }
    expect(outs[1]).toEqual(outs[0]);
  });

  it('a halving loop from the block size around barriers (a reduction\'s tree) is written out as guarded copies, at any block size', async () => {
    const mod = await compileKernelFiles(['test/kernels/trips.ts'], { cacheDir: false });
    const wgsl = mod.meta.wgsl!['halvingTrees']!.source!;
    // blockDim.x ≤ 1024: 10 copies of each tree (ib from 512 down to 1), no loop left; 3 barriers besides.
    expect(wgsl.match(/workgroupBarrier\(\)/g)).toHaveLength(23);
    expect(wgsl).not.toMatch(/\bloop \{/);
    expect(wgsl.match(/if \(\(u_ib != 0i\)\) \{/g)).toHaveLength(10);
    for (const [grid, blk] of [[2, 1], [2, 3], [3, 64], [2, 100], [1, 256]] as const) {
      const r = rng(grid * blk + 11);
      const a = Int32Array.from({ length: grid * blk }, () => Math.floor(r() * 2 ** 32) | 0);
      const want = halvingTreesRef(a, grid, blk);
      for (const dev of [wasm, gpu] as GpuDevice[]) {
        await dev.load(mod);
        const A = await dev.upload('i32', a), o = dev.alloc('i32', 2 * grid);
        await dev.launch(mod.kernels.halvingTrees!, { grid, block: blk }, [A, o] as never);
        expect(Array.from(await o.read()), `${dev.backend}, grid ${grid} × ${blk}`).toEqual(want);
        A.free(); o.free();
      }
    }
  });

  it('SwiftShader\'s 4-lane subgroups are not warps: the device keeps the workgroup-memory form, and says why', async () => {
    expect(gpu.warpOps).toBe('workgroup-memory');
    expect(gpu.warpOpsReason).toMatch(/subgroups of 4 lanes \(CUDA's warps have 32\)|no subgroups feature/);
    // The adapter reports 4 lanes, so the device does not run the probe; the probe itself measures the same.
    if (gpu.context.hasSubgroups) expect(await probeSubgroupWarps(gpu.context.device, gpu.maxThreadsPerBlock)).toEqual({ ok: false, reason: 'subgroups of 4 lanes (CUDA\'s warps have 32)' });
    const off = await createWebGpuDevice({ memoryBytes: 1 << 20, subgroups: false });
    try {
      expect(off.warpOps).toBe('workgroup-memory');
      expect(off.warpOpsReason).toBe('subgroups: false');
    } finally { await off.destroy(); }
  });

  // The subgroup form run on SwiftShader's subgroups of 4 consecutive lanes: a shuffle whose
  // partner lies in the lane's own group of four (xor with a mask below 4, idx of lane ^ 3) is
  // exact there, so these launches check the form's operands, helpers and partial-warp rule.
  it('xor and idx shuffles within four lanes, through subgroupShuffle and subgroupShuffleXor, equal wasm (partial warp, widths 32 and 8)', async () => {
    if (gpu.context.adapterInfo.subgroupMinSize !== 4 || !gpu.context.hasSubgroups) return; // another adapter: the H100 run checks it
    const forced = new WebGpuDevice(gpu.context, gpu.runtime, 64 << 20, 60_000, false, undefined, { ok: true, reason: 'forced for this test' });
    await forced.load(language);
    for (const [op, delta, width] of [[3, 1, 32], [3, 2, 8], [3, 3, 32], [0, 0, 32], [0, 0, 8]] as const) {
      const data = ints(160, 40 + op + delta + width);
      const outs: number[][] = [];
      for (const dev of [wasm, forced] as GpuDevice[]) {
        const a = await dev.upload('i32', data);
        const o = dev.alloc('i32', 160);
        await dev.launch(language.kernels.shuffles!, { grid: 2, block: 80 }, [a, o, op, delta, width] as never);
        outs.push(Array.from(await o.read()));
        a.free(); o.free();
      }
      expect(outs[1], `op ${op} delta ${delta} width ${width}`).toEqual(outs[0]);
    }
    // subgroupShuffleXor itself (a whole-warp xor by a uniform mask), masks within four lanes.
    for (const mask of [1, 2, 3]) {
      const data = ints(160, 60 + mask);
      const outs: number[][] = [];
      for (const dev of [wasm, forced] as GpuDevice[]) {
        const a = await dev.upload('i32', data);
        const o = dev.alloc('i32', 160);
        await dev.launch(language.kernels.warpShuffles!, { grid: 2, block: 80 }, [a, o, 3, mask] as never);
        outs.push(Array.from(await o.read()));
        a.free(); o.free();
      }
      expect(outs[1], `xor ${mask}`).toEqual(outs[0]);
    }
  });
});

