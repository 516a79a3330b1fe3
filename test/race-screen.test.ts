// The race screen (src/race/screen.ts): racecheck's fast pass must never call a launch clean
// where the fine-grained detector reports something, and a clean run must be the detector's
// in-order interval run (same outputs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RaceSession, corpus, racecheck, replay, IntervalChooser, type RaceJob } from '../src/race/index.js';
import { parseSchedule } from '../src/race/schedule.js';
import { outputKey } from '../src/race/job.js';
import { compileKernels, buildFine, buildScreen } from '../src/compiler/index.js';
import { makeKernelModule } from '../src/kernelModule.js';
import { defineJob } from '../src/race/defineJob.js';
import { rng } from './helpers.js';

let session: RaceSession;
beforeAll(async () => { session = await RaceSession.open(); });
afterAll(async () => { await session.close(); });

/** One detection run (in-order interval schedule) with the screen on, then off. */
async function both<I>(job: RaceJob<I>, inputs: I = job.inputs()) {
  session.useScreen = true;
  const screened = await session.runJob(job, inputs, new IntervalChooser(), true);
  const verdict = session.lastScreen;
  session.useScreen = false;
  const detector = await session.runJob(job, inputs, new IntervalChooser(), true);
  session.useScreen = true;
  return { screened, verdict, detector };
}

const hazards = (r: { reports: { severity?: string }[] }) => r.reports.filter((x) => x.severity !== 'note');

describe('the race screen on the corpus', () => {
  for (const job of corpus) {
    it(`${job.name}: clean only where the detector reports nothing; the same outputs`, async () => {
      const { screened, verdict, detector } = await both(job);
      expect(verdict).toBeDefined();
      if (verdict!.clean) {
        expect(hazards(detector)).toEqual([]);
        expect(screened.reports).toEqual([]);
        expect(screened.decisions).toEqual([]);
      } else {
        // Not clean: the run is the detector's own.
        expect(screened.reports.map((r) => r.kind)).toEqual(detector.reports.map((r) => r.kind));
      }
      expect(outputKey(screened.outputs)).toBe(outputKey(detector.outputs));
    });
  }

  it('finds something in every job whose first run the detector reports a hazard in (none missed)', async () => {
    let flagged = 0, clean = 0;
    for (const job of corpus) {
      const { verdict, detector } = await both(job);
      if (hazards(detector).length > 0) { expect(verdict!.clean, job.name).toBe(false); flagged++; } else if (verdict!.clean) clean++;
    }
    expect(flagged).toBeGreaterThanOrEqual(15);
    // It pays where it should: most race-free jobs need no detector run at all.
    expect(clean).toBeGreaterThanOrEqual(Math.floor(corpus.filter((j) => !j.racy).length / 2));
  });

  it('racecheck gives the same findings with and without the screen, on every corpus job', async () => {
    for (const job of corpus) {
      session.useScreen = true;
      const a = await racecheck(job, job.inputs(), { session });
      session.useScreen = false;
      const b = await racecheck(job, job.inputs(), { session });
      session.useScreen = true;
      const key = (r: typeof a) => r.reports.filter((x) => x.kind !== 'atomic-order-output' && x.kind !== 'schedule-dependent-output')
        .map((x) => `${x.kind}:${x.severity}:${x.first?.location ?? ''}:${x.second?.location ?? ''}`).sort();
      expect(key(a), job.name).toEqual(key(b));
    }
  });
});

describe('racecheck on the screen', () => {
  it('runs every order on the screen when each is clean: the later ones permuted as the serial backend permutes seeds, each replayable bit for bit', async () => {
    const job = corpus.find((j) => j.name === 'stsCount')!;
    const r = await racecheck(job, job.inputs(), { session, schedules: 4, seed: 7 });
    expect(r.reports.filter((x) => x.severity !== 'note')).toEqual([]);
    expect(r.schedules).toHaveLength(4);
    const parsed = r.schedules.map(parseSchedule);
    expect(parsed[0]).toEqual({ mode: 'serial', generator: 'inorder', seed: 0 });
    expect(parsed.slice(1)).toEqual([7, 8, 9].map((seed) => ({ mode: 'serial', generator: 'splitmix64', seed })));
    for (const sched of r.schedules) {
      const a = await replay(job, sched, job.inputs(), { session });
      const b = await replay(job, sched, job.inputs(), { session });
      expect(outputKey(a.outputs)).toBe(outputKey(b.outputs));
    }
  });

  it('an order-dependent output found on the screen is a note with two replayable schedules that give the two outputs', async () => {
    const job = corpus.find((j) => j.name === 'countModules')!;
    const r = await racecheck(job, job.inputs(), { session });
    const note = r.reports.find((x) => x.kind === 'atomic-order-output');
    expect(r.reports.filter((x) => x.severity !== 'note')).toEqual([]);
    expect(note?.schedules).toHaveLength(2);
    // One at a time: a session runs one job at once.
    const a = (await replay(job, note!.schedules![0], job.inputs(), { session })).outputs;
    const b = (await replay(job, note!.schedules![1], job.inputs(), { session })).outputs;
    expect(outputKey(a!)).not.toBe(outputKey(b!));
    const buf = note!.buffer!;
    expect(String((a![buf] as ArrayLike<number>)[note!.index!])).not.toBe(String((b![buf] as ArrayLike<number>)[note!.index!]));
  });

  it('a racy job runs every order on the detector: its schedules are fine-grained interval schedules', async () => {
    const job = corpus.find((j) => j.name === 'lostUpdate')!;
    const r = await racecheck(job, job.inputs(), { session });
    expect(r.reports.some((x) => x.kind === 'data-race')).toBe(true);
    for (const sched of r.schedules) expect(parseSchedule(sched)).toMatchObject({ mode: 'fine', strategy: 'interval' });
  });
});

const SRC = `
import { threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __shared__, atomicAdd } from "simt/kernel";

// A per-block sum in shared memory: race-free with the barrier, racy without (flag 0).
export function blockSum(x: i32[], out: i32[], n: i32, withBarrier: i32): void {
  const s = __shared__<i32>(256);
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0;
  if (withBarrier != 0) __syncthreads();
  if (threadIdx.x == 0) {
    let acc = 0;
    for (let k = 0; k < blockDim.x; k++) acc += s[k];
    out[blockIdx.x] = acc;
  }
}

// Bytes of one word written by different threads: no race in CUDA (the screen keeps which
// bytes of a word each record covers). With \`readBack\`, each thread then reads its
// neighbour's byte in the same barrier interval: a race.
export function bytes(out: u8[], n: i32, readBack: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = <u8>(i * 7);
  if (readBack != 0 && i + 1 < n && out[i + 1] == 255) out[i] = 0;
}

// u16 in-place updates: each thread reads and writes its own element (race-free).
export function bump(x: u16[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] + <u16>1;
}

// Every block adds into one counter: atomics, no race.
export function count(x: i32[], total: i32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(total, 0, x[i]);
}
`;

describe('the race screen on a user module', () => {
  it('screens a race-free shared-memory sum clean and flags the same kernel without its barrier; outputs as the detector\'s', async () => {
    const mod = await compileKernels([{ path: 'screen.ts', source: SRC }], { cacheDir: false });
    // Built on first use: a compile for `wasm` alone does not pay for it.
    expect(mod.screenWasm).toBeUndefined();
    expect(typeof mod.screenSource).toBe('string');
    const r = rng(5);
    for (const n of [1, 255, 256, 1000]) {
      const x = Array.from({ length: n }, () => Math.floor(r() * 2000) - 1000);
      const blocks = Math.ceil(n / 256);
      for (const withBarrier of [1, 0]) {
        const job = defineJob({
          name: `blockSum-${n}-${withBarrier}`, module: mod,
          buffers: { x: ['i32', x], out: ['i32', blocks] },
          launches: [{ kernel: 'blockSum', grid: blocks, block: 256, args: ['x', 'out', n, withBarrier] }],
        });
        const { verdict, screened, detector } = await both(job);
        expect(verdict!.clean, `n=${n} barrier=${withBarrier}`).toBe(withBarrier === 1);
        expect(hazards(detector).length > 0).toBe(withBarrier === 0);
        if (withBarrier) {
          const want = Array.from({ length: blocks }, (_, b) => x.slice(b * 256, b * 256 + 256).reduce((a, v) => a + v, 0));
          expect(Array.from(screened.outputs.out as ArrayLike<number>)).toEqual(want);
        }
      }
    }
  });

  it('screens bytes of one word written by different threads clean (no race), and their neighbour\'s read in the same interval not clean (a race)', async () => {
    const mod = await compileKernels([{ path: 'screen.ts', source: SRC }], { cacheDir: false });
    for (const n of [1, 3, 77, 256]) {
      const job = defineJob({ name: `bytes-${n}`, module: mod, buffers: { out: ['u8', n] }, launches: [{ kernel: 'bytes', grid: Math.ceil(n / 64), block: 64, args: ['out', n, 0] }] });
      const b = await both(job);
      expect(b.verdict!.clean, `n=${n}`).toBe(true);
      expect(hazards(b.detector)).toEqual([]);
      expect(Array.from(b.screened.outputs.out as ArrayLike<number>)).toEqual(Array.from({ length: n }, (_, i) => (i * 7) & 255));
    }
    const racy = defineJob({ name: 'bytes-racy', module: mod, buffers: { out: ['u8', 77] }, launches: [{ kernel: 'bytes', grid: 2, block: 64, args: ['out', 77, 1] }] });
    const r = await both(racy);
    expect(r.verdict!.clean).toBe(false);
    expect(hazards(r.screened).map((x) => x.kind)).toContain('data-race');
  });

  it('screens in-place u16 updates clean: each thread its own element, two to a word', async () => {
    const mod = await compileKernels([{ path: 'screen.ts', source: SRC }], { cacheDir: false });
    const r = rng(3);
    const x = Array.from({ length: 301 }, () => Math.floor(r() * 65535));
    const job = defineJob({ name: 'bump', module: mod, buffers: { x: ['u16', x] }, launches: [{ kernel: 'bump', grid: 3, block: 128, args: ['x', x.length] }] });
    const b = await both(job);
    expect(b.verdict!.clean).toBe(true);
    expect(hazards(b.detector)).toEqual([]);
    expect(Array.from(b.screened.outputs.x as ArrayLike<number>)).toEqual(x.map((v) => (v + 1) & 0xffff));
  });

  it('screens atomics from every block clean (no race), with the right total', async () => {
    const mod = await compileKernels([{ path: 'screen.ts', source: SRC }], { cacheDir: false });
    const r = rng(9);
    const x = Array.from({ length: 5000 }, () => Math.floor(r() * 100));
    const job = defineJob({ name: 'count', module: mod, buffers: { x: ['i32', x], total: ['i32', 1] }, launches: [{ kernel: 'count', grid: 7, block: 128, args: ['x', 'total', x.length] }] });
    const { verdict, screened, detector } = await both(job);
    expect(verdict!.clean).toBe(true);
    expect(hazards(detector)).toEqual([]);
    expect(Array.from(screened.outputs.total as ArrayLike<number>)).toEqual([x.reduce((a, v) => a + v, 0)]);
  });

  it('runs on the worker pool: the host thread stays free while a launch runs', async () => {
    const mod = await compileKernels([{ path: 'screen.ts', source: SRC }], { cacheDir: false });
    const job = (n: number) => defineJob({
      name: `count-${n}`, module: mod, buffers: { x: ['i32', new Int32Array(n).fill(1)], total: ['i32', 1] },
      launches: [{ kernel: 'count', grid: 64, block: 256, args: ['x', 'total', n] }],
    });
    await session.screenRun(job(10), job(10).inputs());         // builds and loads the screen form
    const big = job(1_000_000), inputs = big.inputs();
    let ticks = 0;
    const timer = setInterval(() => { ticks++; }, 2);
    const t0 = performance.now();
    const run = await session.screenRun(big, inputs);
    const ms = performance.now() - t0;
    clearInterval(timer);
    expect(session.lastScreen).toEqual({ clean: true });
    expect(Array.from(run!.outputs.total as ArrayLike<number>)).toEqual([1_000_000]);
    expect(run!.steps).toBe(2_000_000);                      // each thread's load of x[i] and its atomicAdd
    // 2M recorded accesses take tens of ms; the timer fired throughout (on the host thread it
    // would fire only between the launch and the job's reads).
    expect(ticks, `${ms.toFixed(0)} ms`).toBeGreaterThanOrEqual(Math.floor(ms / 20));
    expect(ms).toBeGreaterThan(20);
  });

  it('a job\'s host code between launches sees each launch\'s results (reads wait for the pool), and every launch is screened', async () => {
    const mod = await compileKernels([{ path: 'screen.ts', source: SRC }], { cacheDir: false });
    const seen: number[] = [];
    const job = defineJob({
      name: 'count-twice', module: mod, buffers: { x: ['i32', [1, 2, 3, 4, 5]], total: ['i32', 1] },
      async run(ctx) {
        ctx.launch('count', { grid: 1, block: 32 }, ['x', 'total', 5]);
        seen.push((await ctx.buffers.total!.read())[0] as number);
        ctx.launch('count', { grid: 2, block: 32 }, ['x', 'total', 5]);
        ctx.launch('bytes', { grid: 1, block: 64 }, [await ctx.buffer('out', 'u8', 8), 8, 1]);   // a race: the job is not clean
        return { total: ctx.buffers.total! };
      },
    });
    seen.length = 0;
    const run = await session.screenRun(job, job.inputs(), { all: true });
    expect(seen).toEqual([15]);
    expect(Array.from(run!.outputs.total as ArrayLike<number>)).toEqual([30]);
    expect(session.lastScreen).toEqual({ clean: false, why: 'conflict' });
    expect(run!.steps).toBe(2 * 5 + 2 * 5 + 8 + 7);          // count: a load and an atomic per element, twice; bytes: 8 stores, 7 reads
  });

  it('a module without a screen form (built before it) runs the detector alone, with the same findings', async () => {
    const mod = await compileKernels([{ path: 'screen.ts', source: SRC }], { cacheDir: false });
    expect(await buildScreen(mod)).toBeInstanceOf(Uint8Array);
    const old = makeKernelModule({ ...mod.meta, hash: `${mod.meta.hash}-before-screens` }, mod.wasm, await buildFine(mod));
    expect(old.screenWasm).toBeUndefined();
    expect(await buildScreen(old)).toBeUndefined();
    const job = defineJob({ name: 'noscreen', module: old, buffers: { x: ['i32', [1, 2, 3]], out: ['i32', 1] }, launches: [{ kernel: 'blockSum', grid: 1, block: 256, args: ['x', 'out', 3, 0] }] });
    const { verdict, screened } = await both(job);
    expect(verdict).toEqual({ clean: false, why: 'no-screen' });
    expect(hazards(screened).map((x) => x.kind)).toContain('data-race');
    // Its racecheck runs on the detector (fine-grained schedules); a screen order cannot replay on it.
    const rc = await racecheck(job, job.inputs(), { session });
    for (const sched of rc.schedules) expect(parseSchedule(sched).mode).toBe('fine');
    await expect(replay(job, 'simt-sched/2:serial:splitmix64:1:00f8a386', job.inputs(), { session })).rejects.toThrow(/racecheck's screen .*has none/);
  });
});
