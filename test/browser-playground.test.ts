// End-to-end: the playground page (playground/) built with Vite, served on 127.0.0.1 with the
// COOP/COEP headers, driven in Debian's headless Chromium through playwright-core. Every job is
// run in the page and its shown results are checked against the same computation in Node.
// Chromium missing ⇒ these tests FAIL (scripts/ci-webgpu-setup.sh installs it); no browser is
// ever downloaded.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { KernelError, countModules, createDevice, data, deviceMax, deviceSum, race, type Device } from '../dist/src/index.js';
import { serveStatic, type StaticServer } from './support/static-server.js';

const CHROMIUM = process.env.SIMT_CHROMIUM ?? '/usr/bin/chromium';
const ROOT = resolve(import.meta.dirname, '..');
const SCREENSHOT = join(ROOT, 'artifacts', 'playground.png');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const RACE_SCHEDULES = 20;

let outDir = '';
const profiles: string[] = [];
let server: StaticServer | undefined;
let context: BrowserContext | undefined;
let page: Page;
let nodeDevice: Device | undefined;
const pageErrors: string[] = [];

// A setup failure (no Chromium, a build error) fails every test with its message: none is skipped.
let setupError: unknown;
beforeEach(() => {
  if (setupError !== undefined) throw setupError;
});

beforeAll(async () => {
  try {
    await setup();
  } catch (e) {
    setupError = e;
  }
}, 180_000);

async function setup(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: the browser tests need Debian's chromium package ` +
      '(scripts/ci-webgpu-setup.sh installs it; SIMT_CHROMIUM names another binary)');
  }
  outDir = mkdtempSync(join(tmpdir(), 'simt-playground-'));
  await build({ configFile: join(ROOT, 'playground/vite.config.ts'), configLoader: 'runner', logLevel: 'error', build: { outDir, emptyOutDir: true } });
  server = await serveStatic(outDir);
  ({ context, page } = await openPage(FLAGS));
  nodeDevice = await createDevice({ backend: 'wasm', memoryBytes: 128 << 20 });
}

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await server?.close();
  await nodeDevice?.destroy();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
  for (const p of profiles) rmSync(p, { recursive: true, force: true });
}, 60_000);

/** Chromium with a new empty profile, on the served playground, environment checked. */
async function openPage(flags: string[]): Promise<{ context: BrowserContext; page: Page }> {
  const profile = mkdtempSync(join(tmpdir(), 'simt-chromium-profile-'));
  profiles.push(profile);
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: flags, timeout: 60_000, viewport: { width: 1280, height: 900 },
  });
  const pg = ctx.pages()[0] ?? await ctx.newPage();
  pg.setDefaultTimeout(60_000);
  pg.on('pageerror', (e) => pageErrors.push(String(e)));
  await pg.goto(server!.url);
  await pg.waitForSelector('[data-testid=env][data-state=done]');
  return { context: ctx, page: pg };
}

async function panelResult(id: string, timeout = 120_000): Promise<Record<string, any>> {
  await page.waitForFunction((sel) => {
    const s = document.querySelector(sel)?.getAttribute('data-state');
    return s === 'done' || s === 'error';
  }, `[data-testid=${id}]`, { timeout });
  const state = await page.getAttribute(`[data-testid=${id}]`, 'data-state');
  if (state === 'error') {
    const errors = await page.locator('[data-testid=error]').allTextContents();
    throw new Error(`the page reported an error in ${id}: ${errors.join(' | ')}`);
  }
  return JSON.parse((await page.getAttribute(`[data-testid=${id}]`, 'data-result'))!);
}

const COMPUTE_JOBS = ['vecMax', 'vecSum', 'countModules'] as const;

/** Runs a compute job in the page and checks what it shows against Node; returns the shown result. */
async function checkComputeJob(job: (typeof COMPUTE_JOBS)[number]): Promise<Record<string, any>> {
  const n = 300_007, seed = 11;

  await page.selectOption('[data-testid=compute-job]', job);
  await page.fill('[data-testid=compute-size]', String(n));
  await page.fill('[data-testid=compute-seed]', String(seed));
  await page.click('[data-testid=compute-run]');
  const shown = await panelResult('compute');

  let nodeValue: string, reference: string;
  if (job === 'countModules') {
    const ids = data.moduleIdsForBench(n, 1800, 0.01, seed);
    const r = await countModules(nodeDevice!, ids, { nMaxModules: 1856 });
    nodeValue = String(r.count);
    reference = String(data.countModulesReference(ids, 1856).count);
    expect(shown.wasm.firstStarts).toEqual(Array.from(r.moduleStartSorted.slice(0, 8)));
  } else {
    const A = data.randomF32(n, seed);
    const r = job === 'vecMax' ? await deviceMax(nodeDevice!, A) : await deviceSum(nodeDevice!, A);
    nodeValue = String(r.value);
    let ref = job === 'vecMax' ? -Infinity : 0;
    for (const v of A) ref = job === 'vecMax' ? Math.max(ref, v) : ref + v;
    reference = String(ref);
  }
  const rows = page.locator('[data-testid=compute-table] tbody tr');
  await expect.poll(() => rows.count()).toBe(3);
  const wasmCell = page.locator('[data-testid=value-wasm]');
  expect(await wasmCell.getAttribute('data-value')).toBe(nodeValue);
  expect(await wasmCell.textContent()).not.toBe('');
  expect(await page.locator('[data-testid=value-JS]').getAttribute('data-value')).toBe(reference);

  const verdict = (await page.textContent('[data-testid=compute-verdict]'))!;
  expect(verdict).toMatch(/^Cross-check passed: wasm pool matches the reference; /);
  const gpuRow = page.locator('[data-testid=compute-table] tbody tr').nth(2);
  if (typeof shown.webgpu === 'object' && shown.webgpu !== null && 'unavailable' in shown.webgpu && !('count' in shown.webgpu)) {
    expect(verdict).toContain('WebGPU not run (unavailable)');
    expect(await gpuRow.textContent()).toContain('unavailable');
    expect(await gpuRow.getAttribute('class')).toBe('unavailable');
  } else {
    expect(verdict).toContain('WebGPU agrees with the wasm pool');
  }
  expect(shown.verdict).toBe(true);
  return shown;
}

describe('playground in headless Chromium', () => {
  it('is cross-origin isolated, has Atomics.waitAsync, and says whether WebGPU is there', async () => {
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    const env = await page.textContent('[data-testid=env]');
    expect(env).toContain('yes (SharedArrayBuffer available)');
    expect(env).toContain('Atomics.waitAsync');
    const gpu = page.locator('[data-testid=webgpu-status]');
    const available = await gpu.getAttribute('data-available');
    expect(['true', 'false']).toContain(available);
    // --disable-gpu: normally no adapter. Either way the page says so in words.
    expect(await gpu.textContent()).toMatch(available === 'true' ? /^available: / : /^unavailable — WebGPU unavailable: /);
  });

  for (const job of COMPUTE_JOBS) {
    it(`${job}: the wasm pool's result shown equals Node's, and the cross-check is shown`, async () => {
      await checkComputeJob(job);
    });
  }

  it(`every race job: explore (${RACE_SCHEDULES} schedules) and racecheck give what Node gives`, async () => {
    const names = await page.$$eval('[data-testid=race-job] option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(names.sort()).toEqual(race.corpus.map((j) => j.name).sort());
    await page.fill('[data-testid=race-schedules]', String(RACE_SCHEDULES));
    await page.fill('[data-testid=race-seed]', '1');
    await page.selectOption('[data-testid=race-strategy]', 'random');
    for (const job of race.corpus) {
      await page.selectOption('[data-testid=race-job]', job.name);
      await page.click('[data-testid=race-run]');
      const shown = await panelResult('race');
      const explored = await race.explore(job, undefined, { strategy: 'random', schedules: RACE_SCHEDULES, seed: 1 }).catch((e: unknown) => e);
      const rc = await race.racecheck(job, undefined, { schedules: 4, seed: 1 });
      expect(shown.job, job.name).toBe(job.name);
      if (explored instanceof KernelError) {
        // An out-of-bounds index traps explore (as the device's launch); the page says so, and racecheck reports it.
        expect(job.expect, job.name).toEqual(['out-of-bounds']);
        expect(shown.trap, job.name).toBe(explored.message);
        expect(await page.textContent('[data-testid=race-trap]'), job.name).toBe(`explore stopped: ${explored.message}`);
        expect(shown.outcomes, job.name).toEqual([]);
        expect(shown.reports, job.name).toEqual(rc.reports.map((r) => ({ kind: r.kind, buffer: r.buffer ?? null, index: r.index ?? null, conflict: r.conflict ?? null })));
        expect(shown.expectedFound, `${job.name}: racecheck finds what the corpus expects`).toBe(true);
        continue;
      }
      if (!(explored && typeof explored === 'object' && 'runs' in explored)) throw explored;
      const ex = explored as Awaited<ReturnType<typeof race.explore>>;
      expect(shown.trap, job.name).toBeNull();
      expect(shown.runs, job.name).toBe(ex.runs);
      expect(shown.outcomes, job.name).toEqual(ex.outcomes.map((o) => ({ count: o.count, key: o.key, differs: o.differsFromReference })));
      expect(shown.reports, job.name).toEqual(rc.reports.map((r) => ({ kind: r.kind, buffer: r.buffer ?? null, index: r.index ?? null, conflict: r.conflict ?? null })));
      expect(shown.expectedFound, `${job.name}: racecheck finds what the corpus expects`).toBe(true);
      // What is drawn: one bar per outcome (up to 40, then one "+k more"), with its count.
      const counts = await page.$$eval('[data-testid=outcome-chart] g.bar', (gs) => gs.map((g) => Number(g.getAttribute('data-count'))));
      const expected = ex.outcomes.length <= 40 ? ex.outcomes.map((o) => o.count)
        : [...ex.outcomes.slice(0, 40).map((o) => o.count), ex.outcomes.slice(40).reduce((a, o) => a + o.count, 0)];
      expect(counts, job.name).toEqual(expected);
      expect(await page.locator('[data-testid=report]').count(), job.name).toBe(rc.reports.length);
      // Each global-memory report with an element shows that element highlighted.
      const highlighted = rc.reports.filter((r) => r.index !== undefined && r.space !== 'shared').length;
      expect(await page.locator('[data-testid=racing-cell]').count(), job.name).toBe(highlighted);
      // The outcomes table scrolls inside its column: wider, it lay under the racecheck column,
      // which took the clicks meant for its "schedule" expanders. An expander opens on a click.
      const expander = page.locator('#race-outcomes details').first();
      await expander.locator('summary').click({ timeout: 5000 });
      expect(await expander.evaluate((d) => (d as HTMLDetailsElement).open), job.name).toBe(true);
    }
  }, 600_000);

  it('shows a racy job\'s report with the racing accesses highlighted (screenshot kept)', async () => {
    await page.selectOption('[data-testid=compute-job]', 'vecSum');
    await page.fill('[data-testid=compute-size]', '1000000');
    await page.click('[data-testid=compute-run]');
    await panelResult('compute');
    await page.selectOption('[data-testid=race-job]', 'lostUpdate');
    await page.fill('[data-testid=race-schedules]', '100');
    await page.click('[data-testid=race-run]');
    await panelResult('race');
    const first = page.locator('[data-testid=report]').first();
    expect(await first.getAttribute('data-kind')).toMatch(/data-race|warp-sync-hazard/);
    expect(await first.locator('[data-testid=racing-access]').count()).toBe(2);
    expect(await first.locator('[data-testid=racing-cell]').textContent()).toMatch(/^0/);
    expect(await page.locator('[data-testid=outcome-chart] g.bar').count()).toBeGreaterThan(1);
    mkdirSync(join(ROOT, 'artifacts'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
  });

  it('runs every example of examples/ in the page with the results Node gets', async () => {
    const buttons = await page.$$eval('#example-buttons button', (bs) => bs.map((b) => b.getAttribute('data-example')!));
    expect(buttons.sort()).toEqual(['count-modules.js', 'launch.js', 'race-explore.js', 'reductions.js']);
    for (const name of buttons) {
      await page.click(`#example-buttons button[data-example="${name}"]`);
      await page.waitForFunction((n) => document.querySelector('[data-testid=examples]')?.getAttribute('data-example') === n, name);
      const shown = await panelResult('examples');
      const mod = await import(join(ROOT, 'examples', name)) as { main(log: (s: string) => void): Promise<unknown> };
      expect(shown, name).toEqual(JSON.parse(JSON.stringify(await mod.main(() => undefined))));
      expect(await page.textContent('[data-testid=example-output]')).toContain('(done)');
    }
  }, 180_000);

  it('raised no uncaught page errors, and loaded the run-time files from where configureAssets said', () => {
    expect(pageErrors).toEqual([]);
    for (const f of ['build/kernels.wasm', 'build/kernels.data.bin', 'build/kernels.meta.json', 'build/simt.simt.json', 'build/simt.simt.wasm', 'build/simt.simt.fine.wasm', 'dist/src/pool/worker.js']) {
      expect(server!.requests).toContain(`/simt/${f}`);
    }
  });

  it('served without COOP/COEP, it says why it cannot run, and shows the error', async () => {
    const p = await context!.newPage();
    try {
      await p.goto(`${server!.url}no-isolation/`);
      await p.waitForSelector('[data-testid=env][data-state=done]');
      expect(await p.evaluate(() => crossOriginIsolated)).toBe(false);
      expect(await p.textContent('[data-testid=env]')).toContain('not cross-origin isolated');
      await p.fill('[data-testid=compute-size]', '1000');
      await p.click('[data-testid=compute-run]');
      await p.waitForSelector('[data-testid=compute][data-state=error]');
      expect(await p.textContent('[data-testid=errors]')).toContain('Cross-Origin-Embedder-Policy: require-corp');
      // The error is shown by its class name, which the bundle keeps (not a minified `_`).
      expect(await p.textContent('[data-testid=errors]')).toMatch(/\b[A-Z][A-Za-z]*Error: /);
      expect(await p.isVisible('[data-testid=errors]')).toBe(true);
    } finally {
      await p.close();
    }
  });
});

// Chromium can also give the page a WebGPU adapter without a GPU: SwiftShader's Vulkan driver,
// which Debian's chromium ships. Then the WebGPU column runs for real and the cross-check
// compares it with the wasm pool. No adapter here is a failure, as in the WebGPU tests.
describe('playground with WebGPU on SwiftShader', () => {
  const WEBGPU_FLAGS = [...FLAGS.filter((f) => f !== '--disable-gpu'),
    '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-webgpu-adapter=swiftshader', '--use-angle=swiftshader'];
  let gpuContext: BrowserContext | undefined;
  let mainPage: Page;

  beforeAll(async () => {
    mainPage = page;
    if (setupError !== undefined) return;
    try {
      ({ context: gpuContext, page } = await openPage(WEBGPU_FLAGS));
    } catch (e) {
      setupError = e;
    }
  }, 120_000);

  afterAll(async () => {
    page = mainPage;
    await gpuContext?.close().catch(() => undefined);
  });

  it('has an adapter', async () => {
    const gpu = page.locator('[data-testid=webgpu-status]');
    expect(await gpu.textContent()).toMatch(/^available: /);
  });

  for (const job of COMPUTE_JOBS) {
    it(`${job}: WebGPU runs and agrees with the wasm pool, which agrees with Node`, async () => {
      const shown = await checkComputeJob(job);
      expect(await page.textContent('[data-testid=compute-verdict]')).toContain('WebGPU agrees with the wasm pool');
      expect(typeof shown.webgpu === 'number' || typeof shown.webgpu?.count === 'number').toBe(true);
    }, 180_000);
  }

  it('raised no uncaught page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
