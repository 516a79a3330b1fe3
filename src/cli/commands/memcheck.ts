// `simt memcheck --module kernels.simt.json --job job.js` (or a corpus job by name): runs the
// job once with every access checked — out-of-bounds and misaligned accesses, reads of device
// memory never written (initcheck) — printed in compute-sanitizer's layout and closed by its
// `ERROR SUMMARY: N errors` line; exit status 1 when there is an error.
import type { Command } from '../command.js';
import { intOption } from '../args.js';
import { resolveRaceJob } from '../raceJob.js';

export const memcheck: Command = {
  name: 'memcheck',
  summary: 'find out-of-bounds and misaligned accesses and reads of never-written memory in a job\'s kernels',
  usage: 'simt memcheck --module <kernels.simt.json|kernels.ts> --job <job.js> [--json] | simt memcheck <job> [--json]',
  async run(args, io) {
    const race = await import('../../race/index.js');
    const maxSteps = intOption(args.options, 'max-steps', race.DEFAULT_MAX_STEPS, { min: 1, max: Number.MAX_SAFE_INTEGER });
    const { job } = await resolveRaceJob(args);
    const r = await race.memcheck(job, job.inputs(), { maxSteps });
    if (args.options.json) {
      io.out(JSON.stringify({ job: job.name, errors: r.errors, ms: r.ms, findings: r.reports }));
    } else {
      const { formatMemcheckReport, errorSummaryLine } = await import('../../race/sanitizerText.js');
      io.out(`${job.name}: ${r.errors} error(s)`);
      for (const rep of r.reports) for (const l of formatMemcheckReport(rep)) io.out(l);
      io.out(errorSummaryLine(r.errors));
    }
    return r.errors === 0 ? 0 : 1;
  },
};
