// Exploration, replay and racecheck over race jobs.

import type { Outputs, RaceJob, RunResult } from './job.js';
import { RaceSession, firstDifference, outputKey } from './job.js';
import type { RaceReport } from './reports.js';
import { classify, type OutcomeClass, type OutcomeGroup, outcomeClasses, setKey } from './outcomes.js';
import { type Shard, checkShard, exhaustiveUnits, owns, shareOf } from './shard.js';
import {
  type Chooser, ExhaustiveChooser, InOrderChooser, IntervalChooser, PctChooser, RandomChooser, ReplayChooser,
  type FineSchedule, type Strategy, ScheduleFormatError, formatSchedule, parseSchedule,
} from './schedule.js';

export interface ExploreOptions {
  /** Schedules to run (default 100; a shard runs its share of them; exhaustive: the most it will enumerate, in each shard). */
  schedules?: number;
  strategy?: 'random' | 'pct' | 'exhaustive';
  /** PCT bug depth d (default 3). */
  depth?: number;
  /** First seed (schedule k uses seed + k). Default 1. */
  seed?: number;
  /** Stop at the first run for which this is true (e.g. output differs from the reference). */
  stopWhen?: (run: ExploreRun) => boolean;
  /** Stop at the first run whose output differs from the reference. */
  untilDiffers?: boolean;
  /** Reference outputs (default: the in-order schedule's). */
  reference?: Outputs;
  session?: RaceSession;
  /**
   * Called after each schedule with (runs so far, schedules planned) and awaited: a page can
   * show progress and yield to its event loop here (thread kernels run on the calling thread).
   */
  onProgress?: (done: number, total: number) => void | Promise<void>;
  /** Each launch's step budget (StepBudgetError past it; default DEFAULT_MAX_STEPS). */
  maxSteps?: number;
  /**
   * Run only shard `index` of `count` (counted from 1) of the schedule space (shard.ts says
   * how it is split); `mergeOutcomeFiles` adds the shards' outcome files up. Exhaustive:
   * `schedules` bounds each shard's runs.
   */
  shard?: Shard;
}

export interface ExploreRun {
  outputs: Outputs;
  schedule: string;
  differsFromReference: boolean;
  /** random, pct: the schedule's number k (it ran seed + k), also in a shard; exhaustive: the run's number. */
  index: number;
}

export interface Outcome {
  key: string;
  count: number;
  /** A schedule that reproduces it. */
  schedule: string;
  outputs: Outputs;
  differsFromReference: boolean;
  /** 'same-set': the reference's values in another order (e.g. filled in the order of atomics). */
  class: OutcomeClass;
}

export type { OutcomeGroup } from './outcomes.js';

export interface ExploreResult {
  job: string;
  strategy: 'random' | 'pct' | 'exhaustive';
  /** The options it ran with (what an outcome file records). */
  schedules: number;
  seed: number;
  depth: number;
  shard?: Shard;
  runs: number;
  outcomes: Outcome[];
  /** The outcomes by class (reference, same set in another order, different values), each with a schedule. */
  classes: OutcomeGroup[];
  reference: { outputs: Outputs; schedule: string; steps: number };
  /** The run that met stopWhen / untilDiffers, if any. */
  found?: ExploreRun;
  /** Exhaustive: true when every interleaving was enumerated (of the shard's units, in a shard). */
  exhausted?: boolean;
  ms: number;
}

function fine(strategy: Strategy, generator: string | null, seed: number | null, depth: number | null, decisions: number[]): string {
  const s: FineSchedule = { mode: 'fine', strategy, generator, seed, depth, decisions };
  return formatSchedule(s);
}

export async function explore<I>(job: RaceJob<I>, inputs: I = job.inputs(), o: ExploreOptions = {}): Promise<ExploreResult> {
  const t0 = performance.now();
  const session = o.session ?? await RaceSession.open();
  try {
    const strategy = o.strategy ?? 'random';
    const n = o.schedules ?? 100;
    const depth = o.depth ?? 3;
    const seed0 = o.seed ?? 1;
    const shard = o.shard && checkShard(o.shard);
    const steps = { maxSteps: o.maxSteps };
    const ref = await session.runJob(job, inputs, new InOrderChooser(), false, steps);
    const refSchedule = fine('inorder', null, null, null, ref.decisions);
    const reference = o.reference ?? ref.outputs;
    const refKey = outputKey(reference);
    const refSetKey = setKey(reference);
    const outcomes = new Map<string, Outcome>();
    let found: ExploreRun | undefined;
    let runs = 0;
    let exhausted: boolean | undefined;
    const record = (r: RunResult, schedule: string, index: number): boolean => {
      const key = outputKey(r.outputs);
      const differs = key !== refKey;
      const oc = outcomes.get(key);
      if (oc) oc.count++;
      else outcomes.set(key, { key, count: 1, schedule, outputs: r.outputs, differsFromReference: differs, class: classify(r.outputs, refKey, refSetKey, key) });
      const run: ExploreRun = { outputs: r.outputs, schedule, differsFromReference: differs, index };
      runs++;
      if ((o.untilDiffers && differs) || (o.stopWhen && o.stopWhen(run))) { found = run; return true; }
      return false;
    };
    if (strategy === 'exhaustive') {
      // The first leaf (every decision the default) shows the branching points where the
      // tree is cut into units for the shards (shard.ts); without a shard it is the one unit.
      const first = new ExhaustiveChooser([]);
      const firstRun = await session.runJob(job, inputs, first, false, steps);
      const units = exhaustiveUnits(first.points, shard?.count ?? 1);
      exhausted = true;
      search: for (let u = 0; u < units.length; u++) {
        if (!owns(shard, u)) continue;
        let prefix: number[] | undefined = units[u]!;
        while (prefix) {
          if (runs >= n) { exhausted = false; break search; }
          const ch: ExhaustiveChooser = u === 0 && prefix === units[0] ? first : new ExhaustiveChooser(prefix);
          const r = ch === first ? firstRun : await session.runJob(job, inputs, ch, false, steps);
          if (record(r, fine('exhaustive', null, null, null, r.decisions), runs)) { exhausted = false; break search; }
          await o.onProgress?.(runs, n);
          prefix = ch.nextPrefix(units[u]!.length);
        }
      }
    } else {
      const planned = shareOf(shard, n);
      for (let k = shard ? shard.index - 1 : 0; k < n; k += shard?.count ?? 1) {
        const seed = seed0 + k;
        const ch: Chooser = strategy === 'pct' ? new PctChooser(seed, depth, Math.max(1, ref.steps)) : new RandomChooser(seed);
        const r = await session.runJob(job, inputs, ch, false, steps);
        const sched = strategy === 'pct'
          ? fine('pct', 'mulberry32', seed, depth, r.decisions)
          : fine('random', 'mulberry32', seed, null, r.decisions);
        if (record(r, sched, k)) break;
        await o.onProgress?.(runs, planned);
      }
    }
    const sorted = [...outcomes.values()].sort((a, b) => b.count - a.count);
    return {
      job: job.name, strategy, schedules: n, seed: seed0, depth, shard, runs, outcomes: sorted, classes: outcomeClasses(sorted),
      reference: { outputs: ref.outputs, schedule: refSchedule, steps: ref.steps }, found, exhausted,
      ms: performance.now() - t0,
    };
  } finally {
    if (!o.session) await session.close();
  }
}

/** Runs a job under a recorded schedule string; same schedule ⇒ bit-identical outputs. */
export async function replay<I>(job: RaceJob<I>, schedule: string, inputs: I = job.inputs(), o: { session?: RaceSession; detect?: boolean; maxSteps?: number } = {}): Promise<RunResult> {
  const s = parseSchedule(schedule);
  const session = o.session ?? await RaceSession.open();
  try {
    if (s.mode === 'serial') {
      // A racecheck order run by the screen: the job's launches with the blocks and each phase's
      // threads permuted as the serial backend permutes a launch of this seed.
      const r = await session.screenRun(job, inputs, { seed: s.generator === 'inorder' ? undefined : s.seed, maxSteps: o.maxSteps, all: true });
      if (!r) throw new ScheduleFormatError(`schedule ${schedule.slice(0, 40)}… is an order of racecheck's screen (${s.generator === 'inorder' ? 'in order' : `seed ${s.seed}`}): it replays on kernel modules with a screen form, and one of this job's has none or a launch failed (rebuild the module with this simt)`);
      return r;
    }
    return await session.runJob(job, inputs, new ReplayChooser(s.decisions, true, s.strategy === 'interval'), o.detect ?? false, { maxSteps: o.maxSteps });
  } finally {
    if (!o.session) await session.close();
  }
}

export interface RacecheckOptions {
  /** Runs (default 4): barrier-interval order, then other interval orders (random seeds) whose outputs are compared. */
  schedules?: number;
  seed?: number;
  session?: RaceSession;
  /** Called after each schedule with (schedules done, schedules planned) and awaited (see ExploreOptions). */
  onProgress?: (done: number, total: number) => void | Promise<void>;
  /** Each launch's step budget (StepBudgetError past it; default DEFAULT_MAX_STEPS). */
  maxSteps?: number;
}

export interface RacecheckResult {
  job: string;
  reports: RaceReport[];
  schedules: string[];
  ms: number;
}

/** What makes two reports the same finding across schedules: kind, place and both source sites. */
function reportKey(r: RaceReport): string {
  const site = (t: RaceReport['first']): string => (t ? t.location ?? '' : '');
  const where = r.kind === 'data-race' || r.kind === 'warp-sync-hazard'
    ? `${r.hazard}:${r.atomic}:${site(r.first)}:${site(r.second)}${r.first?.location ? '' : `:${r.offset}`}`
    : r.kind === 'warp-divergence' ? site(r.first) : `${r.offset ?? ''}:${r.barrier ?? ''}`;
  return `${r.kind}:${r.kernel}:${r.space ?? ''}:${r.buffer ?? ''}:${where}`;
}

/**
 * Racecheck: runs the job in barrier-interval order (each thread runs until it waits at a
 * barrier or ends: no preemption at accesses, which detection does not need) with the
 * shadow-memory detector, then in a few other interval orders, and merges the reports (data
 * races, warp-sync hazards, barrier divergence, out-of-bounds). Outputs that differ between the
 * orders are reported as schedule-dependent output when the kernel has errors, and otherwise
 * as atomic-order output — a note, not a hazard: with no race, only the atomics' order varies.
 */
export async function racecheck<I>(job: RaceJob<I>, inputs: I = job.inputs(), o: RacecheckOptions = {}): Promise<RacecheckResult> {
  const t0 = performance.now();
  const session = o.session ?? await RaceSession.open();
  try {
    const n = Math.max(1, o.schedules ?? 4);
    const seed0 = o.seed ?? 1;
    const merged = new Map<string, RaceReport>();
    const schedules: string[] = [];
    let first: { outputs: Outputs; schedule: string } | undefined;
    let diff: { d: NonNullable<ReturnType<typeof firstDifference>>; schedule: string; sameSet: boolean } | undefined;
    const compare = (outputs: Outputs, sched: string): void => {
      if (!first) first = { outputs, schedule: sched };
      else if (!diff) {
        const d = firstDifference(first.outputs, outputs);
        if (d) diff = { d, schedule: sched, sameSet: setKey(first.outputs) === setKey(outputs) };
      }
    };
    // The screen first (screen.ts): the in-order interval schedule, then the blocks and threads
    // permuted as the `serial` backend permutes launches of seeds seed, seed + 1, …. When every run is clean there
    // is nothing for the detector to report: only the outputs are compared. Otherwise the
    // detector runs every order, as below, and explains what there is.
    let screened = session.useScreen;
    for (let k = 0; screened && k < n; k++) {
      const seed = k === 0 ? undefined : seed0 + k - 1;
      const r = await session.screenRun(job, inputs, { seed, maxSteps: o.maxSteps });
      if (!r) { screened = false; break; }
      const sched = formatSchedule(seed === undefined ? { mode: 'serial', generator: 'inorder', seed: 0 } : { mode: 'serial', generator: 'splitmix64', seed });
      schedules.push(sched);
      compare(r.outputs, sched);
      await o.onProgress?.(k + 1, n);
    }
    if (!screened) { schedules.length = 0; first = undefined; diff = undefined; }
    for (let k = 0; !screened && k < n; k++) {
      const seed = k === 0 ? undefined : seed0 + k - 1;
      const r = await session.runJob(job, inputs, new IntervalChooser(seed), true, { maxSteps: o.maxSteps });
      const sched = fine('interval', seed === undefined ? null : 'mulberry32', seed ?? null, null, r.decisions);
      schedules.push(sched);
      for (const rep of r.reports) {
        const key = reportKey(rep);
        const known = merged.get(key);
        if (!known) merged.set(key, rep);
        else if (rep.severity === 'error' && known.severity === 'warning') merged.set(key, rep);
      }
      await o.onProgress?.(k + 1, n);
      compare(r.outputs, sched);
    }
    const reports = [...merged.values()];
    if (diff && first) {
      const { d, schedule, sameSet } = diff;
      const errors = reports.some((x) => x.severity === 'error');
      const what = `output '${d.buffer}'[${d.index}] is ${d.a} under one schedule and ${d.b} under another`;
      reports.push(errors
        ? {
          kind: 'schedule-dependent-output', severity: 'note', kernel: job.name, buffer: d.buffer, index: d.index, space: 'global',
          schedules: [first.schedule, schedule], message: `${what}: the errors above change the result (replay either schedule to see it)`,
        }
        : {
          kind: 'atomic-order-output', severity: 'note', kernel: job.name, buffer: d.buffer, index: d.index, space: 'global',
          schedules: [first.schedule, schedule], order: sameSet ? 'same-set' : 'values',
          message: `${what}; no race: the output follows the order of the atomics` +
            (sameSet ? ' (same set of values, different order: treat it as a set, or sort it)' : ' (e.g. floating-point sums in another order)'),
        });
    }
    return { job: job.name, reports, schedules, ms: performance.now() - t0 };
  } finally {
    if (!o.session) await session.close();
  }
}
