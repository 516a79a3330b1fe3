// The cross-check jobs. To add one (PET, STS, pixel clustering, …): write a Job in its own module
// here and add it to BUILTIN below, or call registerJob() from anywhere before crossCheck/the CLI.
import type { Job } from '../types.js';
import { countModulesJob } from './countModules.js';
import { pixelJob } from './pixel.js';
import { vecMaxJob, vecMinJob, vecSumJob } from './reductions.js';
import { stsSortJob } from './sts.js';
import { petJob } from './pet.js';

const BUILTIN: Job[] = [vecMaxJob, vecMinJob, vecSumJob, countModulesJob, stsSortJob, pixelJob, petJob];

/** Every known job, by name. */
export const jobs = new Map<string, Job>(BUILTIN.map((j) => [j.name, j]));

export function registerJob(job: Job): void {
  if (jobs.has(job.name)) throw new RangeError(`a cross-check job named '${job.name}' already exists`);
  jobs.set(job.name, job);
}

export function getJob(name: string): Job {
  const j = jobs.get(name);
  if (!j) throw new RangeError(`no cross-check job '${name}' (known: ${[...jobs.keys()].join(', ')})`);
  return j;
}

export { countModulesJob, stsSortJob, pixelJob, petJob, vecMaxJob, vecMinJob, vecSumJob };
