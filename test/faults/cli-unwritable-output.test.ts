// An output that cannot be written ends in one line naming it, exit code 1, no stack trace —
// and (its directory missing, or a directory in its place) before any work is done.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './child.js';
import { expectOneLineError, tempDir } from './cli-support.js';

describe('unwritable outputs', () => {
  const dir = tempDir();

  it('sts-sort --out into a missing directory', async () => {
    const r = await runCli(['sts-sort', '--generate', '1000', '--channels', '16', '--out', join(dir, 'missing', 'sorted.npy')]);
    expectOneLineError(r, 1, /missing\/sorted\.npy: cannot write here/);
    expect(r.stdout).toBe('');
  });

  it('sts-sort --out under a file', async () => {
    writeFileSync(join(dir, 'plain'), 'x');
    const r = await runCli(['sts-sort', '--generate', '1000', '--channels', '16', '--out', join(dir, 'plain', 'sorted.npy')]);
    expectOneLineError(r, 1, /plain\/sorted\.npy: cannot write here/);
  });

  it('sts-sort --out naming a directory', async () => {
    mkdirSync(join(dir, 'adir.npy'));
    const r = await runCli(['sts-sort', '--generate', '1000', '--channels', '16', '--out', join(dir, 'adir.npy')]);
    expectOneLineError(r, 1, /adir\.npy: is a directory/);
  });

  it('pixel --out that is a file', async () => {
    const r = await runCli(['pixel', '--generate', '1000', '--out', join(dir, 'plain')]);
    expectOneLineError(r, 1, /plain.*not a directory/);
  });

  it.skipIf(!existsSync('/dev/full'))('sts-sort --out /dev/full: no space left, one line', async () => {
    const r = await runCli(['sts-sort', '--generate', '1000', '--channels', '16', '--out', '/dev/full']);
    expectOneLineError(r, 1, /\/dev\/full: no space left/);
    expect(existsSync('/dev/full')).toBe(true);
    expect(readdirSync('/dev').filter((f) => f.includes('.tmp'))).toEqual([]);
  });
});
