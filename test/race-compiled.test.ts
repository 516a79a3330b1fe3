// The race tools on kernels compiled from the user's sources (test/kernels/racy.ts and
// examples/kernels/), with jobs written as a user writes them (defineJob): planted races are
// reported at their source lines, the correct kernels give no report, explore finds the
// outcomes of a racy kernel and replay reproduces them bit for bit.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileKernelFiles, compileKernels } from '../src/compiler/index.js';
import { type KernelModule, KernelModuleError, makeKernelModule } from '../src/kernelModule.js';
import { KernelArgumentError, KernelError, SharedMemoryLimitError } from '../src/errors.js';
import * as simt from '../src/index.js';
import {
  RaceJobError, RaceSession, defineJob, explore, outputKey, racecheck, replay, type JobSpec, type RaceReport,
} from '../src/race/index.js';
import { formatSanitizerReport } from '../src/race/sanitizerText.js';
import { rng } from './helpers.js';

let racy: KernelModule;
let examples: KernelModule;
let session: RaceSession;
beforeAll(async () => {
  [racy, examples] = await Promise.all([
    compileKernelFiles(['test/kernels/racy.ts']),
    compileKernelFiles([...['histogram', 'transpose', 'shuffleSum'].map((k) => `examples/kernels/${k}.ts`), 'kernels/reduce/vecMax.ts']),
  ]);
  session = await RaceSession.open();
});
afterAll(async () => { await session?.close(); });

/** The 1-based line of the first line of `file` containing `marker`. */
function lineOf(file: string, marker: string): number {
  const k = readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(marker));
  if (k < 0) throw new Error(`no '${marker}' in ${file}`);
  return k + 1;
}

const RACY = 'test/kernels/racy.ts';
const bytes = Array.from({ length: 200 }, (_, i) => (i * 7) % 5);
const ints = (n: number): number[] => Array.from({ length: n }, (_, i) => ((i * 37) % 19) - 9);
const races = (r: { reports: RaceReport[] }): RaceReport[] => r.reports.filter((x) => x.kind === 'data-race' || x.kind === 'warp-sync-hazard');

/** A one-launch job over `input` → `out` (i32), the shape of most kernels here. */
function pairJob(name: string, kernel: string, n: number, block: number, outLength = n): ReturnType<typeof defineJob> {
  return defineJob({
    name, module: racy,
    buffers: { input: ['i32', ints(n)], out: ['i32', outLength] },
    launches: [{ kernel, grid: Math.ceil(n / block), block, args: ['input', 'out'] }],
    outputs: ['out'],
  });
}

const histogramPlain = (): ReturnType<typeof defineJob> => defineJob({
  name: 'histogramPlain', module: racy,
  buffers: { data: { dtype: 'u8', data: bytes }, bins: { dtype: 'u32', length: 256 } },
  launches: [{ kernel: racy.kernels.histogramPlain!, grid: 2, block: 64, args: { data: 'data', n: bytes.length, bins: 'bins' } }],
  outputs: ['bins'],
});

describe('planted races in compiled kernels are reported at their source lines', () => {
  it('a histogram with a plain shared increment instead of atomicAdd', async () => {
    const r = await racecheck(histogramPlain(), undefined, { session });
    const line = lineOf(RACY, 'local[data[i]]++');
    const found = races(r);
    expect(found.length).toBeGreaterThan(0);
    // Two warps of one block: a data race between them, and hazards within each.
    const race = found.find((x) => x.kind === 'data-race')!;
    expect(race).toBeDefined();
    expect(race.kernel).toBe('histogramPlain');
    expect(race.space).toBe('shared');
    expect(race.buffer).toBe('local');
    expect(race.index).toBeLessThan(5); // the data's values are 0..4
    expect(race.first!.location).toBe(`${RACY}:${line}:5`);
    expect(race.second!.location).toBe(`${RACY}:${line}:5`);
    expect(race.message).toContain(`__shared__ local[${race.index}]`);
    expect(race.message).toContain(`at ${RACY}:${line}:5`);
    // One report for the hazard, however many thread pairs hit it.
    expect(race.count).toBeGreaterThan(1);
    expect(race.severity).toBe('error');
    // Racecheck runs in barrier-interval order (no preemption between the read and the write),
    // so the lost updates themselves are explore's to show.
    expect(r.reports.some((x) => x.kind === 'atomic-order-output')).toBe(false);
  });

  it('a shared-memory reduction missing its __syncthreads', async () => {
    const r = await racecheck(pairJob('reduceNoSync', 'reduceNoSync', 256, 128, 2), undefined, { session });
    const line = lineOf(RACY, 'RACE: no barrier');
    const race = races(r).find((x) => x.kind === 'data-race');
    expect(race).toBeDefined();
    expect(race!.buffer).toBe('s');
    const lines = [race!.first!.location, race!.second!.location].map((l) => l!.split(':').slice(0, 2).join(':'));
    expect(lines).toEqual([`${RACY}:${line}`, `${RACY}:${line}`]);
    expect([race!.first!.what, race!.second!.what].sort()).toEqual(['read __shared__ s[]', 'write __shared__ s[]']);
  });

  it('the same reduction with its barrier: no report, and the sums are right', async () => {
    const job = pairJob('reduceSynced', 'reduceSynced', 256, 128, 2);
    const r = await racecheck(job, undefined, { session });
    expect(r.reports).toEqual([]);
    const run = await replay(job, r.schedules[1]!, undefined, { session });
    const x = ints(256);
    expect(Array.from(run.outputs.out!)).toEqual([0, 1].map((b) => x.slice(b * 128, b * 128 + 128).reduce((a, v) => a + v, 0)));
  });
});

describe('warp-synchronous code', () => {
  it('a neighbour read through shared memory without __syncwarp is a warp-sync hazard; with it, none', async () => {
    const bad = await racecheck(pairJob('warpNeighbour', 'warpNeighbour', 64, 64), undefined, { session });
    const hazard = races(bad)[0];
    expect(hazard?.kind).toBe('warp-sync-hazard');
    const locs = [hazard!.first!.location, hazard!.second!.location].map((l) => Number(l!.split(':')[1]));
    expect(locs.sort()).toEqual([lineOf(RACY, 's[t] = input[t];'), lineOf(RACY, 'RACE: warp-synchronous read')].sort());
    const good = await racecheck(pairJob('warpNeighbourSynced', 'warpNeighbourSynced', 64, 64), undefined, { session });
    expect(good.reports).toEqual([]);
  });

  it('a shuffle does not order shared memory: a hazard without __syncwarp, none with it', async () => {
    const bad = await racecheck(pairJob('shuffleThenShared', 'shuffleThenShared', 64, 64), undefined, { session });
    const h = races(bad).find((x) => x.first!.location?.includes(`:${lineOf(RACY, 'RACE: the shuffle is no __syncwarp')}:`) || x.second!.location?.includes(`:${lineOf(RACY, 'RACE: the shuffle is no __syncwarp')}:`));
    expect(h?.kind).toBe('warp-sync-hazard');
    const goodJob = pairJob('shuffleThenSharedSynced', 'shuffleThenSharedSynced', 64, 64);
    const good = await racecheck(goodJob, undefined, { session });
    expect(good.reports).toEqual([]);
    // The shuffle itself works in the fine-grained form: out[t] = input[t^1] + input[t^1].
    const run = await replay(goodJob, good.schedules[2]!, undefined, { session });
    const x = ints(64);
    expect(Array.from(run.outputs.out!)).toEqual(x.map((_, t) => 2 * x[t ^ 1]!));
  });
});

describe('the user guide\'s kernels give no report', () => {
  const r = rng(3);
  const floats = Array.from({ length: 300 }, () => Math.round((r() - 0.5) * 200));
  const specs: JobSpec[] = [
    {
      name: 'histogram256',
      buffers: { data: ['u8', Array.from({ length: 300 }, () => Math.floor(r() * 256))], bins: ['u32', 256] },
      launches: [{ kernel: 'histogram256', grid: 2, block: 64, args: ['data', 300, 'bins'] }], outputs: ['bins'],
    },
    {
      name: 'transpose',
      buffers: { input: ['f32', Array.from({ length: 40 * 24 }, (_, i) => i)], out: ['f32', 40 * 24] },
      launches: [{ kernel: 'transpose', grid: { x: 2, y: 1 }, block: { x: 32, y: 8 }, args: ['out', 'input', 40, 24] }], outputs: ['out'],
    },
    {
      name: 'shuffleSum',
      buffers: { input: ['f32', floats], out: ['f32', 1] },
      launches: [{ kernel: 'shuffleSum', grid: 2, block: 64, args: ['input', 'out', 300] }], outputs: ['out'],
    },
    {
      name: 'vecMax',
      buffers: { A: ['f32', floats], B: ['f32', 2] },
      launches: [{ kernel: 'vecMax', grid: 2, block: 64, sharedBytes: 4 * 64, args: ['A', 'B', 300] }], outputs: ['B'],
    },
  ];
  for (const spec of specs) {
    it(spec.name, async () => {
      const job = defineJob({ ...spec, module: examples });
      const res = await racecheck(job, undefined, { session });
      expect(res.reports).toEqual([]);
      const out = (await replay(job, res.schedules[0]!, undefined, { session })).outputs;
      if (spec.name === 'shuffleSum') expect(out.out![0]).toBe(floats.reduce((a, v) => a + v, 0));
      // Grid-stride over 2 blocks of 64: block b sees the elements i with floor(i / 64) % 2 == b.
      if (spec.name === 'vecMax') expect(Array.from(out.B!)).toEqual([0, 1].map((b) => Math.max(...floats.filter((_, i) => Math.floor(i / 64) % 2 === b))));
      if (spec.name === 'transpose') {
        const o = out.out!;
        for (let y = 0; y < 24; y++) for (let x = 0; x < 32; x++) expect(o[x * 24 + y]).toBe(y * 40 + x);
      }
    });
  }
});

describe('explore and replay on a compiled kernel', () => {
  it('explore finds differing outcomes of the racy histogram; replaying a printed schedule reproduces its outputs bit for bit', async () => {
    const job = histogramPlain();
    const res = await explore(job, undefined, { schedules: 12, session });
    expect(res.runs).toBe(12);
    const differing = res.outcomes.filter((o) => o.differsFromReference);
    expect(differing.length).toBeGreaterThan(1);
    for (const o of differing.slice(0, 3)) {
      const again = await replay(job, o.schedule, undefined, { session });
      expect(outputKey(again.outputs)).toBe(o.key);
      expect(Buffer.from((again.outputs.bins as Uint32Array).buffer).equals(Buffer.from((o.outputs.bins as Uint32Array).buffer))).toBe(true);
    }
    // A fresh session (new device, new addresses) replays it the same way.
    const fresh = await replay(job, differing[0]!.schedule);
    expect(outputKey(fresh.outputs)).toBe(differing[0]!.key);
  });

  it('the in-order reference of the racy histogram is the right histogram', async () => {
    const res = await explore(histogramPlain(), undefined, { schedules: 1, session });
    const ref = new Array(256).fill(0);
    for (const b of bytes) ref[b]++;
    expect(Array.from(res.reference.outputs.bins!)).toEqual(ref);
  });
});

describe('a warp operation whose mask names lanes that exited', () => {
  // Threads at or past n return; the warp's other lanes then shuffle or vote (warpAfterReturn).
  const input = ints(64);
  const job = (op: number, n: number): ReturnType<typeof defineJob> => defineJob({
    name: `warpAfterReturn-${op}-${n}`, module: racy,
    buffers: { input: ['i32', input], out: ['i32', 64] },
    launches: [{ kernel: racy.kernels.warpAfterReturn!, grid: 1, block: 64, args: ['input', 'out', n, op] }], outputs: ['out'],
  });

  for (const [op, what, marker] of [[0, 'a full-mask shuffle', 'full mask after the return'], [2, 'a full-mask ballot', 'full-mask ballot after the return']] as const) {
    it(`${what} after lanes returned: warp-divergence at its line, naming the lanes missing`, async () => {
      const r = await racecheck(job(op, 38), undefined, { session });
      expect(r.reports).toHaveLength(1);
      const d = r.reports[0]!;
      // Threads 38..63 returned: lanes 6..31 of warp 1; warp 0 is whole.
      expect(d).toMatchObject({ kind: 'warp-divergence', severity: 'error', warp: 1, mask: 0xffffffff, missingLanes: Array.from({ length: 26 }, (_, k) => k + 6) });
      expect(d.first).toMatchObject({ block: [0, 0, 0], thread: [32, 0, 0], location: `${RACY}:${lineOf(RACY, marker)}:${d.first!.location!.split(':')[2]}` });
      expect(d.second).toMatchObject({ thread: [38, 0, 0] });
      expect(d.message).toContain('names lanes 6-31 in its mask 0xffffffff, but they exited without reaching it (lanes 0-5 wait there)');
      expect(formatSanitizerReport(d)[0]).toMatch(/^========= Error: Divergent warp operation in kernel warpAfterReturn: /);
      // With every lane there, the same launch is quiet.
      expect((await racecheck(job(op, 64), undefined, { session })).reports).toEqual([]);
    });
  }

  it('a shuffle over __activemask() after the return names only the lanes left: no report, and the pairs are summed', async () => {
    const r = await racecheck(job(1, 38), undefined, { session });
    expect(r.reports).toEqual([]);
    const out = (await replay(job(1, 38), r.schedules[2]!, undefined, { session })).outputs.out!;
    expect(Array.from(out)).toEqual(input.map((v, t) => (t < 38 ? v + input[t ^ 1]! : 0)));
  });

  it('a ballot counts only the lanes still there', async () => {
    const r = await racecheck(job(2, 38), undefined, { session });
    const out = (await replay(job(2, 38), r.schedules[0]!, undefined, { session })).outputs.out!;
    const ballot = (lo: number, hi: number): number => { let bits = 0; for (let t = lo; t < hi; t++) if (input[t]! > 0) bits |= 1 << (t - lo); return bits | 0; };
    expect(Array.from(out)).toEqual(input.map((_, t) => (t < 32 ? ballot(0, 32) : t < 38 ? ballot(32, 38) : 0)));
  });
});

describe('out of bounds in a compiled kernel', () => {
  const job = (): ReturnType<typeof defineJob> => defineJob({
    name: 'copyUnguarded', module: racy,
    buffers: { input: ['i32', ints(50)], out: ['i32', 50] },
    launches: [{ kernel: 'copyUnguarded', grid: 2, block: 32, args: ['input', 'out'] }],
  });

  it('racecheck reports it with the array, index, thread and source line, and runs the other threads on', async () => {
    const r = await racecheck(job(), undefined, { session });
    const oob = r.reports.find((x) => x.kind === 'out-of-bounds');
    expect(oob).toBeDefined();
    expect(oob!.buffer).toBe('input');
    expect(oob!.index).toBe(50);
    expect(oob!.first!.location).toMatch(new RegExp(`^${RACY}:${lineOf(RACY, 'OOB past')}:\\d+$`));
    expect(oob!.message).toMatch(/index 50 is out of bounds of 'input' \(length 50\) in thread \(18, 0, 0\) at test\/kernels\/racy\.ts:\d+:\d+/);
    const run = await replay(job(), r.schedules[0]!, undefined, { session, detect: true });
    expect(Array.from(run.outputs.out!)).toEqual(ints(50));
  });

  it('explore and replay fail as the device does: a KernelError naming kernel, array, index, block, thread and line', async () => {
    const p = explore(job(), undefined, { schedules: 1, session });
    await expect(p).rejects.toThrow(KernelError);
    await expect(p).rejects.toThrow(/^kernel copyUnguarded trapped in block \(1, 0, 0\): index 50 is out of bounds of 'input' \(length 50\) in thread \(18, 0, 0\) at test\/kernels\/racy\.ts:\d+:\d+$/);
  });
});

describe('defineJob', () => {
  it('is exported from the package entry', () => {
    expect(simt.defineJob).toBe(defineJob);
    expect(simt.race.defineJob).toBe(defineJob);
    expect(simt.racecheck).toBe(racecheck);
  });

  it('runs host code between launches (run(ctx)), with several modules', async () => {
    const job = defineJob({
      name: 'twoModules', modules: [racy, examples],
      buffers: { input: ['i32', ints(128)], out: ['i32', 1] },
      async run(ctx) {
        ctx.launch('reduceSynced', { grid: 1, block: 128 }, [ctx.buffers.input!, 'out']);
        const total = (await ctx.buffers.out!.read())[0] as number;
        const data = await ctx.buffer('data', 'u8', [total & 255, 1, 1]);
        const bins = await ctx.buffer('bins', 'u32', 256);
        ctx.launch(examples.kernels.histogram256!, { grid: 1, block: 32 }, { data, n: 3, bins });
        return { bins };
      },
    });
    const r = await racecheck(job, undefined, { session });
    expect(r.reports).toEqual([]);
    const out = (await replay(job, r.schedules[0]!, undefined, { session })).outputs;
    const total = ints(128).reduce((a, v) => a + v, 0);
    expect(out.out![0]).toBe(total);
    expect(out.bins![1]).toBe(total & 255 ? 2 : 3);
  });

  it('an array the job did not name keeps its parameter\'s name without taking it from the job\'s buffer of that name', async () => {
    // Both launches' `out` is a device array of the job's own; the job's buffer 'out' stays in bounds too.
    const job = defineJob({
      name: 'sameNames', module: racy,
      buffers: { input: ['i32', ints(128)], out: ['i32', 1] },
      async run(ctx) {
        const partial = await ctx.device.upload('i32', ints(128));
        ctx.launch('reduceSynced', { grid: 1, block: 128 }, [ctx.buffers.input!, partial]);
        ctx.launch('reduceSynced', { grid: 1, block: 128 }, [partial, 'out']);
        partial.free();
      },
    });
    const r = await racecheck(job, undefined, { session });
    expect(r.reports).toEqual([]);
  });

  it('rejects a bad spec with a one-line RaceJobError naming the job and the field', () => {
    const base = { name: 'j', module: racy, buffers: { input: ['i32', [1]], out: ['i32', 1] } } as const;
    const launch = { kernel: 'warpNeighbour', grid: 1, block: 1, args: ['input', 'out'] };
    const cases: [unknown, RegExp][] = [
      [{ ...base, module: undefined, launches: [launch] }, /job 'j': no kernel module/],
      [{ ...base, module: { id: 'x' }, launches: [launch] }, /not a kernel module/],
      [{ ...base }, /nothing to run/],
      [{ ...base, launches: [{ ...launch, kernel: 'nope' }] }, /kernel 'nope' is not in module test\/kernels\/racy\.ts \(kernels: histogramPlain, /],
      [{ ...base, launches: [{ ...launch, kernel: examples.kernels.vecMax }] }, /kernel 'vecMax' is not from the job's module/],
      [{ ...base, launches: [{ ...launch, args: ['input', 'missing'] }] }, /parameter 'out' names buffer 'missing', which the job does not have \(input, out\)/],
      [{ ...base, buffers: { input: ['f32', [1]], out: ['i32', 1] }, launches: [launch] }, /parameter 'input' is i32\[\] but buffer 'input' is f32/],
      [{ ...base, launches: [launch], outputs: ['nope'] }, /output 'nope' is not one of the job's buffers/],
      [{ ...base, buffers: { input: ['i33', [1]] }, launches: [launch] }, /buffer 'input': unknown dtype "i33"/],
      [{ ...base, buffers: { input: { dtype: 'i32', length: -1 } }, launches: [launch] }, /buffer 'input': give data, or a length/],
      [{ name: '', module: racy }, /needs a name/],
    ];
    for (const [spec, re] of cases) {
      let err: unknown;
      try { defineJob(spec as JobSpec); } catch (e) { err = e; }
      expect(err, String(re)).toBeInstanceOf(RaceJobError);
      expect((err as Error).message).toMatch(re);
      expect((err as Error).message).not.toContain('\n');
    }
    // A wrong argument count is the device's own KernelArgumentError.
    expect(() => defineJob({ ...base, launches: [{ ...launch, args: ['input'] }] } as JobSpec)).toThrow(KernelArgumentError);
  });

  it('holds shared memory to the device limit and refuses a module whose fine-grained form does not load', async () => {
    const big = defineJob({
      name: 'bigShared', module: examples,
      buffers: { A: ['f32', [1, 2, 3]], B: ['f32', 1] },
      launches: [{ kernel: 'vecMax', grid: 1, block: 32, sharedBytes: 1 << 20, args: ['A', 'B', 3] }],
    });
    await expect(racecheck(big, undefined, { session })).rejects.toThrow(SharedMemoryLimitError);
    const broken = makeKernelModule({ ...racy.meta, hash: 'broken-fine-form' }, racy.wasm, new Uint8Array(8));
    const p = racecheck(defineJob({
      name: 'broken', module: broken,
      buffers: { input: ['i32', ints(64)], out: ['i32', 64] },
      launches: [{ kernel: 'warpNeighbour', grid: 1, block: 64, args: ['input', 'out'] }],
    }), undefined, { session });
    await expect(p).rejects.toThrow(KernelModuleError);
    await expect(p).rejects.toThrow(/fine-grained form does not compile .*rebuild it/);
  });

  it('a job made by defineJob is returned as is', () => {
    const j = histogramPlain();
    expect(defineJob(j)).toBe(j);
    expect(j.modules).toEqual([racy]);
    expect(j.inputs()).toEqual({ data: bytes });
  });
});

describe('seed 001 block scan (device functions with barriers, inlined): races at the device function\'s lines', () => {
  const FILE = 'examples/kernels/blockScan.ts';
  const counts = Array.from({ length: 96 }, (_, i) => (i * 7) % 5);
  const scanJob = (mod: Awaited<ReturnType<typeof compileKernelFiles>>, name: string): ReturnType<typeof defineJob> => defineJob({
    name, module: mod,
    buffers: { counts: { dtype: 'u32', data: counts }, out: { dtype: 'u32', length: counts.length } },
    launches: [{ kernel: 'blockScan', grid: 1, block: 96, args: { counts: 'counts', out: 'out', n: counts.length } }],
    outputs: ['out'],
  });

  it('with __syncwarp: no report, and the inclusive scan', async () => {
    const mod = await compileKernelFiles([FILE]);
    const r = await racecheck(scanJob(mod, 'blockScan'), undefined, { session });
    expect(r.reports).toEqual([]); // (its outputs are checked on every backend in examples-kernels.test.ts)
  });

  it('without __syncwarp (the seed as written): a warp-synchronous hazard inside intraWarpScan, at its own lines', async () => {
    const source = readFileSync(FILE, 'utf8').split('\n').filter((l) => l.trim() !== '__syncwarp();').join('\n');
    const mod = await compileKernels([{ path: FILE, source }], { cacheDir: false });
    const r = await racecheck(scanJob(mod, 'blockScanLockstep'), undefined, { session });
    const h = races(r);
    expect(h.length).toBeGreaterThan(0);
    const lines = new Set(h.flatMap((x) => [x.first!.location, x.second!.location]).map((l) => Number(l!.split(':')[1])));
    const inWarpScan = [lineOf(FILE, 'const before = scanTile[index - offset];'), lineOf(FILE, 'scanTile[index] += before;')];
    expect([...lines].some((l) => inWarpScan.includes(l)), [...lines].join(',')).toBe(true);
  });
});

describe('race locations inside inlined device functions', () => {
  it('a hazard in a loop of an inlined device function names its own statement, not the loop\'s first line', async () => {
    const { corpus } = await import('../src/race/corpus.js');
    const job = corpus.find((j) => j.name === 'petIntraWarpScan')!;
    const r = await racecheck(job, undefined, { session });
    // The job's kernel is in kernels/race/seeds.ts; the warp scan it inlines is simt's own device function.
    const FILE = 'kernels/primitives/blockScan.ts';
    const statement = 'scanTile[index] += scanTile[index - offset];';
    const line = lineOf(FILE, statement);
    const column = readFileSync(FILE, 'utf8').split('\n')[line - 1]!.indexOf(statement) + 1;
    const hazards = r.reports.filter((x) => x.kind === 'warp-sync-hazard');
    expect(hazards.length).toBeGreaterThan(0);
    // The unsynchronised read-modify-write against itself (lanes k apart), at the statement inside the loop.
    expect(hazards.some((h) => h.first!.location === `${FILE}:${line}:${column}` && h.second!.location === `${FILE}:${line}:${column}`)).toBe(true);
    for (const h of hazards) expect(h.first!.location).not.toBe(`${FILE}:${lineOf(FILE, 'for (let offset = 1; offset < width; offset <<= 1)')}:3`);
  });
});
