// stsSort (every method) against the plain-TS references, on wasm and serial.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { testDevice } from './helpers.js';
import { createDevice, type Device } from '../src/device.js';
import { generateStsDigis, StsInputError } from '../src/jobs/sts/generate.js';
import { sortDigisReference, type StsDigis } from '../src/jobs/sts/reference.js';
import { stsSort, StsChannelRangeError, STS_SORT_METHODS, FUSED_OFFSETS_MAX_CELLS, type StsSortMethod, interleaveDigis, deinterleaveDigis as deinterleave } from '../src/jobs/sts/run.js';
import { stsDigisForBench, stsSortByChannelReference } from '../src/data/synthetic.js';

const D = (pairs: [number, number][]): StsDigis => ({
  channel: Uint32Array.from(pairs.map((p) => p[0])), time: Uint32Array.from(pairs.map((p) => p[1])),
});
const SEED_EXAMPLE = D([[2, 12], [2, 14], [2, 22], [1, 8], [1, 12], [4, 2], [4, 14], [2, 25], [2, 41], [1, 54]]);

/** Per channel, the sorted multiset of times: what the atomic scatter must preserve. */
function byChannel(d: { channel: Uint32Array; time: Uint32Array }): Map<number, number[]> {
  const m = new Map<number, number[]>();
  for (let i = 0; i < d.channel.length; i++) {
    const c = d.channel[i]!;
    (m.get(c) ?? m.set(c, []).get(c)!).push(d.time[i]!);
  }
  for (const v of m.values()) v.sort((a, b) => a - b);
  return m;
}

async function check(dev: Device, d: StsDigis, nChannels: number, method: StsSortMethod, opts: { chunks?: number; tileBlock?: number; mergeElementsPerThread?: number; fuseOffsets?: boolean } = {}): Promise<void> {
  const r = await stsSort(dev, d, { nChannels, method, ...opts });
  const ref = sortDigisReference(d);
  expect(r.channel).toEqual(ref.channel);
  if (method === 'atomic') {
    expect(r.timeOrdered).toBe(false);
    expect(byChannel(r as StsDigis)).toEqual(byChannel(ref));
  } else {
    expect(r.time).toEqual(ref.time);
  }
}

// The counting sorts sort by (channel, time) only under the STS premise (every channel's digis
// arrive time-ordered); merge and key sort anything.
const premiseMethods: StsSortMethod[] = ['chunked', 'atomic', 'local', 'merge', 'key'];
const anyInputMethods: StsSortMethod[] = ['merge', 'key'];

describe.each(['wasm', 'serial'] as const)('stsSort on %s', (backend) => {
  let dev: Device;
  it('setup', async () => { dev = await testDevice({ backend, seed: 3, memoryBytes: 256 << 20 }); });

  it.each(premiseMethods)('%s: the seed example', async (method) => {
    await check(dev, SEED_EXAMPLE, 5, method);
  });

  it.each(premiseMethods)('%s: random generated timeslices', async (method) => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 0, max: 4000 }), fc.integer({ min: 1, max: 300 }), fc.nat({ max: 1e6 }), fc.integer({ min: 1, max: 9 }),
      fc.constantFrom(1, 2, 5, 16), fc.constantFrom(1, 2, 4, 64), fc.constantFrom(1, 3, 256), fc.constantFrom(undefined, true, false),
      async (n, nChannels, seed, meanRunLength, chunks, tileBlock, per, fuseOffsets) => {
        const d = generateStsDigis({ n, nChannels, seed, meanRunLength });
        await check(dev, d, nChannels, method, { chunks, tileBlock, mergeElementsPerThread: per, fuseOffsets });
      }), { numRuns: backend === 'serial' ? 8 : 15 });
  });

  it.each(anyInputMethods)('%s: arbitrary (unsorted) digis, duplicates included', async (method) => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 9 })), { maxLength: 700 }),
      async (pairs) => { await check(dev, D(pairs), 7, method, { tileBlock: 4, mergeElementsPerThread: 3 }); }), { numRuns: 20 });
  });

  it.each(premiseMethods)('%s: edges — empty, one digi, one channel, non-power-of-two sizes', async (method) => {
    await check(dev, D([]), 1, method);
    await check(dev, D([[0, 5]]), 1, method);
    await check(dev, generateStsDigis({ n: 1237, nChannels: 1, seed: 2 }), 1, method);
    await check(dev, generateStsDigis({ n: 65537, nChannels: 999, seed: 4 }), 999, method);
  });

  it.each(premiseMethods)('%s: the largest channel (nChannels - 1) and times near 2^32', async (method) => {
    const big = method === 'merge' || method === 'key' ? 0xffffffff : 70_001;
    const d = D([[big - 1, 0xfffffffe], [0, 0xffffffff], [big - 1, 0xffffffff], [0, 1], [big - 2, 3]]);
    // counting sorts need the premise: channel 0 arrives 0xffffffff then 1, so give them a time-ordered input
    if (method === 'merge' || method === 'key') await check(dev, d, big, method);
    else await check(dev, D([[big - 1, 0xfffffffe], [0, 1], [big - 1, 0xffffffff], [0, 0xffffffff], [big - 2, 3]]), big, method);
  });

  it.each(STS_SORT_METHODS)('%s: a channel >= nChannels is a typed error naming the first bad digi', async (method) => {
    const d = D([[0, 1], [1, 2], [9, 3], [2, 4], [12, 5]]);
    const err = await stsSort(dev, d, { nChannels: 5, method }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StsChannelRangeError);
    expect(err).toMatchObject({ index: 2, channel: 9, nChannels: 5 });
    // the device is still usable and nothing leaked
    const before = dev.memoryInfo().allocations;
    await check(dev, D([[1, 1], [0, 2]]), 5, method);
    expect(dev.memoryInfo().allocations).toBe(before);
  });

  it.each(STS_SORT_METHODS)('%s: every input form × every output form gives the same digis, and frees what it holds', async (method) => {
    const d = generateStsDigis({ n: 5003, nChannels: 37, seed: 11 });
    const ref = sortDigisReference(d);
    const words = interleaveDigis(d);
    const before = dev.memoryInfo().allocations;
    const dChannel = await dev.upload('u32', d.channel), dTime = await dev.upload('u32', d.time), dWords = await dev.upload('u32', words);
    const inputs = { 'host columns': d, 'device columns': { channel: dChannel, time: dTime }, 'host words': words, 'device words': dWords };
    // 'chunked' both with its offsets fused into the scatter and with them in launches of their own.
    for (const fuseOffsets of method === 'chunked' ? [true, false] : [undefined]) {
      for (const [form, input] of Object.entries(inputs)) {
        for (const output of ['host', 'mapped', 'device'] as const) {
          const what = `${form} → ${output}, fuseOffsets ${String(fuseOffsets)}`;
          const r = await stsSort(dev, input, { nChannels: 37, method, output, fuseOffsets });
          const got = output === 'device' ? deinterleave(await r.device!.read()) : { channel: r.channel!, time: r.time! };
          expect(r.mapped, what).toBe(output === 'mapped' && dev.hostMapped);
          expect(got.channel, what).toEqual(ref.channel);
          if (method === 'atomic') expect(byChannel(got)).toEqual(byChannel(ref));
          else expect(got.time, what).toEqual(ref.time);
          r.free();
        }
      }
    }
    // the inputs are left as they were; after free() only the inputs remain allocated
    expect(await dChannel.read()).toEqual(d.channel);
    expect(await dTime.read()).toEqual(d.time);
    expect(await dWords.read()).toEqual(words);
    expect(dev.memoryInfo().allocations).toBe(before + 3);
    dChannel.free(); dTime.free(); dWords.free();
  });

  it('mapped output: the views show device memory until free(); empty input gives empty columns', async () => {
    const d = generateStsDigis({ n: 2000, nChannels: 9, seed: 5 });
    const r = await stsSort(dev, d, { nChannels: 9, output: 'mapped' });
    expect(r.mapped).toBe(dev.hostMapped);
    if (dev.hostMapped) {
      // a view of the device's memory: the same buffer as any device array's view
      const probe = dev.alloc('u32', 1);
      expect(r.channel!.buffer).toBe(probe.view().buffer);
      probe.free();
    }
    expect(r.channel).toEqual(sortDigisReference(d).channel);
    r.free();
    r.free(); // twice is harmless
    for (const output of ['host', 'mapped'] as const) {
      const e = await stsSort(dev, D([]), { nChannels: 3, output });
      expect([e.channel!.length, e.time!.length]).toEqual([0, 0]);
      e.free();
    }
  });

  it('bad columns and options are StsInputError, and leave nothing allocated', async () => {
    const before = dev.memoryInfo().allocations;
    const c = await dev.upload('u32', Uint32Array.of(1, 2)), i32 = await dev.upload('i32', Int32Array.of(1, 2));
    const cases: [unknown, object, RegExp][] = [
      [{ channel: c, time: Uint32Array.of(1, 2) }, {}, /both Uint32Array or both u32 device arrays/],
      [{ channel: c, time: i32 }, {}, /time must be a u32 array, got i32/],
      [{ channel: c, time: await dev.upload('u32', Uint32Array.of(1)) }, {}, /differ in length/],
      [{ channel: Uint32Array.of(1), time: Uint32Array.of(1) }, { output: 'file' }, /unknown output 'file'/],
      [{ channel: Uint32Array.of(1), time: Uint32Array.of(1) }, { fuseOffsets: 'yes' }, /fuseOffsets must be a boolean, got yes/],
    ];
    for (const [input, opts, msg] of cases) {
      const err = await stsSort(dev, input as StsDigis, { nChannels: 4, ...opts }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StsInputError);
      expect(String((err as Error).message)).toMatch(msg);
    }
    (cases[2]![0] as { time: { free(): void } }).time.free();
    // columns of another device
    const other = await createDevice({ backend, memoryBytes: 16 << 20 });
    try {
      const oc = await other.upload('u32', Uint32Array.of(1, 2)), ot = await other.upload('u32', Uint32Array.of(3, 4));
      const err = await stsSort(dev, { channel: oc, time: ot }, { nChannels: 4 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StsInputError);
      expect(String((err as Error).message)).toMatch(/channel belongs to another device/);
    } finally {
      await other.destroy();
    }
    c.free(); i32.free();
    expect(dev.memoryInfo().allocations).toBe(before);
  });

  it('device columns with a bad channel: the typed error names the first bad digi', async () => {
    const channel = await dev.upload('u32', Uint32Array.of(0, 1, 9, 2, 12)), time = await dev.upload('u32', Uint32Array.of(1, 2, 3, 4, 5));
    for (const method of STS_SORT_METHODS) {
      const err = await stsSort(dev, { channel, time }, { nChannels: 5, method }).catch((e: unknown) => e);
      expect(err, method).toBeInstanceOf(StsChannelRangeError);
      expect(err, method).toMatchObject({ index: 2, channel: 9, nChannels: 5 });
    }
    channel.free(); time.free();
  });

  it('chunked fuses its offsets into the scatter while chunks × nChannels is at most FUSED_OFFSETS_MAX_CELLS', async () => {
    const kernelsOf = async (nChannels: number, input: 'words' | 'columns') => {
      const words = stsDigisForBench(20_000, nChannels, 5);
      const r = await stsSort(dev, input === 'words' ? words : deinterleave(words), { nChannels, chunks: 4 });
      expect(interleaveDigis(r as StsDigis)).toEqual(stsSortByChannelReference(words, nChannels));
      return r.launches.map((l) => l.kernel);
    };
    const small = FUSED_OFFSETS_MAX_CELLS / 4, large = FUSED_OFFSETS_MAX_CELLS / 4 + 1;
    expect(await kernelsOf(small, 'columns')).toEqual(['stsCountChunksSoA', 'stsScatterChunksFusedSoA']);
    expect(await kernelsOf(small, 'words')).toEqual(['stsCountChunks', 'stsScatterChunksFused']);
    const unfused = await kernelsOf(large, 'columns');
    expect(unfused[0]).toBe('stsCountChunksSoA');
    expect(unfused[1]).toBe('stsColumnOffsets');
    expect(unfused.at(-1)).toBe('stsScatterChunksSoA');
  });

  it('accepts interleaved words and device arrays, and agrees with the bench reference', async () => {
    const words = stsDigisForBench(20_000, 100, 9);
    const ref = stsSortByChannelReference(words, 100);
    const viaWords = await stsSort(dev, words, { nChannels: 100 });
    const arr = await dev.upload('u32', words);
    const viaDevice = await stsSort(dev, arr, { nChannels: 100, method: 'local', output: 'device' });
    expect(interleaveDigis(viaWords as StsDigis)).toEqual(ref);
    expect(await viaDevice.device!.read()).toEqual(ref);
    expect(await arr.read()).toEqual(words); // input unchanged
    viaDevice.device!.free();
    arr.free();
  });
});

describe('stsScatterAtomic is schedule dependent, reproducible by seed', () => {
  it('serial: same device seed, same bytes; wasm and serial agree per channel', async () => {
    const d = generateStsDigis({ n: 3000, nChannels: 4, seed: 8, meanRunLength: 2 });
    const outs: Uint32Array[] = [];
    for (const seed of [21, 21, 22]) {
      const dev = await createDevice({ backend: 'serial', seed, memoryBytes: 64 << 20 });
      try {
        const r = await stsSort(dev, d, { nChannels: 4, method: 'atomic' });
        outs.push(r.time!);
      } finally {
        await dev.destroy();
      }
    }
    expect(outs[1]).toEqual(outs[0]);
    expect(outs[2]).not.toEqual(outs[0]); // another seed, another legal order
    const ref = sortDigisReference(d);
    expect(outs[0]).not.toEqual(ref.time); // the race is visible: not time ordered
  });
});
