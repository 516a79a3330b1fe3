// The workbench's job: a JavaScript module text the user edits, `export default (module) => spec`
// — the job-file form `simt racecheck --module kernel.ts --job job.js` takes (src/race/jobFile.ts)
// — whose spec may also carry `reference(inputs)`: the expected outputs, computed in JS from the
// job's inputs (defineJob ignores the field). Inputs come from the generators of GEN_SOURCE,
// which the page evaluates and which "download as a project" writes into the job file, so the
// downloaded job is the same job.
import type { JobSpec, KernelModule } from 'simt';

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

/** What the page runs: the spec (with its module) and the optional reference. */
export interface WorkbenchJob {
  spec: JobSpec & { launches: NonNullable<JobSpec['launches']> };
  reference?: (inputs: Record<string, ArrayLike<number>>) => Record<string, ArrayLike<number>>;
}

/** A job text that does not evaluate to a job: a one-line reason. */
export class JobTextError extends Error {
  override name = 'JobTextError';
}

/** Evaluates the job text against a compiled module. */
export function evaluateJob(text: string, module: KernelModule): WorkbenchJob {
  if (!/^\s*export\s+default\s/m.test(text)) throw new JobTextError('the job must `export default (module) => ({ … })` (a job file for simt racecheck --job)');
  let factory: unknown;
  try {
    factory = new Function(`${GEN_SOURCE}\n${text.replace(/^\s*export\s+default\s/m, 'return ')}`)();
  } catch (e) {
    throw new JobTextError(`the job text does not evaluate: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  let spec: unknown = factory;
  if (typeof factory === 'function') {
    try { spec = (factory as (m: KernelModule) => unknown)(module); } catch (e) {
      throw new JobTextError(`the job's function threw: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    }
  }
  if (!spec || typeof spec !== 'object') throw new JobTextError(`the job's default export must be a spec or (module) => spec, got ${typeof spec}`);
  const s = spec as JobSpec & { reference?: unknown };
  if (!Array.isArray(s.launches) || s.launches.length === 0) throw new JobTextError('the workbench runs `launches` (a non-empty array); `run(ctx)` jobs are for the CLI');
  if (s.reference !== undefined && typeof s.reference !== 'function') throw new JobTextError('reference must be a function (inputs) => expected outputs');
  const { reference, ...rest } = s;
  return { spec: { ...rest, module: rest.module ?? module } as WorkbenchJob['spec'], reference: reference as WorkbenchJob['reference'] };
}

/** The job file of a downloaded project: the generators, then the job text as it is. */
export function jobFileText(text: string): string {
  return `${GEN_SOURCE}\n${text.trimEnd()}\n`;
}
