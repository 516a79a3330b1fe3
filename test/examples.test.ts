// Every file in examples/ runs in Node as a user would run it (`node examples/<file>`), importing
// the package by name; the playground runs the same files in a browser
// (test/browser-playground.test.ts).
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');
const examples = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.js')).sort();

const expected: Record<string, RegExp[]> = {
  'reductions.js': [/^max = (\S+) \(loop: \1\)/m, /^sum = /m],
  'count-modules.js': [/^(\d+) modules \(sequential scan: \1\); sorted moduleStart matches/m],
  'launch.js': [/^wasm: 256 blocks × 256 threads/m, /^serial: 256 blocks × 256 threads.*launch seed \d+/m],
  'race-explore.js': [/^100 random schedules gave \d+ distinct outputs/m, /data-race|warp-sync-hazard/],
};

describe('examples/', () => {
  it('has the examples this test knows', () => {
    expect(examples).toEqual(Object.keys(expected).sort());
  });

  for (const name of examples) {
    it(`node examples/${name}`, async () => {
      const { stdout } = await promisify(execFile)(process.execPath, [join('examples', name)], { cwd: ROOT, timeout: 60_000 });
      for (const re of expected[name] ?? []) expect(stdout).toMatch(re);
    }, 90_000);
  }
});
