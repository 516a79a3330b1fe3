// `simt sts-sort`: sorts CBM STS digis (seed 004) by (channel, time) on the device.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from '../command.js';
import { intOption, seedOption, stringOption, UsageError } from '../args.js';
import { createDevice } from '../../device.js';
import { readNpy, writeNpy } from '../../io/npy.js';
import { stsDigisForBench, MAX_BENCH_STS_CHANNELS } from '../../data/synthetic.js';
import { stsSort, STS_SORT_METHODS, type StsSortMethod } from '../../jobs/sts/run.js';
import { progressBar } from '../progress.js';

/** (channel, time) words from a .npy ([n, 2] or [2n] of u4) or a raw little-endian u32 file. */
function readDigis(path: string): Uint32Array {
  const bytes = readFileSync(path);
  if (path.endsWith('.npy')) {
    const a = readNpy(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (a.dtype !== 'u4' && a.dtype !== 'i4') throw new UsageError(`${path}: expected u4 digis, got ${a.dtype}`);
    if (!(a.shape.length === 2 && a.shape[1] === 2) && a.shape.length !== 1) throw new UsageError(`${path}: expected shape [n, 2] or [2n], got [${a.shape.join(', ')}]`);
    return new Uint32Array(a.data.buffer, a.data.byteOffset, a.data.length);
  }
  if (bytes.byteLength % 8 !== 0) throw new UsageError(`${path}: a raw digi file is n × 8 bytes (u32 channel, u32 time), got ${bytes.byteLength}`);
  return new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

export const stsSortCommand: Command = {
  name: 'sts-sort',
  summary: 'sort CBM STS digis by (channel, time): counting sorts, natural merge sort, key sort',
  usage: 'simt sts-sort (<digis.npy|digis.bin> | --generate N [--seed S]) --channels K [--method chunked|atomic|local|merge|key] ' +
    '[--out sorted.npy|sorted.bin] [--backend wasm|serial] [--device-seed S] [--memory MiB]',
  async run(args, io) {
    const method = (stringOption(args.options, 'method') ?? 'chunked') as StsSortMethod;
    if (!STS_SORT_METHODS.includes(method)) throw new UsageError(`--method must be one of ${STS_SORT_METHODS.join(', ')}`);
    const channels = intOption(args.options, 'channels', 1024);
    const progress = progressBar(4);
    progress.step('input');
    let words: Uint32Array;
    let source: string;
    if (args.options.generate !== undefined) {
      const n = intOption(args.options, 'generate', 0);
      const seed = seedOption(args.options, 'seed') ?? 1;
      if (channels > MAX_BENCH_STS_CHANNELS) throw new UsageError(`--generate supports at most ${MAX_BENCH_STS_CHANNELS} channels`);
      words = stsDigisForBench(n, channels, seed);
      source = `generated (n=${n}, seed=${seed})`;
    } else {
      const path = args.positionals[0];
      if (!path) throw new UsageError('give an input file or --generate N');
      words = readDigis(path);
      source = path;
    }
    const n = words.length / 2;
    const backend = (stringOption(args.options, 'backend') ?? 'wasm') as 'wasm' | 'serial';
    const memoryMiB = intOption(args.options, 'memory', Math.max(256, Math.ceil((n * 40 + channels * 64 + (64 << 20)) / 2 ** 20)));
    const deviceSeed = seedOption(args.options, 'device-seed');
    const dev = await createDevice({ backend, memoryBytes: Math.min(4096, memoryMiB) * 2 ** 20, seed: deviceSeed });
    try {
      progress.step('upload');
      const input = await dev.upload('u32', words);
      progress.step(`sort (${method})`);
      const r = await stsSort(dev, input, { nChannels: channels, method, output: 'device' });
      const sorted = await r.device!.read();
      r.device!.free();
      input.free();
      progress.step('write');
      const out = stringOption(args.options, 'out');
      if (out) writeFileSync(out, out.endsWith('.npy') ? writeNpy(sorted, [n, 2]) : new Uint8Array(sorted.buffer));
      let ordered = true;
      for (let i = 2; i < sorted.length && ordered; i += 2) {
        const c0 = sorted[i - 2]!, c1 = sorted[i]!;
        ordered = c0 < c1 || (c0 === c1 && (!r.timeOrdered || sorted[i - 1]! <= sorted[i + 1]!));
      }
      progress.done();
      io.out(JSON.stringify({
        command: 'sts-sort', source, n, channels, method, backend, workers: dev.workers, ms: +r.ms.toFixed(3),
        digisPerSec: n / (r.ms / 1000), timeOrdered: r.timeOrdered, sorted: ordered, runs: r.runs, rounds: r.rounds,
        launches: r.launches.length, out: out ?? null, deviceSeed: dev.seed,
      }));
      return ordered ? 0 : 1;
    } finally {
      await dev.destroy();
    }
  },
};
