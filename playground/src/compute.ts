// The compute panel: generate a job's data, run it on the wasm pool (and a plain-JS reference)
// and on WebGPU, and cross-check the results.
import { createDevice, countModules, data, deviceMax, deviceSum, type Device } from 'simt';
import { gpuCountModules, gpuReduce, openGpu } from './gpu.js';
import { $, el, fmtMs, fmtRate, Progress } from './ui.js';

export type ComputeJob = 'vecMax' | 'vecSum' | 'countModules';

const N_MODULES = 1800;
const N_MAX_MODULES = 1856;
const MAX_SIZE = 64 * 1024 * 1024;

interface Row {
  backend: string;
  /** The shown result, and its exact form (data-value) for tests. */
  shown: string;
  exact: string;
  ms?: number;
  bytes?: number;
  check: string;
  status: 'ok' | 'bad' | 'unavailable' | 'info';
}

interface Difference { what: string; a: string; b: string; note: string }

let device: Device | undefined;

/** One wasm device, recreated when a job needs more memory than it has. */
async function wasmDevice(bytes: number): Promise<Device> {
  const need = Math.max(64 << 20, Math.ceil((bytes * 1.25 + (32 << 20)) / (64 << 20)) * (64 << 20));
  if (device && device.memoryBytes >= need) return device;
  await device?.destroy();
  device = undefined;
  device = await createDevice({ backend: 'wasm', memoryBytes: Math.min(need, 4096 * 1024 * 1024 - 65536) });
  return device;
}

const U53 = 2 ** -53;
const U24 = 2 ** -24;

export async function runCompute(job: ComputeJob, n: number, seed: number, reps: number): Promise<void> {
  const section = $('compute');
  const progress = new Progress($('compute-progress') as HTMLProgressElement, $('compute-status'));
  const tbody = $('compute-table').querySelector('tbody')!;
  tbody.replaceChildren();
  $('compute-verdict').textContent = '';
  $('compute-diffs').replaceChildren();
  section.dataset.state = 'running';
  delete section.dataset.result;
  if (!Number.isInteger(n) || n < 1 || n > MAX_SIZE) throw new RangeError(`size must be an integer in [1, ${MAX_SIZE}], got ${n}`);
  if (!Number.isInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
  const steps = 4;
  const rows: Row[] = [];
  const diffs: Difference[] = [];
  const addRow = (r: Row): void => {
    rows.push(r);
    tbody.append(el('tr', { class: r.status, 'data-backend': r.backend },
      el('td', { text: r.backend }),
      el('td', { class: 'value', 'data-testid': `value-${r.backend.split(' ')[0]}`, 'data-value': r.exact, text: r.shown }),
      el('td', { text: r.ms === undefined ? '—' : fmtMs(r.ms) }),
      el('td', { text: r.ms === undefined || r.bytes === undefined ? '—' : fmtRate(r.bytes, r.ms) }),
      el('td', { class: 'check', text: r.check })));
  };

  await progress.set(`generating ${n.toLocaleString()} ${job === 'countModules' ? 'module ids' : 'floats'} (seed ${seed})…`, 0);
  const gpuState = openGpu();
  const result: Record<string, unknown> = { job, n, seed };
  let verdictOk = true;
  const verdict: string[] = [];

  if (job === 'vecMax' || job === 'vecSum') {
    const A = data.randomF32(n, seed);
    await progress.set('plain-JS reference…', 1 / steps);
    const t0 = performance.now();
    let ref = job === 'vecMax' ? -Infinity : 0;
    let abs = 0;
    if (job === 'vecMax') { for (let i = 0; i < n; i++) if (A[i]! > ref) ref = A[i]!; }
    else for (let i = 0; i < n; i++) { ref += A[i]!; abs += Math.abs(A[i]!); }
    addRow({ backend: 'JS reference', shown: fmtValue(ref), exact: String(ref), ms: performance.now() - t0, bytes: 4 * n, check: job === 'vecMax' ? 'exact' : 'f64 in index order', status: 'info' });

    await progress.set(`wasm pool: ${reps} timed runs…`, 2 / steps);
    const dev = await wasmDevice(4 * n + 16 * Math.ceil(n / 1024));
    const Ad = await dev.upload('f32', A);
    let best = Infinity;
    let value = NaN;
    try {
      for (let r = 0; r < reps + 1; r++) { // run 0 warms the JIT tiers up
        const t = performance.now();
        const res = job === 'vecMax' ? await deviceMax(dev, Ad) : await deviceSum(dev, Ad);
        const ms = performance.now() - t;
        if (r > 0) best = Math.min(best, ms);
        value = res.value;
      }
    } finally {
      Ad.free();
    }
    const bound = job === 'vecSum' ? 2 * (n + Math.ceil(n / 1024)) * U53 * abs : 0;
    const wasmOk = job === 'vecMax' ? value === ref : Math.abs(value - ref) <= bound;
    verdictOk &&= wasmOk;
    addRow({
      backend: `wasm pool (${dev.workers} workers)`, shown: fmtValue(value), exact: String(value), ms: best, bytes: 4 * n,
      check: wasmOk ? (job === 'vecMax' ? '✓ equals reference' : `✓ |Δ| ≤ ${bound.toExponential(1)}`) : '✗ differs from reference', status: wasmOk ? 'ok' : 'bad',
    });
    if (!wasmOk || job === 'vecSum') diffs.push({ what: 'wasm − reference', a: String(value), b: String(ref), note: `|Δ| = ${Math.abs(value - ref).toExponential(3)}${job === 'vecSum' ? `, bound ${bound.toExponential(3)}` : ''}` });
    verdict.push(wasmOk ? 'wasm pool matches the reference' : 'wasm pool DIFFERS from the reference');
    result.wasm = value;
    result.reference = ref;
    result.workers = dev.workers;

    await progress.set('WebGPU…', 3 / steps);
    const gpu = await gpuState;
    if (!gpu.ok) {
      addRow({ backend: 'WebGPU', shown: 'unavailable', exact: '', check: gpu.reason, status: 'unavailable' });
      verdict.push('WebGPU not run (unavailable)');
      result.webgpu = { unavailable: gpu.reason };
    } else {
      const g = await gpuReduce(gpu.dev, job, A, reps);
      // vecSum on WebGPU: f32 with Kahan compensation per thread, tree in f32 (docs/webgpu.md).
      const gBound = job === 'vecSum' ? (Math.log2(256) + 6) * U24 * abs : 0;
      const gOk = job === 'vecMax' ? g.value === value : Math.abs(g.value - value) <= gBound + bound;
      verdictOk &&= gOk;
      addRow({
        backend: `WebGPU (${gpu.description})`, shown: fmtValue(g.value), exact: String(g.value), ms: g.ms, bytes: 4 * n,
        check: gOk ? (job === 'vecMax' ? '✓ equals wasm' : `✓ |Δ| ≤ ${(gBound + bound).toExponential(1)}`) : '✗ differs from wasm', status: gOk ? 'ok' : 'bad',
      });
      diffs.push({ what: 'WebGPU − wasm', a: String(g.value), b: String(value), note: `|Δ| = ${Math.abs(g.value - value).toExponential(3)}${job === 'vecSum' ? `, bound ${(gBound + bound).toExponential(3)}` : ''}` });
      verdict.push(gOk ? 'WebGPU agrees with the wasm pool' : 'WebGPU DISAGREES with the wasm pool');
      result.webgpu = g.value;
    }
  } else {
    const ids = data.moduleIdsForBench(n, N_MODULES, 0.01, seed);
    await progress.set('plain-JS reference…', 1 / steps);
    const t0 = performance.now();
    const ref = data.countModulesReference(ids, N_MAX_MODULES);
    const refSorted = Uint32Array.from(ref.sortedStarts);
    addRow({ backend: 'JS reference', shown: `${ref.count} modules`, exact: String(ref.count), ms: performance.now() - t0, bytes: 6 * n, check: 'sequential scan', status: 'info' });

    await progress.set(`wasm pool: ${reps} timed runs…`, 2 / steps);
    const dev = await wasmDevice(6 * n + 4 * N_MAX_MODULES + 1024);
    const idd = await dev.upload('u16', ids);
    let best = Infinity;
    let res!: Awaited<ReturnType<typeof countModules>>;
    try {
      for (let r = 0; r < reps + 1; r++) {
        const t = performance.now();
        res = await countModules(dev, idd, { nMaxModules: N_MAX_MODULES });
        const ms = performance.now() - t;
        if (r > 0) best = Math.min(best, ms);
      }
    } finally {
      idd.free();
    }
    const d1 = compareStarts(res.count, res.moduleStartSorted, ref.count, refSorted);
    const cidOk = res.clusterId.every((v, k) => v === k);
    const wasmOk = d1.length === 0 && cidOk;
    verdictOk &&= wasmOk;
    addRow({
      backend: `wasm pool (${dev.workers} workers)`, shown: `${res.count} modules`, exact: String(res.count), ms: best, bytes: 6 * n,
      check: wasmOk ? '✓ count, sorted moduleStart and clusterId match' : '✗ differs from reference', status: wasmOk ? 'ok' : 'bad',
    });
    for (const d of d1) diffs.push({ what: `wasm vs reference: ${d.what}`, a: d.a, b: d.b, note: '' });
    if (!cidOk) diffs.push({ what: 'wasm clusterId', a: 'clusterId[i] ≠ i somewhere', b: 'clusterId[i] = i', note: '' });
    verdict.push(wasmOk ? 'wasm pool matches the reference' : 'wasm pool DIFFERS from the reference');
    result.wasm = { count: res.count, firstStarts: Array.from(res.moduleStartSorted.slice(0, 8)) };
    result.reference = { count: ref.count };
    result.workers = dev.workers;
    // atomicInc hands out slots in the order threads reach it: the raw order is schedule dependent.
    result.rawOrderDiffersFromSorted = res.moduleStartRaw.some((v, k) => v !== res.moduleStartSorted[k]);

    await progress.set('WebGPU…', 3 / steps);
    const gpu = await gpuState;
    if (!gpu.ok) {
      addRow({ backend: 'WebGPU', shown: 'unavailable', exact: '', check: gpu.reason, status: 'unavailable' });
      verdict.push('WebGPU not run (unavailable)');
      result.webgpu = { unavailable: gpu.reason };
    } else {
      const g = await gpuCountModules(gpu.dev, ids, N_MAX_MODULES, reps);
      const d2 = compareStarts(g.count, g.sorted, res.count, res.moduleStartSorted);
      const gOk = d2.length === 0;
      verdictOk &&= gOk;
      addRow({
        backend: `WebGPU (${gpu.description})`, shown: `${g.count} modules`, exact: String(g.count), ms: g.ms, bytes: 6 * n,
        check: gOk ? '✓ count and sorted moduleStart equal wasm' : '✗ differs from wasm', status: gOk ? 'ok' : 'bad',
      });
      for (const d of d2) diffs.push({ what: `WebGPU vs wasm: ${d.what}`, a: d.a, b: d.b, note: '' });
      verdict.push(gOk ? 'WebGPU agrees with the wasm pool' : 'WebGPU DISAGREES with the wasm pool');
      result.webgpu = { count: g.count };
    }
  }

  const v = $('compute-verdict');
  v.className = `verdict ${verdictOk ? 'ok' : 'bad'}`;
  v.textContent = `${verdictOk ? 'Cross-check passed' : 'Cross-check FAILED'}: ${verdict.join('; ')}.`;
  renderDiffs(diffs);
  result.verdict = verdictOk;
  section.dataset.result = JSON.stringify(result);
  section.dataset.state = 'done';
  progress.done(`done: ${job} over ${n.toLocaleString()} elements`);
}

function renderDiffs(diffs: Difference[]): void {
  const box = $('compute-diffs');
  if (diffs.length === 0) { box.append(el('p', { class: 'muted', text: 'No differences.' })); return; }
  box.append(el('h3', { text: 'Differences' }), el('table', { class: 'diffs' },
    el('thead', {}, el('tr', {}, el('th', { text: 'what' }), el('th', { text: 'a' }), el('th', { text: 'b' }), el('th', { text: 'note' }))),
    el('tbody', {}, ...diffs.map((d) => el('tr', {}, el('td', { text: d.what }), el('td', { text: d.a }), el('td', { text: d.b }), el('td', { text: d.note }))))));
}

/** Differences between two (count, sorted starts): the count, then up to 10 differing slots. */
function compareStarts(countA: number, a: ArrayLike<number>, countB: number, b: ArrayLike<number>): { what: string; a: string; b: string }[] {
  const out: { what: string; a: string; b: string }[] = [];
  if (countA !== countB) out.push({ what: 'module count', a: String(countA), b: String(countB) });
  const n = Math.max(a.length, b.length);
  for (let k = 0; k < n && out.length < 11; k++) {
    if (a[k] !== b[k]) out.push({ what: `sorted moduleStart[${k}]`, a: String(a[k] ?? '—'), b: String(b[k] ?? '—') });
  }
  return out;
}

function fmtValue(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toPrecision(10);
}
