// sts-sort on input that breaks its method's premise (the counting sorts keep each channel's
// arrival order, so they sort by time only when each channel arrives time-ordered): exit 1
// with one line saying so on stderr, and the output is not written (before: exit 1, nothing
// on stderr, the unsorted output written anyway).
import { describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './child.js';
import { expectOneLineError, tempDir } from './cli-support.js';
import { writeNpy } from '../../src/io/npy.js';

describe('sts-sort premise', () => {
  const dir = tempDir();
  const input = join(dir, 'unordered.npy');
  const n = 500;
  const w = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) { w[2 * i] = i % 4; w[2 * i + 1] = 10_000 - i; } // times fall within each channel
  writeFileSync(input, writeNpy(w, [n, 2]));

  it('chunked on time-unordered channels: one line, exit 1, no output', async () => {
    const out = join(dir, 'sorted.npy');
    const r = await runCli(['sts-sort', input, '--channels', '4', '--method', 'chunked', '--out', out]);
    expectOneLineError(r, 1, /not sorted by \(channel, time\).*time-ordered.*--method merge or key/);
    expect(existsSync(out)).toBe(false);
  });

  it('merge sorts the same input', async () => {
    const out = join(dir, 'merged.npy');
    const r = await runCli(['sts-sort', input, '--channels', '4', '--method', 'merge', '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).sorted).toBe(true);
    expect(existsSync(out)).toBe(true);
  });
});
