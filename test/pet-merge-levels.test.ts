// petMergeLevels (the wasm fast path that fuses the low merge passes per cache-sized group)
// against the per-pass launches (petMergeRanks + petMergeBlocks) on wasm and against the
// faithful serial backend: identical bytes in BOTH ping-pong buffers, the same result buffer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createDevice, type Device } from '../src/device.js';
import { Xoshiro128ss } from '../src/data/random.js';
import { sortSinglesByTime } from '../src/jobs/pet/run.js';

/** Index of the first differing word (-1: identical); cheaper than a deep equal on large arrays. */
function firstDiff(x: Uint32Array, y: Uint32Array): number {
  if (x.length !== y.length) return -2;
  if (Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength))) return -1;
  return x.findIndex((v, i) => v !== y[i]);
}

function nextPow2(x: number) { let p = 1; while (p < x) p *= 2; return p; }

/** Singles (crystal = index, energy = some bits, time) for the given times. */
function records(times: ArrayLike<number>): Uint32Array {
  const m = times.length, n2 = Math.max(nextPow2(m), 1024);
  const words = new Uint32Array(4 * n2);
  const f64 = new Float64Array(words.buffer);
  for (let i = 0; i < m; i++) { words[4 * i] = i; words[4 * i + 1] = (i * 2654435761) >>> 0; f64[2 * i + 1] = times[i]!; }
  return words;
}

async function sortBoth(dev: Device, words: Uint32Array, m: number, perPass: boolean) {
  const a = await dev.upload('u32', words), b = await dev.upload('u32', new Uint32Array(words.length));
  try {
    const launches: { kernel: string }[] = [];
    const r = await sortSinglesByTime(dev, a, b, m, { perPass, launches: launches as never });
    const fusedLaunches = launches.filter((l) => l.kernel === 'petMergeLevels').length;
    return { inA: r.result === a, passes: r.mergePasses, fusedLaunches, a: await a.read(), b: await b.read() };
  } finally { a.free(); b.free(); }
}

/** Nearly sorted like the convert output: blocks of `blk` consecutive times, shuffled inside each block. */
function blocky(m: number, blk: number, seed: number, dup: number): Float64Array {
  const g = new Xoshiro128ss(seed);
  const t = Float64Array.from({ length: m }, (_, i) => Math.floor(i / dup));
  for (let b0 = 0; b0 < m; b0 += blk) g.shuffle(t, b0, Math.min(m, b0 + blk));
  return t;
}

describe('petMergeLevels (fused low merge passes on wasm)', () => {
  let wasm: Device, serial: Device;
  beforeAll(async () => {
    wasm = await createDevice({ backend: 'wasm', memoryBytes: 256 << 20 });
    serial = await createDevice({ backend: 'serial', seed: 3, memoryBytes: 256 << 20 });
  });
  afterAll(async () => { await wasm.destroy(); await serial.destroy(); });

  const check = async (times: ArrayLike<number>, withSerial: boolean) => {
    const words = records(times), m = times.length;
    const fused = await sortBoth(wasm, words, m, false);
    const per = await sortBoth(wasm, words, m, true);
    expect(fused.passes).toBe(per.passes);
    expect(fused.inA).toBe(per.inA);
    expect(firstDiff(fused.a, per.a)).toBe(-1);
    expect(firstDiff(fused.b, per.b)).toBe(-1);
    if (withSerial) {
      const ser = await sortBoth(serial, words, m, true);
      expect(fused.inA).toBe(ser.inA);
      expect(firstDiff(fused.a, ser.a)).toBe(-1);
      expect(firstDiff(fused.b, ser.b)).toBe(-1);
    }
  };

  for (const m of [0, 1, 2, 1000, 1025, 2049, 3000, 8193]) {
    it(`${m} singles: same bytes as the per-pass launches and the serial backend`, async () => {
      const g = new Xoshiro128ss(m + 1);
      const times = Float64Array.from({ length: m }, () => g.uniformInt(97));
      await check(times, true);
      await check(blocky(m, 3270, m, 3), true);
    });
  }

  for (const m of [32768, 40000, 70001, 140000]) {
    it(`${m} singles (fused and per-pass passes together): same bytes as the per-pass launches`, async () => {
      await check(blocky(m, 3270, m, 1), false);
      await check(blocky(m, 4096, m + 7, 5), false);
      const g = new Xoshiro128ss(m);
      await check(Float64Array.from({ length: m }, () => g.uniformInt(5000)), false);
    });
  }

  it('300000 singles on one worker: the higher passes fused too (two petMergeLevels launches)', async () => {
    const one = await createDevice({ backend: 'wasm', workers: 1, memoryBytes: 256 << 20 });
    try {
      for (const [blk, dup] of [[3270, 1], [2048, 4], [50000, 1]] as const) {
        const times = blocky(300000, blk, blk, dup);
        const words = records(times);
        const fused = await sortBoth(one, words, times.length, false);
        const per = await sortBoth(one, words, times.length, true);
        expect(fused.fusedLaunches).toBe(2);
        expect(per.fusedLaunches).toBe(0);
        expect([fused.passes, fused.inA]).toEqual([per.passes, per.inA]);
        expect(firstDiff(fused.a, per.a)).toBe(-1);
        expect(firstDiff(fused.b, per.b)).toBe(-1);
      }
    } finally { await one.destroy(); }
  });

  it('property: random times (duplicates, sorted, reversed, nearly sorted)', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true, noDefaultInfinity: true })), { minLength: 0, maxLength: 6000 }),
      fc.constantFrom('asis', 'sorted', 'reversed', 'blocky'),
      async (arr, how) => {
        let xs = arr.slice();
        if (how === 'sorted') xs.sort((a, b) => a - b);
        if (how === 'reversed') xs.sort((a, b) => b - a);
        if (how === 'blocky') { xs.sort((a, b) => a - b); xs = Array.from(blocky(xs.length, 1500, xs.length, 1), (i) => xs[i]!); }
        await check(Float64Array.from(xs), true);
      }), { numRuns: 12 });
  });
});
