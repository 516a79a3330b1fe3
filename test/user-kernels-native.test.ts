// The user-kernels suite's native C (bench/native/userkernels.c) against its JS baselines
// (bench/userKernelsJs.ts): same inputs, same results, on odd sizes and shapes (partial blocks,
// a non-square matrix whose sides are not multiples of 32, blocks of one warp). Inputs: randomU8
// (raw nextU32 draws), randomF32 (uniformF32) and moduleIdsForBench (uniformInt), all on
// Xoshiro128ss (src/data/random.ts), generated again by the C program from the same seed; nothing
// is pinned, the C results are compared with the JS baselines'.
import { describe, expect, it } from 'vitest';
import { checksum32 } from '../src/data/random.js';
import { moduleIdsForBench, randomF32 } from '../src/data/synthetic.js';
import { buildNative, runNative } from '../bench/native/index.js';
import * as js from '../bench/userKernelsJs.js';

describe('user-kernels: native C agrees with the JS baselines', () => {
  const build = buildNative();
  const ok = build.ok && !!build.bins['userkernels'];
  const n = 300_007;
  const shapes = [{}, { grid: 7, block: 32 }, { grid: 1000, block: 1024 }];

  it.skipIf(!ok)('histogram', async () => {
    const bins = js.histogram256(js.randomU8(n, 3));
    for (const shape of shapes) {
      const r = await runNative('histogram', { n, seed: 3, threads: 2, repeat: 1, extra: shape });
      expect(r.ok).toBe(true);
      expect(r['outChecksum']).toBe(checksum32(bins));
    }
  });

  it.skipIf(!ok)('transpose (500 x 333)', async () => {
    const input = randomF32(500 * 333, 3);
    const r = await runNative('transpose', { n: 500 * 333, seed: 3, threads: 2, repeat: 1, extra: { width: 500 } });
    expect(r.ok).toBe(true);
    expect(r.checksum).toBe(checksum32(input));
    expect(r['outChecksum']).toBe(checksum32(js.transpose(input, 500, 333)));
  });

  it.skipIf(!ok)('shuffleSum and vecMax', async () => {
    const input = randomF32(n, 3);
    const sum = js.sum(input);
    for (const shape of shapes) {
      const s = await runNative('shuffleSum', { n, seed: 3, threads: 2, repeat: 1, extra: shape });
      expect(s.ok).toBe(true);
      expect(s['exact']).toBe(sum);
      expect(Math.abs(s.result - sum)).toBeLessThanOrEqual(Number(s['tolerance']));
      const m = await runNative('vecMaxGeneric', { n, seed: 3, threads: 2, repeat: 1, extra: shape });
      expect(m.ok).toBe(true);
      expect(Math.fround(m.result)).toBe(js.max(input));
    }
  });

  it.skipIf(!ok)('countModules', async () => {
    const expected = js.countModules(moduleIdsForBench(n, 100, 0.05, 3));
    for (const shape of shapes) {
      const r = await runNative('countModulesGeneric', { n, seed: 3, threads: 2, repeat: 1, extra: { ...shape, modules: 100, invalid: 0.05 } });
      expect(r.ok).toBe(true);
      expect(r.result).toBe(expected.count);
      expect(r['outChecksum']).toBe(checksum32(expected.starts));
    }
  });
});
