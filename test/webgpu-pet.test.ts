/**
 * The WGSL twins of the PET pipeline's kernels (seed 001) and of the primitives it uses,
 * cross-checked against the wasm backend on random and edge inputs (0, 1, non-powers of two,
 * more than one level of the device scan). No WebGPU adapter is a failure, not a skip.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDevice, type Device } from '../src/device.js';
import type { WebGpuDevice } from '../src/webgpu/device.js';
import { crossCheck, getJob } from '../src/crosscheck/index.js';
import { compactOnDevice, petWords, scanOnDevice } from '../src/crosscheck/jobs/pet.js';
import { scanAddOffsetsU32, scanBlocksU32 } from '../src/kernels/primitives.js';
import { main } from '../src/cli/main.js';

let gpu: WebGpuDevice;
let wasm: Device;
let setupError: unknown;

beforeAll(async () => {
  try {
    wasm = await createDevice({ backend: 'wasm', memoryBytes: 512 << 20 });
    gpu = await createDevice({ backend: 'webgpu' });
  } catch (e) {
    setupError = e;
  }
});
beforeEach(() => {
  if (setupError !== undefined) throw setupError;
});
afterAll(async () => {
  await gpu?.destroy();
  await wasm?.destroy();
});

function hostExclusiveScan(w: Uint32Array): Uint32Array {
  const out = new Uint32Array(w.length);
  let run = 0;
  for (let i = 0; i < w.length; i++) { out[i] = run; run = (run + w[i]!) >>> 0; }
  return out;
}
const sorted = (a: Uint32Array): Uint32Array => Uint32Array.from(a).sort();

describe('device scan (scanBlocksU32, scanAddOffsetsU32): webgpu vs wasm vs host', () => {
  const sizes = [0, 1, 2, 3, 7, 255, 256, 257, 2047, 2048, 2049, 4097, 100_003, 2048 * 2048 + 5];
  for (const n of sizes) {
    it(`n = ${n}`, async () => {
      const w = petWords(n, 1000 + n);
      const expected = hostExclusiveScan(w);
      const [a, b] = await Promise.all([scanOnDevice(wasm, w), scanOnDevice(gpu, w)]);
      expect(a).toEqual(expected);
      expect(b).toEqual(expected);
    }, 60_000);
  }

  it('in place (output = input), as the recursion over block sums does', async () => {
    const w = petWords(5000, 3);
    const d = await gpu.upload('u32', w);
    const sums = gpu.alloc('u32', 3);
    await gpu.launch(scanBlocksU32, { grid: 3, block: 256 }, [d, d, sums, 5000, 8]);
    const s = await sums.read();
    const expectTile = (b: number): Uint32Array => hostExclusiveScan(w.subarray(b * 2048, Math.min(5000, (b + 1) * 2048)));
    const got = await d.read();
    for (let b = 0; b < 3; b++) {
      expect(got.subarray(b * 2048, Math.min(5000, (b + 1) * 2048))).toEqual(expectTile(b));
      expect(s[b]).toBe(w.subarray(b * 2048, Math.min(5000, (b + 1) * 2048)).reduce((x, y) => (x + y) >>> 0, 0));
    }
    d.free(); sums.free();
  });

  it('other block sizes and items (non-powers of two), same result on both backends', async () => {
    for (const [block, items, n] of [[96, 3, 1000], [1, 1, 17], [200, 5, 12345], [256, 1, 256 * 3 + 1], [33, 7, 0 + 33 * 7 * 4]] as const) {
      const w = petWords(n, block * items);
      const grid = Math.max(1, Math.ceil(n / (block * items)));
      const outs: Uint32Array[] = [];
      for (const dev of [wasm, gpu] as const) {
        const input = await dev.upload('u32', w);
        const out = dev.alloc('u32', n);
        const sums = dev.alloc('u32', grid);
        await dev.launch(scanBlocksU32, { grid, block, sharedBytes: Math.max(4 * (2 * block + 32), 4 * 96) }, [input, out, sums, n, items]);
        const hostSums = hostExclusiveScan(await sums.read());
        const offs = await dev.upload('u32', hostSums);
        await dev.launch(scanAddOffsetsU32, { grid, block }, [out, offs, n, items]);
        outs.push(await out.read());
        input.free(); out.free(); sums.free(); offs.free();
      }
      expect(outs[0]).toEqual(hostExclusiveScan(w));
      expect(outs[1]).toEqual(outs[0]);
    }
  });
});

describe('compaction (compactNonZeroU32): webgpu vs wasm', () => {
  for (const [n, zeros] of [[0, 0.4], [1, 0], [1, 1], [3, 0.5], [255, 0.4], [256, 0], [2049, 0.4], [2048 * 5 + 7, 1], [300_001, 0.4]] as const) {
    it(`n = ${n}, zeros ${zeros}`, async () => {
      const w = petWords(n, 77 + n, zeros);
      const kept = w.filter((x) => x !== 0);
      const [a, b] = await Promise.all([compactOnDevice(wasm, w), compactOnDevice(gpu, w)]);
      expect(a.count).toBe(kept.length);
      expect(b.count).toBe(kept.length);
      expect(sorted(b.compacted)).toEqual(sorted(a.compacted));
      expect(sorted(a.compacted)).toEqual(sorted(kept));
    }, 60_000);
  }

  it('inside one block the output keeps input order', async () => {
    const w = petWords(2048, 5);
    const r = await compactOnDevice(gpu, w);
    expect(r.compacted).toEqual(w.filter((x) => x !== 0));
  });
});

describe('crosscheck job pet', () => {
  it('edge sizes', async () => {
    const job = getJob('pet');
    for (const n of job.edgeSizes) {
      const r = await crossCheck(job, job.generate(n, 21 + n), { devices: { wasm, webgpu: gpu } });
      expect(r.equal, `size ${n}: ${JSON.stringify(r.outputs.filter((o) => !o.equal))}`).toBe(true);
    }
  }, 120_000);

  it('random sizes and seeds', async () => {
    const job = getJob('pet');
    let s = 4242;
    for (let k = 0; k < 5; k++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const n = 1 + (s % 200_000);
      const r = await crossCheck(job, job.generate(n, s), { devices: { wasm, webgpu: gpu } });
      expect(r.equal, `size ${n} seed ${s}: ${JSON.stringify(r.outputs.filter((o) => !o.equal))}`).toBe(true);
    }
  }, 120_000);

  it('simt crosscheck pet exits 0', async () => {
    const lines: string[] = [];
    const code = await main(['crosscheck', 'pet', '--size', '5000', '--seed', '9'], { out: (l) => lines.push(l), err: (l) => lines.push(l), tty: false });
    expect(code, lines.join('\n')).toBe(0);
  }, 120_000);
});
