// Regression tests for the race tools' defects listed in issue 13: each reproduced the defect
// before its fix (a crash, a missed race, a mislabelled hazard, an unbounded run, a bad replay
// string without the bad token named), and holds the fix in place.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileKernelFiles } from '../src/compiler/index.js';
import { createDevice } from '../src/device.js';
import type { KernelModule } from '../src/kernelModule.js';
import {
  RaceSession, ScheduleFormatError, StepBudgetError, defineJob, explore, findJob, formatSchedule, parseSchedule,
  racecheck, replay, type RaceReport,
} from '../src/race/index.js';

const FILE = 'test/kernels/hazards.ts';
let mod: KernelModule;
let session: RaceSession;
beforeAll(async () => {
  mod = await compileKernelFiles([FILE]);
  session = await RaceSession.open();
});
afterAll(async () => { await session?.close(); });

const lineOf = (marker: string): number => readFileSync(FILE, 'utf8').split('\n').findIndex((l) => l.includes(marker)) + 1;
const races = (r: { reports: RaceReport[] }): RaceReport[] => r.reports.filter((x) => x.kind === 'data-race' || x.kind === 'warp-sync-hazard');

describe('defects of issue 13, reproduced and fixed', () => {
  it('overlapping accesses of different sizes (a byte store inside another thread\'s word store) are one hazard, not a crash', async () => {
    const job = defineJob({
      name: 'mixedSizes', module: mod, buffers: { out: ['i32', 1] },
      launches: [{ kernel: 'mixedSizes', grid: 1, block: 64, sharedBytes: 4, args: ['out'] }],
    });
    const r = await racecheck(job, undefined, { session, schedules: 1 });
    const [race] = races(r);
    expect(race).toMatchObject({ kind: 'data-race', hazard: 'WAW', space: 'shared', severity: 'error' });
    expect([race!.first!.location, race!.second!.location].map((l) => Number(l!.split(':')[1])))
      .toEqual([lineOf('HAZARD: byte store'), lineOf('HAZARD: word store')]);
    expect([(race!.first as { size: number }).size, (race!.second as { size: number }).size]).toEqual([1, 4]);
  });

  it('a thread\'s own atomic does not erase its earlier plain store: another thread\'s unordered atomic races with it', async () => {
    const job = defineJob({
      name: 'storeThenAtomic', module: mod, buffers: { a: ['i32', 1] },
      launches: [{ kernel: 'storeThenAtomic', grid: 1, block: 64, args: ['a'] }],
    });
    const r = await racecheck(job, undefined, { session, schedules: 1 });
    const [race] = races(r);
    expect(race).toMatchObject({ kind: 'data-race', buffer: 'a', hazard: 'WAW', atomic: true, first: { thread: [0, 0, 0], access: 'write' }, second: { thread: [32, 0, 0], access: 'atomic' } });
    expect(race!.second!.location).toContain(`:${lineOf('HAZARD: unordered atomic')}:`);
  });

  it('lanes of one warp storing different values in one instruction are a data race (no __syncwarp fixes it), not a warp-sync hazard', async () => {
    const job = (kernel: string): ReturnType<typeof defineJob> => defineJob({
      name: kernel, module: mod, buffers: { out: ['i32', 1] },
      launches: [{ kernel, grid: 1, block: 32, args: ['out'] }],
    });
    const diff = races(await racecheck(job('laneStores'), undefined, { session, schedules: 1 }));
    expect(diff).toHaveLength(1);
    expect(diff[0]).toMatchObject({ kind: 'data-race', hazard: 'WAW', severity: 'error', count: 31 });
    expect(diff[0]!.message).toContain('in one instruction');
    // The same value from every lane: a warning, as compute-sanitizer calls benign same-value writes.
    const same = races(await racecheck(job('laneStoresSame'), undefined, { session, schedules: 1 }));
    expect(same).toHaveLength(1);
    expect(same[0]).toMatchObject({ kind: 'data-race', hazard: 'WAW', severity: 'warning' });
    expect(same[0]!.message).toContain('same value');
  });

  it('__syncthreads_count, __syncthreads_or and __shfl_up_sync run in race mode with the values device.launch gives, and no hazard', async () => {
    const input = Array.from({ length: 128 }, (_, i) => ((i * 5) % 11) - 3);
    const job = defineJob({
      name: 'votesAndScan', module: mod, buffers: { input: ['i32', input], out: ['i32', 128], flags: ['i32', 4] },
      launches: [{ kernel: 'votesAndScan', grid: 2, block: 64, args: ['input', 'out', 'flags'] }],
    });
    const r = await racecheck(job, undefined, { session });
    expect(r.reports).toEqual([]);
    const run = await replay(job, r.schedules[1]!, undefined, { session });
    const dev = await createDevice({ backend: 'serial', memoryBytes: 16 << 20, modules: [mod] });
    try {
      const i = await dev.upload('i32', Int32Array.from(input));
      const o = dev.alloc('i32', 128), f = dev.alloc('i32', 4);
      await dev.launch(mod.kernels.votesAndScan!, { grid: 2, block: 64 }, [i, o, f]);
      expect(Array.from(run.outputs.out!)).toEqual(Array.from(await o.read()));
      expect(Array.from(run.outputs.flags!)).toEqual(Array.from(await f.read()));
    } finally {
      await dev.destroy();
    }
    // Warp w's scan: lane l holds the sum of lanes 0..l of its warp.
    const out = Array.from(run.outputs.out!);
    expect(out[31]).toBe(input.slice(0, 32).reduce((a, v) => a + v, 0));
    expect(out[64 + 40]).toBe(input.slice(96, 96 + 9).reduce((a, v) => a + v, 0));
  });

  it('a spin-wait on another block stops at the step budget with where it stopped, in racecheck, explore and replay', async () => {
    const job = defineJob({
      name: 'spinOnFlag', module: mod, buffers: { flag: ['i32', 1], out: ['i32', 1] },
      launches: [{ kernel: 'spinOnFlag', grid: 2, block: 1, args: ['flag', 'out'] }],
    });
    const spin = new RegExp(`^kernel spinOnFlag stopped after 5000 scheduling steps \\(its step budget\\): block \\(0,0,0\\) thread \\(0,0,0\\) was at ${FILE.replace(/\//g, '\\/').replace('.', '\\.')}:${lineOf('SPIN')}:\\d+`);
    await expect(racecheck(job, undefined, { session, maxSteps: 5000 })).rejects.toThrow(StepBudgetError);
    await expect(racecheck(job, undefined, { session, maxSteps: 5000 })).rejects.toThrow(spin);
    await expect(explore(job, undefined, { session, schedules: 1, maxSteps: 5000 })).rejects.toThrow(spin);
    const err = await racecheck(job, undefined, { session, maxSteps: 5000 }).catch((e: Error) => e);
    expect((err as Error).message).not.toContain('\n');
    // The session is usable after the stop: a clean job runs.
    expect((await racecheck(findJob('vectorAdd')!, undefined, { session })).reports).toEqual([]);
  });

  it('countModules\' moduleStart: atomic-order output (a note, no race), and one outcome class "same set, different order"', async () => {
    const job = findJob('countModules')!;
    const r = await racecheck(job, undefined, { session });
    expect(r.reports).toHaveLength(1);
    expect(r.reports[0]).toMatchObject({ kind: 'atomic-order-output', severity: 'note', buffer: 'moduleStart', order: 'same-set' });
    const ex = await explore(job, undefined, { session, schedules: 40 });
    expect(ex.outcomes.length).toBeGreaterThan(2);
    expect(ex.classes.map((c) => c.class)).toEqual(ex.classes.some((c) => c.class === 'reference') ? ['reference', 'same-set'] : ['same-set']);
    expect(ex.classes.reduce((a, c) => a + c.runs, 0)).toBe(40);
    // A lost update changes the values, not only their order.
    const lost = await explore(findJob('lostUpdate')!, undefined, { session, schedules: 20 });
    expect(lost.classes.some((c) => c.class === 'differs')).toBe(true);
  });

  it('warps narrower than 32 lanes: warpSize sets which lanes are one warp', async () => {
    const racy = await compileKernelFiles(['test/kernels/racy.ts']);
    const job = (warpSize?: number): ReturnType<typeof defineJob> => defineJob({
      name: 'warpNeighbour', module: racy, buffers: { input: ['i32', Array.from({ length: 64 }, (_, i) => i)], out: ['i32', 64] },
      launches: [{ kernel: 'warpNeighbour', grid: 1, block: 64, args: ['input', 'out'], warpSize }],
    });
    // out[t] = s[t ^ 1]: lanes t and t^1 share a warp of 2 or more lanes, not of 1.
    expect(new Set(races(await racecheck(job(), undefined, { session, schedules: 1 })).map((r) => r.kind))).toEqual(new Set(['warp-sync-hazard']));
    expect(new Set(races(await racecheck(job(2), undefined, { session, schedules: 1 })).map((r) => r.kind))).toEqual(new Set(['warp-sync-hazard']));
    expect(new Set(races(await racecheck(job(1), undefined, { session, schedules: 1 })).map((r) => r.kind))).toEqual(new Set(['data-race']));
    await expect(racecheck(job(3), undefined, { session, schedules: 1 })).rejects.toThrow(/warpSize must be a power of two from 1 to 32, got 3/);
  });

  it('a malformed or truncated replay string is a ScheduleFormatError naming the bad token', () => {
    const good = formatSchedule({ mode: 'fine', strategy: 'random', generator: 'mulberry32', seed: 3, depth: null, decisions: [1, 1, 2, 40, 40, 40, 7] });
    const cases: [string, RegExp][] = [
      [good.slice(0, good.length - 12), /truncated/],
      [good.replace(':random:', ':randon:'), /unknown strategy "randon"/],
      [good.replace('1*2.2.14*3.7', '1*2.2.1$*3.7'), /bad decision "1\$\*3"/],
      [good.replace(':3:-:', ':x3:-:'), /bad seed "x3"/],
      [good.replace(':7:1*2', ':9:1*2'), /9 decisions declared, 7 present/],
      ['simt-sched/2:fine:random', /truncated: .*3 of 9 ':'-separated fields/],
    ];
    for (const [text, re] of cases) {
      let err: unknown;
      try { parseSchedule(text); } catch (e) { err = e; }
      expect(err, text).toBeInstanceOf(ScheduleFormatError);
      expect((err as Error).message, text).toMatch(re);
      expect((err as Error).message).not.toContain('\n');
    }
    expect(parseSchedule(good)).toMatchObject({ strategy: 'random', seed: 3, decisions: [1, 1, 2, 40, 40, 40, 7] });
  });
});
