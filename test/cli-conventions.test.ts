// The CLI's conventions (docs/cli.md), as a user meets them from a terminal: --help of every
// command, --version, unknown flags, commands and job names (an error with a suggestion), old
// spellings (still working, with a note), a readable summary by default and exactly one JSON
// document with --json, a reader that closes the pipe early, progress bars, exact sizes and
// replay strings printed whole.
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../src/cli/main.js';
import { commands } from '../src/cli/commands/index.js';
import { COMMON_OPTIONS, parseOptions } from '../src/cli/options.js';
import { progressBar } from '../src/cli/progress.js';
import { suggest } from '../src/cli/suggest.js';
import { generateDigis } from '../src/cli/pixelDigis.js';
import { workerList } from '../src/cli/commands/bench.js';
import { runCli } from './faults/child.js';

const ROOT = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), tty: false });
  return { code, out, err };
}

describe('--help and --version', () => {
  it('every command declares its options and at least one example', () => {
    for (const c of commands) {
      expect(c.options?.length, c.name).toBeGreaterThan(0);
      expect(c.examples?.length, c.name).toBeGreaterThan(0);
      for (const e of c.examples!) expect(e.startsWith(`simt ${c.name}`), e).toBe(true);
    }
  });

  for (const c of commands) {
    it(`simt ${c.name} --help lists every option with its default, and an example`, async () => {
      const r = await cli([c.name, '--help']);
      expect(r.code).toBe(0);
      const text = r.out.join('\n');
      expect(text).toMatch(new RegExp(`^usage: simt ${c.name}`));
      const lines = text.split('\n');
      const from = lines.indexOf('options:');
      expect(from).toBeGreaterThan(0);
      for (const o of [...c.options!, ...COMMON_OPTIONS]) {
        const line = lines.findIndex((l, k) => k > from && l.includes(`--${o.name}${o.value ? ` ${o.value}` : ''}`));
        expect(line, `--${o.name}`).toBeGreaterThan(from);
        // The option's line (or the one after it, for a long head) states its default.
        if (o.default !== undefined) expect(lines.slice(line, line + 2).join(' '), `--${o.name}`).toContain(`default: ${o.default}`);
      }
      expect(text).toMatch(/\nexamples?:\n {2}simt /);
      expect(text).toContain(c.examples![0]!);
    });
  }

  it('simt --version prints the version of package.json; simt help <command> is --help', async () => {
    expect((await cli(['--version'])).out).toEqual([pkg.version]);
    expect((await cli(['help', 'pixel'])).out).toEqual((await cli(['pixel', '--help'])).out);
  });
});

describe('unknown flags, commands and job names', () => {
  it('an unknown flag is a usage error that suggests the closest option', async () => {
    const r = await cli(['sts-sort', '--generat', '100']);
    expect(r.code).toBe(2);
    expect(r.err).toEqual(['simt sts-sort: unknown option --generat (did you mean --generate?) (simt sts-sort --help shows the options)']);
    expect((await cli(['demo', '--no-such-thing'])).code).toBe(2);
  });

  it('a flag that needs a value and gets none, or gets one it does not take, is a usage error', async () => {
    expect((await cli(['sts-sort', '--generate', '100', '--out'])).err[0]).toMatch(/--out needs a value \(FILE\)/);
    expect((await cli(['sts-sort', '--generate', '100', '--out', '--json'])).err[0]).toMatch(/--out needs a value/);
    expect((await cli(['demo', '--json=yes'])).err[0]).toMatch(/--json takes no value/);
  });

  it('an unknown command suggests the closest one', async () => {
    const r = await cli(['crosschek']);
    expect(r.code).toBe(2);
    expect(r.err[0]).toMatch(/unknown command 'crosschek' \(did you mean crosscheck\?\)/);
  });

  it('job names ignore case, - and _; an unknown one suggests the closest', async () => {
    const ok = await cli(['crosscheck', 'count-modules', '--size', '300', '--backends', 'wasm,serial', '--workers', '2']);
    expect(ok.code, ok.err.join('\n')).toBe(0);
    expect(ok.out[0]).toMatch(/^crosscheck countModules: size 300/);
    const old = await cli(['crosscheck', 'sts-sort', '--size', '300', '--backends', 'wasm,serial']);
    expect(old.code, old.err.join('\n')).toBe(0);
    expect(old.out[0]).toMatch(/^crosscheck stsSort:/);
    const bad = await cli(['crosscheck', 'countModule', '--backends', 'wasm,serial']);
    expect(bad.code).toBe(2);
    expect(bad.err[0]).toMatch(/no job 'countModule' \(did you mean countModules\?\); simt crosscheck --list shows them/);
    expect((await cli(['explore', 'LOST_UPDATE', '--schedules', '2'])).out[0]).toMatch(/^lostUpdate: 2 random schedules/);
    expect((await cli(['racecheck', 'lostUpdat'])).err[0]).toMatch(/did you mean lostUpdate\?\); simt explore --list shows them/);
    expect((await cli(['bench', 'cor'])).err[0]).toMatch(/no job 'cor' \(did you mean core\?\)/);
  });

  it('suggest() finds near names and nothing for far ones', () => {
    expect(suggest('schedule-sed', ['seed', 'schedule-seed'])).toBe('schedule-seed');
    expect(suggest('xyz', ['generate', 'channels'])).toBeUndefined();
  });
});

describe('old spellings', () => {
  it('--out-dir and --device-seed still work, with a deprecation note naming the new spelling', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simt-cli-'));
    const r = await cli(['pixel', '--generate', '500', '--out-dir', dir, '--device-seed', '3', '--backend', 'serial', '--json']);
    expect(r.code, r.err.join('\n')).toBe(0);
    expect(r.err).toEqual([
      'simt pixel: --out-dir is deprecated and will be removed in the next release: use --out',
      'simt pixel: --device-seed is deprecated and will be removed in the next release: use --schedule-seed',
    ]);
    expect(JSON.parse(r.out[0]!)).toMatchObject({ outDir: dir, deviceSeed: 3 });
    expect(existsSync(join(dir, 'clusterId.npy'))).toBe(true);
  });

  it('build -o is --out', () => {
    expect(parseOptions(['k.ts', '-o', 'out'], commands.find((c) => c.name === 'build')!.options!).options).toEqual({ out: 'out' });
  });

  it('an error names the flag as it was typed', async () => {
    expect((await cli(['sts-sort', '--generate', '10', '--device-seed', 'x'])).err.at(-1)).toMatch(/^simt sts-sort: --device-seed must be an integer/);
  });
});

describe('a summary by default, one JSON document with --json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'simt-cli-'));
  const jobs: [string, string[]][] = [
    ['demo', ['demo', '--n', '20000', '--digis', '20000', '--workers', '2']],
    ['sts-sort', ['sts-sort', '--generate', '5000', '--channels', '64', '--workers', '2']],
    ['pixel', ['pixel', '--generate', '3000', '--workers', '2']],
    ['pet', ['pet', '--generate', '2000', '--workers', '2', '--out', join(dir, 'pet')]],
    ['crosscheck', ['crosscheck', 'vecSum', '--size', '1000', '--backends', 'wasm,serial']],
    ['explore', ['explore', 'lostUpdate', '--schedules', '5']],
    ['racecheck', ['racecheck', 'vectorAdd']],
    ['racecheck --corpus', ['racecheck', '--corpus']],
  ];
  for (const [name, args] of jobs) {
    it(name, async () => {
      const human = await cli(args);
      expect(human.code, human.err.join('\n')).toBe(0);
      expect(human.out.length).toBeGreaterThan(0);
      // Readable: no line of the default output is JSON.
      for (const l of human.out) expect(l.trimStart().startsWith('{'), l).toBe(false);
      const json = await cli([...args, '--json']);
      expect(json.code, json.err.join('\n')).toBe(0);
      expect(json.out).toHaveLength(1);
      expect(typeof JSON.parse(json.out[0]!)).toBe('object');
    });
  }
});

describe('pipes and progress', () => {
  it('--json into a pipe closed early (| head): no EPIPE error, no stack, exit status 0', async () => {
    for (const args of [['explore', '--list'], ['demo', '--n', '1000', '--digis', '1000', '--json']]) {
      const child = spawn(process.execPath, [join(ROOT, 'bin/simt.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // the reader is gone before anything is written
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
      const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
      expect(stderr, args.join(' ')).toBe('');
      expect(code, args.join(' ')).toBe(0);
    }
    // As in a shell: `simt explore --list | head -1` prints one line, and simt exits quietly.
    const r = spawnSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" bin/simt.js explore --list | head -1`], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toBe('');
  });

  it('a progress bar redraws whole lines and ends full', () => {
    const writes: string[] = [];
    const bar = progressBar(4, true, (s) => writes.push(s));
    bar.step('a long label for the input step');
    bar.step('x');
    bar.update('merge', 1, 112);
    bar.update('s', 12, 112);
    bar.done();
    bar.done();
    const draws = writes.filter((w) => w !== '\n');
    // Every draw clears the line first, so nothing of a longer earlier draw is left behind.
    for (const d of draws) expect(d.startsWith('\r\x1b[2K')).toBe(true);
    expect(draws.at(-1)).toBe(`\r\x1b[2K[${'#'.repeat(24)}] 4/4 done`);
    expect(writes.filter((w) => w === '\n')).toHaveLength(1);
    // Not drawn at all when disabled (not a terminal, or --quiet).
    const none: string[] = [];
    const off = progressBar(3, false, (s) => none.push(s));
    off.step('a'); off.done();
    expect(none).toEqual([]);
  });
});

describe('sizes and replay strings', () => {
  it('pixel --generate N produces exactly N digis', async () => {
    for (const n of [1, 999, 70_000, 1_000_000]) expect(generateDigis(n, 1).moduleInd.length, String(n)).toBe(n);
    const r = await cli(['pixel', '--generate', '1000000', '--json', '--workers', '2']);
    expect(r.code, r.err.join('\n')).toBe(0);
    expect(JSON.parse(r.out[0]!).n).toBe(1_000_000);
    const over = await cli(['pixel', '--generate', '4000000']);
    expect(over.code).toBe(2);
    expect(over.err[0]).toMatch(/--generate must be an integer in \[1, 3500000\], got 4000000/);
  }, 120_000);

  it('explore and racecheck print replay strings whole, and each one replays', async () => {
    const r = await cli(['explore', 'transposeShared', '--schedules', '3']);
    expect(r.code).toBe(0);
    const replays = r.out.filter((l) => l.includes('replay: ')).map((l) => l.slice(l.indexOf('replay: ') + 8));
    expect(replays.length).toBeGreaterThan(0);
    expect(Math.max(...replays.map((s) => s.length))).toBeGreaterThan(200);
    for (const s of replays) {
      expect(s).not.toContain('…');
      const again = await cli(['explore', 'transposeShared', '--replay', s]);
      expect(again.code, again.err.join('\n')).toBe(0);
    }
    const rc = await cli(['racecheck', 'lostUpdate']);
    for (const l of rc.out.filter((x) => x.includes('replay: '))) expect(l).not.toContain('…');
  }, 120_000);
});

describe('simt bench', () => {
  it('--workers takes N or a list, each in [1, 256]', () => {
    expect(workerList({ workers: '4' })).toEqual([4]);
    expect(workerList({ workers: '1,2,4,8' })).toEqual([1, 2, 4, 8]);
    expect(workerList({})).toBeUndefined();
    for (const bad of ['0', '1,,2', 'x', '1.5', '300']) expect(() => workerList({ workers: bad }), bad).toThrow(/--workers needs N or a list/);
  });

  it('--kernels narrows the specializations suite to the named kernels, and only that suite', async () => {
    const other = await cli(['bench', 'core', '--kernels', 'vecMax']);
    expect(other.code).toBe(2);
    expect(other.err[0]).toMatch(/--kernels applies to the specializations suite only/);
    const unknown = await cli(['bench', 'specializations', '--quick', '--kernels', 'vecMax,petNope', '--quiet']);
    expect(unknown.code).toBe(2);
    expect(unknown.err[0]).toMatch(/--kernels: petNope is not a declared specialization \(have: vecMax, /);
    const empty = await cli(['bench', 'specializations', '--kernels', 'vecMax,,vecMin']);
    expect(empty.err[0]).toMatch(/--kernels needs NAME or a list NAME,NAME,…, got 'vecMax,,vecMin'/);
    const one = await cli(['bench', 'specializations', '--quick', '--kernels', 'petCoinCount', '--workers', '2', '--json', '--quiet']);
    expect(one.code, one.err.join('\n')).toBe(0);
    const names = one.out.map((l) => (JSON.parse(l) as { name: string }).name);
    expect(new Set(names)).toEqual(new Set(['petCoinCount/generic', 'petCoinCount/specialization']));
  }, 300_000);

  it('--warmup-ms takes an integer in [0, 600000]', async () => {
    for (const bad of ['x', '-1', '1.5', '600001']) {
      const r = await cli(['bench', 'core', '--warmup-ms', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.err[0], bad).toMatch(/^simt bench: --warmup-ms (needs a number|must be an integer in \[0, 600000\]), got /);
    }
  });

  it('node dist/bench/run.js (npm run bench) runs the same command and exits', () => {
    const r = spawnSync(process.execPath, [resolve('dist/bench/run.js'), '--list'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}user-kernels /m);
  });

  it('native C baselines run with as many threads as simt has workers; --quick headers name the quick sizes', async () => {
    const r = await cli(['bench', 'core', '--quick', '--workers', '2', '--quiet']);
    expect(r.code, r.err.join('\n')).toBe(0);
    const text = r.out.join('\n');
    expect(text.match(/^## core/gm)).toHaveLength(1);
    expect(text).toMatch(/^## core: vecMax 4M f32, countModules 5M digis/m);
    expect(text).toMatch(/; warm-up 0 ms a measurement$/m);
    const rows = r.out.filter((l) => /^(vecMax|countModules|emptyLaunch)\s/.test(l)).map((l) => l.split(/\s{2,}/));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows.filter((x) => x[1] !== 'js')) expect(row[3], row.join(' | ')).toBe('2');
    for (const row of rows) expect(row[5], row.join(' | ')).toMatch(/^±\d+\.\d%$/);
    if (spawnSync('cc', ['--version']).status === 0) expect(rows.filter((x) => x[1] === 'native-c').length).toBe(2);
  }, 300_000);
});
