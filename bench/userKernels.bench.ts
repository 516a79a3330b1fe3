// The user-kernels suite: five CUDA kernels written per thread, as users write them
// (examples/kernels/*.ts), compiled by simt's kernel compiler into block code, against
//   - native-c: the same CUDA code translated MCUDA-style to C (bench/native/userkernels.c:
//     blocks over OpenMP threads, a loop over the block's threads between barriers), with as many
//     threads as simt has workers;
//   - js: a plain single-threaded loop computing the same result (bench/userKernelsJs.ts).
// Every simt and native result is checked against the JS result before it is recorded. What a
// kernel accumulates into (bins, the sum, moduleStart[0]) is zeroed before each run: untimed in
// C, inside the timing for simt (a host-side fill of at most 1 KiB, as the core suite does).
//
// Launch shapes, the same for simt and native C:
//   histogram, shuffleSum, vecMaxGeneric, countModulesGeneric: block 1024, grid = ceil(n / 4096)
//     (4 elements per thread); vecMax with 4 * 1024 bytes of dynamic shared memory;
//   transpose: block (32, 8), grid (width / 32, height / 32), fixed by its 32 x 32 tiles.
// Why 4 per thread: a CPU runs a block's threads one after the other, so a block needs enough
// work to amortise its fixed part (256 bins zeroed and merged by 256 global atomics, VecMax's
// tree); but with the thread loop outermost each grid-stride read of a thread is its own cache
// line, which the next threads of the block must still find in L1: at 16..256 per thread native C
// ran 2-9x slower than at 4 (16M elements, 2 threads). A worker takes chunks of consecutive
// blocks, so it reads 4 contiguous runs of memory.
// The same four kernels again in the shape GPU code usually has, block 256 and 256 elements per
// thread (records `histogram/gridStride`, …): simt's compiler interchanges those grid-stride
// loops (docs/kernels.md, "Grid-stride loops"); native C runs the MCUDA loops as written.
import { compileKernelFiles, compileKernels } from '../src/compiler/index.js';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { KernelModule } from '../src/kernelModule.js';
import { createDevice, type Device, type DeviceOptions } from '../src/device.js';
import type { Kernel } from '../src/kernel.js';
import type { LaunchConfig } from '../src/deviceApi.js';
import { defaultWorkerCount } from '../src/platform.js';
import { checksum32 } from '../src/data/random.js';
import { moduleIdsForBench, randomF32 } from '../src/data/synthetic.js';
import { buildNative, runNative, type NativeResult } from './native/index.js';
import { measure, median, record, type BenchContext, type BenchRecord, type BenchSuite } from './harness.js';
import * as js from './userKernelsJs.js';

const SEED = 1;
/** A launch shape of the grid-stride kernels: block size, elements per thread, and the records' name suffix. */
interface Shape { block: number; perThread: number; suffix: string }
/** The suite's shape (see the header). */
const BENCH_SHAPE: Shape = { block: 1024, perThread: 4, suffix: '' };
/**
 * The usual GPU shape: few blocks, each thread looping over many elements (records
 * `<name>/gridStride`; simt runs these loops interchanged, native C as written).
 */
const GRID_STRIDE_SHAPE: Shape = { block: 256, perThread: 256, suffix: '/gridStride' };
/** shuffleSum: |result − exact| ≤ SUM_TOLERANCE · Σ|xᵢ| (as bench/native/userkernels.c; seen: ≤ 7e-9). */
const SUM_TOLERANCE = 5e-8;
/** countModules: 1800 modules, 1 % invalid digis, atomicInc bound 1856 (the core suite's data). */
const MODULES = 1800;
const INVALID = 0.01;
const N_MAX_MODULES = 1856;

/** The kernel sources, package-root-relative, and the kernel each defines. */
const SOURCES = {
  histogram: { file: 'examples/kernels/histogram.ts', kernel: 'histogram256' },
  transpose: { file: 'examples/kernels/transpose.ts', kernel: 'transpose' },
  shuffleSum: { file: 'examples/kernels/shuffleSum.ts', kernel: 'shuffleSum' },
  vecMaxGeneric: { file: 'kernels/reduce/vecMax.ts', kernel: 'vecMax' },
  countModulesGeneric: { file: 'kernels/pixel/countModules.ts', kernel: 'countModules' },
} as const;
type Name = keyof typeof SOURCES;


/**
 * simt's side: the device and the compiled kernels, by benchmark name (a missing one did not
 * compile): with the default bounds checks (`simt-wasm`) and built `unchecked`
 * (`simt-wasm-unchecked`, to measure what the checks cost).
 */
interface Simt { dev: Device; kernels: Partial<Record<Name, Kernel>>; unchecked: Partial<Record<Name, Kernel>> }

/** What every benchmark of the suite gets. */
interface Env {
  ctx: BenchContext;
  workers: number;
  native: boolean;
  simt: Simt | undefined;
  out: BenchRecord[];
  shape: Shape;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** A record of `samples` (ms): the median, with min, max and the sample count as its spread. */
function timings(name: string, impl: string, n: number, samples: readonly number[], extra: Record<string, unknown>): BenchRecord {
  return record(name, impl, n, median(samples), { ...extra, msMin: Math.min(...samples), msMax: Math.max(...samples), samples: samples.length });
}

/** A launch dimension as records show it: 1024, or '32x8'. */
function dimLabel(d: unknown): unknown {
  if (Array.isArray(d)) return d.join('x');
  if (d !== null && typeof d === 'object') return `${(d as { x: number }).x}x${(d as { y?: number }).y ?? 1}`;
  return d;
}

function gridFor(n: number, shape: Shape): number {
  return Math.ceil(n / (shape.block * shape.perThread));
}

/** Compiles each kernel file on its own (one that fails does not take the others down) and opens a device on them. */
async function openSimt(ctx: BenchContext, memoryBytes: number): Promise<Simt | undefined> {
  const modules: KernelModule[] = [];
  const kernels: Partial<Record<Name, Kernel>> = {};
  const unchecked: Partial<Record<Name, Kernel>> = {};
  for (const [name, src] of Object.entries(SOURCES) as [Name, (typeof SOURCES)[Name]][]) {
    for (const [into, opts] of [[kernels, {}], [unchecked, { unchecked: true }]] as const) {
      try {
        const mod = await compileKernelFiles([src.file], opts);
        const k = mod.kernels[src.kernel];
        if (!k) throw new Error(`no kernel ${src.kernel} in it (has: ${Object.keys(mod.kernels).join(', ')})`);
        modules.push(mod);
        into[name] = k;
      } catch (e) {
        ctx.log(`user-kernels: ${name}: simt-wasm${into === unchecked ? '-unchecked' : ''} skipped: ${src.file} did not compile: ${message(e)}`);
      }
    }
  }
  if (modules.length === 0) return undefined;
  return { dev: await createDevice({ memoryBytes, modules }), kernels, unchecked };
}

/** Runs `fn` and logs (instead of throwing) why an implementation was skipped, so the others still run. */
async function attempt(env: Env, what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    env.ctx.log(`user-kernels: ${what} skipped: ${message(e)}`);
  }
}

/** Times the plain JS loop. */
async function jsRecord(env: Env, name: Name, n: number, bytes: number, fn: () => unknown, extra: Record<string, unknown> = {}): Promise<void> {
  await attempt(env, `${name} js`, async () => {
    const r = await measure(`${name} js`, fn, { iterations: 7, time: 300, warmup: 1 });
    env.out.push(timings(name + env.shape.suffix, 'js', n, r.samples, { bytes, workers: 1, ...extra }));
  });
}

/**
 * Runs the native program with simt's worker count and `args` (`--grid`, `--block`, …);
 * `check` says what is wrong with its result.
 */
async function nativeRecord(
  env: Env, name: Name, n: number, args: Record<string, number>,
  check: (r: NativeResult) => string | undefined, extra: Record<string, unknown> = {},
): Promise<void> {
  if (!env.native) return;
  await attempt(env, `${name} native-c`, async () => {
    const r = await runNative(name, { n, seed: SEED, threads: env.workers, repeat: 15, extra: args });
    const problem = r.ok !== true ? 'its own check failed' : check(r);
    if (problem) throw new Error(`wrong result: ${problem}`);
    env.out.push(timings(name + env.shape.suffix, 'native-c', n, r.msAll, {
      bytes: r.bytes, workers: r.threads, openmp: r.openmp, grid: dimLabel(r['grid']), block: dimLabel(r['block']), ...extra,
    }));
  });
}

/** One kernel on the simt device: its arrays are uploaded; `run` launches it (resetting what accumulates). */
interface SimtRun {
  run(): Promise<unknown>;
  /** What is wrong with the result of the last run, if anything. */
  check(): Promise<string | undefined>;
  free(): void;
}

/** Times `run` on the simt device (15+ samples, 2 warm-ups), checks the last result, then records. */
async function simtRecord(
  env: Env, name: Name, n: number, bytes: number, config: LaunchConfig,
  setup: (dev: Device, kernel: Kernel) => Promise<SimtRun>, extra: Record<string, unknown> = {},
): Promise<void> {
  if (!env.simt) return;
  const dev = env.simt.dev;
  for (const [impl, kernel] of [['simt-wasm', env.simt.kernels[name]], ['simt-wasm-unchecked', env.simt.unchecked[name]]] as const) {
    if (!kernel) continue;
    await attempt(env, `${name} ${impl}`, async () => {
      const k = await setup(dev, kernel);
      try {
        const r = await measure(`${name} ${impl}`, () => k.run(), { iterations: 15 });
        const problem = await k.check();
        if (problem) throw new Error(`wrong result: ${problem}`);
        env.out.push(timings(name + env.shape.suffix, impl, n, r.samples, {
          bytes, workers: dev.workers, grid: dimLabel(config.grid), block: dimLabel(config.block), ...extra,
        }));
      } finally {
        k.free();
      }
    });
  }
}

/** The first index where `got` and `expect` differ, described, or undefined if they are equal. */
function difference(what: string, got: ArrayLike<number>, expect: ArrayLike<number>): string | undefined {
  if (got.length !== expect.length) return `${what} has ${got.length} elements, JS ${expect.length}`;
  for (let i = 0; i < got.length; i++) {
    if (got[i] !== expect[i]) return `${what}[${i}] = ${got[i]}, JS ${expect[i]}`;
  }
  return undefined;
}

// ---------------------------------------------------------------- the five kernels

async function histogram(env: Env, n: number): Promise<void> {
  const data = js.randomU8(n, SEED);
  const expect = js.histogram256(data);
  const config = { grid: gridFor(n, env.shape), block: env.shape.block };
  await jsRecord(env, 'histogram', n, n, () => js.histogram256(data));
  await nativeRecord(env, 'histogram', n, config,
    (r) => (r['outChecksum'] === checksum32(expect) ? undefined : 'bins differ from JS'));
  await simtRecord(env, 'histogram', n, n, config, async (dev, kernel) => {
    const d = await dev.upload('u8', data);
    const bins = dev.alloc('u32', 256);
    return {
      run: async () => {
        await bins.fill(0);
        await dev.launch(kernel, config, [d, n, bins]);
      },
      check: async () => difference('bins', await bins.read(), expect),
      free: () => { d.free(); bins.free(); },
    };
  });
}

async function transpose(env: Env, side: number): Promise<void> {
  const n = side * side;
  const input = randomF32(n, SEED);
  const out = new Float32Array(n);
  const expect = js.transpose(input, side, side);
  const config = { grid: { x: Math.ceil(side / 32), y: Math.ceil(side / 32) }, block: { x: 32, y: 8 } };
  const extra = { width: side, height: side };
  await jsRecord(env, 'transpose', n, 8 * n, () => js.transpose(input, side, side, out), extra);
  await nativeRecord(env, 'transpose', n, { width: side },
    (r) => (r['outChecksum'] === checksum32(expect) ? undefined : 'the transposed matrix differs from JS'), extra);
  await simtRecord(env, 'transpose', n, 8 * n, config, async (dev, kernel) => {
    const src = await dev.upload('f32', input);
    const dst = dev.alloc('f32', n);
    await dst.fill(NaN); // an element the kernel misses fails the check
    return {
      run: () => dev.launch(kernel, config, [dst, src, side, side]),
      check: async () => difference('out', await dst.read(), expect),
      free: () => { src.free(); dst.free(); },
    };
  }, extra);
}

async function shuffleSum(env: Env, n: number): Promise<void> {
  const input = randomF32(n, SEED);
  const exact = js.sum(input);
  let absSum = 0;
  for (let i = 0; i < n; i++) absSum += Math.abs(input[i]!);
  const tolerance = SUM_TOLERANCE * absSum;
  const wrong = (got: number) => (Math.abs(got - exact) <= tolerance ? undefined : `sum ${got}, JS ${exact} (tolerance ${tolerance})`);
  const config = { grid: gridFor(n, env.shape), block: env.shape.block };
  await jsRecord(env, 'shuffleSum', n, 4 * n, () => js.sum(input));
  await nativeRecord(env, 'shuffleSum', n, config, (r) => wrong(r.result));
  await simtRecord(env, 'shuffleSum', n, 4 * n, config, async (dev, kernel) => {
    const src = await dev.upload('f32', input);
    const sum = dev.alloc('f32', 1);
    return {
      run: async () => {
        await sum.fill(0);
        await dev.launch(kernel, config, [src, sum, n]);
      },
      check: async () => wrong((await sum.read())[0]!),
      free: () => { src.free(); sum.free(); },
    };
  }, { tolerance });
}

async function vecMaxGeneric(env: Env, n: number): Promise<void> {
  const input = randomF32(n, SEED);
  const expect = js.max(input);
  const grid = gridFor(n, env.shape);
  const config = { grid, block: env.shape.block, sharedBytes: 4 * env.shape.block };
  const wrong = (got: number) => (got === expect ? undefined : `max ${got}, JS ${expect}`);
  await jsRecord(env, 'vecMaxGeneric', n, 4 * n, () => js.max(input));
  await nativeRecord(env, 'vecMaxGeneric', n, { grid, block: env.shape.block }, (r) => wrong(Math.fround(r.result)));
  await simtRecord(env, 'vecMaxGeneric', n, 4 * n, config, async (dev, kernel) => {
    const A = await dev.upload('f32', input);
    const B = dev.alloc('f32', grid);
    return {
      run: () => dev.launch(kernel, config, [A, B, n]),
      check: async () => wrong(js.max(await B.read())), // the host's last step: the max of the blocks' maxima
      free: () => { A.free(); B.free(); },
    };
  });
}

async function countModulesGeneric(env: Env, n: number): Promise<void> {
  const ids = moduleIdsForBench(n, MODULES, INVALID, SEED);
  const clusterId = new Int32Array(n);
  const expect = js.countModules(ids);
  if (expect.count > N_MAX_MODULES) throw new Error(`countModulesGeneric: ${expect.count} modules > nMaxModules ${N_MAX_MODULES}`);
  const config = { grid: gridFor(n, env.shape), block: env.shape.block };
  const extra = { modules: expect.count };
  await jsRecord(env, 'countModulesGeneric', n, 6 * n, () => js.countModules(ids, clusterId), extra);
  const args = { ...config, modules: MODULES, invalid: INVALID, nmax: N_MAX_MODULES };
  await nativeRecord(env, 'countModulesGeneric', n, args, (r) =>
    r.result === expect.count && r['outChecksum'] === checksum32(expect.starts) ? undefined : `${r.result} modules (JS ${expect.count}) or other starts`, extra);
  await simtRecord(env, 'countModulesGeneric', n, 6 * n, config, async (dev, kernel) => {
    const id = await dev.upload('u16', ids);
    const moduleStart = dev.alloc('u32', N_MAX_MODULES + 2);
    const cid = dev.alloc('i32', n);
    await cid.fill(-1); // a digi the kernel misses fails the check
    return {
      run: async () => {
        await moduleStart.fill(0, 0, 1);
        await dev.launch(kernel, config, [id, moduleStart, cid, n, N_MAX_MODULES]);
      },
      check: async () => {
        const ms = await moduleStart.read();
        const starts = ms.slice(1, 1 + ms[0]!).sort();
        return difference('moduleStart[1..count] sorted', starts, expect.starts) ??
          difference('clusterId', await cid.read(), expect.clusterId);
      },
      free: () => { id.free(); moduleStart.free(); cid.free(); },
    };
  }, extra);
}

/**
 * Compile time of one small kernel file (kernels/reduce/vecMax.ts, both forms, no cache):
 * `cold` in a fresh Node process (loading AssemblyScript and Binaryen included), `warm` the
 * following compiles of changed sources in this process (the compiler already loaded; the
 * first of them still warms V8 up on the compiler itself, so the records are its samples).
 */
async function compileTime(env: Env): Promise<void> {
  await attempt(env, 'compile', async () => {
    const file = 'kernels/reduce/vecMax.ts';
    const source = readFileSync(file, 'utf8');
    const compiler = fileURLToPath(new URL('../src/compiler/index.js', import.meta.url));
    const cold: number[] = [];
    for (let k = 0; k < 3; k++) {
      const script = `const t = performance.now(); const { compileKernels } = await import(${JSON.stringify(compiler)});` +
        `await compileKernels([{ path: 'vecMax.ts', source: ${JSON.stringify(source + `\n// cold ${k} ${Date.now()}`)} }], { cacheDir: false });` +
        'console.log(performance.now() - t);';
      cold.push(Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim()));
    }
    env.out.push(timings('compile', 'cold', 1, cold, { file }));
    const warm: number[] = [];
    for (let k = 0; k < 6; k++) {
      const t = performance.now();
      await compileKernels([{ path: 'vecMax.ts', source: source + `\n// warm ${k} ${Date.now()}` }], { cacheDir: false });
      warm.push(performance.now() - t);
    }
    env.out.push(timings('compile', 'warm', 1, warm.slice(1), { file, first: warm[0] }));
  });
}

export const suite: BenchSuite = {
  name: 'user-kernels',
  description: 'histogram 16M u8, transpose 2048², shuffleSum 16M f32, VecMax 64M f32, countModules 50M digis: ' +
    'simt-compiled CUDA-style kernels vs the same code MCUDA-style in C (OpenMP) vs plain JS; compile time',
  quickDescription: 'histogram 4M u8, transpose 1024², shuffleSum 4M f32, VecMax 4M f32, countModules 5M digis: ' +
    'simt-compiled CUDA-style kernels vs the same code MCUDA-style in C (OpenMP) vs plain JS; compile time',
  async run(ctx) {
    const q = ctx.quick;
    const sizes = {
      histogram: q ? 4 << 20 : 16 << 20,
      transposeSide: q ? 1024 : 2048,
      shuffleSum: q ? 4 << 20 : 16 << 20,
      vecMaxGeneric: q ? 4 << 20 : 64 << 20,
      countModulesGeneric: q ? 5_000_000 : 50_000_000,
    };
    const simt = await openSimt(ctx, q ? 256 << 20 : 768 << 20);
    const native = buildNative();
    if (!native.ok) ctx.log(`user-kernels: native-c skipped: ${native.note}`);
    const env: Env = { ctx, workers: simt?.dev.workers ?? await defaultWorkerCount(), native: native.ok, simt, out: [], shape: BENCH_SHAPE };
    try {
      await histogram(env, sizes.histogram);
      await transpose(env, sizes.transposeSide);
      await shuffleSum(env, sizes.shuffleSum);
      await vecMaxGeneric(env, sizes.vecMaxGeneric);
      await countModulesGeneric(env, sizes.countModulesGeneric);
      const gridStride: Env = { ...env, shape: GRID_STRIDE_SHAPE };
      await histogram(gridStride, sizes.histogram);
      await shuffleSum(gridStride, sizes.shuffleSum);
      await vecMaxGeneric(gridStride, sizes.vecMaxGeneric);
      await countModulesGeneric(gridStride, sizes.countModulesGeneric);
      await compileTime(env);
    } finally {
      await simt?.dev.destroy();
    }
    return env.out.map((r) => ({ ...r, quick: q }));
  },
};
