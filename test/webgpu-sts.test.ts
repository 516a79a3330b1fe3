/**
 * The STS kernels on webgpu (the WGSL that the compiler generates from kernels/sts/ and
 * kernels/primitives/scan.ts; the built-in specializations run as their generic kernels there) cross-checked against the wasm
 * backend: every kernel launched directly on random inputs and at the edges (empty, one digi,
 * one channel, non-power-of-two sizes and blocks, the largest channel), stsSort end to end, and
 * the `sts-sort` cross-check job. No WebGPU adapter is a failure, not a skip.
 */
import { describe, expect, it } from 'vitest';
import { withWasmAndWebGpu } from './helpers.js';
import { createDevice, type Device } from '../src/device.js';
import type { GpuDevice, KernelArgs } from '../src/deviceApi.js';
import type { Kernel } from '../src/kernel.js';
import type { WebGpuDevice } from '../src/webgpu/device.js';
import { WGSL_KERNELS } from '../src/webgpu/kernels.js';
import * as sts from '../src/kernels/sts.js';
import { exclusiveScan } from '../src/ops/scan.js';
import { shippedModule } from '../src/shippedModule.js';
import type { KernelModule } from '../src/kernelModule.js';
import { StsChannelRangeError, interleaveDigis, stsSort } from '../src/jobs/sts/run.js';
import { generateStsDigis } from '../src/jobs/sts/generate.js';
import { crossCheck, jobs } from '../src/crosscheck/index.js';
import { main } from '../src/cli/main.js';
import { Xoshiro128ss } from '../src/data/random.js';

let gpu: WebGpuDevice;
let wasm: Device;
withWasmAndWebGpu(async () => {
  wasm = await createDevice({ backend: 'wasm', memoryBytes: 256 << 20 });
  gpu = await createDevice({ backend: 'webgpu' });
  shipped = await shippedModule();
  await wasm.load(shipped);
  await gpu.load(shipped);
}, () => [gpu, wasm]);
let shipped: KernelModule;

const STS_WGSL = [
  'stsCheckChannels', 'stsCountChannels', 'stsScatterAtomic',
  'stsColumnOffsets', 'stsScatterChunks', 'stsLocalSort', 'stsLocalMerge',
  'stsRunFlags', 'stsRunStarts', 'stsMergeDigis', 'stsMergeKeys', 'stsDigisToKeys', 'stsKeysToDigis', 'stsTileSort',
] as const;

type Arg = Uint32Array | number;

/**
 * Launches `kernel` on one device with array arguments uploaded from host copies; returns every
 * array argument's contents afterwards.
 */
async function launchOn(dev: GpuDevice, kernel: Kernel, shape: { grid: number; block: number; sharedBytes?: number }, args: Arg[]): Promise<Uint32Array[]> {
  const arrays = await Promise.all(args.map((a) => (typeof a === 'number' ? null : dev.upload('u32', a.length ? a : new Uint32Array(1)))));
  try {
    await dev.launch(kernel, shape, args.map((a, k) => (typeof a === 'number' ? a : arrays[k]!)) as KernelArgs);
    const outs: Uint32Array[] = [];
    for (let k = 0; k < args.length; k++) {
      const a = args[k]!;
      if (typeof a !== 'number') outs.push((await arrays[k]!.read()).slice(0, a.length));
    }
    return outs;
  } finally {
    for (const a of arrays) a?.free();
  }
}

/** The same launch on wasm and webgpu; every array argument must end equal. */
async function same(kernel: Kernel, shape: { grid: number; block: number; sharedBytes?: number }, args: Arg[], what = ''): Promise<Uint32Array[]> {
  const a = await launchOn(wasm, kernel, shape, args);
  const b = await launchOn(gpu, kernel, shape, args);
  for (let k = 0; k < a.length; k++) expect(b[k], `${kernel.name} ${what}: array argument ${k}`).toEqual(a[k]);
  return b;
}

function randomWords(rng: Xoshiro128ss, n: number, max = 0x100000000): Uint32Array {
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = rng.uniformInt(max);
  return a;
}

function digisWords(n: number, nChannels: number, seed: number): Uint32Array {
  return interleaveDigis(generateStsDigis({ n, nChannels, seed }));
}

describe('STS WGSL kernels: registry', () => {
  it('no STS kernel has a hand-written WGSL twin: each is a declared specialization whose generic kernel has generated WGSL, and this file tests each', () => {
    const declared = Object.values(sts).map((k) => (k as Kernel).name).sort();
    expect(declared.filter((name) => name in WGSL_KERNELS)).toEqual([]);
    for (const name of declared) {
      const generic = (sts as Record<string, Kernel>)[name]!.specializes?.generic;
      expect(generic, name).toBeDefined();
      expect(shipped.meta.wgsl?.[generic!]?.source, `${name}: generated WGSL of ${generic}`).toBeDefined();
    }
    expect([...STS_WGSL].sort()).toEqual(declared);
  });
  it('every STS specialization has its generic kernel\'s parameter list (the webgpu device launches the generic with the same arguments)', () => {
    for (const name of STS_WGSL) {
      const decl = (sts as Record<string, Kernel>)[name]!;
      const generic = shipped.kernels[decl.specializes!.generic]!;
      expect(generic.params.map((p) => [p.name, p.kind, p.dtype]), name).toEqual(decl.params.map((p) => [p.name, p.kind, p.dtype]));
    }
  });
});

describe('scan kernels: webgpu vs wasm', () => {
  it('scanTileSums and scanTileApply on random sizes, blocks and items (incl. non-powers of two)', async () => {
    const rng = new Xoshiro128ss(41);
    for (const [n, block, items] of [[0, 256, 16], [1, 256, 16], [5, 3, 1], [1000, 256, 16], [4097, 64, 7], [70_001, 256, 16], [3000, 100, 3], [513, 1, 2]] as const) {
      const input = randomWords(rng, n);
      const tiles = Math.max(1, Math.ceil(n / (block * items)));
      const shape = { grid: tiles, block, sharedBytes: 4 * block };
      const [, sums] = await same(shipped.kernels.scanTileSums!, shape, [input, new Uint32Array(tiles), n, items], `n=${n}`);
      await same(shipped.kernels.scanTileApply!, shape, [input, new Uint32Array(n), sums!, n, items], `n=${n}`);
    }
  });
  it('scanSingle on random sizes and blocks, wrapping sums', async () => {
    const rng = new Xoshiro128ss(42);
    for (const [n, block] of [[0, 256], [1, 256], [2, 1], [255, 256], [256, 256], [257, 256], [10_000, 256], [999, 37]] as const) {
      await same(shipped.kernels.scanSingle!, { grid: 1, block, sharedBytes: 4 * block }, [randomWords(rng, n), n, new Uint32Array(1)], `n=${n}`);
    }
  });
  it('exclusiveScan in place and out of place equals a sequential scan on both backends', async () => {
    const rng = new Xoshiro128ss(43);
    for (const n of [1, 7, 4096, 4097, 100_003]) {
      const a = randomWords(rng, n, 1 << 20);
      const ref = new Uint32Array(n);
      let run = 0;
      for (let i = 0; i < n; i++) { ref[i] = run; run = (run + a[i]!) >>> 0; }
      for (const dev of [wasm, gpu] as GpuDevice[]) {
        for (const inPlace of [true, false]) {
          const x = await dev.upload('u32', a);
          const y = inPlace ? x : dev.alloc('u32', n);
          const total = await exclusiveScan(dev, x, y, n);
          expect(await y.read(), `${dev.backend} n=${n} inPlace=${inPlace}`).toEqual(ref);
          if (!inPlace) expect(await x.read()).toEqual(a);
          expect(total).toBe(run);
          x.free();
          if (!inPlace) y.free();
        }
      }
    }
  });
});

describe('STS counting kernels: webgpu vs wasm', () => {
  const cases = [
    { n: 0, k: 5 }, { n: 1, k: 1 }, { n: 1, k: 3 }, { n: 300, k: 1 }, { n: 1000, k: 7 }, { n: 4097, k: 1000 },
    { n: 20_000, k: 65_536 }, { n: 777, k: 300 },
  ];
  it('stsCheckChannels and stsCountChannels: counts and the smallest bad index', async () => {
    let seed = 1;
    for (const { n, k } of cases) {
      for (const bad of [false, true]) {
        const d = digisWords(n, k, seed++);
        if (n > 0) d[2 * (n - 1)] = k - 1; // the largest channel
        if (bad && n > 0) { d[2 * Math.floor(n / 3)] = k + 5; d[2 * (n - 1)] = 0xffffffff; }
        for (const [grid, block] of [[1, 256], [3, 96], [7, 1]] as const) {
          const [, b1] = await same(sts.stsCheckChannels, { grid, block }, [d, n, k, Uint32Array.of(0xffffffff)], `n=${n} k=${k}`);
          if (bad && n > 0) expect(b1![0]).toBe(Math.floor(n / 3));
          await same(sts.stsCountChannels, { grid, block }, [d, new Uint32Array(k), n, k, Uint32Array.of(0xffffffff)], `n=${n} k=${k}`);
        }
      }
    }
  });
  it('stsScatterAtomic: each channel segment holds the same digis (a multiset)', async () => {
    let seed = 100;
    for (const { n, k } of cases) {
      const d = digisWords(n, k, seed++);
      const counts = new Uint32Array(k);
      for (let i = 0; i < n; i++) counts[d[2 * i]!]!++;
      const offsets = new Uint32Array(k);
      for (let c = 1; c < k; c++) offsets[c] = offsets[c - 1]! + counts[c - 1]!;
      const run = async (dev: GpuDevice) => launchOn(dev, sts.stsScatterAtomic, { grid: 5, block: 64 }, [d, new Uint32Array(2 * n), offsets, n, k]);
      const [a, b] = [await run(wasm), await run(gpu)];
      expect(b[2], 'end offsets').toEqual(a[2]);
      // canonical form: digis sorted by (channel, time) as u64 keys
      const canon = (w: Uint32Array) => {
        const keys = new BigUint64Array(n);
        for (let i = 0; i < n; i++) keys[i] = (BigInt(w[2 * i]!) << 32n) | BigInt(w[2 * i + 1]!);
        return keys.sort();
      };
      expect(canon(b[1]!)).toEqual(canon(a[1]!));
      // and channels are in place: out channel sequence exact
      const chans = (w: Uint32Array) => w.filter((_, i) => i % 2 === 0);
      expect(chans(b[1]!)).toEqual(chans(a[1]!));
    }
  });
  it('stsCountChunks (both layouts), stsColumnOffsets, stsScatterChunks, the local kernels, their column (SoA) and fused forms and the layout conversions', async () => {
    let seed = 200;
    for (const { n, k } of cases.filter((c) => c.k <= 4096)) {
      for (const [grid, block] of [[4, 1], [3, 5], [2, 64]] as const) {
        const P = grid * block;
        const shape = { grid, block };
        const d = digisWords(n, k, seed++);
        await same(shipped.kernels.stsCountChunks!, shape, [d, new Uint32Array(k * P).fill(7), n, k, Uint32Array.of(0xffffffff), 0], `layout 0 n=${n}`);
        const [, counts] = await same(shipped.kernels.stsCountChunks!, shape, [d, new Uint32Array(k * P).fill(7), n, k, Uint32Array.of(0xffffffff), 1], `layout 1 n=${n}`);
        const [, colOff, totals] = await same(sts.stsColumnOffsets, { grid: 3, block: 100 }, [counts!, new Uint32Array(k * P), new Uint32Array(k), k, P]);
        const chanStart = new Uint32Array(k);
        for (let c = 1; c < k; c++) chanStart[c] = chanStart[c - 1]! + totals![c - 1]!;
        await same(sts.stsScatterChunks, shape, [d, new Uint32Array(2 * n), colOff!.slice(), chanStart, n, k], `n=${n}`);
        const [, local] = await same(shipped.kernels.stsLocalOffsets!, shape, [counts!, new Uint32Array(k * P), k]);
        const [, tmp, localEnd] = await same(sts.stsLocalSort, shape, [d, new Uint32Array(2 * n), local!, n, k]);
        await same(sts.stsLocalMerge, shape, [tmp!, new Uint32Array(2 * n), counts!, localEnd!, colOff!, chanStart, n, k]);
        // the same sort over columns {channel, time}, and the conversions between the layouts
        const [, channel, time] = await same(shipped.kernels.stsSplitDigis!, { grid: 3, block: 64 }, [d, new Uint32Array(n), new Uint32Array(n), n]);
        await same(shipped.kernels.stsInterleaveDigis!, { grid: 2, block: 32 }, [channel!, time!, new Uint32Array(2 * n), n]);
        const [, countsSoA] = await same(shipped.kernels.stsCountChunksSoA!, shape, [channel!, new Uint32Array(k * P).fill(7), n, k, Uint32Array.of(0xffffffff)]);
        expect(countsSoA, `stsCountChunksSoA n=${n}`).toEqual(counts);
        await same(shipped.kernels.stsScatterChunksSoA!, shape, [channel!, time!, new Uint32Array(n), new Uint32Array(n), colOff!.slice(), chanStart, n, k, n]);
        // the scatters that find their own offsets in the count table
        await same(shipped.kernels.stsScatterChunksFused!, shape, [d, new Uint32Array(2 * n), counts!, new Uint32Array(k * P), n, k], `fused n=${n}`);
        await same(shipped.kernels.stsScatterChunksFusedSoA!, shape, [channel!, time!, new Uint32Array(n), new Uint32Array(n), counts!, new Uint32Array(k * P), n, k, n]);
      }
    }
  });
  it('stsCountChunks: chunk bounds of many threads over a large n (g·n/P past 32 bits, without 64-bit integers)', async () => {
    // P = 14289·7 = 100023 threads, n = 2P − 1: g·(n mod P) reaches ~10^10, past 32 bits.
    const P = 14289 * 7;
    const n = 2 * P - 1;
    const d = digisWords(n, 3, 9);
    const [, hist] = await same(shipped.kernels.stsCountChunks!, { grid: 14289, block: 7 }, [d, new Uint32Array(3 * P), n, 3, Uint32Array.of(0xffffffff), 1]);
    // thread g's chunk has ⌊(g+1)n/P⌋ − ⌊gn/P⌋ digis
    for (const g of [0, 1, P / 2, P - 2, P - 1].map(Math.floor)) {
      const want = Math.floor(((g + 1) * n) / P) - Math.floor((g * n) / P);
      expect(hist![3 * g]! + hist![3 * g + 1]! + hist![3 * g + 2]!, `g=${g}`).toBe(want);
    }
  });
});

/** Run starts of digis (host), as stsRunFlags + scan + stsRunStarts compute them. */
function runStarts(d: Uint32Array, n: number): Uint32Array {
  const s: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i === 0 || d[2 * i - 2]! > d[2 * i]! || (d[2 * i - 2] === d[2 * i] && d[2 * i - 1]! > d[2 * i + 1]!)) s.push(i);
  }
  s.push(n);
  return Uint32Array.from(s);
}

describe('STS merge-sort and key-sort kernels: webgpu vs wasm', () => {
  const sizes = [[1, 1], [2, 3], [257, 1], [1000, 7], [5003, 300], [40_000, 4099]] as const;
  it('stsRunFlags, stsRunStarts, stsHalveRuns', async () => {
    let seed = 400;
    for (const [n, k] of sizes) {
      const d = digisWords(n, k, seed++);
      const [, flags] = await same(sts.stsRunFlags, { grid: 3, block: 96 }, [d, new Uint32Array(n), n]);
      const pos = new Uint32Array(n);
      let r = 0;
      for (let i = 0; i < n; i++) { pos[i] = r; r += flags![i]!; }
      const [, , starts] = await same(sts.stsRunStarts, { grid: 2, block: 256 }, [d, pos, new Uint32Array(r + 1), n, r]);
      expect(starts).toEqual(runStarts(d, n));
      await same(shipped.kernels.stsHalveRuns!, { grid: 1, block: 5 }, [starts!, new Uint32Array(Math.ceil(r / 2) + 1), r, n]);
    }
  });
  it('stsMergeDigis and stsMergeKeys: one round, several elements per thread', async () => {
    let seed = 500;
    for (const [n, k] of sizes) {
      const d = digisWords(n, k, seed++);
      const starts = runStarts(d, n);
      const r = starts.length - 1;
      for (const per of [1, 3, 256]) {
        const shape = { grid: Math.max(1, Math.min(64, Math.ceil(n / per / 32))), block: 32 };
        await same(sts.stsMergeDigis, shape, [d, new Uint32Array(2 * n), starts, r, n, per], `n=${n} per=${per}`);
        const keys = new Uint32Array(2 * n);
        for (let i = 0; i < n; i++) { keys[2 * i] = d[2 * i + 1]!; keys[2 * i + 1] = d[2 * i]!; }
        await same(sts.stsMergeKeys, shape, [keys, new Uint32Array(2 * n), starts, r, n, per], `n=${n} per=${per}`);
      }
    }
  });
  it('stsDigisToKeys, stsKeysToDigis, stsTileStarts, stsTileSort (tiles of 2·block, padded tail)', async () => {
    let seed = 600;
    for (const [n, k] of [[0, 1], ...sizes] as const) {
      const d = digisWords(n, k, seed++);
      const [, keys] = await same(sts.stsDigisToKeys, { grid: 2, block: 64 }, [d, new Uint32Array(2 * n), n]);
      await same(sts.stsKeysToDigis, { grid: 2, block: 64 }, [keys!, new Uint32Array(2 * n), n]);
      for (const block of [1, 2, 64, 256]) {
        const tile = 2 * block;
        const nTiles = Math.ceil(n / tile);
        if (n > 0) await same(sts.stsTileSort, { grid: nTiles, block, sharedBytes: 8 * tile }, [keys!, n], `n=${n} block=${block}`);
        await same(shipped.kernels.stsTileStarts!, { grid: 1, block: 100 }, [new Uint32Array(nTiles + 1), nTiles, tile, n]);
      }
    }
  });
});

describe('stsSort on webgpu', () => {
  const methods = ['chunked', 'local', 'atomic', 'merge', 'key'] as const;
  it('equals wasm: order-preserving methods exactly, atomic per channel', async () => {
    let seed = 300;
    for (const [n, k] of [[0, 4], [1, 1], [1, 9], [2, 2], [257, 1], [1023, 17], [50_001, 1000], [30_000, 200_000]] as const) {
      const digis = generateStsDigis({ n, nChannels: k, seed: seed++ });
      if (n > 1) digis.channel[n - 1] = k - 1;
      for (const method of methods) {
        const a = await stsSort(wasm, digis, { nChannels: k, method });
        const b = await stsSort(gpu, digis, { nChannels: k, method });
        expect(b.channel, `${method} n=${n} k=${k}`).toEqual(a.channel);
        if (method === 'atomic') {
          const { sortTimesPerChannel } = await import('../src/crosscheck/jobs/sts.js');
          expect(sortTimesPerChannel(b.channel!, b.time!)).toEqual(sortTimesPerChannel(a.channel!, a.time!));
        } else {
          expect(b.time, `${method} n=${n} k=${k}`).toEqual(a.time);
        }
      }
    }
  });
  it('a channel out of range throws StsChannelRangeError naming the same digi on both backends', async () => {
    const digis = generateStsDigis({ n: 5000, nChannels: 50, seed: 5 });
    digis.channel[4000] = 50;
    digis.channel[1234] = 77;
    for (const method of methods) {
      for (const dev of [wasm, gpu] as GpuDevice[]) {
        const e = await stsSort(dev, digis, { nChannels: 50, method }).catch((x: unknown) => x);
        expect(e, `${dev.backend} ${method}`).toBeInstanceOf(StsChannelRangeError);
        expect((e as StsChannelRangeError).index).toBe(1234);
        expect((e as StsChannelRangeError).channel).toBe(77);
      }
    }
  });
  it('the webgpu launch shapes fit the adapter', async () => {
    const digis = generateStsDigis({ n: 10_000, nChannels: 100, seed: 8 });
    for (const method of methods) {
      const r = await stsSort(gpu, digis, { nChannels: 100, method });
      for (const l of r.launches) expect(l.threadsPerBlock).toBeLessThanOrEqual(gpu.maxThreadsPerBlock);
    }
  });
});

describe('the sts-sort cross-check job', () => {
  const devices = () => ({ wasm, webgpu: gpu });
  it('edge sizes', async () => {
    const job = jobs.get('stsSort')!;
    for (const n of job.edgeSizes) {
      for (const seed of [0, 5]) {
        const r = await crossCheck(job, job.generate(n, seed + n), { devices: devices() });
        expect(r.equal, `size ${n}: ${JSON.stringify(r.outputs.filter((o) => !o.equal))}`).toBe(true);
      }
    }
  });
  it('random sizes and seeds (every channel count the generator uses)', async () => {
    const job = jobs.get('stsSort')!;
    let s = 777;
    for (let k = 0; k < 6; k++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const n = 1 + (s % 200_000);
      const r = await crossCheck(job, job.generate(n, k), { devices: devices() });
      expect(r.equal, `size ${n} seed ${k}: ${JSON.stringify(r.outputs.filter((o) => !o.equal))}`).toBe(true);
    }
  });
  it('a wrong atomic order inside a channel is not a difference, a wrong time is', async () => {
    const job = jobs.get('stsSort')!;
    const inputs = job.generate(5000, 2);
    const base = await job.run(wasm, inputs);
    const { sortTimesPerChannel } = await import('../src/crosscheck/jobs/sts.js');
    const ch = base['atomic.channel'] as Uint32Array;
    const t = (base['atomic.time'] as Uint32Array).slice();
    // reversing every channel's times (another legal atomic order) canonicalises to the same
    const rev = t.slice();
    for (let i = 0, j = 0; i < ch.length; i = j) {
      for (j = i + 1; j < ch.length && ch[j] === ch[i]; j++);
      rev.subarray(i, j).reverse();
    }
    expect(sortTimesPerChannel(ch, rev)).toEqual(t);
    const fake = {
      ...job, name: 'stsFake',
      run: async (d: GpuDevice) => (d.backend === 'wasm' ? base : { ...base, 'atomic.time': Uint32Array.from(t, (v, i) => (i === 7 ? v + 1 : v)) }),
    };
    const r = await crossCheck(fake, inputs, { devices: devices() });
    expect(r.equal).toBe(false);
    expect(r.outputs.filter((o) => !o.equal).map((o) => o.output)).toEqual(['atomic.time']);
  });
  it('simt crosscheck sts-sort exits 0', async () => {
    const logs: string[] = [];
    const code = await main(['crosscheck', 'sts-sort', '--size', '20000', '--seed', '3'], {
      out: (l) => logs.push(l), err: (l) => logs.push(l), tty: false,
    });
    expect(code, logs.join('\n')).toBe(0);
    expect(logs.join('\n')).toMatch(/atomic\.time\s+webgpu\s+\[exact\]: equal/);
    expect(logs.join('\n')).toMatch(/all outputs agree/);
  });
});
