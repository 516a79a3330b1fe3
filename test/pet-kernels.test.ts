// The pet kernels one by one: the sort at sizes around tile and power-of-two edges. (The seed's
// divergent FillDataKernel is the race corpus's petFillData: test/race-reports.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createDevice, type Device } from '../src/device.js';
import { Xoshiro128ss } from '../src/data/random.js';
import { petCoinCount, petMergeBlocks, petMergeRanks, petSortTiles, petSplitPairs } from '../src/kernels/pet.js';
import { blockScanSharedBytes } from '../src/kernels/primitives.js';
import { shippedKernels } from '../src/shippedModule.js';

function nextPow2(x: number) { let p = 1; while (p < x) p *= 2; return p; }

/** The sort stage alone on `times` (crystal = input index): returns the output order. */
async function deviceSort(dev: Device, times: Float64Array): Promise<Uint32Array> {
  const m = times.length;
  const n2 = Math.max(nextPow2(m), 1024);
  const words = new Uint32Array(4 * n2);
  const f64 = new Float64Array(words.buffer);
  for (let i = 0; i < m; i++) { words[4 * i] = i; f64[2 * i + 1] = times[i]!; }
  const a = await dev.upload('u32', words), b = dev.alloc('u32', 4 * n2);
  const re = dev.alloc('u32', n2 / 256), ro = dev.alloc('u32', n2 / 256);
  await dev.launch((await shippedKernels(dev)).petPadSingles!, { grid: 4, block: 256 }, [a, b, m, n2]);
  await dev.launch(petSortTiles, { grid: n2 / 1024, block: 512, sharedBytes: 32768 }, [a, m]);
  let d = a, o = b;
  for (let S = 1024; S < m; S *= 2) {
    await dev.launch(petMergeRanks, { grid: Math.ceil(n2 / 256 / 256), block: 256 }, [d, re, ro, S, m, n2]);
    await dev.launch(petMergeBlocks, { grid: { x: (2 * S) / 256, y: n2 / (2 * S) }, block: 256, sharedBytes: 8192 }, [d, o, re, ro, S, m]);
    [d, o] = [o, d];
  }
  const w = await d.read();
  const out = new Uint32Array(m);
  for (let i = 0; i < m; i++) out[i] = w[4 * i]!;
  // padding stays behind the real singles
  for (let i = m; i < n2; i++) expect(new Float64Array(w.buffer)[2 * i + 1]).toBe(Infinity);
  a.free(); b.free(); re.free(); ro.free();
  return out;
}

function stableOrder(times: Float64Array): number[] {
  return Array.from(times.keys()).sort((x, y) => times[x]! - times[y]! || x - y);
}

for (const backend of ['wasm', 'serial'] as const) {
  describe(`pet merge sort on ${backend}`, () => {
    let dev: Device;
    beforeAll(async () => { dev = await createDevice({ backend, seed: 5, memoryBytes: 256 << 20 }); });
    afterAll(async () => { await dev.destroy(); });

    for (const m of [2, 255, 256, 257, 1023, 1024, 1025, 2047, 2048, 2049, 3000, 8193]) {
      it(`sorts ${m} singles stably`, async () => {
        const times = Float64Array.from({ length: m }, (_, i) => ((i * 2654435761) % 1000) * (i % 3 === 0 ? 1 : 0.5));
        expect(Array.from(await deviceSort(dev, times))).toEqual(stableOrder(times));
      });
    }

    it('treats -0 and +0 as equal keys and orders negatives (tile radix path)', async () => {
      const times = Float64Array.from({ length: 3000 }, (_, i) => [0, -0, -1.5, 2, -0, 1e-300, -1e-300][i % 7]! * (i % 11 === 0 ? 1 : 1));
      expect(Array.from(await deviceSort(dev, times))).toEqual(stableOrder(times));
      const wide = Float64Array.from({ length: 2500 }, (_, i) => ((i * 7919) % 2500) * 2 ** ((i % 60) - 30));
      expect(Array.from(await deviceSort(dev, wide))).toEqual(stableOrder(wide));
    });

    it('property: any times (duplicates, negatives, sorted and reversed runs)', async () => {
      await fc.assert(fc.asyncProperty(
        fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true, noDefaultInfinity: true })), { minLength: 1, maxLength: 5000 }),
        fc.constantFrom('asis', 'sorted', 'reversed'),
        async (arr, how) => {
          const xs = arr.slice();
          if (how === 'sorted') xs.sort((a, b) => a - b);
          if (how === 'reversed') xs.sort((a, b) => b - a);
          const times = Float64Array.from(xs);
          expect(Array.from(await deviceSort(dev, times))).toEqual(stableOrder(times));
        }), { numRuns: backend === 'serial' ? 8 : 25 });
    });
  });
}

describe('petCoinCount with a partial last warp (blocks of 48), whatever the shared memory held', () => {
  for (const [backend, seed] of [['wasm', 1], ['serial', 1], ['serial', 5]] as const) {
    it(`${backend}${backend === 'serial' ? ` seed ${seed}` : ''}: the hand-written kernel and its generic form count as the seed does`, async () => {
      const dev = await createDevice({ backend, seed, memoryBytes: 64 << 20 });
      try {
        const generic = (await shippedKernels(dev)).petCoinCount!;
        const n = 3000, elems = 2, block = 48, grid = Math.ceil(Math.ceil(n / elems) / block);
        const next = Int32Array.from({ length: n }, (_, i) => (i % 3 === 1 ? i + 1 : -1));
        const nextIndex = await dev.upload('i32', next);
        // Singles all over each worker's shared memory first (the tile sort's 32 KiB tile).
        const junk = await dev.upload('u32', Uint32Array.from({ length: 8 * 4 * 1024 }, (_, i) => (i * 2654435761) >>> 0));
        for (const kernel of [petCoinCount, generic]) {
          await dev.launch(petSortTiles, { grid: 8, block: 512, sharedBytes: 32768 }, [junk, 8 * 1024]);
          const scanId = await dev.upload('u32', new Uint32Array(grid * block));
          const globalLen = await dev.upload('u32', new Uint32Array(grid));
          const newLength = await dev.upload('u32', new Uint32Array(1));
          await dev.launch(kernel, { grid, block, sharedBytes: blockScanSharedBytes(block) }, [nextIndex, n, scanId, globalLen, newLength, elems]);
          const len = Array.from(await globalLen.read());
          for (let b = 0; b < grid; b++) {
            let want = 0;
            for (let i = b * block * elems; i < Math.min(n, (b + 1) * block * elems); i++) if (next[i] !== -1) want++;
            expect(len[b], `${kernel.module ? 'generic' : 'hand-written'}: block ${b}`).toBe(want);
          }
          expect((await newLength.read())[0]).toBe(next.filter((x) => x !== -1).length);
        }
      } finally {
        await dev.destroy();
      }
    });
  }
});

for (const backend of ['wasm', 'serial'] as const) {
  describe(`petSplitPairs (CoinStruct records → the pair table's columns) on ${backend}`, () => {
    let dev: Device;
    beforeAll(async () => { dev = await createDevice({ backend, seed: 3, memoryBytes: 64 << 20 }); });
    afterAll(async () => { await dev.destroy(); });
    for (const [n, grid] of [[0, 1], [1, 1], [3, 1], [1000, 2], [70_001, 64], [70_001, 300]] as const) {
      it(`${n} pairs, grid ${grid}`, async () => {
        // Random words: every bit pattern is copied as is (NaN energies and times included).
        const g = new Xoshiro128ss(12345 + n);
        const words = Uint32Array.from({ length: 8 * n }, () => g.nextU32());
        const first = Uint32Array.from({ length: n }, (_, k) => 2 * k + (k % 3));
        const pairs = await dev.upload('u32', n ? words : new Uint32Array(8));
        const f = await dev.upload('u32', n ? first : new Uint32Array(1));
        const len = Math.max(1, n);
        const index1 = dev.alloc('u32', len), c0 = dev.alloc('u32', len), c1 = dev.alloc('u32', len);
        const e0 = dev.alloc('f32', len), e1 = dev.alloc('f32', len), t0 = dev.alloc('f64', len), t1 = dev.alloc('f64', len);
        await dev.launch(petSplitPairs, { grid, block: 256 }, [pairs, f, n, index1, c0, c1, e0, e1, t0, t1]);
        const bits = async (a: { read(): Promise<ArrayLike<number> & { buffer: ArrayBufferLike; byteOffset: number; byteLength: number }> }, words32: number) => {
          const v = await a.read();
          return Array.from(new Uint32Array(v.buffer, v.byteOffset, v.byteLength / 4).slice(0, words32 * n));
        };
        const col = (off: number, width: number) => Array.from({ length: width * n }, (_, j) => words[8 * Math.floor(j / width) + off + (j % width)]!);
        expect(Array.from((await index1.read()).slice(0, n))).toEqual(Array.from(first, (v) => v + 1));
        expect(await bits(c0, 1)).toEqual(col(0, 1));
        expect(await bits(c1, 1)).toEqual(col(4, 1));
        expect(await bits(e0, 1)).toEqual(col(1, 1));
        expect(await bits(e1, 1)).toEqual(col(5, 1));
        expect(await bits(t0, 2)).toEqual(col(2, 2));
        expect(await bits(t1, 2)).toEqual(col(6, 2));
        for (const a of [pairs, f, index1, c0, c1, e0, e1, t0, t1]) a.free();
      });
    }
  });
}
