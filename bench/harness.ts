// Shared benchmark plumbing: a suite returns records; `measure` times an async function and
// reports the median and the spread of its samples (the machine is shared and noisy: medians,
// not means). No dependency: the package's `simt bench` runs on what the package installs.

/** One measurement. `impl` says what ran it: 'simt-wasm', 'simt-serial', 'simt-webgpu', 'js', 'native-c', … */
export interface BenchRecord {
  name: string;
  impl: string;
  size: number;
  /** Median wall time of one run, ms. */
  ms: number;
  /** Bytes moved per run / time, where bandwidth applies. */
  gbps?: number;
  /** Elements processed per second. */
  elementsPerSec?: number;
  workers?: number;
  /** Timed runs behind `ms`. */
  samples?: number;
  /** Fastest and slowest of those runs, ms. */
  msMin?: number;
  msMax?: number;
  /** Median absolute deviation of those runs from `ms`, ms (the spread `simt bench` shows). */
  msMad?: number;
  [extra: string]: unknown;
}

export interface BenchContext {
  /** Smaller sizes and fewer iterations (CI smoke runs). */
  quick: boolean;
  /**
   * Workers of simt's devices in this pass, and threads of the native C baselines (the same
   * count, so the two compare like for like). `simt bench --workers 1,2,4` runs one pass per count.
   */
  workers: number;
  /** True when the user chose `workers` (--workers): a suite then measures at that count only. */
  workersChosen: boolean;
  /**
   * Untimed warm-up of each measurement, at least this long (ms; `--warmup-ms`, default
   * DEFAULT_WARMUP_MS, 0 with --quick): see warmUp.
   */
  warmupMs: number;
  /** --kernels: a suite that measures kernel by kernel (specializations) measures only these. */
  kernels?: readonly string[];
  /** A note for the user (a skipped baseline, …) on stderr. */
  log(line: string): void;
}

export interface BenchSuite {
  name: string;
  /** The header `simt bench` prints (what is measured, at the full sizes). */
  description: string;
  /** The header with --quick, naming the quick sizes (default: description). */
  quickDescription?: string;
  run(ctx: BenchContext): Promise<BenchRecord[]>;
}

/** Worker counts a suite measures simt at: 1 and all (or only the count the user chose). */
export function workerCounts(ctx: BenchContext): number[] {
  return ctx.workersChosen || ctx.workers === 1 ? [ctx.workers] : [1, ctx.workers];
}

/**
 * The untimed warm-up of a measurement by default (ms). V8 runs a wasm function in its baseline
 * tier (Liftoff) until it has run a while, then compiles it again with its optimising compiler on
 * background threads, which take cores from the workers while they compile. A fixed count of
 * warm-up runs is far too short for a kernel of a few ms: on the 16-core Xeon a 1M-digi STS sort
 * on 16 workers took 1.6 ms for its first 0.2 s and 0.5–0.8 ms from 0.5 s on (bench/RESULTS.md,
 * `scripts/sts-warmup-curve.mjs`). Native C, compiled ahead of time, has no such phase.
 */
export const DEFAULT_WARMUP_MS = 1000;
let warmupMsDefault = 0;

/** The warm-up `measure` gives a measurement that names none (the runner sets BenchContext.warmupMs). */
export function setWarmupMs(ms: number): void {
  warmupMsDefault = ms;
}

/** Runs `fn` untimed at least `runs` times and for at least `ms` ms (see DEFAULT_WARMUP_MS). */
export async function warmUp(fn: () => Promise<unknown> | unknown, runs: number, ms: number): Promise<void> {
  const until = performance.now() + ms;
  for (let k = 0; k < runs || performance.now() < until; k++) await fn();
}

type MeasureListener = (name: string) => void;
let listener: MeasureListener | undefined;

/** Called with each measurement's name as it starts (`simt bench` shows it as progress). */
export function onMeasure(fn: MeasureListener | undefined): void {
  listener = fn;
}

/** Reports a step of a suite that does not go through `measure` (progress only). */
export function progress(name: string): void {
  listener?.(name);
}

export interface MeasureOptions {
  /** Minimum iterations (default 7). */
  iterations?: number;
  /** Minimum time budget in ms (default 500). */
  time?: number;
  /** Untimed warm-up runs (default 2: the first call of a wasm kernel runs in V8's baseline tier). */
  warmup?: number;
  /** And untimed runs for at least this long (ms; default the run's BenchContext.warmupMs). */
  warmupMs?: number;
}

/**
 * Median and all samples (ms) of `fn`: `warmup` untimed runs (and `warmupMs`), then timed runs until there are
 * at least `iterations` and `time` ms have passed (at most 10,000 runs).
 */
export async function measure(name: string, fn: () => Promise<unknown> | unknown, o: MeasureOptions = {}): Promise<{ median: number; samples: number[] }> {
  listener?.(name);
  await warmUp(fn, o.warmup ?? 2, o.warmupMs ?? warmupMsDefault);
  const samples: number[] = [];
  const minRuns = o.iterations ?? 7;
  const budget = o.time ?? 500;
  const t0 = performance.now();
  while (samples.length < minRuns || (performance.now() - t0 < budget && samples.length < 10_000)) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return { median: median(samples), samples };
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * A record with throughput filled in from bytes and elements per run; `times` (the samples, ms)
 * fills in samples, msMin, msMax and msMad.
 */
export function record(name: string, impl: string, size: number, ms: number, extra: { bytes?: number; workers?: number; samples?: number; times?: readonly number[]; [k: string]: unknown } = {}): BenchRecord {
  const { bytes, times, ...rest } = extra;
  return {
    name, impl, size, ms,
    ...(bytes !== undefined ? { gbps: bytes / ms / 1e6 } : {}),
    elementsPerSec: size / (ms / 1000),
    ...(times && times.length > 0 ? {
      samples: times.length, msMin: Math.min(...times), msMax: Math.max(...times), msMad: median(times.map((t) => Math.abs(t - median(times)))),
    } : {}),
    ...rest,
  };
}
