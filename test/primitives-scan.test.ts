import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createDevice, type Device } from '../src/device.js';
import { blockScanSharedBytes, compactionSharedBytes } from '../src/kernels/primitives.js';
import { shippedModule } from '../src/shippedModule.js';
import type { KernelModule } from '../src/kernelModule.js';
import { deviceExclusiveScan } from '../src/ops/scan.js';
import { Xoshiro128ss } from '../src/data/random.js';

/** n words in [0, max): uniformInt draws of simt's one generator family (src/data/random.ts). */
function randomU32(n: number, seed: number, max = 1000): Uint32Array {
  const r = new Xoshiro128ss(seed);
  return Uint32Array.from({ length: n }, () => r.uniformInt(max));
}

// simt's block/warp scans and compaction, written per thread (kernels/primitives/blockScan.ts,
// compaction.ts) and launched from the shipped module.
let shipped: KernelModule;
beforeAll(async () => { shipped = await shippedModule(); });
const k = (name: string) => shipped.kernels[name]!;

function blockScanRef(x: Uint32Array, block: number, inclusive: boolean, warp = false): Uint32Array {
  const out = new Uint32Array(x.length);
  const seg = warp ? Math.min(block, 32) : block;
  for (let b = 0; b < x.length; b += seg) {
    let run = 0;
    for (let i = b; i < Math.min(x.length, b + seg); i++) {
      if (inclusive) { run = (run + x[i]!) >>> 0; out[i] = run; } else { out[i] = run; run = (run + x[i]!) >>> 0; }
    }
  }
  return out;
}

for (const [backend, seed] of [['wasm', 7], ['serial', 1], ['serial', 7], ['serial', 12]] as const) {
  describe(`block/warp primitives on ${backend}${backend === 'serial' ? ` seed ${seed}` : ''}`, () => {
    let dev: Device;
    beforeAll(async () => { dev = await createDevice({ backend, seed, memoryBytes: 256 << 20 }); await dev.load(shipped); });
    afterAll(async () => { await dev.destroy(); });

    for (const block of [1, 7, 32, 48, 96, 128, 256, 1000, 1024]) {
      it(`intraBlockScan inclusive and exclusive, block ${block}`, async () => {
        const n = block * 5 - (block > 1 ? 3 : 0);
        const x = randomU32(n, block);
        const input = await dev.upload('u32', x);
        const output = dev.alloc('u32', n);
        for (const inclusive of [true, false]) {
          await dev.launch(k('blockScanProbe'), { grid: Math.ceil(n / block), block, sharedBytes: blockScanSharedBytes(block) }, [input, output, n, inclusive ? 1 : 0]);
          expect(Array.from(await output.read())).toEqual(Array.from(blockScanRef(x, block, inclusive)));
        }
        input.free(); output.free();
      });
    }

    it('intraBlockScan of a partial last warp is right whatever the shared memory held (blocks of 7, 48, 1000)', async () => {
      // Leave large sums all over each worker's shared memory: a full-width scan of 1024 threads.
      const junk = await dev.upload('u32', new Uint32Array(8 * 1024).fill(0x9e3779b9));
      const sink = dev.alloc('u32', 8 * 1024);
      for (const block of [7, 48, 1000]) {
        await dev.launch(k('blockScanProbe'), { grid: 8, block: 1024, sharedBytes: blockScanSharedBytes(1024) }, [junk, sink, 8 * 1024, 1]);
        const n = block * 4 - 1;
        const x = randomU32(n, 5 * block);
        const input = await dev.upload('u32', x);
        const output = dev.alloc('u32', n);
        await dev.launch(k('blockScanProbe'), { grid: Math.ceil(n / block), block, sharedBytes: blockScanSharedBytes(block) }, [input, output, n, 1]);
        expect(Array.from(await output.read()), `block ${block}`).toEqual(Array.from(blockScanRef(x, block, true)));
        input.free(); output.free();
      }
      junk.free(); sink.free();
    });

    it('intraBlockScan of one element, and a last block holding one element', async () => {
      for (const [n, block] of [[1, 256], [257, 256], [33, 32]] as const) {
        const x = randomU32(n, n + seed);
        const input = await dev.upload('u32', x);
        const output = dev.alloc('u32', n);
        await dev.launch(k('blockScanProbe'), { grid: Math.ceil(n / block), block, sharedBytes: blockScanSharedBytes(block) }, [input, output, n, 1]);
        expect(Array.from(await output.read())).toEqual(Array.from(blockScanRef(x, block, true)));
        input.free(); output.free();
      }
    });

    it('intraBlockScan wraps like u32 arithmetic', async () => {
      const x = new Uint32Array(256).fill(0xffffffff);
      const input = await dev.upload('u32', x);
      const output = dev.alloc('u32', 256);
      await dev.launch(k('blockScanProbe'), { grid: 1, block: 256, sharedBytes: blockScanSharedBytes(256) }, [input, output, 256, 1]);
      expect(Array.from(await output.read())).toEqual(Array.from(blockScanRef(x, 256, true)));
    });

    it('intraWarpScan (with __syncwarp) is an exclusive scan per warp', async () => {
      for (const block of [8, 32, 128]) {
        const n = block * 3;
        const x = randomU32(n, 99 + block);
        const input = await dev.upload('u32', x);
        const output = dev.alloc('u32', n);
        await dev.launch(k('warpScanProbe'), { grid: 3, block, sharedBytes: 4 * (2 * block + 32) }, [input, output, n]);
        expect(Array.from(await output.read())).toEqual(Array.from(blockScanRef(x, block, false, true)));
      }
    });

    it('stream compaction keeps exactly the non-zero elements (as a multiset)', async () => {
      await fc.assert(fc.asyncProperty(fc.array(fc.nat(5), { maxLength: 5000 }), fc.constantFrom(1, 32, 48, 128, 256, 1024), fc.constantFrom(1, 3, 4), async (arr, block, items) => {
        const n = arr.length;
        const x = Uint32Array.from(arr);
        const input = await dev.upload('u32', n ? x : new Uint32Array(1));
        const output = dev.alloc('u32', Math.max(1, n));
        const counter = await dev.upload('u32', new Uint32Array([0]));
        await dev.launch(k('compactNonZeroU32'), { grid: Math.max(1, Math.ceil(n / (block * items))), block, sharedBytes: compactionSharedBytes(block) },
          [input, n, output, counter, items]);
        const kept = (await counter.read())[0]!;
        const want = Array.from(x).filter((v) => v !== 0).sort((a, b) => a - b);
        expect(kept).toBe(want.length);
        expect(Array.from((await output.read()).slice(0, kept)).sort((a, b) => a - b)).toEqual(want);
        input.free(); output.free(); counter.free();
      }), { numRuns: 15, seed: seed * 7919 });
    });

    for (const n of [0, 1, 2047, 2048, 2049, 300_001]) {
      it(`device-wide exclusive scan, n = ${n}`, async () => {
        const x = randomU32(n, n + 3, 50);
        const input = await dev.upload('u32', n ? x : new Uint32Array(1));
        const output = dev.alloc('u32', Math.max(1, n));
        await deviceExclusiveScan(dev, input, output, n);
        if (n) expect(Array.from(await output.read())).toEqual(Array.from(blockScanRef(x, n, false)));
        await deviceExclusiveScan(dev, input, input, n); // in place
        if (n) expect(Array.from(await input.read())).toEqual(Array.from(blockScanRef(x, n, false)));
        input.free(); output.free();
      });
    }
  });
}

describe('intraWarpScanUnsynced (the seed\'s lock-step hazard)', () => {
  it('is wrong on the index-order schedule and schedule-dependent on serial', async () => {
    const x = new Uint32Array(32).fill(1);
    const want = Array.from(blockScanRef(x, 32, false, true));
    const wasm = await createDevice({ backend: 'wasm', memoryBytes: 64 << 20, modules: [shipped] });
    try {
      const input = await wasm.upload('u32', x);
      const output = wasm.alloc('u32', 32);
      await wasm.launch(k('intraWarpScanUnsynced'), { grid: 1, block: 32, sharedBytes: 4 * 96 }, [input, output, 32]);
      expect(Array.from(await output.read())).not.toEqual(want);
    } finally { await wasm.destroy(); }
    const serial = await createDevice({ backend: 'serial', seed: 1, memoryBytes: 64 << 20, modules: [shipped] });
    try {
      const input = await serial.upload('u32', x);
      const output = serial.alloc('u32', 32);
      const results = new Set<string>();
      for (let s = 0; s < 8; s++) {
        await serial.launch(k('intraWarpScanUnsynced'), { grid: 1, block: 32, sharedBytes: 4 * 96, seed: s }, [input, output, 32]);
        const r = Array.from(await output.read());
        results.add(r.join(','));
        // replay: same seed, same bytes
        await serial.launch(k('intraWarpScanUnsynced'), { grid: 1, block: 32, sharedBytes: 4 * 96, seed: s }, [input, output, 32]);
        expect(Array.from(await output.read())).toEqual(r);
      }
      expect(results.size).toBeGreaterThan(1);
      const synced = serial.alloc('u32', 32);
      await serial.launch(k('warpScanProbe'), { grid: 1, block: 32, sharedBytes: 4 * 96, seed: 3 }, [input, synced, 32]);
      expect(Array.from(await synced.read())).toEqual(want);
    } finally { await serial.destroy(); }
  });
});
