// The job a race command runs: a corpus job by name (`simt racecheck lostUpdate`), or the
// user's own (`--job job.js`, with `--module kernels.simt.json|kernels.ts` as its module).
import type { ParsedArgs } from './args.js';
import { stringOption, UsageError } from './args.js';
import type { RaceJob } from '../race/job.js';

export interface ResolvedJob {
  job: RaceJob<unknown>;
  /** How to name this job again on the command line (for printed replay commands). */
  cli: string;
}

export async function resolveRaceJob(args: ParsedArgs): Promise<ResolvedJob> {
  const race = await import('../race/index.js');
  const jobPath = stringOption(args.options, 'job');
  const modulePath = stringOption(args.options, 'module');
  const name = args.positionals[0];
  if (jobPath === undefined) {
    if (modulePath !== undefined) throw new UsageError('--module needs --job <job.js>: the job says which kernels to launch on which buffers');
    if (!name) throw new UsageError(`name a job (simt explore --list shows them), or give --module <kernels> --job <job.js>`);
    const job = race.findJob(name);
    if (!job) throw new UsageError(`no job '${name}' (simt explore --list shows them; your own kernels: --module <kernels> --job <job.js>)`);
    return { job, cli: job.name };
  }
  if (name) throw new UsageError(`give a corpus job name or --job, not both (got '${name}' and --job ${jobPath})`);
  const { loadModuleFile, loadJobFile } = await import('../race/jobFile.js');
  const module = modulePath === undefined ? undefined : await loadModuleFile(modulePath);
  const job = await loadJobFile(jobPath, module);
  const quote = (s: string): string => (/^[\w./@:+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return { job, cli: `${modulePath === undefined ? '' : `--module ${quote(modulePath)} `}--job ${quote(jobPath)}` };
}
