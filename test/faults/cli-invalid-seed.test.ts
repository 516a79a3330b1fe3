// `--device-seed -1` / `--schedule-seed -1` (and other seeds that are not seeds) are usage
// errors: one line on stderr naming the flag, no stack trace, exit code 2, nothing started.
import { describe, expect, it } from 'vitest';
import { runCli } from './child.js';

describe('CLI seeds', () => {
  const cases: [string, string[], RegExp][] = [
    ['sts-sort --schedule-seed -1', ['sts-sort', '--generate', '1000', '--schedule-seed', '-1'], /--schedule-seed/],
    ['pixel --schedule-seed -1', ['pixel', '--generate', '1000', '--schedule-seed', '-1'], /--schedule-seed/],
    ['pet --schedule-seed -1', ['pet', '--generate', '100', '--schedule-seed', '-1'], /--schedule-seed/],
    ['pet --schedule-seed 1.5', ['pet', '--generate', '100', '--schedule-seed', '1.5'], /--schedule-seed/],
    ['sts-sort --schedule-seed 2^53', ['sts-sort', '--generate', '1000', '--schedule-seed', String(2 ** 53)], /--schedule-seed/],
    ['sts-sort --seed -3', ['sts-sort', '--generate', '1000', '--seed', '-3'], /--seed/],
  ];
  for (const [what, args, flag] of cases) {
    it(`${what}: one line, exit 2`, async () => {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(flag);
      expect(lines[0]).toMatch(/integer in \[0, 2\^53\)/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
    });
  }
});
