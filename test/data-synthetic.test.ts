import { describe, expect, it } from 'vitest';
import { checksum32, RandomArgumentError, seedState, Xoshiro128ss } from '../src/data/random.js';
import { SimtError } from '../src/errors.js';
import { countModulesReference } from '../src/jobs/pixel/reference.js';
import {
  INVALID_MODULE_ID,
  moduleIdsForBench,
  randomF32,
  stsDigisForBench,
  stsSortByChannelReference,
} from '../src/data/synthetic.js';
import { buildNative, runNative } from '../bench/native/index.js';

describe('random', () => {
  // The one pinned fixture: splitmix64's first two outputs for seed 0, the published reference values.
  it('seeds with splitmix64 (reference outputs for seed 0)', () => {
    // splitmix64(0): 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4
    expect(Array.from(seedState(0))).toEqual([0x7b1dcdaf, 0xe220a839, 0xa1b965f4, 0x6e789e6a]);
    expect(Array.from(seedState(2n ** 64n))).toEqual(Array.from(seedState(0)));
    expect(() => seedState(-1)).toThrow(RandomArgumentError);
    expect(() => new Xoshiro128ss(1.5)).toThrow(/seed must be a non-negative safe integer/);
  });

  it('xoshiro128** matches a straightforward uint32 implementation', () => {
    const s = Array.from(seedState(123));
    const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;
    const ref = () => {
      const result = Math.imul(rotl(Math.imul(s[1]!, 5) >>> 0, 7), 9) >>> 0;
      const t = (s[1]! << 9) >>> 0;
      s[2] = (s[2]! ^ s[0]!) >>> 0;
      s[3] = (s[3]! ^ s[1]!) >>> 0;
      s[1] = (s[1]! ^ s[2]!) >>> 0;
      s[0] = (s[0]! ^ s[3]!) >>> 0;
      s[2] = (s[2]! ^ t) >>> 0;
      s[3] = rotl(s[3]!, 11);
      return result;
    };
    const r = new Xoshiro128ss(123);
    for (let i = 0; i < 1000; i++) expect(r.nextU32()).toBe(ref());
  });

  it('uniformInt is exact floor(u * bound / 2^32) for small and large bounds (both paths)', () => {
    const a = new Xoshiro128ss(9);
    const b = new Xoshiro128ss(9);
    for (const bound of [1, 3, 1024, 0x200000, 0x200001, 50_000_000, 0xffffffff, 0x80000001, 2 ** 32]) {
      for (let i = 0; i < 200; i++) {
        const u = BigInt(b.nextU32());
        const want = Number((u * BigInt(bound)) >> 32n);
        expect(a.uniformInt(bound)).toBe(want);
      }
    }
  });

  it('uniformInt(2^32) is the raw draw; bad bounds are RandomArgumentErrors', () => {
    const a = new Xoshiro128ss(4);
    const b = new Xoshiro128ss(4);
    for (let i = 0; i < 100; i++) expect(a.uniformInt(2 ** 32)).toBe(b.nextU32());
    for (const bad of [0, 1.5, 2 ** 32 + 1, NaN]) expect(() => a.uniformInt(bad)).toThrow(RandomArgumentError);
    expect(new RandomArgumentError('x')).toBeInstanceOf(SimtError);
    expect(() => a.range(3, 2)).toThrow(/range: needs integers lo <= hi, got \[3, 2\]/);
  });

  it('uniformInt hits every value of a small bound', () => {
    const r = new Xoshiro128ss(1);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) seen.add(r.uniformInt(7));
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  // The job generators' draws (module comment, step 4), each against its definition computed
  // from a twin stream's raw words.
  it('uniform, range, bernoulli and exponential take one draw each, as specified', () => {
    const a = new Xoshiro128ss(2024);
    const b = new Xoshiro128ss(2024);
    for (let i = 0; i < 500; i++) {
      expect(a.uniform()).toBe(b.nextU32() / 2 ** 32);
      const u = BigInt(b.nextU32());
      expect(a.range(-3, 9)).toBe(-3 + Number((u * 13n) >> 32n));
      const p = (i % 10) / 10;
      expect(a.bernoulli(p)).toBe(b.nextU32() / 2 ** 32 < p);
      expect(a.exponential(5)).toBe(-Math.log(1 - b.nextU32() / 2 ** 32) * 5);
    }
    expect(a.nextU32()).toBe(b.nextU32());
  });

  it('normal: Box–Muller pairs, two draws per pair, the second value returned by the next call', () => {
    const a = new Xoshiro128ss(31);
    const b = new Xoshiro128ss(31);
    for (let i = 0; i < 200; i++) {
      const u1 = 1 - b.nextU32() / 2 ** 32;
      const u2 = b.nextU32() / 2 ** 32;
      const r = Math.sqrt(-2 * Math.log(u1));
      expect(a.normal()).toBe(r * Math.cos(2 * Math.PI * u2));
      expect(a.normal()).toBe(r * Math.sin(2 * Math.PI * u2));
    }
    expect(a.nextU32()).toBe(b.nextU32());
    // and it is a standard normal: mean ~0, variance ~1 over 100k values (5 sigma bounds)
    const c = new Xoshiro128ss(5);
    let sum = 0, sq = 0;
    const n = 100_000;
    for (let i = 0; i < n; i++) { const x = c.normal(); sum += x; sq += x * x; }
    expect(Math.abs(sum / n)).toBeLessThan(5 / Math.sqrt(n));
    expect(Math.abs(sq / n - 1)).toBeLessThan(5 * Math.sqrt(2 / n));
  });

  it('shuffle is Fisher–Yates on [lo, hi) with the specified draws, and leaves the rest alone', () => {
    const a = new Xoshiro128ss(8);
    const b = new Xoshiro128ss(8);
    const arr = Array.from({ length: 20 }, (_, i) => i);
    a.shuffle(arr, 3, 17);
    const want = Array.from({ length: 20 }, (_, i) => i);
    for (let i = 16; i > 3; i--) {
      const j = 3 + Number((BigInt(b.nextU32()) * BigInt(i - 3 + 1)) >> 32n);
      [want[i], want[j]] = [want[j]!, want[i]!];
    }
    expect(arr).toEqual(want);
    expect(arr.slice(0, 3)).toEqual([0, 1, 2]);
    expect(arr.slice(17)).toEqual([17, 18, 19]);
    expect([...arr].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(a.nextU32()).toBe(b.nextU32());
    const typed = new Uint8Array([1, 2, 3, 4, 5]);
    new Xoshiro128ss(1).shuffle(typed);
    expect([...typed].sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('fillF32 equals repeated uniformF32 draws', () => {
    const a = new Xoshiro128ss(77);
    const b = new Xoshiro128ss(77);
    const out = new Float32Array(4096);
    a.fillF32(out, -1000, 2000);
    for (let i = 0; i < out.length; i++) expect(out[i]).toBe(b.uniformF32(-1000, 2000));
    expect(a.nextU32()).toBe(b.nextU32());
  });
});

describe('randomF32', () => {
  it('is deterministic, seed-dependent and in [-1000, 1000)', () => {
    const a = randomF32(100_000, 5);
    const b = randomF32(100_000, 5);
    const c = randomF32(100_000, 6);
    expect(checksum32(a)).toBe(checksum32(b));
    expect(checksum32(a)).not.toBe(checksum32(c));
    let min = Infinity;
    let max = -Infinity;
    for (const v of a) {
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    expect(min).toBeGreaterThanOrEqual(-1000);
    expect(max).toBeLessThan(1000);
    expect(min).toBeLessThan(-990);
    expect(max).toBeGreaterThan(990);
    // a prefix of a longer array is the shorter array
    expect(checksum32(randomF32(1000, 5))).toBe(checksum32(a, 0, 1000));
  });

  it('fills 16M values quickly', () => {
    const t = performance.now();
    randomF32(1 << 24, 1);
    expect(performance.now() - t).toBeLessThan(2000);
  });
});

describe('moduleIdsForBench', () => {
  const n = 200_000;
  const ids = moduleIdsForBench(n, 1800, 0.01, 3);

  it('is deterministic', () => {
    expect(checksum32(moduleIdsForBench(n, 1800, 0.01, 3))).toBe(checksum32(ids));
    expect(checksum32(moduleIdsForBench(n, 1800, 0.01, 4))).not.toBe(checksum32(ids));
  });

  it('is sorted by module with gaps, and has exactly floor(n * f) invalid digis in short runs', () => {
    let invalid = 0;
    let prev = -1;
    let gaps = 0;
    let runs = 0;
    for (let i = 0; i < n; i++) {
      const v = ids[i]!;
      if (v === INVALID_MODULE_ID) {
        invalid++;
        if (i === 0 || ids[i - 1] !== INVALID_MODULE_ID) runs++;
        continue;
      }
      expect(v).toBeGreaterThanOrEqual(prev);
      if (prev >= 0 && v > prev + 1) gaps++;
      prev = v;
    }
    expect(invalid).toBe(Math.floor(n * 0.01));
    expect(gaps).toBeGreaterThan(100);
    expect(invalid / runs).toBeLessThan(4);
  });

  it('has about nModules modules of about n / nModules digis', () => {
    const ref = countModulesReference(ids, 1856);
    expect(ref.boundaries).toBeGreaterThan(1790);
    expect(ref.boundaries).toBeLessThanOrEqual(1800);
    expect(ref.count).toBe(ref.boundaries);
    for (let k = 1; k < ref.sortedStarts.length; k++) {
      const len = ref.sortedStarts[k]! - ref.sortedStarts[k - 1]!;
      expect(len).toBeLessThan(1.6 * (n / 1800) + 8);
    }
  });

  it('countModulesReference wraps like atomicInc', () => {
    const small = new Uint16Array([1, 1, 2, INVALID_MODULE_ID, 2, 3, INVALID_MODULE_ID, 4]);
    expect(countModulesReference(small, 1856).count).toBe(4);
    expect(Array.from(countModulesReference(small, 1856).sortedStarts)).toEqual([0, 2, 5, 7]);
    // nMax = 2: 0 -> 1 -> 2 -> 0 -> 1
    expect(countModulesReference(small, 2).count).toBe(1);
  });
});

// Fixtures: randomF32 (uniformF32 draws), moduleIdsForBench and stsDigisForBench (uniformInt
// draws), all on Xoshiro128ss (src/data/random.ts), which bench/native/simt_data.h re-implements.
// No value is pinned: the C program's input checksums and results are compared with the
// TypeScript generators' and references'.
describe('native C generator agrees with TypeScript', () => {
  const build = buildNative();
  const N = 1 << 20;

  it.skipIf(!build.ok)('vecmax: same f32 input and same max', async () => {
    const data = randomF32(N, 42);
    const r = await runNative('vecMax', { n: N, seed: 42, threads: 1, repeat: 1 });
    expect(r.checksum).toBe(checksum32(data));
    let max = -Infinity;
    for (const v of data) max = v > max ? v : max;
    expect(Math.fround(r.result)).toBe(max); // printed with %.9g: round-trips an f32
    const s = await runNative('vecSum', { n: N, seed: 42, threads: 2, repeat: 1 });
    let sum = 0;
    for (const v of data) sum += v;
    expect(Math.abs(s.result - sum)).toBeLessThan(1e-6 * N);
  });

  it.skipIf(!build.ok)('countmodules: same ids, same count, same module starts', async () => {
    const ids = moduleIdsForBench(N, 1800, 0.01, 7);
    const ref = countModulesReference(ids, 1856);
    for (const threads of [1, 2]) {
      const r = await runNative('countModules', {
        n: N,
        seed: 7,
        threads,
        repeat: 1,
        extra: { modules: 1800, invalid: 0.01 },
      });
      expect(r.checksum).toBe(checksum32(ids));
      expect(r.result).toBe(ref.count);
      expect(r['outputChecksum']).toBe(checksum32(ref.sortedStarts));
      expect(r['clusterIdOk']).toBe(true);
    }
  });

  it.skipIf(!build.ok || !build.bins['sts'])('sts: same digis, same sorted output', async () => {
    const n = 100_000;
    const digis = stsDigisForBench(n, 1024, 11);
    const sorted = stsSortByChannelReference(digis, 1024);
    for (let i = 1; i < n; i++) {
      const a = sorted[2 * i - 2]!, b = sorted[2 * i]!;
      expect(a < b || (a === b && sorted[2 * i - 1]! < sorted[2 * i + 1]!)).toBe(true);
    }
    for (const threads of [1, 2]) {
      const r = await runNative('stsSortByChannel', { n, seed: 11, threads, repeat: 1, extra: { channels: 1024 } });
      expect(r.checksum).toBe(checksum32(digis));
      expect(r.result).toBe(1);
      expect(r['outputChecksum']).toBe(checksum32(sorted));
    }
  });

  it('reports why when it cannot build', () => {
    expect(typeof build.note).toBe('string');
    if (!build.ok) console.warn(`native baselines skipped: ${build.note}`);
  });
});
