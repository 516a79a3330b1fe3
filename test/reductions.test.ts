// Seed 002's VecMax (and vecMin, vecSum) against plain TS references, on both wasm backends.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { deviceMax, deviceMin, deviceSum } from '../src/ops/reduce.js';
import { kernels } from '../src/index.js';
import { LaunchConfigError } from '../src/errors.js';
import { testDevice, rng } from './helpers.js';

const EDGE_SIZES = [0, 1, 31, 32, 33, 1023, 1024, 1025, 4097, 100_003];

function refMax(a: Float32Array) { let m = -Infinity; for (const v of a) if (v > m) m = v; return m; }
function refMin(a: Float32Array) { let m = Infinity; for (const v of a) if (v < m) m = v; return m; }
function refSum(a: Float32Array) { let s = 0, abs = 0; for (const v of a) { s += v; abs += Math.abs(v); } return { s, abs }; }

function data(n: number, seed: number, scale = 1000): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => (r() - 0.5) * 2 * scale);
}

for (const backend of ['wasm', 'serial'] as const) {
  describe(`${backend}: reductions`, async () => {
    const dev = await testDevice({ memoryBytes: 64 << 20, backend, workers: 2, seed: 11 });

    for (const n of EDGE_SIZES) {
      it(`max/min/sum over ${n} elements`, async () => {
        const a = data(n, n + 1);
        expect((await deviceMax(dev, a)).value).toBe(refMax(a));
        expect((await deviceMin(dev, a)).value).toBe(refMin(a));
        const { s, abs } = refSum(a);
        const got = (await deviceSum(dev, a)).value;
        // Stated bound: every addition in f64: |err| ≤ (N + grid)·2⁻⁵³·Σ|a|.
        expect(Math.abs(got - s)).toBeLessThanOrEqual((n + 1024) * 2 ** -53 * abs);
      });
    }

    it('partials are per-block maxima of the grid-stride slices, for several launch shapes', async () => {
      const n = 50_001;
      const a = data(n, 77);
      for (const [grid, block] of [[1, 1], [1, 1024], [7, 32], [64, 256], [200, 64]] as const) {
        const r = await deviceMax(dev, a, { grid, block });
        expect(r.partials.length).toBe(grid);
        for (let b = 0; b < grid; b++) {
          let m = -Infinity;
          for (let base = b * block; base < n; base += grid * block) for (let t = 0; t < block && base + t < n; t++) if (a[base + t]! > m) m = a[base + t]!;
          expect(r.partials[b]).toBe(m);
        }
      }
    });

    it('NaN elements are skipped (the seed compares A[i] > temp), all-NaN gives -Infinity', async () => {
      const a = Float32Array.from([NaN, 3, NaN, -7, NaN]);
      expect((await deviceMax(dev, a)).value).toBe(3);
      expect((await deviceMin(dev, a)).value).toBe(-7);
      expect((await deviceMax(dev, Float32Array.from([NaN, NaN]))).value).toBe(-Infinity);
      expect((await deviceMax(dev, Float32Array.from([-Infinity, -3.4e38]))).value).toBe(Math.fround(-3.4e38));
    });

    it('max/min match the reference on random arrays (property-based)', async () => {
      await fc.assert(fc.asyncProperty(
        fc.float32Array({ minLength: 0, maxLength: 3000, noNaN: true }),
        fc.constantFrom(32, 64, 128, 256, 1024), fc.integer({ min: 1, max: 40 }),
        async (a, block, grid) => {
          expect((await deviceMax(dev, a, { grid, block })).value).toBe(refMax(a));
          expect((await deviceMin(dev, a, { grid, block })).value).toBe(refMin(a));
        }), { numRuns: 60 });
    });

    it('the f64-accumulated sum beats naive f32 summation on an ill-conditioned input', async () => {
      // 2^24 followed by many ones: f32 accumulation loses every one of them.
      const n = 100_000;
      const a = new Float32Array(n).fill(1);
      a[0] = 2 ** 24;
      expect((await deviceSum(dev, a)).value).toBe(2 ** 24 + n - 1);
      let f = Math.fround(0);
      for (const v of a) f = Math.fround(f + v);
      expect(f).toBe(2 ** 24); // the naive way
    });

    it('the sum is schedule independent: identical bits across launches and seeds', async () => {
      const a = data(123_457, 5);
      const A = await dev.upload('f32', a);
      const first = await deviceSum(dev, A);
      for (let k = 0; k < 3; k++) expect((await deviceSum(dev, A)).partials).toEqual(first.partials);
      A.free();
    });
  });
}

describe('vecMax requires its shared memory', async () => {
  const dev = await testDevice({ memoryBytes: 16 << 20, workers: 1 });
  it('the launch config is validated before anything runs', async () => {
    const A = dev.alloc('f32', 10);
    const B = dev.alloc('f32', 1);
    await expect(dev.launch(kernels.vecMax, { grid: 1, block: 2048, sharedBytes: 8192 }, [A, B, 10])).rejects.toBeInstanceOf(LaunchConfigError);
    await expect(dev.launch(kernels.vecMax, { grid: 1, block: 256, sharedBytes: 1020 }, [A, B, 10])).rejects.toThrow(/kernel vecMax needs at least 1024 shared bytes \(4 per thread\), got 1020/);
    await expect(dev.launch(kernels.vecMax, { grid: 1, block: 96, sharedBytes: 4096 }, [A, B, 10])).rejects.toThrow(/power of two/);
    await expect(dev.launch(kernels.vecSum, { grid: 1, block: { x: 32, y: 2 }, sharedBytes: 4096 }, [A, dev.alloc('f64', 1), 10])).rejects.toThrow(/1-D block/);
  });
});

describe('signed zeros: the SIMD fast path gives the bits of the faithful shared-memory tree', async () => {
  const fast = await testDevice({ memoryBytes: 16 << 20, workers: 2 });
  const serial = await testDevice({ memoryBytes: 16 << 20, backend: 'serial', seed: 1 });
  it('partials of zero-heavy inputs are bit-identical on wasm and serial', async () => {
    const r = rng(4);
    for (let trial = 0; trial < 20; trial++) {
      const n = 1 + Math.floor(r() * 5000);
      const a = Float32Array.from({ length: n }, () => (r() < 0.5 ? -0 : r() < 0.98 ? 0 : -1 - r()));
      for (const [grid, block] of [[3, 64], [1, 1024], [17, 32]] as const) {
        for (const op of [deviceMax, deviceMin]) {
          const x = await op(fast, a, { grid, block });
          const y = await op(serial, a, { grid, block });
          expect(Array.from(x.partials).map((v) => Object.is(v, -0) ? '-0' : String(v)))
            .toEqual(Array.from(y.partials).map((v) => Object.is(v, -0) ? '-0' : String(v)));
        }
      }
    }
  });
});

describe('vecSum bits do not depend on the backend', async () => {
  const fast = await testDevice({ memoryBytes: 16 << 20, workers: 2 });
  const serial = await testDevice({ memoryBytes: 16 << 20, backend: 'serial', seed: 9 });
  it('wasm (SIMD tree) and serial (seeded scalar phases) give identical partials', async () => {
    const a = data(70_001, 13, 1e6);
    for (const [grid, block] of [[1, 1024], [69, 1024], [5, 64], [300, 256]] as const) {
      const x = await deviceSum(fast, a, { grid, block });
      const y = await deviceSum(serial, a, { grid, block });
      expect(Array.from(x.partials)).toEqual(Array.from(y.partials));
    }
  });
});
