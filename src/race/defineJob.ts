// defineJob: a race job in the user's own code, on the user's compiled kernels. The job names
// its module(s), its buffers (initial contents or a length of zeros), the launches in order
// (kernels by handle or name, array parameters by buffer name) and the buffers it outputs;
// `explore`, `replay` and `racecheck` take it as they take simt's corpus jobs:
//
//   const mod = await compileKernelFiles(['kernels/histogram.ts']);
//   const job = defineJob({
//     name: 'histogram', module: mod,
//     buffers: { data: { dtype: 'u8', data: bytes }, bins: { dtype: 'u32', length: 256 } },
//     launches: [{ kernel: mod.kernels.histogram256, grid: 2, block: 64, args: { data: 'data', n: bytes.length, bins: 'bins' } }],
//     outputs: ['bins'],
//   });
//   const { reports } = await racecheck(job);
//
// For more than a list of launches (host code between them, buffers sized from results), give
// `run(ctx)` instead of `launches`: `ctx.launch(kernel, { grid, block }, args)` mirrors
// `device.launch`. Every mistake in a spec is a RaceJobError naming the job and the field.
//
// The same job runs on devices for `crossCheck(job, { backends: ['wasm', 'webgpu'] })` and
// `simt crosscheck --module … --job …`; `compare` declares per output how the backends' results
// must agree ('exact' unless declared; 'multiset', 'sortedSet' or { ulp: N } where order or
// float rounding may differ).

import type { Device } from '../device.js';
import { toDim3, type DimLike } from '../dims.js';
import { type DType, isDType } from '../dtypes.js';
import { SimtError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { KernelModule } from '../kernelModule.js';
import { argumentList } from '../launchArgs.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import type { JobContext, Outputs, RaceJob } from './job.js';
import type { ReportKind } from './reports.js';
import { toComparison, type OutputRule } from '../crosscheck/rules.js';
import type { Comparison } from '../crosscheck/types.js';
import { describeModule } from './threadProgram.js';

/** A job spec that cannot run: the message names the job and what is wrong. */
export class RaceJobError extends SimtError {}

/** A buffer: initial contents, or a length of zeros; `[dtype, data | length]` for short. */
export type BufferSpec =
  | { readonly dtype: DType; readonly data: ArrayLike<number | bigint> }
  | { readonly dtype: DType; readonly length: number }
  | readonly [DType, ArrayLike<number | bigint> | number];

/** A launch argument: a string names one of the job's buffers (array parameters); numbers are scalars. */
export type JobArg = string | number | bigint;

export interface JobLaunch {
  /** `module.kernels.histogram256`, or the kernel's name in the job's module(s). */
  readonly kernel: Kernel | string;
  readonly grid: DimLike;
  readonly block: DimLike;
  /** Dynamic shared bytes (`extern __shared__`), as in `device.launch`. */
  readonly sharedBytes?: number;
  /** In parameter order, or keyed by parameter name, as `device.launch` takes them. */
  readonly args: readonly JobArg[] | Readonly<Record<string, JobArg>>;
  /** Lanes per warp as the race detector sees them (a power of two, 1–32; default 32). */
  readonly warpSize?: number;
}

/** What `run` gets: the job's buffers, more buffers, and launches that mirror `device.launch`. */
export interface UserJobContext {
  readonly device: Device;
  /** The buffers of the spec, created (and filled) before `run` is called. */
  readonly buffers: Readonly<Record<string, DeviceArray>>;
  /** A further named buffer: `data` or `length` zeros. Names are what reports call the memory. */
  buffer<D extends DType>(name: string, dtype: D, data: ArrayLike<number | bigint> | number): Promise<DeviceArray<D>>;
  /** Runs one launch under the run's schedule (synchronously). A string argument names a buffer. */
  launch(kernel: Kernel | string, config: { grid: DimLike; block: DimLike; sharedBytes?: number },
    args: readonly (DeviceArray | JobArg)[] | Readonly<Record<string, DeviceArray | JobArg>>): void;
}

export type JobOutputs = Record<string, DeviceArray | ArrayLike<number | bigint>>;

export interface JobSpec {
  name: string;
  summary?: string;
  /** The compiled module whose kernels the job launches (`compileKernels`, `loadKernelModule`). */
  module?: KernelModule;
  /** Several modules. */
  modules?: readonly KernelModule[];
  buffers?: Readonly<Record<string, BufferSpec>>;
  /** The launches, in order. Give these or `run`. */
  launches?: readonly JobLaunch[];
  /** Host code that launches (instead of, or after, `launches`); may return more outputs. */
  run?(ctx: UserJobContext): Promise<JobOutputs | void> | JobOutputs | void;
  /** Buffers whose final contents are the job's outputs (default: every buffer of the spec). */
  outputs?: readonly string[];
  /**
   * How crossCheck compares each output between backends (default 'exact'): 'multiset' where only
   * the order may differ (atomics-ordered lists), 'sortedSet' for an order-free list without
   * repeats, `{ ulp: N }` for floats whose rounding may differ (float atomics, math functions).
   */
  compare?: Readonly<Record<string, OutputRule>>;
  /** What the author expects (for a corpus of your own): racy, and the report kinds racecheck must give. */
  racy?: boolean;
  expect?: readonly ReportKind[];
  note?: string;
}

/** The initial contents of the spec's buffers that have data (what `explore(job, inputs)` may replace). */
export type JobInputs = Record<string, ArrayLike<number | bigint>>;

/** True for a job made by defineJob (or any object that is already a race job). */
export function isRaceJob(x: unknown): x is RaceJob<unknown> {
  const j = x as RaceJob<unknown> | null;
  return !!j && typeof j === 'object' && typeof j.name === 'string' && typeof j.inputs === 'function' && typeof j.run === 'function';
}

/** A race job from a spec (see the file comment); a job that is already one is returned as is. */
export function defineJob(spec: JobSpec | RaceJob<JobInputs>): RaceJob<JobInputs> {
  if (isRaceJob(spec)) return spec;
  const s = spec as JobSpec;
  if (!s || typeof s !== 'object') throw new RaceJobError(`defineJob: expected a job spec object, got ${s === null ? 'null' : typeof s}`);
  const name = s.name;
  if (typeof name !== 'string' || name.trim() === '') throw new RaceJobError('defineJob: the job needs a name (a non-empty string)');
  const fail = (what: string): never => { throw new RaceJobError(`job '${name}': ${what}`); };

  const modules = [...(s.module ? [s.module] : []), ...(s.modules ?? [])];
  if (!Array.isArray(s.modules) && s.modules !== undefined) fail('modules must be an array of kernel modules');
  if (modules.length === 0) fail('no kernel module: give `module` (compileKernels, loadKernelModule or `simt build`)');
  for (const m of modules) {
    if (!m || typeof m !== 'object' || typeof m.id !== 'string' || !m.meta || !(m.fineWasm instanceof Uint8Array || typeof m.fineSource === 'string')) {
      fail('`module` is not a kernel module: build one with compileKernels() or `simt build` and load it with loadKernelModule()');
    }
  }

  const buffers = new Map<string, { dtype: DType; data?: ArrayLike<number | bigint>; length: number }>();
  for (const [bname, b] of Object.entries(s.buffers ?? {})) buffers.set(bname, checkBuffer(bname, b, fail));

  if (s.launches !== undefined && !Array.isArray(s.launches)) fail('launches must be an array');
  if (s.run !== undefined && typeof s.run !== 'function') fail('run must be a function');
  const launches = (s.launches ?? []).map((l, k) => checkLaunch(l, k, modules, buffers, fail));
  if (launches.length === 0 && !s.run) fail('nothing to run: give `launches` (or a `run(ctx)` function)');

  const outputs = s.outputs ?? [...buffers.keys()];
  if (!Array.isArray(outputs)) fail('outputs must be an array of buffer names');
  for (const o of outputs) {
    if (typeof o !== 'string') fail(`outputs: ${String(o)} is not a buffer name`);
    if (!buffers.has(o) && !s.run) fail(`output '${o}' is not one of the job's buffers (${[...buffers.keys()].join(', ') || 'none'})`);
  }

  if (s.compare !== undefined && (!s.compare || typeof s.compare !== 'object' || Array.isArray(s.compare))) {
    fail('compare must be an object: { output: \'exact\' | \'multiset\' | \'sortedSet\' | { ulp: N } }');
  }
  const compare: Record<string, Comparison> = {};
  for (const [o, rule] of Object.entries(s.compare ?? {})) {
    if (!outputs.includes(o) && !s.run) fail(`compare: '${o}' is not one of the job's outputs (${outputs.join(', ') || 'none'})`);
    compare[o] = toComparison(rule, (problem) => fail(`compare.${o}: ${problem}`));
  }

  return {
    name, summary: s.summary ?? `${name}: ${launches.map((l) => l.kernel.name).join(', ') || 'user launches'}`,
    racy: s.racy ?? false, expect: [...(s.expect ?? [])], note: s.note, modules, compare,
    inputs() {
      const out: JobInputs = {};
      for (const [bname, b] of buffers) if (b.data) out[bname] = Array.from(b.data as ArrayLike<number>);
      return out;
    },
    async run(ctx: JobContext, inputs: JobInputs): Promise<Outputs> {
      const arrays: Record<string, DeviceArray> = {};
      const makeBuffer = async <D extends DType>(bname: string, dtype: D, data: ArrayLike<number | bigint> | number): Promise<DeviceArray<D>> => {
        const a = await ctx.buffer(bname, dtype, typeof data === 'number' ? data : toDType(dtype, data));
        arrays[bname] = a;
        return a;
      };
      for (const [bname, b] of buffers) {
        const given = inputs[bname];
        await makeBuffer(bname, b.dtype, given ?? b.data ?? b.length);
      }
      for (const l of launches) ctx.launch({ kernel: l.kernel, grid: l.grid, block: l.block, sharedBytes: l.sharedBytes, warpSize: l.warpSize, args: bindArgs(l.args, arrays, name) });
      let more: JobOutputs | void = undefined;
      if (s.run) {
        const uctx: UserJobContext = {
          device: ctx.device, buffers: arrays, buffer: makeBuffer,
          launch: (kernel, config, args) => {
            const k = typeof kernel === 'string' ? findKernel(kernel, modules, fail) : kernel;
            ctx.launch({ kernel: k, grid: config?.grid, block: config?.block, sharedBytes: config?.sharedBytes, args: bindArgs(args, arrays, name) });
          },
        };
        more = await s.run(uctx);
      }
      const result: Outputs = {};
      for (const o of outputs) {
        const a = arrays[o];
        if (!a) fail(`output '${o}' is not a buffer the job created (${Object.keys(arrays).join(', ') || 'none'})`);
        result[o] = await a!.read();
      }
      for (const [o, v] of Object.entries(more ?? {})) {
        result[o] = isDeviceArray(v) ? await v.read() : v;
      }
      return result;
    },
  };
}

function checkBuffer(name: string, b: BufferSpec, fail: (w: string) => never): { dtype: DType; data?: ArrayLike<number | bigint>; length: number } {
  let dtype: unknown, data: unknown, length: unknown;
  if (Array.isArray(b)) [dtype, data] = b as unknown[];
  else if (b && typeof b === 'object') ({ dtype, data, length } = b as { dtype?: unknown; data?: unknown; length?: unknown });
  else fail(`buffer '${name}': expected { dtype, data } or { dtype, length } (or [dtype, data | length]), got ${typeof b}`);
  if (!isDType(dtype)) fail(`buffer '${name}': unknown dtype ${JSON.stringify(dtype)}`);
  if (typeof data === 'number') { length = data; data = undefined; }
  if (data !== undefined) {
    if (data === null || typeof data !== 'object' || typeof (data as ArrayLike<unknown>).length !== 'number') fail(`buffer '${name}': data must be an array or typed array`);
    return { dtype: dtype as DType, data: data as ArrayLike<number | bigint>, length: (data as ArrayLike<unknown>).length };
  }
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) fail(`buffer '${name}': give data, or a length (a non-negative integer), got ${String(length)}`);
  return { dtype: dtype as DType, length: length as number };
}

interface CheckedLaunch { kernel: Kernel; grid: DimLike; block: DimLike; sharedBytes?: number; args: JobLaunch['args']; warpSize?: number }

function checkLaunch(l: JobLaunch, k: number, modules: readonly KernelModule[], buffers: Map<string, { dtype: DType }>, fail: (w: string) => never): CheckedLaunch {
  if (!l || typeof l !== 'object') fail(`launch ${k}: expected { kernel, grid, block, args }`);
  const kernel = typeof l.kernel === 'string' ? findKernel(l.kernel, modules, fail) : l.kernel;
  if (!kernel || typeof kernel !== 'object' || typeof kernel.name !== 'string' || !Array.isArray(kernel.params)) {
    fail(`launch ${k}: kernel must be a kernel of the job's module (module.kernels.name) or its name, got ${String(l.kernel)}`);
  }
  if (!kernel.module || !modules.some((m) => m.id === kernel.module!.id)) {
    fail(`launch ${k}: kernel '${kernel.name}' is not from the job's module(s) (${modules.map(describeModule).join('; ')}): give its module in \`module\`/\`modules\``);
  }
  const where = `launch ${k} (${kernel.name})`;
  toDim3('grid', l.grid);
  toDim3('block', l.block);
  const values = argumentList(kernel, l.args);
  kernel.params.forEach((p, i) => {
    const v = values[i];
    if (p.kind === 'array') {
      if (typeof v !== 'string') fail(`${where}: array parameter '${p.name}' takes the name of one of the job's buffers, got ${typeof v}`);
      const b = buffers.get(v as string);
      if (!b) fail(`${where}: parameter '${p.name}' names buffer '${String(v)}', which the job does not have (${[...buffers.keys()].join(', ') || 'none'})`);
      if (b!.dtype !== p.dtype) fail(`${where}: parameter '${p.name}' is ${p.dtype}[] but buffer '${String(v)}' is ${b!.dtype}`);
    } else if (typeof v === 'string') {
      fail(`${where}: scalar parameter '${p.name}' (${p.dtype}) got the string '${v}'`);
    }
  });
  return { kernel, grid: l.grid, block: l.block, sharedBytes: l.sharedBytes, args: l.args, warpSize: l.warpSize };
}

/** The kernel of that name in the job's modules; a one-line error lists what they have. */
function findKernel(name: string, modules: readonly KernelModule[], fail: (w: string) => never): Kernel {
  for (const m of modules) {
    const k = (m.kernels as Record<string, Kernel>)[name];
    if (k) return k;
  }
  const known = modules.flatMap((m) => Object.keys(m.kernels));
  return fail(`kernel '${name}' is not in module ${modules.map(describeModule).join('; ')} (kernels: ${known.join(', ') || 'none'})`);
}

/** Launch arguments with buffer names replaced by the job's device arrays. */
function bindArgs(args: unknown, arrays: Record<string, DeviceArray>, job: string): readonly (DeviceArray | number | bigint)[] | Record<string, DeviceArray | number | bigint> {
  const bind = (v: unknown): DeviceArray | number | bigint => {
    if (typeof v !== 'string') return v as DeviceArray | number | bigint;
    const a = arrays[v];
    if (!a) throw new RaceJobError(`job '${job}': argument '${v}' names no buffer of the job (${Object.keys(arrays).join(', ') || 'none'})`);
    return a;
  };
  if (Array.isArray(args)) return args.map(bind);
  if (args && typeof args === 'object') return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, bind(v)]));
  return args as never; // the launch's own argument check names the problem
}

function isDeviceArray(v: unknown): v is DeviceArray {
  return !!v && typeof v === 'object' && typeof (v as DeviceArray).byteOffset === 'number' && typeof (v as DeviceArray).read === 'function';
}

/** 64-bit buffers take bigints: numbers given for them are converted. */
function toDType(dtype: DType, data: ArrayLike<number | bigint>): ArrayLike<number | bigint> {
  if (dtype !== 'i64' && dtype !== 'u64') return data;
  return Array.from(data as ArrayLike<number | bigint>, (v) => (typeof v === 'bigint' ? v : BigInt(v)));
}
