// memcheck on kernels compiled from the kernel language: planted out-of-bounds accesses (global
// and shared, past the end and at index -1), reads of never-written global and shared memory,
// misaligned accesses (which only simt's raw-pointer thread kernels can make), each reported
// with kind, block, thread, array, index, element size and source line, once per site with a
// count; the run goes on past every error; the user guide's kernels give no report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileKernelFiles, compileKernels } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import { KernelArgumentError } from '../src/errors.js';
import { DTYPES, type DType } from '../src/dtypes.js';
import * as simt from '../src/index.js';
import { RaceSession, defineJob, memcheck, type JobSpec, type MemcheckReport, type RaceJob, type UserJobContext } from '../src/race/index.js';
import { errorSummaryLine, formatMemcheckReport } from '../src/race/sanitizerText.js';
import { rng } from './helpers.js';

const FILE = 'test/memcheck-kernels.ts';
const SOURCE = `import { threadIdx, blockIdx, blockDim, __syncthreads, __shared__, __extern_shared__ } from "simt/kernel";

export function readPastEnd(input: i32[], out: i32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < out.length) out[i] = input[i + 1];                       // MARK read past end
}

export function writeNext(out: i32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i + 1] = i;                                                  // MARK write past end
}

export function writePrev(out: i32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i - 1] = i;                                                  // MARK write before start
}

export function sharedPastEnd(out: i32[]): void {
  const s = __shared__<i32>(32);
  s[threadIdx.x] = threadIdx.x * 3;                                // MARK shared write past end
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x & 31];
}

export function dynamicShift(out: f32[]): void {
  const s = __extern_shared__<f32>();
  s[threadIdx.x] = <f32>threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x + 1];                           // MARK dynamic shared read past end
}

export function copy(input: f32[], out: f32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < out.length) out[i] = input[i];                           // MARK copy read
}

export function fillIndex(out: f32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < out.length) out[i] = <f32>i;
}

export function halfShared(out: f32[]): void {
  const s = __shared__<f32>(64);
  if (threadIdx.x < 32) s[threadIdx.x] = 1.5;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];     // MARK half shared read
}

export function firstBlocksWrite(out: i32[]): void {
  const s = __shared__<i32>(1024);
  if (blockIdx.x < 4) s[threadIdx.x] = blockIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];     // MARK first blocks read
}

export function threeErrors(input: i32[], out: i32[], tail: i32[]): void {
  const t = threadIdx.x;
  const s = __shared__<i32>(64);
  if (t > 0) s[t] = input[t];
  __syncthreads();
  const v = s[t];                                                  // MARK three: uninitialized
  out[t] = v + input[t + 1];                                       // MARK three: read past end
  tail[t + 1] = v;                                                 // MARK three: write past end
}
`;

/** Line (1-based) and the column of `code` on the line holding `marker`. */
function at(marker: string, code: string): string {
  const lines = SOURCE.split('\n');
  const k = lines.findIndex((l) => l.includes(`MARK ${marker}`));
  if (k < 0) throw new Error(`no marker '${marker}'`);
  const col = lines[k]!.indexOf(code);
  if (col < 0) throw new Error(`no '${code}' on the line of '${marker}'`);
  return `${FILE}:${k + 1}:${col + 1}`;
}

let mod: KernelModule;
let examples: KernelModule;
let session: RaceSession;
beforeAll(async () => {
  [mod, examples] = await Promise.all([
    compileKernels([{ path: FILE, source: SOURCE }], { cacheDir: false }),
    compileKernelFiles([...['histogram', 'transpose', 'shuffleSum', 'blockScan'].map((k) => `examples/kernels/${k}.ts`), 'kernels/reduce/vecMax.ts', 'kernels/pixel/countModules.ts']),
  ]);
  session = await RaceSession.open();
});
afterAll(async () => { await session?.close(); });

const ints = (n: number, f: (i: number) => number = (i) => (i * 37) % 101): number[] => Array.from({ length: n }, (_, i) => f(i));
const one = (reports: MemcheckReport[]): MemcheckReport => { expect(reports).toHaveLength(1); return reports[0]!; };

describe('out-of-bounds global accesses, against each argument\'s own length', () => {
  it('a read one past the end: reported with its thread and line; it reads 0 and every other thread runs on', async () => {
    const input = ints(64);
    const job = defineJob({
      name: 'readPastEnd', module: mod,
      buffers: { input: ['i32', input], out: ['i32', 64] },
      launches: [{ kernel: 'readPastEnd', grid: 2, block: 32, args: ['input', 'out'] }],
    });
    const r = await memcheck(job, undefined, { session });
    expect(r.errors).toBe(1);
    expect(one(r.reports)).toMatchObject({
      kind: 'out-of-bounds', kernel: 'readPastEnd', space: 'global', access: 'read', array: 'input', buffer: 'input',
      index: 64, length: 64, size: 4, block: [1, 0, 0], thread: [31, 0, 0], location: at('read past end', 'input[i + 1]'),
      count: 1, severity: 'error',
    });
    expect(r.reports[0]!.message).toBe(`block (1,0,0) thread (31,0,0) at ${at('read past end', 'input[i + 1]')} reads input[64], out of bounds (length 64): skipped (the read gives 0)`);
    expect(Array.from(r.outputs.out!)).toEqual([...input.slice(1), 0]);
  });

  it('a write past the end and one at index -1 (the argument is bound to a buffer of another name)', async () => {
    const job = defineJob({
      name: 'writeEnds', module: mod,
      buffers: { next: ['i32', 64], prev: ['i32', 64] },
      launches: [
        { kernel: 'writeNext', grid: 2, block: 32, args: ['next'] },
        { kernel: 'writePrev', grid: 2, block: 32, args: ['prev'] },
      ],
    });
    const r = await memcheck(job, undefined, { session });
    expect(r.errors).toBe(2);
    const [past, before] = r.reports;
    expect(past).toMatchObject({
      kind: 'out-of-bounds', kernel: 'writeNext', space: 'global', access: 'write', array: 'out', buffer: 'next',
      index: 64, length: 64, size: 4, block: [1, 0, 0], thread: [31, 0, 0], location: at('write past end', 'out[i + 1]'), count: 1,
    });
    expect(before).toMatchObject({
      kind: 'out-of-bounds', kernel: 'writePrev', space: 'global', access: 'write', array: 'out', buffer: 'prev',
      index: -1, length: 64, size: 4, block: [0, 0, 0], thread: [0, 0, 0], location: at('write before start', 'out[i - 1]'), count: 1,
    });
    // The address is where the element would be: 4 bytes before 'prev', right past 'next' (both 128-byte aligned).
    expect(before!.address % 128).toBe(124);
    expect(past!.address % 128).toBe(0);
    // The dropped writes touched nothing: every other element holds its writer's index.
    expect(Array.from(r.outputs.next!)).toEqual(ints(64, (k) => (k === 0 ? 0 : k - 1)));
    expect(Array.from(r.outputs.prev!)).toEqual(ints(64, (k) => (k === 63 ? 0 : k + 1)));
  });
});

describe('out-of-bounds shared accesses', () => {
  it('a static __shared__ array: one report for the 32 threads past its end, at the write', async () => {
    const job = defineJob({
      name: 'sharedPastEnd', module: mod, buffers: { out: ['i32', 64] },
      launches: [{ kernel: 'sharedPastEnd', grid: 1, block: 64, args: ['out'] }],
    });
    const r = await memcheck(job, undefined, { session });
    expect(one(r.reports)).toMatchObject({
      kind: 'out-of-bounds', space: 'shared', access: 'write', array: 's', index: 32, length: 32, size: 4,
      block: [0, 0, 0], thread: [32, 0, 0], location: at('shared write past end', 's[threadIdx.x]'), count: 32,
    });
    expect(r.reports[0]!.buffer).toBeUndefined();
    // The dropped writes did not clobber s[0..31]: every thread reads what thread (t & 31) wrote.
    expect(Array.from(r.outputs.out!)).toEqual(ints(64, (t) => (t & 31) * 3));
  });

  it('the extern __shared__ array, against the launch\'s sharedBytes', async () => {
    const job = defineJob({
      name: 'dynamicShift', module: mod, buffers: { out: ['f32', 32] },
      launches: [{ kernel: 'dynamicShift', grid: 1, block: 32, sharedBytes: 32 * 4, args: ['out'] }],
    });
    const r = await memcheck(job, undefined, { session });
    expect(one(r.reports)).toMatchObject({
      kind: 'out-of-bounds', space: 'shared', access: 'read', array: 's', index: 32, length: 32, size: 4,
      block: [0, 0, 0], thread: [31, 0, 0], location: at('dynamic shared read past end', 's[threadIdx.x + 1]'), count: 1,
    });
    expect(Array.from(r.outputs.out!)).toEqual(ints(32, (t) => (t === 31 ? 0 : t + 1)));
  });
});

describe('initcheck: reads of device memory never written', () => {
  /** A job copying `scratch` (made by `prepare`) into `out` with the copy kernel. */
  const copyJob = (name: string, prepare: (ctx: UserJobContext) => Promise<simt.DeviceArray<'f32'>>): ReturnType<typeof defineJob> => defineJob({
    name, module: mod, buffers: { out: ['f32', 64] },
    async run(ctx) {
      const scratch = await prepare(ctx);
      ctx.launch('copy', { grid: 2, block: 32 }, [scratch, 'out']);
      scratch.free();
    },
  });

  it('an allocation the host wrote only in part: the first unwritten element, once for the 32 reads', async () => {
    const r = await memcheck(copyJob('partlyWritten', async (ctx) => {
      const a = ctx.device.alloc('f32', 64);
      await a.fill(2, 0, 16);                                      // elements 0..15
      await a.upload(Float32Array.from({ length: 16 }, () => 3), 48); // elements 48..63
      return a;
    }), undefined, { session });
    expect(one(r.reports)).toMatchObject({
      kind: 'uninitialized', kernel: 'copy', space: 'global', access: 'read', array: 'input', index: 16, size: 4,
      block: [0, 0, 0], thread: [16, 0, 0], location: at('copy read', 'input[i]'), count: 32,
    });
    expect(r.reports[0]!.message).toBe(`block (0,0,0) thread (16,0,0) at ${at('copy read', 'input[i]')} reads input[16] (4 bytes), which was never written`);
  });

  it('memory written by the host (upload, fill, a view), by an earlier launch under memcheck or by a launch on the pool is no error', async () => {
    const cases: [string, (ctx: UserJobContext) => Promise<simt.DeviceArray<'f32'>>][] = [
      ['upload', async (ctx) => ctx.device.upload('f32', ints(64))],
      ['fill', async (ctx) => { const a = ctx.device.alloc('f32', 64); await a.fill(7); return a; }],
      ['view', async (ctx) => { const a = ctx.device.alloc('f32', 64); a.view().set(ints(64)); return a; }],
      ['kernel', async (ctx) => { const a = ctx.device.alloc('f32', 64); ctx.launch('fillIndex', { grid: 2, block: 32 }, [a]); return a; }],
      ['pool launch', async (ctx) => {
        const a = ctx.device.alloc('f32', 64);
        await ctx.device.load(mod);
        await ctx.device.launch(mod.kernels.fillIndex!, { grid: 2, block: 32 }, [a]);
        return a;
      }],
    ];
    for (const [name, prepare] of cases) {
      const r = await memcheck(copyJob(name, prepare), undefined, { session });
      expect(r.reports, name).toEqual([]);
    }
    const r = await memcheck(copyJob('kernel', cases[3]![1]), undefined, { session });
    expect(Array.from(r.outputs.out!)).toEqual(ints(64, (i) => i));
  });

  it('a job\'s buffers are written: data, and a length of zeros', async () => {
    const job = defineJob({
      name: 'zeros', module: mod, buffers: { input: ['f32', 64], out: ['f32', 64] },
      launches: [{ kernel: 'copy', grid: 2, block: 32, args: ['input', 'out'] }],
    });
    expect((await memcheck(job, undefined, { session })).reports).toEqual([]);
  });

  it('a __shared__ array half written: the other half\'s reads, once, at the read', async () => {
    const job = defineJob({
      name: 'halfShared', module: mod, buffers: { out: ['f32', 64] },
      launches: [{ kernel: 'halfShared', grid: 1, block: 64, args: ['out'] }],
    });
    const r = await memcheck(job, undefined, { session });
    const u = one(r.reports);
    expect(u).toMatchObject({
      kind: 'uninitialized', space: 'shared', access: 'read', array: 's', length: 64, size: 4, block: [0, 0, 0],
      location: at('half shared read', 's[threadIdx.x]'), count: 32,
    });
    // The first reader is one of threads 32..63 (the schedule decides which), reading its own element.
    expect(u.thread[0]).toBeGreaterThanOrEqual(32);
    expect(u.index).toBe(u.thread[0]);
    expect(u.message).toContain(`reads __shared__ s[${u.index}] (4 bytes), which no thread of its block has written`);
  });

  it('shared memory is per block: blocks that never write theirs are reported, also in a later wave on reused memory', async () => {
    // 5 blocks of 1024 threads: two waves (4096 resident threads); block 4 reuses block 0's shared memory.
    const job = defineJob({
      name: 'firstBlocksWrite', module: mod, buffers: { out: ['i32', 5 * 1024] },
      launches: [{ kernel: 'firstBlocksWrite', grid: 5, block: 1024, args: ['out'] }],
    });
    const r = await memcheck(job, undefined, { session });
    expect(one(r.reports)).toMatchObject({
      kind: 'uninitialized', space: 'shared', array: 's', block: [4, 0, 0], location: at('first blocks read', 's[threadIdx.x]'), count: 1024,
    });
  });
});

describe('one launch, several errors: all reported, the run goes on', () => {
  it('an uninitialized shared read, then an out-of-bounds read and write by the same thread', async () => {
    const input = ints(64);
    const job = defineJob({
      name: 'threeErrors', module: mod,
      buffers: { input: ['i32', input], out: ['i32', 64], tail: ['i32', 64] },
      launches: [{ kernel: 'threeErrors', grid: 1, block: 64, args: ['input', 'out', 'tail'] }],
    });
    const r = await memcheck(job, undefined, { session });
    expect(r.errors).toBe(3);
    const by = (kind: string, access: string): MemcheckReport | undefined => r.reports.find((x) => x.kind === kind && x.access === access);
    expect(by('uninitialized', 'read')).toMatchObject({ space: 'shared', array: 's', index: 0, thread: [0, 0, 0], location: at('three: uninitialized', 's[t]'), count: 1 });
    expect(by('out-of-bounds', 'read')).toMatchObject({ space: 'global', array: 'input', index: 64, thread: [63, 0, 0], location: at('three: read past end', 'input[t + 1]'), count: 1 });
    expect(by('out-of-bounds', 'write')).toMatchObject({ space: 'global', array: 'tail', index: 64, thread: [63, 0, 0], location: at('three: write past end', 'tail[t + 1]'), count: 1 });
    // Thread 63 went on after its faulting read: out[63] = s[63] + 0.
    expect(Array.from(r.outputs.out!)).toEqual(ints(64, (t) => (t === 0 ? 0 : input[t]!) + (t === 63 ? 0 : input[t + 1]!)));
  });

  it('the device stays usable: a launch on the pool after it, and memcheck again gives the same', async () => {
    const job = defineJob({
      name: 'readPastEnd', module: mod, buffers: { input: ['i32', ints(64)], out: ['i32', 64] },
      launches: [{ kernel: 'readPastEnd', grid: 2, block: 32, args: ['input', 'out'] }],
    });
    const first = await memcheck(job, undefined, { session });
    const dev = session.device;
    await dev.load(mod);
    const out = dev.alloc('f32', 100);
    await dev.launch(mod.kernels.fillIndex!, { grid: 4, block: 32 }, [out]);
    expect(Array.from(await out.read())).toEqual(ints(100, (i) => i));
    out.free();
    const again = await memcheck(job, undefined, { session });
    expect(again.reports.map((x) => x.message)).toEqual(first.reports.map((x) => x.message));
    expect(dev.memoryObserver).toBeUndefined();
  });
});

describe('misaligned accesses', () => {
  it('a compiled kernel cannot make one: every allocation is 128-byte aligned, and arrays are the only way to memory', async () => {
    const dev = session.device;
    const r = rng(11);
    const dtypes = Object.keys(DTYPES) as DType[];
    const arrays = Array.from({ length: 200 }, () => dev.alloc(dtypes[Math.floor(r() * dtypes.length)]!, Math.floor(r() * 300)));
    for (const a of arrays) expect(a.byteOffset % 128, `${a.dtype}[${a.length}]`).toBe(0);
    for (const a of arrays) a.free();
    // An array argument is a device array of the launching device, not any object with an address.
    await dev.load(mod);
    const out = dev.alloc('f32', 8);
    const fake = { dtype: 'f32', length: 7, byteLength: 28, byteOffset: out.byteOffset + 2, device: out.device, freed: false };
    await expect(dev.launch(mod.kernels.fillIndex!, { grid: 1, block: 8 }, [fake as never])).rejects.toThrow(KernelArgumentError);
    const job = defineJob({ name: 'fake', module: mod, run(ctx) { ctx.launch('fillIndex', { grid: 1, block: 8 }, [fake as never]); } });
    await expect(memcheck(job, undefined, { session })).rejects.toThrow(/expected a device array of f32/);
    // simt's own kernels, launched by name, are compiled kernels too: an address is no array.
    const raw: RaceJob<Record<string, never>> = {
      name: 'misalignedVectorAdd', summary: 'vectorAdd with an address 2 bytes into its array', racy: false, expect: [], inputs: () => ({}),
      async run(ctx) {
        const b = await ctx.buffer('b', 'i32', 8);
        ctx.launch({ kernel: 'vectorAdd', grid: 1, block: 8, args: [out.byteOffset + 2, b, b, 4] });
        return {};
      },
    };
    await expect(memcheck(raw, {}, { session })).rejects.toThrow(KernelArgumentError);
    await expect(memcheck(raw, {}, { session })).rejects.toThrow(/kernel vectorAdd: parameter 'a': expected a device array of i32/);
    out.free();
    // Raw memory builtins are compile errors (test/compiler-errors.test.ts has one per family).
    await expect(compileKernels([{ path: 'k.ts', source: 'export function k(a: i32[]): void { a[0] = load<i32>(6); }' }], { cacheDir: false }))
      .rejects.toThrow(/'load' reaches memory without an array/);
  });
});

describe('the user guide\'s kernels give no error', () => {
  const r = rng(5);
  const floats = Array.from({ length: 300 }, () => Math.round((r() - 0.5) * 200));
  // countModules: sorted module ids with invalid (65534) digis in between.
  const ids: number[] = [];
  for (let m = 0; ids.length < 500; m++) for (let k = Math.floor(r() * 9); k > 0; k--) ids.push(r() < 0.1 ? 65534 : m);
  const counts = ints(200, () => Math.floor(r() * 5));
  const specs: JobSpec[] = [
    {
      name: 'histogram256', buffers: { data: ['u8', ints(300, () => Math.floor(r() * 256))], bins: ['u32', 256] },
      launches: [{ kernel: 'histogram256', grid: 2, block: 64, args: ['data', 300, 'bins'] }],
    },
    {
      name: 'transpose', buffers: { input: ['f32', ints(40 * 24, (i) => i)], out: ['f32', 40 * 24] },
      launches: [{ kernel: 'transpose', grid: { x: 2, y: 1 }, block: { x: 32, y: 8 }, args: ['out', 'input', 40, 24] }],
    },
    {
      name: 'shuffleSum', buffers: { input: ['f32', floats], out: ['f32', 1] },
      launches: [{ kernel: 'shuffleSum', grid: 2, block: 64, args: ['input', 'out', 300] }],
    },
    {
      name: 'vecMax', buffers: { A: ['f32', floats], B: ['f32', 2] },
      launches: [{ kernel: 'vecMax', grid: 2, block: 64, sharedBytes: 4 * 64, args: ['A', 'B', 300] }],
    },
    {
      name: 'countModules', buffers: { id: ['u16', ids], moduleStart: ['u32', 1 + 256], clusterId: ['i32', ids.length] },
      launches: [{ kernel: 'countModules', grid: 2, block: 128, args: ['id', 'moduleStart', 'clusterId', ids.length, 256] }],
    },
    {
      name: 'blockScan', buffers: { counts: ['u32', counts], out: ['u32', counts.length] },
      launches: [{ kernel: 'blockScan', grid: 2, block: 128, args: ['counts', 'out', counts.length] }],
    },
  ];
  for (const spec of specs) {
    it(spec.name, async () => {
      const res = await memcheck(defineJob({ ...spec, module: examples }), undefined, { session });
      expect(res.reports).toEqual([]);
      expect(res.errors).toBe(0);
      if (spec.name === 'blockScan') {
        // The outputs are the kernel's: each block's inclusive scan.
        let acc = 0;
        expect(Array.from(res.outputs.out!)).toEqual(counts.map((c, i) => (acc = (i % 128 === 0 ? 0 : acc) + c)));
      }
    });
  }
});

describe('simt\'s own kernels (the race corpus, kernels/race/)', () => {
  it('the out-of-bounds jobs report at the planted index, racy jobs\' early reads of shared memory are uninitialized; the race-free give no error', async () => {
    const found: Record<string, string[]> = {};
    for (const job of simt.race.corpus) {
      const r = await memcheck(job, job.inputs(), { session });
      if (r.reports.length) found[job.name] = r.reports.map((x) => `${x.kind} ${x.access} ${x.array}[${x.index}]${x.length === undefined ? '' : ` (length ${x.length})`} x${x.count}`);
    }
    expect(found).toEqual({
      oobWrite: ['out-of-bounds write out[6] (length 6) x2'],
      oobRead: ['out-of-bounds read input[8] (length 8) x1'],
      // memcheck's one schedule runs each thread to its next barrier: without the barrier (or the
      // __syncwarp) the job lacks, a thread reads its neighbour's shared element before the
      // neighbour wrote it, which initcheck sees. The same jobs with the barrier give nothing.
      stencilNoSync: ['uninitialized read tile[1] x7'],
      warpExchangeNoSync: ['uninitialized read s[1] x16'],
      petIntraWarpScan: ['uninitialized read scanTile[31] x31'],
      petFillData: ['uninitialized read scanTile[31] x50'],
    });
    for (const job of simt.race.corpus.filter((j) => !j.racy)) expect(found[job.name], job.name).toBeUndefined();
  });
});

describe('compute-sanitizer\'s layout', () => {
  it('each kind as memcheck and initcheck print it, and the summary line', async () => {
    const job = defineJob({
      name: 'threeErrors', module: mod,
      buffers: { input: ['i32', ints(64)], out: ['i32', 64], tail: ['i32', 64] },
      launches: [{ kernel: 'threeErrors', grid: 1, block: 64, args: ['input', 'out', 'tail'] }],
    });
    const r = await memcheck(job, undefined, { session });
    const text = (kind: string, access: string): string[] => formatMemcheckReport(r.reports.find((x) => x.kind === kind && x.access === access)!);
    const hex = (n: number): string => `0x${n.toString(16)}`;
    const read = r.reports.find((x) => x.kind === 'out-of-bounds' && x.access === 'read')!;
    expect(text('out-of-bounds', 'read')).toEqual([
      '========= Invalid __global__ read of size 4 bytes',
      `=========     at threeErrors (${at('three: read past end', 'input[t + 1]')})`,
      '=========     by thread (63,0,0) in block (0,0,0)',
      `=========     Address ${hex(read.address)} is out of bounds of 'input' (length 64, index 64): 0 bytes after its end`,
      '=========',
    ]);
    const uninit = r.reports.find((x) => x.kind === 'uninitialized')!;
    expect(text('uninitialized', 'read')).toEqual([
      '========= Uninitialized __shared__ memory read of size 4 bytes',
      `=========     at threeErrors (${at('three: uninitialized', 's[t]')})`,
      '=========     by thread (0,0,0) in block (0,0,0)',
      `=========     Address ${hex(uninit.address)} of __shared__ 's' (index 0) was not written by any thread of the block`,
      '=========',
    ]);
    const neg: MemcheckReport = { ...read, index: -2, array: 'out', buffer: 'prev', count: 5 };
    expect(formatMemcheckReport(neg).slice(3)).toEqual([
      `=========     Address ${hex(read.address)} is out of bounds of 'out' (buffer 'prev') (length 64, index -2): 8 bytes before its start`,
      '=========     5 accesses at this site (the first is shown)',
      '=========',
    ]);
    expect(errorSummaryLine(3)).toBe('========= ERROR SUMMARY: 3 errors');
    expect(errorSummaryLine(1)).toBe('========= ERROR SUMMARY: 1 error');
  });

  it('memcheck is exported from the package entry', () => {
    expect(simt.memcheck).toBe(memcheck);
    expect(simt.race.memcheck).toBe(memcheck);
  });
});
