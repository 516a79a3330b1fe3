// Cross-check job for CMS pixel clustering on the SiPixelDigisCUDASOAView store: countModules,
// findClus, clusterChargeCut (src/jobs/pixel/run.ts). What is compared:
// - nModules (moduleStart[0]) and nClustersInModule: exact;
// - moduleStart[1..]: a sorted set (slots are filled in atomicInc order);
// - moduleId (the module each block handled, in moduleStart's order): a multiset;
// - clusterId: as a partition per module — cluster numbering follows the order in which roots
//   win atomicInc, so both sides are renumbered canonically (per module, 0, 1, … in order of the
//   cluster's first digi; invalid digis and dropped clusters keep their values) and then compared
//   exactly. Both after findClus alone and after the charge cut;
// - id (the moduleInd column after the charge cut invalidated dropped clusters): exact.
import type { GpuDevice } from '../../deviceApi.js';
import { generatePixelEvent } from '../../jobs/pixel/generate.js';
import { INVALID_MODULE_ID } from '../../jobs/pixel/constants.js';
import { canonicalizeClusterIds } from '../../jobs/pixel/reference.js';
import { pixelClustering } from '../../jobs/pixel/run.js';
import type { Job } from '../types.js';

/** The digi columns of one event. */
export interface PixelJobInputs { moduleInd: Uint16Array; xx: Uint16Array; yy: Uint16Array; adc: Uint16Array }

/**
 * size ≤ 3: hand-made events (0: empty; 1: one digi; 2, 3: all digis invalid for an odd seed,
 * else a diagonal of `size` pixels in module 7). Larger: a synthetic event (isolated pixels,
 * edge clusters, diagonals, invalid-digi runs, a noisy module) with about size/20 active modules.
 */
export function pixelJobInputs(size: number, seed: number): PixelJobInputs {
  if (size <= 3) {
    const allInvalid = size >= 2 && (seed & 1) === 1;
    return {
      moduleInd: Uint16Array.from({ length: size }, () => (allInvalid ? INVALID_MODULE_ID : 7)),
      xx: Uint16Array.from({ length: size }, (_, i) => 10 + i),
      yy: Uint16Array.from({ length: size }, (_, i) => 20 + i),
      adc: Uint16Array.from({ length: size }, (_, i) => 3000 + 1000 * i),
    };
  }
  const activeModules = Math.max(1, Math.min(1800, Math.round(size / 20)));
  const ev = generatePixelEvent({ seed: seed >>> 0, activeModules, noisyPixels: 200 });
  return { moduleInd: ev.moduleInd, xx: ev.xx, yy: ev.yy, adc: ev.adc };
}

async function runPixel(device: GpuDevice, ev: PixelJobInputs) {
  const fc = await pixelClustering(device, ev, { chargeCut: false });
  const r = await pixelClustering(device, ev);
  return {
    nModules: r.nModules,
    moduleStart: r.moduleStarts,
    moduleId: r.moduleId,
    findClusClusterId: canonicalizeClusterIds(fc.id, fc.clusterId),
    findClusNClusters: fc.nClustersInModule,
    clusterId: canonicalizeClusterIds(r.id, r.clusterId),
    id: r.id,
    nClustersInModule: r.nClustersInModule,
  };
}

export const pixelJob: Job<PixelJobInputs> = {
  name: 'pixel',
  description: 'CMS pixel clustering (countModules, findClus, charge cut): clusterId as a partition per module, ' +
    'clusters per module exact, moduleStart as a sorted set',
  // ~200 modules: SwiftShader takes seconds per 100 findClus workgroups.
  defaultSize: 4000,
  edgeSizes: [0, 1, 2, 3, 4, 40, 4000],
  generate: pixelJobInputs,
  run: runPixel,
  compare: () => ({
    nModules: { kind: 'exact' },
    moduleStart: { kind: 'sortedSet' },
    moduleId: { kind: 'multiset' },
    findClusClusterId: { kind: 'exact' },
    findClusNClusters: { kind: 'exact' },
    clusterId: { kind: 'exact' },
    id: { kind: 'exact' },
    nClustersInModule: { kind: 'exact' },
  }),
};
