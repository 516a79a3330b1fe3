// __threadfence() in the kernel language and in the race detector's ordering model, on the CUDA
// programming guide's fence example (test/kernels/fence.ts: the last block adds the partial
// sums): it computes the right sum on every backend; racecheck is quiet with the fence and
// reports the partial sums' race at their source lines without it; a fence without an atomic
// that the reader observes orders nothing; __threadfence_block orders only within the block.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileKernelFiles } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import type { Device } from '../src/device.js';
import { RaceSession, defineJob, explore, racecheck, replay, type RaceReport } from '../src/race/index.js';
import { rng, testDevice } from './helpers.js';

const FILE = 'test/kernels/fence.ts';
let mod: KernelModule;
let session: RaceSession;
beforeAll(async () => {
  mod = await compileKernelFiles([FILE]);
  session = await RaceSession.open();
});
afterAll(async () => { await session?.close(); });

/** `file:line` of the first line of the kernel file containing `marker`. */
function lineOf(marker: string): string {
  const k = readFileSync(FILE, 'utf8').split('\n').findIndex((l) => l.includes(marker));
  if (k < 0) throw new Error(`no '${marker}' in ${FILE}`);
  return `${FILE}:${k + 1}`;
}
const at = (location: string | undefined): string => (location ?? '').split(':').slice(0, 2).join(':');
const races = (r: { reports: RaceReport[] }): RaceReport[] => r.reports.filter((x) => x.kind === 'data-race' || x.kind === 'warp-sync-hazard');

/** Small integers as f32: every partial and total is exact, whatever order the blocks add in. */
const values = (n: number, seed: number): Float32Array => { const r = rng(seed); return Float32Array.from({ length: n }, () => Math.floor(r() * 19) - 7); };

/** The guide's result: [total, partial of block 1, …] (block b sums its threads' grid-stride elements). */
function reference(a: Float32Array, grid: number, block: number): number[] {
  const partial = new Array<number>(grid).fill(0);
  a.forEach((v, i) => { partial[Math.floor(i / block) % grid]! += v; });
  return [partial.reduce((x, y) => x + y, 0), ...partial.slice(1)];
}

const SHAPES = [[1, 1, 32], [500, 3, 64], [2000, 8, 128], [777, 5, 256], [4096, 16, 32]] as const;

for (const b of [
  { name: 'wasm', options: { backend: 'wasm' as const, workers: 2 } },
  { name: 'serial seed 1', options: { backend: 'serial' as const, seed: 1 } },
  { name: 'serial seed 7', options: { backend: 'serial' as const, seed: 7 } },
  { name: 'serial seed 99', options: { backend: 'serial' as const, seed: 99 } },
]) {
  describe(`the guide's last-block sum on ${b.name}`, () => {
    let dev: Device;
    beforeAll(async () => {
      dev = await testDevice({ ...b.options, memoryBytes: 64 << 20 });
      await dev.load(mod);
    });
    for (const [n, grid, block] of SHAPES) {
      it(`n=${n}, grid=${grid}, block=${block}: the total, the partials, count back at 0 (two launches)`, async () => {
        const a = values(n, n + grid);
        const A = await dev.upload('f32', a);
        const R = dev.alloc('f32', grid);
        const C = dev.alloc('u32', 1); await C.fill(0);
        for (let k = 0; k < 2; k++) {
          await R.fill(-1);
          await dev.launch(mod.kernels.sumLastBlock!, { grid, block }, [A, n, R, C, 1] as never);
          expect(Array.from(await R.read())).toEqual(reference(a, grid, block));
          expect((await C.read())[0]).toBe(0);
        }
      });
    }
  });
}

/** The guide's sum as a race job (fence = 0 leaves the fence out). */
const sumJob = (fence: number, n = 600, grid = 4, block = 64): ReturnType<typeof defineJob> => defineJob({
  name: fence ? 'sumLastBlock' : 'sumLastBlockNoFence', module: mod,
  buffers: { array: ['f32', Array.from(values(n, 3))], result: ['f32', grid], count: ['u32', 1] },
  launches: [{ kernel: mod.kernels.sumLastBlock!, grid, block, args: { array: 'array', n, result: 'result', count: 'count', fence } }],
  outputs: ['result', 'count'],
});

describe('racecheck on the guide\'s fence example', () => {
  it('with the fence: no report, under every interval order; the sum is right', async () => {
    for (const [n, grid, block] of [[600, 4, 64], [3000, 12, 32], [100, 1, 64]] as const) {
      const r = await racecheck(sumJob(1, n, grid, block), undefined, { session, schedules: 6 });
      expect(r.reports).toEqual([]);
      const run = await replay(sumJob(1, n, grid, block), r.schedules[3]!, undefined, { session });
      expect(Array.from(run.outputs.result!)).toEqual(reference(values(n, 3), grid, block));
      expect(Array.from(run.outputs.count!)).toEqual([0]);
    }
  });

  it('without it: the partial sum\'s write and the last block\'s read race (RAW, different blocks), at their source lines', async () => {
    const r = await racecheck(sumJob(0), undefined, { session });
    const raw = races(r).find((x) => x.hazard === 'RAW');
    expect(raw, JSON.stringify(r.reports)).toBeDefined();
    expect(raw).toMatchObject({ kind: 'data-race', severity: 'error', space: 'global', buffer: 'result', atomic: false });
    expect(at(raw!.first!.location)).toBe(lineOf('// the partial sum'));
    expect(at(raw!.second!.location)).toBe(lineOf('// the last block reads the partials'));
    expect(raw!.first).toMatchObject({ access: 'write', thread: [0, 0, 0] });
    expect(raw!.second).toMatchObject({ access: 'read' });
    expect(raw!.first!.block).not.toEqual(raw!.second!.block);
    // The last block read every other block's partial: one report, a pair per block.
    expect(raw!.count).toBe(3);
    // Only the partials race: the counter is atomic, and the reset follows the last atomicInc.
    expect(races(r).every((x) => x.buffer === 'result')).toBe(true);
  });

  it('a fence without an atomic orders nothing: the neighbour\'s flag and value race even with the fence', async () => {
    const job = defineJob({
      name: 'fenceFlagNoAtomic', module: mod,
      buffers: { values: ['f32', 4], flags: ['i32', 4], out: ['f32', 4] },
      launches: [{ kernel: mod.kernels.fenceFlagNoAtomic!, grid: 4, block: 32, args: ['values', 'flags', 'out'] }], outputs: ['out'],
    });
    const r = await racecheck(job, undefined, { session });
    const value = races(r).find((x) => x.buffer === 'values');
    expect(value).toMatchObject({ kind: 'data-race', hazard: 'RAW', severity: 'error' });
    expect(at(value!.first!.location)).toBe(lineOf('// the value'));
    expect(at(value!.second!.location)).toBe(lineOf('// the neighbour\'s flag and value'));
    const flag = races(r).find((x) => x.buffer === 'flags');
    expect(flag?.kind).toBe('data-race');
    expect([at(flag!.first!.location), at(flag!.second!.location)]).toContain(lineOf('// the flag'));
  });
});

describe('fence scopes', () => {
  // Thread 0 of block 0 publishes data[0] by a fence and an atomic; thread 32 of block `reader` observes the atomic and reads it.
  const publish = (scope: number, reader: number): ReturnType<typeof defineJob> => defineJob({
    name: `fencedPublish-${scope}-${reader}`, module: mod,
    buffers: { data: ['i32', 1], flag: ['u32', 1], out: ['i32', 1] },
    launches: [{ kernel: mod.kernels.fencedPublish!, grid: 2, block: 64, args: ['data', 'flag', 'out', scope, reader] }], outputs: ['out'],
  });
  const dataRace = async (scope: number, reader: number): Promise<RaceReport | undefined> => {
    const r = await racecheck(publish(scope, reader), undefined, { session });
    // The reader runs before the writer under some interval orders (out = -1): that is the atomics' order, a note.
    expect(r.reports.every((x) => x.buffer === 'data' || x.severity === 'note')).toBe(true);
    return races(r).find((x) => x.buffer === 'data');
  };

  for (const [scope, name] of [[1, '__threadfence_block'], [2, '__threadfence'], [3, '__threadfence_system']] as const) {
    it(`${name}: another warp of the block that observed the atomic reads the data unraced`, async () => {
      expect(await dataRace(scope, 0)).toBeUndefined();
    });
  }
  for (const [scope, name] of [[2, '__threadfence'], [3, '__threadfence_system']] as const) {
    it(`${name}: so does a thread of another block`, async () => {
      expect(await dataRace(scope, 1)).toBeUndefined();
    });
  }
  it('__threadfence_block orders nothing for another block; no fence orders nothing at all', async () => {
    const other = await dataRace(1, 1);
    expect(other).toMatchObject({ kind: 'data-race', hazard: 'RAW' });
    expect(at(other!.first!.location)).toBe(lineOf('// the data'));
    expect(at(other!.second!.location)).toBe(lineOf('// the reader'));
    expect(other!.message).toContain('(different blocks)');
    expect((await dataRace(0, 1))?.kind).toBe('data-race');
    // Within the block, the reader is in another warp: a data race too.
    expect((await dataRace(0, 0))?.kind).toBe('data-race');
  });
});

describe('the fine-grained form', () => {
  it('a fence is a scheduling point: random schedules interleave there, and every outcome is the right sum', async () => {
    const job = sumJob(1, 200, 3, 32);
    const res = await explore(job, undefined, { schedules: 15, session });
    expect(res.outcomes).toHaveLength(1);
    expect(Array.from(res.outcomes[0]!.outputs.result!)).toEqual(reference(values(200, 3), 3, 32));
    // One scheduling point per fence: the in-order run without fences takes one step per block fewer.
    const none = await explore(sumJob(0, 200, 3, 32), undefined, { schedules: 1, session });
    expect(res.reference.steps - none.reference.steps).toBe(3);
  });

  it('the fence\'s source site is in the module\'s sites', () => {
    expect(mod.meta.sites.some((s) => s.what === '__threadfence' && `${s.file}:${s.line}` === lineOf('if (fence != 0) __threadfence();'))).toBe(true);
  });
});
