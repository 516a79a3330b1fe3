// `simt bench [suite] [--quick] [--workers N[,N…]] [--json]`: runs the benchmarks of bench/
// (see bench/RESULTS.md) against plain JS and native C baselines.
import type { Command } from '../command.js';
import { UsageError, flagName, intOption, stringOption } from '../args.js';
import { opt } from '../options.js';

/** `--workers 4` or `--workers 1,2,4,8`: each an integer in [1, 256]. */
export function workerList(o: Record<string, string | true>): number[] | undefined {
  const v = stringOption(o, 'workers');
  if (v === undefined) return undefined;
  const parts = v.split(',').map((x) => x.trim());
  const counts = parts.map(Number);
  if (parts.some((x, k) => x === '' || !Number.isInteger(counts[k]) || counts[k]! < 1 || counts[k]! > 256)) {
    throw new UsageError(`${flagName(o, 'workers')} needs N or a list N,N,… of integers in [1, 256], got ${v}`);
  }
  return counts;
}

/** `--kernels a,b`: names, none empty. */
function kernelList(o: Record<string, string | true>): { kernels?: string[] } {
  const v = stringOption(o, 'kernels');
  if (v === undefined) return {};
  const names = v.split(',').map((x) => x.trim());
  if (names.some((x) => x === '')) throw new UsageError(`${flagName(o, 'kernels')} needs NAME or a list NAME,NAME,…, got '${v}'`);
  return { kernels: names };
}

export const bench: Command = {
  name: 'bench',
  summary: 'run the benchmarks (vecMax, countModules, launch latency, …) against JS and native C baselines',
  usage: 'simt bench [suite] [--quick] [--workers N[,N…]] [--warmup-ms MS] [--kernels NAME[,NAME…]] [--json] [--quiet] | simt bench --list',
  options: [
    { name: 'quick', description: 'smaller sizes and fewer runs (a smoke run; the suite headers name the sizes)' },
    { name: 'workers', value: 'N[,N…]', default: 'all cores', description: 'simt workers and native C threads; a list runs one pass per count (a scaling curve)' },
    { name: 'warmup-ms', value: 'MS', default: '1000; 0 with --quick', description: 'untimed runs before each measurement, for at least MS ms: V8 optimises a kernel on background threads after it has run a while' },
    { name: 'kernels', value: 'NAME[,NAME…]', description: 'the specializations suite: measure only these kernels' },
    { name: 'list', description: 'list the suites' },
    opt.json('JSON Lines: one record per line, { suite, quick, name, impl, size, ms, msMin, msMax, samples, workers, gbps?, elementsPerSec, … }'),
    opt.quiet(),
  ],
  examples: ['simt bench core --quick', 'simt bench core --workers 1,2,4,8 --json > scaling.jsonl'],
  details: 'Each suite prints one table: name, impl, size, workers, median, spread (± half the min–max range), samples,\n' +
    'GB/s or elements/s. Progress and notes go to stderr.',
  jobNames: async () => (await import('../../../bench/run.js').then((m) => m.loadSuites())).map((s) => s.name),
  jobList: 'simt bench --list',
  async run(args, io) {
    const { runBenchmarks, loadSuites } = await import('../../../bench/run.js');
    if (args.options.list) {
      for (const s of await loadSuites()) io.out(`  ${s.name.padEnd(14)} ${s.description}`);
      return 0;
    }
    if (args.positionals.length > 1) throw new UsageError(`one suite at a time, got ${args.positionals.join(' ')}`);
    if (args.options.kernels !== undefined && args.positionals[0] !== 'specializations') {
      throw new UsageError(`${flagName(args.options, 'kernels')} applies to the specializations suite only: simt bench specializations --kernels NAME[,NAME…]`);
    }
    return runBenchmarks({
      only: args.positionals[0], json: !!args.options.json, quick: !!args.options.quick, workers: workerList(args.options),
      ...(args.options['warmup-ms'] !== undefined ? { warmupMs: intOption(args.options, 'warmup-ms', 0, { min: 0, max: 600_000 }) } : {}),
      quiet: !!args.options.quiet, statusLine: !!process.stderr.isTTY, ...kernelList(args.options),
    }, io);
  },
};
