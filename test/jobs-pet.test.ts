import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeFrame, decodeFrames, encodeFrames, FrameFieldError, frameCount, frameTimeAsDouble, TruncatedFrameError, type DataFrameV2 } from '../src/jobs/pet/format.js';
import { DEFAULT_GEOMETRY, GeometryError, geometrySizes, TableError, validateGeometry, validateTables, type PetGeometry } from '../src/jobs/pet/geometry.js';
import { EVENT_LONE, EVENT_RANDOM, EVENT_TRUE, generatePetData, PetGenerateError } from '../src/jobs/pet/generate.js';
import {
  CoincidenceOptionsError,
  coincidenceFourKernels,
  coincidenceNextIndex,
  coincidencesReference,
  convertReference,
  crystalIndices,
  crystalLocation,
  energyBin,
  makeSingles,
  PetFrameError,
  sortByTimeReference,
} from '../src/jobs/pet/reference.js';

const frame = (o: Partial<DataFrameV2> = {}): DataFrameV2 => ({
  headAndDU: 0xa3, bdm: 7, time: 0x0102030405060708n, x: 10, y: 20, energy: 0xbeef, temperatureInt: -5, temperatureAndTail: 0x5a, ...o,
});

describe('PET DataFrameV2 format', () => {
  it('lays out the 16 bytes as the seed declares (big-endian time and energy, DU in the low nibble)', () => {
    const b = encodeFrames([frame()]);
    expect(Array.from(b)).toEqual([0xa3, 7, 1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 0xbe, 0xef, 0xfb, 0x5a]);
    expect(frameTimeAsDouble(b, 0)).toBe(Number(0x0102030405060708n));
  });
  it('round-trips any frame (property)', () => {
    const arb = fc.record({
      headAndDU: fc.integer({ min: 0, max: 255 }), bdm: fc.integer({ min: 0, max: 255 }), time: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      x: fc.integer({ min: 0, max: 255 }), y: fc.integer({ min: 0, max: 255 }), energy: fc.integer({ min: 0, max: 65535 }),
      temperatureInt: fc.integer({ min: -128, max: 127 }), temperatureAndTail: fc.integer({ min: 0, max: 255 }),
    });
    fc.assert(fc.property(fc.array(arb, { maxLength: 20 }), (fs) => {
      const b = encodeFrames(fs);
      expect(b.length).toBe(16 * fs.length);
      expect(decodeFrames(b)).toEqual(fs);
      fs.forEach((f, i) => expect(frameTimeAsDouble(b, i)).toBe(Number(f.time)));
    }));
  });
  it('empty buffer has zero frames; ragged buffers throw TruncatedFrameError', () => {
    expect(frameCount(new Uint8Array(0))).toBe(0);
    expect(() => frameCount(new Uint8Array(17))).toThrow(TruncatedFrameError);
    expect(() => decodeFrame(new Uint8Array(31), 0)).toThrow(/not a multiple of 16/);
    expect(() => decodeFrame(new Uint8Array(32), 2)).toThrow(RangeError);
  });
  it('rejects out-of-range fields with FrameFieldError', () => {
    expect(() => encodeFrames([frame({ energy: 65536 })])).toThrow(FrameFieldError);
    expect(() => encodeFrames([frame({ temperatureInt: 128 })])).toThrow(/temperatureInt/);
    expect(() => encodeFrames([frame({ time: 2n ** 64n })])).toThrow(/64-bit/);
    expect(() => encodeFrames([frame({ x: -1 })])).toThrow(/field x/);
  });
});

describe('PET geometry', () => {
  it('default geometry is valid, sizes derived from it', () => {
    const s = geometrySizes(DEFAULT_GEOMETRY);
    expect(s).toMatchObject({ bdmCount: 8, crystalsPerRing: 128, ringCount: 16, crystalCount: 2048, positionTableLength: 8 * 4 * 64 * 64, energyTableLength: 8 * 4 * 64 * 1000 });
  });
  const bad: [Partial<PetGeometry>, RegExp][] = [
    [{ channelNum: 0 }, /channelNum must be a positive integer/],
    [{ crystalNumY: 7 }, /square DUs/],
    [{ crystalSize: 17, crystalNumY: 17, crystalNumZ: 17 }, /uint8 position table/],
    [{ duNum: 3 }, /blockNumY \* blockNumZ/],
    [{ blockNumY: 4, blockNumZ: 5, duNum: 20 }, /4-bit/],
    [{ positionSize: 257 }, /uint8 x\/y/],
    [{ channelNum: 300 }, /nBDM/],
    [{ moduleNumX: 2 }, /radial/],
  ];
  for (const [patch, msg] of bad) {
    it(`rejects ${JSON.stringify(patch)}`, () => {
      expect(() => validateGeometry({ ...DEFAULT_GEOMETRY, ...patch })).toThrow(GeometryError);
      expect(() => validateGeometry({ ...DEFAULT_GEOMETRY, ...patch })).toThrow(msg);
    });
  }
  it('crystal index formulas: every (bdm, du, origin) maps to a distinct crystal and crystalLocation inverts it', () => {
    for (const g of [DEFAULT_GEOMETRY, { ...DEFAULT_GEOMETRY, channelNum: 3, moduleNumY: 2, moduleNumZ: 2, blockNumY: 1, blockNumZ: 3, duNum: 3, crystalNumY: 5, crystalNumZ: 5, crystalSize: 5 }]) {
      const s = geometrySizes(g);
      const seen = new Set<number>();
      for (let bdm = 0; bdm < s.bdmCount; bdm++) for (let du = 0; du < g.duNum; du++) for (let o = 0; o < s.crystalsPerDu; o++) {
        const c = crystalIndices(g, bdm, du, o);
        expect(c.global).toBeLessThan(s.crystalCount);
        seen.add(c.global);
        expect(crystalLocation(g, c.global)).toEqual({ bdm, du, local: c.local, origin: o });
      }
      expect(seen.size).toBe(s.crystalCount);
    }
  });
  it('the y flip of the seed: origin 0 (top-left) is local crystal (crystalNumY - 1) * crystalNumZ', () => {
    expect(crystalIndices(DEFAULT_GEOMETRY, 0, 0, 0).local).toBe(56);
    expect(crystalIndices(DEFAULT_GEOMETRY, 0, 0, 63).local).toBe(7);
  });
  it('validateTables checks lengths and contents', () => {
    const d = generatePetData({ nFrames: 0, seed: 1 });
    expect(() => validateTables(d.geometry, d.positionTable, d.energyTable)).not.toThrow();
    expect(() => validateTables(d.geometry, d.positionTable.subarray(1), d.energyTable)).toThrow(TableError);
    expect(() => validateTables(d.geometry, d.positionTable, d.energyTable.subarray(1))).toThrow(/energy-correction table has/);
    const p = d.positionTable.slice(); p[5] = 64;
    expect(() => validateTables(d.geometry, p, d.energyTable)).toThrow(/entry 5 = 64/);
    const e = d.energyTable.slice(); e[9] = NaN;
    expect(() => validateTables(d.geometry, d.positionTable, e)).toThrow(/factor 9/);
  });
});

// Fixture: generatePetData (Xoshiro128ss: uniform, uniformInt, range, normal, exponential and
// shuffle draws). Nothing is pinned: every check is against the truth or an independent reference.
describe('PET generator + convertReference', () => {
  const d = generatePetData({ nFrames: 20000, seed: 7 });
  it('is deterministic', () => {
    const again = generatePetData({ nFrames: 20000, seed: 7 });
    expect(again.frames).toEqual(d.frames);
    expect(generatePetData({ nFrames: 20000, seed: 8 }).frames).not.toEqual(d.frames);
  });
  it('frames are time-ordered per BDM but not globally', () => {
    const last = new Map<number, number>();
    let globallySorted = true;
    for (let i = 0; i < d.nFrames; i++) {
      const f = decodeFrame(d.frames, i);
      const t = Number(f.time);
      expect(t).toBe(d.truth.time[i]);
      if (i > 0 && t < d.truth.time[i - 1]!) globallySorted = false;
      expect(t).toBeGreaterThan(last.get(f.bdm) ?? -1);
      last.set(f.bdm, t);
    }
    expect(globallySorted).toBe(false);
  });
  it('without an energy window the reference recovers crystal, energy and time of every frame', () => {
    const s = convertReference(d.frames, d.geometry, d.positionTable, d.energyTable, { energyWindow: null });
    expect(s.crystal).toEqual(d.truth.crystal);
    expect(s.energy).toEqual(d.truth.energy);
    expect(s.time).toEqual(d.truth.time);
    expect(s.frame).toEqual(Uint32Array.from({ length: d.nFrames }, (_, i) => i));
  });
  it('the default window [350, 650] keeps exactly the frames whose truth energy is inside, in input order', () => {
    const s = convertReference(d.frames, d.geometry, d.positionTable, d.energyTable);
    const want: number[] = [];
    for (let i = 0; i < d.nFrames; i++) if (d.truth.energy[i]! >= 350 && d.truth.energy[i]! <= 650) want.push(i);
    expect(Array.from(s.frame)).toEqual(want);
    expect(want.length).toBeGreaterThan(d.nFrames * 0.4);
    expect(want.length).toBeLessThan(d.nFrames);
  });
  it('pairs of isolated events are exactly the generated coincidences whose photons pass the energy window', () => {
    const g = generatePetData({ nFrames: 5000, seed: 3, minEventGap: 10000 });
    const s = sortByTimeReference(convertReference(g.frames, g.geometry, g.positionTable, g.energyTable)).singles;
    const p = coincidencesReference(s);
    // Events are isolated (gap > window), so a pair is expected exactly where two time-adjacent
    // accepted singles are the two photons of one generated true or random coincidence.
    const expected: [number, number][] = [];
    for (let k = 0; k + 1 < s.time.length; k++) {
      const a = s.frame[k]!, b = s.frame[k + 1]!;
      const sameTrue = g.truth.kind[a] === EVENT_TRUE && g.truth.kind[b] === EVENT_TRUE && g.truth.event[a] === g.truth.event[b];
      // the two photons of a random belong to consecutive (different) decays
      const sameRandom = g.truth.kind[a] === EVENT_RANDOM && g.truth.kind[b] === EVENT_RANDOM && g.truth.event[b] === g.truth.event[a]! + 1 &&
        s.time[k + 1]! - s.time[k]! <= 4000; // (and not the next random's first photon, > window away)
      if (sameTrue || sameRandom) expected.push([a, b]);
    }
    const got = Array.from(p.index0, (i, k) => [s.frame[i]!, s.frame[p.index1[k]!]!] as [number, number]);
    expect(got).toEqual(expected);
    expect(p.count).toBeGreaterThan(100);
    for (let k = 0; k < p.count; k++) expect(p.crystal0[k]).not.toBe(p.crystal1[k]);
  });
  it('energy bins clamp at 999 for raw energies >= 10000', () => {
    expect(energyBin(9999)).toBe(999);
    expect(energyBin(10000)).toBe(999);
    expect(energyBin(65535)).toBe(999);
    expect(energyBin(15)).toBe(1);
    const g = generatePetData({ nFrames: 1, seed: 1 });
    const b = g.frames.slice();
    b[12] = 0xff; b[13] = 0xff;
    const s = convertReference(b, g.geometry, g.positionTable, g.energyTable, { energyWindow: null });
    const loc = crystalLocation(g.geometry, g.truth.crystal[0]!);
    const row = ((loc.bdm * 4 + loc.du) * 64 + loc.local) * 1000;
    expect(s.energy[0]).toBe(Math.fround(65535 * g.energyTable[row + 999]!));
  });
  it('rejects frames that address outside the tables with PetFrameError', () => {
    const g = generatePetData({ nFrames: 3, seed: 1 });
    const bad = (mut: (b: Uint8Array) => void): Uint8Array => { const b = g.frames.slice(); mut(b); return b; };
    expect(() => convertReference(bad((b) => { b[16 + 1] = 8; }), g.geometry, g.positionTable, g.energyTable)).toThrow(/frame 1: BDM 8/);
    expect(() => convertReference(bad((b) => { b[0] = 0xa4; }), g.geometry, g.positionTable, g.energyTable)).toThrow(PetFrameError);
    expect(() => convertReference(bad((b) => { b[32 + 10] = 64; }), g.geometry, g.positionTable, g.energyTable)).toThrow(/frame 2: position/);
    expect(() => convertReference(g.frames.subarray(0, 20), g.geometry, g.positionTable, g.energyTable)).toThrow(TruncatedFrameError);
    expect(() => convertReference(g.frames, g.geometry, g.positionTable, g.energyTable, { energyWindow: [700, 300] })).toThrow(CoincidenceOptionsError);
  });
  it('empty input gives empty singles', () => {
    const g = generatePetData({ nFrames: 0, seed: 1 });
    const s = convertReference(new Uint8Array(0), g.geometry, g.positionTable, g.energyTable);
    expect(s.time.length).toBe(0);
    expect(coincidencesReference(sortByTimeReference(s).singles).count).toBe(0);
  });
  it('generator option errors', () => {
    expect(() => generatePetData({ nFrames: -1, seed: 1 })).toThrow(PetGenerateError);
    expect(() => generatePetData({ nFrames: 1, seed: 1, trueFraction: 0.9, randomFraction: 0.2 })).toThrow(/<= 1/);
    expect(() => generatePetData({ nFrames: 1, seed: 1, geometry: { ...DEFAULT_GEOMETRY, positionSize: 4 } })).toThrow(GeometryError);
  });
  it('generates 2M frames quickly with preallocated buffers', () => {
    const t0 = performance.now();
    const big = generatePetData({ nFrames: 2_000_000, seed: 11 });
    const ms = performance.now() - t0;
    expect(big.frames.length).toBe(32_000_000);
    expect(ms).toBeLessThan(4000);
  });
});

describe('PET sort and coincidence', () => {
  it('sortByTimeReference is a stable sort (property)', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }), (ts) => {
      const s = makeSingles(ts.map((_, i) => i), ts.map(() => 500), ts);
      const { singles, order } = sortByTimeReference(s);
      for (let k = 1; k < ts.length; k++) {
        expect(singles.time[k - 1]! <= singles.time[k]!).toBe(true);
        if (singles.time[k - 1] === singles.time[k]) expect(order[k - 1]! < order[k]!).toBe(true);
      }
      expect(Array.from(order).sort((a, b) => a - b)).toEqual(ts.map((_, i) => i));
      expect(Array.from(singles.crystal)).toEqual(Array.from(order));
    }));
  });
  const S = (times: number[], crystals?: number[]) => makeSingles(crystals ?? times.map((_, i) => i), times.map(() => 511), times);
  it('hand cases: isolated pair, triple rejected, same-crystal pair rejected, greedy windows, inclusive bound', () => {
    const idx = (t: number[], c?: number[]) => Array.from(coincidencesReference(S(t, c), { window: 4 }).index0);
    expect(idx([0, 3, 100])).toEqual([0]);
    expect(idx([0, 3, 4])).toEqual([]); // three singles in [0, 4]
    expect(idx([0, 4])).toEqual([0]); // dt == window is inside
    expect(idx([0, 5])).toEqual([]);
    expect(idx([0, 2], [9, 9])).toEqual([]);
    expect(idx([0, 3, 6])).toEqual([0]); // window at 0 holds {0, 3}; 6 starts a new window alone
    expect(idx([0, 3, 6, 8])).toEqual([0, 2]);
    expect(idx([0, 1, 2, 10, 11])).toEqual([3]);
    expect(idx([])).toEqual([]);
    expect(idx([5])).toEqual([]);
  });
  it('nextIndex (kernel 1) per the seed', () => {
    expect(Array.from(coincidenceNextIndex(S([0, 3, 4, 20, 30, 33]), { window: 4 }))).toEqual([2, 2, -1, -1, 5, -1]);
  });
  it('the four-kernel emulation equals the direct statement (property, ties and same crystals included)', () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 3 })), { maxLength: 80 }),
      fc.integer({ min: 0, max: 6 }),
      (pts, w) => {
        const times: number[] = [];
        let t = 0;
        for (const [dt] of pts) { t += dt; times.push(t); }
        const s = S(times, pts.map(([, c]) => c));
        const a = coincidencesReference(s, { window: w });
        const b = coincidenceFourKernels(s, { window: w });
        expect(Array.from(b.index0)).toEqual(Array.from(a.index0));
        for (let k = 0; k < a.count; k++) {
          expect(a.index1[k]).toBe(a.index0[k]! + 1);
          expect(a.time1[k]! - a.time0[k]!).toBeLessThanOrEqual(w);
          expect(a.crystal0[k]).not.toBe(a.crystal1[k]);
          if (k > 0) expect(a.index0[k]).toBeGreaterThan(a.index1[k - 1]!);
        }
      },
    ));
  });
  it('unsorted singles and bad windows throw CoincidenceOptionsError', () => {
    expect(() => coincidencesReference(S([3, 1]))).toThrow(/sorted by time/);
    expect(() => coincidencesReference(S([1]), { window: -1 })).toThrow(CoincidenceOptionsError);
    expect(() => makeSingles([1], [1, 2], [1])).toThrow(CoincidenceOptionsError);
  });
});
