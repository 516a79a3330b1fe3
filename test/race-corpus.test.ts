import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RaceSession, corpus, racecheck, type RaceJob } from '../src/race/index.js';
import { KernelArgumentError, LaunchConfigError } from '../src/errors.js';
import { compileKernelFiles, KernelCompileError } from '../src/compiler/index.js';
import { shippedModule } from '../src/shippedModule.js';
import { main } from '../src/cli/main.js';

let session: RaceSession;
beforeAll(async () => { session = await RaceSession.open(); });
afterAll(async () => { await session.close(); });

describe('the race corpus', () => {
  it('has at least 20 racy and 20 race-free kernels, including the seeds\' four', () => {
    expect(corpus.filter((j) => j.racy).length).toBeGreaterThanOrEqual(20);
    expect(corpus.filter((j) => !j.racy).length).toBeGreaterThanOrEqual(20);
    for (const name of ['countModules', 'petFillData', 'petIntraWarpScan', 'stsAtomicScatter']) {
      expect(corpus.find((j) => j.name === name)?.racy).toBe(true);
    }
    expect(new Set(corpus.map((j) => j.name)).size).toBe(corpus.length);
  });

  it('runs simt\'s own compiled kernels: every launch names a kernel of the shipped module from kernels/', async () => {
    const shipped = await shippedModule();
    const fileOf = (name: string): string | undefined => shipped.meta.kernels.find((k) => k.name === name)?.file;
    const named: string[] = [];
    for (const job of corpus) {
      await job.run({ device: undefined as never, buffer: async () => ({ read: async () => [] }) as never, launch: (l) => { named.push(l.kernel as string); } }, job.inputs());
    }
    expect(named.length).toBeGreaterThanOrEqual(corpus.length);
    for (const name of named) {
      expect(typeof name).toBe('string');
      expect(shipped.kernels[name]?.name, name).toBe(name);
      expect(fileOf(name), name).toMatch(/^kernels\/(race|pixel|sts|pet)\//);
    }
    // The seeds' jobs run the generic kernels the fast paths declare as theirs, not copies:
    // seed 000's countModules, seed 001's FillDataKernel (fixed), seed 004's atomic count and scatter.
    expect(fileOf('countModules')).toBe('kernels/pixel/countModules.ts');
    expect(fileOf('petCoinCount')).toBe('kernels/pet/coincidence.ts');
    expect(fileOf('stsScatterAtomic')).toBe('kernels/sts/atomicSort.ts');
    expect(fileOf('stsCountChannels')).toBe('kernels/sts/atomicSort.ts');
    expect(named).toEqual(expect.arrayContaining(['countModules', 'petCoinCount', 'stsScatterAtomic', 'stsCountChannels']));
  });

  it('a kernel name that simt\'s own module lacks is a one-line LaunchConfigError; its arguments are checked as device.launch checks them', async () => {
    const launching = (kernel: string, dtype: 'i32' | 'f32'): RaceJob<null> => ({
      name: kernel, summary: '', racy: false, expect: [], inputs: () => null,
      async run(ctx) {
        const c = await ctx.buffer('counter', dtype, 1);
        ctx.launch({ kernel, grid: 1, block: 2, args: [c] });
        return {};
      },
    });
    for (const name of ['noSuchKernel', 'toString']) {
      const e = await racecheck(launching(name, 'i32'), null, { session }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(LaunchConfigError);
      expect((e as Error).message).toMatch(new RegExp(`^no kernel '${name}' among simt's own kernels \\(known: .*\\batomicCounter\\b.*\\blostUpdate\\b`));
      expect((e as Error).message).not.toContain('\n');
    }
    await expect(racecheck(launching('lostUpdate', 'f32'), null, { session })).rejects.toThrow(KernelArgumentError);
    await expect(racecheck(launching('lostUpdate', 'f32'), null, { session })).rejects.toThrow("kernel lostUpdate: parameter 'counter': expected i32[], got f32[]");
  });

  it('a __syncthreads() that part of the block skips by its threadIdx is a compile-time finding: file, line and reason', async () => {
    const FILE = 'test/kernels/divergentBarriers.ts';
    const lineOf = (marker: string): number => readFileSync(FILE, 'utf8').split('\n').findIndex((l) => l.includes(marker)) + 1;
    const e = await compileKernelFiles([FILE], { cacheDir: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(KernelCompileError);
    const found = (e as KernelCompileError).diagnostics.map((d) => [d.file, d.line, /thread-dependent control flow: `(.*)` depends on threadIdx/.exec(d.message)?.[1]]);
    expect(found).toEqual([
      [FILE, lineOf('DIVERGENT: half the block'), 'threadIdx.x < (blockDim.x >> 1)'],
      [FILE, lineOf('DIVERGENT: two sites'), 'threadIdx.x & 1'],
    ]);
    expect((e as Error).message).toMatch(new RegExp(`^${FILE}:${lineOf('DIVERGENT: half the block')}:\\d+: a barrier or warp operation under thread-dependent control flow.*CUDA requires every thread of the block to reach the same __syncthreads`));
  });

  for (const job of corpus) {
    it(`${job.racy ? 'detects' : 'stays quiet on'} ${job.name}`, async () => {
      const r = await racecheck(job, job.inputs(), { session });
      if (job.racy) {
        expect(r.reports.length).toBeGreaterThan(0);
        expect(r.reports.some((x) => job.expect.includes(x.kind))).toBe(true);
      } else {
        expect(r.reports).toEqual([]);
      }
    });
  }

  it('simt racecheck --corpus --json prints one document: the summary and a record per kernel', async () => {
    const lines: string[] = [];
    const code = await main(['racecheck', '--corpus', '--json'], { out: (l) => lines.push(l), err: (l) => lines.push(l), tty: false });
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    const doc = JSON.parse(lines[0]!) as { detected: number; missed: number; falseAlarms: number; kernels: Record<string, unknown>[] };
    expect(doc.kernels.length).toBe(corpus.length);
    for (const rec of doc.kernels) {
      expect(typeof rec.name).toBe('string');
      expect(typeof rec.racy).toBe('boolean');
      expect(typeof rec.reports).toBe('number');
    }
    expect({ ...doc, kernels: undefined }).toEqual({ detected: corpus.filter((j) => j.racy).length, missed: 0, falseAlarms: 0, kernels: undefined });
  });
});
