// CMS pixel countModules (seed 000) against the plain TS reference: exact semantics,
// wrap-around exactly as CUDA's atomicInc, and the schedule-dependent moduleStart order.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { countModules, PHASE2_MAX_MODULES } from '../src/ops/countModules.js';
import { countModulesReference } from '../src/jobs/pixel/reference.js';
import { generateModuleIds } from '../src/jobs/pixel/generate.js';
import { testDevice } from './helpers.js';

const INVALID = 65534;

/** The seed's own example: A A A (x) B B B (x x) C C (x) D, ids as numbers. */
const SEED_EXAMPLE = Uint16Array.from([1, 1, 1, INVALID, 2, 2, 2, INVALID, INVALID, 3, 3, INVALID, INVALID, 4].slice(0, 14));

function expectMatchesReference(got: Awaited<ReturnType<typeof countModules>>, ids: Uint16Array, nMax: number) {
  const ref = countModulesReference(ids, nMax);
  expect(got.count).toBe(ref.count);
  if (!ref.wrapped) expect(Array.from(got.moduleStartSorted)).toEqual(Array.from(ref.sortedStarts));
  expect(got.clusterId.length).toBe(ids.length);
  for (let i = 0; i < ids.length; i++) if (got.clusterId[i] !== i) expect.fail(`clusterId[${i}] = ${got.clusterId[i]}`);
}

for (const backend of ['wasm', 'serial'] as const) {
  describe(`${backend}: countModules`, async () => {
    const dev = await testDevice({ memoryBytes: 64 << 20, backend, workers: 2, seed: 3 });

    it('the seed example: starts 0, 4, 9, 13', async () => {
      const r = await countModules(dev, SEED_EXAMPLE, { shape: { grid: 1, block: 14 } });
      expect(r.count).toBe(4);
      expect(Array.from(r.moduleStartSorted)).toEqual([0, 4, 9, 13]);
    });

    for (const n of [0, 1, 31, 32, 33, 1023, 1025, 4099, 70_001]) {
      it(`${n} digis with invalid runs match the reference`, async () => {
        const ids = generateModuleIds(n, Math.max(1, Math.min(300, n >> 3)), 0.05, n + 7);
        expectMatchesReference(await countModules(dev, ids), ids, 1856);
      });
    }

    it('all-invalid ids: no module, clusterId still initialised', async () => {
      const ids = new Uint16Array(5000).fill(INVALID);
      const r = await countModules(dev, ids);
      expect(r.count).toBe(0);
      expect(r.moduleStartRaw.length).toBe(0);
      expectMatchesReference(r, ids, 1856);
    });

    it('one module (with invalid digis before, inside and after it)', async () => {
      const ids = new Uint16Array(3000).fill(42);
      ids.fill(INVALID, 0, 10); ids.fill(INVALID, 1000, 1500); ids.fill(INVALID, 2990);
      const r = await countModules(dev, ids);
      expect(r.count).toBe(1);
      expect(Array.from(r.moduleStartRaw)).toEqual([10]);
    });

    it('the same module id on both sides of an invalid run is one module; different ids are two', async () => {
      const ids = Uint16Array.from([5, 5, INVALID, INVALID, 5, 6, INVALID, 6, 7]);
      const r = await countModules(dev, ids, { shape: { grid: 3, block: 2 } });
      expect(Array.from(r.moduleStartSorted)).toEqual([0, 5, 8]);
    });

    it('more boundaries than nMaxModules: moduleStart[0] wraps to 0 exactly as CUDA atomicInc does', async () => {
      // Every digi its own module: n boundaries.
      for (const [n, nMax] of [[10, 3], [2000, 1856], [5000, 1856], [4000, PHASE2_MAX_MODULES], [9, 8], [10, 8]] as const) {
        const ids = Uint16Array.from({ length: n }, (_, i) => i % 60000);
        const r = await countModules(dev, ids, { nMaxModules: nMax });
        // atomicInc(p, nMax) applied n times from 0: 0,1,…,nMax,0,1,…  → n mod (nMax + 1)
        expect(r.count).toBe(n % (nMax + 1));
        expectMatchesReference(r, ids, nMax);
        // Every slot 1..nMax+1 was written by some boundary (written values are boundary indices).
        if (n > nMax) for (let k = 1; k <= nMax + 1; k++) expect(r.moduleStart[k]!).toBeLessThan(n);
      }
    });

    it('phase 2 uses nMaxModules 3892', async () => {
      const ids = generateModuleIds(20_000, 3000, 0.01, 5);
      const r = await countModules(dev, ids, { phase: 2 });
      expectMatchesReference(r, ids, 3892);
    });

    it('random inputs and launch shapes match the reference (property-based)', async () => {
      await fc.assert(fc.asyncProperty(
        fc.integer({ min: 0, max: 6000 }), fc.integer({ min: 1, max: 500 }), fc.double({ min: 0, max: 0.9, noNaN: true }),
        fc.integer({ min: 1, max: 50 }), fc.constantFrom(1, 7, 32, 64, 256, 1024), fc.nat(),
        async (n, modules, invalid, grid, block, seed) => {
          const ids = generateModuleIds(n, modules, invalid, seed % 2 ** 32);
          expectMatchesReference(await countModules(dev, ids, { shape: { grid, block }, nMaxModules: 1856 }), ids, 1856);
        }), { numRuns: 60 });
    });
  });
}

describe('schedules: serial is reproducible by seed, different seeds give different legal orders', async () => {
  const dev = await testDevice({ memoryBytes: 32 << 20, backend: 'serial', seed: 1234 });
  const ids = generateModuleIds(20_000, 200, 0.02, 99);
  const ref = countModulesReference(ids, 1856);

  it('the same seed twice gives identical bytes', async () => {
    const a = await countModules(dev, ids, { seed: 77 });
    const b = await countModules(dev, ids, { seed: 77 });
    expect(a.stats.seed).toBe(77);
    expect(Buffer.from(a.moduleStart.buffer).equals(Buffer.from(b.moduleStart.buffer))).toBe(true);
  });

  it('several seeds give several moduleStart orders, each sorting to the reference', async () => {
    const orders = new Set<string>();
    for (let seed = 0; seed < 8; seed++) {
      const r = await countModules(dev, ids, { seed });
      expect(Array.from(r.moduleStartSorted)).toEqual(Array.from(ref.sortedStarts));
      orders.add(Array.from(r.moduleStartRaw).join(','));
    }
    expect(orders.size).toBeGreaterThanOrEqual(6);
  });

  it('a device seed replays a whole sequence of launches; the stats seed replays one launch', async () => {
    const { createDevice } = await import('../src/device.js');
    const runs: string[][] = [];
    for (let k = 0; k < 2; k++) {
      const d = await createDevice({ backend: 'serial', seed: 2024, memoryBytes: 16 << 20 });
      const seq: string[] = [];
      for (let l = 0; l < 3; l++) seq.push(Array.from((await countModules(d, ids)).moduleStartRaw).join(','));
      runs.push(seq);
      await d.destroy();
    }
    expect(runs[0]).toEqual(runs[1]);
    expect(new Set(runs[0]).size).toBe(3); // three launches, three different schedules
    const one = await countModules(dev, ids);
    const again = await countModules(dev, ids, { seed: one.stats.seed! });
    expect(Array.from(again.moduleStartRaw)).toEqual(Array.from(one.moduleStartRaw));
  });
});
