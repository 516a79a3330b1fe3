// Worker death in a browser (headless Chromium through playwright-core, the package's dist/
// served cross-origin isolated): a pool worker terminated behind the pool's back fires no
// event there, so the pool learns of it through the worker's life lock (src/pool/workerLife.ts),
// when the thread really ends (Chromium lets a busy worker run up to 2 s past terminate()).
// As in Node (worker-death.test.ts): one lost between launches is replaced before the next
// launch, one lost during a launch makes it reject with WorkerLostError at once, and the
// device works after. Needs `npm run build` and Debian's chromium (as browser-playground).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { serveStatic, type StaticServer } from '../support/static-server.js';

const CHROMIUM = process.env.SIMT_CHROMIUM ?? '/usr/bin/chromium';
const ROOT = resolve(import.meta.dirname, '../..');
let server: StaticServer | undefined;
let context: BrowserContext | undefined;
let page: Page;
let profile = '';

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (SIMT_CHROMIUM names another binary)`);
  server = await serveStatic(ROOT);
  profile = mkdtempSync(join(tmpdir(), 'simt-chromium-profile-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, timeout: 60_000,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  page = context.pages()[0] ?? await context.newPage();
  // Any served document will do: it only has to be cross-origin isolated.
  await page.goto(`${server.url}package.json`);
}, 120_000);

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe('worker death in a browser', () => {
  it('is detected within one launch: replaced between launches, WorkerLostError during one', async () => {
    // Plain JS text: the test runner would rewrite an import() inside a function it compiles.
    const r = await page.evaluate(`(async () => {
      const simt = await import('/dist/src/index.js');
      const dev = await simt.createDevice({ memoryBytes: 16 << 20, workers: 2 });
      const pool = dev.pool;
      const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
      const out = dev.alloc('i32', 64 * 6);
      const healthy = async () => {
        const s = await dev.launch(simt.kernels.writeIndices, { grid: 4, block: 16, timeoutMs: 10000 }, [out]);
        const v = await out.read();
        return { workers: s.workers, ok: v[6 * 63] === 3 && v[6 * 63 + 3] === 15 };
      };
      const isolated = globalThis.crossOriginIsolated;
      const first = await healthy();
      // Between launches: worker 1 terminated from outside. Chromium lets a worker that never
      // returns to its event loop (ours block in their launch loop) run on for up to 2 s
      // after terminate() before it forcibly ends the thread; the lock is released then.
      const killed = pool.handles[1];
      await killed.terminate();
      await sleep(2500);
      const t0 = performance.now();
      const afterKill = await healthy();
      const replaced = !pool.handles.includes(killed) && pool.handles.length === 2;
      // During a launch that never ends: its WorkerLostError comes at once, not at 60 s.
      const p = dev.launch(simt.kernels.spin, { grid: 2, block: 1, timeoutMs: 60000 }, [-1, out]).catch((e) => e);
      await sleep(200);
      await pool.handles[0].terminate();
      const err = await p;
      const lostMs = performance.now() - t0;
      const last = await healthy();
      await dev.destroy();
      return { isolated, first, afterKill, replaced, errName: err && err.name, errMessage: err && err.message, lostMs, last };
    })()`) as Record<string, unknown>;
    expect(r.isolated).toBe(true);
    expect(r.first).toEqual({ workers: 2, ok: true });
    expect(r.afterKill).toEqual({ workers: 2, ok: true });
    expect(r.replaced).toBe(true);
    expect(r.errName).toBe('WorkerLostError');
    expect(r.errMessage).toMatch(/kernel spin: worker 0 of 2 exited during the launch \(exit code 1: its thread ended/);
    expect(r.lostMs).toBeLessThan(10_000);
    expect(r.last).toEqual({ workers: 2, ok: true });
  }, 90_000);
});
