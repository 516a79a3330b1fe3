// The one output format of `simt bench` without --json: a table per suite, as tinybench prints
// it — name, impl, size, workers, median, spread (± the median absolute deviation, % of the
// median; where a suite records only min and max, ± half their range, marked "r"), samples,
// and GB/s where bytes apply, else elements/s.
import type { BenchRecord } from './harness.js';

const HEAD = ['name', 'impl', 'size', 'workers', 'median', 'spread', 'samples', 'throughput'];
/** Columns aligned right (numbers). */
const RIGHT = new Set([2, 3, 4, 5, 6, 7]);

export function formatTime(ms: number): string {
  if (ms < 0.1) return `${(ms * 1000).toFixed(2)} µs`;
  if (ms < 1000) return `${ms.toFixed(2)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

function formatSize(n: number): string {
  return n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1 << 20 && n % (1 << 20) === 0 ? `${n / (1 << 20)}Mi` : String(n);
}

/** ± the median absolute deviation as a percentage of the median (else ± half the min–max range, "r"), or '—'. */
export function formatSpread(r: BenchRecord): string {
  if (!(r.ms > 0)) return '—';
  if (r.msMad !== undefined) return `±${((100 * r.msMad) / r.ms).toFixed(1)}%`;
  if (r.msMin === undefined || r.msMax === undefined) return '—';
  return `±${((100 * (r.msMax - r.msMin)) / 2 / r.ms).toFixed(1)}% r`;
}

function rate(x: number, unit: string): string {
  if (x >= 1e9) return `${(x / 1e9).toFixed(2)} G ${unit}`;
  if (x >= 1e6) return `${(x / 1e6).toFixed(1)} M ${unit}`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)} k ${unit}`;
  return `${x.toFixed(1)} ${unit}`;
}

export function formatThroughput(r: BenchRecord): string {
  if (r.gbps !== undefined) return `${r.gbps.toFixed(2)} GB/s`;
  if (r.elementsPerSec !== undefined && r.size > 1) return rate(r.elementsPerSec, 'elem/s');
  if (r.ms > 0) return rate(1000 / r.ms, 'runs/s');
  return '—';
}

/** The rows of a table (header, rule, one row per record), columns padded to fit. */
export function formatTable(records: readonly BenchRecord[]): string[] {
  const rows = records.map((r) => [
    r.name, r.impl, formatSize(r.size), r.workers === undefined ? '—' : String(r.workers), formatTime(r.ms), formatSpread(r),
    r.samples === undefined ? '—' : String(r.samples), formatThroughput(r),
  ]);
  const widths = HEAD.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  const line = (cells: string[]): string => cells.map((x, c) => (RIGHT.has(c) ? x.padStart(widths[c]!) : x.padEnd(widths[c]!))).join('  ').trimEnd();
  return [line(HEAD), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}
