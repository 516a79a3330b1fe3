// The playground page: environment checks, then four panels (the kernel workbench, compute,
// race tools, examples).
// Every action reports its errors on the page (#errors) and in its panel's data-state.
import './style.css';
import { configureAssets, sharedMemoryProblem } from 'simt';
import { runCompute, type ComputeJob } from './compute.js';
import { openGpu } from './gpu.js';
import { describeJob, fillRaceJobs, runRace } from './race.js';
import { $, el, showError } from './ui.js';
import { workbench } from './workbench.js';

// simt is bundled into this page, so tell it where its run-time files are served: the wasm,
// the static data and meta, the WGSL sources and the unbundled worker script (vite.config.ts
// serves them under simt/).
configureAssets({ baseUrl: new URL('simt/', document.baseURI) });

window.addEventListener('error', (e) => showError('uncaught', e.error ?? e.message));
window.addEventListener('unhandledrejection', (e) => showError('unhandled rejection', e.reason));

/** Runs a panel's action with its button disabled; errors go to the page, never swallowed. */
function action(section: string, button: HTMLButtonElement, fn: () => Promise<void>): void {
  button.disabled = true;
  fn().catch((e) => {
    $(section).dataset.state = 'error';
    $(`${section}-status`).textContent = `error: ${e instanceof Error ? e.message : String(e)}`;
    showError(section, e);
  }).finally(() => { button.disabled = false; });
}

async function environment(): Promise<void> {
  const env = $('env');
  const items: [string, string, 'ok' | 'bad' | 'info'][] = [];
  const problem = sharedMemoryProblem();
  items.push(['cross-origin isolated', problem ? `no — ${problem}` : 'yes (SharedArrayBuffer available)', problem ? 'bad' : 'ok']);
  const waitAsync = typeof (Atomics as unknown as { waitAsync?: unknown }).waitAsync === 'function';
  items.push(['Atomics.waitAsync', waitAsync ? 'yes (the page awaits launches without blocking)' : 'missing', waitAsync ? 'ok' : 'bad']);
  items.push(['cores', String(navigator.hardwareConcurrency ?? 1), 'info']);
  env.replaceChildren(...items.flatMap(([k, v, c]) => [el('dt', { text: k }), el('dd', { class: c, text: v })]));
  const gpuDd = el('dd', { class: 'info', 'data-testid': 'webgpu-status', text: 'probing navigator.gpu…' });
  env.append(el('dt', { text: 'WebGPU' }), gpuDd);
  const gpu = await openGpu();
  gpuDd.className = gpu.ok ? 'ok' : 'unavailable';
  gpuDd.dataset.available = String(gpu.ok);
  gpuDd.textContent = gpu.ok ? `available: ${gpu.description}` : `unavailable — ${gpu.reason}. The wasm pool still runs; WebGPU columns say so.`;
  env.dataset.state = 'done';
}

function computePanel(): void {
  const form = $('compute-form') as HTMLFormElement;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const job = ($('compute-job') as HTMLSelectElement).value as ComputeJob;
    const n = Number(($('compute-size') as HTMLInputElement).value);
    const seed = Number(($('compute-seed') as HTMLInputElement).value);
    const reps = Number(($('compute-reps') as HTMLInputElement).value);
    action('compute', $('compute-run') as HTMLButtonElement, () => runCompute(job, n, seed, reps));
  });
}

function racePanel(): void {
  const select = $('race-job') as HTMLSelectElement;
  fillRaceJobs(select);
  select.value = 'lostUpdate';
  describeJob(select.value);
  select.addEventListener('change', () => describeJob(select.value));
  ($('race-form') as HTMLFormElement).addEventListener('submit', (e) => {
    e.preventDefault();
    const strategy = ($('race-strategy') as HTMLSelectElement).value as 'random' | 'pct' | 'exhaustive';
    const schedules = Number(($('race-schedules') as HTMLInputElement).value);
    const seed = Number(($('race-seed') as HTMLInputElement).value);
    action('race', $('race-run') as HTMLButtonElement, () => runRace(select.value, { strategy, schedules, seed }));
  });
}

interface Example { main(log: (line: string) => void): Promise<unknown>; description?: string }

function examplesPanel(): void {
  // The same files Node runs (test/examples.test.ts); `simt` resolves to this page's bundle.
  const modules = import.meta.glob<Example>('../../examples/*.js');
  const out = $('example-output');
  const section = $('examples');
  for (const [path, load] of Object.entries(modules).sort()) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    const button = el('button', { type: 'button', 'data-example': name, text: name });
    button.addEventListener('click', () => action('examples', button, async () => {
      section.dataset.state = 'running';
      section.dataset.example = name;
      delete section.dataset.result;
      out.textContent = `$ node examples/${name}\n`;
      const mod = await load();
      const result = await mod.main((line) => { out.textContent += `${line}\n`; });
      out.textContent += '(done)\n';
      section.dataset.result = JSON.stringify(result ?? null);
      section.dataset.state = 'done';
    }));
    $('example-buttons').append(button);
  }
}

// The examples panel has no status line of its own: give action() one.
$('examples').append(el('p', { id: 'examples-status', class: 'muted' }));

workbench(action).catch((e) => { $('workbench').dataset.state = 'error'; showError('workbench', e); });
computePanel();
racePanel();
examplesPanel();
environment().catch((e) => { $('env').dataset.state = 'error'; showError('environment', e); });
