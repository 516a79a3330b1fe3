// `simt racecheck <job>` / `simt racecheck --corpus --json` / `simt racecheck --module
// kernels.simt.json --job job.js`: the shadow-memory race detector over the thread-kernel
// corpus or the user's own compiled kernels (data races, warp-sync hazards, barrier
// divergence, out-of-bounds accesses; outputs that follow the atomics' order as notes),
// printed in compute-sanitizer's layout and closed by its summary line.
import type { Command } from '../command.js';
import { intOption } from '../args.js';
import { resolveRaceJob } from '../raceJob.js';

export const racecheck: Command = {
  name: 'racecheck',
  summary: 'detect races, warp-sync hazards, barrier divergence and out-of-bounds accesses in thread kernels',
  usage: 'simt racecheck <job> [--schedules N] [--json] | simt racecheck --module <kernels.simt.json|kernels.ts> --job <job.js> [--schedules N] [--json] | simt racecheck --corpus [--json]',
  async run(args, io) {
    const race = await import('../../race/index.js');
    const schedules = intOption(args.options, 'schedules', 4, { min: 1, max: 100_000 });
    const maxSteps = intOption(args.options, 'max-steps', race.DEFAULT_MAX_STEPS, { min: 1, max: Number.MAX_SAFE_INTEGER });
    const json = !!args.options.json;
    const { summarize, summaryLine, formatSanitizerReport } = await import('../../race/sanitizerText.js');
    if (args.options.corpus) {
      const session = await race.RaceSession.open();
      let detected = 0, missed = 0, falseAlarms = 0;
      const kernels: object[] = [];
      try {
        for (const job of race.corpus) {
          const r = await race.racecheck(job, job.inputs(), { session, schedules, maxSteps });
          const hit = r.reports.some((x) => job.expect.includes(x.kind));
          if (job.racy) { if (hit) detected++; else missed++; } else if (r.reports.length > 0) falseAlarms++;
          if (json) {
            kernels.push({ name: job.name, racy: job.racy, reports: r.reports.length, kinds: [...new Set(r.reports.map((x) => x.kind))], expect: job.expect });
          } else {
            const ok = job.racy ? hit : r.reports.length === 0;
            io.out(`${ok ? 'ok  ' : 'FAIL'} ${job.name.padEnd(22)} ${job.racy ? 'racy ' : 'clean'} ${String(r.reports.length).padStart(3)} report(s) ${[...new Set(r.reports.map((x) => x.kind))].join(', ')}`);
          }
        }
      } finally {
        await session.close();
      }
      if (json) io.out(JSON.stringify({ detected, missed, falseAlarms, kernels }));
      else io.out(`detected ${detected}, missed ${missed}, false alarms ${falseAlarms} (${race.corpus.length} kernels)`);
      return missed === 0 && falseAlarms === 0 ? 0 : 1;
    }
    const { job, cli } = await resolveRaceJob(args);
    const r = await race.racecheck(job, job.inputs(), { schedules, maxSteps });
    const summary = summarize(r.reports);
    if (json) {
      io.out(JSON.stringify({ job: job.name, reports: r.reports.length, summary, ms: r.ms, schedules: r.schedules, findings: r.reports }));
    } else {
      io.out(`${job.name}: ${r.reports.length} report(s) under ${r.schedules.length} schedule(s)${job.note ? `\n  note: ${job.note}` : ''}`);
      for (const rep of r.reports) for (const l of formatSanitizerReport(rep, (s) => `simt explore ${cli} --replay ${s}`)) io.out(l);
      io.out(summaryLine(summary));
    }
    // As compute-sanitizer: an error fails the run; warnings (same-value writes) and notes do not.
    return summary.errors === 0 ? 0 : 1;
  },
};
