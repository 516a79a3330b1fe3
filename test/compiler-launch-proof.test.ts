// The launch proof (src/launchProof.ts, src/compiler/wgslProof.ts): the block form's range proof
// evaluated once per launch on the host, over every block of the grid, so that a webgpu launch
// runs its shader's proven form (the accesses the proof covers unchecked) only where no block
// can go out of bounds. Sound (a launch it proves never traps on the checked wasm form, on
// random launches with short arrays among them), complete enough for the usual launch, safe to
// parse (no statement outside the proof's syntax), and on webgpu the same results as wasm.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { compileKernelFiles, compileKernels } from '../src/compiler/index.js';
import { compileLaunchProof, type LaunchProofMeta, type LaunchValues } from '../src/launchProof.js';
import type { KernelModule } from '../src/kernelModule.js';
import { createDevice, type Device } from '../src/device.js';
import { KernelError } from '../src/errors.js';
import { KernelModuleError } from '../src/kernelModule.js';
import type { GpuDevice } from '../src/deviceApi.js';
import { rng, testDevice, withWasmAndWebGpu } from './helpers.js';

let mod: KernelModule;
let block = '';
beforeAll(async () => {
  const files = ['kernels/reduce/vecMax.ts', 'kernels/pixel/countModules.ts', ...['histogram', 'transpose', 'shuffleSum', 'blockScan'].map((k) => `examples/kernels/${k}.ts`)];
  mod = await compileKernels(files.map((path) => ({ path, source: readFileSync(path, 'utf8') })), { cacheDir: false, onGenerated: (g) => { block = g.block; } });
});

const proofOf = (kernel: string): LaunchProofMeta => mod.meta.wgsl![kernel]!.launchProof!;
const launch = (grid: number, blockX: number, sharedBytes: number, params: number[]): LaunchValues =>
  ({ grid: { x: grid, y: 1, z: 1 }, block: { x: blockX, y: 1, z: 1 }, sharedBytes, params });

describe('the launch proof of a compiled kernel', () => {
  it('every kernel whose block form has a range proof has a launch proof, and its shader the sx_proven constant', () => {
    const withBlockProof = [...block.matchAll(/^function __proof_(\w+)\(/gm)].map((m) => m[1]!).sort();
    expect(withBlockProof.length).toBeGreaterThanOrEqual(5);
    const withLaunchProof = Object.entries(mod.meta.wgsl!).filter(([, w]) => w.launchProof).map(([k]) => k).sort();
    expect(withLaunchProof).toEqual(withBlockProof);
    for (const k of withLaunchProof) {
      const w = mod.meta.wgsl![k]!;
      expect(w.source, k).toMatch(/^override sx_proven: bool = false;$/m);
      expect(w.source, k).toMatch(/fn sx_(ix|st)_\w+_p\(/);
      if (w.subgroups) expect(w.subgroups.source, k).toMatch(/^override sx_proven: bool = false;$/m);
    }
  });

  it('trapFreeWhenProven exactly where every trap test of the shader folds away under sx_proven', () => {
    // Read off the shader text, independently of how the compiler decided: every trap test is
    // a `let bad = !sx_proven && …` of a proven access's helper, and nothing traps unconditionally.
    const allFold = (src: string): boolean =>
      [...src.matchAll(/let bad = ([^;]*);/g)].every((m) => m[1]!.startsWith('!sx_proven && ')) && !/sx_trapIf\(true/.test(src) && !/sx_trapIf\((?!bad)/.test(src.replace(/fn sx_trapIf\(/, ''));
    const meta = JSON.parse(readFileSync('build/simt.simt.json', 'utf8')) as KernelModule['meta'];
    let trapFree = 0;
    for (const m of [mod.meta, meta]) {
      for (const [k, w] of Object.entries(m.wgsl!)) {
        if (!w.source) continue;
        const folds = w.launchProof !== undefined && allFold(w.source) && (!w.subgroups || allFold(w.subgroups.source)) && !w.guardEntryPoint;
        expect(w.trapFreeWhenProven === true, k).toBe(folds);
        if (folds) trapFree++;
      }
    }
    expect(mod.meta.wgsl!['vecMax']!.trapFreeWhenProven).toBe(true);
    expect(mod.meta.wgsl!['countModules']!.trapFreeWhenProven).toBeUndefined(); // its atomicInc and moduleStart[loc + 1]
    expect(trapFree).toBeGreaterThanOrEqual(5);
  });

  it('every launch proof in simt\'s own module parses', () => {
    const meta = JSON.parse(readFileSync('build/simt.simt.json', 'utf8')) as KernelModule['meta'];
    const proofs = Object.values(meta.wgsl!).filter((w) => w.launchProof);
    expect(proofs.length).toBeGreaterThanOrEqual(70);
    for (const w of proofs) expect(() => compileLaunchProof(w.launchProof!)).not.toThrow();
  });

  it('vecMax: holds for its usual launch; fails for a short A or B, too little shared memory, an N past 2^31 - stride', () => {
    const p = compileLaunchProof(proofOf('vecMax'));
    // params: A (length), B (length), N
    expect(p.holds(launch(40, 256, 1024, [10000, 40, 10000]))).toBe(true);
    expect(p.holds(launch(40, 256, 1024, [10000, 40, -5]))).toBe(true); // no element read: nothing to go out of
    expect(p.holds(launch(41, 256, 1024, [10000, 40, 10000]))).toBe(false); // B[blockIdx.x] for block 40
    expect(p.holds(launch(40, 256, 1024, [9999, 40, 10000]))).toBe(false);
    expect(p.holds(launch(40, 256, 1020, [10000, 40, 10000]))).toBe(false); // cache has 255 floats
    expect(p.holds(launch(40, 256, 1024, [0x7fffffff, 40, 0x7fffffff]))).toBe(false); // i += stride could wrap
    expect(p.holds(launch(0, 256, 1024, [10000, 40, 10000]))).toBe(false);
    // The last launch's answer is kept: the same values again, then one value changed, then back.
    expect(p.holds(launch(40, 256, 1024, [10000, 40, 10000]))).toBe(true);
    expect(p.holds(launch(40, 256, 1024, [10000, 40, 10000]))).toBe(true);
    expect(p.holds(launch(40, 256, 1024, [10000, 39, 10000]))).toBe(false);
    expect(p.holds(launch(40, 256, 1024, [10000, 40, 10000]))).toBe(true);
    expect(p.holds({ grid: { x: 40, y: 2, z: 1 }, block: { x: 256, y: 1, z: 1 }, sharedBytes: 1024, params: [10000, 40, 10000] })).toBe(true);
    expect(p.holds(launch(40, 256, 1024, [10000, 40, 10001]))).toBe(false);
  });

  it('countModules: holds for its usual launch; fails when numElements passes id or clusterId', () => {
    const p = compileLaunchProof(proofOf('countModules'));
    // params: id, moduleStart, clusterId (lengths), numElements, nMaxModules
    expect(p.holds(launch(4, 256, 0, [1000, 1858, 1000, 1000, 1856]))).toBe(true);
    expect(p.holds(launch(4, 256, 0, [999, 1858, 1000, 1000, 1856]))).toBe(false);
    expect(p.holds(launch(4, 256, 0, [1000, 1858, 999, 1000, 1856]))).toBe(false);
  });

  it('reads nothing but the proof\'s own syntax: a call, an unknown name, a statement of another kind is refused', () => {
    const base = { scalars: { N: 2 }, lengths: { __n_A: 0 } };
    expect(() => compileLaunchProof({ ...base, lines: ['const __v0: i64 = <i64>N;', 'if (!(__v0 < <i64>(__n_A))) return false;'] })).not.toThrow();
    for (const bad of [
      'const __v0: i64 = process.exit(1);',
      'const __v0: i64 = globalThis;',
      'const __v0: i64 = <i64>N; const x = 1;',
      'return true;',
      'if (!(N < __n_A)) return true;',
      'const __v0: i64 = foo(N, N);',
      'const x: i64 = 1;',
      'const __v0: i64 = "1";',
    ]) expect(() => compileLaunchProof({ ...base, lines: [bad] }), bad).toThrow(/launch proof/);
  });

  it('evaluates over every block: a check that holds for some blocks only does not hold', () => {
    // The last block's index alone passes `__bix >= 3`; the launch has blocks 0..3.
    const p = compileLaunchProof({ lines: ['if (!(__bix >= 3)) return false;'], scalars: {}, lengths: {} });
    expect(p.holds(launch(4, 32, 0, []))).toBe(false);
    const q = compileLaunchProof({ lines: ['const __lo0: i64 = __bdx * __bix, __hi0: i64 = __bdx * __bix + (__bdx - 1);', 'if (!(__lo0 >= 0 && __hi0 < <i64>(__n_A))) return false;'], scalars: {}, lengths: { __n_A: 0 } });
    expect(q.holds(launch(4, 32, 0, [128]))).toBe(true);
    expect(q.holds(launch(4, 32, 0, [127]))).toBe(false);
    // Products past 2^53 are not guessed at.
    const r = compileLaunchProof({ lines: ['const __v0: i64 = <i64>N * <i64>N * <i64>N;', 'if (!(__v0 >= 0)) return false;'], scalars: { N: 0 }, lengths: {} });
    expect(r.holds(launch(1, 1, 0, [2 ** 20]))).toBe(false);
    expect(r.holds(launch(1, 1, 0, [2 ** 10]))).toBe(true);
  });
});

describe('soundness on random launches: a launch the host proves never traps on the checked wasm form', () => {
  let dev: Device;
  beforeAll(async () => { dev = await testDevice({ backend: 'wasm', workers: 2, memoryBytes: 64 << 20 }); await dev.load(mod); });

  it('vecMax: random grids, blocks, shared bytes, N and array lengths (some short)', async () => {
    const r = rng(2026);
    const p = compileLaunchProof(proofOf('vecMax'));
    let proven = 0, refused = 0;
    // Each of A, B and the shared bytes short of what the launch touches in about one trial of four.
    const give = (need: number) => Math.max(1, need + (r() < 0.25 ? -1 - Math.floor(r() * 3) : Math.floor(r() * 3)));
    for (let trial = 0; trial < 80; trial++) {
      const grid = 1 + Math.floor(r() * 12), blockX = [1, 3, 32, 100, 256][Math.floor(r() * 5)]!;
      const n = Math.floor(r() * 3000), lenA = give(n), lenB = give(grid);
      const shared = 4 * give(blockX);
      const holds = p.holds(launch(grid, blockX, shared, [lenA, lenB, n]));
      const A = await dev.upload('f32', Float32Array.from({ length: lenA }, () => r() * 100 - 50)), B = dev.alloc('f32', lenB);
      let trapped = false;
      try { await dev.launch(mod.kernels.vecMax!, { grid, block: blockX, sharedBytes: shared }, [A, B, n] as never); } catch (e) {
        if (!(e instanceof KernelError)) throw e;
        trapped = true;
      }
      A.free(); B.free();
      if (holds) { proven++; expect(trapped, `proven launch trapped: grid ${grid} × ${blockX}, shared ${shared}, N ${n}, A ${lenA}, B ${lenB}`).toBe(false); } else refused++;
    }
    expect(proven).toBeGreaterThan(5);
    expect(refused).toBeGreaterThan(5);
  });

  it('countModules: random sizes, with short id and clusterId arrays among them', async () => {
    const r = rng(29);
    const p = compileLaunchProof(proofOf('countModules'));
    let proven = 0;
    for (let trial = 0; trial < 40; trial++) {
      const n = Math.floor(r() * 2000), grid = 1 + Math.floor(r() * 10), blockX = [32, 64, 256][Math.floor(r() * 3)]!;
      const lenId = Math.max(1, n + Math.floor(r() * 5) - 2), lenC = Math.max(1, n + Math.floor(r() * 5) - 2);
      const holds = p.holds(launch(grid, blockX, 0, [lenId, 1858, lenC, n, 1856]));
      const ids = await dev.upload('u16', Uint16Array.from({ length: lenId }, (_, i) => (r() < 0.1 ? 65534 : Math.floor(i / 37)))), ms = await dev.upload('u32', new Uint32Array(1858)), cid = dev.alloc('i32', lenC);
      let trapped = false;
      try { await dev.launch(mod.kernels.countModules!, { grid, block: blockX }, [ids, ms, cid, n, 1856] as never); } catch (e) {
        if (!(e instanceof KernelError)) throw e;
        trapped = true;
      }
      ids.free(); ms.free(); cid.free();
      if (holds) { proven++; expect(trapped, `proven launch trapped: n ${n}, id ${lenId}, clusterId ${lenC}`).toBe(false); }
    }
    expect(proven).toBeGreaterThan(5);
  });
});

describe('on webgpu: the proven form where the proof holds, the checked form where it does not', () => {
  let gpu: GpuDevice;
  let wasm: Device;
  withWasmAndWebGpu(async () => {
    wasm = await createDevice({ backend: 'wasm', workers: 2, memoryBytes: 64 << 20, modules: [mod] });
    gpu = await createDevice({ backend: 'webgpu', memoryBytes: 64 << 20, modules: [mod] });
  }, () => [gpu, wasm]);

  it('vecMax: the usual launch runs proven and equals wasm; a short B or too little shared memory runs checked and traps naming the array', async () => {
    const n = 10000, a = Float32Array.from({ length: n }, (_, i) => Math.sin(i) * 100);
    const outs: number[][] = [];
    for (const dev of [wasm, gpu]) {
      const A = await dev.upload('f32', a), B = dev.alloc('f32', 40);
      const s = await dev.launch(mod.kernels.vecMax!, { grid: 40, block: 256, sharedBytes: 1024 }, [A, B, n] as never);
      if (dev === gpu) expect(s.proven).toBe(true);
      outs.push(Array.from(await B.read()));
      if (dev === gpu) {
        await expect(dev.launch(mod.kernels.vecMax!, { grid: 41, block: 256, sharedBytes: 1024 }, [A, B, n] as never)).rejects.toThrow(/out of bounds of 'B' \(length 40\)/);
        await expect(dev.launch(mod.kernels.vecMax!, { grid: 40, block: 256, sharedBytes: 512 }, [A, B, n] as never)).rejects.toThrow(/out of bounds of 'cache' \(length 128\)/);
        // The device is still usable; launches with room to spare run proven.
        const t = await dev.launch(mod.kernels.vecMax!, { grid: 40, block: 256, sharedBytes: 1024 }, [A, B, n - 1] as never);
        expect(t.proven).toBe(true);
        const u = await dev.launch(mod.kernels.vecMax!, { grid: 40, block: 256, sharedBytes: 1028 }, [A, B, n] as never);
        expect(u.proven).toBe(true);
      }
      A.free(); B.free();
    }
    expect(outs[1]).toEqual(outs[0]);
  });

  it('launches in flight, trap-free proven ones (no trap record read back) between trapping ones: each reports its own outcome', async () => {
    const n = 10000, a = Float32Array.from({ length: n }, (_, i) => Math.cos(i) * 50);
    const A = await gpu.upload('f32', a), B = gpu.alloc('f32', 40);
    const Aw = await wasm.upload('f32', a), Bw = wasm.alloc('f32', 40);
    try {
      await wasm.launch(mod.kernels.vecMax!, { grid: 40, block: 256, sharedBytes: 1024 }, [Aw, Bw, n] as never);
      const launches = Array.from({ length: 12 }, (_, i) => (i % 3 === 1
        ? gpu.launch(mod.kernels.vecMax!, { grid: 41, block: 256, sharedBytes: 1024 }, [A, B, n] as never)
        : gpu.launch(mod.kernels.vecMax!, { grid: 40, block: 256, sharedBytes: 1024 }, [A, B, n] as never)));
      const settled = await Promise.allSettled(launches);
      settled.forEach((r, i) => {
        if (i % 3 === 1) {
          expect(r.status, `launch ${i}`).toBe('rejected');
          expect((r as PromiseRejectedResult).reason).toBeInstanceOf(KernelError);
          expect(String((r as PromiseRejectedResult).reason.message)).toMatch(/out of bounds of 'B' \(length 40\)/);
        } else {
          expect(r.status, `launch ${i}`).toBe('fulfilled');
          expect((r as PromiseFulfilledResult<{ proven?: boolean }>).value.proven).toBe(true);
        }
      });
      expect(Array.from(await B.read())).toEqual(Array.from(await Bw.read()));
    } finally {
      A.free(); B.free(); Aw.free(); Bw.free();
    }
  });

  it('countModules: proven on the usual launch, with the same module starts as wasm (as a set) and clusterId', async () => {
    const n = 5000, r = rng(5);
    const ids = Uint16Array.from({ length: n }, (_, i) => (r() < 0.05 ? 65534 : Math.floor(i / 29)));
    const res: { starts: number[]; cid: number[] }[] = [];
    for (const dev of [wasm, gpu]) {
      const I = await dev.upload('u16', ids), M = await dev.upload('u32', new Uint32Array(1858)), C = dev.alloc('i32', n);
      const s = await dev.launch(mod.kernels.countModules!, { grid: Math.ceil(n / 256), block: 256 }, [I, M, C, n, 1856] as never);
      if (dev === gpu) expect(s.proven).toBe(true);
      const m = await M.read();
      res.push({ starts: Array.from(m.subarray(1, 1 + m[0]!)).sort((x, y) => x - y), cid: Array.from(await C.read()) });
      I.free(); M.free(); C.free();
    }
    expect(res[1]).toEqual(res[0]);
    expect(res[0]!.starts.length).toBeGreaterThan(100);
  });

  it('a module whose launch proof is not in the proof\'s syntax is refused at load, with a one-line KernelModuleError', async () => {
    const bad = structuredClone(mod.meta);
    bad.wgsl!['vecMax']!.launchProof!.lines = ['const __v0: i64 = require("fs");'];
    const forged = { ...mod, id: `${mod.id}-forged`, meta: bad } as KernelModule;
    const err = await gpu.load(forged).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(KernelModuleError);
    expect((err as Error).message).toMatch(/^kernel 'vecMax': its launch proof cannot be read \(launch proof: .*\); rebuild the module$/);
    expect((err as Error).message).not.toMatch(/\n/);
  });
});

describe('compiled without checks', () => {
  it('an unchecked module carries no launch proof and no sx_proven', async () => {
    const u = await compileKernelFiles(['kernels/reduce/vecMax.ts'], { cacheDir: false, unchecked: true });
    expect(u.meta.wgsl!['vecMax']!.launchProof).toBeUndefined();
    expect(u.meta.wgsl!['vecMax']!.source).not.toMatch(/sx_proven/);
  });
});
