import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RaceSession, explore, findJob, replay, outputKey, type RaceJob } from '../src/race/index.js';

let session: RaceSession;
beforeAll(async () => { session = await RaceSession.open(); });
afterAll(async () => { await session.close(); });

/** The lost update with only two threads: small enough to enumerate every interleaving. */
const lostUpdate2: RaceJob<null> = {
  name: 'lostUpdate2', summary: 'counter++ by 2 threads', racy: true, expect: ['warp-sync-hazard'],
  inputs: () => null,
  async run(ctx) {
    const c = await ctx.buffer('counter', 'i32', 1);
    ctx.launch({ kernel: 'lostUpdate', grid: 1, block: 2, args: [c] });
    return { counter: await c.read() };
  },
};

describe('explore', () => {
  for (const name of ['countModules', 'countModulesPlain', 'stsAtomicScatter', 'stsPlainScatter', 'lostUpdate', 'petIntraWarpScan', 'histogramPlain', 'warpExchangeNoSync']) {
    it(`finds at least two outcomes of racy ${name}, each replayable`, async () => {
      const job = findJob(name)!;
      const r = await explore(job, job.inputs(), { schedules: 40, strategy: 'random', session });
      expect(r.outcomes.length).toBeGreaterThanOrEqual(2);
      expect(r.outcomes.reduce((s, o) => s + o.count, 0)).toBe(40);
      for (const o of r.outcomes.slice(0, 3)) {
        const again = await replay(job, o.schedule, job.inputs(), { session });
        expect(outputKey(again.outputs)).toBe(o.key);
      }
    });
  }

  for (const name of ['countModulesCount', 'petIntraWarpScanSync', 'petFillDataFixed', 'stsCount', 'stsOwnerScatter', 'atomicCounter', 'reduceSync', 'reduceWarpSync', 'casMax', 'produceConsume']) {
    it(`finds exactly one outcome of race-free ${name} (random and PCT)`, async () => {
      const job = findJob(name)!;
      for (const strategy of ['random', 'pct'] as const) {
        const r = await explore(job, job.inputs(), { schedules: 25, strategy, session });
        expect(r.outcomes.length).toBe(1);
        expect(r.outcomes[0]!.differsFromReference).toBe(false);
      }
    });
  }

  it('race-free outputs are the right values (hand-checked)', async () => {
    const scan = await explore(findJob('petIntraWarpScanSync')!, undefined, { schedules: 5, session });
    const input = Array.from({ length: 32 }, (_, k) => (k % 3) + 1);
    const exclusive = input.map((_, k) => input.slice(0, k).reduce((a, b) => a + b, 0));
    expect(Array.from(scan.outcomes[0]!.outputs.out as Uint32Array)).toEqual(exclusive);
    const fill = await explore(findJob('petFillDataFixed')!, undefined, { schedules: 5, session });
    const valid = Array.from({ length: 150 }, (_, k) => (k % 3 === 2 ? 0 : 1));
    // petCoinCount: all 64 threads of the block write their offset (threads past the data count 0).
    const local = Array.from({ length: 64 }, (_, t) => valid.slice(4 * t, 4 * t + 4).reduce((a, b) => a + b, 0));
    expect(Array.from(fill.outcomes[0]!.outputs.newLength as Uint32Array)).toEqual([100]);
    expect(Array.from(fill.outcomes[0]!.outputs.scanId as Uint32Array)).toEqual(local.map((_, t) => local.slice(0, t).reduce((a, b) => a + b, 0)));
  });

  it('PCT finds the lost update and stops there; the schedule reproduces it', async () => {
    const job = findJob('lostUpdate')!;
    const r = await explore(job, job.inputs(), { schedules: 200, strategy: 'pct', depth: 2, untilDiffers: true, session });
    expect(r.found).toBeDefined();
    expect(r.reference.outputs.counter![0]).toBe(8);
    const again = await replay(job, r.found!.schedule, job.inputs(), { session });
    expect((again.outputs.counter as Int32Array)[0]).toBeLessThan(8);
  });

  it('PCT finds the lost update of two threads with depth 2 in most seeds', async () => {
    const r = await explore(lostUpdate2, null, { schedules: 100, strategy: 'pct', depth: 2, session });
    const lost = r.outcomes.find((o) => (o.outputs.counter as Int32Array)[0] === 1);
    expect(lost).toBeDefined();
    // PCT's bound for d = 2, n = 2 threads and k = 5 steps is ≥ 1/(n·k) = 10 %.
    expect(lost!.count).toBeGreaterThanOrEqual(10);
  });

  it('enumerates every interleaving of a tiny grid', async () => {
    const r = await explore(lostUpdate2, null, { schedules: 10_000, strategy: 'exhaustive', session });
    expect(r.exhausted).toBe(true);
    const values = r.outcomes.map((o) => (o.outputs.counter as Int32Array)[0]).sort();
    expect(values).toEqual([1, 2]);
    expect(r.runs).toBeGreaterThan(2);
  });

  it('stops on a user predicate', async () => {
    const job = findJob('countModules')!;
    const r = await explore(job, job.inputs(), {
      schedules: 500, session, stopWhen: (run) => (run.outputs.moduleStart as Uint32Array)[1] === 12,
    });
    expect(r.found).toBeDefined();
    expect((r.found!.outputs.moduleStart as Uint32Array)[1]).toBe(12);
  });
});
