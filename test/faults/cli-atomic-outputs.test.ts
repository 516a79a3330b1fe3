// Outputs are written atomically: each to a temporary name in its target directory, renamed
// into place only when all are complete. A failure partway leaves none of them (before: 3 of
// 10 outputs and a stack trace), and an output path that is an input is refused before any
// work (before: `--out-dir` equal to the store's directory silently overwrote the store).
import { describe, expect, it, vi } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './child.js';
import { digis, expectOneLineError, tempDir } from './cli-support.js';
import { writeNpy } from '../../src/io/npy.js';

// The writer in-process, with the file system failing on the third file it opens for writing.
const failing = vi.hoisted(() => ({ after: -1, opened: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    openSync: (path: string, flags: string, mode?: number) => {
      if (typeof flags === 'string' && flags.startsWith('w') && failing.after >= 0 && ++failing.opened > failing.after) {
        throw Object.assign(new Error(`ENOSPC: no space left on device, open '${path}'`), { code: 'ENOSPC', path });
      }
      return fs.openSync(path, flags, mode);
    },
  };
});
const { OutputSet, OutputFileError } = await import('../../src/cli/files.js');

describe('atomic outputs', () => {
  it('a failure on the third of ten outputs leaves none of them and no temporary file', () => {
    const dir = tempDir();
    const set = new OutputSet([], '--out');
    const names = Array.from({ length: 10 }, (_, k) => join(dir, `out${k}.npy`));
    for (const p of names) set.plan(p);
    for (const p of names) set.put(p, new Uint8Array([1, 2, 3]));
    failing.after = 2; failing.opened = 0;
    let err: unknown;
    try { set.commit(); } catch (e) { err = e; } finally { failing.after = -1; }
    expect(err).toBeInstanceOf(OutputFileError);
    expect((err as Error).message).toMatch(/out2\.npy: no space left on the device; no output was written/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an existing output is replaced only when every output is complete', () => {
    const dir = tempDir();
    const a = join(dir, 'a.npy'), b = join(dir, 'b.npy');
    writeFileSync(a, 'old a');
    const set = new OutputSet([], '--out');
    set.plan(a); set.plan(b);
    set.put(a, new TextEncoder().encode('new a')); set.put(b, new TextEncoder().encode('new b'));
    failing.after = 1; failing.opened = 0;
    expect(() => set.commit()).toThrow(OutputFileError);
    failing.after = -1;
    expect(readFileSync(a, 'utf8')).toBe('old a');
    expect(readdirSync(dir)).toEqual(['a.npy']);
    set.commit();
    expect(readFileSync(a, 'utf8')).toBe('new a');
    expect(readFileSync(b, 'utf8')).toBe('new b');
    expect(readdirSync(dir).sort()).toEqual(['a.npy', 'b.npy']);
  });

  it('pixel --out equal to the store\'s directory is refused before any work; the store is intact', async () => {
    const dir = tempDir();
    const gen = await runCli(['pixel', '--generate', '2000', '--out', dir]);
    expect(gen.code, gen.stderr).toBe(0);
    const store = join(dir, 'store.bin');
    const before = readFileSync(store);
    const r = await runCli(['pixel', store, '--out', dir]);
    expectOneLineError(r, 2, /--out: the output .*store\.bin is the input .*store\.bin/);
    expect(readFileSync(store).equals(before)).toBe(true);
  });

  it('sts-sort --out equal to its input (by another path) is refused', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    const input = join(dir, 'digis.npy');
    writeFileSync(input, writeNpy(digis(100), [100, 2]));
    const r = await runCli(['sts-sort', input, '--channels', '16', '--out', join(dir, 'sub', '..', 'digis.npy')]);
    expectOneLineError(r, 2, /--out: the output .* is the input/);
  });

  it('pet --out over a folder holding its tables is refused when an output is a table', async () => {
    const dir = tempDir();
    const frames = join(dir, 'frames.bin');
    writeFileSync(frames, new Uint8Array(160));
    const table = join(dir, 'singles_time.npy');
    writeFileSync(table, writeNpy(new Float32Array(8)));
    const r = await runCli(['pet', '--input', frames, '--position-table', table, '--energy-table', table, '--out', dir]);
    expectOneLineError(r, 2, /--out: the output .*singles_time\.npy is the input/);
    expect(existsSync(join(dir, 'pairs_time.npy'))).toBe(false);
  });
});
