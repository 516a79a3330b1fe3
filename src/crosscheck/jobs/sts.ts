// Cross-check job for the CBM STS digi sorts (seed 004), every method: 'chunked' and 'local' are
// order preserving and 'merge' and 'key' sort by (channel, time), so their sorted columns must be
// identical on every backend; 'atomic' places a channel's digis in the order threads won the
// atomicAdd, so its channel column is exact and each channel's times are compared as a multiset
// (the run sorts the times inside every channel segment before returning them).
import { generateStsDigis, type StsDigis } from '../../jobs/sts/generate.js';
import { stsSort, type StsSortMethod } from '../../jobs/sts/run.js';
import type { Comparison, Job, OutputValue } from '../types.js';

export interface StsSortInputs { digis: StsDigis; nChannels: number }

/** The methods the job runs: the deterministic ones first. */
export const STS_CROSSCHECK_METHODS: readonly StsSortMethod[] = ['chunked', 'local', 'merge', 'key', 'atomic'];

/** Channel counts the job's generator cycles through by seed: one channel up to 2^17. */
const CHANNELS = [1, 3, 256, 1000, 4099, 1 << 17];

/** Sorts the times inside each run of equal channels (the atomic scatter's per-channel multiset). */
export function sortTimesPerChannel(channel: Uint32Array, time: Uint32Array): Uint32Array {
  const out = time.slice();
  let i = 0;
  while (i < channel.length) {
    let j = i + 1;
    while (j < channel.length && channel[j] === channel[i]) j++;
    if (j - i > 1) out.subarray(i, j).sort();
    i = j;
  }
  return out;
}

export const stsSortJob: Job<StsSortInputs> = {
  name: 'stsSort',
  description: 'CBM STS digi sort: chunked, local, merge and key (channel, time) exact; atomic channels exact, times per channel as a multiset',
  defaultSize: 1 << 20,
  edgeSizes: [0, 1, 2, 3, 63, 64, 65, 255, 256, 257, 1000, 4097],
  generate(n, seed) {
    const nChannels = CHANNELS[seed % CHANNELS.length]!;
    const digis = generateStsDigis({ n, nChannels, seed });
    // The largest channel appears whenever there are two digis or more (the upper edge).
    if (n >= 2) digis.channel[n >> 1] = nChannels - 1;
    return { digis, nChannels };
  },
  async run(device, { digis, nChannels }) {
    const out: Record<string, OutputValue> = {};
    for (const method of STS_CROSSCHECK_METHODS) {
      const r = await stsSort(device, digis, { nChannels, method });
      out[`${method}.channel`] = r.channel!;
      out[`${method}.time`] = method === 'atomic' ? sortTimesPerChannel(r.channel!, r.time!) : r.time!;
    }
    return out;
  },
  compare() {
    const rules: Record<string, Comparison> = {};
    for (const m of STS_CROSSCHECK_METHODS) {
      rules[`${m}.channel`] = { kind: 'exact' };
      // atomic: exact after sorting each channel's times, i.e. per-channel multisets.
      rules[`${m}.time`] = { kind: 'exact' };
    }
    return rules;
  },
};
