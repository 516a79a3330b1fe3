// `simt sts-sort`: sorts CBM STS digis (seed 004) by (channel, time) on the device.
import type { Command } from '../command.js';
import { choiceOption, inputOption, intOption, seedOption, stringOption, UsageError, workersOption } from '../args.js';
import { opt } from '../options.js';
import { createDevice } from '../../device.js';
import { MAX_DEVICE_BYTES } from '../../layout.js';
import { writeNpy } from '../../io/npy.js';
import { stsDigisForBench, MAX_BENCH_STS_CHANNELS } from '../../data/synthetic.js';
import { stsSort, STS_SORT_METHODS, type StsSortMethod } from '../../jobs/sts/run.js';
import { progressBar, progressEnabled } from '../progress.js';
import { InputFileError, OutputSet, readInputFile, readNpyFile } from '../files.js';

/** The largest device (layout.ts: 4 GiB less the guard). */
const MAX_MIB = MAX_DEVICE_BYTES / 2 ** 20;
const RESERVE = 64 << 20;
/** Device bytes a sort of n digis over `channels` channels needs (the command sizes its device by it). */
const deviceBytes = (n: number, channels: number): number => n * 40 + channels * 64 + RESERVE;

/** (channel, time) words from a .npy ([n, 2] or [2n] of u4) or a raw little-endian u32 file. */
function readDigis(path: string, channels: number): Uint32Array {
  const maxBytes = { bytes: Math.floor((MAX_MIB * 2 ** 20 - deviceBytes(0, channels)) / 40) * 8 + 4096, why: `the digis would not fit a ${MAX_MIB} MiB device` };
  if (path.endsWith('.npy')) {
    const a = readNpyFile(path, maxBytes);
    if (a.dtype !== 'u4' && a.dtype !== 'i4') throw new InputFileError(path, `expected u4 digis, got ${a.dtype}`);
    if (!(a.shape.length === 2 && a.shape[1] === 2) && !(a.shape.length === 1 && a.shape[0]! % 2 === 0)) {
      throw new InputFileError(path, `expected shape [n, 2] or [2n], got [${a.shape.join(', ')}]`);
    }
    return new Uint32Array(a.data.buffer, a.data.byteOffset, a.data.length);
  }
  const bytes = readInputFile(path, maxBytes);
  if (bytes.byteLength % 8 !== 0) throw new InputFileError(path, `a raw digi file is n × 8 bytes (u32 channel, u32 time), got ${bytes.byteLength}`);
  return new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

export const stsSortCommand: Command = {
  name: 'sts-sort',
  summary: 'sort CBM STS digis by (channel, time): counting sorts, natural merge sort, key sort',
  usage: 'simt sts-sort (<digis.npy|digis.bin> | --generate N [--seed S]) [--channels K] [--method M] [--out FILE] ' +
    '[--backend wasm|serial] [--workers N] [--schedule-seed S] [--memory MiB] [--json] [--quiet]',
  options: [
    opt.input('FILE', 'digis to sort: .npy of u4 [n, 2] or [2n], or raw little-endian u32 (channel, time) pairs'),
    { name: 'generate', value: 'N', description: 'sort N generated digis instead of a file' },
    opt.seed(),
    { name: 'channels', value: 'K', default: '1024', description: 'channels: every channel number is below K' },
    { name: 'method', value: STS_SORT_METHODS.join('|'), default: 'chunked', description: 'sort method (docs/sts.md)' },
    { name: 'out', short: 'o', value: 'FILE', description: 'write the sorted digis (.npy: u4 [n, 2]; any other name: raw u32)' },
    opt.backend(),
    opt.workers(),
    opt.scheduleSeed(),
    { name: 'memory', value: 'MiB', default: 'what n needs, at least 256', description: 'device memory' },
    opt.json('one JSON document: { command, source, n, channels, method, backend, workers, ms, digisPerSec, sorted, out, … }'),
    opt.quiet(),
  ],
  examples: ['simt sts-sort --generate 1000000 --channels 1000 --method merge --out sorted.npy'],
  async run(args, io) {
    // Every option is checked before anything is read, generated or allocated.
    const method = choiceOption(args.options, 'method', STS_SORT_METHODS, 'chunked') as StsSortMethod;
    const generate = args.options.generate !== undefined;
    const channels = intOption(args.options, 'channels', 1024, { min: 1, max: generate ? MAX_BENCH_STS_CHANNELS : 2 ** 24 });
    const backend = choiceOption(args.options, 'backend', ['wasm', 'serial'] as const, 'wasm');
    const workers = workersOption(args.options);
    const deviceSeed = seedOption(args.options, 'schedule-seed');
    const maxN = Math.floor((MAX_MIB * 2 ** 20 - deviceBytes(0, channels)) / 40);
    const input = inputOption(args);
    if (generate && input !== undefined) throw new UsageError(`give an input file or --generate N, not both`);
    const path = generate ? undefined : input;
    if (!generate && !path) throw new UsageError('give an input file or --generate N');
    const out = stringOption(args.options, 'out');
    const outputs = new OutputSet(path ? [path] : [], '--out');
    if (out) outputs.plan(out);
    const progress = progressBar(4, progressEnabled(args.options));
    progress.step('input');
    let words: Uint32Array;
    let source: string;
    if (generate) {
      const n = intOption(args.options, 'generate', 0, { min: 0, max: maxN });
      const seed = seedOption(args.options, 'seed') ?? 1;
      words = stsDigisForBench(n, channels, seed);
      source = `generated (n=${n}, seed=${seed})`;
    } else {
      words = readDigis(path!, channels);
      source = path!;
    }
    const n = words.length / 2;
    const need = Math.ceil(deviceBytes(n, channels) / 2 ** 20);
    const memoryMiB = intOption(args.options, 'memory', Math.max(256, need), { min: 1, max: MAX_MIB });
    const dev = await createDevice({ backend, workers, memoryBytes: memoryMiB * 2 ** 20, seed: deviceSeed });
    try {
      progress.step('upload');
      const input = await dev.upload('u32', words);
      progress.step(`sort (${method})`);
      const r = await stsSort(dev, input, { nChannels: channels, method, output: 'device' });
      const sorted = await r.device!.read();
      r.device!.free();
      input.free();
      progress.step('write');
      let ordered = true;
      let broken = -1;
      for (let i = 2; i < sorted.length && ordered; i += 2) {
        const c0 = sorted[i - 2]!, c1 = sorted[i]!;
        ordered = c0 < c1 || (c0 === c1 && (!r.timeOrdered || sorted[i - 1]! <= sorted[i + 1]!));
        if (!ordered) broken = i / 2;
      }
      if (!ordered) {
        progress.done();
        // The counting sorts keep each channel's arrival order: sorted by time only when each
        // channel arrives time-ordered. Say so, and write nothing.
        io.err(`simt sts-sort: ${source}: the output of --method ${method} is not sorted by (channel, time) at digi ${broken} ` +
          `(channel ${sorted[2 * broken]}): the input's channels do not arrive time-ordered, which ${method} needs; ` +
          `use --method merge or key${out ? `; ${out} was not written` : ''}`);
        return 1;
      }
      if (out) {
        outputs.put(out, out.endsWith('.npy') ? writeNpy(sorted, [n, 2]) : new Uint8Array(sorted.buffer));
        outputs.commit();
      }
      progress.done();
      const summary = {
        command: 'sts-sort', source, n, channels, method, backend, workers: dev.workers, ms: +r.ms.toFixed(3),
        digisPerSec: n / (r.ms / 1000), timeOrdered: r.timeOrdered, sorted: ordered, runs: r.runs, rounds: r.rounds,
        launches: r.launches.length, out: out ?? null, deviceSeed: dev.seed,
      };
      if (args.options.json) io.out(JSON.stringify(summary));
      else {
        io.out(`sts-sort: ${n} digis from ${source}, ${channels} channels, method ${method}`);
        io.out(`  sorted by (channel, ${r.timeOrdered ? 'time' : 'arrival'}) in ${r.ms.toFixed(1)} ms on ${backend} (${dev.workers} worker${dev.workers === 1 ? '' : 's'}), ` +
          `${(summary.digisPerSec / 1e6).toFixed(1)} M digis/s, ${r.launches.length} launches`);
        io.out(out ? `  wrote ${out}` : '  (no --out: nothing written)');
      }
      return 0;
    } finally {
      await dev.destroy();
    }
  },
};
