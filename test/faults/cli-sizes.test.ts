// Sizes are validated before any generation or allocation: `--generate 1e9` ran for minutes
// and took 11 GB before failing; negative sizes were clamped; `explore --schedules -5`
// succeeded with 0 schedules. Each is a usage error: one line, exit 2, at once.
import { describe, expect, it } from 'vitest';
import { runCli } from './child.js';
import { expectOneLineError } from './cli-support.js';

describe('CLI sizes', () => {
  const cases: [string, string[], RegExp][] = [
    ['sts-sort --generate 1e9', ['sts-sort', '--generate', '1e9'], /--generate/],
    ['sts-sort --generate -5', ['sts-sort', '--generate', '-5'], /--generate/],
    ['sts-sort --channels 0', ['sts-sort', '--generate', '100', '--channels', '0'], /--channels/],
    ['sts-sort --memory 99999', ['sts-sort', '--generate', '100', '--memory', '99999'], /--memory/],
    ['pet --generate 1e9', ['pet', '--generate', '1e9'], /--generate/],
    ['pet --generate -1', ['pet', '--generate', '-1'], /--generate/],
    ['pet --workers 0', ['pet', '--generate', '10', '--workers', '0'], /--workers/],
    ['pixel --generate 1e9', ['pixel', '--generate', '1e9'], /--generate/],
    ['pixel --generate -5', ['pixel', '--generate', '-5'], /--generate/],
    ['demo --n 1e10', ['demo', '--n', '1e10'], /--n/],
    ['demo --digis -1', ['demo', '--digis', '-1'], /--digis/],
    ['explore --schedules -5', ['explore', 'lostUpdate', '--schedules', '-5'], /--schedules/],
    ['explore --depth 0', ['explore', 'lostUpdate', '--strategy', 'pct', '--depth', '0'], /--depth/],
    ['racecheck --schedules 0', ['racecheck', 'lostUpdate', '--schedules', '0'], /--schedules/],
    ['crosscheck --size -1', ['crosscheck', 'vecMax', '--size', '-1', '--backends', 'wasm,serial'], /--size/],
    ['crosscheck --size 1e12', ['crosscheck', 'vecMax', '--size', '1e12', '--backends', 'wasm,serial'], /--size/],
    ['a fractional size', ['sts-sort', '--generate', '10.5'], /--generate/],
  ];
  for (const [what, args, flag] of cases) {
    it(`${what}: usage error before any work`, async () => {
      const r = await runCli(args, 30_000);
      expectOneLineError(r, 2, flag);
      expect(r.ms).toBeLessThan(15_000);
    });
  }
});
