/**
 * simt's built-in vecMax, vecMin (seed 002) and countModules (seed 000) launched through the device
 * API, on every backend from one table (wasm and webgpu), against plain-TS references. On webgpu
 * they have no hand-written WGSL: each is a declared specialization whose generic kernel
 * (kernels/reduce/, kernels/pixel/countModules.ts) runs as its generated WGSL, so these are the
 * kernels users launch there — edge sizes, NaN, the atomicInc wrap and grids above WebGPU's 65535
 * blocks per dispatch included.
 * No WebGPU adapter is a failure, not a skip: every test rethrows the setup error.
 */
import { describe, expect, it } from 'vitest';
import { rng, withWasmAndWebGpu } from './helpers.js';
import { createDevice, type Device } from '../src/device.js';
import type { LaunchStats } from '../src/deviceApi.js';
import type { WebGpuDevice } from '../src/webgpu/device.js';
import { INVALID_MODULE_ID, WGSL_KERNELS } from '../src/webgpu/kernels.js';
import { countModules, vecMax, vecMin } from '../src/kernels/index.js';

let gpu: WebGpuDevice;
let wasm: Device;
withWasmAndWebGpu(async () => {
  wasm = await createDevice({ backend: 'wasm', memoryBytes: 128 << 20, workers: 2 });
  gpu = await createDevice({ backend: 'webgpu', memoryBytes: 128 << 20 });
}, () => [gpu, wasm]);

const BACKENDS = [
  { name: 'wasm', dev: (): Device => wasm },
  { name: 'webgpu', dev: (): Device => gpu },
] as const;

function randomF32(n: number, seed: number): Float32Array {
  const r = rng(seed);
  const a = new Float32Array(n);
  // Mixed signs and magnitudes (no denormals: SwiftShader flushes them).
  for (let i = 0; i < n; i++) a[i] = (r() * 2 - 1) * 2 ** Math.floor(r() * 20 - 10);
  return a;
}

/** Per-block reference: block b sees the i with floor((i mod (grid·block)) / block) == b; NaN is skipped. */
function blockRefs(A: Float32Array, block: number, grid: number) {
  const max = new Float64Array(grid).fill(-Infinity);
  const min = new Float64Array(grid).fill(Infinity);
  const span = grid * block;
  for (let i = 0; i < A.length; i++) {
    const b = Math.floor((i % span) / block);
    const v = A[i]!;
    if (v > max[b]!) max[b] = v;
    if (v < min[b]!) min[b] = v;
  }
  return { max, min };
}

/** One launch of vecMax or vecMin: the per-block partials and the launch's stats. */
async function reduce(dev: Device, kernel: typeof vecMax, A: Float32Array, block: number, grid: number) {
  const a = await dev.upload('f32', A);
  const b = dev.alloc('f32', grid);
  try {
    const stats = await dev.launch(kernel, { grid, block, sharedBytes: 4 * block }, [a, b, A.length]);
    return { out: await b.read(), stats };
  } finally {
    a.free();
    b.free();
  }
}

/** On webgpu, what ran: the generated kernel (its launch proof decided; a twin has none). */
function expectGenerated(backend: string, stats: LaunchStats): void {
  if (backend === 'webgpu') expect(typeof stats.proven, 'a generated kernel ran').toBe('boolean');
}

describe('no hand-written WGSL for vecMax, vecMin and countModules', () => {
  it('they are not in WGSL_KERNELS (vecSum, f64 partials, is)', () => {
    for (const name of ['vecMax', 'vecMin', 'countModules']) expect(name in WGSL_KERNELS, name).toBe(false);
    expect('vecSum' in WGSL_KERNELS).toBe(true);
  });
});

for (const { name: backend, dev } of BACKENDS) {
  describe(`vecMax / vecMin on ${backend}`, () => {
    for (const n of [0, 1, 31, 32, 33, 1023, 1025, (1 << 20) + 3]) {
      it(`n = ${n}, block 256, grid 64: partials equal the TS reference`, async () => {
        const A = randomF32(n, 1000 + n);
        const ref = blockRefs(A, 256, 64);
        const mx = await reduce(dev(), vecMax, A, 256, 64);
        const mn = await reduce(dev(), vecMin, A, 256, 64);
        expectGenerated(backend, mx.stats);
        expect(Array.from(mx.out)).toEqual(Array.from(ref.max));
        expect(Array.from(mn.out)).toEqual(Array.from(ref.min));
      });
    }

    it('block sizes 1, 32, 64, 128 and 256 over grids 1, 3, 7 and 2', async () => {
      const A = randomF32(50_001, 7);
      for (const [block, grid] of [[1, 5], [32, 1], [64, 3], [128, 7], [256, 2]] as const) {
        const ref = blockRefs(A, block, grid);
        expect(Array.from((await reduce(dev(), vecMax, A, block, grid)).out), `max, block ${block}`).toEqual(Array.from(ref.max));
        expect(Array.from((await reduce(dev(), vecMin, A, block, grid)).out), `min, block ${block}`).toEqual(Array.from(ref.min));
      }
    });

    it('NaN elements are ignored; an all-NaN block gives the identity', async () => {
      const A = new Float32Array([NaN, 3, NaN, -7, 5, NaN]);
      expect((await reduce(dev(), vecMax, A, 32, 1)).out[0]).toBe(5);
      expect((await reduce(dev(), vecMin, A, 32, 1)).out[0]).toBe(-7);
      const allNaN = new Float32Array(10).fill(NaN);
      expect((await reduce(dev(), vecMax, allNaN, 32, 1)).out[0]).toBe(-Infinity);
      expect((await reduce(dev(), vecMin, allNaN, 32, 1)).out[0]).toBe(Infinity);
    });

    it('a grid above 65535 blocks (70000 blocks of 32)', async () => {
      const grid = 70_000;
      const A = randomF32(grid * 32 + 5, 99);
      const ref = blockRefs(A, 32, grid);
      const { out } = await reduce(dev(), vecMax, A, 32, grid);
      for (let b = 0; b < grid; b++) if (out[b] !== ref.max[b]) expect(out[b], `block ${b}`).toBe(ref.max[b]);
    });
  });
}

// ------------------------------------------------------------------------------ countModules

/** Sorted module ids with runs of invalid ids, some splitting a module's run. */
function makeIds(n: number, seed: number, opts: { maxRun?: number; invalidP?: number } = {}): Uint16Array {
  const r = rng(seed);
  const maxRun = opts.maxRun ?? 40;
  const invalidP = opts.invalidP ?? 0.3;
  const id = new Uint16Array(n);
  let mod = Math.floor(r() * 5);
  let i = 0;
  while (i < n) {
    if (r() < invalidP) {
      const len = 1 + Math.floor(r() * 15);
      for (let k = 0; k < len && i < n; k++) id[i++] = INVALID_MODULE_ID;
    }
    const len = 1 + Math.floor(r() * maxRun);
    for (let k = 0; k < len && i < n; k++) id[i++] = mod;
    // Sometimes the same module continues after the invalid run (not a boundary).
    if (r() < 0.75) mod = Math.min(mod + 1 + Math.floor(r() * 3), 65533);
  }
  return id;
}

/** Where a module starts: a valid id unlike the last valid id before it. */
function boundaries(id: Uint16Array): number[] {
  const out: number[] = [];
  let prev = -1;
  for (let i = 0; i < id.length; i++) {
    const v = id[i]!;
    if (v === INVALID_MODULE_ID) continue;
    if (prev < 0 || v !== prev) out.push(i);
    prev = v;
  }
  return out;
}

async function runCountModules(dev: Device, id: Uint16Array, nMaxModules: number, block: number, grid: number) {
  const n = id.length;
  const ids = await dev.upload('u16', id);
  const ms = dev.alloc('u32', nMaxModules + 2);
  const cl = dev.alloc('i32', Math.max(n, 1));
  try {
    await ms.fill(0);
    await cl.fill(-1);
    const stats = await dev.launch(countModules, { grid, block }, [ids, ms, cl, n, nMaxModules]);
    return { moduleStart: await ms.read(), clusterId: (await cl.read()).subarray(0, n), stats };
  } finally {
    ids.free();
    ms.free();
    cl.free();
  }
}

/**
 * moduleStart against CUDA's atomicInc for B boundaries and val = nMaxModules: the counter ends
 * at B mod (val + 1); slots 1..min(B, val + 1) each hold a distinct boundary (exactly the
 * boundaries when B ≤ val + 1); later slots stay 0.
 */
function checkModuleStart(moduleStart: Uint32Array, bounds: number[], nMaxModules: number) {
  const B = bounds.length;
  expect(moduleStart[0]).toBe(B % (nMaxModules + 1));
  const filled = Math.min(B, nMaxModules + 1);
  const written = Array.from(moduleStart.subarray(1, 1 + filled)).sort((x, y) => x - y);
  if (B <= nMaxModules + 1) {
    expect(written).toEqual([...bounds].sort((x, y) => x - y));
  } else {
    const set = new Set(bounds);
    expect(new Set(written).size).toBe(written.length);
    for (const w of written) expect(set.has(w), `slot value ${w} is a boundary`).toBe(true);
  }
  for (let k = 1 + filled; k < moduleStart.length; k++) expect(moduleStart[k]).toBe(0);
}

function checkClusterId(clusterId: Int32Array) {
  for (let i = 0; i < clusterId.length; i++) if (clusterId[i] !== i) expect(clusterId[i], `clusterId[${i}]`).toBe(i);
}

for (const { name: backend, dev } of BACKENDS) {
  describe(`countModules on ${backend}`, () => {
    for (const [n, seed] of [[1, 1], [2, 2], [1001, 3], [100_003, 4]] as const) {
      it(`random sorted ids with invalid runs, n = ${n}`, async () => {
        const id = makeIds(n, seed);
        const bounds = boundaries(id);
        const nMax = Math.max(bounds.length + 10, 4);
        for (const [block, grid] of [[256, 64], [64, Math.ceil(n / 64)]] as const) {
          const { moduleStart, clusterId, stats } = await runCountModules(dev(), id, nMax, block, grid);
          expectGenerated(backend, stats);
          checkModuleStart(moduleStart, bounds, nMax);
          checkClusterId(clusterId);
        }
      });
    }

    it('all ids invalid: no module, the counter stays 0', async () => {
      const id = new Uint16Array(5000).fill(INVALID_MODULE_ID);
      const { moduleStart, clusterId } = await runCountModules(dev(), id, 100, 256, 8);
      expect(Array.from(moduleStart).every((v) => v === 0)).toBe(true);
      checkClusterId(clusterId);
    });

    it('no digis: nothing written', async () => {
      const { moduleStart } = await runCountModules(dev(), new Uint16Array(0), 10, 64, 1);
      expect(Array.from(moduleStart).every((v) => v === 0)).toBe(true);
    });

    it('one module (after a leading invalid run, with invalid runs inside)', async () => {
      const id = new Uint16Array(3001).fill(42);
      id.fill(INVALID_MODULE_ID, 0, 17);
      id.fill(INVALID_MODULE_ID, 1000, 1300);
      id[2999] = INVALID_MODULE_ID;
      const { moduleStart, clusterId } = await runCountModules(dev(), id, 10, 128, 5);
      expect(moduleStart[0]).toBe(1);
      expect(moduleStart[1]).toBe(17);
      checkClusterId(clusterId);
    });

    it('more boundaries than nMaxModules: the counter wraps by the CUDA rule', async () => {
      const id = makeIds(20_000, 11, { maxRun: 8 });
      const bounds = boundaries(id);
      for (const nMax of [100, 1000, bounds.length - 2, bounds.length - 1]) {
        expect(bounds.length).toBeGreaterThan(nMax);
        const { moduleStart, clusterId } = await runCountModules(dev(), id, nMax, 256, 16);
        checkModuleStart(moduleStart, bounds, nMax);
        checkClusterId(clusterId);
      }
    });

    it('a grid above 65535 blocks: 70000 blocks of 32 threads over 70000·32 + 5 digis', async () => {
      const grid = 70_000;
      const n = grid * 32 + 5;
      const id = makeIds(n, 21, { maxRun: 400 });
      const bounds = boundaries(id);
      const nMax = bounds.length + 1;
      const { moduleStart, clusterId } = await runCountModules(dev(), id, nMax, 32, grid);
      checkModuleStart(moduleStart, bounds, nMax);
      checkClusterId(clusterId);
    });
  });
}
