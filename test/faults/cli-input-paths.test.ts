// An input path that is a directory or does not exist ends in one line naming it, exit code 1.
import { describe, it } from 'vitest';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { runCli } from './child.js';
import { expectOneLineError, tempDir } from './cli-support.js';

describe('input paths', () => {
  const dir = tempDir();
  const sub = join(dir, 'a-directory.npy');
  mkdirSync(sub);
  const missing = join(dir, 'missing.bin');
  const cases: [string, string[], RegExp][] = [
    ['sts-sort of a directory', ['sts-sort', sub, '--channels', '16'], /a-directory\.npy.*is a directory/],
    ['sts-sort of a missing file', ['sts-sort', missing, '--channels', '16'], /missing\.bin.*no such file/],
    ['pixel of a directory', ['pixel', sub], /a-directory\.npy.*is a directory/],
    ['pet --input of a directory', ['pet', '--input', sub, '--position-table', sub, '--energy-table', sub], /a-directory\.npy.*is a directory/],
    ['pet --geometry of a directory', ['pet', '--generate', '10', '--geometry', sub], /a-directory\.npy.*is a directory/],
  ];
  for (const [what, args, line] of cases) {
    it(what, async () => {
      expectOneLineError(await runCli(args), 1, line);
    });
  }

  it('pet --geometry that is not JSON', async () => {
    const { writeFileSync } = await import('node:fs');
    const g = join(dir, 'geometry.json');
    writeFileSync(g, '{ not json');
    expectOneLineError(await runCli(['pet', '--generate', '10', '--geometry', g]), 1, /geometry\.json.*JSON/);
  });
});
