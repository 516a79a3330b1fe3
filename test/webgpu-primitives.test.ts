// simt's block/warp scans (kernels/primitives/blockScan.ts) as the WGSL the compiler generates
// for them, on webgpu, against a plain-TS scan: blocks of one warp, several warps, a partial
// warp, and the adapter's largest block. No WebGPU adapter is a failure, not a skip.
import { describe, expect, it } from 'vitest';
import { withWasmAndWebGpu } from './helpers.js';
import { createDevice, type Device } from '../src/device.js';
import { shippedModule } from '../src/shippedModule.js';
import type { KernelModule } from '../src/kernelModule.js';
import { blockScanSharedBytes } from '../src/kernels/primitives.js';
import { Xoshiro128ss } from '../src/data/random.js';

let gpu: Device;
let mod: KernelModule;
withWasmAndWebGpu(async () => {
  gpu = await createDevice({ backend: 'webgpu' });
  mod = await shippedModule();
  await gpu.load(mod);
}, () => [gpu]);

/** Scans of x in segments of `seg` elements (inclusive or exclusive), wrapping as u32. */
function segmentScan(x: Uint32Array, seg: number, inclusive: boolean): Uint32Array {
  const out = new Uint32Array(x.length);
  for (let b = 0; b < x.length; b += seg) {
    let run = 0;
    for (let i = b; i < Math.min(x.length, b + seg); i++) {
      if (inclusive) { run = (run + x[i]!) >>> 0; out[i] = run; } else { out[i] = run; run = (run + x[i]!) >>> 0; }
    }
  }
  return out;
}

const words = (n: number, seed: number): Uint32Array => { const r = new Xoshiro128ss(seed); return Uint32Array.from({ length: n }, () => (r.uniformInt(4) === 0 ? 0xffffffff : r.uniformInt(1000))); };

describe('block and warp scans on webgpu (generated WGSL)', () => {
  it('blockScanProbe, inclusive and exclusive, blocks of 1 to the adapter\'s largest', async () => {
    const largest = Math.min(256, gpu.maxThreadsPerBlock);
    for (const block of [1, 7, 32, 48, 96, 128, largest]) {
      const n = 3 * block - (block > 1 ? 1 : 0);
      const x = words(n, block);
      for (const inclusive of [1, 0]) {
        const input = await gpu.upload('u32', x);
        const output = gpu.alloc('u32', n);
        await gpu.launch(mod.kernels.blockScanProbe!, { grid: 3, block, sharedBytes: blockScanSharedBytes(block) }, [input, output, n, inclusive]);
        expect(Array.from(await output.read()), `block ${block}, inclusive ${inclusive}`).toEqual(Array.from(segmentScan(x, block, inclusive === 1)));
        input.free(); output.free();
      }
    }
  }, 120_000);

  it('warpScanProbe: an exclusive scan per warp of 32 (or of the block below 32)', async () => {
    for (const block of [8, 32, 128]) {
      const n = 2 * block;
      const x = words(n, 100 + block);
      const input = await gpu.upload('u32', x);
      const output = gpu.alloc('u32', n);
      await gpu.launch(mod.kernels.warpScanProbe!, { grid: 2, block, sharedBytes: 4 * (2 * block + 32) }, [input, output, n]);
      expect(Array.from(await output.read()), `block ${block}`).toEqual(Array.from(segmentScan(x, Math.min(block, 32), false)));
      input.free(); output.free();
    }
  }, 120_000);
});
