import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateStsDigis, StsInputError } from '../src/jobs/sts/generate.js';
import {
  channelCounts,
  countingSortByChannel,
  detectRuns,
  digiKey,
  exclusiveOffsets,
  isSortedByChannelTime,
  isTimeOrderedPerChannel,
  naturalMergeSortReference,
  sortDigisReference,
  type StsDigis,
} from '../src/jobs/sts/reference.js';

const D = (pairs: [number, number][]): StsDigis => ({ channel: Uint32Array.from(pairs.map((p) => p[0])), time: Uint32Array.from(pairs.map((p) => p[1])) });
// The seed's example timeslice (channels 1..4 as 0-based indices 1..4 of 5 channels).
const SEED = D([[2, 12], [2, 14], [2, 22], [1, 8], [1, 12], [4, 2], [4, 14], [2, 25], [2, 41], [1, 54]]);

const arbDigis = fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 6 })), { maxLength: 60 }).map(D);

// Fixture: generateStsDigis (Xoshiro128ss uniformInt draws). Nothing is pinned: the checks are
// properties of the digis and comparisons with the reference sorts.
describe('STS generator', () => {
  it('is deterministic, per-channel time ordered, channels interleaved in runs', () => {
    const a = generateStsDigis({ n: 5000, nChannels: 64, seed: 5 });
    expect(generateStsDigis({ n: 5000, nChannels: 64, seed: 5 })).toEqual(a);
    expect(generateStsDigis({ n: 5000, nChannels: 64, seed: 6 })).not.toEqual(a);
    expect(isTimeOrderedPerChannel(a)).toBe(true);
    expect(isSortedByChannelTime(a)).toBe(false);
    let switches = 0;
    for (let i = 1; i < a.channel.length; i++) if (a.channel[i] !== a.channel[i - 1]) switches++;
    expect(switches).toBeGreaterThan(500); // interleaved ...
    expect(switches).toBeLessThan(4000); // ... in runs, not digi by digi
    for (const c of a.channel) expect(c).toBeLessThan(64);
  });
  it('edge sizes: empty, one digi, one channel, huge channel numbers', () => {
    expect(generateStsDigis({ n: 0, nChannels: 3, seed: 1 }).channel.length).toBe(0);
    expect(generateStsDigis({ n: 1, nChannels: 3, seed: 1 }).time.length).toBe(1);
    const one = generateStsDigis({ n: 100, nChannels: 1, seed: 1 });
    expect(isSortedByChannelTime(one)).toBe(true);
    const wide = generateStsDigis({ n: 100, nChannels: 2 ** 32, seed: 1 });
    expect(isTimeOrderedPerChannel(wide)).toBe(true);
  });
  it('times saturate at 2^32 - 1 instead of wrapping', () => {
    // two digis of one channel with gaps uniform in [1, 2^32 - 1]: about half the seeds overflow
    let saturated = 0;
    for (let seed = 0; seed < 20; seed++) {
      const d = generateStsDigis({ n: 2, nChannels: 1, seed, timeSpan: 2 ** 32 - 1, meanRunLength: 1 });
      expect(isTimeOrderedPerChannel(d)).toBe(true);
      if (d.time[1] === 0xffffffff) saturated++;
    }
    expect(saturated).toBeGreaterThan(0);
    // one digi over the whole span: the mean gap is capped at 2^31 (a gap bound within 2^32)
    const lone = generateStsDigis({ n: 1, nChannels: 1, seed: 3, timeSpan: 2 ** 32 - 1 });
    expect(lone.time.length).toBe(1);
    expect(lone.time[0]).toBeLessThan(2 ** 32 - 1); // a first time is -1 + a gap, the gap <= 2^32 - 1
  });
  it('option errors are StsInputError', () => {
    expect(() => generateStsDigis({ n: -1, nChannels: 1, seed: 0 })).toThrow(StsInputError);
    expect(() => generateStsDigis({ n: 1, nChannels: 0, seed: 0 })).toThrow(/nChannels/);
    expect(() => generateStsDigis({ n: 1, nChannels: 1, seed: 0.5 })).toThrow(/seed/);
  });
});

describe('STS reference sorts', () => {
  it('the seed example: counts, offsets, sorted output', () => {
    expect(Array.from(channelCounts(SEED, 5))).toEqual([0, 3, 5, 0, 2]);
    expect(Array.from(exclusiveOffsets(channelCounts(SEED, 5)))).toEqual([0, 0, 3, 8, 8]);
    expect(Array.from(exclusiveOffsets(Uint32Array.from([3, 5, 0, 2])))).toEqual([0, 3, 8, 8]);
    const s = sortDigisReference(SEED, 5);
    expect(Array.from(s.time)).toEqual([8, 12, 54, 12, 14, 22, 25, 41, 2, 14]);
    expect(Array.from(s.channel)).toEqual([1, 1, 1, 2, 2, 2, 2, 2, 4, 4]);
    expect(countingSortByChannel(SEED, 5)).toEqual(s);
    expect(Array.from(detectRuns(SEED))).toEqual([0, 3, 7, 9, 10]);
  });
  it('sortDigisReference is a stable (channel, time) sort and a permutation (property)', () => {
    fc.assert(fc.property(arbDigis, (d) => {
      const s = sortDigisReference(d);
      expect(isSortedByChannelTime(s)).toBe(true);
      for (let k = 1; k < s.order.length; k++) {
        if (s.channel[k] === s.channel[k - 1] && s.time[k] === s.time[k - 1]) expect(s.order[k]! > s.order[k - 1]!).toBe(true);
      }
      expect(Array.from(s.order).sort((a, b) => a - b)).toEqual(Array.from(d.channel, (_, i) => i));
      s.order.forEach((i, k) => {
        expect(s.channel[k]).toBe(d.channel[i]);
        expect(s.time[k]).toBe(d.time[i]);
      });
      // key order agrees with the 64-bit key of the seed
      for (let k = 1; k < s.order.length; k++) expect(digiKey(s.channel[k - 1]!, s.time[k - 1]!) <= digiKey(s.channel[k]!, s.time[k]!)).toBe(true);
    }));
  });
  it('natural merge sort equals the reference sort, permutation included (property)', () => {
    fc.assert(fc.property(arbDigis, (d) => {
      expect(naturalMergeSortReference(d)).toEqual(sortDigisReference(d));
    }));
  });
  it('counting sort is stable by channel, and equals the full sort when channels arrive time-ordered', () => {
    fc.assert(fc.property(arbDigis, (d) => {
      const c = countingSortByChannel(d, 6);
      for (let k = 1; k < c.order.length; k++) {
        expect(c.channel[k - 1]! <= c.channel[k]!).toBe(true);
        if (c.channel[k - 1] === c.channel[k]) expect(c.order[k - 1]! < c.order[k]!).toBe(true);
      }
      if (isTimeOrderedPerChannel(d)) expect(c).toEqual(sortDigisReference(d));
    }));
    const g = generateStsDigis({ n: 20000, nChannels: 128, seed: 9 });
    expect(countingSortByChannel(g, 128)).toEqual(sortDigisReference(g, 128));
    expect(naturalMergeSortReference(g)).toEqual(sortDigisReference(g));
  });
  it('runs: boundaries cover the input, each run non-decreasing, each boundary a descent (property)', () => {
    fc.assert(fc.property(arbDigis, (d) => {
      const b = detectRuns(d);
      const n = d.channel.length;
      expect(b[0]).toBe(0);
      expect(b[b.length - 1]).toBe(n);
      expect(b.length).toBe(n === 0 ? 1 : b.length);
      for (let r = 1; r + 1 < b.length; r++) {
        const i = b[r]!;
        expect(digiKey(d.channel[i - 1]!, d.time[i - 1]!) > digiKey(d.channel[i]!, d.time[i]!)).toBe(true);
      }
      for (let r = 0; r + 1 < b.length; r++) {
        for (let i = b[r]! + 1; i < b[r + 1]!; i++) expect(digiKey(d.channel[i - 1]!, d.time[i - 1]!) <= digiKey(d.channel[i]!, d.time[i]!)).toBe(true);
      }
    }));
  });
  it('empty and single inputs', () => {
    const e = D([]);
    expect(Array.from(detectRuns(e))).toEqual([0]);
    expect(sortDigisReference(e).order.length).toBe(0);
    expect(naturalMergeSortReference(e).order.length).toBe(0);
    expect(Array.from(channelCounts(e, 2))).toEqual([0, 0]);
    expect(Array.from(detectRuns(D([[3, 3]])))).toEqual([0, 1]);
  });
  it('StsInputError for channel >= nChannels and malformed input', () => {
    expect(() => channelCounts(SEED, 4)).toThrow(StsInputError);
    expect(() => channelCounts(SEED, 4)).toThrow(/digi 5: channel 4 >= nChannels 4/);
    expect(() => sortDigisReference(SEED, 3)).toThrow(StsInputError);
    expect(() => countingSortByChannel(SEED, 2)).toThrow(StsInputError);
    expect(() => sortDigisReference({ channel: new Uint32Array(2), time: new Uint32Array(1) })).toThrow(/differ in length/);
    expect(() => channelCounts(SEED, 0)).toThrow(/nChannels must be/);
    expect(() => detectRuns({ channel: [1] as unknown as Uint32Array, time: new Uint32Array(1) })).toThrow(StsInputError);
  });
});
