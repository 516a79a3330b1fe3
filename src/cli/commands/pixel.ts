// `simt pixel`: CMS pixel clustering (countModules, findClus, clusterChargeCut) on a
// SiPixelDigisCUDASOAView store dump or a synthetic event.
import { join } from 'node:path';
import type { Command } from '../command.js';
import { choiceOption, inputOption, intOption, seedOption, stringOption, UsageError, workersOption } from '../args.js';
import { opt } from '../options.js';
import { createDevice } from '../../device.js';
import { writeNpy } from '../../io/npy.js';
import { unpackSoa } from '../../jobs/pixel/soa.js';
import { decodePixelStoreFile, encodePixelStoreFile, hasStoreTrailer } from '../../jobs/pixel/storeFile.js';
import { checkPixelDigis } from '../../jobs/pixel/checkDigis.js';
import { MAX_DEVICE_BYTES } from '../../layout.js';
import { pixelClustering } from '../../jobs/pixel/run.js';
import { progressBar, progressEnabled } from '../progress.js';
import { OutputSet, readInputFile } from '../files.js';
import { generateDigis, MAX_GENERATED_DIGIS } from '../pixelDigis.js';

/** The largest device (layout.ts: 4 GiB less the guard). */
const MAX_MIB = MAX_DEVICE_BYTES / 2 ** 20;
const OUTPUTS = ['clusterId.npy', 'moduleInd.npy', 'nClustersInModule.npy', 'moduleId.npy', 'moduleStart.npy', 'store.bin'];

export const pixelCommand: Command = {
  name: 'pixel',
  summary: 'CMS pixel clustering on a SoA digi store: countModules, findClus, charge cut',
  usage: 'simt pixel (<store.bin> [--max-fed-words M] [--n N] | --generate N [--seed S]) [--out DIR] ' +
    '[--no-charge-cut] [--backend wasm|serial] [--workers N] [--schedule-seed S] [--json] [--quiet]',
  options: [
    opt.input('FILE', 'a SiPixelDigisCUDASOAView store dump'),
    { name: 'max-fed-words', value: 'M', default: 'the store file\'s trailer', description: 'the store\'s capacity in digis (a raw dump: give it or --n)' },
    { name: 'n', value: 'N', default: 'the store file\'s trailer, or M', description: 'digis of the store to cluster (a raw dump: give it or --max-fed-words)' },
    { name: 'generate', value: 'N', description: `cluster exactly N generated digis instead of a file (at most ${MAX_GENERATED_DIGIS})` },
    opt.seed(),
    { name: 'out', short: 'o', value: 'DIR', deprecated: ['out-dir'], description: `write ${OUTPUTS.join(', ')} into DIR` },
    { name: 'no-charge-cut', description: 'skip clusterChargeCut' },
    opt.backend(),
    opt.workers(),
    opt.scheduleSeed(),
    opt.json('one JSON document: { command, source, n, backend, workers, modules, clusters, ms, kernels, outDir, deviceSeed }'),
    opt.quiet(),
  ],
  examples: ['simt pixel --generate 1000000 --out clusters/', 'simt pixel store.bin --max-fed-words 150000 --json'],
  async run(args, io) {
    // Every option and every output is checked before anything is read, generated or run.
    const backend = choiceOption(args.options, 'backend', ['wasm', 'serial'] as const, 'wasm');
    const workers = workersOption(args.options);
    const deviceSeed = seedOption(args.options, 'schedule-seed');
    const generate = args.options.generate !== undefined;
    const input = inputOption(args);
    if (generate && input !== undefined) throw new UsageError('give a store dump or --generate N, not both');
    const path = generate ? undefined : input;
    if (!generate && !path) throw new UsageError('give a store dump or --generate N');
    const dir = stringOption(args.options, 'out');
    const outputs = new OutputSet(path ? [path] : [], '--out');
    if (dir) for (const name of OUTPUTS) outputs.plan(join(dir, name));
    const progress = progressBar(4, progressEnabled(args.options));
    progress.step('input');
    let digis: Parameters<typeof pixelClustering>[1];
    let source: string;
    let n: number;
    let maxFedWords: number;
    if (generate) {
      const want = intOption(args.options, 'generate', 0, { min: 1, max: MAX_GENERATED_DIGIS });
      const seed = seedOption(args.options, 'seed') ?? 1;
      const ev = generateDigis(want, seed);
      digis = ev;
      n = ev.n;
      maxFedWords = ev.n;
      source = `generated (${ev.n} digis, seed=${seed})`;
    } else {
      const maxWords = args.options['max-fed-words'] === undefined ? undefined : intOption(args.options, 'max-fed-words', 0, { min: 0, max: 2 ** 26 });
      const nWords = args.options.n === undefined ? undefined : intOption(args.options, 'n', 0, { min: 0, max: 2 ** 26 });
      const file = readInputFile(path!, { bytes: MAX_MIB * 2 ** 19, why: `a store of more than ${MAX_MIB / 2} MiB does not fit the device` });
      // The store simt writes says its digi count; a raw dump's size includes alignment padding.
      if (!hasStoreTrailer(file) && maxWords === undefined && nWords === undefined) {
        throw new UsageError(`${path} is a raw store dump, which does not say how many digis it holds: give --n N (or --max-fed-words M when all M words are digis)`);
      }
      const store = decodePixelStoreFile(file, { maxFedWords: maxWords, n: nWords }, path!);
      // Ids and coordinates index the kernels' arrays unchecked: the first bad digi is named here.
      checkPixelDigis(unpackSoa(store.bytes, store.maxFedWords, store.n), store.n, path!);
      n = store.n;
      maxFedWords = store.maxFedWords;
      digis = { bytes: store.bytes, maxFedWords, n };
      source = path!;
    }
    const dev = await createDevice({ backend, workers, seed: deviceSeed, memoryBytes: Math.min(MAX_MIB, Math.max(256, Math.ceil((n * 24 + (64 << 20)) / 2 ** 20))) * 2 ** 20 });
    try {
      progress.step('cluster');
      const r = await pixelClustering(dev, digis, { chargeCut: !args.options['no-charge-cut'] });
      progress.step('write');
      if (dir) {
        const contents = [writeNpy(r.clusterId), writeNpy(r.id), writeNpy(r.nClustersInModule), writeNpy(r.moduleId), writeNpy(r.moduleStarts), encodePixelStoreFile(r.storeBytes, n, maxFedWords)];
        OUTPUTS.forEach((name, k) => outputs.put(join(dir, name), contents[k]!));
        outputs.commit();
      }
      progress.done();
      let clusters = 0;
      for (const c of r.nClustersInModule) clusters += c;
      const summary = {
        command: 'pixel', source, n, backend, workers: dev.workers, modules: r.nModules, clusters, ms: +r.ms.toFixed(3),
        kernels: Object.fromEntries(r.launches.map((l) => [l.kernel, +l.elapsedMs.toFixed(3)])), outDir: dir ?? null, deviceSeed: dev.seed,
      };
      if (args.options.json) io.out(JSON.stringify(summary));
      else {
        io.out(`pixel: ${n} digis from ${source}: ${r.nModules} modules, ${clusters} clusters`);
        io.out(`  ${r.ms.toFixed(1)} ms on ${backend} (${dev.workers} worker${dev.workers === 1 ? '' : 's'}): ` +
          r.launches.map((l) => `${l.kernel} ${l.elapsedMs.toFixed(1)} ms`).join(', '));
        io.out(dir ? `  wrote ${OUTPUTS.length} files into ${dir}` : '  (no --out: nothing written)');
      }
      return 0;
    } finally {
      await dev.destroy();
    }
  },
};
