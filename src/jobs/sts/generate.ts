/**
 * Synthetic CBM STS digis (seed 004): `(channel u32, time u32)` pairs that arrive as runs of
 * consecutive digis of one channel, each run continuing that channel's time-ordered sequence,
 * with the runs of different channels interleaved:
 *   ch2 t12, ch2 t14, ch2 t22, ch1 t8, ch1 t12, ch4 t2, ch4 t14, ch2 t25, ch2 t41, ch1 t54 ...
 * Per channel the times are strictly increasing (gap >= 1, as a channel's dead time forbids two
 * digis at once) until they would pass 2^32 - 1, where they saturate (equal times then appear).
 */
import { Xoshiro128ss } from '../../data/random.js';

export class StsInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StsInputError';
  }
}

export interface StsDigis {
  channel: Uint32Array;
  time: Uint32Array;
}

export interface StsGenerateOptions {
  n: number;
  nChannels: number;
  seed: number;
  /** Mean run length (default 4); run lengths are uniform in [1, 2 * mean - 1]. */
  meanRunLength?: number;
  /** Time span the per-channel sequences cover on average (default 2^30). */
  timeSpan?: number;
}

function checkInt(name: string, v: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    throw new StsInputError(`${name} must be an integer in [${min}, ${max}], got ${String(v)}`);
  }
  return v;
}

export function generateStsDigis(options: StsGenerateOptions): StsDigis {
  const n = checkInt('n', options.n, 0, 2 ** 31);
  const nChannels = checkInt('nChannels', options.nChannels, 1, 2 ** 32);
  const seed = checkInt('seed', options.seed, 0);
  const meanRun = checkInt('meanRunLength', options.meanRunLength ?? 4, 1, 2 ** 20);
  const span = checkInt('timeSpan', options.timeSpan ?? 2 ** 30, 1, 2 ** 32 - 1);
  const rng = new Xoshiro128ss(seed);
  const channel = new Uint32Array(n);
  const time = new Uint32Array(n);
  // Only channels that are used need a clock; keep them in a Map for huge channel counts.
  const dense = nChannels <= 1 << 22;
  const lastDense = dense ? new Float64Array(nChannels).fill(-1) : null;
  const lastSparse = dense ? null : new Map<number, number>();
  const perChannel = Math.max(1, n / Math.min(nChannels, Math.max(1, n)));
  // Gaps are uniform in [1, 2 * meanGap - 1]; at most 2^31 keeps that bound a uniformInt bound (<= 2^32).
  const meanGap = Math.max(1, Math.min(2 ** 31, Math.floor(span / perChannel)));
  let k = 0;
  while (k < n) {
    const ch = rng.uniformInt(nChannels);
    const len = Math.min(n - k, 1 + rng.uniformInt(2 * meanRun - 1));
    let t = lastDense ? lastDense[ch]! : (lastSparse!.get(ch) ?? -1);
    for (let q = 0; q < len; q++) {
      t = Math.min(t + 1 + rng.uniformInt(2 * meanGap - 1), 0xffffffff);
      channel[k] = ch;
      time[k] = t;
      k++;
    }
    if (lastDense) lastDense[ch] = t;
    else lastSparse!.set(ch, t);
  }
  return { channel, time };
}
