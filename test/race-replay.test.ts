import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevice, kernels } from '../src/index.js';
import {
  RaceSession, RandomChooser, PctChooser, findJob, replay, outputKey, formatSchedule, parseSchedule,
  serialSchedule, decodeDecisions, encodeDecisions, ScheduleMismatchError,
} from '../src/race/index.js';

let session: RaceSession;
beforeAll(async () => { session = await RaceSession.open(); });
afterAll(async () => { await session.close(); });

describe('schedules you can hold', () => {
  it('encodes decisions run-length and round-trips a schedule string', () => {
    const d = [0, 0, 0, 5, 5, 40, 1];
    expect(encodeDecisions(d)).toBe('0*3.5*2.14.1');
    expect(decodeDecisions(encodeDecisions(d))).toEqual(d);
    const s = formatSchedule({ mode: 'fine', strategy: 'pct', generator: 'mulberry32', seed: 7, depth: 3, decisions: d });
    expect(s).toBe('simt-sched/2:fine:pct:mulberry32:7:3:7:0*3.5*2.14.1:1fd9bd8e');
    expect(parseSchedule(s)).toEqual({ mode: 'fine', strategy: 'pct', generator: 'mulberry32', seed: 7, depth: 3, decisions: d });
    expect(parseSchedule(serialSchedule(12345))).toEqual({ mode: 'serial', generator: 'splitmix64', seed: 12345 });
    expect(() => parseSchedule('nope')).toThrow(SyntaxError);
  });

  for (const name of ['countModules', 'lostUpdate', 'stsAtomicScatter', 'petIntraWarpScan', 'petFillData']) {
    it(`replays a random ${name} schedule bit for bit from its string`, async () => {
      const job = findJob(name)!;
      for (const seed of [3, 11]) {
        const run = await session.runJob(job, job.inputs(), new RandomChooser(seed), false);
        const s = formatSchedule({ mode: 'fine', strategy: 'random', generator: 'mulberry32', seed, depth: null, decisions: run.decisions });
        const again = await replay(job, s, job.inputs(), { session });
        expect(outputKey(again.outputs)).toBe(outputKey(run.outputs));
        expect(again.decisions).toEqual(run.decisions);
      }
    });
  }

  it('replays a PCT schedule with the race detector on, with the same reports', async () => {
    const job = findJob('petFillData')!;
    const run = await session.runJob(job, job.inputs(), new PctChooser(5, 3, 2000), true);
    const s = formatSchedule({ mode: 'fine', strategy: 'pct', generator: 'mulberry32', seed: 5, depth: 3, decisions: run.decisions });
    const again = await replay(job, s, job.inputs(), { session, detect: true });
    expect(again.reports).toEqual(run.reports);
    expect(outputKey(again.outputs)).toBe(outputKey(run.outputs));
  });

  it('rejects a schedule that does not fit the job', async () => {
    const job = findJob('lostUpdate')!;
    await expect(replay(job, 'simt-sched/1:fine:random:-:-:-:z*3', job.inputs(), { session })).rejects.toThrow(ScheduleMismatchError);
  });

  it('replays a serial phase-loop launch from its schedule string (seed)', async () => {
    const dev = await createDevice({ backend: 'serial', memoryBytes: 32 << 20 });
    try {
      const ids = new Uint16Array(4000).map((_, k) => Math.floor(k / 7));
      const id = await dev.upload('u16', ids);
      const ms = dev.alloc('u32', 1000);
      const cl = dev.alloc('i32', ids.length);
      await ms.fill(0);
      const stats = await dev.launch(kernels.countModules, { grid: 8, block: 64 }, [id, ms, cl, ids.length, 999]);
      const first = await ms.read();
      const sched = serialSchedule(stats.seed!);
      const parsed = parseSchedule(sched);
      expect(parsed.mode).toBe('serial');
      await ms.fill(0);
      await dev.launch(kernels.countModules, { grid: 8, block: 64, seed: (parsed as { seed: number }).seed }, [id, ms, cl, ids.length, 999]);
      expect(Buffer.from((await ms.read()).buffer)).toEqual(Buffer.from(first.buffer));
    } finally {
      await dev.destroy();
    }
  });
});
