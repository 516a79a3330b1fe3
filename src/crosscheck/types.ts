// Cross-checking: one job run on several backends, its outputs compared by what is meant to be
// equal (exact values, a sorted set, a multiset, floats within ULPs, sums within a bound).
import type { BackendName, GpuDevice } from '../deviceApi.js';

/** What a job's run returns per output: a typed array (or plain array) or one number. */
export type OutputValue = ArrayLike<number> | ArrayLike<bigint> | number | bigint;

/** How one output of two backends is compared. */
export type Comparison =
  /** Element by element, `===` (so +0 equals -0), NaN equal to NaN; lengths must agree. */
  | { kind: 'exact' }
  /** An order-free set (e.g. moduleStart's slots): both sorted, then exact; a repeated value is a difference. */
  | { kind: 'sortedSet' }
  /** An order-free multiset (e.g. an atomics-ordered output list): both sorted, then exact. */
  | { kind: 'multiset' }
  /** Floats: at most `ulps` units in the last place apart (f32 units for a Float32Array, else f64). ±0 are 0 apart, NaN matches NaN. */
  | { kind: 'ulp'; ulps: number }
  /** |a − b| ≤ bound(i): sums whose rounding differs by backend; `why` states the bound. */
  | { kind: 'withinBound'; bound: (index: number) => number; why: string };

/**
 * A cross-check job. `generate` must be deterministic in (size, seed); `run` must launch with the
 * same shape on every backend so that per-block outputs are comparable; `compare` names the rule
 * for every output `run` returns.
 */
export interface Job<I = any> {
  name: string;
  description: string;
  /** Size used by `simt crosscheck` without --size. */
  defaultSize: number;
  /** Sizes worth testing beyond random ones (empty, one, around block and word boundaries). */
  edgeSizes: readonly number[];
  generate(size: number, seed: number): I;
  run(device: GpuDevice, inputs: I): Promise<Record<string, OutputValue>>;
  compare(inputs: I): Record<string, Comparison>;
  /** The rule of an output `compare` does not name (user jobs: exact); without it such an output is an error. */
  defaultRule?: Comparison;
}

export interface CrossCheckOptions {
  /** Backends to run, the first is the reference (default ['wasm', 'webgpu']). */
  backends?: readonly BackendName[];
  /** Devices to use instead of creating (and destroying) one per backend. */
  devices?: Partial<Record<BackendName, GpuDevice>>;
  /** Differences listed per output (default 5). */
  examples?: number;
  /** Workers of the wasm device crossCheck creates (default: all cores). */
  workers?: number;
}

export interface Difference {
  /** Element index (for sortedSet/multiset: the position in sorted order). */
  index: number;
  /** The reference backend's value, then the other's (undefined past the end of one). */
  values: [number | bigint | undefined, number | bigint | undefined];
}

export interface OutputReport {
  output: string;
  /** The other backend, compared against the reference. */
  backend: BackendName;
  rule: string;
  equal: boolean;
  /** Elements in the reference's and the other backend's output. */
  lengths: [number, number];
  differences: number;
  first: Difference[];
  /** Largest ULP distance (ulp rule) or |a − b| / bound (withinBound), when applicable. */
  worst?: number;
  note?: string;
}

export interface BackendRun {
  backend: BackendName;
  device: string;
  /** Wall time of job.run on this backend, ms (uploads, launches and reads). */
  elapsedMs: number;
}

export interface CrossCheckReport {
  job: string;
  reference: BackendName;
  backends: BackendName[];
  equal: boolean;
  runs: BackendRun[];
  outputs: OutputReport[];
}
