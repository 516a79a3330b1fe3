// simt's device-wide exclusive scan (kernels/primitives/scan.ts, src/ops/scan.ts) against a plain loop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { testDevice } from './helpers.js';
import { exclusiveScan, SINGLE_LAUNCH_SCAN_MAX } from '../src/ops/scan.js';
import { defaultChunks } from '../src/jobs/sts/run.js';
import { createDevice, type Device } from '../src/device.js';

function reference(a: Uint32Array): { out: Uint32Array; total: number } {
  const out = new Uint32Array(a.length);
  let run = 0;
  for (let i = 0; i < a.length; i++) { out[i] = run; run = (run + a[i]!) >>> 0; }
  return { out, total: run };
}

async function scanOn(dev: Device, a: Uint32Array, shape?: { block: number; itemsPerThread: number }, inPlace = true) {
  const x = await dev.upload('u32', a.length ? a : new Uint32Array(1));
  const y = inPlace ? x : dev.alloc('u32', Math.max(1, a.length));
  try {
    const total = await exclusiveScan(dev, x, y, a.length, shape);
    return { out: (await y.read()).slice(0, a.length), total, input: (await x.read()).slice(0, a.length) };
  } finally {
    x.free();
    if (!inPlace) y.free();
  }
}

describe.each(['wasm', 'serial'] as const)('exclusive scan on %s', (backend) => {
  let dev: Device;
  it('setup', async () => { dev = await testDevice({ backend, seed: 11 }); });

  it('matches a sequential scan on random lengths and shapes (in place and out of place)', async () => {
    await fc.assert(fc.asyncProperty(
      fc.uint32Array({ maxLength: 3000 }),
      fc.constantFrom(1, 3, 32, 256), fc.constantFrom(1, 2, 7, 16), fc.boolean(),
      async (a, block, itemsPerThread, inPlace) => {
        const r = await scanOn(dev, a, { block, itemsPerThread }, inPlace);
        const ref = reference(a);
        expect(r.out).toEqual(ref.out);
        expect(r.total).toBe(ref.total);
        if (!inPlace) expect(r.input).toEqual(a);
      }), { numRuns: 25 });
  });

  it('edges: empty, one item, many tiles (non-power-of-two length)', async () => {
    expect((await scanOn(dev, new Uint32Array(0))).total).toBe(0);
    expect(await scanOn(dev, Uint32Array.of(7))).toMatchObject({ total: 7 });
    const big = Uint32Array.from({ length: 1_000_003 }, (_, i) => (i * 2654435761) % 5);
    const r = await scanOn(dev, big);
    const ref = reference(big);
    expect(r.total).toBe(ref.total);
    expect(r.out).toEqual(ref.out);
  });
});

describe('small scans: one launch up to SINGLE_LAUNCH_SCAN_MAX (in place, default shape)', () => {
  let dev: Device;
  beforeAll(async () => { dev = await createDevice({ memoryBytes: 64 << 20, workers: 2 }); });
  afterAll(async () => { await dev?.destroy(); });
  it.each([1, 5, 4097, SINGLE_LAUNCH_SCAN_MAX, SINGLE_LAUNCH_SCAN_MAX + 1])('n = %i: the plain loop\'s result, in 1 launch at most the bound, 3 above', async (n) => {
    const a = Uint32Array.from({ length: n }, (_, i) => (i * 2654435761) >>> 20);
    const x = await dev.upload('u32', a);
    try {
      const launches: { kernel: string }[] = [];
      const total = await exclusiveScan(dev, x, x, n, {}, launches as never);
      const ref = reference(a);
      expect(total).toBe(ref.total);
      expect(Array.from(await x.read())).toEqual(Array.from(ref.out));
      expect(launches.map((l) => l.kernel)).toEqual(n <= SINGLE_LAUNCH_SCAN_MAX ? ['scanSingle'] : ['scanTileSums', 'scanSingle', 'scanTileApply']);
    } finally {
      x.free();
    }
  });
  it('an out-of-place scan keeps its input, at any size', async () => {
    const r = await scanOn(dev, Uint32Array.of(3, 1, 4, 1, 5), undefined, false);
    expect(Array.from(r.out)).toEqual([0, 3, 4, 8, 9]);
    expect(Array.from(r.input)).toEqual([3, 1, 4, 1, 5]);
  });
  it('defaultChunks: 4 per worker while the histogram table stays within n/8 cells, then 2, then 1', () => {
    expect(defaultChunks(1_000_000, 1000, 2)).toBe(8);
    expect(defaultChunks(4_000_000, 100_000, 2)).toBe(4);
    expect(defaultChunks(1_000_000, 100_000, 2)).toBe(2);
    expect(defaultChunks(10, 100_000, 16)).toBe(16);
    expect(defaultChunks(32_000_000, 100_000, 2)).toBe(8);
  });
});
