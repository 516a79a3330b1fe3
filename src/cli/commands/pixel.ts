// `simt pixel`: CMS pixel clustering (countModules, findClus, clusterChargeCut) on a
// SiPixelDigisCUDASOAView store dump or a synthetic event.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from '../command.js';
import { intOption, seedOption, stringOption, UsageError } from '../args.js';
import { createDevice } from '../../device.js';
import { writeNpy } from '../../io/npy.js';
import { generatePixelEvent } from '../../jobs/pixel/generate.js';
import { soaLayout } from '../../jobs/pixel/soa.js';
import { pixelClustering } from '../../jobs/pixel/run.js';
import { progressBar } from '../progress.js';

export const pixelCommand: Command = {
  name: 'pixel',
  summary: 'CMS pixel clustering on a SoA digi store: countModules, findClus, charge cut',
  usage: 'simt pixel (<store.bin> --max-fed-words M [--n N] | --generate N [--seed S]) [--out-dir DIR] ' +
    '[--no-charge-cut] [--backend wasm|serial] [--device-seed S]',
  async run(args, io) {
    const progress = progressBar(4);
    progress.step('input');
    let input: Parameters<typeof pixelClustering>[1];
    let source: string;
    let n: number;
    if (args.options.generate !== undefined) {
      const want = intOption(args.options, 'generate', 0);
      const seed = seedOption(args.options, 'seed') ?? 1;
      // about 34 digis per active module with the default event shape
      const ev = generatePixelEvent({ seed, activeModules: Math.max(1, Math.min(1856, Math.round(want / 34))) });
      input = ev;
      n = ev.n;
      source = `generated (${ev.n} digis, seed=${seed})`;
    } else {
      const path = args.positionals[0];
      if (!path) throw new UsageError('give a store dump or --generate N');
      const bytes = new Uint8Array(readFileSync(path));
      const max = args.options['max-fed-words'] === undefined ? bytes.length / 20 : intOption(args.options, 'max-fed-words', 0);
      if (!Number.isInteger(max) || soaLayout(max).totalBytes !== bytes.length) {
        throw new UsageError(`${path}: ${bytes.length} bytes is not a store for --max-fed-words ${max} (needs 20 × roundFor128ByteAlignment(M) bytes)`);
      }
      n = intOption(args.options, 'n', max);
      input = { bytes, maxFedWords: max, n };
      source = path;
    }
    const backend = (stringOption(args.options, 'backend') ?? 'wasm') as 'wasm' | 'serial';
    const deviceSeed = seedOption(args.options, 'device-seed');
    const dev = await createDevice({ backend, seed: deviceSeed, memoryBytes: Math.min(4096, Math.max(256, Math.ceil((n * 24 + (64 << 20)) / 2 ** 20))) * 2 ** 20 });
    try {
      progress.step('cluster');
      const r = await pixelClustering(dev, input, { chargeCut: !args.options['no-charge-cut'] });
      progress.step('write');
      const dir = stringOption(args.options, 'out-dir');
      if (dir) {
        writeFileSync(`${dir}/clusterId.npy`, writeNpy(r.clusterId));
        writeFileSync(`${dir}/moduleInd.npy`, writeNpy(r.id));
        writeFileSync(`${dir}/nClustersInModule.npy`, writeNpy(r.nClustersInModule));
        writeFileSync(`${dir}/moduleId.npy`, writeNpy(r.moduleId));
        writeFileSync(`${dir}/moduleStart.npy`, writeNpy(r.moduleStarts));
        writeFileSync(`${dir}/store.bin`, r.storeBytes);
      }
      progress.done();
      let clusters = 0;
      for (const c of r.nClustersInModule) clusters += c;
      io.out(JSON.stringify({
        command: 'pixel', source, n, backend, workers: dev.workers, modules: r.nModules, clusters, ms: +r.ms.toFixed(3),
        kernels: Object.fromEntries(r.launches.map((l) => [l.kernel, +l.elapsedMs.toFixed(3)])), outDir: dir ?? null, deviceSeed: dev.seed,
      }));
      return 0;
    } finally {
      await dev.destroy();
    }
  },
};
