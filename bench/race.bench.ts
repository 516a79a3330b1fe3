// Costs of the race tools, as multiples of the fast parallel `wasm` backend on the same kernel
// (seed 000's countModules: the phase-loop kernel on the pool, the thread kernel written per
// thread on the fine-grained scheduler):
//   serial      — phase loops, one worker, seeded block and thread order;
//   fine-inorder — thread kernel, a yield point at every access, no context switch unless a thread blocks;
//   fine-pct    — thread kernel under PCT (depth 3): a few preemptions;
//   fine-random — thread kernel, a uniformly random thread at every yield point (a switch almost every access);
//   racecheck   — fine-inorder plus shadow memory for every byte accessed.
import { createDevice } from '../src/device.js';
import { countModules } from '../src/kernels/index.js';
import { RaceSession, InOrderChooser, PctChooser, RandomChooser, type RaceJob, type Chooser } from '../src/race/index.js';
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

function threadJob(ids: Uint16Array, grid: number, block: number): RaceJob<null> {
  return {
    name: 'countModules-bench', summary: '', racy: true, expect: [], inputs: () => null,
    async run(ctx) {
      const id = await ctx.buffer('id', 'u16', ids);
      const ms = await ctx.buffer('moduleStart', 'u32', 4096);
      const cl = await ctx.buffer('clusterId', 'i32', ids.length);
      ctx.launch({ kernel: 'countModules', grid, block, args: [id, ms, cl, ids.length, 4000] });
      return {};
    },
  };
}

export const suite: BenchSuite = {
  name: 'race',
  description: 'serial, fine-grained and racecheck modes as multiples of the parallel wasm backend (countModules, 16384 digis)',
  quickDescription: 'serial, fine-grained and racecheck modes as multiples of the parallel wasm backend (countModules, 2048 digis)',
  async run(ctx) {
    const n = ctx.quick ? 2048 : 16384;
    const grid = 8, block = 128;
    const ids = moduleIds(n);
    const records: BenchRecord[] = [];
    const phase = async (backend: 'wasm' | 'serial'): Promise<{ median: number; samples: number[] }> => {
      const dev = await createDevice({ backend, memoryBytes: 64 << 20, seed: 1, ...(backend === 'wasm' ? { workers: ctx.workers } : {}) });
      try {
        const id = await dev.upload('u16', ids);
        const ms = dev.alloc('u32', 4096);
        const cl = dev.alloc('i32', n);
        return await measure(`countModules-${backend}`, async () => {
          await ms.fill(0);
          await dev.launch(countModules, { grid, block }, [id, ms, cl, n, 4000]);
        }, { iterations: ctx.quick ? 3 : 10, time: ctx.quick ? 50 : 300 });
      } finally {
        await dev.destroy();
      }
    };
    const wasm = await phase('wasm');
    const base = wasm.median;
    records.push(record('countModules', 'simt-wasm', n, base, { multiple: 1, workers: ctx.workers, times: wasm.samples }));
    const serial = await phase('serial');
    records.push(record('countModules', 'simt-serial', n, serial.median, { multiple: serial.median / base, workers: 1, times: serial.samples }));

    const session = await RaceSession.open();
    try {
      const job = threadJob(ids, grid, block);
      const ref = await session.runJob(job, null, new InOrderChooser(), false);
      const modes: [string, () => Chooser, boolean][] = [
        ['fine-inorder', () => new InOrderChooser(), false],
        ['fine-pct', () => new PctChooser(7, 3, ref.steps), false],
        ['fine-random', () => new RandomChooser(7), false],
        ['racecheck', () => new InOrderChooser(), true],
      ];
      for (const [impl, chooser, detect] of modes) {
        let switches = 0, steps = 0;
        const { median, samples } = await measure(`countModules-${impl}`, async () => {
          const r = await session.runJob(job, null, chooser(), detect);
          switches = r.switches; steps = r.steps;
        }, { iterations: ctx.quick ? 2 : 5, time: ctx.quick ? 50 : 300, warmup: 1 });
        records.push(record('countModules', `simt-${impl}`, n, median, { multiple: median / base, switches, yieldPoints: steps, workers: 1, times: samples }));
      }
    } finally {
      await session.close();
    }
    return records;
  },
};
