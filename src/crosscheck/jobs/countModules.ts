// Cross-check job for CMS pixel countModules (seed 000). The count and clusterId are exact;
// moduleStart's slots are filled in the order threads reach atomicInc, so they are compared as a
// sorted set (the inputs never wrap the counter: fewer boundaries than nMaxModules + 1).
import { moduleIdsForBench, PHASE1_NUMBER_OF_MODULES } from '../../data/synthetic.js';
import { countModules } from '../../ops/countModules.js';
import type { Job } from '../types.js';

export interface CountModulesInputs { ids: Uint16Array; nMaxModules: number }

/** One thread per digi, as the CUDA launch: blocks of 256. */
export function countModulesShape(n: number): { grid: number; block: number } {
  return { block: 256, grid: Math.max(1, Math.ceil(n / 256)) };
}

export const countModulesJob: Job<CountModulesInputs> = {
  name: 'countModules',
  description: 'CMS pixel countModules: moduleStart[0] and clusterId exact, moduleStart[1..] as a sorted set',
  defaultSize: 1 << 20,
  edgeSizes: [0, 1, 2, 3, 255, 256, 257, 1025, 65536 + 3],
  generate(n, seed) {
    // ≤ 1800 modules (< nMaxModules = 1856): no wrap; 5% invalid digis in short runs.
    const nModules = Math.max(1, Math.min(1800, Math.floor(n / 64)));
    return { ids: moduleIdsForBench(n, nModules, 0.05, seed), nMaxModules: PHASE1_NUMBER_OF_MODULES };
  },
  async run(device, { ids, nMaxModules }) {
    const r = await countModules(device, ids, { nMaxModules, shape: countModulesShape(ids.length) });
    return { count: r.count, moduleStart: r.moduleStartRaw, clusterId: r.clusterId };
  },
  compare: () => ({ count: { kind: 'exact' }, moduleStart: { kind: 'sortedSet' }, clusterId: { kind: 'exact' } }),
};
