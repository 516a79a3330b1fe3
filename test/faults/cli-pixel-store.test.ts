// `simt pixel store.bin`: the store's size includes alignment padding (zero digis that look like
// digis of module 0), so reading its size as its digi count clustered the padding — the store
// `--out-dir` wrote trapped when fed back, others reported one module too many. The file simt
// writes now says its digi count (a trailer); a raw dump needs --n; ids and pixel coordinates
// outside the module are a one-line data error naming the first bad digi.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatePixelEvent } from '../../src/jobs/pixel/generate.js';
import { packSoa } from '../../src/jobs/pixel/soa.js';
import { decodePixelStoreFile, encodePixelStoreFile, STORE_TRAILER_BYTES } from '../../src/jobs/pixel/storeFile.js';
import { checkPixelDigis } from '../../src/jobs/pixel/checkDigis.js';
import { PixelInputError } from '../../src/jobs/pixel/constants.js';
import { SimtError } from '../../src/errors.js';
import { runCli } from './child.js';
import { expectOneLineError, tempDir } from './cli-support.js';

/** A generated event whose digi count is not a multiple of 64, so its store has padding. */
function event() {
  const ev = generatePixelEvent({ seed: 5, activeModules: 50 });
  expect(ev.n % 64).not.toBe(0);
  return ev;
}

const summary = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop()!) as { n: number; modules: number; clusters: number };

describe('simt pixel store files', () => {
  it('the store --out-dir writes reads back with its digi count: same modules and clusters, no trap', async () => {
    const dir = tempDir();
    const gen = await runCli(['pixel', '--generate', '2422', '--out', dir, '--backend', 'serial', '--schedule-seed', '1', '--json']);
    expect(gen.code, gen.stderr).toBe(0);
    const again = await runCli(['pixel', join(dir, 'store.bin'), '--backend', 'serial', '--schedule-seed', '1', '--json']);
    expect(again.code, again.stderr).toBe(0);
    const a = summary(gen.stdout), b = summary(again.stdout);
    expect(b.n).toBe(a.n);
    expect(b.modules).toBe(a.modules);
    expect(b.clusters).toBe(a.clusters);
  });

  it('a raw dump without --n is refused (its size includes padding); with --n it counts every module once', async () => {
    const dir = tempDir();
    const ev = event();
    const raw = join(dir, 'raw.bin');
    writeFileSync(raw, packSoa(ev));
    const r = await runCli(['pixel', raw]);
    expectOneLineError(r, 2, /raw\.bin is a raw store dump, which does not say how many digis it holds: give --n N/);
    const ok = await runCli(['pixel', raw, '--n', String(ev.n), '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(summary(ok.stdout).modules).toBe(ev.truth.modules.length);
    // The same digis from a file with the trailer: no flag needed, the same answer.
    const withCount = join(dir, 'store.bin');
    writeFileSync(withCount, encodePixelStoreFile(packSoa(ev), ev.n, ev.n));
    const t = await runCli(['pixel', withCount, '--json']);
    expect(t.code, t.stderr).toBe(0);
    expect(summary(t.stdout)).toMatchObject({ n: ev.n, modules: ev.truth.modules.length });
  });

  it('an out-of-range module id or pixel coordinate is a one-line data error naming the first bad digi', async () => {
    const dir = tempDir();
    const cases: [string, (ev: ReturnType<typeof event>) => void, RegExp][] = [
      ['id', (ev) => { ev.moduleInd[100] = 4000; ev.moduleInd[200] = 5000; }, /bad\.bin: digi 100 has module id 4000; ids are below 4000, or 65534 for an invalid digi/],
      ['x', (ev) => { ev.moduleInd[7] = 3; ev.xx[7] = 160; }, /bad\.bin: digi 7 \(module 3\) is at pixel \(160, \d+\), outside the module's 160 × 416 pixels/],
      ['y', (ev) => { ev.moduleInd[9] = 3; ev.yy[9] = 999; }, /bad\.bin: digi 9 \(module 3\) is at pixel \(\d+, 999\)/],
    ];
    for (const [, spoil, message] of cases) {
      const ev = event();
      spoil(ev);
      const bad = join(dir, 'bad.bin');
      writeFileSync(bad, encodePixelStoreFile(packSoa(ev), ev.n, ev.n));
      expectOneLineError(await runCli(['pixel', bad]), 1, message);
    }
  });

  it('trailer and flags must agree; a damaged trailer is a data error', () => {
    const ev = event();
    const file = encodePixelStoreFile(packSoa(ev), ev.n, ev.n);
    expect(decodePixelStoreFile(file, {}, 's')).toMatchObject({ n: ev.n, maxFedWords: ev.n, trailer: true });
    expect(decodePixelStoreFile(file, { n: 10 }, 's').n).toBe(10);
    expect(() => decodePixelStoreFile(file, { n: ev.n + 1 }, 's')).toThrow(/--n \d+ is more than the \d+ digis the store holds/);
    expect(() => decodePixelStoreFile(file, { maxFedWords: ev.n + 1 }, 's')).toThrow(/the store says maxFedWords/);
    const damaged = file.slice();
    new DataView(damaged.buffer).setUint32(damaged.length - 4, ev.n + 64, true);
    expect(() => decodePixelStoreFile(damaged, {}, 's')).toThrow(PixelInputError);
    // The image before the trailer is the store itself, byte for byte.
    expect(file.subarray(0, file.length - STORE_TRAILER_BYTES)).toEqual(packSoa(ev));
    expect(new PixelInputError('x')).toBeInstanceOf(SimtError);
  });

  it('checkPixelDigis passes a generated event and the invalid-module marker', () => {
    const ev = event();
    expect(() => checkPixelDigis(ev, ev.n, 'e')).not.toThrow();
    ev.moduleInd[0] = 65534; ev.xx[0] = 9999;
    expect(() => checkPixelDigis(ev, ev.n, 'e')).not.toThrow();
    ev.moduleInd[1] = 65535;
    expect(() => checkPixelDigis(ev, ev.n, 'e')).toThrow(/digi 1 has module id 65535/);
  });
});
