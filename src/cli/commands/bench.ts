// `simt bench [name] [--json]`: runs the benchmarks of bench/ (see bench/RESULTS.md).
import type { Command } from '../command.js';

export const bench: Command = {
  name: 'bench',
  summary: 'run the benchmarks (vecMax, countModules, launch latency, …) against baselines',
  usage: 'simt bench [name] [--json] [--quick]',
  async run(args, io) {
    const { runBenchmarks } = await import('../../../bench/run.js');
    return runBenchmarks({ only: args.positionals[0], json: !!args.options.json, quick: !!args.options.quick }, io);
  },
};
