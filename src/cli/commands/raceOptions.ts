// The declared options, examples and job names of `simt explore`, `simt racecheck` and `simt
// memcheck` (their run() is in explore.ts, racecheck.ts and memcheck.ts; an option added there
// must be declared here too, or the parser rejects it as unknown).
import type { Command } from '../command.js';
import { opt, type OptionSpec } from '../options.js';

async function raceJobNames(): Promise<string[]> {
  const race = await import('../../race/index.js');
  return race.corpus.map((j) => j.name);
}

/** A user job instead of a corpus job name: a compiled module (or kernel source) and a job file. */
const USER_JOB_OPTIONS: OptionSpec[] = [
  { name: 'module', value: 'FILE', description: 'a kernel module (.simt.json from simt build) or a kernel source (.ts, compiled on the fly)' },
  { name: 'job', value: 'FILE', description: 'an ES module whose default export is a defineJob job (or a spec, or a function of the module)' },
];

const EXPLORE_OPTIONS: OptionSpec[] = [
  ...USER_JOB_OPTIONS,
  { name: 'schedules', value: 'N', default: '100', description: 'schedules to run' },
  { name: 'strategy', value: 'random|pct|exhaustive', default: 'random', description: 'how schedules are chosen' },
  { name: 'depth', value: 'D', default: '3', description: 'preemptions per run (pct)' },
  opt.seed('seed of the first schedule (run k uses seed + k)'),
  { name: 'shard', value: 'i/n', description: 'run shard i of n (counted from 1) of the schedules; simt explore merge adds the shards\' --json files up' },
  { name: 'until-differs', description: 'stop at the first outcome that differs from the in-order reference' },
  { name: 'replay', value: 'SCHEDULE', description: 'run once under this schedule string (as printed after "replay:")' },
  { name: 'list', description: 'list the jobs' },
  { name: 'max-steps', value: 'N', default: '200000000', description: 'step budget of each launch: a run past it stops and says where' },
  opt.json('one JSON document, the outcome file merge reads: { format, job, moduleHash, inputsHash, strategy, seed, depth, schedules, shard, runs, exhausted, ms, reference, classes, outcomes, found }'),
];

const RACECHECK_OPTIONS: OptionSpec[] = [
  ...USER_JOB_OPTIONS,
  { name: 'schedules', value: 'N', default: '4', description: 'schedules to run under the detector' },
  { name: 'corpus', description: 'check every job of the corpus and count detections, misses and false alarms' },
  { name: 'max-steps', value: 'N', default: '200000000', description: 'step budget of each launch: a run past it stops and says where' },
  opt.json('one JSON document: { job, reports, summary: { hazards, errors, warnings, notes }, ms, schedules, findings: [...] }, or with --corpus { detected, missed, falseAlarms, kernels: [...] }'),
];

const MEMCHECK_OPTIONS: OptionSpec[] = [
  ...USER_JOB_OPTIONS,
  { name: 'max-steps', value: 'N', default: '200000000', description: 'step budget of each launch: a run past it stops and says where' },
  opt.json('one JSON document: { job, errors, ms, findings: [...] }'),
];

export function withExploreOptions(c: Command): Command {
  return {
    ...c, options: EXPLORE_OPTIONS, jobNames: raceJobNames,
    examples: [
      'simt explore lostUpdate --schedules 1000 --strategy pct', 'simt explore --list', 'simt explore --module histogram.simt.json --job job.mjs',
      'simt explore lostUpdate --schedules 100000 --shard 2/4 --json > shard-2.json', 'simt explore merge shard-1.json shard-2.json shard-3.json shard-4.json',
    ],
    details: 'Every outcome is printed with a schedule string that replays it (--replay). Job names ignore case, \'-\' and \'_\'. ' +
      '--shard i/n: random and pct run schedules k ≡ i−1 (mod n) of 0..N−1; exhaustive splits the tree of decisions into subtrees (docs/race-tools.md). ' +
      'merge takes only --json; it refuses files of another job, module, inputs, strategy or options, and a shard given twice, and warns about missing shards.',
  };
}

export function withRacecheckOptions(c: Command): Command {
  return {
    ...c, options: RACECHECK_OPTIONS, jobNames: raceJobNames, jobList: 'simt explore --list',
    examples: ['simt racecheck lostUpdate', 'simt racecheck --corpus --json', 'simt racecheck --module histogram.simt.json --job job.mjs'],
    details: 'Reports follow compute-sanitizer\'s layout and end with its RACECHECK SUMMARY line. Exit status 1 when an error is found (warnings and notes do not fail; with --corpus: a racy kernel missed or a clean one reported).',
  };
}

export function withMemcheckOptions(c: Command): Command {
  return {
    ...c, options: MEMCHECK_OPTIONS, jobNames: raceJobNames, jobList: 'simt explore --list',
    examples: ['simt memcheck --module histogram.simt.json --job job.mjs', 'simt memcheck --module kernels.ts --job job.mjs --json'],
    details: 'One run in barrier-interval order. An out-of-bounds or misaligned access is reported and skipped (a read gives 0, a write is dropped), and the run goes on: every error is reported, once per kind and source line with a count. ' +
      'Output follows compute-sanitizer\'s layout and ends with its ERROR SUMMARY line; exit status 1 when there is an error.',
  };
}
