// `simt racecheck|explore --module … --job …` end to end, as a user runs them: a module built
// to a directory (or a kernel source compiled on the spot) and job files in a temp directory,
// each command in its own process. Needs `npm run build` (dist/, bin/).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileKernelFiles, writeModuleFiles } from '../src/compiler/index.js';
import { entry, runCli } from './faults/child.js';

const RACY = 'test/kernels/racy.ts';
const line = (marker: string): number => readFileSync(RACY, 'utf8').split('\n').findIndex((l) => l.includes(marker)) + 1;

let dir: string;
let modulePath: string;
const bytes = Array.from({ length: 200 }, (_, i) => (i * 7) % 5);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'simt-race-cli-'));
  modulePath = await writeModuleFiles(await compileKernelFiles([RACY]), dir, 'racy');
  // A function of the --module returning a plain spec: needs nothing from simt.
  writeFileSync(join(dir, 'histogram.mjs'), `
const bytes = ${JSON.stringify(bytes)};
export default (module) => ({
  name: 'histogramPlain', module,
  buffers: { data: ['u8', bytes], bins: ['u32', 256] },
  launches: [{ kernel: 'histogramPlain', grid: 2, block: 64, args: ['data', bytes.length, 'bins'] }],
  outputs: ['bins'],
});
`);
  // A plain spec object: the --module becomes its module.
  writeFileSync(join(dir, 'reduce.mjs'), `
export default {
  name: 'reduceSynced',
  buffers: { input: ['i32', Array.from({ length: 128 }, (_, i) => i)], out: ['i32', 1] },
  launches: [{ kernel: 'reduceSynced', grid: 1, block: 128, args: ['input', 'out'] }],
};
`);
  // A self-contained job: loads its own module and calls defineJob from the package.
  writeFileSync(join(dir, 'own.mjs'), `
import { defineJob, loadKernelModule } from ${JSON.stringify(pathToFileURL(entry).href)};
const module = await loadKernelModule(new URL('./racy.simt.json', import.meta.url));
export default defineJob({
  name: 'warpNeighbour', module,
  buffers: { input: ['i32', Array.from({ length: 64 }, (_, i) => i)], out: ['i32', 64] },
  launches: [{ kernel: module.kernels.warpNeighbour, grid: 1, block: 64, args: { input: 'input', out: 'out' } }],
  outputs: ['out'],
});
`);
  writeFileSync(join(dir, 'nodefault.mjs'), 'export const job = 1;\n');
  writeFileSync(join(dir, 'number.mjs'), 'export default 42;\n');
});
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

describe('simt racecheck --module … --job …', () => {
  it('reports the planted race at its source line (module built with simt build), exit 1', async () => {
    const r = await runCli(['racecheck', '--module', modulePath, '--job', join(dir, 'histogram.mjs')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^histogramPlain: \d+ report\(s\) under 4 schedule\(s\)/);
    // compute-sanitizer's layout: both accesses with block, thread and source line, the pair count, the summary.
    const at = `${RACY}:${line('local[data[i]]++')}:5`;
    expect(r.stdout).toMatch(new RegExp(`^========= Error: Race reported between (Read|Write) access at ${at.replace(/[./]/g, '\\$&')} in block \\(\\d,0,0\\) thread \\(\\d+,0,0\\)$`, 'm'));
    expect(r.stdout).toMatch(/^=========     and (Read|Write) access at \S+ in block \(\d,0,0\) thread \(\d+,0,0\) \[\d+ hazards\]$/m);
    expect(r.stdout).toContain('hazard on __shared__ local[');
    const summary = /^========= RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)$/m.exec(r.stdout);
    expect(summary).not.toBeNull();
    expect(Number(summary![2])).toBeGreaterThan(0);
    expect(Number(summary![1])).toBe(Number(summary![2]) + Number(summary![3]));
    expect(r.stdout.trim().split('\n').pop()).toBe(summary![0]);
  }, 60_000);

  it('a kernel source as --module is compiled on the spot; a race-free job exits 0', async () => {
    const r = await runCli(['racecheck', '--module', RACY, '--job', join(dir, 'reduce.mjs')]);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('reduceSynced: 0 report(s) under 4 schedule(s)\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)');
    expect(r.code).toBe(0);
  }, 60_000);

  it('a job file with its own module and defineJob; --json gives one document with the findings', async () => {
    const r = await runCli(['racecheck', '--job', join(dir, 'own.mjs'), '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { job: string; reports: number; summary: { hazards: number; errors: number }; findings: Record<string, unknown>[] };
    expect(doc.job).toBe('warpNeighbour');
    expect(doc.reports).toBe(doc.findings.length);
    expect(doc.summary.errors).toBeGreaterThan(0);
    expect(doc.findings.every((f) => typeof f.severity === 'string')).toBe(true);
    expect(doc.findings.filter((f) => f.kind === 'warp-sync-hazard').every((f) => typeof f.count === 'number' && typeof f.hazard === 'string')).toBe(true);
    const hazard = doc.findings.find((l) => l.kind === 'warp-sync-hazard') as { first: { location: string }; second: { location: string } };
    expect([hazard.first.location, hazard.second.location].some((l) => l.startsWith(`${RACY}:${line('RACE: warp-synchronous read')}:`))).toBe(true);
  }, 60_000);
});

describe('simt explore --module … --job …', () => {
  it('finds differing outcomes; --replay of a printed schedule gives the same outputs', async () => {
    const common = ['--module', modulePath, '--job', join(dir, 'histogram.mjs')];
    const ex = await runCli(['explore', ...common, '--schedules', '6', '--json']);
    expect(ex.code).toBe(0);
    const res = JSON.parse(ex.stdout) as { runs: number; outcomes: { differsFromReference: boolean; schedule: string; outputs: { bins: number[] } }[] };
    expect(res.runs).toBe(6);
    const differing = res.outcomes.filter((o) => o.differsFromReference);
    expect(differing.length).toBeGreaterThan(0);
    const rp = await runCli(['explore', ...common, '--replay', differing[0]!.schedule, '--json']);
    expect(rp.code).toBe(0);
    expect((JSON.parse(rp.stdout) as { outputs: { bins: number[] } }).outputs.bins).toEqual(differing[0]!.outputs.bins);
  }, 60_000);

  it('--shard: shards of the built module and of its source merge (one module hash); another source is refused', async () => {
    const job = join(dir, 'histogram.mjs');
    const shard = async (module: string, i: number, tag: string): Promise<string> => {
      const r = await runCli(['explore', '--module', module, '--job', job, '--schedules', '6', '--shard', `${i}/2`, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const path = join(dir, `hist-${i}-${tag}.json`);
      writeFileSync(path, r.stdout);
      return path;
    };
    const [one, two] = [await shard(modulePath, 1, 'built'), await shard(RACY, 2, 'source')];
    expect(JSON.parse(readFileSync(one, 'utf8')).moduleHash).toBe(JSON.parse(readFileSync(two, 'utf8')).moduleHash);
    const merged = await runCli(['explore', 'merge', one, two, '--json']);
    expect(merged.code, merged.stderr).toBe(0);
    expect((JSON.parse(merged.stdout) as { runs: number; job: string }).runs).toBe(6);
    // The same kernels with one more comment: another module, whose shard does not belong here.
    const edited = join(dir, 'racy-edited.ts');
    writeFileSync(edited, `${readFileSync(RACY, 'utf8')}\n// edited\n`);
    const r = await runCli(['explore', 'merge', one, await shard(edited, 2, 'edited')]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^simt explore: OutcomeFileError: \S+hist-2-edited\.json: not a shard of the exploration in \S+hist-1-built\.json: moduleHash "[0-9a-f]{32}", there "[0-9a-f]{32}"$/);
  }, 120_000);
});

describe('bad --module / --job: one line, a typed error, no stack', () => {
  it.each([
    ['a missing job file', ['racecheck', '--module', RACY, '--job', 'no-such-job.mjs'], 1, /^simt racecheck: JobFileError: no-such-job\.mjs: no such file$/],
    ['a missing module file', ['racecheck', '--module', 'no-such.simt.json', '--job', 'x.mjs'], 1, /^simt racecheck: JobFileError: no-such\.simt\.json: no such file$/],
    ['a module without the kernel', ['racecheck', '--module', 'kernels/reduce/vecMax.ts', '--job', '<dir>/histogram.mjs'], 1,
      /^simt racecheck: RaceJobError: job 'histogramPlain': kernel 'histogramPlain' is not in module kernels\/reduce\/vecMax\.ts \(kernels: vecMax\)$/],
    ['a job file without a default export', ['explore', '--module', RACY, '--job', '<dir>/nodefault.mjs'], 1, /^simt explore: JobFileError: \S+nodefault\.mjs: has no default export/],
    ['a default export that is no job', ['racecheck', '--module', RACY, '--job', '<dir>/number.mjs'], 1, /^simt racecheck: JobFileError: \S+number\.mjs: the default export must be a job \(defineJob\), a job spec or a function returning one, got number$/],
    ['a module that is not one', ['racecheck', '--module', 'README.md', '--job', '<dir>/reduce.mjs'], 1, /^simt racecheck: JobFileError: README\.md: not a kernel module/],
    ['--module without --job', ['racecheck', '--module', RACY], 2, /^simt racecheck: --module needs --job <job\.js>/],
  ])('%s', async (_what, args, code, re) => {
    const r = await runCli(args.map((a) => a.replace('<dir>', dir)));
    expect(r.code).toBe(code);
    expect(r.stderr.trim()).toMatch(re);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  }, 60_000);
});
