import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { packSoa, roundFor128ByteAlignment, SoaLayoutError, soaLayout, StorageLocation, unpackSoa, type PixelDigisSoa } from '../src/jobs/pixel/soa.js';
import { generateModuleIds, generatePixelEvent, moduleIdsFromStarts, packPdigi, unpackPdigi } from '../src/jobs/pixel/generate.js';
import {
  atomicIncValue,
  canonicalizeClusterIds,
  clusterChargeCutReference,
  clusterPartitionMismatch,
  countModulesReference,
  findClusReference,
  INVALID_CLUSTER_ID,
  INVALID_MODULE_ID as X,
  PixelInputError,
  pixelClusteringReference,
  sameClusterPartition,
} from '../src/jobs/pixel/reference.js';

const u16 = (a: number[]) => Uint16Array.from(a);

describe('SiPixelDigisCUDASOAView layout', () => {
  it('the seed example, maxFedWords = 8, by hand', () => {
    expect(roundFor128ByteAlignment(8)).toBe(64);
    expect(soaLayout(8)).toEqual({
      maxFedWords: 8, stride: 64, totalBytes: 1280,
      offsets: { clus: 0, pdigi: 256, rawIdArr: 512, adc: 768, xx: 896, yy: 1024, moduleInd: 1152 },
    });
  });
  it('64 fits exactly, 65 needs two 128-byte chunks per column, 0 is empty', () => {
    expect(soaLayout(64).totalBytes).toBe(1280);
    expect(soaLayout(65)).toEqual({
      maxFedWords: 65, stride: 128, totalBytes: 2560,
      offsets: { clus: 0, pdigi: 512, rawIdArr: 1024, adc: 1536, xx: 1792, yy: 2048, moduleInd: 2304 },
    });
    expect(soaLayout(0).totalBytes).toBe(0);
    expect(soaLayout(1).stride).toBe(64);
    expect(StorageLocation.kMAX).toBe(10);
  });
  it('every column is 128-byte aligned and columns never overlap (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 100000 }), (n) => {
      const l = soaLayout(n);
      const cols = Object.entries(l.offsets).sort((a, b) => a[1] - b[1]);
      for (const [name, off] of cols) {
        expect(off % 128).toBe(0);
        const end = off + n * (['clus', 'pdigi', 'rawIdArr'].includes(name) ? 4 : 2);
        expect(end).toBeLessThanOrEqual(l.totalBytes);
      }
      for (let k = 1; k < cols.length; k++) {
        const [prev, off] = cols[k - 1]!;
        expect(cols[k]![1]).toBeGreaterThanOrEqual(off + n * (['clus', 'pdigi', 'rawIdArr'].includes(prev) ? 4 : 2));
      }
    }));
  });
  const sample = (n: number): PixelDigisSoa => ({
    clus: Int32Array.from({ length: n }, (_, i) => i - 2),
    pdigi: Uint32Array.from({ length: n }, (_, i) => 0xfedcba98 - i),
    rawIdArr: Uint32Array.from({ length: n }, (_, i) => 0x12000000 + i),
    adc: Uint16Array.from({ length: n }, (_, i) => 1000 + i),
    xx: Uint16Array.from({ length: n }, (_, i) => i % 160),
    yy: Uint16Array.from({ length: n }, (_, i) => i % 416),
    moduleInd: Uint16Array.from({ length: n }, (_, i) => (i === 3 ? X : i >> 2)),
  });
  it('packs little-endian at the documented offsets', () => {
    const b = packSoa(sample(8));
    expect(b.length).toBe(1280);
    expect(Array.from(b.subarray(0, 4))).toEqual([0xfe, 0xff, 0xff, 0xff]); // clus[0] = -2
    expect(Array.from(b.subarray(256, 260))).toEqual([0x98, 0xba, 0xdc, 0xfe]); // pdigi[0]
    expect(Array.from(b.subarray(768, 770))).toEqual([0xe8, 0x03]); // adc[0] = 1000
    expect(Array.from(b.subarray(1152 + 6, 1152 + 8))).toEqual([0xfe, 0xff]); // moduleInd[3] = 65534
    expect(b.subarray(32, 256).every((v) => v === 0)).toBe(true); // padding
  });
  it('round-trips for sizes around the 64 boundary, with capacity > n, and from an offset buffer', () => {
    for (const n of [0, 1, 63, 64, 65, 130]) {
      const s = sample(n);
      expect(unpackSoa(packSoa(s), n)).toEqual(s);
      const big = packSoa(s, n + 70);
      expect(unpackSoa(big, n + 70, n)).toEqual(s);
      const shifted = new Uint8Array(big.length + 3);
      shifted.set(big, 3);
      expect(unpackSoa(shifted.subarray(3), n + 70, n)).toEqual(s);
    }
  });
  it('SoaLayoutError on size mismatch, ragged columns, wrong types, bad counts', () => {
    expect(() => unpackSoa(new Uint8Array(1279), 8)).toThrow(SoaLayoutError);
    expect(() => unpackSoa(new Uint8Array(1280), 8, 9)).toThrow(/nDigis 9 > maxFedWords 8/);
    expect(() => packSoa({ ...sample(4), adc: new Uint16Array(3) })).toThrow(/column adc has 3 elements/);
    expect(() => packSoa({ ...sample(4), clus: new Uint32Array(4) as unknown as Int32Array })).toThrow(/column clus must be a Int32Array/);
    expect(() => packSoa(sample(4), 3)).toThrow(/do not fit/);
    expect(() => soaLayout(-1)).toThrow(SoaLayoutError);
  });
  it('pdigi packing (row 11 bits, col 11 bits, adc 10 bits clamped)', () => {
    expect(unpackPdigi(packPdigi(159, 415, 5000))).toEqual({ row: 159, col: 415, adc: 1023 });
    expect(packPdigi(1, 1, 1)).toBe(1 | (1 << 11) | (1 << 22));
  });
});

describe('countModules reference', () => {
  // The seed's example: A A x x A B x B B C C x x D  (x = invalid)
  const A = 10, B = 11, C = 12, D = 13;
  const ids = u16([A, A, X, X, A, B, X, B, B, C, C, X, X, D]);
  it('finds the boundaries of the seed example and initialises clusterId[i] = i', () => {
    const r = countModulesReference(ids, 1855);
    expect(r.count).toBe(4);
    expect(Array.from(r.sortedStarts)).toEqual([0, 5, 9, 13]);
    expect(Array.from(r.moduleStart.subarray(0, 5))).toEqual([4, 0, 5, 9, 13]);
    expect(Array.from(r.clusterIdInit)).toEqual(Array.from({ length: 14 }, (_, i) => i));
    expect(r.wrapped).toBe(false);
  });
  it('atomicInc wraps: old >= val ? 0 : old + 1', () => {
    expect(atomicIncValue(4, 5)).toBe(5);
    expect(atomicIncValue(5, 5)).toBe(0);
    expect(atomicIncValue(9, 5)).toBe(0);
    const r = countModulesReference(ids, 2); // 4 boundaries, counter 0 -> 1 -> 2 -> 0 -> 1
    expect(r.count).toBe(1);
    expect(r.wrapped).toBe(true);
    expect(r.boundaries).toBe(4);
    expect(Array.from(r.moduleStart)).toEqual([1, 13, 5, 9]);
    expect(countModulesReference(ids, 3).count).toBe(0);
    expect(countModulesReference(ids, 3).wrapped).toBe(true);
    expect(countModulesReference(ids, 4).wrapped).toBe(false);
  });
  it('edge cases: empty, one digi, all invalid, invalid-separated same module is one module', () => {
    expect(countModulesReference(u16([]), 10).count).toBe(0);
    expect(countModulesReference(u16([7]), 10).sortedStarts).toEqual(Uint32Array.from([0]));
    const inv = countModulesReference(u16([X, X, X]), 10);
    expect(inv.count).toBe(0);
    expect(Array.from(inv.clusterIdInit)).toEqual([0, 1, 2]);
    expect(Array.from(countModulesReference(u16([X, 3, X, X, 3, 4]), 10).sortedStarts)).toEqual([1, 5]);
    expect(() => countModulesReference(new Uint32Array(2) as unknown as Uint16Array, 10)).toThrow(PixelInputError);
  });
  it('generateModuleIds: sorted modules, invalid fraction, edge fractions; countModules recovers one start per module run', () => {
    const ids2 = generateModuleIds(200000, 1856, 0.1, 4);
    let prev = -1, invalid = 0, unsorted = 0, tooBig = 0;
    for (const v of ids2) {
      if (v === X) { invalid++; continue; }
      if (v < prev) unsorted++;
      if (v >= 1856) tooBig++;
      prev = v;
    }
    expect([unsorted, tooBig]).toEqual([0, 0]);
    expect(invalid / ids2.length).toBeGreaterThan(0.08);
    expect(invalid / ids2.length).toBeLessThan(0.12);
    // Ids are below 1856, so with nMaxModules = 1856 atomicInc never wraps and the count is the
    // number of module runs, one per distinct module (whether or not every module is drawn).
    const distinct = new Set(Array.from(ids2).filter((v) => v !== X)).size;
    expect(countModulesReference(ids2, 1856).count).toBe(distinct);
    expect(countModulesReference(ids2, 1856).boundaries).toBe(distinct);
    expect(generateModuleIds(1000, 5, 1, 1).every((v) => v === X)).toBe(true);
    expect(generateModuleIds(1000, 5, 0, 1).includes(X)).toBe(false);
    expect(generateModuleIds(0, 5, 0.5, 1).length).toBe(0);
    expect(generateModuleIds(1000, 5, 0.3, 1)).toEqual(generateModuleIds(1000, 5, 0.3, 1));
    expect(() => generateModuleIds(10, 5, 1.5, 1)).toThrow(PixelInputError);
  });
  it('generateModuleIds: 50M ids in about 2 s', () => {
    const t0 = performance.now();
    const big = generateModuleIds(50_000_000, 1856, 0.05, 1);
    expect(big.length).toBe(50_000_000);
    expect(performance.now() - t0).toBeLessThan(3000);
  });
  it('moduleIdsFromStarts builds ids for given starts (leading digis invalid)', () => {
    const m = moduleIdsFromStarts([2, 4], 6);
    expect(Array.from(m)).toEqual([X, X, 0, 0, 1, 1]);
    expect(Array.from(countModulesReference(m, 10).sortedStarts)).toEqual([2, 4]);
    expect(() => moduleIdsFromStarts([3, 3], 6)).toThrow(PixelInputError);
  });
});

describe('findClus reference', () => {
  const run = (id: number[], x: number[], y: number[], opts = {}) => findClusReference({ id: u16(id), x: u16(x), y: u16(y) }, opts);
  it('8-connectivity: diagonal neighbours join, |dx| = 2 does not; numbering by smallest digi index', () => {
    //          0      1      2      3       4      5
    const r = run([5, 5, 5, 5, 5, 5], [10, 50, 11, 12, 52, 0], [10, 50, 11, 10, 50, 415]);
    // 0-(diag)-2 ; 3 touches 2 diagonally ; 1 and 4 are 2 apart in x ; 5 alone at the edge
    expect(Array.from(r.clusterId)).toEqual([0, 1, 0, 0, 2, 3]);
    expect(r.nClustersInModule[5]).toBe(4);
    expect(Array.from(r.moduleId)).toEqual([5]);
  });
  it('invalid digis: -9999 inside a module range, untouched before the first module; a module continues across invalid runs', () => {
    const r = run([X, X, 7, X, 7, X, 8, X], [0, 0, 3, 0, 4, 0, 1, 9], [0, 0, 3, 0, 3, 0, 1, 9]);
    expect(Array.from(r.clusterId)).toEqual([0, 1, 0, INVALID_CLUSTER_ID, 0, INVALID_CLUSTER_ID, 0, INVALID_CLUSTER_ID]);
    expect(Array.from(r.moduleEnds)).toEqual([6, 8]);
    expect(r.nClustersInModule[7]).toBe(1);
    expect(r.nClustersInModule[8]).toBe(1);
  });
  it('empty and all-invalid inputs', () => {
    expect(run([], [], []).clusterId.length).toBe(0);
    expect(Array.from(run([X, X], [0, 0], [0, 0]).clusterId)).toEqual([0, 1]);
  });
  it('module order follows the given moduleStart (schedule dependent on the GPU)', () => {
    const r = run([1, 1, 2, 3], [0, 5, 0, 0], [0, 5, 0, 0], { moduleStarts: Uint32Array.from([3, 0, 2]) });
    expect(Array.from(r.moduleId)).toEqual([3, 1, 2]);
    expect(Array.from(r.clusterId)).toEqual([0, 1, 0, 0]);
  });
  it('duplicates: merged by default; invalidated except for the last digi of the range', () => {
    const id = [4, 4, 4, 4], x = [1, 1, 9, 9], y = [1, 1, 9, 9];
    expect(Array.from(run(id, x, y).clusterId)).toEqual([0, 0, 1, 1]);
    const inv = run(id, x, y, { duplicates: 'invalidate' });
    // (1,1) twice in [first, msize - 1): both invalid; (9,9) has one copy in that range: kept
    expect(Array.from(inv.clusterId)).toEqual([INVALID_CLUSTER_ID, INVALID_CLUSTER_ID, 0, 0]);
    expect(Array.from(inv.id)).toEqual([X, X, 4, 4]);
  });
  it('PixelInputError: too many digis in a module, coordinates outside the module, bad starts, ragged input', () => {
    const n = 4001;
    expect(() => findClusReference({ id: new Uint16Array(n).fill(9), x: new Uint16Array(n), y: new Uint16Array(n) })).toThrow(/maxPixInModule/);
    expect(() => run([1], [160], [0])).toThrow(/outside the 160 x 416 module/);
    expect(() => run([1], [0], [416])).toThrow(PixelInputError);
    expect(() => run([X, 1], [0, 0], [0, 0], { moduleStarts: Uint32Array.from([0]) })).toThrow(/not a valid module start/);
    expect(() => findClusReference({ id: u16([1]), x: u16([]), y: u16([1]) })).toThrow(/differ in length/);
  });
  it('canonicalize / partition comparison: any relabelling of the clusters is the same partition (property)', () => {
    const ev = generatePixelEvent({ seed: 21, activeModules: 12 });
    const r = findClusReference({ id: ev.moduleInd, x: ev.xx, y: ev.yy });
    fc.assert(fc.property(fc.integer({ min: 0, max: 1e9 }), (salt) => {
      // relabel each module's clusters by a salted bijection (as a different atomicInc order would)
      const other = Int32Array.from(r.clusterId, (c, i) => (c >= 0 && ev.moduleInd[i] !== X ? (c * 7919 + salt) % 1000003 : c));
      expect(sameClusterPartition(r.id, r.clusterId, other)).toBe(true);
      expect(canonicalizeClusterIds(r.id, other)).toEqual(canonicalizeClusterIds(r.id, r.clusterId));
    }));
    expect(canonicalizeClusterIds(r.id, r.clusterId)).toEqual(r.clusterId); // the reference is canonical
    const merged = Int32Array.from(r.clusterId, (c, i) => (c === 1 && r.id[i] !== X ? 0 : c));
    expect(clusterPartitionMismatch(r.id, r.clusterId, merged)).toMatch(/not matched one to one/);
    const inv = r.clusterId.slice();
    inv[0] = 123;
    expect(sameClusterPartition(r.id, r.clusterId, inv)).toBe(false);
  });
});

// Fixture: generatePixelEvent (Xoshiro128ss uniformInt, range, bernoulli, uniform and shuffle
// draws). Nothing is pinned: every check is against the event's truth or the references.
describe('generated event vs the reference', () => {
  const ev = generatePixelEvent({ seed: 2024 });
  const res = pixelClusteringReference(ev);
  it('is deterministic and has the features asked for', () => {
    expect(generatePixelEvent({ seed: 2024 })).toEqual(ev);
    const t = ev.truth;
    for (const kind of [0, 1, 2, 3, 4, 5]) expect(t.clusterKind.includes(kind)).toBe(true);
    expect(ev.moduleInd[0]).toBe(X);
    expect(t.modules.some((m) => m < 96)).toBe(true);
    let prev = -1;
    for (const m of ev.moduleInd) if (m !== X) { expect(m).toBeGreaterThanOrEqual(prev); prev = m; }
    expect(Array.from(ev.xx).some((v, i) => ev.moduleInd[i] !== X && (v === 0 || v === 159))).toBe(true);
  });
  it('findClus recovers exactly the generated clusters', () => {
    const fcRes = res.findClus;
    const truthPerModule = canonicalizeClusterIds(ev.moduleInd, ev.truth.cluster);
    for (let i = 0; i < ev.n; i++) {
      if (ev.moduleInd[i] === X) {
        expect(fcRes.clusterId[i]).toBe(i < res.countModules.sortedStarts[0]! ? i : INVALID_CLUSTER_ID);
      } else {
        expect(fcRes.clusterId[i]).toBe(truthPerModule[i]);
      }
    }
    for (const m of ev.truth.modules) {
      expect(fcRes.nClustersInModule[m]).toBe(ev.truth.clusterModule.filter((cm) => cm === m).length);
    }
    expect(Array.from(fcRes.moduleId)).toEqual(Array.from(ev.truth.modules));
  });
  it('the charge cut keeps exactly the clusters above threshold, renumbered in order', () => {
    let kept = 0, dropped = 0;
    const survivors = new Int32Array(ev.n).fill(-1);
    for (let i = 0; i < ev.n; i++) {
      const c = ev.truth.cluster[i]!;
      if (c < 0) continue;
      if (ev.truth.clusterKept[c]) {
        survivors[i] = c;
        expect(res.id[i]).toBe(ev.moduleInd[i]);
        kept++;
      } else {
        expect(res.clusterId[i]).toBe(X);
        expect(res.id[i]).toBe(X);
        dropped++;
      }
    }
    expect(kept).toBeGreaterThan(0);
    expect(dropped).toBeGreaterThan(0);
    const want = canonicalizeClusterIds(ev.moduleInd, survivors);
    for (let i = 0; i < ev.n; i++) if (survivors[i]! >= 0) expect(res.clusterId[i]).toBe(want[i]);
    for (const m of ev.truth.modules) {
      let n = 0;
      ev.truth.clusterModule.forEach((cm, c) => { if (cm === m && ev.truth.clusterKept[c]) n++; });
      expect(res.nClustersInModule[m]).toBe(n);
    }
  });
  it('generator option errors', () => {
    expect(() => generatePixelEvent({ seed: 1, noisyModule: 3000 })).toThrow(PixelInputError);
    expect(() => generatePixelEvent({ seed: -1 })).toThrow(/seed/);
  });
});

describe('clusterChargeCut reference', () => {
  const cut = (id: number[], adc: number[], clus: number[]) => {
    const ids = u16(id);
    const starts = countModulesReference(ids, 3999).sortedStarts;
    const n = new Uint32Array(4000);
    id.forEach((m, i) => { if (m !== X && clus[i]! >= 0) n[m] = Math.max(n[m]!, clus[i]! + 1); });
    return clusterChargeCutReference({ id: ids, adc: u16(adc), clusterId: Int32Array.from(clus), nClustersInModule: n, moduleStarts: starts });
  };
  it('thresholds: layer 1 (< 96) keeps > 2000, other layers keep > 4000; renumbers in order', () => {
    const r = cut([5, 5, 5, 5, 100, 100, 100], [2000, 1500, 501, 4000, 4000, 3000, 1001], [0, 1, 1, 2, 0, 1, 1]);
    // module 5: charges [2000, 2001, 4000] -> drop 0, keep 1 -> 0, 2 -> 1; module 100: [4000, 4001] -> keep 1 -> 0
    expect(Array.from(r.clusterId)).toEqual([X, 0, 0, 1, X, 0, 0]);
    expect(Array.from(r.id)).toEqual([X, 5, 5, 5, X, 100, 100]);
    expect(r.nClustersInModule[5]).toBe(2);
    expect(r.nClustersInModule[100]).toBe(1);
    expect(Array.from(r.charges[0]!)).toEqual([2000, 2001, 4000]);
  });
  it('nothing changes when every cluster passes; invalid digis are skipped', () => {
    const r = cut([7, X, 7], [5000, 9999, 1], [0, INVALID_CLUSTER_ID, 0]);
    expect(Array.from(r.clusterId)).toEqual([0, INVALID_CLUSTER_ID, 0]);
    expect(r.nClustersInModule[7]).toBe(1);
  });
  it('more than 1024 clusters: the excess is removed first (and, as in CMSSW, the count is not lowered when all the rest pass)', () => {
    const m = 200, n = 1030;
    const r = cut(new Array(n).fill(m), new Array(n).fill(5000), Array.from({ length: n }, (_, i) => i));
    expect(r.clusterId[1023]).toBe(1023);
    expect(r.clusterId[1024]).toBe(X);
    expect(r.id[1029]).toBe(X);
    expect(r.nClustersInModule[m]).toBe(1030);
    const adc = new Array(n).fill(5000);
    adc[0] = 10;
    const r2 = cut(new Array(n).fill(m), adc, Array.from({ length: n }, (_, i) => i));
    expect(r2.nClustersInModule[m]).toBe(1023);
    expect(r2.clusterId[1]).toBe(0);
  });
  it('PixelInputError for cluster ids outside the module count, ragged input, and a wrapped countModules', () => {
    expect(() => clusterChargeCutReference({ id: u16([3]), adc: u16([1]), clusterId: Int32Array.from([5]), nClustersInModule: Uint32Array.from([0, 0, 0, 1]), moduleStarts: Uint32Array.from([0]) })).toThrow(/cluster id 5/);
    expect(() => clusterChargeCutReference({ id: u16([3]), adc: u16([]), clusterId: Int32Array.from([0]), nClustersInModule: new Uint32Array(4), moduleStarts: Uint32Array.from([0]) })).toThrow(PixelInputError);
    const ids = u16([0, 1, 2]);
    expect(() => pixelClusteringReference({ moduleInd: ids, xx: u16([0, 0, 0]), yy: u16([0, 0, 0]), adc: u16([0, 0, 0]) }, { nMaxModules: 1 })).toThrow(/overflow nMaxModules/);
  });
});
