// Malformed .npy inputs (truncated, Fortran order, big-endian, 3-D, not .npy at all, wrong
// dtype) end in one line naming the file, exit code 1, no stack trace — unless --verbose.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { runCli } from './child.js';
import { expectOneLineError, malformedNpys, tempDir } from './cli-support.js';
import { writeNpy } from '../../src/io/npy.js';

describe('malformed .npy inputs', () => {
  const dir = tempDir();
  const files = malformedNpys(dir);
  for (const [what, path] of Object.entries(files)) {
    it(`sts-sort: ${what}`, async () => {
      const out = join(dir, `sorted-${what.replace(/\W+/g, '-')}.npy`);
      const r = await runCli(['sts-sort', path, '--channels', '16', '--out', out]);
      expectOneLineError(r, 1, new RegExp(`simt sts-sort: .*${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      expect(r.stdout).toBe('');
    });
  }

  it('pet: a malformed position table names the file', async () => {
    const frames = join(dir, 'frames.bin');
    writeFileSync(frames, new Uint8Array(16 * 10));
    const energy = join(dir, 'energy.npy');
    writeFileSync(energy, writeNpy(new Float32Array(16)));
    const r = await runCli(['pet', '--input', frames, '--position-table', files.fortran!, '--energy-table', energy]);
    expectOneLineError(r, 1, /simt pet: .*fortran\.npy.*Fortran/i);
  });

  it('--verbose adds the stack', async () => {
    const r = await runCli(['sts-sort', files['big-endian']!, '--channels', '16', '--verbose']);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(/big-endian/);
    expect(r.stderr).toMatch(/\n\s+at /);
  });
});
