/**
 * Synthetic benchmark inputs. Each generator is specified exactly (below and in `random.ts`) and
 * re-implemented in `bench/native/simt_data.h`, so that a kernel run by simt and its native C
 * reference see bit-identical inputs for the same `(n, seed)` and their results can be compared.
 */
import { Xoshiro128ss } from './random.js';

/** CMS pixel `invalidModuleId`: digis carrying it belong to no module and are skipped. */
export const INVALID_MODULE_ID = 65534;
/** Phase-1 pixel topology `numberOfModules`: the wrap bound of countModules' `atomicInc`. */
export const PHASE1_NUMBER_OF_MODULES = 1856;
/** Largest `nModules` accepted by {@link moduleIdsForBench} (keeps every id below 65534). */
export const MAX_BENCH_MODULES = 16384;

/**
 * `n` f32 values uniform in `[-1000, 1000)`: draw `i` is `uniformF32(-1000, 2000)` of the
 * xoshiro128** stream seeded with `seed` (see `random.ts`). About 2-3 ns per value.
 */
export function randomF32(n: number, seed: number | bigint): Float32Array {
  const out = new Float32Array(n);
  new Xoshiro128ss(seed).fillF32(out, -1000, 2000);
  return out;
}

/**
 * Module ids of `n` digis, sorted by module as the CMS pixel unpacker delivers them, for the
 * countModules kernel. The algorithm, in the order the draws are taken from one xoshiro128**
 * stream seeded with `seed` (all arithmetic exact):
 *
 * 1. For module `k = 0 .. nModules-1`: `id_0 = uniformInt(4)`, `id_k = id_{k-1} + 1 +
 *    uniformInt(3)` (ids increase with gaps of 1..3), then the weight `w_k = 512 +
 *    uniformInt(1024)`. (Per module: first the id draw, then the weight draw.)
 * 2. With `W = sum w_k` and `C_k = w_0 + ... + w_k`, module `k` fills the index range
 *    `[floor(n * C_{k-1} / W), floor(n * C_k / W))` (`C_{-1} = 0`; integer arithmetic), so run
 *    lengths are uniform-ish in `[0.5, 1.5) * n / nModules` and sum to `n` exactly. A module can be
 *    empty when `n < nModules`.
 * 3. Invalid digis: `target = floor(n * invalidFraction)` (f64 product). While fewer than `target`
 *    digis are invalid: `start = uniformInt(n)`, `len = 1 + uniformInt(4)`; for `p` in
 *    `[start, min(start + len, n))`, if `ids[p]` is still valid and the target is not reached,
 *    `ids[p] = 65534`. So invalid digis come in short runs (1..4) scattered over the whole array,
 *    and exactly `target` of them.
 *
 * A module all of whose digis became invalid disappears; `countModulesReference` (src/jobs/pixel/reference.ts) gives the
 * exact expected count.
 */
export function moduleIdsForBench(
  n: number,
  nModules: number,
  invalidFraction: number,
  seed: number | bigint,
): Uint16Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new RangeError(`n must be an integer in [0, 2^32), got ${n}`);
  }
  if (!Number.isInteger(nModules) || nModules < 1 || nModules > MAX_BENCH_MODULES) {
    throw new RangeError(`nModules must be an integer in [1, ${MAX_BENCH_MODULES}], got ${nModules}`);
  }
  if (!(invalidFraction >= 0 && invalidFraction <= 0.5)) {
    throw new RangeError(`invalidFraction must be in [0, 0.5], got ${invalidFraction}`);
  }
  const rng = new Xoshiro128ss(seed);
  const moduleId = new Uint16Array(nModules);
  const cum = new Float64Array(nModules); // exact integers < 2^25
  let id = 0;
  let total = 0;
  for (let k = 0; k < nModules; k++) {
    id = k === 0 ? rng.uniformInt(4) : id + 1 + rng.uniformInt(3);
    moduleId[k] = id;
    total += 512 + rng.uniformInt(1024);
    cum[k] = total;
  }
  const ids = new Uint16Array(n);
  const bn = BigInt(n);
  const bw = BigInt(total);
  let begin = 0;
  for (let k = 0; k < nModules; k++) {
    // n * C_k can exceed 2^53: exact integer division in bigint (nModules steps only).
    const end = k === nModules - 1 ? n : Number((bn * BigInt(cum[k]!)) / bw);
    ids.fill(moduleId[k]!, begin, end);
    begin = end;
  }
  const target = Math.floor(n * invalidFraction);
  let placed = 0;
  while (placed < target) {
    const start = rng.uniformInt(n);
    const stop = Math.min(start + 1 + rng.uniformInt(4), n);
    for (let p = start; p < stop && placed < target; p++) {
      if (ids[p] !== INVALID_MODULE_ID) {
        ids[p] = INVALID_MODULE_ID;
        placed++;
      }
    }
  }
  return ids;
}

/** Largest `nChannels` accepted by {@link stsDigisForBench}. */
export const MAX_BENCH_STS_CHANNELS = 1 << 20;

/**
 * `n` CBM STS digis for the counting-sort benchmark (seed 004), as `2n` uint32 words: word `2i` is
 * digi `i`'s channel, word `2i + 1` its time. Digis arrive in short runs of one channel, and each
 * channel's times increase, so a stable sort by channel sorts by `(channel, time)`. Algorithm, one
 * xoshiro128** stream seeded with `seed`, `last[c] = 0` for every channel:
 *
 *     i = 0
 *     while i < n:
 *       c = uniformInt(nChannels); len = 1 + uniformInt(8)
 *       repeat len times while i < n:
 *         last[c] = (last[c] + 1 + uniformInt(64)) mod 2^32
 *         out[2i] = c; out[2i + 1] = last[c]; i += 1
 */
export function stsDigisForBench(n: number, nChannels: number, seed: number | bigint): Uint32Array {
  if (!Number.isInteger(n) || n < 0 || n > 0x7fffffff) {
    throw new RangeError(`n must be an integer in [0, 2^31), got ${n}`);
  }
  if (!Number.isInteger(nChannels) || nChannels < 1 || nChannels > MAX_BENCH_STS_CHANNELS) {
    throw new RangeError(`nChannels must be an integer in [1, ${MAX_BENCH_STS_CHANNELS}], got ${nChannels}`);
  }
  const rng = new Xoshiro128ss(seed);
  const last = new Uint32Array(nChannels);
  const out = new Uint32Array(2 * n);
  let i = 0;
  while (i < n) {
    const c = rng.uniformInt(nChannels);
    const len = 1 + rng.uniformInt(8);
    for (let k = 0; k < len && i < n; k++, i++) {
      const t = (last[c]! + 1 + rng.uniformInt(64)) >>> 0;
      last[c] = t;
      out[2 * i] = c;
      out[2 * i + 1] = t;
    }
  }
  return out;
}

/** Stable sort of {@link stsDigisForBench} output by channel (serial counting sort reference). */
export function stsSortByChannelReference(digis: Uint32Array, nChannels: number): Uint32Array {
  const n = digis.length >>> 1;
  const offset = new Uint32Array(nChannels + 1);
  for (let i = 0; i < n; i++) offset[digis[2 * i]! + 1]!++;
  for (let c = 0; c < nChannels; c++) offset[c + 1]! += offset[c]!;
  const out = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const p = offset[digis[2 * i]!]!++;
    out[2 * p] = digis[2 * i]!;
    out[2 * p + 1] = digis[2 * i + 1]!;
  }
  return out;
}

/** The countModules reference, re-exported so `data` carries the generator and its oracle together. */
export { countModulesReference } from '../jobs/pixel/reference.js';
