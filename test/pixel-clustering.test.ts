// Pixel clustering on the SiPixelDigisCUDASOAView store against the plain-TS references (the
// job's kernels; test/specializations.test.ts holds the per-thread findClus and clusterChargeCut
// of kernels/pixel/clustering.ts to the same references and to these kernels' bytes).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { pixelModuleAtCapacity, testDevice } from './helpers.js';
import { createDevice, type Device } from '../src/device.js';
import { generatePixelEvent } from '../src/jobs/pixel/generate.js';
import {
  canonicalizeClusterIds, clusterPartitionMismatch, countModulesReference, findClusReference, pixelClusteringReference,
  INVALID_MODULE_ID, INVALID_CLUSTER_ID,
} from '../src/jobs/pixel/reference.js';
import { packSoa, soaLayout } from '../src/jobs/pixel/soa.js';
import { pixelClustering, uploadPixelStore, readPixelStore } from '../src/jobs/pixel/run.js';
import { KernelError } from '../src/errors.js';

type Ev = { moduleInd: Uint16Array; xx: Uint16Array; yy: Uint16Array; adc: Uint16Array };

async function expectMatchesReference(dev: Device, ev: Ev): Promise<void> {
  const ref = pixelClusteringReference(ev);
  // findClus alone: the same partition (numbering is the schedule's) and cluster counts
  const fc = await pixelClustering(dev, ev, { chargeCut: false });
  expect(clusterPartitionMismatch(ev.moduleInd, fc.clusterId, ref.findClus.clusterId)).toBeNull();
  expect(fc.nClustersInModule.subarray(0, 4000)).toEqual(ref.findClus.nClustersInModule);
  expect(Array.from(fc.moduleStarts).sort((a, b) => a - b)).toEqual(Array.from(ref.countModules.sortedStarts));
  // moduleId follows moduleStart's (schedule) order: reproduce it with the device's starts
  expect(fc.moduleId).toEqual(findClusReference({ id: ev.moduleInd, x: ev.xx, y: ev.yy }, { moduleStarts: fc.moduleStarts }).moduleId);
  // with the charge cut
  const r = await pixelClustering(dev, ev);
  expect(r.id).toEqual(ref.id);
  expect(canonicalizeClusterIds(r.id, r.clusterId)).toEqual(ref.clusterId);
  expect(r.nClustersInModule.subarray(0, 4000)).toEqual(ref.nClustersInModule);
}

const E = (ids: ArrayLike<number>, xs: ArrayLike<number>, ys: ArrayLike<number>, adcs: ArrayLike<number>): Ev => ({
  moduleInd: Uint16Array.from(ids), xx: Uint16Array.from(xs), yy: Uint16Array.from(ys), adc: Uint16Array.from(adcs),
});

describe.each([['wasm', 4], ['serial', 4], ['serial', 11], ['serial', 23]] as const)('pixel clustering on %s (seed %d)', (backend, seed) => {
  let dev: Device;
  it('setup', async () => { dev = await testDevice({ backend, seed, memoryBytes: 256 << 20 }); });

  it('synthetic events (isolated pixels, edges, diagonals, invalid digis, a noisy module)', async () => {
    await fc.assert(fc.asyncProperty(fc.nat({ max: 1e6 }), fc.integer({ min: 1, max: 200 }), fc.integer({ min: 0, max: 12 }),
      async (seed, activeModules, clustersPerModule) => {
        await expectMatchesReference(dev, generatePixelEvent({ seed, activeModules, clustersPerModule, noisyPixels: 200 }));
      }), { numRuns: backend === 'serial' ? 6 : 12 });
  });

  it('a full-size event (1800 modules, layer-1 thresholds included)', async () => {
    await expectMatchesReference(dev, generatePixelEvent({ seed: 77, activeModules: 1800 }));
  });

  it('one module; a module of maxPixInModule digis with more than 1024 clusters', async () => {
    await expectMatchesReference(dev, generatePixelEvent({ seed: 31, activeModules: 1, invalidRunProbability: 0 }));
    const big = pixelModuleAtCapacity(seed, 97);
    expect(big.moduleInd.length).toBe(4000);
    // after invalid digis and before another module (msize found by atomicMin)
    const pre = 37;
    const two = E([...Array(pre).fill(INVALID_MODULE_ID), ...big.moduleInd, 200, 200], [...Array(pre).fill(0), ...big.xx, 5, 6],
      [...Array(pre).fill(0), ...big.yy, 9, 9], [...Array(pre).fill(0), ...big.adc, 3000, 3000]);
    for (const ev of [big, two]) {
      const ref = pixelClusteringReference(ev);
      expect(ref.findClus.nClustersInModule[97]).toBeGreaterThan(1024);
      // Which clusters pass 1024 follows the schedule's numbering: findClus is compared here, the
      // charge cut on the reference's numbering in test/specializations.test.ts.
      const r = await pixelClustering(dev, ev, { chargeCut: false });
      expect(clusterPartitionMismatch(ev.moduleInd, r.clusterId, ref.findClus.clusterId)).toBeNull();
      expect(r.nClustersInModule.subarray(0, 4000)).toEqual(ref.findClus.nClustersInModule);
      const cut = await pixelClustering(dev, ev);
      expect(cut.nClustersInModule[97]).toBeLessThanOrEqual(1024);
      expect(cut.id.filter((v) => v === INVALID_MODULE_ID).length).toBeGreaterThan(ev.moduleInd.filter((v) => v === INVALID_MODULE_ID).length);
    }
  });

  it('more than maxNeighbours neighbours trap, as CMSSW\'s assert', async () => {
    const ev = E(Array(12).fill(3), Array(12).fill(7), Array(12).fill(7), Array(12).fill(100));
    await expect(pixelClustering(dev, ev)).rejects.toThrow(KernelError);
    await expectMatchesReference(dev, E(Array(11).fill(3), Array(11).fill(7), Array(11).fill(7), Array(11).fill(100)));
  });

  it('edges: empty, one digi, all invalid, random pixel clouds with duplicates', async () => {
    await expectMatchesReference(dev, E([], [], [], []));
    await expectMatchesReference(dev, E([5], [3], [4], [5000]));
    await expectMatchesReference(dev, E([5], [3], [4], [50]));
    const allInvalid = E(Array(70).fill(INVALID_MODULE_ID), Array(70).fill(1), Array(70).fill(1), Array(70).fill(9));
    const r = await pixelClustering(dev, allInvalid);
    expect(r.nModules).toBe(0);
    expect(Array.from(r.clusterId)).toEqual(Array.from({ length: 70 }, (_, i) => i)); // countModules' init only
    // dense random clouds in a few modules: many neighbours, duplicates, label propagation over long chains
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 3000 })), { maxLength: 300 }),
      async (px) => {
        px.sort((a, b) => a[0] - b[0]);
        const ev = E(px.map((p) => (p[0] === 2 ? 97 : p[0] === 1 ? 40 : INVALID_MODULE_ID)), px.map((p) => p[1]), px.map((p) => p[2]), px.map((p) => p[3]));
        // duplicates may exceed maxNeighbours; keep clouds where every pixel has at most 10 later neighbours
        await expectMatchesReference(dev, ev);
      }), { numRuns: 15 });
  });
});

describe('the SoA store on the device', () => {
  it('is the seed layout byte for byte: a packed dump uploads, clusters in place and reads back', async () => {
    const dev = await createDevice({ memoryBytes: 64 << 20 });
    try {
      const ev = generatePixelEvent({ seed: 5, activeModules: 20 });
      const maxFedWords = ev.n + 37; // a store larger than the event, as CMSSW allocates maxFedWords
      const bytes = packSoa({ clus: ev.clus, pdigi: ev.pdigi, rawIdArr: ev.rawIdArr, adc: ev.adc, xx: ev.xx, yy: ev.yy, moduleInd: ev.moduleInd }, maxFedWords);
      const layout = soaLayout(maxFedWords);
      expect(layout.offsets).toMatchObject({ clus: 0, pdigi: 4 * layout.stride, rawIdArr: 8 * layout.stride, adc: 12 * layout.stride });
      const store = await uploadPixelStore(dev, { bytes, maxFedWords, n: ev.n });
      expect(store.bytes.byteOffset % 128).toBe(0);
      for (const off of Object.values(store.layout.offsets)) expect((store.bytes.byteOffset + off) % 128).toBe(0);
      const back = await readPixelStore(store);
      expect(back.bytes).toEqual(bytes);
      store.bytes.free();
      const r = await pixelClustering(dev, { bytes, maxFedWords, n: ev.n });
      const ref = pixelClusteringReference(ev);
      expect(canonicalizeClusterIds(r.id, r.clusterId)).toEqual(ref.clusterId);
      // untouched columns stay byte for byte
      const s = layout.offsets;
      expect(r.storeBytes.subarray(s.pdigi, s.adc)).toEqual(bytes.subarray(s.pdigi, s.adc));
      expect(r.storeBytes.subarray(s.adc, s.moduleInd)).toEqual(bytes.subarray(s.adc, s.moduleInd));
    } finally {
      await dev.destroy();
    }
  });

  it('serial: the cluster numbering and moduleStart order are reproduced by seed', async () => {
    const ev = generatePixelEvent({ seed: 9, activeModules: 30 });
    const runs = [];
    for (const seed of [5, 5, 6]) {
      const dev = await createDevice({ backend: 'serial', seed, memoryBytes: 64 << 20 });
      try { runs.push(await pixelClustering(dev, ev, { chargeCut: false })); } finally { await dev.destroy(); }
    }
    expect(runs[1]!.clusterId).toEqual(runs[0]!.clusterId);
    expect(runs[1]!.moduleStarts).toEqual(runs[0]!.moduleStarts);
    expect(runs[2]!.clusterId).not.toEqual(runs[0]!.clusterId);
    expect(countModulesReference(ev.moduleInd, 3999).sortedStarts).toEqual(Uint32Array.from(runs[2]!.moduleStarts).sort());
    expect(runs[0]!.clusterId.filter((c) => c === INVALID_CLUSTER_ID).length).toBeGreaterThan(0);
  });
});
