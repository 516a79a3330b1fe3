// memcheck: a job's launches run once on the fine-grained form, in barrier-interval order, with
// every access checked (MemoryChecker): out-of-bounds and misaligned accesses, and reads of
// device memory never written since it was allocated (initcheck, InitShadow). The run does not
// stop at the first error: a faulting access is skipped and every error is reported, once per
// (kind, source site) with a count, as compute-sanitizer's memcheck and initcheck report them.

import type { Outputs, RaceJob } from './job.js';
import { RaceSession } from './job.js';
import { IntervalChooser } from './schedule.js';
import { InitShadow } from './initShadow.js';
import { MemoryChecker, type MemcheckReport } from './memoryChecker.js';

export interface MemcheckOptions {
  /** The session to run on (default: a new one, closed after). Arrays it allocated before count as written. */
  session?: RaceSession;
  /** Each launch's step budget (StepBudgetError past it; default DEFAULT_MAX_STEPS). */
  maxSteps?: number;
  /** Distinct errors kept (default 1000); repeats of a kept one are still counted. */
  maxReports?: number;
}

export interface MemcheckResult {
  job: string;
  /** One per (kind, source site), in the order they were first seen. */
  reports: MemcheckReport[];
  /** Distinct errors (reports); each report's `count` says how many accesses made it. */
  errors: number;
  /** The job's outputs after the run (faulting accesses skipped). */
  outputs: Outputs;
  ms: number;
}

/**
 * Memcheck: runs the job once with every access checked (see the file comment). Memory counts
 * as written after an upload, a fill, a host view, a launch on the device's pool (every array it
 * is passed) or a write by a kernel under memcheck: a job's `ctx.buffer(name, dtype, data)` and
 * `ctx.buffer(name, dtype, length)` (zeros) are written; a `device.alloc` nobody wrote is not,
 * and neither is a block's shared memory until one of its threads writes it.
 */
export async function memcheck<I>(job: RaceJob<I>, inputs: I = job.inputs(), o: MemcheckOptions = {}): Promise<MemcheckResult> {
  const t0 = performance.now();
  const session = o.session ?? await RaceSession.open();
  const device = session.device;
  const before = device.memoryObserver;
  const init = new InitShadow();
  const checker = new MemoryChecker(init, o.maxReports);
  device.memoryObserver = init;
  try {
    const r = await session.runJob(job, inputs, new IntervalChooser(), false, { maxSteps: o.maxSteps, memcheck: checker });
    return { job: job.name, reports: checker.reports, errors: checker.reports.length, outputs: r.outputs, ms: performance.now() - t0 };
  } finally {
    device.memoryObserver = before;
    if (!o.session) await session.close();
  }
}
