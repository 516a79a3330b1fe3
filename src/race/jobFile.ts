// Jobs and modules from files (Node): what `simt racecheck|explore --module … --job …` runs.
//
// --module: a module written by `simt build` (`<name>.simt.json`, the wasm beside it), or a
//           kernel source (`kernels.ts`), compiled here (and cached by content hash).
// --job:    an ES module whose default export is a job made by defineJob, a job spec (what
//           defineJob takes: the --module is its module unless it names its own), or a function
//           of the --module returning either (or a promise of one):
//
//   export default (module) => ({
//     name: 'histogram', module,
//     buffers: { data: ['u8', bytes], bins: ['u32', 256] },
//     launches: [{ kernel: 'histogram256', grid: 2, block: 64, args: ['data', bytes.length, 'bins'] }],
//     outputs: ['bins'],
//   });

import { SimtError } from '../errors.js';
import type { KernelModule } from '../kernelModule.js';
import { defineJob, isRaceJob, type JobInputs, type JobSpec } from './defineJob.js';
import type { RaceJob } from './job.js';

/** A --module or --job file that is missing, unreadable, or not what the option takes. */
export class JobFileError extends SimtError {
  constructor(readonly path: string, problem: string) {
    super(`${path}: ${problem}`);
  }
}

async function checkFile(path: string): Promise<string> {
  const { stat } = await import('node:fs/promises');
  const { resolve } = await import('node:path');
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw new JobFileError(path, 'is a directory, not a file');
  } catch (e) {
    if (e instanceof JobFileError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new JobFileError(path, code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message.split('\n')[0]!);
  }
  return resolve(path);
}

/** A kernel module from a `.simt.json` (simt build) or a kernel source `.ts` (compiled now). */
export async function loadModuleFile(path: string): Promise<KernelModule> {
  await checkFile(path);
  if (path.endsWith('.simt.json')) {
    const { loadKernelModule } = await import('../kernelModule.js');
    return loadKernelModule(path);
  }
  if (path.endsWith('.ts')) {
    const { compileKernelFiles } = await import('../compiler/index.js');
    return compileKernelFiles([path]);
  }
  throw new JobFileError(path, 'not a kernel module: give the .simt.json that `simt build` wrote, or a kernel source (.ts)');
}

/** The race job a job file exports (see the file comment), with `module` as its module unless it names its own. */
export async function loadJobFile(path: string, module?: KernelModule): Promise<RaceJob<JobInputs>> {
  const abs = await checkFile(path);
  const { pathToFileURL } = await import('node:url');
  let ns: { default?: unknown };
  try {
    ns = await import(pathToFileURL(abs).href) as { default?: unknown };
  } catch (e) {
    throw new JobFileError(path, `cannot import it as an ES module: ${e instanceof Error ? `${e.name}: ${e.message.split('\n')[0]}` : String(e)}`);
  }
  let exported = ns.default;
  if (exported === undefined) {
    throw new JobFileError(path, 'has no default export: `export default defineJob({ … })`, a job spec, or `(module) => spec`');
  }
  if (typeof exported === 'function') {
    try {
      exported = await (exported as (m?: KernelModule) => unknown)(module);
    } catch (e) {
      if (e instanceof SimtError) throw e;
      throw new JobFileError(path, `its default export threw: ${e instanceof Error ? `${e.name}: ${e.message.split('\n')[0]}` : String(e)}`);
    }
  }
  if (isRaceJob(exported)) return exported as RaceJob<JobInputs>;
  if (!exported || typeof exported !== 'object' || Array.isArray(exported)) {
    throw new JobFileError(path, `the default export must be a job (defineJob), a job spec or a function returning one, got ${exported === null ? 'null' : Array.isArray(exported) ? 'an array' : typeof exported}`);
  }
  const spec = exported as JobSpec;
  const own = spec.module !== undefined || spec.modules !== undefined;
  return defineJob(own || !module ? spec : { ...spec, module });
}
