// Benchmark runner (npm run bench / simt bench). Filled in by bench/*.bench.ts modules.
import type { CommandIO } from '../src/cli/command.js';

export interface BenchOptions { only?: string; json: boolean; quick: boolean }

export async function runBenchmarks(_opts: BenchOptions, io: CommandIO): Promise<number> {
  io.err('benchmarks not built yet');
  return 1;
}
