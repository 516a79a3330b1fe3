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
import { ThreadRunner, type ThreadLaunch } from './threadRunner.js';
import type { MemoryChecker } from './memoryChecker.js';

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
  private constructor(readonly device: Device, readonly runner: ThreadRunner, private readonly owned: boolean) {}

  /** A session on `device` (default: a new 64 MiB serial device, destroyed with the session). */
  static async open(device?: Device): Promise<RaceSession> {
    const dev = device ?? await createDevice({ backend: 'serial', memoryBytes: 64 << 20, seed: 1 });
    return new RaceSession(dev, await ThreadRunner.create(dev), !device);
  }

  /**
   * Runs the job once under `chooser`; `maxSteps` is each launch's step budget (StepBudgetError
   * past it); `memcheck` checks every access (memcheck mode).
   */
  async runJob<I>(job: RaceJob<I>, inputs: I, chooser: Chooser, detect: boolean, o: { maxSteps?: number; memcheck?: MemoryChecker } = {}): Promise<RunResult> {
    const decisions: number[] = [];
    const reports: RaceReport[] = [];
    const runner = this.runner;
    for (const m of job.modules ?? []) await runner.load(m);
    runner.clearBuffers();
    runner.step = 0;
    runner.switches = 0;
    const ctx: JobContext = {
      device: this.device,
      buffer: async <D extends DType>(name: string, dtype: D, data: ArrayLike<number | bigint> | number) => {
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
        runner.nameBuffer(name, a);
        return a;
      },
      launch: (l) => runner.run(l, { chooser, detect, decisions, reports, maxSteps: o.maxSteps, memcheck: o.memcheck }),
    };
    const outputs = await job.run(ctx, inputs);
    return { outputs, decisions, reports, steps: runner.step, switches: runner.switches };
  }

  async close(): Promise<void> {
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
