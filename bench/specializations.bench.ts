// The specializations suite: each hand-written kernel that declares a generic form
// (`specializes` in src/kernels/index.ts) against that generic kernel of the shipped module
// (kernels/, per thread), on the launch shape the ops use (gridStrideShape: block 1024, one
// grid-stride step per block; the pixel clustering job's one block of 256 per module) and the
// core and pixel suites' data. The two alternate run by run, so both
// see the same machine; a record per kernel and form, the specialization's with `speedup` (the
// ratio of the medians) and the range of the run-by-run ratios. One under 1.3x goes
// (the generic kernel then serves its op).
import { createDevice, type Device } from '../src/device.js';
import { specializations } from '../src/kernels/index.js';
import type { Kernel } from '../src/kernel.js';
import type { DeviceArray } from '../src/memory/deviceArray.js';
import { shippedKernels, shippedModule } from '../src/shippedModule.js';
import { exclusiveScan } from '../src/ops/scan.js';
import { defaultChunks } from '../src/jobs/sts/run.js';
import { gridStrideShape } from '../src/ops/launchShape.js';
import { moduleIdsForBench, randomF32, stsDigisForBench } from '../src/data/synthetic.js';
import { generatePixelEvent } from '../src/jobs/pixel/generate.js';
import { countModulesReference, findClusReference } from '../src/jobs/pixel/reference.js';
import { CHARGE_THRESHOLD_LAYER1, CHARGE_THRESHOLD_OTHER, MAX_NUM_MODULES } from '../src/jobs/pixel/constants.js';
import { CHARGE_CUT_SHARED_BYTES, FIND_CLUS_SHARED_BYTES } from '../src/kernels/pixel.js';
import { generatePetData } from '../src/jobs/pet/generate.js';
import { geometrySizes } from '../src/jobs/pet/geometry.js';
import { coincidenceFill, coincidenceNextIndex, coincidenceSelect, convertReference, sortByTimeReference } from '../src/jobs/pet/reference.js';
import { PET_SHAPES, petMergeRanks } from '../src/kernels/pet.js';
import { MERGE_GROUP } from '../src/jobs/pet/run.js';
import { blockScanSharedBytes, compactionSharedBytes } from '../src/kernels/primitives.js';
import { UsageError } from '../src/cli/args.js';
import { median, progress, record, workerCounts, type BenchContext, type BenchRecord, type BenchSuite } from './harness.js';

/** One workload: its launch arguments on a device, reset before each run (inside the timing, as the core suite does). */
interface Workload {
  size: number;
  /** Bytes a run must move (throughput). */
  bytes: number;
  memoryBytes: number;
  setup(dev: Device): Promise<{
    args: (DeviceArray | number)[]; sharedBytes: number; reset(): Promise<void>; result(): Promise<string>;
    /** The launch shape when it is not the ops' grid-stride shape. */
    shape?: { grid: number | { x: number; y: number }; block: number };
    /** Restores an input the kernel overwrites in place (a sort's tile, SelectKernel's nextIndex): before the timing. */
    restore?(): Promise<void>;
  }>;
}

function reduction(n: number, partialDType: 'f32' | 'f64'): Workload {
  const elem = partialDType === 'f32' ? 4 : 8;
  return {
    size: n, bytes: 4 * n, memoryBytes: 4 * n + (64 << 20),
    async setup(dev) {
      const A = await dev.upload('f32', randomF32(n, 1));
      const { grid, block } = gridStrideShape(dev, n);
      const B = dev.alloc(partialDType, grid);
      return {
        args: [A, B, n], sharedBytes: elem * block, async reset() {},
        // The partials folded on the host, in order (as src/ops/reduce.ts does).
        async result() { return String(Array.from(await B.read()).reduce((s, v) => s + v, 0)); },
      };
    },
  };
}

/** The core suite's data: 1800 modules, 1 % invalid digis, nMaxModules 1856. */
function countModules(n: number): Workload {
  return {
    size: n, bytes: 6 * n, memoryBytes: 6 * n + (64 << 20),
    async setup(dev) {
      const id = await dev.upload('u16', moduleIdsForBench(n, 1800, 0.01, 1));
      const ms = dev.alloc('u32', 1858);
      const cid = dev.alloc('i32', n);
      return {
        args: [id, ms, cid, n, 1856], sharedBytes: 0,
        async reset() { await ms.fill(0); },
        async result() { return String((await ms.read(0, 1))[0]); },
      };
    },
  };
}

/** The sts suite's digis (1k channels, per-channel runs): the atomic counting sort's two passes. */
function stsAtomic(n: number, pass: 'count' | 'scatter'): Workload {
  const channels = 1000;
  return {
    size: n, bytes: (pass === 'count' ? 8 : 16) * n, memoryBytes: 16 * n + (64 << 20),
    async setup(dev) {
      const words = stsDigisForBench(n, channels, 1);
      const digis = await dev.upload('u32', words);
      const counts = new Uint32Array(channels);
      for (let i = 0; i < words.length; i += 2) counts[words[i]!]!++;
      const starts = new Uint32Array(channels);
      for (let c = 1; c < channels; c++) starts[c] = starts[c - 1]! + counts[c - 1]!;
      const table = dev.alloc('u32', channels);
      const bad = dev.alloc('u32', 1);
      const out = dev.alloc('u32', 2 * n);
      const sum = async () => String(Array.from(await table.read()).reduce((a, b) => a + b, 0));
      return pass === 'count'
        ? { args: [digis, table, n, channels, bad], sharedBytes: 0, async reset() { await table.fill(0); await bad.fill(0xffffffff); }, result: sum }
        // The channels' end offsets after the scatter (the order inside a channel is the atomics').
        : { args: [digis, out, table, n, channels], sharedBytes: 0, async reset() { await table.upload(starts); }, result: sum };
    },
  };
}

/**
 * The pixel suite's event (1856 modules, 24 clusters each, ~215k digis) as the job launches
 * findClus and clusterChargeCut on it: one block of 256 per module, the store's columns as
 * countModules and (for the charge cut) findClus leave them; the outputs are reset before each run.
 */
function pixelClustering(kernel: 'findClus' | 'clusterChargeCut'): Workload {
  const ev = generatePixelEvent({ seed: 1, activeModules: 1856, clustersPerModule: 24 });
  const n = ev.moduleInd.length;
  const cm = countModulesReference(ev.moduleInd, MAX_NUM_MODULES - 1);
  const fc = findClusReference({ id: ev.moduleInd, x: ev.xx, y: ev.yy }, { moduleStarts: cm.sortedStarts, clusterIdInit: cm.clusterIdInit });
  const count = cm.sortedStarts.length;
  return {
    size: n, bytes: 12 * n, memoryBytes: 64 << 20,
    async setup(dev) {
      const moduleStart = await dev.upload('u32', Uint32Array.of(count, ...cm.sortedStarts));
      const id = await dev.upload('u16', kernel === 'findClus' ? ev.moduleInd : fc.id);
      const clusterId = dev.alloc('i32', n);
      const nClusters = dev.alloc('u32', MAX_NUM_MODULES);
      const shape = { grid: count, block: 256 };
      const clusterIdIn = kernel === 'findClus' ? cm.clusterIdInit : fc.clusterId;
      const nClustersIn = kernel === 'findClus' ? new Uint32Array(MAX_NUM_MODULES) : fc.nClustersInModule;
      async function reset() { await clusterId.upload(clusterIdIn); await nClusters.upload(nClustersIn); if (kernel !== 'findClus') await id.upload(fc.id); }
      async function result() { return String((await nClusters.read()).reduce((s, v) => s + v, 0)); }
      if (kernel === 'findClus') {
        const [x, y] = [await dev.upload('u16', ev.xx), await dev.upload('u16', ev.yy)];
        const moduleId = dev.alloc('u32', count);
        return { args: [id, x, y, moduleStart, nClusters, moduleId, clusterId, n], sharedBytes: FIND_CLUS_SHARED_BYTES, shape, reset, result };
      }
      const adc = await dev.upload('u16', ev.adc);
      return { args: [id, adc, moduleStart, nClusters, clusterId, n, CHARGE_THRESHOLD_LAYER1, CHARGE_THRESHOLD_OTHER], sharedBytes: CHARGE_CUT_SHARED_BYTES, shape, reset, result };
    },
  };
}

/**
 * The pet suite's frames (generatePetData, seed 1) and what each PET kernel of the job gets from
 * the one before it (computed by the plain-TS references, once per size): the singles in frame
 * order, the same sorted by time, nextIndex before and after SelectKernel.
 */
const petCache = new Map<number, ReturnType<typeof petStages>>();
function petStages(nFrames: number) {
  const ds = generatePetData({ nFrames, seed: 1 });
  const g = ds.geometry, s = geometrySizes(g);
  const singles = convertReference(ds.frames, g, ds.positionTable, ds.energyTable);
  const m = singles.time.length;
  const n2 = Math.max(2 ** Math.ceil(Math.log2(Math.max(1, m))), PET_SHAPES.sortTile);
  const recordsOf = (x: typeof singles): Uint32Array => {
    const w = new Uint32Array(4 * n2);
    const f32 = new Float32Array(w.buffer), f64 = new Float64Array(w.buffer);
    for (let i = 0; i < n2; i++) {
      if (i < m) { w[4 * i] = x.crystal[i]!; f32[4 * i + 1] = x.energy[i]!; f64[2 * i + 1] = x.time[i]!; } else { w[4 * i] = 0xffffffff; f64[2 * i + 1] = Infinity; }
    }
    return w;
  };
  const sorted = sortByTimeReference(singles).singles;
  const next = coincidenceNextIndex(sorted);
  const selected = coincidenceSelect(sorted, next);
  const geometry = Uint32Array.of(s.bdmCount, g.duNum, g.positionSize, s.crystalsPerDu, s.bdmPerRing, g.blockNumY, g.blockNumZ, g.crystalNumY, g.crystalNumZ, s.crystalsPerRing);
  // The coincidence stage's output: CoinStruct records (8 words) and each pair's first single.
  const p = coincidenceFill(sorted, selected);
  const pairs = new Uint32Array(8 * Math.max(1, p.count));
  const pf32 = new Float32Array(pairs.buffer), pf64 = new Float64Array(pairs.buffer);
  for (let k = 0; k < p.count; k++) {
    pairs[8 * k] = p.crystal0[k]!; pf32[8 * k + 1] = p.energy0[k]!; pf64[4 * k + 1] = p.time0[k]!;
    pairs[8 * k + 4] = p.crystal1[k]!; pf32[8 * k + 5] = p.energy1[k]!; pf64[4 * k + 3] = p.time1[k]!;
  }
  return {
    ds, geometry, lutCount: s.bdmCount * g.duNum * s.crystalsPerDu, m, n2, unsorted: recordsOf(singles), sorted: recordsOf(sorted), next, selected,
    pairCount: p.count, pairs, pairFirst: p.count > 0 ? Uint32Array.from(p.index0) : new Uint32Array(1),
  };
}
const petData = (n: number) => { let d = petCache.get(n); if (!d) { d = petStages(n); petCache.set(n, d); } return d; };
const sumOf = async (a: DeviceArray): Promise<string> => String(Array.from(await a.read() as ArrayLike<number>).reduce((x, y) => x + y, 0));

/** The records with each run of `tile` stably sorted by time (the sort tiles' output). */
function tileSorted(records: Uint32Array, tile: number): Uint32Array {
  const out = records.slice();
  const time = new Float64Array(records.buffer, records.byteOffset, records.length / 2);
  for (let lo = 0; lo < records.length / 4; lo += tile) {
    const order = Array.from({ length: tile }, (_, k) => lo + k).sort((a, b) => time[2 * a + 1]! - time[2 * b + 1]! || a - b);
    order.forEach((i, k) => out.set(records.subarray(4 * i, 4 * i + 4), 4 * (lo + k)));
  }
  return out;
}

/** One PET kernel as runPet launches it, on its stage's input (nFrames frames). */
function pet(kernel: string, nFrames: number): Workload {
  return {
    size: nFrames, bytes: 16 * nFrames, memoryBytes: 256 << 20,
    async setup(dev) {
      const d = petData(nFrames);
      const { m, n2 } = d;
      const geo = await dev.upload('u32', d.geometry);
      const lut = dev.alloc('u32', 2 * d.lutCount);
      await dev.launch((await shippedModule()).kernels.petCrystalLut!, { grid: Math.ceil(d.lutCount / 256), block: 256 }, [geo, lut, d.lutCount]);
      const nothing = async () => {};
      const cth = PET_SHAPES.coinThreads, cel = PET_SHAPES.coinElems;
      const coinGrid = Math.ceil(m / (cth * cel)), countGrid = Math.ceil(Math.ceil(m / cel) / cth);
      switch (kernel) {
        case 'petConvert': {
          const ct = PET_SHAPES.convertThreads, ce = PET_SHAPES.convertElems;
          const counter = dev.alloc('u32', 1), bad = dev.alloc('i32', 1);
          return {
            args: [await dev.upload('u8', d.ds.frames), nFrames, dev.alloc('u32', 4 * nFrames), dev.alloc('u32', 4 * nFrames), counter, await dev.upload('u8', d.ds.positionTable), lut,
              await dev.upload('f32', d.ds.energyTable), geo, 350, 650, 1, bad, ce],
            sharedBytes: compactionSharedBytes(ct), shape: { grid: Math.ceil(nFrames / (ct * ce)), block: ct },
            async reset() { await counter.fill(0); await bad.fill(0x7fffffff); }, result: () => sumOf(counter),
          };
        }
        case 'petSortTiles': {
          const data = await dev.upload('u32', d.unsorted);
          return {
            args: [data, m], sharedBytes: 2 * PET_SHAPES.sortTile * 16, shape: { grid: n2 / PET_SHAPES.sortTile, block: PET_SHAPES.sortThreads },
            async restore() { await data.upload(d.unsorted); }, reset: nothing, result: async () => String((await data.read(0, 4))[0]),
          };
        }
        case 'petMergeRanks': case 'petMergeBlocks': {
          // The last merge pass (the job's per-pass launches on wasm are the top passes, whose
          // halves barely interleave): the sorted singles as its two sorted halves.
          const S = n2 / 2, sub = PET_SHAPES.subBlock;
          const data = await dev.upload('u32', d.sorted);
          const re = dev.alloc('u32', n2 / sub), ro = dev.alloc('u32', n2 / sub);
          if (kernel === 'petMergeRanks') return { args: [data, re, ro, S, m, n2], sharedBytes: 0, shape: { grid: Math.ceil(n2 / sub / 256), block: 256 }, reset: nothing, result: () => sumOf(re) };
          await dev.launch(petMergeRanks, { grid: Math.ceil(n2 / sub / 256), block: 256 }, [data, re, ro, S, m, n2]);
          const out = dev.alloc('u32', 4 * n2);
          return { args: [data, out, re, ro, S, m], sharedBytes: 2 * sub * 16, shape: { grid: { x: (2 * S) / sub, y: n2 / (2 * S) }, block: sub }, reset: nothing, result: async () => String((await out.read(0, 4))[0]) };
        }
        case 'petMergeLevels': {
          // The job's fused low passes on wasm: runs of one sort tile each, S = 1024 up to groups of 32K singles.
          const tiles = tileSorted(d.unsorted, PET_SHAPES.sortTile);
          const S = PET_SHAPES.sortTile;
          let levels = 0;
          while ((S << (levels + 1)) <= MERGE_GROUP && (S << levels) < m) levels++;
          const data = await dev.upload('u32', tiles), out = dev.alloc('u32', 4 * n2);
          return {
            args: [data, out, S, levels, m], sharedBytes: 0, shape: { grid: n2 / (S << levels), block: 1 },
            async restore() { await data.upload(tiles); }, reset: nothing, result: async () => String((await out.read(0, 4))[0]) + String((await data.read(0, 4))[0]),
          };
        }
        case 'petCoinNextIndex': case 'petCoinSelect': {
          const data = await dev.upload('u32', d.sorted), next = await dev.upload('i32', d.next);
          return {
            args: [data, next, m, 4000, cel], sharedBytes: 0, shape: { grid: coinGrid, block: cth },
            ...(kernel === 'petCoinSelect' ? { async restore() { await next.upload(d.next); } } : {}), reset: nothing, result: () => sumOf(next),
          };
        }
        case 'petCoinCount': {
          const newLength = dev.alloc('u32', 1);
          return {
            args: [await dev.upload('i32', d.selected), m, dev.alloc('u32', countGrid * cth), dev.alloc('u32', countGrid), newLength, cel],
            sharedBytes: blockScanSharedBytes(cth), shape: { grid: countGrid, block: cth }, async reset() { await newLength.fill(0); }, result: () => sumOf(newLength),
          };
        }
        case 'petCoinFill': {
          // Thread t's first pair at the count of pair starts before its singles (the count kernel's and the scan's results).
          const scanId = new Uint32Array(countGrid * cth), offsets = new Uint32Array(countGrid);
          let pairs = 0;
          for (let t = 0; t < countGrid * cth; t++) {
            if (t % cth === 0) offsets[t / cth] = pairs;
            scanId[t] = pairs - offsets[Math.floor(t / cth)]!;
            for (let i = t * cel; i < Math.min(m, (t + 1) * cel); i++) if (d.selected[i] !== -1) pairs++;
          }
          const first = dev.alloc('u32', Math.max(1, pairs));
          return {
            args: [await dev.upload('u32', d.sorted), dev.alloc('u32', 8 * Math.max(1, pairs)), first, await dev.upload('i32', d.selected), m, await dev.upload('u32', scanId), await dev.upload('u32', offsets), cel],
            sharedBytes: 0, shape: { grid: countGrid, block: cth }, reset: nothing, result: () => sumOf(first),
          };
        }
        case 'petSplitSingles': {
          // readSingles: the sorted singles' m records → three columns.
          const cols = [dev.alloc('u32', m), dev.alloc('f32', m), dev.alloc('f64', m)] as const;
          return {
            args: [await dev.upload('u32', d.sorted), m, ...cols], sharedBytes: 0, shape: { grid: Math.min(4096, Math.ceil(m / 256)), block: 256 },
            reset: nothing, result: () => sumOf(cols[0]),
          };
        }
        case 'petSplitPairs': {
          // readPairs: the pair table's CoinStruct records and first singles → seven columns.
          const k = d.pairCount, len = Math.max(1, k);
          const u32 = () => dev.alloc('u32', len), f32 = () => dev.alloc('f32', len), f64 = () => dev.alloc('f64', len);
          const index1 = u32();
          return {
            args: [await dev.upload('u32', d.pairs), await dev.upload('u32', d.pairFirst), k, index1, u32(), u32(), f32(), f32(), f64(), f64()],
            sharedBytes: 0, shape: { grid: Math.min(4096, Math.ceil(len / 256)), block: 256 }, reset: nothing, result: () => sumOf(index1),
          };
        }
      }
      throw new Error(`no PET workload for ${kernel}`);
    },
  };
}

/** Position-weighted sum of the words (mod 2^32): the same digis in another order differ. */
function checksum(w: Uint32Array): string {
  let h = 0;
  for (let i = 0; i < w.length; i++) h = (h + Math.imul(w[i]!, 2 * i + 1)) >>> 0;
  return String(h);
}

/**
 * One kernel of the STS sorts (chunked, local, merge, key) on the sts suite's digis (1k
 * channels, or k), its arguments as the sort makes them (the earlier stages run first, generic
 * kernels and the scan) and its launch shape: the sort's chunk owners of one thread on 2 workers
 * (8 at 1k channels), block 256 grid-stride, merge rounds of 256 outputs a thread, tiles of 1024
 * keys. Arrays a kernel updates in place are restored before each run.
 */
function stsSortKernel(name: string, n: number, k = 1000): Workload {
  const chunks = defaultChunks(n, k, 2), per = 256, tileBlock = 512;
  return {
    size: n, bytes: 16 * n, memoryBytes: 56 * n + (64 << 20),
    async setup(dev) {
      const g = await shippedKernels(dev);
      const launch = (kernel: string, shape: { grid: number; block: number; sharedBytes?: number }, args: (DeviceArray | number)[]) => dev.launch(g[kernel]!, shape, args as never);
      const each = (count: number) => gridStrideShape(dev, count, 256);
      const chunk = { grid: chunks, block: 1 };
      const digis = await dev.upload('u32', stsDigisForBench(n, k, 1));
      const copyOf = async (a: DeviceArray<'u32'>) => dev.upload('u32', await a.read());
      const bad = dev.alloc('u32', 1);
      await bad.fill(0xffffffff);
      const out = dev.alloc('u32', 2 * n);
      const result = async () => checksum(await out.read());
      const restore = (a: DeviceArray<'u32'>, w: Uint32Array) => async () => { await a.upload(w); };
      if (['stsScatterChunks', 'stsLocalSort', 'stsColumnOffsets', 'stsLocalMerge'].includes(name)) {
        const counts = dev.alloc('u32', k * chunks);
        await launch('stsCountChunks', chunk, [digis, counts, n, k, bad, 1]);
        const colOff = dev.alloc('u32', k * chunks), totals = dev.alloc('u32', k);
        await launch('stsColumnOffsets', each(k), [counts, colOff, totals, k, chunks]);
        const chanStart = await copyOf(totals);
        await exclusiveScan(dev, chanStart, chanStart, k);
        const local = dev.alloc('u32', k * chunks);
        await launch('stsLocalOffsets', chunk, [counts, local, k]);
        const localEnd = await copyOf(local), tmp = dev.alloc('u32', 2 * n);
        await launch('stsLocalSort', chunk, [digis, tmp, localEnd, n, k]);
        switch (name) {
          case 'stsScatterChunks': return { args: [digis, out, colOff, chanStart, n, k], sharedBytes: 0, shape: chunk, reset: restore(colOff, await colOff.read()), result };
          case 'stsLocalSort': return { args: [digis, out, local, n, k], sharedBytes: 0, shape: chunk, reset: restore(local, await local.read()), result };
          case 'stsColumnOffsets': return { args: [counts, colOff, out, k, chunks], sharedBytes: 0, shape: each(k), async reset() {}, async result() { return checksum(await colOff.read()); } };
          default: return { args: [tmp, out, counts, localEnd, colOff, chanStart, n, k], sharedBytes: 0, shape: chunk, async reset() {}, result };
        }
      }
      if (name === 'stsCheckChannels') return { args: [digis, n, k, bad], sharedBytes: 0, shape: each(n), async reset() { await bad.fill(0xffffffff); }, async result() { return String((await bad.read())[0]); } };
      if (['stsRunFlags', 'stsRunStarts', 'stsMergeDigis'].includes(name)) {
        const flags = dev.alloc('u32', n);
        await launch('stsRunFlags', each(n), [digis, flags, n]);
        const pos = await copyOf(flags);
        const runs = await exclusiveScan(dev, pos, pos, n);
        const starts = dev.alloc('u32', runs + 1);
        await launch('stsRunStarts', each(n), [digis, pos, starts, n, runs]);
        if (name === 'stsRunFlags') return { args: [digis, flags, n], sharedBytes: 0, shape: each(n), async reset() {}, async result() { return checksum(await flags.read()); } };
        if (name === 'stsRunStarts') return { args: [digis, pos, starts, n, runs], sharedBytes: 0, shape: each(n), async reset() {}, async result() { return checksum(await starts.read()); } };
        return { args: [digis, out, starts, runs, n, per], sharedBytes: 0, shape: each(Math.ceil(n / per)), async reset() {}, result };
      }
      // The key sort: keys (time, channel) word pairs, tiles of 2·tileBlock keys.
      const keys = dev.alloc('u32', 2 * n);
      await launch('stsDigisToKeys', each(n), [digis, keys, n]);
      if (name === 'stsDigisToKeys') return { args: [digis, out, n], sharedBytes: 0, shape: each(n), async reset() {}, result };
      if (name === 'stsKeysToDigis') return { args: [keys, out, n], sharedBytes: 0, shape: each(n), async reset() {}, result };
      const tile = 2 * tileBlock, nTiles = Math.ceil(n / tile);
      const tileShape = { grid: nTiles, block: tileBlock };
      if (name === 'stsTileSort') {
        return { args: [keys, n], sharedBytes: 8 * tile, shape: tileShape, reset: restore(keys, await keys.read()), async result() { return checksum(await keys.read()); } };
      }
      await launch('stsTileSort', { ...tileShape, sharedBytes: 8 * tile }, [keys, n]);
      const starts = dev.alloc('u32', nTiles + 1);
      await launch('stsTileStarts', each(nTiles + 1), [starts, nTiles, tile, n]);
      return { args: [keys, out, starts, nTiles, n, per], sharedBytes: 0, shape: each(Math.ceil(n / per)), async reset() {}, result };
    },
  };
}

/** The STS sorts' kernels that stay hand-written, as declared specializations. */
const STS_SORT_KERNELS = [
  'stsScatterChunks', 'stsLocalSort', 'stsColumnOffsets', 'stsLocalMerge', 'stsCheckChannels',
  'stsRunFlags', 'stsRunStarts', 'stsMergeDigis', 'stsMergeKeys', 'stsDigisToKeys', 'stsKeysToDigis', 'stsTileSort',
];

/** The workloads by kernel name: every declared specialization has one (the suite throws otherwise). */
function workloads(quick: boolean): Record<string, Workload> {
  const floats = quick ? 4 << 20 : 64 << 20;
  return {
    vecMax: reduction(floats, 'f32'),
    vecMin: reduction(floats, 'f32'),
    vecSum: reduction(floats, 'f64'),
    countModules: countModules(quick ? 5_000_000 : 50_000_000),
    stsCountChannels: stsAtomic(quick ? 1_000_000 : 16_000_000, 'count'),
    stsScatterAtomic: stsAtomic(quick ? 1_000_000 : 16_000_000, 'scatter'),
    findClus: pixelClustering('findClus'),
    clusterChargeCut: pixelClustering('clusterChargeCut'),
    ...Object.fromEntries(['petConvert', 'petSortTiles', 'petMergeRanks', 'petMergeBlocks', 'petMergeLevels', 'petCoinNextIndex',
      'petCoinSelect', 'petCoinCount', 'petCoinFill', 'petSplitSingles', 'petSplitPairs'].map((k) => [k, pet(k, quick ? 1 << 18 : 1 << 20)])),
    ...Object.fromEntries(STS_SORT_KERNELS.map((name) => [name, stsSortKernel(name, quick ? 1_000_000 : 16_000_000)])),
    // Its work is channels × chunk owners, not digis: the sts suite's 100k channels.
    stsColumnOffsets: stsSortKernel('stsColumnOffsets', quick ? 1_000_000 : 16_000_000, 100_000),
  };
}

const RUNS = 15;
const WARMUP = 2;

async function compare(spec: Kernel, w: Workload, ctx: BenchContext): Promise<BenchRecord[]> {
  const mod = await shippedModule();
  const generic = mod.kernels[spec.specializes!.generic]!;
  const dev = await createDevice({ memoryBytes: w.memoryBytes, workers: ctx.workers });
  const out: BenchRecord[] = [];
  try {
    await dev.load(mod);
    const { args, sharedBytes, reset, result, shape, restore } = await w.setup(dev);
    const { grid, block } = shape ?? gridStrideShape(dev, w.size);
    for (const workers of workerCounts(ctx)) {
      progress(`${spec.name} generic and specialization, ${workers} workers`);
      const times: Record<'generic' | 'specialization', number[]> = { generic: [], specialization: [] };
      const results = new Set<string>();
      const ratios: number[] = [];
      for (let r = -WARMUP; r < RUNS; r++) {
        const pair: number[] = [];
        for (const [form, k] of [['generic', generic], ['specialization', spec]] as const) {
          await restore?.();
          const t0 = performance.now();
          await reset();
          await dev.launch(k, { grid, block, sharedBytes, workers }, args as never);
          const ms = performance.now() - t0;
          results.add(await result());
          if (r >= 0) { times[form].push(ms); pair.push(ms); }
        }
        if (r >= 0) ratios.push(pair[0]! / pair[1]!);
      }
      if (results.size !== 1) throw new Error(`${spec.name}: the generic kernel and its specialization disagree (${[...results].join(' vs ')})`);
      const g = median(times.generic), s = median(times.specialization);
      out.push(record(`${spec.name}/generic`, 'simt-wasm', w.size, g, { bytes: w.bytes, workers, times: times.generic }));
      out.push(record(`${spec.name}/specialization`, 'simt-wasm', w.size, s, {
        bytes: w.bytes, workers, times: times.specialization,
        speedup: g / s, speedupMin: Math.min(...ratios), speedupMax: Math.max(...ratios),
      }));
      ctx.log(`  ${spec.name}, ${workers} workers: generic ${g.toFixed(2)} ms, specialization ${s.toFixed(2)} ms: ${(g / s).toFixed(2)}× (run by run ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`);
    }
  } finally {
    await dev.destroy();
  }
  return out;
}

export const suite: BenchSuite = {
  name: 'specializations',
  description: 'each declared specialization against its generic kernel (vecMax, vecMin, vecSum over 64Mi f32, countModules over 50M digis, the STS sorts\' kernels over 16M digis, findClus and clusterChargeCut on one pixel event, the PET kernels on 1M frames), the ops\' launch shape, 15 alternating runs',
  quickDescription: 'each declared specialization against its generic kernel (4Mi f32, 5M pixel digis, 1M STS digis, one pixel event, 256K PET frames), the ops\' launch shape, 15 alternating runs',
  async run(ctx) {
    const all = workloads(ctx.quick);
    const out: BenchRecord[] = [];
    const declared = specializations();
    const unknown = (ctx.kernels ?? []).filter((n) => !declared.some((k) => k.name === n));
    if (unknown.length > 0) throw new UsageError(`--kernels: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not a declared specialization (have: ${declared.map((k) => k.name).join(', ')})`);
    for (const k of declared.filter((d) => !ctx.kernels || ctx.kernels.includes(d.name))) {
      const w = all[k.name];
      if (!w) throw new Error(`specialization ${k.name} has no workload in bench/specializations.bench.ts`);
      out.push(...await compare(k, w, ctx));
    }
    return out;
  },
};
