// Warp intrinsics, block predicates, per-thread registers across a barrier, dynamic shared
// memory and 3-D indices, against models written from the CUDA Programming Guide.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { kernels } from '../src/index.js';
import { testDevice, rng } from './helpers.js';

/** CUDA Programming Guide, "Warp Shuffle Functions", for the lanes of one warp. */
function shflModel(op: number, arg: number, width: number, mask: number, vals: number[], src: number[]): number[] {
  const inMask = (l: number) => ((mask >>> l) & 1) === 1;
  return vals.map((own, l) => {
    if (!inMask(l)) return own;
    const base = l - (l % width);
    switch (op) {
      case 0: return vals[base + (((src[l]! % width) + width) % width)]!;
      case 1: return vals[base + (((arg % width) + width) % width)]!;
      case 2: return l - base >= arg ? vals[l - arg]! : own;               // up: lower delta lanes unchanged
      case 3: return l - base + arg < width ? vals[l + arg]! : own;        // down: upper delta lanes unchanged
      case 4: { const s = l ^ arg; return s < base + width && s < 32 ? vals[s]! : own; } // xor: later groups → own
      default: throw new Error('op');
    }
  });
}

describe('warp intrinsics', async () => {
  const dev = await testDevice({ memoryBytes: 16 << 20, workers: 2 });

  async function probe(op: number, arg: number, width: number, mask: number, vals: Int32Array, src: Int32Array) {
    const v = await dev.upload('i32', vals), a = await dev.upload('i32', src);
    const o = dev.alloc('i32', vals.length);
    await o.fill(0);
    await dev.launch(kernels.warpProbe, { grid: 1, block: vals.length }, [op, arg, width, mask >>> 0, v, a, o]);
    const out = await o.read();
    v.free(); a.free(); o.free();
    return out;
  }

  it('shuffles agree with the CUDA model for random values, deltas, widths and masks', async () => {
    const arb = fc.record({
      op: fc.integer({ min: 0, max: 4 }), arg: fc.integer({ min: 0, max: 40 }),
      width: fc.constantFrom(1, 2, 4, 8, 16, 32), full: fc.boolean(), mask: fc.nat({ max: 2 ** 32 - 1 }),
      vals: fc.array(fc.integer(), { minLength: 64, maxLength: 64 }), src: fc.array(fc.integer({ min: -40, max: 40 }), { minLength: 64, maxLength: 64 }),
    });
    await fc.assert(fc.asyncProperty(arb, async ({ op, arg, width, full, mask, vals, src }) => {
      const m = full ? 0xffffffff : mask;
      const out = await probe(op, op === 2 || op === 3 ? Math.min(arg, 32) : arg, width, m, Int32Array.from(vals), Int32Array.from(src));
      const a = op === 2 || op === 3 ? Math.min(arg, 32) : arg;
      for (let w = 0; w < 2; w++) {
        const want = shflModel(op, a, width, m, vals.slice(w * 32, w * 32 + 32), src.slice(w * 32, w * 32 + 32));
        expect(Array.from(out.slice(w * 32, w * 32 + 32))).toEqual(want);
      }
    }), { numRuns: 200 });
  });

  it('the classic shfl_down tree reduction sums a warp', async () => {
    // Emulates `for (o = 16; o > 0; o /= 2) v += __shfl_down_sync(FULL, v, o)` step by step.
    let vals = Int32Array.from({ length: 32 }, (_, i) => i * i);
    for (let o = 16; o > 0; o >>= 1) {
      const shifted = await probe(3, o, 32, 0xffffffff, vals, new Int32Array(32));
      vals = vals.map((v, i) => v + shifted[i]!);
    }
    expect(vals[0]).toBe(Array.from({ length: 32 }, (_, i) => i * i).reduce((s, x) => s + x));
  });

  it('ballot, any and all', async () => {
    const r = rng(3);
    for (let trial = 0; trial < 20; trial++) {
      const preds = Int32Array.from({ length: 64 }, () => (r() < [0, 0.5, 1][trial % 3]! ? 1 + Math.floor(r() * 5) : 0));
      const mask = trial % 2 ? 0xffffffff : Math.floor(r() * 2 ** 32);
      const bal = await probe(5, 0, 32, mask, preds, new Int32Array(64));
      const any = await probe(6, 0, 32, mask, preds, new Int32Array(64));
      const all = await probe(7, 0, 32, mask, preds, new Int32Array(64));
      for (let w = 0; w < 2; w++) {
        let bits = 0;
        for (let l = 0; l < 32; l++) if (((mask >>> l) & 1) && preds[w * 32 + l]) bits |= 1 << l;
        expect(bal[w]! >>> 0).toBe(bits >>> 0);
        expect(any[w]).toBe(bits !== 0 ? 1 : 0);
        expect(all[w]).toBe((bits >>> 0) === (mask >>> 0) ? 1 : 0);
      }
    }
  });
});

describe('block-wide barriers with predicates', async () => {
  const dev = await testDevice({ memoryBytes: 16 << 20, workers: 2 });
  it('__syncthreads_count / _or / _and over each block', async () => {
    const r = rng(9);
    for (const block of [1, 31, 32, 33, 256, 1023, 1024]) {
      const grid = 5;
      const preds = Int32Array.from({ length: grid * block }, (_, i) => {
        const b = Math.floor(i / block);
        return b === 0 ? 0 : b === 1 ? 7 : r() < 0.3 ? -1 : 0;
      });
      const p = await dev.upload('i32', preds);
      const o = dev.alloc('i32', grid * 3);
      await dev.launch(kernels.blockPredicateProbe, { grid, block }, [p, o]);
      const out = await o.read();
      for (let b = 0; b < grid; b++) {
        const mine = Array.from(preds.slice(b * block, (b + 1) * block));
        const count = mine.filter((x) => x !== 0).length;
        expect([out[b * 3], out[b * 3 + 1], out[b * 3 + 2]]).toEqual([count, count > 0 ? 1 : 0, count === block ? 1 : 0]);
      }
      p.free(); o.free();
    }
  });
});

describe('registers across a barrier, shared memory, indices', async () => {
  for (const backend of ['wasm', 'serial'] as const) {
    const dev = await testDevice({ memoryBytes: 16 << 20, backend, workers: 2, seed: 5 });
    it(`${backend}: each thread adds its neighbour's value read from shared memory after the barrier`, async () => {
      for (const [n, block] of [[0, 32], [1, 1], [33, 32], [1000, 256], [1025, 1024]] as const) {
        const input = Int32Array.from({ length: n }, (_, i) => (i * 7919) % 1000 - 500);
        const inp = await dev.upload('i32', input.length ? input : new Int32Array(1));
        const out = dev.alloc('i32', Math.max(1, n));
        const grid = Math.max(1, Math.ceil(n / block));
        await dev.launch(kernels.neighbourSum, { grid, block, sharedBytes: 4 * block }, [inp, out, n]);
        const got = await out.read(0, n);
        const want = input.map((x, i) => {
          const b = Math.floor(i / block), t = i % block;
          const nb = b * block + ((t + 1) % block);
          return x + (nb < n ? input[nb]! : 0);
        });
        expect(Array.from(got)).toEqual(Array.from(want));
        inp.free(); out.free();
      }
    });

    it(`${backend}: blockIdx/threadIdx cover a 3-D grid of 3-D blocks exactly once`, async () => {
      const grid = { x: 3, y: 2, z: 2 }, block = { x: 4, y: 3, z: 2 };
      const total = 12 * 24;
      const out = dev.alloc('i32', total * 6);
      await out.fill(-1);
      const s = await dev.launch(kernels.writeIndices, { grid, block }, [out]);
      expect(s.blocks).toBe(12);
      const v = await out.read();
      const seen = new Set<string>();
      for (let g = 0; g < total; g++) {
        const [bx, by, bz, tx, ty, tz] = Array.from(v.slice(g * 6, g * 6 + 6));
        const blockLin = bx! + 3 * (by! + 2 * bz!);
        const t = tx! + 4 * (ty! + 3 * tz!);
        expect(blockLin * 24 + t).toBe(g);
        expect(tx).toBeLessThan(4); expect(ty).toBeLessThan(3); expect(tz).toBeLessThan(2);
        seen.add(`${bx},${by},${bz},${tx},${ty},${tz}`);
      }
      expect(seen.size).toBe(total);
      out.free();
    });
  }
});
