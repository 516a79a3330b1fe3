// `simt explore <job>` (or `--module kernels.simt.json --job job.js`: the user's own
// kernels): runs a race job under many fine-grained schedules and groups the outputs into
// distinct outcomes, each with its count and a schedule that reproduces it; `--replay`
// runs one schedule again, bit for bit.
import type { Command } from '../command.js';
import { intOption, seedOption, stringOption, UsageError } from '../args.js';
import { resolveRaceJob } from '../raceJob.js';

export const explore: Command = {
  name: 'explore',
  summary: 'run a thread-kernel job under N schedules (random, pct, exhaustive) and list distinct outcomes',
  usage: 'simt explore <job> | --module <kernels.simt.json|kernels.ts> --job <job.js>  [--schedules N] [--strategy random|pct|exhaustive] [--depth d] [--seed s] [--until-differs] [--replay <schedule>] [--json] | simt explore --list',
  async run(args, io) {
    const race = await import('../../race/index.js');
    if (args.options.list) {
      for (const j of race.corpus) io.out(`${j.name.padEnd(22)} ${j.racy ? 'racy ' : 'clean'} ${j.summary}`);
      return 0;
    }
    const replaySchedule = stringOption(args.options, 'replay');
    if (replaySchedule) {
      // The schedule is checked before the job is loaded (or its kernels compiled).
      try {
        race.parseSchedule(replaySchedule);
      } catch (e) {
        if (e instanceof race.ScheduleFormatError) throw new UsageError(`--replay: ${e.message}`);
        throw e;
      }
    }
    const { job } = await resolveRaceJob(args);
    const maxSteps = intOption(args.options, 'max-steps', race.DEFAULT_MAX_STEPS, { min: 1, max: Number.MAX_SAFE_INTEGER });
    if (replaySchedule) {
      const r = await race.replay(job, replaySchedule, job.inputs(), { maxSteps });
      if (args.options.json) io.out(JSON.stringify({ job: job.name, schedule: replaySchedule, outputs: plain(r.outputs) }));
      else io.out(`${job.name} under ${replaySchedule}:\n  ${preview(r.outputs)}`);
      return 0;
    }
    const strategy = (stringOption(args.options, 'strategy') ?? 'random') as 'random' | 'pct' | 'exhaustive';
    if (!['random', 'pct', 'exhaustive'].includes(strategy)) throw new UsageError(`--strategy must be random, pct or exhaustive, got ${strategy}`);
    const schedules = intOption(args.options, 'schedules', 100, { min: 1, max: 10_000_000 });
    const depth = intOption(args.options, 'depth', 3, { min: 1, max: 1000 });
    const seed = seedOption(args.options, 'seed') ?? 1;
    if (seed + schedules > Number.MAX_SAFE_INTEGER) throw new UsageError(`--seed ${seed} + --schedules ${schedules} passes 2^53`);
    const res = await race.explore(job, job.inputs(), { schedules, strategy, depth, seed, maxSteps, untilDiffers: !!args.options['until-differs'] });
    if (args.options.json) {
      io.out(JSON.stringify({
        job: res.job, strategy: res.strategy, runs: res.runs, exhausted: res.exhausted, ms: res.ms,
        reference: { schedule: res.reference.schedule, outputs: plain(res.reference.outputs) },
        classes: res.classes,
        outcomes: res.outcomes.map((o) => ({ count: o.count, class: o.class, differsFromReference: o.differsFromReference, schedule: o.schedule, outputs: plain(o.outputs) })),
        found: res.found ? { index: res.found.index, schedule: res.found.schedule } : null,
      }));
      return 0;
    }
    io.out(`${res.job}: ${res.runs} ${res.strategy} schedules, ${res.outcomes.length} distinct outcome(s)` +
      (res.exhausted ? ' (every interleaving enumerated)' : '') + ` in ${res.ms.toFixed(0)} ms`);
    io.out(`  reference (in-order): ${preview(res.reference.outputs)}`);
    // Reorderings of the reference's values (filled in the order of atomics) are one class, not one outcome each.
    for (const c of res.classes) {
      io.out(`  class ${CLASS_NAMES[c.class]}: ${c.outcomes} outcome(s), ${c.runs} run(s)`);
      if (c.class === 'same-set') io.out(`          replay one: ${c.schedule}`);
    }
    for (const o of res.outcomes) {
      if (o.class === 'same-set') continue; // listed as its class above
      io.out(`  ${String(o.count).padStart(6)}× ${o.class === 'reference' ? '=ref' : '≠ref'}  ${preview(o.outputs)}`);
      io.out(`          replay: ${o.schedule}`);
    }
    if (res.found) io.out(`  stopped at run ${res.found.index}: ${res.found.schedule}`);
    return 0;
  },
};

const CLASS_NAMES = { reference: "'as the reference'", 'same-set': "'same set, different order'", differs: "'different values'" } as const;

function plain(o: Record<string, ArrayLike<number | bigint>>): Record<string, (number | string)[]> {
  const out: Record<string, (number | string)[]> = {};
  for (const [k, v] of Object.entries(o)) out[k] = Array.from(v, (x) => (typeof x === 'bigint' ? x.toString() : x));
  return out;
}

function preview(o: Record<string, ArrayLike<number | bigint>>): string {
  return Object.entries(o).map(([k, v]) => {
    const a = Array.from(v, String);
    return `${k}=[${a.slice(0, 16).join(',')}${a.length > 16 ? ',…' : ''}]`;
  }).join(' ');
}
