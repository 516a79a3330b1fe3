// Costs of the race tools, as multiples (`costVsWasm`) of the fast parallel `wasm` backend on
// the same kernel and input (countModules: the phase-loop kernel on the pool; the shipped
// compiled kernel, kernels/pixel/countModules.ts, in its fine-grained form on the host's schedulers):
//   serial                — phase loops, one worker, seeded block and thread order;
//   racecheck/…           — barrier-interval order (a thread runs until it blocks or ends: no
//                           preemption at accesses): the screen (the compiled kernel's screen form,
//                           in wasm), and the shadow-memory detector where the screen finds
//                           something; `-x4` is racecheck() as the CLI runs it (4 orders whose
//                           outputs it compares, on the screen when each is clean); `screen` says
//                           what the screen found;
//   replay/…-inorder      — a recorded in-order fine-grained schedule replayed (a decision at every access);
//   replay/…-interval     — a recorded interval-order schedule replayed;
//   explore/…-pct|random  — fine-grained exploration: PCT (depth 3), a random thread at every access.
import { createDevice } from '../src/device.js';
import { countModules } from '../src/kernels/index.js';
import {
  RaceSession, InOrderChooser, IntervalChooser, PctChooser, RandomChooser, ReplayChooser, racecheck, type RaceJob, type Chooser,
} from '../src/race/index.js';
import { type BenchRecord, type BenchSuite, measure, record } from './harness.js';

const INVALID = 65534;

function moduleIds(n: number): Uint16Array {
  const ids = new Uint16Array(n);
  let m = 0;
  for (let k = 0; k < n; k++) {
    if (k % 13 === 0) m++;
    ids[k] = k % 29 === 5 ? INVALID : m;
  }
  return ids;
}

function threadJob(ids: Uint16Array, grid: number, block: number, modules: number): RaceJob<null> {
  return {
    name: 'countModules-bench', summary: '', racy: true, expect: [], inputs: () => null,
    async run(ctx) {
      const id = await ctx.buffer('id', 'u16', ids);
      const ms = await ctx.buffer('moduleStart', 'u32', modules + 1);
      const cl = await ctx.buffer('clusterId', 'i32', ids.length);
      ctx.launch({ kernel: 'countModules', grid, block, args: [id, ms, cl, ids.length, modules] });
      return {};
    },
  };
}

export const suite: BenchSuite = {
  name: 'race',
  description: 'racecheck, replay and exploration as multiples of the parallel wasm backend (countModules, 16384 digis; racecheck also at 1M)',
  quickDescription: 'racecheck, replay and exploration as multiples of the parallel wasm backend (countModules, 2048 digis)',
  async run(ctx) {
    const sizes = ctx.quick ? [2048] : [16384, 1 << 20];
    const records: BenchRecord[] = [];
    for (const n of sizes) {
      const big = n > 100_000;
      // 16k: 8 blocks in a grid-stride loop (as before); 1M: one digi per thread (8192 blocks, run in waves).
      const block = 128, grid = big ? Math.ceil(n / block) : 8;
      const modules = Math.ceil(n / 13) + 2;
      const ids = moduleIds(n);
      const phase = async (backend: 'wasm' | 'serial'): Promise<{ median: number; samples: number[] }> => {
        const dev = await createDevice({ backend, memoryBytes: 64 << 20, seed: 1, ...(backend === 'wasm' ? { workers: ctx.workers } : {}) });
        try {
          const id = await dev.upload('u16', ids);
          const ms = dev.alloc('u32', modules + 1);
          const cl = dev.alloc('i32', n);
          return await measure(`countModules-${backend}-${n}`, async () => {
            await ms.fill(0);
            await dev.launch(countModules, { grid, block }, [id, ms, cl, n, modules]);
          }, { iterations: ctx.quick ? 3 : 10, time: ctx.quick ? 50 : 300 });
        } finally {
          await dev.destroy();
        }
      };
      const wasm = await phase('wasm');
      const base = wasm.median;
      records.push(record('countModules', 'simt-wasm', n, base, { costVsWasm: 1, multiple: 1, workers: ctx.workers, times: wasm.samples }));
      if (!big) {
        const serial = await phase('serial');
        records.push(record('countModules', 'simt-serial', n, serial.median, { costVsWasm: serial.median / base, multiple: serial.median / base, workers: 1, times: serial.samples }));
      }

      // The session the CLI opens: a serial device of 256 MiB, seed 1, simt's screen form loaded.
      const session = await RaceSession.open();
      try {
        const job = threadJob(ids, grid, block, modules);
        const inorder = await session.runJob(job, null, new InOrderChooser(), false);
        const interval = await session.runJob(job, null, new IntervalChooser(3), false);
        const modes: [string, () => Chooser, boolean, number][] = [
          ['racecheck/countModules', () => new IntervalChooser(), true, 1],
          ...(big ? [] : [
            ['racecheck/countModules-x4', () => new IntervalChooser(), true, 4],
            ['replay/countModules-inorder', () => new ReplayChooser(inorder.decisions), false, 1],
            ['replay/countModules-interval', () => new ReplayChooser(interval.decisions, true, true), false, 1],
            ['explore/countModules-pct', () => new PctChooser(7, 3, inorder.steps), false, 1],
            ['explore/countModules-random', () => new RandomChooser(7), false, 1],
          ] as [string, () => Chooser, boolean, number][]),
        ];
        for (const [name, chooser, detect, runs] of modes) {
          let switches = 0, steps = 0, screen: string | undefined;
          const { median, samples } = await measure(`${name}-${n}`, async () => {
            if (runs > 1) {
              // What `simt racecheck` runs: racecheck() with its default orders.
              await racecheck(job, null, { session, schedules: runs });
              screen = session.lastScreen ? (session.lastScreen.clean ? 'clean' : session.lastScreen.why) : undefined;
              return;
            }
            const r = await session.runJob(job, null, chooser(), detect);
            switches = r.switches; steps = r.steps;
            screen = session.lastScreen ? (session.lastScreen.clean ? 'clean' : session.lastScreen.why) : undefined;
          }, { iterations: big ? 1 : ctx.quick ? 2 : 5, time: ctx.quick || big ? 0 : 300, warmup: big ? 0 : 1 });
          records.push(record(name, 'simt-host', n, median, { costVsWasm: median / base, multiple: median / base, switches, yieldPoints: steps, workers: 1, times: samples, ...(screen ? { screen } : {}) }));
        }
      } finally {
        await session.close();
      }
    }
    return records;
  },
};
