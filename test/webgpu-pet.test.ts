/**
 * The WGSL twins of the PET pipeline's kernels (seed 001) and of the primitives it uses,
 * cross-checked against the wasm backend on random and edge inputs (0, 1, non-powers of two,
 * more than one level of the device scan). No WebGPU adapter is a failure, not a skip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withWasmAndWebGpu } from './helpers.js';
import { createDevice, type Device } from '../src/device.js';
import type { WebGpuDevice } from '../src/webgpu/device.js';
import { crossCheck, getJob } from '../src/crosscheck/index.js';
import { compactOnDevice, petFrames, petWords, scanOnDevice } from '../src/crosscheck/jobs/pet.js';
import { coincidenceRecords, runPetCoincidenceStage } from '../src/jobs/pet/coincidenceStage.js';
import { runPetSortStage } from '../src/jobs/pet/sortStage.js';
import { canonicalNaNEnergies, NO_BAD_FRAME, runPetConvertStage, sortRecords } from '../src/jobs/pet/convertStage.js';
import { deviceExclusiveScan } from '../src/ops/scan.js';
import { petSortTiles, petSplitPairs, petSplitSingles } from '../src/kernels/pet.js';
import { shippedKernels } from '../src/shippedModule.js';
import { main } from '../src/cli/main.js';
import { WGSL_KERNELS, type WgslKernelInfo } from '../src/webgpu/kernels.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

let gpu: WebGpuDevice;
let wasm: Device;
withWasmAndWebGpu(async () => {
  wasm = await createDevice({ backend: 'wasm', memoryBytes: 512 << 20 });
  gpu = await createDevice({ backend: 'webgpu' });
}, () => [gpu, wasm]);

function hostExclusiveScan(w: Uint32Array): Uint32Array {
  const out = new Uint32Array(w.length);
  let run = 0;
  for (let i = 0; i < w.length; i++) { out[i] = run; run = (run + w[i]!) >>> 0; }
  return out;
}
const sorted = (a: Uint32Array): Uint32Array => Uint32Array.from(a).sort();
/** First index where a and b differ (-1 if equal): toEqual is slow on millions of elements. */
function firstDiff(a: Uint32Array, b: Uint32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

describe('WGSL sources', () => {
  it('every WGSL kernel sits beside the AS kernel of the same name', () => {
    for (const info of Object.values(WGSL_KERNELS) as WgslKernelInfo[]) {
      const file = join('assembly', `${info.source ?? `kernels/${info.name}`}.wgsl`);
      expect(existsSync(file), file).toBe(true);
      expect(readFileSync(file, 'utf8')).toContain(`fn ${info.entryPoint}(`);
      const dir = dirname(file);
      const asFiles = readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => readFileSync(join(dir, f), 'utf8'));
      expect(asFiles.some((t) => new RegExp(`export (function ${info.name}\\(|\\{[^}]*\\b${info.name}\\b)`).test(t)), `${info.name} in ${dir}`).toBe(true);
    }
  });
});

describe('the device-wide scan (kernels/primitives/scan.ts, generated WGSL): webgpu vs wasm vs host', () => {
  const sizes = [0, 1, 2, 3, 7, 255, 256, 257, 2047, 2048, 2049, 4097, 100_003, 2048 * 2048 + 5];
  for (const n of sizes) {
    it(`n = ${n}`, async () => {
      const w = petWords(n, 1000 + n);
      const expected = hostExclusiveScan(w);
      const [a, b] = await Promise.all([scanOnDevice(wasm, w), scanOnDevice(gpu, w)]);
      expect(firstDiff(a, expected)).toBe(-1);
      expect(firstDiff(b, expected)).toBe(-1);
    }, 60_000);
  }

  it('in place (output = input), as the PET pipeline scans globalLen; above the one-launch bound too', async () => {
    for (const n of [5000, (1 << 17) + 3]) {
      const w = petWords(n, 3);
      const got: Uint32Array[] = [];
      for (const dev of [wasm, gpu] as const) {
        const d = await dev.upload('u32', w);
        const stats = await deviceExclusiveScan(dev, d, d, n);
        expect(stats.length).toBe(n <= 1 << 17 ? 1 : 3);
        got.push(await d.read());
        d.free();
      }
      expect(firstDiff(got[0]!, hostExclusiveScan(w))).toBe(-1);
      expect(firstDiff(got[1]!, got[0]!)).toBe(-1);
    }
  }, 60_000);
});

describe('compaction (compactNonZeroU32): webgpu vs wasm', () => {
  for (const [n, zeros] of [[0, 0.4], [1, 0], [1, 1], [3, 0.5], [255, 0.4], [256, 0], [2049, 0.4], [2048 * 5 + 7, 1], [300_001, 0.4]] as const) {
    it(`n = ${n}, zeros ${zeros}`, async () => {
      const w = petWords(n, 77 + n, zeros);
      const kept = w.filter((x) => x !== 0);
      const [a, b] = await Promise.all([compactOnDevice(wasm, w), compactOnDevice(gpu, w)]);
      expect(a.count).toBe(kept.length);
      expect(b.count).toBe(kept.length);
      expect(firstDiff(sorted(b.compacted), sorted(a.compacted))).toBe(-1);
      expect(firstDiff(sorted(a.compacted), sorted(kept))).toBe(-1);
    }, 60_000);
  }

  it('inside one block the output keeps input order', async () => {
    const w = petWords(2048, 5);
    const r = await compactOnDevice(gpu, w);
    expect(r.compacted).toEqual(w.filter((x) => x !== 0));
  });
});

describe('convert stage (petCrystalLut\'s generated WGSL, petConvert): webgpu vs wasm', () => {
  type Win = readonly [number, number] | null;
  async function both(frames: Uint8Array, seedFrames: ReturnType<typeof petFrames>, win: Win) {
    const [a, b] = [await runPetConvertStage(wasm, frames, seedFrames.geometry, seedFrames, win),
      await runPetConvertStage(gpu, frames, seedFrames.geometry, seedFrames, win)];
    expect(firstDiff(b.lut, a.lut)).toBe(-1);
    expect(b.badFrame).toBe(a.badFrame);
    expect(b.count).toBe(a.count);
    expect(firstDiff(canonicalNaNEnergies(b.converted), canonicalNaNEnergies(a.converted))).toBe(-1);
    expect(firstDiff(sortRecords(b.singles), sortRecords(a.singles))).toBe(-1);
    return { a, b };
  }

  for (const n of [0, 1, 2, 3, 127, 4097, 100_003]) {
    it(`${n} frames, window 350–650`, async () => {
      const d = petFrames(n, 500 + n);
      const { a } = await both(d.frames, d, [350, 650]);
      expect(a.badFrame).toBe(NO_BAD_FRAME);
    }, 60_000);
  }

  it('no window, a point window, negative and infinite bounds', async () => {
    const d = petFrames(20_000, 8);
    const { a } = await both(d.frames, d, null);
    expect(a.count).toBe(20_000);
    // A window that is exactly one corrected energy (the f64 of an f32): inclusive both ends.
    const e = new Float32Array(a.converted.buffer.slice(0))[4 * 17 + 1]!;
    const point = await both(d.frames, d, [e, e]);
    expect(point.a.count).toBeGreaterThan(0);
    await both(d.frames, d, [-Infinity, 400]);
    await both(d.frames, d, [500.0000001, Infinity]);
    await both(d.frames, d, [-5, -1]);
  }, 60_000);

  it('u64 times round to the nearest f64 (ties to even), as wasm converts them', async () => {
    const d = petFrames(4096, 9);
    const frames = Uint8Array.from(d.frames);
    const special = [0n, 1n, (1n << 53n) - 1n, (1n << 53n) + 1n, (1n << 53n) + 3n, (1n << 54n) + 2n, (1n << 54n) + 6n,
      (1n << 63n) + (1n << 10n), (1n << 63n) + (3n << 10n), (1n << 64n) - 1n, (1n << 64n) - 1024n, 0x0123456789abcdefn];
    let r = 99n;
    const times: bigint[] = [];
    for (let i = 0; i < 4096; i++) {
      r = (r * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
      const t = i < special.length ? special[i]! : (i & 1 ? r : r >> BigInt(i % 60));
      times.push(t);
      for (let k = 0; k < 8; k++) frames[16 * i + 2 + k] = Number((t >> BigInt(8 * (7 - k))) & 0xffn);
    }
    const { b } = await both(frames, d, null);
    const f64 = new Float64Array(b.converted.buffer.slice(0));
    for (let i = 0; i < 4096; i++) expect(f64[2 * i + 1], `frame ${i} time ${times[i]}`).toBe(Number(times[i]!));
  }, 60_000);

  it('frames outside the geometry: the same records and the smallest bad index on both', async () => {
    const d = petFrames(9000, 10);
    const frames = Uint8Array.from(d.frames);
    frames[16 * 8000 + 1] = 250;               // BDM
    frames[16 * 4321] = (frames[16 * 4321]! & 0xf0) | 0x0f; // DU
    frames[16 * 6000 + 10] = 200;              // x
    frames[16 * 7000 + 11] = 64;               // y = positionSize
    const { a } = await both(frames, d, [350, 650]);
    expect(a.badFrame).toBe(4321);
  }, 60_000);
});

describe('petSplitSingles: webgpu vs wasm', () => {
  for (const [n, grid] of [[0, 1], [1, 1], [3, 1], [1000, 2], [70_001, 64], [70_001, 300]] as const) {
    it(`${n} records, grid ${grid}`, async () => {
      const words = petWords(4 * n, n + 1, 0.1);
      for (let i = 0; i < n; i++) if (i % 7 === 3) words[4 * i + 1] = 0x7fc00000; // NaN energy bits
      const outs: { c: Uint32Array; e: Uint32Array; t: Uint32Array }[] = [];
      for (const dev of [wasm, gpu] as const) {
        const src = await dev.upload('u32', n ? words : new Uint32Array(4));
        const c = dev.alloc('u32', Math.max(1, n)), e = dev.alloc('f32', Math.max(1, n)), t = dev.alloc('f64', Math.max(1, n));
        await dev.launch(petSplitSingles, { grid, block: 256 }, [src, n, c, e, t]);
        const tv = await t.read();
        outs.push({ c: (await c.read()).slice(0, n), e: new Uint32Array((await e.read()).slice(0, n).buffer), t: new Uint32Array(tv.slice(0, n).buffer) });
        src.free(); c.free(); e.free(); t.free();
      }
      for (const b of outs) {
        expect(firstDiff(b.c, Uint32Array.from({ length: n }, (_, i) => words[4 * i]!))).toBe(-1);
        expect(firstDiff(b.e, Uint32Array.from({ length: n }, (_, i) => words[4 * i + 1]!))).toBe(-1);
        expect(firstDiff(b.t, Uint32Array.from({ length: 2 * n }, (_, j) => words[4 * (j >> 1) + 2 + (j & 1)]!))).toBe(-1);
      }
    });
  }
});

describe('petSplitPairs: webgpu vs wasm', () => {
  for (const [n, grid] of [[0, 1], [1, 1], [3, 1], [1000, 2], [70_001, 64], [70_001, 300]] as const) {
    it(`${n} pairs, grid ${grid}`, async () => {
      const words = petWords(8 * n, n + 3, 0.1);
      const first = Uint32Array.from({ length: n }, (_, k) => 2 * k + (k % 5));
      const outs: Uint32Array[][] = [];
      for (const dev of [wasm, gpu] as const) {
        const len = Math.max(1, n);
        const src = await dev.upload('u32', n ? words : new Uint32Array(8));
        const f = await dev.upload('u32', n ? first : new Uint32Array(1));
        const cols = [dev.alloc('u32', len), dev.alloc('u32', len), dev.alloc('u32', len), dev.alloc('f32', len), dev.alloc('f32', len), dev.alloc('f64', len), dev.alloc('f64', len)] as const;
        await dev.launch(petSplitPairs, { grid, block: 256 }, [src, f, n, ...cols]);
        const got: Uint32Array[] = [];
        for (const [k, c] of cols.entries()) {
          const v = await c.read();
          got.push(new Uint32Array(v.buffer, v.byteOffset, v.byteLength / 4).slice(0, (k >= 5 ? 2 : 1) * n));
        }
        outs.push(got);
        src.free(); f.free(); for (const c of cols) c.free();
      }
      const col = (off: number, width: number) => Uint32Array.from({ length: width * n }, (_, j) => words[8 * Math.floor(j / width) + off + (j % width)]!);
      const expected = [Uint32Array.from(first, (v) => v + 1), col(0, 1), col(4, 1), col(1, 1), col(5, 1), col(2, 2), col(6, 2)];
      for (const got of outs) for (const [k, e] of expected.entries()) expect(firstDiff(got[k]!, e), `column ${k}`).toBe(-1);
    });
  }
});

describe('coincidence stage (petCoinNextIndex, petCoinSelect, petCoinCount, petCoinFill): webgpu vs wasm', () => {
  async function both(records: Uint32Array, window: number) {
    const a = await runPetCoincidenceStage(wasm, records, window);
    const b = await runPetCoincidenceStage(gpu, records, window);
    const i32 = (x: Int32Array) => new Uint32Array(x.buffer, x.byteOffset, x.length);
    expect(firstDiff(i32(b.nextIndex), i32(a.nextIndex)), 'nextIndex').toBe(-1);
    expect(firstDiff(i32(b.selected), i32(a.selected)), 'selected').toBe(-1);
    expect(firstDiff(b.scanId, a.scanId), 'scanId').toBe(-1);
    expect(firstDiff(b.globalLen, a.globalLen), 'globalLen').toBe(-1);
    expect(b.count).toBe(a.count);
    expect(firstDiff(b.pairs, a.pairs), 'pairs').toBe(-1);
    expect(firstDiff(b.pairFirst, a.pairFirst), 'pairFirst').toBe(-1);
    return a;
  }
  for (const m of [0, 1, 2, 3, 5, 4095, 4096, 4097, 50_001]) {
    it(`${m} singles, window 4000`, async () => {
      const a = await both(coincidenceRecords(m, 31 + m, 4000), 4000);
      if (m > 1000) expect(a.count).toBeGreaterThan(0);
    }, 60_000);
  }
  it('times at and above 2^53 (rounded differences), windows 0, 4000.5 and 1e9', async () => {
    for (const [start, w] of [[2 ** 53 - 3000, 4000], [2 ** 60, 4000], [2 ** 63 + 2 ** 20, 4096], [12345, 0], [2 ** 40, 4000.5], [1, 1e9]] as const) {
      await both(coincidenceRecords(9000, start % 1000, Math.max(1, Math.floor(w)), start), w);
    }
  }, 60_000);
});

describe('petPadSingles (kernels/pet/sort.ts, generated WGSL): webgpu vs wasm', () => {
  for (const [n, total, grid] of [[0, 0, 1], [0, 1, 1], [1, 1024, 3], [700, 1024, 1], [1000, 4096, 1024], [5, 70_000, 7]] as const) {
    it(`n ${n}, total ${total}, grid ${grid}`, async () => {
      const init = petWords(4 * Math.max(1, total), n + total);
      const outs: Uint32Array[] = [];
      for (const dev of [wasm, gpu] as const) {
        const a = await dev.upload('u32', init), b = await dev.upload('u32', init);
        await dev.launch((await shippedKernels(dev)).petPadSingles!, { grid, block: 256 }, [a, b, n, total]);
        outs.push(await a.read(), await b.read());
        a.free(); b.free();
      }
      for (const o of outs) expect(firstDiff(o, outs[0]!)).toBe(-1);
      if (total > n) expect([...outs[0]!.subarray(4 * n, 4 * n + 4)]).toEqual([0xffffffff, 0, 0, 0x7ff00000]);
      expect(firstDiff(outs[0]!.subarray(0, 4 * n), init.subarray(0, 4 * n))).toBe(-1);
    });
  }
});

describe('petSortTiles (1024-record tiles; wasm block 512, webgpu block 256): webgpu vs wasm', () => {
  /** m records with times from few distinct values (many ties: stability) or spread ones, padded to whole tiles with +∞. */
  function tiles(m: number, seed: number, ties: boolean): { words: Uint32Array; n2: number } {
    const n2 = Math.max(1024, Math.ceil(m / 1024) * 1024);
    const recs = coincidenceRecords(m, seed, 4000);
    const words = new Uint32Array(4 * n2);
    words.set(recs);
    const f64 = new Float64Array(words.buffer);
    let s = seed + 1;
    for (let i = 0; i < m; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      f64[2 * i + 1] = ties ? 2 ** 40 + (s % 7) : (s % 2 ? 2 ** 60 : 1) * s;
      words[4 * i] = i; // the crystal word records the original index: checks stability
    }
    for (let i = m; i < n2; i++) { words[4 * i] = 0xffffffff; f64[2 * i + 1] = Infinity; }
    return { words, n2 };
  }
  for (const [m, ties] of [[0, false], [1, false], [2, true], [3, false], [1000, true], [1024, false], [1025, true], [5000, false], [5000, true]] as const) {
    it(`${m} records${ties ? ' (ties)' : ''}`, async () => {
      const { words, n2 } = tiles(m, m + 7, ties);
      const outs: Uint32Array[] = [];
      for (const [dev, block] of [[wasm, 512], [gpu, 256]] as const) {
        const d = await dev.upload('u32', words);
        await dev.launch(petSortTiles, { grid: n2 / 1024, block, sharedBytes: block === 512 ? 32768 : 0 }, [d, m]);
        outs.push(await d.read());
        d.free();
      }
      expect(firstDiff(outs[1]!, outs[0]!)).toBe(-1);
      // host: the stable sort of each tile
      const f = new Float64Array(words.buffer);
      for (let b = 0; b * 1024 < m; b++) {
        const ids = Array.from({ length: 1024 }, (_, k) => b * 1024 + k).sort((x, y) => (f[2 * x + 1]! - f[2 * y + 1]!) || (x - y));
        for (let k = 0; k < 1024; k++) expect(outs[1]![4 * (b * 1024 + k)]).toBe(words[4 * ids[k]!]);
      }
    }, 60_000);
  }
});

describe('sort stage (petPadSingles, petSortTiles, petMergeRanks, petMergeBlocks): webgpu vs wasm, pass by pass', () => {
  function recordsWithTimes(m: number, seed: number, ties: boolean): Uint32Array {
    const w = new Uint32Array(4 * m);
    const f64 = new Float64Array(w.buffer);
    let s = seed >>> 0 || 1;
    for (let i = 0; i < m; i++) {
      s = (s * 1103515245 + 12345) >>> 0;
      w[4 * i] = i;
      w[4 * i + 1] = s;
      f64[2 * i + 1] = ties ? 2 ** 41 + (s % 13) * 1000 : 2 ** 40 + s * 977 + (s % 3 === 0 ? 2 ** 55 : 0);
    }
    return w;
  }
  for (const [m, ties] of [[0, false], [1, false], [2, true], [1023, false], [1025, true], [3000, false], [4096, true], [9001, false], [40_000, true]] as const) {
    it(`${m} records${ties ? ' (many ties)' : ''}`, async () => {
      const recs = recordsWithTimes(m, m + 3, ties);
      const a = await runPetSortStage(wasm, recs);
      const b = await runPetSortStage(gpu, recs);
      expect(a.sortBlock).toBe(512);
      expect(firstDiff(b.tiles, a.tiles), 'tiles').toBe(-1);
      expect(b.passes.length).toBe(a.passes.length);
      a.passes.forEach((p, k) => {
        expect(firstDiff(b.passes[k]!.ranksEven, p.ranksEven), `pass ${k} ranksEven`).toBe(-1);
        expect(firstDiff(b.passes[k]!.ranksOdd, p.ranksOdd), `pass ${k} ranksOdd`).toBe(-1);
        expect(firstDiff(b.passes[k]!.merged, p.merged), `pass ${k} merged`).toBe(-1);
      });
      expect(firstDiff(b.sorted, a.sorted)).toBe(-1);
      // the stable sort by time
      const f = new Float64Array(recs.buffer);
      const ids = Array.from({ length: m }, (_, i) => i).sort((x, y) => (f[2 * x + 1]! - f[2 * y + 1]!) || (x - y));
      expect(Array.from({ length: m }, (_, k) => b.sorted[4 * k]!)).toEqual(ids);
    }, 60_000);
  }
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
    for (let k = 0; k < 3; k++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const n = 1 + (s % 20_000);
      const r = await crossCheck(job, job.generate(n, s), { devices: { wasm, webgpu: gpu } });
      expect(r.equal, `size ${n} seed ${s}: ${JSON.stringify(r.outputs.filter((o) => !o.equal))}`).toBe(true);
    }
  }, 300_000);

  it('simt crosscheck pet exits 0', async () => {
    const lines: string[] = [];
    const code = await main(['crosscheck', 'pet', '--size', '5000', '--seed', '9'], { out: (l) => lines.push(l), err: (l) => lines.push(l), tty: false });
    expect(code, lines.join('\n')).toBe(0);
  }, 120_000);
});

// The twins' alternative: every PET kernel as its generic kernel's generated WGSL (f64 in
// software, src/compiler/wgslWide.ts), on a device created with `twins: false`. The same job
// outputs as wasm, exactly: this is what keeps the twins declared and cross-checked.
describe('crosscheck job pet on the generated kernels (webgpu twins: false)', () => {
  let generated: WebGpuDevice;
  beforeAll(async () => { generated = await createDevice({ backend: 'webgpu', webgpu: { twins: false } }); });
  afterAll(async () => { await generated?.destroy(); });

  it('the device runs the generic kernels, not the twins', () => {
    expect([gpu.twins, generated.twins]).toEqual([true, false]);
  });

  it('edge sizes and random sizes and seeds', async () => {
    const job = getJob('pet');
    const cases: [number, number][] = job.edgeSizes.map((n) => [n, 21 + n]);
    let s = 777;
    for (let k = 0; k < 3; k++) { s = (s * 1103515245 + 12345) >>> 0; cases.push([1 + (s % 20_000), s]); }
    for (const [n, seed] of cases) {
      const r = await crossCheck(job, job.generate(n, seed), { devices: { wasm, webgpu: generated } });
      expect(r.equal, `size ${n} seed ${seed}: ${JSON.stringify(r.outputs.filter((o) => !o.equal))}`).toBe(true);
    }
  }, 300_000);

  it('vecSum gives wasm\'s f64 partials bit for bit (the twin sums in f32 within a bound)', async () => {
    const { vecSum } = await import('../src/kernels/index.js');
    let s = 99;
    const r = () => { s = (s * 1103515245 + 12345) >>> 0; return s / 2 ** 32; };
    for (const [N, grid, block] of [[1, 1, 64], [1000, 3, 128], [200_003, 64, 256]] as const) {
      const A = Float32Array.from({ length: N }, () => (r() - 0.5) * 2 ** (Math.floor(r() * 30) - 10));
      const out: Float64Array[] = [];
      for (const dev of [wasm, generated, gpu] as const) {
        const a = await dev.upload('f32', A), b = dev.alloc('f64', grid);
        await dev.launch(vecSum, { grid, block, sharedBytes: 8 * block }, [a, b, N] as never);
        out.push(await b.read() as Float64Array);
        a.free(); b.free();
      }
      expect(new BigUint64Array(out[1]!.buffer), `N ${N}`).toEqual(new BigUint64Array(out[0]!.buffer));
      // The twin's f32 sums are other bits on these inputs: the option decides which kernel ran.
      if (N > 1000) expect(new BigUint64Array(out[2]!.buffer), `N ${N} on the twin`).not.toEqual(new BigUint64Array(out[0]!.buffer));
    }
  }, 120_000);
});
