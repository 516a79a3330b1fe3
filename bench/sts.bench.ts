// STS digi sorting (seed 004): every stsSort method at 1M and 32M digis, 1k and 100k channels,
// with the native C counting sort (bench/native/sts.c, OpenMP) in the same run; and the
// device-wide scan the sorts use.
import { createDevice, type Device } from '../src/device.js';
import { stsDigisForBench, stsSortByChannelReference } from '../src/data/synthetic.js';
import { stsSort, STS_SORT_METHODS } from '../src/jobs/sts/run.js';
import { exclusiveScan } from '../src/ops/scan.js';
import { buildNative, runNative } from './native/index.js';
import { median, progress, record, warmUp, type BenchRecord, type BenchSuite } from './harness.js';

/** Untimed runs at least, at 1M digis and below (the first calls run in V8's baseline tier). */
const SMALL_WARMUPS = 8;

/**
 * `reps` timed runs after untimed ones: at least `warmups`, and for at least `warmupMs`
 * (BenchContext.warmupMs: a 1M-digi sort takes a few ms, far less than V8 needs to move its
 * kernels and host code to its optimising tier; harness.ts, DEFAULT_WARMUP_MS).
 */
async function timeRuns(reps: number, fn: () => Promise<number>, warmups: number, warmupMs: number): Promise<number[]> {
  await warmUp(fn, warmups, warmupMs);
  const xs: number[] = [];
  for (let r = 0; r < reps; r++) xs.push(await fn());
  return xs;
}

/**
 * stsSort end to end (default method) against its own device part (`computeMs`) in the same runs:
 * host {channel, time} arrays in and host copies out; and, with the columns already in device
 * memory (filled in place through `view()`, as a reader would) and `output: 'mapped'`, what is
 * left when nothing is copied.
 */
async function endToEnd(dev: Device, words: Uint32Array, channels: number, reps: number, warmupMs: number): Promise<BenchRecord[]> {
  const n = words.length / 2;
  const digis = { channel: new Uint32Array(n), time: new Uint32Array(n) };
  for (let i = 0; i < n; i++) { digis.channel[i] = words[2 * i]!; digis.time[i] = words[2 * i + 1]!; }
  const onDevice = { channel: await dev.upload('u32', digis.channel), time: await dev.upload('u32', digis.time) };
  const out: BenchRecord[] = [];
  try {
    for (const [name, input, output] of [['stsSort/chunked end-to-end', digis, 'host'], ['stsSort/chunked end-to-end, device columns + mapped', onDevice, 'mapped']] as const) {
      const walls: number[] = [], device: number[] = [];
      const sort = async (): Promise<void> => {
        const t0 = performance.now();
        const res = await stsSort(dev, input, { nChannels: channels, output });
        const wall = performance.now() - t0;
        if (res.channel!.length !== n) throw new Error('stsSort end-to-end: wrong output length');
        res.free();
        walls.push(wall); device.push(res.ms);
      };
      await warmUp(sort, n <= 1_000_000 ? SMALL_WARMUPS : 1, warmupMs);
      walls.length = 0; device.length = 0;
      for (let r = 0; r < reps; r++) await sort();
      out.push(record(name, 'simt-wasm', n, median(walls), { bytes: 16 * n, workers: dev.workers, samples: walls.length, channels, computeMs: median(device) }));
    }
  } finally {
    onDevice.channel.free(); onDevice.time.free();
  }
  return out;
}

/**
 * simt's one device-wide scan (kernels/primitives/scan.ts, src/ops/scan.ts), which the sorts
 * use: in place (one launch up to SINGLE_LAUNCH_SCAN_MAX) and out of place (three launches),
 * 41 calls each after 8 warm-ups, the last output checked against a host scan.
 */
async function scanRecords(dev: Device, sizes: number[], warmupMs: number): Promise<BenchRecord[]> {
  const out: BenchRecord[] = [];
  for (const n of sizes) {
    const words = stsDigisForBench(n / 2, 1000, 3); // any u32 words; their sums wrap as CUDA's do
    const expected = new Uint32Array(n);
    for (let i = 1; i < n; i++) expected[i] = (expected[i - 1]! + words[i - 1]!) >>> 0;
    const x = await dev.upload('u32', words);
    const y = dev.alloc('u32', n);
    try {
      for (const inPlace of [true, false]) {
        progress(`scan n=${n}${inPlace ? ' in place' : ''}`);
        await x.upload(words);
        const ms = await timeRuns(41, async () => {
          if (inPlace) await x.upload(words);
          const t0 = performance.now();
          await exclusiveScan(dev, x, inPlace ? x : y, n);
          return performance.now() - t0;
        }, SMALL_WARMUPS, warmupMs);
        const got = await (inPlace ? x : y).read();
        let ok = true;
        for (let i = 0; i < n && ok; i++) ok = got[i] === expected[i];
        out.push(record(inPlace ? 'scan/exclusive in place' : 'scan/exclusive', 'simt-wasm', n, median(ms), { bytes: (inPlace ? 8 : 12) * n, workers: dev.workers, times: ms, ok }));
      }
    } finally {
      x.free(); y.free();
    }
  }
  return out;
}

export const suite: BenchSuite = {
  name: 'sts',
  description: 'STS digi sort by (channel, time), 1M and 32M digis, 1k and 100k channels: counting sorts, merge sort, key sort vs native C (OpenMP); the device-wide scan at 100k-4M',
  quickDescription: 'STS digi sort by (channel, time), 1M digis, 1k and 100k channels: counting sorts, merge sort, key sort vs native C (OpenMP); the device-wide scan at 100k and 1M',
  async run(ctx) {
    const out: BenchRecord[] = [];
    const sizes = ctx.quick ? [1_000_000] : [1_000_000, 32_000_000];
    const native = buildNative();
    if (!native.ok) ctx.log(`sts: native baseline skipped: ${native.note}`);
    const dev = await createDevice({ memoryBytes: 1536 * 2 ** 20, workers: ctx.workers });
    try {
      out.push(...await scanRecords(dev, ctx.quick ? [100_000, 1_000_000] : [100_000, 1_000_000, 4_000_000], ctx.warmupMs));
      for (const n of sizes) {
        for (const channels of [1000, 100_000]) {
          const words = stsDigisForBench(n, channels, 1);
          const input = await dev.upload('u32', words);
          const reference = n <= 1_000_000 ? stsSortByChannelReference(words, channels) : undefined;
          for (const method of STS_SORT_METHODS) {
            const slow = method === 'merge' || method === 'key';
            progress(`stsSort/${method} n=${n} channels=${channels}`);
            const reps = n > 1_000_000 ? (slow ? 2 : 7) : (slow ? 3 : 9);
            // The comparison sorts keep their counted warm-up runs only: at 15–70 ms a run (1M
            // digis) and seconds (32M), the time-based warm-up would add tens of seconds to the
            // suite, and no comparison with native C rests on them.
            const warmupMs = slow ? 0 : ctx.warmupMs;
            // Back to back, as the native program repeats its sort; the last output is checked after
            // (a check between runs reads 8 MB and evicts the input from the cache).
            let last: Awaited<ReturnType<typeof stsSort>> | undefined;
            const ms = await timeRuns(reps, async () => {
              last?.device!.free();
              last = await stsSort(dev, input, { nChannels: channels, method, output: 'device' });
              return last.ms;
            }, n <= 1_000_000 ? SMALL_WARMUPS : 1, warmupMs);
            let ok = true;
            if (reference) {
              const got = await last!.device!.read();
              for (let i = 0; i < got.length && ok; i += 2) ok = got[i] === reference[i] && (method === 'atomic' || got[i + 1] === reference[i + 1]);
            }
            last!.device!.free();
            const rec = record(`stsSort/${method}`, 'simt-wasm', n, median(ms), { bytes: 16 * n, workers: dev.workers, times: ms, channels, ok });
            out.push(rec);
            if (!ok) ctx.log(`sts: ${method} n=${n} channels=${channels}: output differs from the reference`);
          }
          input.free();
          for (const r of await endToEnd(dev, words, channels, n > 1_000_000 ? 5 : 9, ctx.warmupMs)) {
            out.push(r);
            ctx.log(`  ${r.name} n=${n} k=${channels}: ${r.ms.toFixed(1)} ms (device part ${(r['computeMs'] as number).toFixed(1)} ms)`);
          }
          if (native.ok) {
            progress(`stsSort native-c n=${n} channels=${channels}`);
            const r = await runNative('stsSortByChannel', { n, seed: 1, threads: dev.workers, repeat: 7, extra: { channels } });
            out.push(record('stsSort/native-counting', 'native-c', n, r.msMedian, { bytes: 16 * n, workers: r.threads, times: r.msAll, channels, openmp: r.openmp, ok: r.result === 1 }));
          }
        }
      }
    } finally {
      await dev.destroy();
    }
    return out;
  },
};
