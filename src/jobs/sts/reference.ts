/**
 * Reference sorts for CBM STS digis (seed 004). The target order is by the 64-bit key
 * `channel << 32 | time` (the xpu block-sort key in the seed), i.e. by channel, then time;
 * ties keep input order (stable).
 */
import { StsInputError, type StsDigis } from './generate.js';

export { StsInputError, type StsDigis } from './generate.js';

/** The seed's sort key `(u64) channel << 32 | (u64) time`. */
export function digiKey(channel: number, time: number): bigint {
  return (BigInt(channel >>> 0) << 32n) | BigInt(time >>> 0);
}

/** Compares two digis by (channel, time): negative, zero or positive. */
export function compareDigis(c1: number, t1: number, c2: number, t2: number): number {
  return c1 !== c2 ? (c1 < c2 ? -1 : 1) : t1 !== t2 ? (t1 < t2 ? -1 : 1) : 0;
}

function checkDigis(d: StsDigis, nChannels?: number): number {
  if (!(d.channel instanceof Uint32Array) || !(d.time instanceof Uint32Array)) {
    throw new StsInputError('digis must be { channel: Uint32Array, time: Uint32Array }');
  }
  if (d.channel.length !== d.time.length) {
    throw new StsInputError(`channel (${d.channel.length}) and time (${d.time.length}) arrays differ in length`);
  }
  if (nChannels !== undefined) {
    if (!Number.isSafeInteger(nChannels) || nChannels < 1 || nChannels > 2 ** 32) {
      throw new StsInputError(`nChannels must be an integer in [1, 2^32], got ${nChannels}`);
    }
    for (let i = 0; i < d.channel.length; i++) {
      if (d.channel[i]! >= nChannels) throw new StsInputError(`digi ${i}: channel ${d.channel[i]} >= nChannels ${nChannels}`);
    }
  }
  return d.channel.length;
}

export interface SortedDigis extends StsDigis {
  /** sorted[k] = input[order[k]]. */
  order: Uint32Array;
}

function permute(d: StsDigis, order: Uint32Array): SortedDigis {
  const n = order.length;
  const channel = new Uint32Array(n);
  const time = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    channel[k] = d.channel[order[k]!]!;
    time[k] = d.time[order[k]!]!;
  }
  return { channel, time, order };
}

/** Stable sort by (channel, time). With nChannels given, channels are checked against it. */
export function sortDigisReference(d: StsDigis, nChannels?: number): SortedDigis {
  const n = checkDigis(d, nChannels);
  const idx = Array.from({ length: n }, (_, i) => i);
  idx.sort((a, b) => compareDigis(d.channel[a]!, d.time[a]!, d.channel[b]!, d.time[b]!) || a - b);
  return permute(d, Uint32Array.from(idx));
}

/** Step 1 of the counting sort: digis per channel (`digisPerChannel`). */
export function channelCounts(d: StsDigis, nChannels: number): Uint32Array {
  const n = checkDigis(d, nChannels);
  const counts = new Uint32Array(nChannels);
  for (let i = 0; i < n; i++) counts[d.channel[i]!]!++;
  return counts;
}

/**
 * Step 2: exclusive prefix sum (`prefixSum`), the start of each channel's segment; same length
 * as counts (the seed's example: counts 3 5 0 2 -> offsets 0 3 8 8). The total is sum(counts).
 */
export function exclusiveOffsets(counts: Uint32Array): Uint32Array {
  const out = new Uint32Array(counts.length);
  let acc = 0;
  for (let c = 0; c < counts.length; c++) {
    out[c] = acc;
    acc += counts[c]!;
  }
  if (acc > 0xffffffff) throw new StsInputError(`total count ${acc} does not fit in 32 bits`);
  return out;
}

/**
 * Step 3, the seed's sequential "Solution?": output[prefixSum[channel]++] = digi, in input order.
 * Stable by channel only; equals the full (channel, time) sort when every channel's digis arrive
 * in time order (the STS premise). The parallel atomicAdd scatter of the seed is not stable —
 * two threads inserting into one channel race — and must not be compared against this directly.
 */
export function countingSortByChannel(d: StsDigis, nChannels: number): SortedDigis {
  const counts = channelCounts(d, nChannels);
  const next = exclusiveOffsets(counts);
  const n = d.channel.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[next[d.channel[i]!]!++] = i;
  return permute(d, order);
}

/** True when every channel's digis appear in non-decreasing time order. */
export function isTimeOrderedPerChannel(d: StsDigis): boolean {
  const last = new Map<number, number>();
  for (let i = 0; i < d.channel.length; i++) {
    const c = d.channel[i]!;
    const prev = last.get(c);
    if (prev !== undefined && d.time[i]! < prev) return false;
    last.set(c, d.time[i]!);
  }
  return true;
}

/** True when the digis are in non-decreasing (channel, time) order. */
export function isSortedByChannelTime(d: StsDigis): boolean {
  for (let i = 1; i < d.channel.length; i++) {
    if (compareDigis(d.channel[i - 1]!, d.time[i - 1]!, d.channel[i]!, d.time[i]!) > 0) return false;
  }
  return true;
}

/**
 * Runs for natural merge sort: maximal stretches that are non-decreasing in (channel, time).
 * Returns boundaries b (length runs + 1): run r is [b[r], b[r + 1]); b[0] = 0, last = n.
 * An empty input has no runs: [0].
 */
export function detectRuns(d: StsDigis): Uint32Array {
  const n = checkDigis(d);
  const b: number[] = [0];
  for (let i = 1; i < n; i++) {
    if (compareDigis(d.channel[i - 1]!, d.time[i - 1]!, d.channel[i]!, d.time[i]!) > 0) b.push(i);
  }
  if (n > 0) b.push(n);
  return Uint32Array.from(b);
}

/**
 * Natural merge sort as the seed describes it: put the runs in a queue, pop two, merge (stable:
 * on equal keys the earlier run wins), push the result, until one run is left. Runs are merged
 * as index lists so the permutation is returned too. Always equal to sortDigisReference.
 */
export function naturalMergeSortReference(d: StsDigis): SortedDigis {
  const n = checkDigis(d);
  const bounds = detectRuns(d);
  let queue: number[][] = [];
  for (let r = 0; r + 1 < bounds.length; r++) {
    const run: number[] = [];
    for (let i = bounds[r]!; i < bounds[r + 1]!; i++) run.push(i);
    queue.push(run);
  }
  // Merge adjacent pairs level by level (a FIFO of runs popped two at a time). Keeping the runs
  // in input order makes "earlier run wins ties" the same as stability.
  while (queue.length > 1) {
    const nextLevel: number[][] = [];
    for (let q = 0; q + 1 < queue.length; q += 2) {
      const a = queue[q]!;
      const b = queue[q + 1]!;
      const m: number[] = [];
      let i = 0;
      let j = 0;
      while (i < a.length && j < b.length) {
        const x = a[i]!;
        const y = b[j]!;
        if (compareDigis(d.channel[y]!, d.time[y]!, d.channel[x]!, d.time[x]!) < 0) {
          m.push(y);
          j++;
        } else {
          m.push(x);
          i++;
        }
      }
      while (i < a.length) m.push(a[i++]!);
      while (j < b.length) m.push(b[j++]!);
      nextLevel.push(m);
    }
    if (queue.length % 2 === 1) nextLevel.push(queue[queue.length - 1]!);
    queue = nextLevel;
  }
  const order = Uint32Array.from(queue.length === 1 ? queue[0]! : []);
  if (order.length !== n) throw new Error('internal: natural merge lost elements');
  return permute(d, order);
}
