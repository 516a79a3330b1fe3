// The kernel workbench: a kernel and its job in two editors; compile (in a worker), run on the
// wasm pool and on WebGPU side by side with the reference check, explore and racecheck with the
// racing lines highlighted in the editor; a gallery, share links and project downloads.
import { createDevice, defineJob, explore, npyBuffer, race, racecheck, replay, sharedMemoryProblem, type KernelModule } from 'simt';
import type { race as Race } from 'simt';
import { outcomeChart } from './chart.js';
import { compileInWorker, KernelDiagnosticsError } from './compileClient.js';
import { CodeEditor, type LineMark } from './editor.js';
import { GALLERY, STARTER, type GalleryEntry } from './gallery.js';
import { openGpu } from './gpu.js';
import { evaluateJob, JobTextError, type WorkbenchJob } from './job.js';
import { readNpyHeader } from 'simt/internal/io/npy.js';
import { compareOutputs, jobInputs, runOnDevice, TOLERANCE_NOTE, type Arrays, type Comparison } from './jobRun.js';
import { decodeShare, DEFAULT_EXPLORE, encodeShare, EXPLORE_STRATEGIES, projectFiles, tar, type ExploreSettings } from './share.js';
import { $, el, fmtMs, Progress } from './ui.js';

type RaceReport = Race.RaceReport;
type RaceJob = ReturnType<typeof defineJob>;

let kernelEditor: CodeEditor;
let jobEditor: CodeEditor;
let kernelPath = STARTER.path;
/** The .npy files dropped or picked, by name: what the job's file('name') reads. */
const inputFiles = new Map<string, Uint8Array>();
/** The last compile, valid while the kernel text is unchanged. */
let compiled: { text: string; module: KernelModule } | undefined;

const baseUrl = (): string => new URL('simt/', document.baseURI).href;

function setState(state: 'idle' | 'running' | 'done' | 'error', result?: unknown): void {
  const s = $('workbench');
  s.dataset.state = state;
  if (result === undefined) delete s.dataset.result;
  else s.dataset.result = JSON.stringify(result);
}

/** Loads a kernel and job into the editors. */
function load(e: Pick<GalleryEntry, 'path' | 'kernel' | 'job'>): void {
  kernelPath = e.path;
  kernelEditor.text = e.kernel;
  jobEditor.text = e.job;
  kernelEditor.setMarks([]);
  $('wb-path').textContent = e.path;
  compiled = undefined;
  // Results of another kernel would mislead: clear them.
  for (const id of ['wb-compile', 'wb-results', 'wb-race']) $(id).replaceChildren();
}

/**
 * A diagnostic as an editor mark, at its line and column: the compiler reports errors in the
 * code it generates at the user's line. One in another file (the compiler's own failure) goes
 * on line 1, naming where it was reported.
 */
function markOf(d: { file: string; line: number; column: number; message: string }): LineMark {
  if (d.file === kernelPath) return { line: d.line, column: d.column, message: d.message, severity: 'error' };
  return { line: 1, message: `${d.message} (reported in ${d.file}:${d.line})`, severity: 'error' };
}

async function compile(progress: Progress): Promise<KernelModule> {
  const text = kernelEditor.text;
  if (compiled && compiled.text === text) return compiled.module;
  const t0 = performance.now();
  const tick = setInterval(() => { $('wb-elapsed').textContent = fmtMs(performance.now() - t0); }, 100);
  try {
    const r = await compileInWorker([{ path: kernelPath, source: text }], baseUrl(), (stage, f) => { void progress.set(stage, f); });
    kernelEditor.setMarks([]);
    compiled = { text, module: r.module };
    const noWgsl = Object.entries(r.module.meta.wgsl ?? {}).filter(([, w]) => !w.source).map(([k]) => k);
    $('wb-compile').replaceChildren(el('span', { class: 'ok', 'data-testid': 'wb-compiled', text:
      `compiled ${Object.keys(r.module.kernels).join(', ')}: compiler loaded in ${fmtMs(r.loadMs)}, compiled in ${fmtMs(r.compileMs)}` +
      (noWgsl.length ? ` (no WGSL form for ${noWgsl.join(', ')}: WebGPU will not run them)` : '') }));
    return r.module;
  } catch (e) {
    if (e instanceof KernelDiagnosticsError) {
      const marks = e.diagnostics.map(markOf);
      kernelEditor.setMarks(marks);
      $('wb-compile').replaceChildren(el('ul', { class: 'diagnostics', 'data-testid': 'wb-diagnostics' },
        ...marks.map((m) => el('li', { 'data-line': String(m.line), text: `${kernelPath}:${m.line}: ${m.message}` }))));
    }
    throw e;
  } finally {
    clearInterval(tick);
  }
}

function job(module: KernelModule): WorkbenchJob {
  try {
    const j = evaluateJob(jobEditor.text, module, inputFiles);
    jobEditor.setMarks([]);
    return j;
  } catch (e) {
    if (e instanceof JobTextError) jobEditor.setMarks([{ line: 1, message: e.message, severity: 'error' }]);
    throw e;
  }
}

// --- run: wasm pool and WebGPU ---------------------------------------------------------------

const show = (a: ArrayLike<number | bigint>, max = 12): string => `[${Array.from(a).slice(0, max).map((v) => (typeof v === 'bigint' || Number.isInteger(v) ? String(v) : v.toPrecision(6))).join(', ')}${a.length > max ? `, … (${a.length})` : ''}]`;

function diffTable(c: Comparison, label: string): HTMLElement {
  return el('table', { class: 'diffs', 'data-testid': 'wb-diffs' },
    el('caption', { text: `${label}: ${c.differing} of ${c.compared} elements differ; the first:` }),
    el('thead', {}, el('tr', {}, ...['output', 'index', 'got', 'expected'].map((h) => el('th', { text: h })))),
    el('tbody', {}, ...c.first.map((d) => el('tr', { 'data-index': String(d.index) },
      el('td', { text: d.output }), el('td', { class: 'num', text: String(d.index) }), el('td', { class: 'value', text: String(d.got) }), el('td', { class: 'value', text: String(d.expected) })))));
}

async function run(): Promise<void> {
  setState('running');
  $('wb-results').replaceChildren();
  const progress = new Progress($('wb-progress') as HTMLProgressElement, $('workbench-status'));
  const module = await compile(progress);
  const j = job(module);
  const problem = sharedMemoryProblem();
  if (problem) throw new Error(`the wasm pool cannot run here: ${problem}`);
  await progress.set('running on the wasm pool…', 0.7);
  const dev = await createDevice({ backend: 'wasm', memoryBytes: 64 << 20, modules: [module] });
  let wasm;
  try { wasm = await runOnDevice(dev, j); } finally { await dev.destroy(); }

  await progress.set('running on WebGPU…', 0.85);
  const gpu = await openGpu();
  // Not run: no adapter, or a launched kernel the WGSL back end has no form for (its diagnostic says why, and where).
  // Failed: the WGSL ran and threw (a trap — a bounds check, a divergent barrier — as a KernelError); the wasm results stand.
  let webgpu: { outputs: Arrays; ms: number } | { unavailable: string; why: 'no-adapter' | 'no-wgsl'; short: string } | { failed: string };
  if (!gpu.ok) webgpu = { unavailable: gpu.reason, why: 'no-adapter', short: 'unavailable' };
  else {
    const missing = [...new Set(j.spec.launches.map((l) => String(typeof l.kernel === 'string' ? l.kernel : l.kernel.name)))].filter((k) => !module.meta.wgsl?.[k]?.source);
    if (missing.length) {
      const why = missing.map((k) => {
        const d = module.meta.wgsl?.[k]?.diagnostics?.[0];
        return d ? `${k} (${d.file}:${d.line}: ${d.message})` : k;
      });
      webgpu = { unavailable: `the WGSL back end has no form for ${why.join('; ')}`, why: 'no-wgsl', short: `no WGSL form for ${missing.join(', ')}` };
    } else {
      try {
        const g = await createDevice({ backend: 'webgpu', modules: [module] });
        try { webgpu = await runOnDevice(g, j); } finally { await g.destroy(); }
      } catch (e) {
        webgpu = { failed: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
      }
    }
  }

  const inputs = jobInputs(j.spec).data;
  const reference = j.reference ? j.reference(Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, typeof v === 'number' ? new Array(v).fill(0) : v]))) : undefined;
  const vsRef = reference ? compareOutputs(wasm.outputs, reference) : undefined;
  const gpuVsWasm = 'outputs' in webgpu ? compareOutputs(webgpu.outputs, wasm.outputs) : undefined;

  const rows = [
    el('tr', { 'data-testid': 'wb-row-wasm', class: vsRef && !vsRef.equal ? 'bad' : 'ok' }, el('td', { text: 'wasm pool' }), el('td', { class: 'num', text: fmtMs(wasm.ms) }),
      el('td', { class: 'value', text: Object.entries(wasm.outputs).map(([k, v]) => `${k} = ${show(v)}`).join('  ') }),
      el('td', { class: 'check', text: vsRef ? (vsRef.equal ? 'matches the reference' : `${vsRef.differing} differ from the reference`) : 'no reference' })),
    'outputs' in webgpu
      ? el('tr', { 'data-testid': 'wb-row-webgpu', class: gpuVsWasm!.equal ? 'ok' : 'bad' }, el('td', { text: 'WebGPU', title: gpu.ok ? gpu.description : '' }), el('td', { class: 'num', text: fmtMs(webgpu.ms) }),
        el('td', { class: 'value', text: Object.entries(webgpu.outputs).map(([k, v]) => `${k} = ${show(v)}`).join('  ') }),
        el('td', { class: 'check', text: gpuVsWasm!.equal ? 'agrees with the wasm pool' : `${gpuVsWasm!.differing} differ from the wasm pool` }))
      : 'failed' in webgpu
        ? el('tr', { 'data-testid': 'wb-row-webgpu', class: 'bad' }, el('td', { text: 'WebGPU' }), el('td', { text: '—' }), el('td', { class: 'value', text: `failed — ${webgpu.failed}` }), el('td', { class: 'check', text: 'failed where the wasm pool ran' }))
        : el('tr', { 'data-testid': 'wb-row-webgpu', class: 'unavailable' }, el('td', { text: 'WebGPU' }), el('td', { text: '—' }), el('td', { text: `unavailable — ${webgpu.unavailable}` }), el('td', { text: 'not run' })),
  ];
  const ok = (vsRef?.equal ?? true) && (gpuVsWasm?.equal ?? true) && !('failed' in webgpu);
  const verdict = `${!vsRef ? 'No reference given (add reference(inputs) to the job)' : vsRef.equal ? 'Cross-check passed: the wasm pool matches the reference' : 'Cross-check FAILED: the wasm pool differs from the reference'}; ` +
    `${gpuVsWasm ? (gpuVsWasm.equal ? 'WebGPU agrees with the wasm pool' : 'WebGPU DIFFERS from the wasm pool')
      : 'failed' in webgpu ? `WebGPU FAILED (${webgpu.failed.split(':')[0]})` : `WebGPU not run (${(webgpu as { short: string }).short})`} (${TOLERANCE_NOTE}).`;
  $('wb-results').append(
    el('table', { 'data-testid': 'wb-table' }, el('thead', {}, el('tr', {}, ...['backend', 'launches', 'outputs', 'check'].map((h) => el('th', { text: h })))), el('tbody', {}, ...rows)),
    el('p', { class: `verdict ${ok ? 'ok' : 'bad'}`, 'data-testid': 'wb-verdict', text: verdict }),
    ...(vsRef && !vsRef.equal ? [diffTable(vsRef, 'wasm pool vs reference')] : []),
    ...(gpuVsWasm && !gpuVsWasm.equal ? [diffTable(gpuVsWasm, 'WebGPU vs wasm pool')] : []));
  progress.done(`ran ${j.spec.launches.length} launch${j.spec.launches.length === 1 ? '' : 'es'}`);
  setState('done', {
    action: 'run', verdict: ok, wasm: Object.fromEntries(Object.entries(wasm.outputs).map(([k, v]) => [k, Array.from(v)])),
    reference: vsRef ? { equal: vsRef.equal, differing: vsRef.differing, first: vsRef.first } : null,
    webgpu: 'outputs' in webgpu
      ? { adapter: gpu.ok ? gpu.description : null, equal: gpuVsWasm!.equal, differing: gpuVsWasm!.differing, first: gpuVsWasm!.first, outputs: plainOutputs(webgpu.outputs) }
      : 'failed' in webgpu ? { failed: webgpu.failed } : { unavailable: webgpu.unavailable, why: webgpu.why },
  });
}

// --- input files --------------------------------------------------------------------------------

/**
 * Takes dropped or picked files: each that simt's npy reader reads becomes an input the job's
 * file('name') reads (a file of the same name replaces it); each other is a one-line error.
 */
async function addInputFiles(files: readonly File[]): Promise<void> {
  const errors: string[] = [];
  for (const f of files) {
    const bytes = new Uint8Array(await f.arrayBuffer());
    try {
      npyBuffer(bytes, { name: f.name });
      inputFiles.set(f.name, bytes);
    } catch (e) {
      errors.push(e instanceof Error ? e.message : String(e));
    }
  }
  showInputFiles(errors);
}

function showInputFiles(errors: string[] = []): void {
  $('wb-file-list').replaceChildren(...[...inputFiles].map(([name, bytes]) => {
    const [dtype] = npyBuffer(bytes, { name });
    const shape = readNpyHeader(bytes).shape;
    const remove = el('button', { type: 'button', class: 'secondary', text: 'remove', title: `forget ${name}` });
    remove.addEventListener('click', () => { inputFiles.delete(name); showInputFiles(); });
    return el('li', { 'data-testid': 'wb-file', 'data-name': name },
      el('code', { text: name }), ` — ${dtype}, shape (${shape.join(', ')}${shape.length === 1 ? ',' : ''}) `, remove);
  }));
  $('wb-file-errors').replaceChildren(...errors.map((m) => el('p', { class: 'verdict bad', 'data-testid': 'wb-file-error', text: m })));
}

function fileDropTarget(zone: HTMLElement, input: HTMLInputElement): void {
  const take = (files: FileList | null | undefined): void => {
    // data-loaded counts the batches taken (the end-to-end test waits on it).
    if (files?.length) void addInputFiles(Array.from(files)).finally(() => { zone.dataset.loaded = String(Number(zone.dataset.loaded ?? 0) + 1); });
  };
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => { e.preventDefault(); zone.classList.remove('over'); take(e.dataTransfer?.files); });
  input.addEventListener('change', () => { take(input.files); input.value = ''; });
}

// --- explore + racecheck -----------------------------------------------------------------------

/** The line of `file:line:column` when it is in the kernel being edited. */
function lineOf(location: string | undefined): number | undefined {
  const m = location ? /^(.*):(\d+):(\d+)$/.exec(location) : null;
  return m && m[1] === kernelPath ? Number(m[2]) : undefined;
}

function reportCard(r: RaceReport): HTMLElement {
  const accesses = [['first', r.first], ['second', r.second]] as const;
  return el('div', { class: `report ${r.kind}`, 'data-testid': 'wb-report', 'data-kind': r.kind },
    el('div', {}, el('span', { class: 'badge', text: r.kind }), ' ',
      el('span', { class: 'mono', text: `${r.kernel}${r.buffer !== undefined ? ` · ${r.buffer}[${r.index ?? '?'}]` : ''}${r.conflict ? ` · ${r.conflict}` : ''}` })),
    el('p', { text: r.message }),
    el('div', { class: 'accesses' }, ...accesses.filter(([, a]) => a).map(([label, a]) => {
      const line = lineOf(a!.location);
      const chip = el('button', { type: 'button', class: `access ${'access' in a! ? a.access : 'thread'}`, 'data-testid': 'wb-access', 'data-line': line,
        text: `${label}: ${'access' in a! ? a.access : 'thread'} by block (${a!.block.join(',')}) thread (${a!.thread.join(',')})${a!.location ? ` at line ${line ?? a!.location}` : ''}` });
      chip.addEventListener('click', () => { if (line) kernelEditor.setRaceLines([{ line, label: `${label} access of this ${r.kind}` }]); });
      return chip;
    })),
    ...(r.schedules ? [el('details', {}, el('summary', { text: 'replay strings' }), ...r.schedules.map((s) => el('code', { class: 'schedule', text: s })))] : []));
}

/** The explore form's fields: a bad one is a one-line error naming it. */
function exploreSettings(): ExploreSettings {
  const int = (id: string, name: string, min: number, max: number): number => {
    const text = ($(id) as HTMLInputElement).value;
    const v = Number(text);
    if (text.trim() === '' || !Number.isInteger(v) || v < min || v > max) throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
    return v;
  };
  const strategy = ($('wb-strategy') as HTMLSelectElement).value as ExploreSettings['strategy'];
  if (!EXPLORE_STRATEGIES.includes(strategy)) throw new RangeError(`strategy must be ${EXPLORE_STRATEGIES.join(', ')}, got ${JSON.stringify(strategy)}`);
  const schedules = int('wb-schedules', 'schedules', 1, 100_000);
  return { strategy, schedules, depth: int('wb-depth', 'PCT depth', 1, 1000), seed: int('wb-seed', 'first seed', 0, Number.MAX_SAFE_INTEGER - schedules) };
}

function showExploreSettings(s: ExploreSettings): void {
  ($('wb-strategy') as HTMLSelectElement).value = s.strategy;
  ($('wb-schedules') as HTMLInputElement).value = String(s.schedules);
  ($('wb-depth') as HTMLInputElement).value = String(s.depth);
  ($('wb-seed') as HTMLInputElement).value = String(s.seed);
  ($('wb-depth') as HTMLInputElement).disabled = s.strategy !== 'pct';
}

/** What ran: the strategy, its parameters, and for exhaustive whether every interleaving was enumerated. */
function exploreSummary(ex: Race.ExploreResult, s: ExploreSettings): string {
  const n = `${ex.runs} schedule${ex.runs === 1 ? '' : 's'}`;
  if (ex.strategy === 'exhaustive') {
    return ex.exhausted ? `exhaustive: ${n}, every interleaving — the space is exhausted`
      : `exhaustive: stopped after ${n} — the space is NOT exhausted (raise schedules to enumerate more)`;
  }
  const seeds = ex.runs > 1 ? `seeds ${s.seed}–${s.seed + ex.runs - 1}` : `seed ${s.seed}`;
  return ex.strategy === 'pct' ? `PCT, depth ${s.depth}: ${n} (${seeds})` : `random: ${n} (${seeds})`;
}

/** Runs an outcome's replay string again and shows whether it gives that outcome's outputs. */
async function replayOutcome(job: RaceJob, o: Race.Outcome, k: number, box: HTMLElement): Promise<void> {
  setState('running');
  const r = await replay(job, o.schedule);
  const same = race.outputKey(r.outputs) === o.key;
  box.replaceChildren(el('span', { class: `verdict ${same ? 'ok' : 'bad'}`, 'data-testid': 'wb-replayed', 'data-same': String(same),
    text: `replayed: ${Object.entries(r.outputs).map(([name, v]) => `${name} = ${show(v)}`).join('  ')} — ${same ? 'the same outputs as this outcome' : 'DIFFERENT outputs from this outcome'}` }));
  $('workbench-status').textContent = `replayed outcome #${k + 1}`;
  setState('done', { action: 'replay', outcome: k, same, outputs: plainOutputs(r.outputs) });
}

/** Outputs as JSON can hold them (64-bit integers as strings). */
const plainOutputs = (o: Record<string, ArrayLike<number | bigint>>): Record<string, (number | string)[]> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Array.from(v, (x) => (typeof x === 'bigint' ? String(x) : x))]));

async function raceTools(): Promise<void> {
  setState('running');
  $('wb-race').replaceChildren();
  kernelEditor.setRaceLines([]);
  const progress = new Progress($('wb-progress') as HTMLProgressElement, $('workbench-status'));
  const settings = exploreSettings();
  const module = await compile(progress);
  const j = job(module);
  const problem = sharedMemoryProblem();
  if (problem) throw new Error(`the race tools cannot run here: ${problem}`);
  const raceJob = defineJob(j.spec);
  const ex = await explore(raceJob, undefined, { strategy: settings.strategy, schedules: settings.schedules, depth: settings.depth, seed: settings.seed,
    onProgress: (d, t) => progress.set(`exploring (${settings.strategy}): schedule ${d} of ${t}`, 0.8 * d / t) });
  const rc = await racecheck(raceJob, undefined, { schedules: 4, seed: 1,
    onProgress: (d, t) => progress.set(`racecheck: schedule ${d} of ${t}`, 0.8 + 0.2 * d / t) });
  const lines = rc.reports.flatMap((r) => [r.first, r.second].map((a) => ({ line: lineOf(a?.location), label: `${r.kind} (${r.kernel})` })))
    .filter((l): l is { line: number; label: string } => l.line !== undefined);
  kernelEditor.setRaceLines(lines);
  const chart = outcomeChart(ex.outcomes.map((o, k) => ({ label: `#${k + 1}`, count: o.count, highlight: o.differsFromReference,
    title: `${o.count} schedule(s)\nreplay: ${o.schedule.slice(0, 200)}` })), ex.runs);
  chart.dataset.testid = 'wb-outcome-chart';
  const summary = exploreSummary(ex, settings);
  const outcomeItem = (o: Race.Outcome, k: number): HTMLElement => {
    const replayed = el('div', { class: 'replayed' });
    const button = el('button', { type: 'button', class: 'secondary', 'data-testid': 'wb-replay-btn', text: 'replay' });
    button.addEventListener('click', () => action('workbench', button, () => replayOutcome(raceJob, o, k, replayed)));
    return el('li', { 'data-testid': 'wb-outcome', 'data-differs': String(o.differsFromReference) },
      `#${k + 1}: ${o.count} schedule(s)${o.differsFromReference ? ', differs from in-order' : ''}: ${Object.entries(o.outputs).map(([name, v]) => `${name} = ${show(v, 8)}`).join('  ')} `,
      button, el('details', {}, el('summary', { text: 'replay string' }), el('code', { class: 'schedule', 'data-testid': 'wb-replay', text: o.schedule })), replayed);
  };
  $('wb-race').append(
    el('div', { class: 'two' },
      el('div', {}, el('h3', { text: `Distinct outcomes (${ex.outcomes.length})` }),
        el('p', { class: `muted${ex.strategy === 'exhaustive' && !ex.exhausted ? ' warn' : ''}`, 'data-testid': 'wb-explore-summary', 'data-strategy': ex.strategy, text: summary }),
        chart, el('ol', { class: 'replays' }, ...ex.outcomes.map(outcomeItem))),
      el('div', {}, el('h3', { text: 'Racecheck' }),
        el('p', { class: `verdict ${rc.reports.length ? 'bad' : 'ok'}`, 'data-testid': 'wb-race-verdict',
          text: rc.reports.length ? `${rc.reports.length} hazard${rc.reports.length === 1 ? '' : 's'} (${[...new Set(rc.reports.map((r) => r.kind))].join(', ')}); racing lines highlighted in the editor.` : `No hazards under ${rc.schedules.length} schedules.` }),
        ...rc.reports.map(reportCard))));
  progress.done(`explored ${summary} in ${fmtMs(ex.ms)}, racecheck in ${fmtMs(rc.ms)}`);
  setState('done', {
    action: 'race', strategy: ex.strategy, runs: ex.runs, exhausted: ex.exhausted ?? null, outcomes: ex.outcomes.map((o) => o.count),
    explored: ex.outcomes.map((o) => ({ count: o.count, differs: o.differsFromReference, schedule: o.schedule, outputs: plainOutputs(o.outputs) })),
    reports: rc.reports.map((r) => ({ kind: r.kind, lines: [lineOf(r.first?.location) ?? null, lineOf(r.second?.location) ?? null] })),
  });
}

// --- share and download ----------------------------------------------------------------------

async function share(): Promise<void> {
  const fragment = await encodeShare({ path: kernelPath, kernel: kernelEditor.text, job: jobEditor.text, explore: exploreSettings() });
  const url = new URL(location.href);
  url.hash = fragment;
  history.replaceState(null, '', url);
  const out = $('wb-share-url') as HTMLInputElement;
  out.value = url.href;
  out.hidden = false;
  out.select();
  await navigator.clipboard?.writeText(url.href).catch(() => undefined); // not granted everywhere: the field shows it
}

function download(): void {
  const files = projectFiles({ path: kernelPath, kernel: kernelEditor.text, job: jobEditor.text, explore: exploreSettings() }, inputFiles);
  const a = el('a', { download: files[0]!.name.split('/')[0] + '.tar' });
  a.href = URL.createObjectURL(new Blob([tar(files) as BlobPart], { type: 'application/x-tar' }));
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

// --- setup ---------------------------------------------------------------------------------------

type Action = (section: string, button: HTMLButtonElement, fn: () => Promise<void>) => void;
/** The page's action runner (errors shown, the button disabled while it runs). */
let action: Action;

export async function workbench(runAction: Action): Promise<void> {
  action = runAction;
  const stale = (): void => { compiled = undefined; };
  kernelEditor = new CodeEditor($('wb-kernel'), '', { testid: 'wb-kernel-editor', onChange: stale });
  jobEditor = new CodeEditor($('wb-job'), '', { testid: 'wb-job-editor' });
  const select = $('wb-gallery') as HTMLSelectElement;
  for (const g of [STARTER, ...GALLERY]) select.append(el('option', { value: g.id, text: g.title }));
  select.addEventListener('change', () => load([STARTER, ...GALLERY].find((g) => g.id === select.value)!));
  const problem = sharedMemoryProblem();
  if (problem) $('wb-isolation').replaceChildren(el('p', { class: 'verdict bad', 'data-testid': 'wb-isolation',
    text: `Without cross-origin isolation only the compiler works here: running, explore and racecheck need shared wasm memory. ${problem}` }));
  const btn = (id: string): HTMLButtonElement => $(id) as HTMLButtonElement;
  btn('wb-compile-btn').addEventListener('click', () => action('workbench', btn('wb-compile-btn'), async () => {
    setState('running');
    await compile(new Progress($('wb-progress') as HTMLProgressElement, $('workbench-status')));
    $('workbench-status').textContent = 'compiled';
    ($('wb-progress') as HTMLProgressElement).value = 1;
    setState('done', { action: 'compile', kernels: Object.keys(compiled!.module.kernels) });
  }));
  btn('wb-run').addEventListener('click', () => action('workbench', btn('wb-run'), run));
  btn('wb-race-btn').addEventListener('click', () => action('workbench', btn('wb-race-btn'), raceTools));
  fileDropTarget($('wb-files'), $('wb-file-input') as HTMLInputElement);
  $('wb-strategy').addEventListener('change', () => { ($('wb-depth') as HTMLInputElement).disabled = ($('wb-strategy') as HTMLSelectElement).value !== 'pct'; });
  btn('wb-share').addEventListener('click', () => action('workbench', btn('wb-share'), share));
  btn('wb-download').addEventListener('click', () => action('workbench', btn('wb-download'), async () => download()));

  const shared = await decodeShare(location.hash);
  if (shared) {
    load(shared);
    showExploreSettings(shared.explore ?? DEFAULT_EXPLORE);
    select.value = '';
    $('workbench-status').textContent = 'loaded the kernel and job of the link';
    $('workbench').dataset.shared = 'true';
  } else {
    load(STARTER);
    showExploreSettings(DEFAULT_EXPLORE);
  }
  $('workbench').dataset.ready = 'true';
}
