// End-to-end: the playground's kernel workbench in headless Chromium (the harness of
// browser-playground.test.ts: the page built with Vite, served with COOP/COEP on 127.0.0.1,
// driven through playwright-core). A kernel is typed into the editor, compiled in the page's
// worker, run, race-checked (a planted race reported at its line, that line highlighted), explored
// with PCT and exhaustively (replay strings reproducing outcomes), fed .npy files dropped on the
// page, shared by link and downloaded as a project that Node's race tools run to the same results.
// A second Chromium with a SwiftShader WebGPU adapter runs the WebGPU column for real.
// Screenshots go to artifacts/ (git-ignored).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { compileKernelFiles, explore, racecheck, replay, writeNpy } from '../dist/src/index.js';
import { loadJobFile } from '../dist/src/race/jobFile.js';
import { serveStatic, type StaticServer } from './support/static-server.js';
import { rng } from './helpers.js';

const CHROMIUM = process.env.SIMT_CHROMIUM ?? '/usr/bin/chromium';
const ROOT = resolve(import.meta.dirname, '..');
const ARTIFACTS = join(ROOT, 'artifacts');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let outDir = '';
let tmp = '';
let server: StaticServer | undefined;
let browser: Browser | undefined;
let page: Page;
const pageErrors: string[] = [];

let setupError: unknown;
beforeEach(() => { if (setupError !== undefined) throw setupError; });

beforeAll(async () => {
  try {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (scripts/ci-webgpu-setup.sh installs it; SIMT_CHROMIUM names another binary)`);
    outDir = mkdtempSync(join(tmpdir(), 'simt-workbench-'));
    tmp = mkdtempSync(join(tmpdir(), 'simt-workbench-files-'));
    await build({ configFile: join(ROOT, 'playground/vite.config.ts'), configLoader: 'runner', logLevel: 'error', build: { outDir, emptyOutDir: true } });
    server = await serveStatic(outDir);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60_000 });
    page = await openPage(server.url);
    mkdirSync(ARTIFACTS, { recursive: true });
  } catch (e) {
    setupError = e;
  }
}, 180_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await server?.close();
  for (const d of [outDir, tmp]) if (d) rmSync(d, { recursive: true, force: true });
}, 60_000);

async function openPage(url: string, on: Browser = browser!): Promise<Page> {
  const p = await on.newPage({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true });
  p.setDefaultTimeout(60_000);
  p.on('pageerror', (e) => pageErrors.push(String(e)));
  await p.goto(url);
  await p.waitForSelector('[data-testid=workbench][data-ready=true]');
  return p;
}

/** Replaces an editor's text by typing it (select all, then the text as keyboard input). */
async function typeInto(p: Page, testid: string, text: string): Promise<void> {
  await p.click(`[data-testid=${testid}] .cm-content`);
  await p.keyboard.press('Control+A');
  await p.keyboard.press('Delete');
  await p.keyboard.insertText(text);
}

const editorText = (p: Page, testid: string): Promise<string> =>
  p.$eval(`[data-testid=${testid}] .cm-content`, (e) => Array.from(e.querySelectorAll('.cm-line'), (l) => l.textContent).join('\n'));

/** Clicks a workbench button and waits for the panel to finish; returns its result (or throws its error). */
async function act(p: Page, button: string, timeout = 120_000): Promise<Record<string, any>> {
  await p.click(`[data-testid=${button}]`);
  await p.waitForFunction(() => {
    const s = document.querySelector('[data-testid=workbench]')?.getAttribute('data-state');
    return s === 'done' || s === 'error';
  }, undefined, { timeout });
  if (await p.getAttribute('[data-testid=workbench]', 'data-state') === 'error') {
    const errors = await p.locator('[data-testid=error]').allTextContents();
    throw new Error(`the workbench reported an error: ${errors.join(' | ')} / ${await p.textContent('[data-testid=wb-status]')}`);
  }
  return JSON.parse((await p.getAttribute('[data-testid=workbench]', 'data-result'))!);
}

const MY_KERNEL = `import { threadIdx, blockIdx, blockDim } from "simt/kernel";

export function saxpy(x: f32[], y: f32[], a: f32, n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
`;
const MY_JOB = `export default (module) => ({
  name: 'saxpy', module,
  buffers: { x: ['f32', gen.ramp(300)], y: ['f32', gen.constant(300, 1)] },
  launches: [{ kernel: 'saxpy', grid: 3, block: 128, args: { x: 'x', y: 'y', a: 2, n: 300 } }],
  outputs: ['y'],
  reference: ({ x, y }) => ({ y: Array.from(x, (v, i) => 2 * v + y[i]) }),
});
`;
/** The line of the planted race in the workbench's starter kernel (playground/src/gallery.ts). */
const RACY_LINE = 'total[blockIdx.x] += x[i];';
/** Its report: a data race, or — both threads in one warp — a warp-synchronous hazard. */
const RACE_KINDS = /^(data-race|warp-sync-hazard)$/;

describe('kernel workbench in headless Chromium', () => {
  it('compiles a typed kernel in a worker and runs it on the wasm pool: the reference check passes', async () => {
    await typeInto(page, 'wb-kernel-editor', MY_KERNEL);
    await typeInto(page, 'wb-job-editor', MY_JOB);
    expect(await editorText(page, 'wb-kernel-editor')).toContain('export function saxpy');
    const compiled = await act(page, 'wb-compile');
    expect(compiled).toEqual({ action: 'compile', kernels: ['saxpy'] });
    expect(await page.textContent('[data-testid=wb-compiled]')).toMatch(/^compiled saxpy: compiler loaded in .* compiled in /);
    const ran = await act(page, 'wb-run');
    expect(ran.verdict).toBe(true);
    expect(ran.reference).toMatchObject({ equal: true, differing: 0 });
    expect(ran.wasm.y.slice(0, 4)).toEqual([1, 3, 5, 7]);
    expect(await page.textContent('[data-testid=wb-verdict]')).toMatch(/^Cross-check passed: the wasm pool matches the reference; WebGPU not run \(unavailable\)/);
    expect(await page.textContent('[data-testid=wb-row-webgpu]')).toContain('unavailable');
  }, 180_000);

  it('a wrong reference shows the first differing elements', async () => {
    await typeInto(page, 'wb-job-editor', MY_JOB.replace('2 * v + y[i]', '2 * v + y[i] + (i === 5 ? 1 : 0)'));
    const ran = await act(page, 'wb-run');
    expect(ran.verdict).toBe(false);
    expect(ran.reference.differing).toBe(1);
    expect(ran.reference.first).toEqual([{ output: 'y', index: 5, got: 11, expected: 12 }]);
    expect(await page.locator('[data-testid=wb-diffs] tbody tr').count()).toBe(1);
    expect(await page.textContent('[data-testid=wb-verdict]')).toMatch(/^Cross-check FAILED/);
  }, 120_000);

  // Each is an error that AssemblyScript finds in the code simt generates from the kernel: the
  // compiler reports it at the user's line, where the editor shows it (the page maps nothing).
  const BROKEN: { what: string; kernel: string; name: string }[] = [
    { what: 'in a statement', name: 'undefinedThing', kernel: MY_KERNEL.replace('if (i < n)', 'const q: i32 = undefinedThing;\n  if (i < n)') },
    { what: 'in a module-level const', name: 'undefinedScale', kernel: MY_KERNEL.replace('export function', 'const SCALE: f32 = undefinedScale;\n\nexport function') },
    { what: 'on the last line of a statement over three', name: 'undefinedTerm', kernel: MY_KERNEL.replace('a * x[i] + y[i];', 'a * x[i] +\n    y[i] +\n    undefinedTerm;') },
  ];
  for (const [k, b] of BROKEN.entries()) {
    it(`a compile error ${b.what} is a marker at its line in the editor`, async () => {
      await typeInto(page, 'wb-kernel-editor', b.kernel);
      await page.click('[data-testid=wb-compile]');
      await page.waitForSelector('[data-testid=workbench][data-state=error]');
      const lines = b.kernel.split('\n');
      const line = lines.findIndex((l) => l.includes(b.name)) + 1;
      const items = page.locator('[data-testid=wb-diagnostics] li');
      expect(await items.count()).toBeGreaterThan(0);
      expect(await items.first().getAttribute('data-line')).toBe(String(line));
      expect(await items.first().textContent()).toContain(`mine.ts:${line}: Cannot find name '${b.name}'`);
      // The lint gutter's error marker sits on that line, and the underline starts at the name.
      const markerLines = await page.$$eval('[data-testid=wb-kernel-editor] .cm-lint-marker-error', (ms) => ms.map((m) => m.getBoundingClientRect().top));
      const lineTop = await page.$eval('[data-testid=wb-kernel-editor] .cm-content', (c, n) => c.querySelectorAll('.cm-line')[n - 1]!.getBoundingClientRect().top, line);
      expect(markerLines.some((t) => Math.abs(t - lineTop) < 6)).toBe(true);
      expect(await page.textContent('[data-testid=wb-kernel-editor] .cm-lintRange-error')).toBe(lines[line - 1]!.slice(lines[line - 1]!.indexOf(b.name)));
      if (k === 0) await page.screenshot({ path: join(ARTIFACTS, 'workbench-compile-error.png'), fullPage: true });
    }, 120_000);
  }

  it('the planted race is reported at its line, highlighted in the editor, with the outcomes chart and replay strings', async () => {
    await page.selectOption('[data-testid=wb-gallery]', 'starter');
    const kernel = await editorText(page, 'wb-kernel-editor');
    const line = kernel.split('\n').findIndex((l) => l.includes(RACY_LINE)) + 1;
    expect(line).toBeGreaterThan(0);
    const r = await act(page, 'wb-race');
    expect(r.runs).toBe(20);
    expect(r.reports.length).toBeGreaterThan(0);
    expect(r.reports[0].kind).toMatch(RACE_KINDS);
    expect(r.reports[0].lines).toEqual([line, line]);
    expect(await page.locator('[data-testid=wb-report]').count()).toBe(r.reports.length);
    expect(await page.getAttribute(`[data-testid=wb-kernel-editor] .cm-race-line`, 'data-race-line')).toBe(String(line));
    expect(await page.$eval('[data-testid=wb-kernel-editor] .cm-race-line', (e) => e.textContent)).toContain(RACY_LINE);
    expect(await page.locator('[data-testid=wb-outcome-chart] g.bar').count()).toBe(r.outcomes.length);
    expect(r.outcomes.reduce((a: number, b: number) => a + b, 0)).toBe(20);
    expect(await page.locator('[data-testid=wb-replay]').count()).toBe(r.outcomes.length);
    await page.screenshot({ path: join(ARTIFACTS, 'workbench-race.png'), fullPage: true });
  }, 180_000);

  it('explore with PCT finds the planted race\'s lost update; its replay string reproduces it in the page and in Node', async () => {
    await page.selectOption('[data-testid=wb-gallery]', 'starter');
    expect(await page.isDisabled('[data-testid=wb-depth]')).toBe(true);
    await page.selectOption('[data-testid=wb-strategy]', 'pct');
    expect(await page.isEnabled('[data-testid=wb-depth]')).toBe(true);
    await page.fill('[data-testid=wb-schedules]', '20');
    await page.fill('[data-testid=wb-depth]', '3');
    await page.fill('[data-testid=wb-seed]', '1');
    const r = await act(page, 'wb-race');
    expect(r).toMatchObject({ strategy: 'pct', runs: 20, exhausted: null });
    expect(await page.textContent('[data-testid=wb-explore-summary]')).toBe('PCT, depth 3: 20 schedules (seeds 1–20)');
    // In order, every thread adds 1: [64, 64]. A lost update leaves a block's total short.
    const k = r.explored.findIndex((o: { differs: boolean }) => o.differs);
    expect(k, JSON.stringify(r.explored.map((o: { outputs: unknown }) => o.outputs))).toBeGreaterThanOrEqual(0);
    const lost = r.explored[k];
    expect(lost.outputs.total.some((t: number) => t < 64)).toBe(true);
    expect(lost.schedule).toMatch(/pct/);
    expect(await page.locator('[data-testid=wb-replay]').nth(k).textContent()).toBe(lost.schedule);

    // In the page: the outcome's replay button runs its replay string again.
    await page.locator('[data-testid=wb-replay-btn]').nth(k).click();
    await page.waitForFunction(() => /"action":"replay"/.test(document.querySelector('[data-testid=workbench]')?.getAttribute('data-result') ?? ''));
    const replayed = JSON.parse((await page.getAttribute('[data-testid=workbench]', 'data-result'))!);
    expect(replayed).toEqual({ action: 'replay', outcome: k, same: true, outputs: lost.outputs });
    expect(await page.getAttribute('[data-testid=wb-replayed]', 'data-same')).toBe('true');

    // In Node, on the downloaded project (as `simt explore --replay` would): the same outputs, and
    // PCT with the same settings finds the same outcomes.
    const dir = await downloadProject(page, 'pct');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('--strategy pct --schedules 20 --depth 3 --seed 1');
    const mod = await compileKernelFiles([join(dir, 'kernels/mine.ts')], { cacheDir: false });
    const nodeJob = await loadJobFile(join(dir, 'job.js'), mod);
    const again = await replay(nodeJob, lost.schedule);
    expect(Object.fromEntries(Object.entries(again.outputs).map(([name, v]) => [name, Array.from(v as ArrayLike<number>)]))).toEqual(lost.outputs);
    const ex = await explore(nodeJob, undefined, { strategy: 'pct', schedules: 20, depth: 3, seed: 1 });
    expect(ex.outcomes.map((o) => ({ count: o.count, schedule: o.schedule }))).toEqual(r.explored.map((o: { count: number; schedule: string }) => ({ count: o.count, schedule: o.schedule })));
    await page.screenshot({ path: join(ARTIFACTS, 'workbench-pct.png'), fullPage: true });
  }, 180_000);

  it('exhaustive exploration says whether it enumerated every interleaving', async () => {
    await page.selectOption('[data-testid=wb-gallery]', 'starter');
    await typeInto(page, 'wb-job-editor', `export default (module) => ({
  name: 'twoThreads', module,
  buffers: { x: ['i32', gen.constant(2, 1)], total: ['i32', 1] },
  launches: [{ kernel: 'blockTotals', grid: 1, block: 2, args: { x: 'x', total: 'total', n: 2 } }],
  outputs: ['total'],
});
`);
    await page.selectOption('[data-testid=wb-strategy]', 'exhaustive');
    await page.fill('[data-testid=wb-schedules]', '1000');
    const all = await act(page, 'wb-race');
    expect(all).toMatchObject({ strategy: 'exhaustive', exhausted: true });
    expect(all.runs).toBeLessThan(1000);
    // Two threads adding 1 to one cell: both adds land, or one is lost.
    expect(all.explored.map((o: { outputs: { total: number[] } }) => o.outputs.total[0]).sort()).toEqual([1, 2]);
    expect(await page.textContent('[data-testid=wb-explore-summary]')).toBe(`exhaustive: ${all.runs} schedules, every interleaving — the space is exhausted`);
    await page.fill('[data-testid=wb-schedules]', '2');
    const cut = await act(page, 'wb-race');
    expect(cut).toMatchObject({ strategy: 'exhaustive', exhausted: false, runs: 2 });
    expect(await page.textContent('[data-testid=wb-explore-summary]')).toBe('exhaustive: stopped after 2 schedules — the space is NOT exhausted (raise schedules to enumerate more)');
    // A bad field is a one-line error naming it.
    await page.fill('[data-testid=wb-schedules]', '0');
    await page.click('[data-testid=wb-race]');
    await page.waitForSelector('[data-testid=workbench][data-state=error]');
    expect(await page.textContent('[data-testid=wb-status]')).toBe('error: schedules must be an integer from 1 to 100000, got "0"');
    await page.selectOption('[data-testid=wb-strategy]', 'random');
    await page.fill('[data-testid=wb-schedules]', '20');
  }, 180_000);

  it('the gallery: every example runs and matches its reference; block scan without __syncwarp has a warp-sync hazard in intraWarpScan', async () => {
    const ids = await page.$$eval('[data-testid=wb-gallery] option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(ids).toEqual(['starter', 'histogram', 'transpose', 'shuffleSum', 'vecMax', 'countModules', 'blockScan', 'blockScanLockstep']);
    for (const id of ids.filter((i) => i !== 'starter')) {
      await page.selectOption('[data-testid=wb-gallery]', id);
      const ran = await act(page, 'wb-run');
      // The lock-step scan is wrong on the wasm pool too: a block's lanes do not run in lock step there.
      if (id === 'blockScanLockstep') expect(ran.reference.differing, id).toBeGreaterThan(0);
      else expect(ran.reference, id).toMatchObject({ equal: true });
    }
    await page.selectOption('[data-testid=wb-gallery]', 'blockScan');
    expect((await act(page, 'wb-race')).reports).toEqual([]);
    await page.selectOption('[data-testid=wb-gallery]', 'blockScanLockstep');
    const kernel = await editorText(page, 'wb-kernel-editor');
    expect(kernel).not.toContain('__syncwarp();');
    const r = await act(page, 'wb-race');
    const hazards = r.reports.filter((x: { kind: string }) => x.kind === 'warp-sync-hazard');
    expect(hazards.length).toBeGreaterThan(0);
    const lines = kernel.split('\n');
    const start = lines.findIndex((l) => l.startsWith('function intraWarpScan')) + 1;
    const end = lines.findIndex((l, k) => k >= start && l === '}') + 1;
    expect(hazards.flatMap((h: { lines: number[] }) => h.lines).some((l: number | null) => l !== null && l > start && l < end)).toBe(true);
  }, 400_000);

  it('a shared link reproduces the kernel and job, and the race', async () => {
    await page.selectOption('[data-testid=wb-gallery]', 'starter');
    await typeInto(page, 'wb-kernel-editor', (await editorText(page, 'wb-kernel-editor')).replace('export function blockTotals', '// shared\nexport function blockTotals'));
    await page.selectOption('[data-testid=wb-strategy]', 'pct');
    await page.fill('[data-testid=wb-depth]', '2');
    await page.click('[data-testid=wb-share]');
    await page.waitForSelector('[data-testid=wb-share-url]:not([hidden])');
    const url = await page.inputValue('[data-testid=wb-share-url]');
    expect(url).toMatch(/#w=[A-Za-z0-9_-]+$/);
    const other = await openPage(url);
    try {
      expect(await other.getAttribute('[data-testid=workbench]', 'data-shared')).toBe('true');
      expect(await editorText(other, 'wb-kernel-editor')).toBe(await editorText(page, 'wb-kernel-editor'));
      expect(await editorText(other, 'wb-job-editor')).toBe(await editorText(page, 'wb-job-editor'));
      // The explore settings travel with the link.
      expect(await other.inputValue('[data-testid=wb-strategy]')).toBe('pct');
      expect(await other.inputValue('[data-testid=wb-depth]')).toBe('2');
      const r = await act(other, 'wb-race');
      expect(r.strategy).toBe('pct');
      const line = (await editorText(other, 'wb-kernel-editor')).split('\n').findIndex((l) => l.includes(RACY_LINE)) + 1;
      expect(r.reports[0].kind).toMatch(RACE_KINDS);
      expect(r.reports[0].lines).toEqual([line, line]);
    } finally {
      await other.close();
      await page.selectOption('[data-testid=wb-strategy]', 'random');
    }
  }, 180_000);

  it('"download as a project" gives a kernel and job file that Node\'s racecheck runs to the same report', async () => {
    await page.selectOption('[data-testid=wb-gallery]', 'starter');
    const dir = await downloadProject(page, 'racecheck');
    expect(readdirSync(dir, { recursive: true }).map(String).sort()).toEqual(['README.md', 'job.js', 'kernels', 'kernels/mine.ts']);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('npx simt racecheck --module kernels/mine.ts --job job.js');
    const mod = await compileKernelFiles([join(dir, 'kernels/mine.ts')], { cacheDir: false });
    const job = await loadJobFile(join(dir, 'job.js'), mod);
    const rc = await racecheck(job, undefined, { schedules: 4, seed: 1 });
    expect(rc.reports[0]?.kind).toMatch(RACE_KINDS);
    expect(rc.reports[0]?.first?.location).toMatch(/mine\.ts:8:\d+$/);
  }, 120_000);

  const FILE_JOB = `export default (module) => ({
  name: 'saxpy', module,
  buffers: { x: file('x.npy', [300]), y: file('y.npy', [300]) },
  launches: [{ kernel: 'saxpy', grid: 3, block: 128, args: { x: 'x', y: 'y', a: 2, n: 300 } }],
  outputs: ['y'],
  reference: ({ x, y }) => ({ y: Array.from(x, (v, i) => Math.fround(Math.fround(2 * v) + y[i])) }),
});
`;

  it('a dropped .npy and a picked one are the job\'s inputs: the outputs are a TS reference\'s on the same data, in the page and in the downloaded project', async () => {
    const r = rng(7);
    const x = Float32Array.from({ length: 300 }, () => r() * 200 - 100);
    const y = Float32Array.from({ length: 300 }, () => r() * 10);
    const expected = Array.from(x, (v, i) => Math.fround(Math.fround(2 * v) + y[i]!));
    await typeInto(page, 'wb-kernel-editor', MY_KERNEL);
    await typeInto(page, 'wb-job-editor', FILE_JOB);
    await dropFiles(page, [{ name: 'x.npy', bytes: writeNpy(x) }]);
    await pickFiles(page, [{ name: 'y.npy', bytes: writeNpy(y) }]);
    expect(await page.locator('[data-testid=wb-file-error]').count()).toBe(0);
    expect((await page.locator('[data-testid=wb-file]').allTextContents()).map((t) => t.replace(/ remove$/, '')))
      .toEqual(['x.npy — f32, shape (300,)', 'y.npy — f32, shape (300,)']);
    const ran = await act(page, 'wb-run');
    expect(ran.wasm.y).toEqual(expected);
    expect(ran.reference).toMatchObject({ equal: true, differing: 0 });
    await page.screenshot({ path: join(ARTIFACTS, 'workbench-npy.png'), fullPage: true });

    // The project carries the files; its job.js reads them (simt's npyBuffer) to the same outputs.
    const dir = await downloadProject(page, 'npy');
    expect(new Uint8Array(readFileSync(join(dir, 'x.npy')))).toEqual(writeNpy(x));
    expect(new Uint8Array(readFileSync(join(dir, 'y.npy')))).toEqual(writeNpy(y));
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('It reads `x.npy`, `y.npy` (beside it)');
    // As after `npm install simt` in the project: its job.js imports simt.
    mkdirSync(join(tmp, 'node_modules'), { recursive: true });
    if (!existsSync(join(tmp, 'node_modules', 'simt'))) symlinkSync(ROOT, join(tmp, 'node_modules', 'simt'), 'dir');
    const mod = await compileKernelFiles([join(dir, 'kernels/mine.ts')], { cacheDir: false });
    const job = await loadJobFile(join(dir, 'job.js'), mod);
    const ex = await explore(job, undefined, { schedules: 1 });
    expect(Array.from(ex.reference.outputs.y as Float32Array)).toEqual(expected);
  }, 180_000);

  it('bad input files are one-line errors: not .npy, an unsupported dtype, a wrong shape, a missing file, a dtype the kernel does not take', async () => {
    const half = writeNpy(new Float32Array(3));
    half.set(new TextEncoder().encode("'<f2'"), new TextDecoder().decode(half).indexOf("'<f4'"));
    await dropFiles(page, [{ name: 'notes.npy', bytes: new TextEncoder().encode('x,y\n1,2\n3,4\n5,6\n') }, { name: 'half.npy', bytes: half }]);
    expect(await page.locator('[data-testid=wb-file-error]').allTextContents()).toEqual([
      'notes.npy: bad magic: not an .npy file (expected \\x93NUMPY)',
      "half.npy: unsupported dtype '<f2' (supported: u1 i1 u2 i2 u4 i4 u8 i8 f4 f8)",
    ]);
    expect(await page.locator('[data-testid=wb-file]').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-name')))).toEqual(['x.npy', 'y.npy']);

    await typeInto(page, 'wb-job-editor', FILE_JOB.replace("file('y.npy', [300])", "file('w.npy', [300])"));
    expect(await failing(page, 'wb-run')).toBe("error: the job reads file('w.npy'): drop or pick that .npy file (loaded: x.npy, y.npy)");

    await typeInto(page, 'wb-job-editor', FILE_JOB);
    await dropFiles(page, [{ name: 'x.npy', bytes: writeNpy(new Float32Array(200)) }]);
    expect(await page.locator('[data-testid=wb-file-error]').count()).toBe(0);
    expect(await failing(page, 'wb-run')).toBe('error: x.npy: shape (200,), the job expects (300,)');

    await pickFiles(page, [{ name: 'x.npy', bytes: writeNpy(new Int32Array(300)) }]);
    expect(await page.textContent('[data-testid=wb-file][data-name="x.npy"]')).toContain('i32, shape (300,)');
    expect(await failing(page, 'wb-run')).toBe("error: kernel saxpy: parameter 'x': expected f32[], got i32[]");
  }, 180_000);

  it('raised no uncaught page errors', () => {
    expect(pageErrors).toEqual([]);
  });

  it('served without COOP/COEP, it says that only the compiler works, and compiles', async () => {
    const p = await openPage(`${server!.url}no-isolation/`);
    try {
      expect(await p.evaluate(() => crossOriginIsolated)).toBe(false);
      expect(await p.textContent('[data-testid=wb-isolation]')).toContain('Cross-Origin-Embedder-Policy: require-corp');
      expect((await act(p, 'wb-compile')).kernels).toEqual(['blockTotals']);
      await p.click('[data-testid=wb-run]');
      await p.waitForSelector('[data-testid=workbench][data-state=error]');
      expect(await p.textContent('[data-testid=wb-status]')).toContain('the wasm pool cannot run here');
    } finally {
      await p.close();
    }
  }, 120_000);
});

// A second Chromium with a WebGPU adapter and no GPU: SwiftShader's Vulkan driver, which Debian's
// chromium ships. The Run button's WebGPU row then runs the kernels' generated WGSL for real and
// is checked against the wasm pool. Without an adapter there these tests fail where
// SIMT_REQUIRE_WEBGPU=1 (CI), as the WebGPU test files do, and are skipped elsewhere, saying why.
describe('kernel workbench with WebGPU on SwiftShader', () => {
  const WEBGPU_FLAGS = [...FLAGS.filter((f) => f !== '--disable-gpu'),
    '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-webgpu-adapter=swiftshader', '--use-angle=swiftshader'];
  let gpuBrowser: Browser | undefined;
  let gp: Page;
  let noAdapter: string | undefined;

  beforeAll(async () => {
    if (setupError !== undefined) return;
    try {
      gpuBrowser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: WEBGPU_FLAGS, timeout: 60_000 });
      gp = await openPage(server!.url, gpuBrowser);
      await gp.waitForSelector('[data-testid=env][data-state=done]');
      const status = gp.locator('[data-testid=webgpu-status]');
      if (await status.getAttribute('data-available') !== 'true') {
        const why = `no WebGPU adapter in Chromium with SwiftShader (${await status.textContent()})`;
        if (process.env['SIMT_REQUIRE_WEBGPU'] === '1') throw new Error(`${why}; SIMT_REQUIRE_WEBGPU=1 requires one (scripts/ci-webgpu-setup.sh)`);
        noAdapter = why;
        process.stderr.write(`note: workbench WebGPU tests skipped: ${why}\n`);
      }
    } catch (e) {
      setupError = e;
    }
  }, 180_000);

  beforeEach((ctx) => { if (noAdapter) ctx.skip(noAdapter); });

  afterAll(async () => { await gpuBrowser?.close().catch(() => undefined); }, 60_000);

  it('the page has an adapter (SwiftShader)', async () => {
    expect(await gp.textContent('[data-testid=webgpu-status]')).toMatch(/^available: .*swiftshader/i);
  });

  it('a typed kernel runs on WebGPU beside the wasm pool: its outputs are shown, and it agrees', async () => {
    await typeInto(gp, 'wb-kernel-editor', MY_KERNEL);
    await typeInto(gp, 'wb-job-editor', MY_JOB);
    const ran = await act(gp, 'wb-run');
    // The reference, computed here: y = 2x + 1 with x = 0, 1, …, 299.
    const expected = Array.from({ length: 300 }, (_, i) => 2 * i + 1);
    expect(ran.wasm.y).toEqual(expected);
    expect(ran.webgpu).toMatchObject({ equal: true, differing: 0, first: [], outputs: { y: expected } });
    expect(ran.webgpu.adapter).toMatch(/swiftshader/i);
    expect(ran.verdict).toBe(true);
    const row = gp.locator('[data-testid=wb-row-webgpu]');
    expect(await row.getAttribute('class')).toBe('ok');
    expect(await row.textContent()).toContain('y = [1, 3, 5, 7, 9');
    expect(await row.textContent()).toContain('agrees with the wasm pool');
    expect(await row.textContent()).not.toContain('unavailable');
    expect(await gp.textContent('[data-testid=wb-verdict]')).toMatch(/^Cross-check passed: the wasm pool matches the reference; WebGPU agrees with the wasm pool \(/);
    await gp.screenshot({ path: join(ARTIFACTS, 'workbench-webgpu.png'), fullPage: true });
  }, 180_000);

  for (const id of ['histogram', 'transpose', 'shuffleSum', 'vecMax', 'countModules']) {
    it(`gallery ${id}: WebGPU runs it and agrees with the wasm pool, which matches the reference`, async () => {
      await gp.selectOption('[data-testid=wb-gallery]', id);
      const ran = await act(gp, 'wb-run');
      expect(ran.reference, id).toMatchObject({ equal: true });
      expect(ran.webgpu, id).toMatchObject({ equal: true, differing: 0 });
      expect(Object.keys(ran.webgpu.outputs)).toEqual(Object.keys(ran.wasm));
      expect(await gp.textContent('[data-testid=wb-verdict]')).toContain('WebGPU agrees with the wasm pool');
    }, 180_000);
  }

  it('the planted race: blocks run thread by thread on the wasm pool, in SIMD lanes on WebGPU, which loses updates — the page shows where they differ', async () => {
    await gp.selectOption('[data-testid=wb-gallery]', 'starter');
    const ran = await act(gp, 'wb-run');
    // The wasm pool runs a block's threads one after another: every += lands.
    expect(ran.wasm.total).toEqual([64, 64]);
    expect(ran.reference).toMatchObject({ equal: true });
    // On WebGPU the lanes of a SIMD group read the same total before any writes it back.
    expect(ran.webgpu.equal).toBe(false);
    expect(ran.webgpu.outputs.total.every((t: number) => t >= 1 && t < 64)).toBe(true);
    expect(ran.webgpu.first).toEqual(ran.webgpu.outputs.total.map((t: number, index: number) => ({ output: 'total', index, got: t, expected: 64 })));
    expect(ran.verdict).toBe(false);
    expect(await gp.getAttribute('[data-testid=wb-row-webgpu]', 'class')).toBe('bad');
    expect(await gp.textContent('[data-testid=wb-verdict]')).toMatch(/; WebGPU DIFFERS from the wasm pool \(/);
    const diffs = gp.locator('[data-testid=wb-diffs]');
    expect(await diffs.locator('caption').textContent()).toBe('WebGPU vs wasm pool: 2 of 2 elements differ; the first:');
    expect(await diffs.locator('tbody tr').count()).toBe(2);
    await gp.screenshot({ path: join(ARTIFACTS, 'workbench-webgpu-differs.png'), fullPage: true });
  }, 180_000);

  it('block scan: WGSL\'s warp operations are block-wide, so its warp-0-only scan traps on WebGPU; the row shows the trap at its line, the wasm results stand', async () => {
    await gp.selectOption('[data-testid=wb-gallery]', 'blockScan');
    // The gallery's kernel is the example file itself (the editor shows only the lines in view).
    const kernel = readFileSync(join(ROOT, 'examples/kernels/blockScan.ts'), 'utf8');
    const line = kernel.split('\n').findIndex((l) => /^\s+if \(threadIdx\.x < WARP_SIZE\)/.test(l)) + 1;
    expect(line).toBeGreaterThan(0);
    const ran = await act(gp, 'wb-run');
    expect(ran.reference).toMatchObject({ equal: true });
    expect(ran.verdict).toBe(false);
    expect(ran.webgpu.failed).toMatch(new RegExp(`^KernelError: kernel blockScan trapped in block \\(0, 0, 0\\): divergent barrier: the condition of an if with a barrier at blockScan\\.ts:${line}:3 differs between the threads of the block`));
    expect(await gp.getAttribute('[data-testid=wb-row-webgpu]', 'class')).toBe('bad');
    expect(await gp.textContent('[data-testid=wb-row-webgpu]')).toContain(`failed — ${ran.webgpu.failed}`);
    expect(await gp.textContent('[data-testid=wb-verdict]')).toMatch(/^Cross-check passed: the wasm pool matches the reference; WebGPU FAILED \(KernelError\)/);
  }, 180_000);

  it('a kernel the WGSL back end rejects runs on the wasm pool; the WebGPU row says why it did not run, and where', async () => {
    const kernel = `import { threadIdx, blockIdx, blockDim } from "simt/kernel";

export function scale(a: f64[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = <f64>(<i64>a[i] / 3);
}
`;
    await gp.selectOption('[data-testid=wb-gallery]', 'starter'); // the kernel's path: mine.ts
    await typeInto(gp, 'wb-kernel-editor', kernel);
    await typeInto(gp, 'wb-job-editor', `export default (module) => ({
  name: 'scale', module,
  buffers: { a: ['f64', gen.ramp(100)] },
  launches: [{ kernel: 'scale', grid: 1, block: 128, args: { a: 'a', n: 100 } }],
  outputs: ['a'],
  reference: ({ a }) => ({ a: Array.from(a, (v) => Math.trunc(v / 3)) }),
});
`);
    expect((await act(gp, 'wb-compile')).kernels).toEqual(['scale']);
    expect(await gp.textContent('[data-testid=wb-compiled]')).toContain('(no WGSL form for scale: WebGPU will not run them)');
    const ran = await act(gp, 'wb-run');
    expect(ran.wasm.a).toEqual(Array.from({ length: 100 }, (_, i) => Math.trunc(i / 3)));
    expect(ran.reference).toMatchObject({ equal: true });
    const why = 'the WGSL back end has no form for scale (mine.ts:5: operator / on i64 has no WGSL form yet)';
    expect(ran.webgpu).toEqual({ unavailable: why, why: 'no-wgsl' });
    expect(await gp.textContent('[data-testid=wb-row-webgpu]')).toContain(`unavailable — ${why}`);
    expect(await gp.textContent('[data-testid=wb-verdict]')).toMatch(/^Cross-check passed: the wasm pool matches the reference; WebGPU not run \(no WGSL form for scale\)/);
  }, 180_000);

  it('raised no uncaught page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});

/** Drops files on the workbench's drop zone (a DOM drop event carrying them), as a user drags them there. */
async function dropFiles(p: Page, files: { name: string; bytes: Uint8Array }[]): Promise<void> {
  await untilLoaded(p, () => p.evaluate((fs) => {
    const dt = new DataTransfer();
    for (const f of fs) dt.items.add(new File([new Uint8Array(f.bytes)], f.name));
    document.querySelector('[data-testid=wb-files]')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files.map((f) => ({ name: f.name, bytes: Array.from(f.bytes) }))));
}

/** Picks files with the drop zone's file input. */
async function pickFiles(p: Page, files: { name: string; bytes: Uint8Array }[]): Promise<void> {
  await untilLoaded(p, () => p.setInputFiles('[data-testid=wb-file-input]', files.map((f) => ({ name: f.name, mimeType: 'application/octet-stream', buffer: Buffer.from(f.bytes) }))));
}

/** Runs `give` and waits until the page has taken the batch of files (its data-loaded count goes up). */
async function untilLoaded(p: Page, give: () => Promise<unknown>): Promise<void> {
  const before = Number(await p.getAttribute('[data-testid=wb-files]', 'data-loaded') ?? 0);
  await give();
  await p.waitForFunction((n) => Number(document.querySelector('[data-testid=wb-files]')?.getAttribute('data-loaded') ?? 0) > n, before);
}

/** Clicks a workbench button that must fail; returns the status line. */
async function failing(p: Page, button: string): Promise<string> {
  await p.click(`[data-testid=${button}]`);
  await p.waitForSelector('[data-testid=workbench][data-state=error]');
  return (await p.textContent('[data-testid=wb-status]'))!;
}

/** Clicks "download as a project" and unpacks the tar into a new folder; returns the project's folder. */
async function downloadProject(p: Page, name: string): Promise<string> {
  const [download] = await Promise.all([p.waitForEvent('download'), p.click('[data-testid=wb-download]')]);
  expect(download.suggestedFilename()).toBe('mine-project.tar');
  const tarPath = join(tmp, `${name}.tar`);
  await download.saveAs(tarPath);
  const into = join(tmp, name);
  for (const [file, bytes] of Object.entries(untar(readFileSync(tarPath)))) {
    mkdirSync(join(into, file, '..'), { recursive: true });
    writeFileSync(join(into, file), bytes);
  }
  return join(into, 'mine-project');
}

/** The files of an uncompressed tar (regular files only). */
function untar(buf: Uint8Array): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (let at = 0; at + 512 <= buf.length;) {
    const name = new TextDecoder().decode(buf.subarray(at, at + 100)).replace(/\0.*$/s, '');
    if (!name) break;
    const size = parseInt(new TextDecoder().decode(buf.subarray(at + 124, at + 136)).replace(/\0.*$/s, '').trim(), 8);
    out[name] = buf.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}
