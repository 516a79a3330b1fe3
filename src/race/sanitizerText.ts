// Racecheck's findings in compute-sanitizer's layout, so that a CUDA user reads them as they
// read `compute-sanitizer --tool racecheck`: one block per hazard ("Race reported between …
// and … [N hazards]"), both accesses with block, thread and source line, and a closing
// `RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)`. Notes (atomic-order
// output) are no hazards: they are printed, not counted.

import type { AccessRef, RaceReport, ThreadRef } from './reports.js';

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
