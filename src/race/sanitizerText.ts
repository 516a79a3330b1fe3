// Racecheck's and memcheck's findings in compute-sanitizer's layout, so that a CUDA user reads
// them as they read `compute-sanitizer --tool racecheck` or `--tool memcheck`/`initcheck`.
// Racecheck: one block per hazard ("Race reported between … and … [N hazards]"), both accesses
// with block, thread and source line, and a closing `RACECHECK SUMMARY: N hazards displayed
// (E errors, W warnings)`; notes (atomic-order output) are no hazards: printed, not counted.
// Memcheck: one block per error ("Invalid __global__ read of size 4 bytes", "Uninitialized
// __shared__ memory read …") with the kernel and source line, the thread, the address and what
// is wrong with it, closed by `ERROR SUMMARY: N errors`.

import type { AccessRef, RaceReport, ThreadRef } from './reports.js';
import { hex, type MemcheckReport } from './memoryChecker.js';

const BAR = '=========';

export interface Summary { hazards: number; errors: number; warnings: number; notes: number }

export function summarize(reports: readonly RaceReport[]): Summary {
  let errors = 0, warnings = 0, notes = 0;
  for (const r of reports) {
    const s = severityOf(r);
    if (s === 'error') errors++; else if (s === 'warning') warnings++; else notes++;
  }
  return { hazards: errors + warnings, errors, warnings, notes };
}

/** A report's severity (reports made before severities existed count as errors, outputs as notes). */
export function severityOf(r: RaceReport): 'error' | 'warning' | 'note' {
  if (r.severity) return r.severity;
  return r.kind === 'schedule-dependent-output' || r.kind === 'atomic-order-output' ? 'note' : 'error';
}

export function summaryLine(s: Summary): string {
  const n = (k: number, one: string): string => `${k} ${one}${k === 1 ? '' : 's'}`;
  return `${BAR} RACECHECK SUMMARY: ${n(s.hazards, 'hazard')} displayed (${n(s.errors, 'error')}, ${n(s.warnings, 'warning')})`;
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const coords = (t: ThreadRef): string => `block (${t.block.join(',')}) thread (${t.thread.join(',')})`;
const at = (t: ThreadRef, kernel: string): string => (t.location ? `${t.location}` : `kernel ${kernel}`);

/** Where a report's address is, as a CUDA user names it. */
function place(r: RaceReport): string {
  if (r.space === 'shared') {
    const arr = r.buffer && r.buffer !== 'shared' ? `__shared__ ${r.buffer}[${r.index}] ` : '';
    return `${arr}(shared memory offset ${r.offset})`;
  }
  return `global '${r.buffer}' element ${r.index} (byte ${r.offset})`;
}

/** The lines of one report (each starting with the ========= bar). `replay` makes a replay command from a schedule. */
export function formatSanitizerReport(r: RaceReport, replay?: (schedule: string) => string): string[] {
  const sev = cap(severityOf(r));
  const out: string[] = [];
  if ((r.kind === 'data-race' || r.kind === 'warp-sync-hazard') && r.first && r.second) {
    const a = r.first as AccessRef, b = r.second as AccessRef;
    const count = r.count ?? 1;
    out.push(`${BAR} ${sev}: Race reported between ${cap(a.access)} access at ${at(a, r.kernel)} in ${coords(a)}`);
    out.push(`${BAR}     and ${cap(b.access)} access at ${at(b, r.kernel)} in ${coords(b)} [${count} hazard${count === 1 ? '' : 's'}]`);
    const level = r.kind === 'warp-sync-hazard' ? 'warp-level ' : '';
    const why = /\(([^()]*)\)$/.exec(r.message)?.[1];
    out.push(`${BAR}     ${level}${r.hazard ?? ''} hazard${r.atomic ? ' (atomic vs plain)' : ''} on ${place(r)} in kernel ${r.kernel}${why ? `: ${why}` : ''}`);
  } else if (r.kind === 'barrier-divergence') {
    out.push(`${BAR} ${sev}: Divergent __syncthreads in kernel ${r.kernel}: ${r.message}`);
    for (const t of [r.first, r.second]) if (t?.location) out.push(`${BAR}     ${coords(t)}: ${t.what ?? 'barrier'} at ${t.location}`);
  } else if (r.kind === 'warp-divergence') {
    const count = r.count ?? 1;
    out.push(`${BAR} ${sev}: Divergent warp operation in kernel ${r.kernel}: ${r.message}${count > 1 ? ` [${count} warps]` : ''}`);
    if (r.first?.location) out.push(`${BAR}     ${coords(r.first)}: ${r.first.what ?? 'warp operation'} at ${r.first.location}`);
  } else if (r.kind === 'out-of-bounds') {
    const a = r.first as AccessRef | undefined;
    const size = a && 'size' in a && a.size ? ` of size ${a.size} byte${a.size === 1 ? '' : 's'}` : '';
    out.push(`${BAR} ${sev}: Invalid ${r.space === 'shared' ? '__shared__' : '__global__'} ${a?.access ?? 'access'}${size} in kernel ${r.kernel}: ${r.message}`);
    if (a?.location) out.push(`${BAR}     at ${a.location} by ${coords(a)}`);
  } else {
    out.push(`${BAR} ${sev}: ${r.kind === 'atomic-order-output' ? 'Atomic-order output' : 'Schedule-dependent output'} of ${r.kernel}: ${r.message}`);
  }
  if (r.schedules && replay) for (const s of r.schedules) out.push(`${BAR}     replay: ${replay(s)}`);
  out.push(BAR);
  return out;
}

const bytes = (n: number): string => `${n} byte${n === 1 ? '' : 's'}`;

/** The lines of one memcheck error (each starting with the ========= bar). */
export function formatMemcheckReport(r: MemcheckReport): string[] {
  const space = r.space === 'shared' ? '__shared__' : '__global__';
  const arr = `${r.space === 'shared' ? '__shared__ ' : ''}'${r.array}'${r.buffer !== undefined && r.buffer !== r.array ? ` (buffer '${r.buffer}')` : ''}`;
  let address: string;
  if (r.kind === 'out-of-bounds') {
    const past = r.length === undefined ? '' : r.index < 0 ? `: ${bytes(-r.index * r.size)} before its start`
      : `: ${bytes((r.index - r.length) * r.size)} after its end`;
    address = `Address ${hex(r.address)} is out of bounds of ${arr} (${r.length === undefined ? '' : `length ${r.length}, `}index ${r.index})${past}`;
  } else if (r.kind === 'misaligned') {
    address = `Address ${hex(r.address)} is misaligned: not a multiple of ${r.size} (in ${arr}, index ${r.index})`;
  } else {
    address = `Address ${hex(r.address)} of ${arr} (index ${r.index}) ${r.space === 'shared' ? 'was not written by any thread of the block' : 'was never written'}`;
  }
  const out = [
    r.kind === 'uninitialized'
      ? `${BAR} Uninitialized ${space} memory ${r.access} of size ${bytes(r.size)}`
      : `${BAR} Invalid ${space} ${r.access} of size ${bytes(r.size)}`,
    `${BAR}     at ${r.kernel}${r.location ? ` (${r.location})` : ''}`,
    `${BAR}     by thread (${r.thread.join(',')}) in block (${r.block.join(',')})`,
    `${BAR}     ${address}`,
  ];
  if (r.count > 1) out.push(`${BAR}     ${r.count} accesses at this site (the first is shown)`);
  out.push(BAR);
  return out;
}

/** compute-sanitizer's closing line: every error displayed above (one per kind and source site). */
export function errorSummaryLine(errors: number): string {
  return `${BAR} ERROR SUMMARY: ${errors} error${errors === 1 ? '' : 's'}`;
}
