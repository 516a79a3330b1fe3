// `simt pixel --generate N`: exactly N digis. The event generator is shaped by modules and
// clusters per module, not by a digi count, so this sizes its parameters, regenerates until the
// event has at least N digis, and keeps the first N (the last module may end mid-cluster, as a
// real event's readout window can cut one).
import { generatePixelEvent } from '../jobs/pixel/generate.js';
import { UsageError } from './args.js';

const MODULES = 1856;
/** About this many digis per active module at the generator's default 6 clusters per module. */
const DIGIS_PER_MODULE = 34;
const MAX_CLUSTERS_PER_MODULE = 500;
/** The largest --generate: every module active with 500 clusters each gives ≈ 3.75 M digis. */
export const MAX_GENERATED_DIGIS = 3_500_000;

export interface GeneratedDigis { moduleInd: Uint16Array; xx: Uint16Array; yy: Uint16Array; adc: Uint16Array; n: number }

export function generateDigis(want: number, seed: number): GeneratedDigis {
  let active = Math.max(1, Math.min(MODULES, Math.ceil(want / DIGIS_PER_MODULE)));
  let clusters = want > MODULES * DIGIS_PER_MODULE ? Math.min(MAX_CLUSTERS_PER_MODULE, (6 * want) / (MODULES * DIGIS_PER_MODULE)) : 6;
  for (let attempt = 0; ; attempt++) {
    const ev = generatePixelEvent({ seed, activeModules: active, clustersPerModule: clusters });
    if (ev.n >= want) {
      return { moduleInd: ev.moduleInd.slice(0, want), xx: ev.xx.slice(0, want), yy: ev.yy.slice(0, want), adc: ev.adc.slice(0, want), n: want };
    }
    const atMost = active === MODULES && clusters === MAX_CLUSTERS_PER_MODULE;
    if (atMost || attempt === 8) {
      throw new UsageError(`--generate ${want}: the generator makes at most ${ev.n} digis with seed ${seed} (every module active, ${clusters} clusters each)`);
    }
    // Short: more modules first, then more clusters per module, by the ratio missed (plus 10 %).
    const scale = (1.1 * want) / Math.max(1, ev.n);
    if (active < MODULES) active = Math.min(MODULES, Math.ceil(active * scale));
    else clusters = Math.min(MAX_CLUSTERS_PER_MODULE, clusters * scale);
  }
}
