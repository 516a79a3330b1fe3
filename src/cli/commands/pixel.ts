// `simt pixel`: CMS pixel clustering (countModules, findClus, clusterChargeCut) on a
// SiPixelDigisCUDASOAView store dump or a synthetic event.
import { join } from 'node:path';
import type { Command } from '../command.js';
import { choiceOption, inputOption, intOption, seedOption, stringOption, UsageError, workersOption } from '../args.js';
import { opt } from '../options.js';
import { createDevice } from '../../device.js';
import { writeNpy } from '../../io/npy.js';
import { soaLayout } from '../../jobs/pixel/soa.js';
import { pixelClustering } from '../../jobs/pixel/run.js';
import { progressBar, progressEnabled } from '../progress.js';
import { OutputSet, readInputFile } from '../files.js';
import { generateDigis, MAX_GENERATED_DIGIS } from '../pixelDigis.js';

const MAX_MIB = 4096;
const OUTPUTS = ['clusterId.npy', 'moduleInd.npy', 'nClustersInModule.npy', 'moduleId.npy', 'moduleStart.npy', 'store.bin'];

export const pixelCommand: Command = {
  name: 'pixel',
  summary: 'CMS pixel clustering on a SoA digi store: countModules, findClus, charge cut',
  usage: 'simt pixel (<store.bin> [--max-fed-words M] [--n N] | --generate N [--seed S]) [--out DIR] ' +
    '[--no-charge-cut] [--backend wasm|serial] [--workers N] [--schedule-seed S] [--json] [--quiet]',
  options: [
    opt.input('FILE', 'a SiPixelDigisCUDASOAView store dump'),
    { name: 'max-fed-words', value: 'M', default: 'file size / 20', description: 'the store\'s capacity in digis' },
    { name: 'n', value: 'N', default: 'M', description: 'digis of the store to cluster' },
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
    if (generate) {
      const want = intOption(args.options, 'generate', 0, { min: 1, max: MAX_GENERATED_DIGIS });
      const seed = seedOption(args.options, 'seed') ?? 1;
      const ev = generateDigis(want, seed);
      digis = ev;
      n = ev.n;
      source = `generated (${ev.n} digis, seed=${seed})`;
    } else {
      const maxWords = args.options['max-fed-words'] === undefined ? undefined : intOption(args.options, 'max-fed-words', 0, { min: 0, max: 2 ** 26 });
      const bytes = readInputFile(path!, { bytes: (MAX_MIB << 20) / 2, why: `a store of more than ${MAX_MIB / 2} MiB does not fit the device` });
      const max = maxWords ?? bytes.length / 20;
      if (!Number.isInteger(max) || soaLayout(max).totalBytes !== bytes.length) {
        throw new UsageError(`${path}: ${bytes.length} bytes is not a store for --max-fed-words ${max} (needs 20 × roundFor128ByteAlignment(M) bytes)`);
      }
      n = intOption(args.options, 'n', max, { min: 0, max });
      digis = { bytes, maxFedWords: max, n };
      source = path!;
    }
    const dev = await createDevice({ backend, workers, seed: deviceSeed, memoryBytes: Math.min(MAX_MIB, Math.max(256, Math.ceil((n * 24 + (64 << 20)) / 2 ** 20))) * 2 ** 20 });
    try {
      progress.step('cluster');
      const r = await pixelClustering(dev, digis, { chargeCut: !args.options['no-charge-cut'] });
      progress.step('write');
      if (dir) {
        const contents = [writeNpy(r.clusterId), writeNpy(r.id), writeNpy(r.nClustersInModule), writeNpy(r.moduleId), writeNpy(r.moduleStarts), r.storeBytes];
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
