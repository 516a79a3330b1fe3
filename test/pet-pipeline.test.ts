import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createDevice, type Device } from '../src/device.js';
import { generatePetData, type PetDataset } from '../src/jobs/pet/generate.js';
import { TruncatedFrameError, FRAME_BYTES } from '../src/jobs/pet/format.js';
import { TableError, GeometryError, DEFAULT_GEOMETRY } from '../src/jobs/pet/geometry.js';
import {
  CoincidenceOptionsError, coincidencesReference, convertReference, makeSingles, PetFrameError, sortByTimeReference, type Singles,
} from '../src/jobs/pet/reference.js';
import { runPet, type PetSingles, type PetRunOptions } from '../src/jobs/pet/run.js';

function keys(s: { crystal: Uint32Array; energy: Float32Array; time: Float64Array }): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.crystal.length; i++) out.push(`${s.time[i]}|${s.crystal[i]}|${s.energy[i]}`);
  return out.sort();
}

function asSingles(s: PetSingles): Singles { return makeSingles(s.crystal, s.energy, s.time); }

async function checkAgainstReference(dev: Device, ds: PetDataset, opts: PetRunOptions = {}) {
  const tables = { positionTable: ds.positionTable, energyTable: ds.energyTable };
  const r = await runPet(dev, ds.frames, ds.geometry, tables, opts);
  const ref = convertReference(ds.frames, ds.geometry, ds.positionTable, ds.energyTable, { energyWindow: opts.energyWindow });
  // 1. convert: the same singles, as a multiset (block order depends on the atomicAdds).
  expect(r.singles.crystal.length).toBe(ref.crystal.length);
  expect(keys(r.singles)).toEqual(keys(ref));
  // 2. sort: the stable time sort of what convert produced.
  const want = sortByTimeReference(asSingles(r.singles)).singles;
  expect(Array.from(r.sorted.time)).toEqual(Array.from(want.time));
  expect(Array.from(r.sorted.crystal)).toEqual(Array.from(want.crystal));
  expect(Array.from(r.sorted.energy)).toEqual(Array.from(want.energy));
  // 3. coincidences on the sorted singles.
  const pairs = coincidencesReference(asSingles(r.sorted), { window: opts.window });
  expect(r.pairs.count).toBe(pairs.count);
  for (const f of ['index0', 'index1', 'crystal0', 'crystal1', 'energy0', 'energy1', 'time0', 'time1'] as const) {
    expect(Array.from(r.pairs[f])).toEqual(Array.from(pairs[f]));
  }
  return r;
}

for (const backend of ['wasm', 'serial'] as const) {
  describe(`PET pipeline on ${backend}`, () => {
    let dev: Device;
    beforeAll(async () => { dev = await createDevice({ backend, seed: 11, memoryBytes: 512 << 20 }); });
    afterAll(async () => { await dev.destroy(); });

    for (const n of [0, 1, 2, 3, 1000, 1025, 4097, 5000]) {
      it(`matches the reference on ${n} generated frames`, async () => {
        await checkAgainstReference(dev, generatePetData({ nFrames: n, seed: n + 1 }));
      });
    }

    it('matches the reference over several merge passes (40k frames, pile-up)', async () => {
      const r = await checkAgainstReference(dev, generatePetData({ nFrames: 40_000, seed: 5, meanEventGap: 3000 }));
      expect(r.mergePasses).toBeGreaterThanOrEqual(4);
      expect(r.pairs.count).toBeGreaterThan(100);
    });

    it('keeps every frame with no energy window, none with an empty one', async () => {
      const ds = generatePetData({ nFrames: 3000, seed: 9 });
      const all = await checkAgainstReference(dev, ds, { energyWindow: null });
      expect(all.singles.crystal.length).toBe(3000);
      const none = await checkAgainstReference(dev, ds, { energyWindow: [10000, 20000] });
      expect(none.singles.crystal.length).toBe(0);
      expect(none.pairs.count).toBe(0);
    });

    for (const n of [1024, 1025, 2049]) {
      it(`sorts and pairs exactly ${n} singles (no energy window)`, async () => {
        const r = await checkAgainstReference(dev, generatePetData({ nFrames: n, seed: 3 * n }), { energyWindow: null });
        expect(r.sorted.time.length).toBe(n);
        expect(r.mergePasses).toBe(Math.max(0, Math.ceil(Math.log2(n / 1024))));
      });
    }

    it('honours the coincidence window (0 and wide)', async () => {
      const ds = generatePetData({ nFrames: 6000, seed: 21, meanEventGap: 2000 });
      await checkAgainstReference(dev, ds, { window: 0 });
      await checkAgainstReference(dev, ds, { window: 50_000 });
    });

    it('sorts stably when many times are equal', async () => {
      const ds = generatePetData({ nFrames: 9000, seed: 4 });
      for (let i = 0; i < ds.nFrames; i++) {
        const o = i * FRAME_BYTES + 2;
        for (let k = 0; k < 8; k++) ds.frames[o + k] = 0;
        ds.frames[o + 7] = i % 5;  // five distinct times
      }
      await checkAgainstReference(dev, ds, { energyWindow: null, window: 0 });
    });

    it('property: random seeds, sizes, windows', async () => {
      await fc.assert(fc.asyncProperty(
        fc.integer({ min: 0, max: 6000 }), fc.nat(1000), fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 500, max: 30_000 }),
        async (n, seed, window, gap) => {
          await checkAgainstReference(dev, generatePetData({ nFrames: n, seed, meanEventGap: gap }), { window });
        }), { numRuns: backend === 'serial' ? 6 : 12 });
    });

    it('rejects bad inputs with typed errors before launching anything', async () => {
      const ds = generatePetData({ nFrames: 100, seed: 2 });
      const tables = { positionTable: ds.positionTable, energyTable: ds.energyTable };
      await expect(runPet(dev, ds.frames.subarray(0, 100 * 16 - 3), ds.geometry, tables)).rejects.toThrow(TruncatedFrameError);
      await expect(runPet(dev, ds.frames, ds.geometry, { ...tables, energyTable: ds.energyTable.subarray(1) })).rejects.toThrow(TableError);
      await expect(runPet(dev, ds.frames, ds.geometry, { ...tables, positionTable: ds.positionTable.subarray(1) })).rejects.toThrow(TableError);
      await expect(runPet(dev, ds.frames, { ...DEFAULT_GEOMETRY, duNum: 3 }, tables)).rejects.toThrow(GeometryError);
      await expect(runPet(dev, ds.frames, ds.geometry, tables, { energyWindow: [600, 300] })).rejects.toThrow(CoincidenceOptionsError);
      await expect(runPet(dev, ds.frames, ds.geometry, tables, { window: -1 })).rejects.toThrow(CoincidenceOptionsError);
      const before = dev.memoryInfo().allocations;
      const bad = ds.frames.slice();
      bad[37 * 16 + 1] = 200; // BDM 200 does not exist
      await expect(runPet(dev, bad, ds.geometry, tables)).rejects.toThrow(/frame 37: BDM 200/);
      await expect(runPet(dev, bad, ds.geometry, tables)).rejects.toThrow(PetFrameError);
      expect(dev.memoryInfo().allocations).toBe(before);
    });
  });
}

describe('PET pipeline on serial is reproduced by its seed', () => {
  it('same seed, same bytes; the singles order is schedule dependent', async () => {
    const ds = generatePetData({ nFrames: 30_000, seed: 77 });
    const tables = { positionTable: ds.positionTable, energyTable: ds.energyTable };
    const run = async (seed: number) => {
      const dev = await createDevice({ backend: 'serial', seed, memoryBytes: 256 << 20 });
      try { return await runPet(dev, ds.frames, ds.geometry, tables); } finally { await dev.destroy(); }
    };
    const a = await run(1), b = await run(1), c = await run(2);
    expect(Array.from(a.singles.crystal)).toEqual(Array.from(b.singles.crystal));
    expect(Array.from(a.singles.time)).toEqual(Array.from(b.singles.time));
    expect(Array.from(a.singles.time)).not.toEqual(Array.from(c.singles.time));
    expect(Array.from(a.sorted.time)).toEqual(Array.from(c.sorted.time));
    expect(Array.from(a.pairs.index0)).toEqual(Array.from(c.pairs.index0));
  });
});
