// `simt pixel`: CMS pixel clustering (countModules, findClus, clusterChargeCut) on a
// SiPixelDigisCUDASOAView store dump or a synthetic event.
import { join } from 'node:path';
import type { Command } from '../command.js';
import { intOption, seedOption, stringOption, UsageError } from '../args.js';
import { createDevice } from '../../device.js';
import { MAX_DEVICE_BYTES } from '../../layout.js';
import { writeNpy } from '../../io/npy.js';
import { generatePixelEvent } from '../../jobs/pixel/generate.js';
import { unpackSoa } from '../../jobs/pixel/soa.js';
import { decodePixelStoreFile, encodePixelStoreFile, hasStoreTrailer } from '../../jobs/pixel/storeFile.js';
import { checkPixelDigis } from '../../jobs/pixel/checkDigis.js';
import { pixelClustering } from '../../jobs/pixel/run.js';
import { progressBar } from '../progress.js';
import { OutputSet, readInputFile } from '../files.js';

const MODULES = 1856;
/** About this many digis per active module at the generator's default 6 clusters per module. */
const DIGIS_PER_MODULE = 34;
const MAX_CLUSTERS_PER_MODULE = 500;
/** The largest event --generate makes: every module active, 500 clusters each (≈ 3.7 M digis). */
const MAX_GENERATE = Math.floor(MODULES * DIGIS_PER_MODULE * (MAX_CLUSTERS_PER_MODULE / 6));
/** The largest device (layout.ts: 4 GiB less the guard). */
const MAX_MIB = MAX_DEVICE_BYTES / 2 ** 20;
const OUTPUTS = ['clusterId.npy', 'moduleInd.npy', 'nClustersInModule.npy', 'moduleId.npy', 'moduleStart.npy', 'store.bin'];

export const pixelCommand: Command = {
  name: 'pixel',
  summary: 'CMS pixel clustering on a SoA digi store: countModules, findClus, charge cut',
  usage: 'simt pixel (<store.bin> [--max-fed-words M] [--n N] | --generate N [--seed S]) [--out-dir DIR] ' +
    '[--no-charge-cut] [--backend wasm|serial] [--device-seed S] [--verbose]',
  async run(args, io) {
    // Every option and every output is checked before anything is read, generated or run.
    const backend = (stringOption(args.options, 'backend') ?? 'wasm') as 'wasm' | 'serial';
    if (backend !== 'wasm' && backend !== 'serial') throw new UsageError(`--backend must be wasm or serial, got ${String(backend)}`);
    const deviceSeed = seedOption(args.options, 'device-seed');
    const generate = args.options.generate !== undefined;
    const path = generate ? undefined : args.positionals[0];
    if (!generate && !path) throw new UsageError('give a store dump or --generate N');
    const dir = stringOption(args.options, 'out-dir');
    const outputs = new OutputSet(path ? [path] : [], '--out-dir');
    if (dir) for (const name of OUTPUTS) outputs.plan(join(dir, name));
    const progress = progressBar(4);
    progress.step('input');
    let input: Parameters<typeof pixelClustering>[1];
    let source: string;
    let n: number;
    let maxFedWords: number;
    if (generate) {
      const want = intOption(args.options, 'generate', 0, { min: 1, max: MAX_GENERATE });
      const seed = seedOption(args.options, 'seed') ?? 1;
      // About 34 digis per active module with the default event shape; past every module
      // active, more clusters per module.
      const activeModules = Math.max(1, Math.min(MODULES, Math.round(want / DIGIS_PER_MODULE)));
      const clustersPerModule = want > MODULES * DIGIS_PER_MODULE ? Math.min(MAX_CLUSTERS_PER_MODULE, 6 * want / (MODULES * DIGIS_PER_MODULE)) : undefined;
      const ev = generatePixelEvent({ seed, activeModules, ...(clustersPerModule !== undefined ? { clustersPerModule } : {}) });
      input = ev;
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
      input = { bytes: store.bytes, maxFedWords, n };
      source = path!;
    }
    const dev = await createDevice({ backend, seed: deviceSeed, memoryBytes: Math.min(MAX_MIB, Math.max(256, Math.ceil((n * 24 + (64 << 20)) / 2 ** 20))) * 2 ** 20 });
    try {
      progress.step('cluster');
      const r = await pixelClustering(dev, input, { chargeCut: !args.options['no-charge-cut'] });
      progress.step('write');
      if (dir) {
        const contents = [writeNpy(r.clusterId), writeNpy(r.id), writeNpy(r.nClustersInModule), writeNpy(r.moduleId), writeNpy(r.moduleStarts), encodePixelStoreFile(r.storeBytes, n, maxFedWords)];
        OUTPUTS.forEach((name, k) => outputs.put(join(dir, name), contents[k]!));
        outputs.commit();
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
