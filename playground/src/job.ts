// The workbench's job: a JavaScript module text the user edits, `export default (module) => spec`
// — the job-file form `simt racecheck --module kernel.ts --job job.js` takes (src/race/jobFile.ts)
// — whose spec may also carry `reference(inputs)`: the expected outputs, computed in JS from the
// job's inputs (defineJob ignores the field). Inputs come from the generators of GEN_SOURCE,
// which the page evaluates and which "download as a project" writes into the job file, so the
// downloaded job is the same job — or from .npy files dropped on the page: `file('x.npy', shape)`
// is a buffer holding one (simt's npyBuffer: its dtype the file's, its shape checked); a
// downloaded project carries the files and a `file` that reads them beside its job.js.
import { npyBuffer, NpyFormatError, type JobSpec, type KernelModule } from 'simt';

/** Seeded input generators (mulberry32), as JavaScript text: shared by the page and downloads. */
export const GEN_SOURCE = `// Input generators (simt playground): seeded, so a job gives the same inputs everywhere.
const gen = (() => {
  const rng = (seed) => { let a = seed >>> 0; return () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; }; };
  return {
    /** n integers uniform in [lo, hi]. */
    ints: (n, lo, hi, seed = 1) => { const r = rng(seed); return Array.from({ length: n }, () => lo + Math.floor(r() * (hi - lo + 1))); },
    /** n floats uniform in [lo, hi). */
    floats: (n, lo = 0, hi = 1, seed = 1) => { const r = rng(seed); return Array.from({ length: n }, () => lo + r() * (hi - lo)); },
    /** start, start + step, … (n values). */
    ramp: (n, start = 0, step = 1) => Array.from({ length: n }, (_, i) => start + i * step),
    /** n copies of v. */
    constant: (n, v) => new Array(n).fill(v),
  };
})();
`;

/** A project's `file`: the .npy files beside its job.js (Node), through the same npyBuffer. */
export const NODE_FILE_SOURCE = `// Input files (simt playground): file(name, shape) is a buffer [dtype, data] holding the .npy
// file beside this job.js, its dtype the file's; a file of another shape than given is an error.
import { readFileSync } from 'node:fs';
import { npyBuffer } from 'simt';
const file = (name, shape) => npyBuffer(readFileSync(new URL(name, import.meta.url)), { name, shape });
`;

/** The file names a job text reads with file('…'), in order, once each. */
export function filesRead(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(/\bfile\(\s*(['"`])([^'"`]+)\1/g), (m) => m[2]!))];
}

/** What the page runs: the spec (with its module) and the optional reference. */
export interface WorkbenchJob {
  spec: JobSpec & { launches: NonNullable<JobSpec['launches']> };
  reference?: (inputs: Record<string, ArrayLike<number>>) => Record<string, ArrayLike<number>>;
}

/** A job text that does not evaluate to a job: a one-line reason. */
export class JobTextError extends Error {
  override name = 'JobTextError';
}

/** The job's input files, by name: the .npy files dropped on the page. */
export type InputFiles = ReadonlyMap<string, Uint8Array>;

/** Evaluates the job text against a compiled module, its file('…') reading `files`. */
export function evaluateJob(text: string, module: KernelModule, files: InputFiles = new Map()): WorkbenchJob {
  if (!/^\s*export\s+default\s/m.test(text)) throw new JobTextError('the job must `export default (module) => ({ … })` (a job file for simt racecheck --job)');
  const file = (name: unknown, shape?: readonly number[]): unknown => {
    if (typeof name !== 'string') throw new JobTextError(`file(name, shape): the name is a string such as 'x.npy', got ${typeof name}`);
    const bytes = files.get(name);
    if (!bytes) throw new JobTextError(`the job reads file('${name}'): drop or pick that .npy file (${files.size ? `loaded: ${[...files.keys()].join(', ')}` : 'none is loaded'})`);
    return npyBuffer(bytes, { name, shape });
  };
  /** An error of the job's own code, in one line (a bad input file's says so by itself). */
  const threw = (what: string, e: unknown): JobTextError =>
    e instanceof JobTextError ? e : e instanceof NpyFormatError ? new JobTextError(e.message)
      : new JobTextError(`${what}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  let factory: unknown;
  try {
    factory = new Function('file', `${GEN_SOURCE}\n${text.replace(/^\s*export\s+default\s/m, 'return ')}`)(file);
  } catch (e) {
    throw threw('the job text does not evaluate', e);
  }
  let spec: unknown = factory;
  if (typeof factory === 'function') {
    try { spec = (factory as (m: KernelModule) => unknown)(module); } catch (e) {
      throw threw('the job\'s function threw', e);
    }
  }
  if (!spec || typeof spec !== 'object') throw new JobTextError(`the job's default export must be a spec or (module) => spec, got ${typeof spec}`);
  const s = spec as JobSpec & { reference?: unknown };
  if (!Array.isArray(s.launches) || s.launches.length === 0) throw new JobTextError('the workbench runs `launches` (a non-empty array); `run(ctx)` jobs are for the CLI');
  if (s.reference !== undefined && typeof s.reference !== 'function') throw new JobTextError('reference must be a function (inputs) => expected outputs');
  const { reference, ...rest } = s;
  return { spec: { ...rest, module: rest.module ?? module } as WorkbenchJob['spec'], reference: reference as WorkbenchJob['reference'] };
}

/** The job file of a downloaded project: the generators (and `file` if it reads files), then the job text as it is. */
export function jobFileText(text: string): string {
  return `${filesRead(text).length ? `${NODE_FILE_SOURCE}\n` : ''}${GEN_SOURCE}\n${text.trimEnd()}\n`;
}
