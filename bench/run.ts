// Benchmark runner (npm run bench / simt bench [name] [--json] [--quick]). Every
// bench/*.bench.ts module exports `suite: BenchSuite`; this finds them in the built tree.
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { cpus, totalmem } from 'node:os';
import type { CommandIO } from '../src/cli/command.js';
import type { BenchRecord, BenchSuite } from './harness.js';

export interface BenchOptions { only?: string; json: boolean; quick: boolean }

export async function loadSuites(): Promise<BenchSuite[]> {
  const dir = new URL('.', import.meta.url);
  const files = (await readdir(fileURLToPath(dir))).filter((f) => f.endsWith('.bench.js')).sort();
  const suites: BenchSuite[] = [];
  for (const f of files) {
    const m = (await import(new URL(f, dir).href)) as { suite?: BenchSuite };
    if (m.suite) suites.push(m.suite);
  }
  return suites;
}

export async function runBenchmarks(opts: BenchOptions, io: CommandIO): Promise<number> {
  const suites = (await loadSuites()).filter((s) => !opts.only || s.name === opts.only);
  if (suites.length === 0) {
    io.err(`no benchmark suite named '${opts.only}' (have: ${(await loadSuites()).map((s) => s.name).join(', ')})`);
    return 2;
  }
  if (!opts.json) io.out(`machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`);
  for (const s of suites) {
    if (!opts.json) io.out(`\n## ${s.name}: ${s.description}`);
    const records = await s.run({ quick: opts.quick, log: (l) => io.err(l) });
    for (const r of records) io.out(opts.json ? JSON.stringify({ suite: s.name, ...r }) : formatRecord(r));
  }
  return 0;
}

export function formatRecord(r: BenchRecord): string {
  const parts = [`${r.name.padEnd(22)} ${r.impl.padEnd(12)} n=${String(r.size).padEnd(10)}`];
  if (r.workers !== undefined) parts.push(`workers=${r.workers}`);
  for (const k of ['channels', 'grid', 'threads'] as const) if (r[k] !== undefined) parts.push(`${k}=${String(r[k])}`);
  parts.push(r.ms < 0.1 ? `${(r.ms * 1000).toFixed(2)} µs` : `${r.ms.toFixed(2)} ms`);
  if (r.gbps !== undefined) parts.push(`${r.gbps.toFixed(2)} GB/s`);
  else if (r.elementsPerSec !== undefined && r.size > 1) parts.push(`${(r.elementsPerSec / 1e6).toFixed(1)} M elem/s`);
  return parts.join('  ');
}

// `node dist/bench/run.js [name] [--json] [--quick]`
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const io: CommandIO = { out: (l) => process.stdout.write(l + '\n'), err: (l) => process.stderr.write(l + '\n'), tty: !!process.stdout.isTTY };
  process.exitCode = await runBenchmarks({ only: args.find((a) => !a.startsWith('--')), json: args.includes('--json'), quick: args.includes('--quick') }, io);
}
