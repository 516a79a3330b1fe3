// The race panel: explore a race job's schedules, chart the distinct outcomes, racecheck it and
// show the reports with the racing accesses highlighted.
import { KernelError, race } from 'simt';
import type { race as Race } from 'simt';
import { outcomeChart } from './chart.js';
import { $, el, fmtMs, Progress } from './ui.js';

type ExploreResult = Race.ExploreResult;
type RaceReport = Race.RaceReport;
type Outputs = Race.Outputs;

export function fillRaceJobs(select: HTMLSelectElement): void {
  const racy = el('optgroup', { label: 'racy (the corpus expects reports)' });
  const clean = el('optgroup', { label: 'race-free' });
  for (const j of race.corpus) {
    (j.racy ? racy : clean).append(el('option', { value: j.name, text: `${j.name}${j.seed ? ` (seed ${j.seed})` : ''}` }));
  }
  select.append(racy, clean);
}

export function describeJob(name: string): void {
  const j = race.findJob(name);
  $('race-summary').textContent = j ? `${j.summary}${j.note ? ` — ${j.note}` : ''}` : '';
}

export interface RaceRunOptions { strategy: 'random' | 'pct' | 'exhaustive'; schedules: number; seed: number }

export async function runRace(name: string, o: RaceRunOptions): Promise<void> {
  const section = $('race');
  section.dataset.state = 'running';
  delete section.dataset.result;
  $('race-chart').replaceChildren();
  $('race-outcomes').replaceChildren();
  $('race-reports').replaceChildren();
  $('race-verdict').textContent = '';
  const job = race.findJob(name);
  if (!job) throw new Error(`no race job named '${name}'`);
  if (!Number.isInteger(o.schedules) || o.schedules < 1) throw new RangeError(`schedules must be a positive integer, got ${o.schedules}`);
  const progress = new Progress($('race-progress') as HTMLProgressElement, $('race-status'));
  // Thread kernels run on this thread: onProgress yields so the bar repaints.
  await progress.set(`exploring ${o.schedules} ${o.strategy} schedules of ${name}…`, 0);
  // A kernel that traps (an index out of bounds) stops explore at its first run, as the device's
  // launch would; racecheck reports the index and lets the other threads run on.
  let ex: ExploreResult | undefined, trap: KernelError | undefined;
  try {
    ex = await race.explore(job, undefined, {
      strategy: o.strategy, schedules: o.schedules, seed: o.seed,
      onProgress: (done, total) => progress.set(`exploring: schedule ${done} of ${total}`, 0.8 * done / total),
    });
    renderOutcomes(ex);
  } catch (e) {
    if (!(e instanceof KernelError)) throw e;
    trap = e;
    $('race-outcomes').append(el('p', { class: 'verdict bad', 'data-testid': 'race-trap', text: `explore stopped: ${e.message}` }));
  }
  const rcSchedules = 4;
  await progress.set('racecheck…', 0.8);
  const rc = await race.racecheck(job, undefined, {
    schedules: rcSchedules, seed: o.seed,
    onProgress: (done, total) => progress.set(`racecheck: schedule ${done} of ${total}`, 0.8 + 0.2 * done / total),
  });
  const kinds = [...new Set(rc.reports.map((r) => r.kind))];
  const expectedFound = job.racy ? job.expect.some((k) => kinds.includes(k)) : rc.reports.length === 0;
  const v = $('race-verdict');
  v.className = `verdict ${expectedFound ? 'ok' : 'bad'}`;
  v.textContent = rc.reports.length === 0
    ? `No reports under ${rc.schedules.length} schedules${job.racy ? ' — but the corpus says this job is racy' : ': race-free, as the corpus says'}.`
    : `${rc.reports.length} report${rc.reports.length === 1 ? '' : 's'} (${kinds.join(', ')}) under ${rc.schedules.length} schedules` +
      (job.racy ? `; the corpus expects ${job.expect.join(' or ')}: ${expectedFound ? 'found' : 'NOT found'}.` : ' — but the corpus says this job is race-free.');
  renderReports(rc.reports, ex?.reference.outputs ?? {});
  section.dataset.result = JSON.stringify({
    job: name, strategy: o.strategy, runs: ex?.runs ?? 0, exhausted: ex?.exhausted ?? null, trap: trap?.message ?? null,
    outcomes: (ex?.outcomes ?? []).map((oc) => ({ count: oc.count, key: oc.key, differs: oc.differsFromReference })),
    reports: rc.reports.map((r) => ({ kind: r.kind, buffer: r.buffer ?? null, index: r.index ?? null, conflict: r.conflict ?? null })),
    expectedFound,
  });
  section.dataset.state = 'done';
  progress.done(`done: ${ex ? `${ex.runs} schedules in ${fmtMs(ex.ms)}, ${ex.outcomes.length} distinct outcome${ex.outcomes.length === 1 ? '' : 's'}` : 'explore stopped at a trap'}; racecheck in ${fmtMs(rc.ms)}`);
}

function short(o: Outputs, max = 90): string {
  const s = Object.keys(o).sort().map((k) => `${k}=[${Array.from(o[k]!, String).join(',')}]`).join(' ');
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function renderOutcomes(ex: ExploreResult): void {
  $('race-chart').append(outcomeChart(ex.outcomes.map((oc, k) => ({
    label: `#${k + 1}`, count: oc.count, highlight: oc.differsFromReference,
    title: `${oc.count} schedule(s): ${short(oc.outputs, 400)}\nreplay: ${oc.schedule.slice(0, 200)}`,
  })), ex.runs));
  const rows = ex.outcomes.map((oc, k) => el('tr', { class: oc.differsFromReference ? 'differs' : 'same' },
    el('td', { text: `#${k + 1}` }), el('td', { class: 'num', text: String(oc.count) }),
    el('td', { text: oc.differsFromReference ? 'differs from in-order' : 'as in-order' }),
    el('td', { class: 'mono', text: short(oc.outputs) }),
    el('td', {}, el('details', {}, el('summary', { text: 'schedule' }), el('code', { class: 'schedule', text: oc.schedule })))));
  $('race-outcomes').append(
    el('p', { class: 'muted', text: `${ex.runs} ${ex.strategy} schedules${ex.exhausted ? ' (every interleaving)' : ''}; reference: the in-order schedule (${ex.reference.steps} steps), output ${short(ex.reference.outputs, 60)}.` }),
    el('table', { class: 'outcomes' }, el('thead', {}, el('tr', {}, ...['outcome', 'schedules', '', 'outputs', 'replay'].map((h) => el('th', { text: h })))), el('tbody', {}, ...rows)));
}

const fmtThread = (t: { block: number[]; thread: number[] }): string => `block (${t.block.join(',')}) thread (${t.thread.join(',')})`;

function accessChip(label: string, a: RaceReport['first']): HTMLElement {
  if (!a) return el('span');
  const kind = 'access' in a ? a.access : 'thread';
  return el('span', { class: `access ${kind}`, 'data-testid': 'racing-access' },
    `${label}: ${kind}${'size' in a ? ` (${a.size} B)` : ''} by ${fmtThread(a)}`);
}

/** The buffer's cells around the racing element, that element highlighted. */
function bufferStrip(r: RaceReport, reference: Outputs): HTMLElement | undefined {
  if (r.index === undefined || r.space === 'shared') {
    if (r.offset !== undefined) return el('p', { class: 'mono', text: `shared memory, byte offset ${r.offset}${r.index !== undefined ? ` (element ${r.index})` : ''}` });
    return undefined;
  }
  const values = r.buffer !== undefined ? reference[r.buffer] : undefined;
  const len = values?.length ?? r.index + 1;
  const from = Math.max(0, Math.min(r.index - 8, len - 16));
  const to = Math.min(len, from + 16);
  const cells: HTMLElement[] = [];
  for (let k = from; k < Math.max(to, r.index + 1); k++) {
    const racing = k === r.index;
    cells.push(el('span', { class: `cell${racing ? ' racing' : ''}`, title: `${r.buffer ?? '?'}[${k}]`, 'data-testid': racing ? 'racing-cell' : undefined },
      el('small', { text: String(k) }), values && k < values.length ? String(values[k]) : '·'));
  }
  return el('div', { class: 'strip' }, el('span', { class: 'mono', text: `${r.buffer ?? '?'}: ` }), ...cells);
}

function renderReports(reports: RaceReport[], reference: Outputs): void {
  const box = $('race-reports');
  for (const r of reports) {
    const card = el('div', { class: `report ${r.kind}`, 'data-testid': 'report', 'data-kind': r.kind },
      el('div', {}, el('span', { class: 'badge', text: r.kind }), ' ',
        el('span', { class: 'mono', text: `${r.kernel}${r.buffer !== undefined ? ` · ${r.buffer}[${r.index ?? '?'}]` : ''}${r.conflict ? ` · ${r.conflict}` : ''}` })),
      el('p', { text: r.message }));
    const strip = bufferStrip(r, reference);
    if (strip) card.append(strip);
    if (r.first || r.second) card.append(el('div', { class: 'accesses' }, accessChip('first', r.first), accessChip('second', r.second)));
    if (r.schedules) card.append(el('details', {}, el('summary', { text: 'the two schedules' }), ...r.schedules.map((s) => el('code', { class: 'schedule', text: s }))));
    box.append(card);
  }
}
