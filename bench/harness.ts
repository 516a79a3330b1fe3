// Shared benchmark plumbing: a suite returns records; `measure` times an async function with
// tinybench and reports the median (the machine is shared and noisy: medians, not means).
import { Bench } from 'tinybench';

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
  samples?: number;
  [extra: string]: unknown;
}

export interface BenchContext {
  /** Smaller sizes and fewer iterations (CI smoke runs). */
  quick: boolean;
  log(line: string): void;
}

export interface BenchSuite {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<BenchRecord[]>;
}

export interface MeasureOptions {
  /** Minimum iterations (default 7). */
  iterations?: number;
  /** Minimum time budget in ms (default 500). */
  time?: number;
  /** Untimed warm-up runs (default 2: the first call of a wasm kernel runs in V8's baseline tier). */
  warmup?: number;
}

/** Median and all samples (ms) of `fn`, via tinybench. */
export async function measure(name: string, fn: () => Promise<unknown> | unknown, o: MeasureOptions = {}): Promise<{ median: number; samples: number[] }> {
  for (let k = 0; k < (o.warmup ?? 2); k++) await fn();
  const bench = new Bench({ iterations: o.iterations ?? 7, time: o.time ?? 500, warmup: false, retainSamples: true } as ConstructorParameters<typeof Bench>[0]);
  bench.add(name, async () => { await fn(); });
  await bench.run();
  const task = bench.tasks[0]!;
  const result = task.result as unknown as { latency?: { samples?: number[]; p50?: number }; samples?: number[] } | undefined;
  const samples = [...(result?.latency?.samples ?? result?.samples ?? [])];
  if (samples.length === 0) throw new Error(`benchmark ${name}: no samples (${String((task.result as { error?: unknown } | undefined)?.error ?? 'unknown error')})`);
  return { median: median(samples), samples };
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** A record with throughput filled in from bytes and elements per run. */
export function record(name: string, impl: string, size: number, ms: number, extra: { bytes?: number; workers?: number; samples?: number; [k: string]: unknown } = {}): BenchRecord {
  const { bytes, ...rest } = extra;
  return {
    name, impl, size, ms,
    ...(bytes !== undefined ? { gbps: bytes / ms / 1e6 } : {}),
    elementsPerSec: size / (ms / 1000),
    ...rest,
  };
}
