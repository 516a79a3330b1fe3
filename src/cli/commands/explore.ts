// `simt explore <job>` (or `--module kernels.simt.json --job job.js`: the user's own
// kernels): runs a race job under many fine-grained schedules and groups the outputs into
// distinct outcomes, each with its count and a schedule that reproduces it; `--replay`
// runs one schedule again, bit for bit. `--shard i/n` runs shard i of n of the schedules, and
// `simt explore merge a.json b.json …` adds the shards' --json outcome files up.
import type { Command, CommandIO } from '../command.js';
import { flagName, intOption, seedOption, stringOption, UsageError, type ParsedArgs } from '../args.js';
import { readJsonFile } from '../files.js';
import { resolveRaceJob } from '../raceJob.js';
import type { OutcomeFile } from '../../race/merge.js';

export const explore: Command = {
  name: 'explore',
  summary: 'run a thread-kernel job under N schedules (random, pct, exhaustive) and list distinct outcomes',
  usage: 'simt explore <job> | --module <kernels.simt.json|kernels.ts> --job <job.js>  [--schedules N] [--strategy random|pct|exhaustive] [--depth d] [--seed s] [--shard i/n] [--until-differs] [--replay <schedule>] [--json] | simt explore merge <outcomes.json>… [--json] | simt explore --list',
  subcommands: ['merge'],
  async run(args, io) {
    const race = await import('../../race/index.js');
    if (args.positionals[0] === 'merge') return merge(args, io);
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
    const shardText = stringOption(args.options, 'shard');
    if (shardText !== undefined && replaySchedule) throw new UsageError('--shard splits an exploration; --replay runs one schedule: give one of them');
    let shard;
    try {
      shard = shardText === undefined ? undefined : race.parseShard(shardText);
    } catch (e) {
      if (e instanceof race.ShardError) throw new UsageError(`--shard: ${e.message}`);
      throw e;
    }
    const { job } = await resolveRaceJob(args);
    const maxSteps = intOption(args.options, 'max-steps', race.DEFAULT_MAX_STEPS, { min: 1, max: Number.MAX_SAFE_INTEGER });
    if (replaySchedule) {
      const r = await race.replay(job, replaySchedule, job.inputs(), { maxSteps });
      if (args.options.json) io.out(JSON.stringify({ job: job.name, schedule: replaySchedule, outputs: race.plainOutputs(r.outputs) }));
      else io.out(`${job.name} under ${replaySchedule}:\n  ${preview(r.outputs)}`);
      return 0;
    }
    const strategy = (stringOption(args.options, 'strategy') ?? 'random') as 'random' | 'pct' | 'exhaustive';
    if (!['random', 'pct', 'exhaustive'].includes(strategy)) throw new UsageError(`--strategy must be random, pct or exhaustive, got ${strategy}`);
    const schedules = intOption(args.options, 'schedules', 100, { min: 1, max: 10_000_000 });
    const depth = intOption(args.options, 'depth', 3, { min: 1, max: 1000 });
    const seed = seedOption(args.options, 'seed') ?? 1;
    if (seed + schedules > Number.MAX_SAFE_INTEGER) throw new UsageError(`--seed ${seed} + --schedules ${schedules} passes 2^53`);
    const inputs = job.inputs();
    const res = await race.explore(job, inputs, { schedules, strategy, depth, seed, maxSteps, shard, untilDiffers: !!args.options['until-differs'] });
    print(await race.outcomeFile(job, inputs, res), !!args.options.json, io);
    return 0;
  },
};

/** `simt explore merge a.json b.json …`: the outcome files of one exploration's shards, added up. */
async function merge(args: ParsedArgs, io: CommandIO): Promise<number> {
  const race = await import('../../race/index.js');
  const other = Object.keys(args.options).find((k) => k !== 'json' && k !== 'verbose');
  if (other) throw new UsageError(`${flagName(args.options, other)} does not apply to merge: simt explore merge <outcomes.json>… [--json]`);
  const paths = args.positionals.slice(1);
  if (paths.length === 0) throw new UsageError('merge needs outcome files: simt explore merge shard-1.json shard-2.json … (each written by simt explore … --shard i/n --json)');
  const doc = race.mergeOutcomeFiles(paths.map((file) => ({ file, doc: race.readOutcomeFile(readJsonFile(file), file) })));
  const { count, missing } = doc.merged!;
  if (missing.length) io.err(`simt explore merge: warning: shard(s) ${missing.join(', ')} of ${count} missing: the result covers ${count - missing.length} of ${count} shards`);
  print(doc, !!args.options.json, io);
  return 0;
}

/** An exploration's (or a merge's) result: its outcome file as one JSON document, or readable lines. */
function print(doc: OutcomeFile, json: boolean, io: CommandIO): void {
  if (json) { io.out(JSON.stringify(doc)); return; }
  const part = doc.shard ? ` (shard ${doc.shard.index}/${doc.shard.count})`
    : doc.merged ? ` (shards ${doc.merged.shards.join(',')} of ${doc.merged.count} merged${doc.merged.missing.length ? `; ${doc.merged.missing.join(',')} missing` : ''})` : '';
  io.out(`${doc.job}: ${doc.runs} ${doc.strategy} schedules${part}, ${doc.outcomes.length} distinct outcome(s)` +
    (doc.exhausted ? ' (every interleaving enumerated)' : '') + ` in ${doc.ms.toFixed(0)} ms`);
  io.out(`  reference (in-order): ${preview(doc.reference.outputs)}`);
  // Reorderings of the reference's values (filled in the order of atomics) are one class, not one outcome each.
  for (const c of doc.classes) {
    io.out(`  class ${CLASS_NAMES[c.class]}: ${c.outcomes} outcome(s), ${c.runs} run(s)`);
    if (c.class === 'same-set') io.out(`          replay one: ${c.schedule}`);
  }
  for (const o of doc.outcomes) {
    if (o.class === 'same-set') continue; // listed as its class above
    io.out(`  ${String(o.count).padStart(6)}× ${o.class === 'reference' ? '=ref' : '≠ref'}  ${preview(o.outputs)}`);
    io.out(`          replay: ${o.schedule}`);
  }
  if (doc.found) io.out(`  stopped at run ${doc.found.index}: ${doc.found.schedule}`);
}

const CLASS_NAMES = { reference: "'as the reference'", 'same-set': "'same set, different order'", differs: "'different values'" } as const;

function preview(o: Record<string, ArrayLike<number | bigint | string>>): string {
  return Object.entries(o).map(([k, v]) => {
    const a = Array.from(v, String);
    return `${k}=[${a.slice(0, 16).join(',')}${a.length > 16 ? ',…' : ''}]`;
  }).join(' ');
}
