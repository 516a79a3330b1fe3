// Exploration, replay and racecheck over race jobs.

import type { Outputs, RaceJob, RunResult } from './job.js';
import { RaceSession, firstDifference, outputKey } from './job.js';
import type { RaceReport } from './reports.js';
import {
  type Chooser, ExhaustiveChooser, InOrderChooser, PctChooser, RandomChooser, ReplayChooser,
  type FineSchedule, type Strategy, formatSchedule, parseSchedule,
} from './schedule.js';

export interface ExploreOptions {
  /** Schedules to run (default 100; exhaustive: the most it will enumerate). */
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
}

export interface ExploreRun { outputs: Outputs; schedule: string; differsFromReference: boolean; index: number }

export interface Outcome {
  key: string;
  count: number;
  /** A schedule that reproduces it. */
  schedule: string;
  outputs: Outputs;
  differsFromReference: boolean;
}

export interface ExploreResult {
  job: string;
  strategy: string;
  runs: number;
  outcomes: Outcome[];
  reference: { outputs: Outputs; schedule: string; steps: number };
  /** The run that met stopWhen / untilDiffers, if any. */
  found?: ExploreRun;
  /** Exhaustive: true when every interleaving was enumerated. */
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
    const ref = await session.runJob(job, inputs, new InOrderChooser(), false);
    const refSchedule = fine('inorder', null, null, null, ref.decisions);
    const reference = o.reference ?? ref.outputs;
    const refKey = outputKey(reference);
    const outcomes = new Map<string, Outcome>();
    let found: ExploreRun | undefined;
    let runs = 0;
    let exhausted: boolean | undefined;
    const record = (r: RunResult, schedule: string): boolean => {
      const key = outputKey(r.outputs);
      const differs = key !== refKey;
      const oc = outcomes.get(key);
      if (oc) oc.count++;
      else outcomes.set(key, { key, count: 1, schedule, outputs: r.outputs, differsFromReference: differs });
      const run: ExploreRun = { outputs: r.outputs, schedule, differsFromReference: differs, index: runs };
      runs++;
      if ((o.untilDiffers && differs) || (o.stopWhen && o.stopWhen(run))) { found = run; return true; }
      return false;
    };
    if (strategy === 'exhaustive') {
      let prefix: number[] | undefined = [];
      exhausted = false;
      while (prefix && runs < n) {
        const ch: ExhaustiveChooser = new ExhaustiveChooser(prefix);
        const r = await session.runJob(job, inputs, ch, false);
        if (record(r, fine('exhaustive', null, null, null, r.decisions))) break;
        await o.onProgress?.(runs, n);
        prefix = ch.nextPrefix();
        if (!prefix) exhausted = true;
      }
    } else {
      for (let k = 0; k < n; k++) {
        const seed = seed0 + k;
        const ch: Chooser = strategy === 'pct' ? new PctChooser(seed, depth, Math.max(1, ref.steps)) : new RandomChooser(seed);
        const r = await session.runJob(job, inputs, ch, false);
        const sched = strategy === 'pct'
          ? fine('pct', 'mulberry32', seed, depth, r.decisions)
          : fine('random', 'mulberry32', seed, null, r.decisions);
        if (record(r, sched)) break;
        await o.onProgress?.(runs, n);
      }
    }
    return {
      job: job.name, strategy, runs, outcomes: [...outcomes.values()].sort((a, b) => b.count - a.count),
      reference: { outputs: ref.outputs, schedule: refSchedule, steps: ref.steps }, found, exhausted,
      ms: performance.now() - t0,
    };
  } finally {
    if (!o.session) await session.close();
  }
}

/** Runs a job under a recorded schedule string; same schedule ⇒ bit-identical outputs. */
export async function replay<I>(job: RaceJob<I>, schedule: string, inputs: I = job.inputs(), o: { session?: RaceSession; detect?: boolean } = {}): Promise<RunResult> {
  const s = parseSchedule(schedule);
  if (s.mode !== 'fine') throw new Error('a serial schedule replays a phase-loop launch: device.launch(kernel, { ...config, seed }, args)');
  const session = o.session ?? await RaceSession.open();
  try {
    return await session.runJob(job, inputs, new ReplayChooser(s.decisions), o.detect ?? false);
  } finally {
    if (!o.session) await session.close();
  }
}

export interface RacecheckOptions {
  /** Schedules to check under (default 4: in-order, then random seeds). */
  schedules?: number;
  seed?: number;
  session?: RaceSession;
  /** Called after each schedule with (schedules done, schedules planned) and awaited (see ExploreOptions). */
  onProgress?: (done: number, total: number) => void | Promise<void>;
}

export interface RacecheckResult {
  job: string;
  reports: RaceReport[];
  schedules: string[];
  ms: number;
}

/**
 * Racecheck: runs the job with the shadow-memory detector under a few schedules and merges the
 * reports (data races, warp-sync hazards, barrier divergence, out-of-bounds), then compares the
 * schedules' outputs: a difference is reported as schedule-dependent output.
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
    let outputReport: RaceReport | undefined;
    for (let k = 0; k < n; k++) {
      const ch = k === 0 ? new InOrderChooser() : new RandomChooser(seed0 + k - 1);
      const r = await session.runJob(job, inputs, ch, true);
      const sched = k === 0 ? fine('inorder', null, null, null, r.decisions) : fine('random', 'mulberry32', seed0 + k - 1, null, r.decisions);
      schedules.push(sched);
      for (const rep of r.reports) {
        const key = `${rep.kind}:${rep.kernel}:${rep.buffer ?? ''}:${rep.offset ?? ''}:${rep.barrier ?? ''}`;
        if (!merged.has(key)) merged.set(key, rep);
      }
      await o.onProgress?.(k + 1, n);
      if (!first) first = { outputs: r.outputs, schedule: sched };
      else if (!outputReport) {
        const d = firstDifference(first.outputs, r.outputs);
        if (d) {
          outputReport = {
            kind: 'schedule-dependent-output', kernel: job.name, buffer: d.buffer, index: d.index, space: 'global',
            schedules: [first.schedule, sched],
            message: `output '${d.buffer}'[${d.index}] is ${d.a} under one schedule and ${d.b} under another (replay either schedule to see it)`,
          };
        }
      }
    }
    const reports = [...merged.values()];
    if (outputReport) reports.push(outputReport);
    return { job: job.name, reports, schedules, ms: performance.now() - t0 };
  } finally {
    if (!o.session) await session.close();
  }
}
