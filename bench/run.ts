// Benchmark runner (npm run bench / simt bench [suite] [--json] [--quick] [--workers N[,N…]]).
// Every bench/*.bench.ts module exports `suite: BenchSuite`; this finds them in the built tree,
// runs them (once per worker count), and prints each suite once: a table by default, one JSON
// record per line with --json. Progress and notes go to stderr.
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { cpus, totalmem } from 'node:os';
import type { CommandIO } from '../src/cli/command.js';
import { defaultWorkerCount, setDefaultWorkerCount } from '../src/platform.js';
import { DEFAULT_WARMUP_MS, onMeasure, setWarmupMs, type BenchSuite } from './harness.js';
import { formatTable } from './table.js';

export interface BenchOptions {
  only?: string;
  json: boolean;
  quick: boolean;
  /** One pass per count (simt workers = native C threads); default one pass at all cores. */
  workers?: readonly number[];
  /** No progress or notes on stderr. */
  quiet?: boolean;
  /** Draw progress as one rewritten status line (stderr is a terminal). */
  statusLine?: boolean;
  /** Suites that measure kernel by kernel (specializations) measure only these. */
  kernels?: readonly string[];
  /** Untimed warm-up of each measurement, ms (default DEFAULT_WARMUP_MS, 0 with quick). */
  warmupMs?: number;
}

export async function loadSuites(): Promise<BenchSuite[]> {
  const dir = new URL('.', import.meta.url);
  // The built tree has <name>.bench.js; the sources (run by vitest) <name>.bench.ts.
  const files = (await readdir(fileURLToPath(dir))).filter((f) => f.endsWith('.bench.js') || (f.endsWith('.bench.ts') && !f.endsWith('.d.ts'))).sort();
  const suites: BenchSuite[] = [];
  for (const f of files) {
    const m = (await import(new URL(f, dir).href)) as { suite?: BenchSuite };
    if (m.suite) suites.push(m.suite);
  }
  return suites;
}

/** Progress on stderr: a status line rewritten in place on a terminal, else one line per step. */
function progressWriter(io: CommandIO, opts: BenchOptions): { show(suite: string, step: string): void; clear(): void } {
  if (opts.quiet) return { show() {}, clear() {} };
  let shown = false;
  return {
    show(suite, step) {
      if (opts.statusLine) { process.stderr.write(`\r\x1b[2K[${suite}] ${step} …`); shown = true; }
      else io.err(`[${suite}] ${step} …`);
    },
    clear() { if (shown) { process.stderr.write('\r\x1b[2K'); shown = false; } },
  };
}

export async function runBenchmarks(opts: BenchOptions, io: CommandIO): Promise<number> {
  const all = await loadSuites();
  const suites = all.filter((s) => !opts.only || s.name === opts.only);
  if (suites.length === 0) {
    io.err(`no benchmark suite named '${opts.only}' (have: ${all.map((s) => s.name).join(', ')})`);
    return 2;
  }
  const counts = opts.workers && opts.workers.length > 0 ? opts.workers : [await defaultWorkerCount()];
  const chosen = !!opts.workers && opts.workers.length > 0;
  const warmupMs = opts.warmupMs ?? (opts.quick ? 0 : DEFAULT_WARMUP_MS);
  if (!opts.json) {
    io.out(`machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`);
    io.out(`workers: ${counts.join(', ')} (native C baselines run with the same thread count)${opts.quick ? '; --quick: smaller sizes' : ''}; warm-up ${warmupMs} ms a measurement`);
  }
  const status = progressWriter(io, opts);
  setWarmupMs(warmupMs);
  try {
    for (const workers of counts) {
      // Devices a suite opens without naming workers (and defaultWorkerCount) get this count too.
      setDefaultWorkerCount(chosen ? workers : undefined);
      for (const s of suites) {
        onMeasure((step) => status.show(s.name, step));
        const t0 = performance.now();
        const records = await s.run({
          quick: opts.quick, workers, workersChosen: chosen, warmupMs, ...(opts.kernels ? { kernels: opts.kernels } : {}),
          log: (l) => { status.clear(); if (!opts.quiet) io.err(l); },
        });
        status.clear();
        const header = opts.quick ? (s.quickDescription ?? s.description) : s.description;
        if (opts.json) for (const r of records) io.out(JSON.stringify({ suite: s.name, quick: opts.quick, ...r }));
        else {
          io.out(`\n## ${s.name}: ${header}${counts.length > 1 ? ` — pass with ${workers} workers` : ''} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
          for (const line of formatTable(records)) io.out(line);
        }
      }
    }
  } finally {
    onMeasure(undefined);
    setWarmupMs(0);
    setDefaultWorkerCount(undefined);
    status.clear();
  }
  return 0;
}

// `node dist/bench/run.js …` (npm run bench): the same as `simt bench …`. Not awaited at the
// top level: the CLI imports this module back (its bench command), and a top-level await here
// would leave that import waiting on this module forever (Node exits 13, printing nothing).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  void import('../src/cli/main.js').then(async ({ main }) => { process.exitCode = await main(['bench', ...process.argv.slice(2)]); });
}
