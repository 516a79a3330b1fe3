// Launch arguments are typed by the kernel's parameter spec: test/types/launch-args.ts is
// compiled with tsc, and each of its `@ts-expect-error` lines (a wrong dtype, a missing or bogus
// argument, …) must be an error, every other line must compile. A control copy without the
// directives must fail with exactly those errors.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const TYPES = join(ROOT, 'test', 'types');
const FLAGS = ['--noEmit', '--strict', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext',
  '--lib', 'ES2024,DOM', '--types', 'node', '--skipLibCheck'];

async function tsc(file: string): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, [TSC, ...FLAGS, file], { cwd: ROOT });
    return { code: 0, out: r.stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, out: err.stdout };
  }
}

describe('typed launch arguments', () => {
  it('compiles: every @ts-expect-error line is an error, every other line is not', async () => {
    const r = await tsc(join(TYPES, 'launch-args.ts'));
    expect(r.out).toBe('');
    expect(r.code).toBe(0);
  }, 120_000);

  it('without the directives, each marked line fails to compile', async () => {
    const source = readFileSync(join(TYPES, 'launch-args.ts'), 'utf8');
    const lines = source.split('\n');
    const marked = lines.flatMap((l, k) => (l.trimStart().startsWith('// @ts-expect-error') ? [k + 2] : []));
    expect(marked.length).toBeGreaterThanOrEqual(10);
    const control = join(TYPES, 'launch-args.control.ts');
    writeFileSync(control, lines.map((l) => (l.trimStart().startsWith('// @ts-expect-error') ? '//' : l)).join('\n'));
    try {
      const r = await tsc(control);
      expect(r.code).not.toBe(0);
      const failing = new Set([...r.out.matchAll(/launch-args\.control\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1])));
      expect([...failing].sort((a, b) => a - b)).toEqual(marked);
    } finally {
      rmSync(control, { force: true });
    }
  }, 120_000);
});
