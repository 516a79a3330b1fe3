// `simt demo` (what `npm start` runs): the first kernels on built-in synthetic data, each
// checked against an independent reference, with the throughput.
import type { Command } from '../command.js';
import { choiceOption, intOption, seedOption, UsageError, workersOption } from '../args.js';
import { opt } from '../options.js';
import { createDevice } from '../../device.js';
import { MAX_DEVICE_BYTES } from '../../layout.js';
import { deviceMax, deviceSum } from '../../ops/reduce.js';
import { countModules } from '../../ops/countModules.js';
import { randomF32, moduleIdsForBench } from '../../data/synthetic.js';
import { countModulesReference } from '../../jobs/pixel/reference.js';

export const demo: Command = {
  name: 'demo',
  summary: 'run vecMax, vecSum and countModules on synthetic data, checked against references',
  usage: 'simt demo [--n N] [--digis N] [--seed S] [--workers N] [--backend wasm|serial] [--json]',
  options: [
    { name: 'n', value: 'N', default: '16000000', description: 'f32 elements of the vecMax and vecSum input' },
    { name: 'digis', value: 'N', default: '5000000', description: 'digis of the countModules input' },
    opt.seed('seed of the synthetic data'),
    opt.workers(),
    opt.backend(),
    opt.json('one JSON document: { backend, workers, ok, results: [{ name, size, ms, ok, … }] }'),
  ],
  examples: ['simt demo --n 1000000 --digis 200000 --workers 2'],
  details: 'Prints each result beside its reference and the throughput; exit status 1 when a result differs.',
  async run(args, io) {
    // Sizes are checked before any generation: the device holds n f32 and the digis' ids,
    // module starts and cluster ids (6 bytes each) in the largest device, with 64 MiB to spare.
    const n = intOption(args.options, 'n', 16_000_000, { min: 1, max: 2 ** 29 });
    const digis = intOption(args.options, 'digis', 5_000_000, { min: 1, max: 2 ** 28 });
    if (n * 4 + digis * 6 + (64 << 20) > MAX_DEVICE_BYTES) {
      throw new UsageError(`--n ${n} and --digis ${digis} need ${Math.ceil((n * 4 + digis * 6) / 2 ** 20)} MiB of device memory; at most ${MAX_DEVICE_BYTES / 2 ** 20 - 64} MiB`);
    }
    const seed = seedOption(args.options, 'seed') ?? 1;
    const workers = workersOption(args.options);
    const backend = choiceOption(args.options, 'backend', ['wasm', 'serial'] as const, 'wasm');
    const json = !!args.options.json;
    const records: Record<string, unknown>[] = [];
    const dev = await createDevice({ backend, workers, memoryBytes: Math.ceil(Math.max(256 << 20, n * 4 + digis * 6 + (64 << 20)) / 65536) * 65536 });
    let ok = true;
    try {
      if (!json) io.out(`simt demo on the ${backend} backend, ${dev.workers} worker${dev.workers === 1 ? '' : 's'}`);
      const data = randomF32(n, seed);
      const A = await dev.upload('f32', data);
      // Warm-up (the first call runs in V8's baseline tier), then the median of five launches.
      await deviceMax(dev, A);
      const runs = [];
      for (let k = 0; k < 5; k++) runs.push(await deviceMax(dev, A));
      runs.sort((x, y) => x.stats.elapsedMs - y.stats.elapsedMs);
      const mx = runs[2]!;
      let ref = -Infinity;
      for (let i = 0; i < n; i++) if (data[i]! > ref) ref = data[i]!;
      const mxOk = mx.value === ref;
      ok &&= mxOk;
      records.push({ name: 'vecMax', size: n, ms: mx.stats.elapsedMs, gbps: (4 * n) / mx.stats.elapsedMs / 1e6, value: mx.value, reference: ref, ok: mxOk });
      if (!json) io.out(`  vecMax  over ${n} f32: ${mx.value} (reference ${ref}) ${mxOk ? 'OK' : 'MISMATCH'}  ${mx.stats.elapsedMs.toFixed(2)} ms (median of 5), ${((4 * n) / mx.stats.elapsedMs / 1e6).toFixed(2)} GB/s`);

      const sm = await deviceSum(dev, A);
      let refSum = 0, absSum = 0;
      for (let i = 0; i < n; i++) { refSum += data[i]!; absSum += Math.abs(data[i]!); }
      const bound = (n + 1024) * 2 ** -53 * absSum * 2;
      const smOk = Math.abs(sm.value - refSum) <= bound;
      ok &&= smOk;
      records.push({ name: 'vecSum', size: n, ms: sm.stats.elapsedMs, gbps: (4 * n) / sm.stats.elapsedMs / 1e6, value: sm.value, reference: refSum, ok: smOk });
      if (!json) io.out(`  vecSum  over ${n} f32: ${sm.value.toPrecision(15)} (f64 reference ${refSum.toPrecision(15)}, bound ±${bound.toExponential(2)}) ${smOk ? 'OK' : 'MISMATCH'}  ${sm.stats.elapsedMs.toFixed(2)} ms`);
      A.free();

      const ids = moduleIdsForBench(digis, 1800, 0.01, seed);
      const reference = countModulesReference(ids, 1856);
      const id = await dev.upload('u16', ids);
      await countModules(dev, id);
      const cms = [];
      for (let k = 0; k < 5; k++) cms.push(await countModules(dev, id));
      cms.sort((x, y) => x.stats.elapsedMs - y.stats.elapsedMs);
      const cm = cms[2]!;
      const startsOk = cm.count === reference.count && cm.moduleStartSorted.length === reference.sortedStarts.length &&
        cm.moduleStartSorted.every((v, k) => v === reference.sortedStarts[k]);
      const cidOk = cm.clusterId.every((v, k) => v === k);
      ok &&= startsOk && cidOk;
      records.push({ name: 'countModules', size: digis, ms: cm.stats.elapsedMs, modules: cm.count, reference: reference.count, ok: startsOk && cidOk });
      if (!json) {
        io.out(`  countModules over ${digis} digis: ${cm.count} modules (reference ${reference.count}), sorted moduleStart ${startsOk ? 'matches' : 'DIFFERS'}, clusterId ${cidOk ? 'OK' : 'WRONG'}  ${cm.stats.elapsedMs.toFixed(2)} ms`);
        io.out(`    first module starts in schedule order: ${Array.from(cm.moduleStartRaw.slice(0, 8)).join(', ')} …`);
      }
      id.free();
    } finally {
      await dev.destroy();
    }
    if (json) io.out(JSON.stringify({ command: 'demo', backend, workers: dev.workers, ok, results: records }));
    else io.out(ok ? 'all results match their references' : 'SOME RESULTS DIFFER FROM THEIR REFERENCES');
    return ok ? 0 : 1;
  },
};
