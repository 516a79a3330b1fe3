// Race jobs: a thread-kernel workload (buffers, one or more launches, outputs) that the race
// tools can run under any schedule: simt's corpus (corpus.ts) or the user's own (defineJob.ts,
// on compiled kernel modules). A session holds one device and one ThreadRunner; buffers keep
// their addresses from run to run, so a replayed schedule gives bit-identical bytes.

import { createDevice, type Device } from '../device.js';
import type { DType, TypedArrayOf } from '../dtypes.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import type { KernelModule } from '../kernelModule.js';
import type { ReportKind, RaceReport } from './reports.js';
import type { Comparison } from '../crosscheck/types.js';
import type { Chooser } from './schedule.js';
import { ThreadRunner, DEFAULT_MAX_STEPS, type ThreadLaunch } from './threadRunner.js';
import type { MemoryChecker } from './memoryChecker.js';
import { IntervalChooser } from './schedule.js';
import { RaceScreen, screenForm } from './screen.js';
import { shippedModule } from '../shippedModule.js';
import { isNode } from '../platform.js';

export type Outputs = Record<string, ArrayLike<number | bigint> & { length: number }>;

export interface JobContext {
  readonly device: Device;
  /** A named device buffer holding `data` (or `length` zeros); named buffers are what bounds checks and reports know. */
  buffer<D extends DType>(name: string, dtype: D, data: ArrayLike<number | bigint> | number): Promise<DeviceArray<D>>;
  /** Runs one thread-kernel launch under the run's schedule (synchronously, on the host). */
  launch(l: ThreadLaunch): void;
}

export interface RaceJob<I = unknown> {
  name: string;
  summary: string;
  /** What the corpus says: true when the kernel has a race (or an output that follows the atomics' order). */
  racy: boolean;
  /** For racy jobs: the report kinds of which racecheck must give at least one. */
  expect: ReportKind[];
  /** The seed document it comes from, if any. */
  seed?: string;
  /** Compiled kernel modules whose kernels the job launches (loaded into the session before it runs). */
  modules?: readonly KernelModule[];
  /** Why it is (not) racy; for benign cases, why that is fine. */
  note?: string;
  /** How crossCheck compares each output between backends (defineJob's `compare`); an output not named is compared exactly. */
  compare?: Readonly<Record<string, Comparison>>;
  inputs(): I;
  run(ctx: JobContext, inputs: I): Promise<Outputs>;
}

export interface RunResult {
  outputs: Outputs;
  decisions: number[];
  reports: RaceReport[];
  steps: number;
  switches: number;
}

export class RaceSession {
  private readonly arrays = new Map<string, DeviceArray>();
  private readonly screen: RaceScreen;
  /** Use the screen (racecheck's fast pass, screen.ts) where it applies (default true; tests turn it off to compare). */
  useScreen = true;
  /** What the last run's screen found, if it ran (tests and the bench read it). */
  lastScreen: { clean: boolean; why?: string } | undefined;

  private constructor(readonly device: Device, readonly runner: ThreadRunner, private readonly owned: boolean) {
    this.screen = new RaceScreen(device);
  }

  /**
   * A session on `device` (default: a new serial device, destroyed with the session: 256 MiB in
   * Node, where the screen's shadow memory lives beside the job's buffers; 64 MiB in browsers).
   */
  static async open(device?: Device): Promise<RaceSession> {
    // A device of its own starts with the screen form of simt's own kernels loaded: loading a
    // module later restarts the pool's workers (tens of ms).
    const form = device ? null : await screenForm(await shippedModule()).catch(() => null);
    const dev = device ?? await createDevice({ backend: 'serial', memoryBytes: (isNode ? 256 : 64) << 20, seed: 1, modules: form ? [form] : [] });
    return new RaceSession(dev, await ThreadRunner.create(dev), !device);
  }

  /** A named job buffer (the same device memory from run to run), filled with `data` or zeros. */
  private async jobBuffer<D extends DType>(job: RaceJob<unknown>, name: string, dtype: D, data: ArrayLike<number | bigint> | number): Promise<DeviceArray<D>> {
    const length = typeof data === 'number' ? data : data.length;
    const key = `${job.name}/${name}`;
    let a = this.arrays.get(key) as DeviceArray<D> | undefined;
    if (!a || a.dtype !== dtype || a.length !== length) {
      a?.free();
      a = this.device.alloc(dtype, Math.max(length, 0));
      this.arrays.set(key, a as DeviceArray);
    }
    if (typeof data === 'number') await a.fill((dtype === 'i64' || dtype === 'u64' ? 0n : 0) as never);
    else await a.upload(data as unknown as TypedArrayOf[D]);
    this.runner.nameBuffer(name, a);
    return a;
  }

  /**
   * Racecheck's fast pass: the job's launches in the screen form (screen.ts), in the in-order
   * interval schedule, or with a `seed` in the order the `serial` backend gives launches of that
   * seed. Returns the run when every launch is clean (nothing for the detector to report),
   * undefined when the detector must run the job (a finding, or a launch the screen cannot
   * run). `all`: run every launch even after a finding, and return the run (replay of a screen
   * schedule); undefined then only when a launch cannot run in the screen form.
   */
  async screenRun<I>(job: RaceJob<I>, inputs: I, o: { seed?: number; maxSteps?: number; all?: boolean } = {}): Promise<RunResult | undefined> {
    this.lastScreen = undefined;
    if (!await this.screen.load(job.modules ?? [])) { this.lastScreen = { clean: false, why: 'no-screen' }; return undefined; }
    const maxSteps = o.maxSteps ?? DEFAULT_MAX_STEPS;
    this.runner.clearBuffers();
    let dirty: string | undefined;
    let steps = 0;
    // Screen launches run on the worker pool in issue order while the job's host code goes on
    // (its reads of device memory wait for them); each resolves with its verdict.
    const verdicts: Promise<void>[] = [];
    const ctx: JobContext = {
      device: this.device,
      buffer: (name, dtype, data) => this.jobBuffer(job as RaceJob<unknown>, name, dtype, data),
      launch: (l) => {
        if (dirty && !o.all) return;
        verdicts.push(this.screen.launch(l, maxSteps, o.seed).then((v) => {
          steps += v.accesses;
          if (!v.clean) dirty ??= v.why ?? 'finding';
        }));
      },
    };
    let outputs: Outputs;
    try {
      outputs = await job.run(ctx, inputs);
    } catch {
      dirty ??= 'error';
      outputs = {};
    }
    await Promise.all(verdicts);
    this.screen.settle();
    this.lastScreen = dirty ? { clean: false, why: dirty } : { clean: true };
    const run = { outputs, decisions: [], reports: [], steps, switches: 0 };
    if (o.all) return dirty === 'error' || dirty === 'no-screen' ? undefined : run;
    return dirty ? undefined : run;
  }

  /**
   * Runs the job once under `chooser`; `maxSteps` is each launch's step budget (StepBudgetError
   * past it); `memcheck` checks every access (memcheck mode).
   */
  async runJob<I>(job: RaceJob<I>, inputs: I, chooser: Chooser, detect: boolean, o: { maxSteps?: number; memcheck?: MemoryChecker } = {}): Promise<RunResult> {
    this.lastScreen = undefined;
    // Racecheck's first run (in-order interval schedule, detection on): the screen first; the
    // detector only where it finds something. Its run is the same schedule (no decisions).
    if (detect && this.useScreen && !o.memcheck && chooser instanceof IntervalChooser && chooser.seed === undefined) {
      const r = await this.screenRun(job, inputs, { maxSteps: o.maxSteps });
      if (r) return r;
    }
    const decisions: number[] = [];
    const reports: RaceReport[] = [];
    const runner = this.runner;
    for (const m of job.modules ?? []) await runner.load(m);
    runner.clearBuffers();
    runner.step = 0;
    runner.switches = 0;
    const ctx: JobContext = {
      device: this.device,
      buffer: (name, dtype, data) => this.jobBuffer(job as RaceJob<unknown>, name, dtype, data),
      launch: (l) => runner.run(l, { chooser, detect, decisions, reports, maxSteps: o.maxSteps, memcheck: o.memcheck }),
    };
    const outputs = await job.run(ctx, inputs);
    return { outputs, decisions, reports, steps: runner.step, switches: runner.switches };
  }

  async close(): Promise<void> {
    this.screen.close();
    for (const a of this.arrays.values()) if (!a.freed) a.free();
    this.arrays.clear();
    if (this.owned) await this.device.destroy();
  }
}

/** A stable key of a run's outputs (bytes of every output, in name order). */
export function outputKey(o: Outputs): string {
  const parts: string[] = [];
  for (const name of Object.keys(o).sort()) parts.push(`${name}=${Array.from(o[name]!, (v) => String(v)).join(',')}`);
  return parts.join(';');
}

/** The first difference between two runs' outputs, or undefined. */
export function firstDifference(a: Outputs, b: Outputs): { buffer: string; index: number; a: string; b: string } | undefined {
  for (const name of Object.keys(a).sort()) {
    const x = a[name]!, y = b[name];
    if (!y) return { buffer: name, index: 0, a: 'present', b: 'absent' };
    const n = Math.max(x.length, y.length);
    for (let k = 0; k < n; k++) if (x[k] !== y[k]) return { buffer: name, index: k, a: String(x[k]), b: String(y[k]) };
  }
  return undefined;
}
