// The plain JS baselines of the user-kernels suite (bench/userKernels.bench.ts): what a user
// without simt writes for each kernel's result, one thread, the straightforward loop. Each returns
// its result so that the suite can check simt's and native C's against it.
import { Xoshiro128ss } from '../src/data/random.js';

/**
 * The histogram's input: `data[i]` is the top byte of the i-th xoshiro128** draw of `seed`
 * (src/data/random.ts), as `bench/native/userkernels.c` generates it.
 */
export function randomU8(n: number, seed: number | bigint): Uint8Array {
  const rng = new Xoshiro128ss(seed);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.nextU32() >>> 24;
  return out;
}

/** histogram256: the count of each byte value. */
export function histogram256(data: Uint8Array): Uint32Array {
  const bins = new Uint32Array(256);
  for (let i = 0; i < data.length; i++) bins[data[i]!]!++;
  return bins;
}

/** transpose: `out[x * height + y] = input[y * width + x]` (row-major, `height` rows of `width`). */
export function transpose(input: Float32Array, width: number, height: number, out = new Float32Array(width * height)): Float32Array {
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) out[x * height + y] = input[y * width + x]!;
  }
  return out;
}

/** shuffleSum: the sum of the values (accumulated in f64, as JS numbers are). */
export function sum(input: Float32Array): number {
  let s = 0;
  for (let i = 0; i < input.length; i++) s += input[i]!;
  return s;
}

/** vecMax: the largest value. */
export function max(input: Float32Array): number {
  let m = -Infinity;
  for (let i = 0; i < input.length; i++) if (input[i]! > m) m = input[i]!;
  return m;
}

export interface CountModulesResult {
  /** Number of modules (CUDA's `moduleStart[0]`). */
  count: number;
  /** First digi of each module, ascending (CUDA's `moduleStart[1..count]`, sorted). */
  starts: Uint32Array;
  /** `clusterId[i] = i`. */
  clusterId: Int32Array;
}

/**
 * countModules: one pass carrying the id of the last valid digi; a valid digi (id ≠ 65534) whose
 * id differs from it starts a module. Every digi gets `clusterId[i] = i`.
 */
export function countModules(id: Uint16Array, clusterId = new Int32Array(id.length)): CountModulesResult {
  const starts: number[] = [];
  let prev = -1;
  for (let i = 0; i < id.length; i++) {
    clusterId[i] = i;
    const v = id[i]!;
    if (v === 65534) continue;
    if (v !== prev) starts.push(i);
    prev = v;
  }
  return { count: starts.length, starts: Uint32Array.from(starts), clusterId };
}
