// Runs a workbench job's launches on a device (the wasm pool, or WebGPU through the kernels'
// generated WGSL) as device code would: upload the buffers, launch in order, read the outputs.
// And compares outputs: exact for integers, a relative tolerance for floats (float sums may
// be added in another order on another backend).
import { DTYPES, type GpuDevice, type DType, type DeviceArray } from 'simt';
import type { WorkbenchJob } from './job.js';

export type Arrays = Record<string, ArrayLike<number>>;

/** The job's initial buffer contents as typed arrays of their dtype (what kernels see). */
export function jobInputs(spec: WorkbenchJob['spec']): { dtypes: Record<string, DType>; data: Record<string, ArrayLike<number> | number> } {
  const dtypes: Record<string, DType> = {}, data: Record<string, ArrayLike<number> | number> = {};
  for (const [name, b] of Object.entries(spec.buffers ?? {})) {
    let dtype: DType, d: unknown;
    if (Array.isArray(b)) [dtype, d] = b as [DType, unknown];
    else { dtype = (b as { dtype: DType }).dtype; d = 'data' in b ? b.data : (b as { length: number }).length; }
    if (!(dtype in DTYPES)) throw new RangeError(`buffer '${name}': unknown dtype ${JSON.stringify(dtype)}`);
    dtypes[name] = dtype;
    data[name] = typeof d === 'number' ? d : new (DTYPES[dtype].ctor as unknown as new (a: ArrayLike<number>) => ArrayLike<number>)(d as ArrayLike<number>);
  }
  return { dtypes, data };
}

export interface DeviceRun { outputs: Arrays; ms: number }

export async function runOnDevice(dev: GpuDevice, job: WorkbenchJob): Promise<DeviceRun> {
  const { dtypes, data } = jobInputs(job.spec);
  const arrays: Record<string, DeviceArray> = {};
  try {
    for (const [name, d] of Object.entries(data)) {
      if (typeof d === 'number') { arrays[name] = dev.alloc(dtypes[name]!, d); await arrays[name].fill(0 as never); }
      else arrays[name] = await dev.upload(dtypes[name]!, d as never);
    }
    const bind = (a: unknown): unknown => (typeof a === 'string' ? arrays[a] ?? failArg(a) : a);
    const failArg = (a: string): never => { throw new RangeError(`launch argument '${a}' names no buffer of the job (${Object.keys(arrays).join(', ')})`); };
    const t0 = performance.now();
    for (const l of job.spec.launches) {
      const kernel = typeof l.kernel === 'string' ? (job.spec.module!.kernels as Record<string, unknown>)[l.kernel] : l.kernel;
      if (!kernel) throw new RangeError(`launch: the module has no kernel '${String(l.kernel)}' (it has ${Object.keys(job.spec.module!.kernels).join(', ')})`);
      const args = Array.isArray(l.args) ? l.args.map(bind) : Object.fromEntries(Object.entries(l.args).map(([k, v]) => [k, bind(v)]));
      await dev.launch(kernel as never, { grid: l.grid, block: l.block, sharedBytes: l.sharedBytes } as never, args as never);
    }
    const outputs: Arrays = {};
    for (const o of job.spec.outputs ?? Object.keys(arrays)) {
      const a = arrays[o];
      if (!a) throw new RangeError(`output '${o}' is not one of the job's buffers`);
      outputs[o] = await a.read() as ArrayLike<number>;
    }
    return { outputs, ms: performance.now() - t0 };
  } finally {
    for (const a of Object.values(arrays)) a.free();
  }
}

export interface Difference { output: string; index: number; got: number | string; expected: number | string }

export interface Comparison { equal: boolean; compared: number; differing: number; first: Difference[] }

const FLOAT_TOL = 1e-5;

function same(a: number, b: number, float: boolean): boolean {
  if (Object.is(a, b) || a === b) return true;
  if (!float) return false;
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  return Math.abs(a - b) <= FLOAT_TOL * Math.max(1, Math.abs(a), Math.abs(b));
}

/** `got` against `expected`, output by output: the count of differing elements and the first few. */
export function compareOutputs(got: Arrays, expected: Arrays, maxShown = 8): Comparison {
  const first: Difference[] = [];
  let compared = 0, differing = 0;
  for (const [name, exp] of Object.entries(expected)) {
    const g = got[name];
    if (!g) { differing++; if (first.length < maxShown) first.push({ output: name, index: -1, got: 'missing', expected: `${exp.length} elements` }); continue; }
    const float = g instanceof Float32Array || g instanceof Float64Array || exp instanceof Float32Array || exp instanceof Float64Array ||
      Array.from(exp).some((v) => !Number.isInteger(v));
    if (g.length !== exp.length) { differing++; if (first.length < maxShown) first.push({ output: name, index: -1, got: `${g.length} elements`, expected: `${exp.length} elements` }); }
    const n = Math.min(g.length, exp.length);
    for (let i = 0; i < n; i++) {
      compared++;
      if (!same(Number(g[i]), Number(exp[i]), float)) {
        differing++;
        if (first.length < maxShown) first.push({ output: name, index: i, got: Number(g[i]), expected: Number(exp[i]) });
      }
    }
  }
  return { equal: differing === 0, compared, differing, first };
}

export const TOLERANCE_NOTE = `integers exact; floats within ${FLOAT_TOL} relative`;
