// Host declarations of the hand-written sts kernels (assembly/kernels/sts/, seed 004). Digis are
// u32 pairs (channel, time): a `u32[]` of 2n words; the key sort's keys, channel << 32 | time,
// are little-endian word pairs (time, channel), a u64 array's bytes, as `u32[]` of 2n words.
// Every sts kernel is written once per thread in kernels/sts/ (atomicSort.ts, countingSort.ts,
// mergeSort.ts); the ones declared here are their SIMD or fused specializations (`specializes`,
// checked by test/specializations.test.ts, measured by `simt bench specializations`). The
// others — stsCountChunks, stsLocalOffsets, stsHalveRuns, stsTileStarts — and the device-wide
// scan run as compiled (simt's shipped module).
import { defineKernel } from '../kernel.js';

/** The declaration of a specialization whose outputs equal its generic kernel's byte for byte. */
const same = (name: string) => ({ specializes: { generic: name } });

/**
 * Talk's countKernel: atomicAdd(&counts[channel], 1), grid-stride; bad[0] = min bad index. A
 * declared specialization of the generic kernel of kernels/sts/atomicSort.ts (a run of equal
 * channels among a block's consecutive threads takes one atomicAdd).
 */
export const stsCountChannels = defineKernel('stsCountChannels', {
  digis: 'u32[]', counts: 'u32[]', n: 'i32', nChannels: 'u32', bad: 'u32[]',
}, { specializes: { generic: 'stsCountChannels' } });
/**
 * Talk's parallel scatter: out[atomicAdd(&offsets[channel], 1)] = digi. Order in a channel is
 * schedule dependent: a declared specialization of kernels/sts/atomicSort.ts's, whose `out` is
 * compared as a multiset of digis (2 words each).
 */
export const stsScatterAtomic = defineKernel('stsScatterAtomic', {
  digis: 'u32[]', out: 'u32[]', offsets: 'u32[]', n: 'i32', nChannels: 'u32',
}, { specializes: { generic: 'stsScatterAtomic', orderFree: [{ param: 'out', from: 0, itemElements: 2 }] } });
/** Order-preserving scatter: thread g writes its chunk at chanStart[c] + colOff[g·k+c]++. */
export const stsScatterChunks = defineKernel('stsScatterChunks', {
  digis: 'u32[]', out: 'u32[]', colOff: 'u32[]', chanStart: 'u32[]', n: 'i32', nChannels: 'u32',
}, same('stsScatterChunks'));
/** Local sort: thread g counting-sorts its chunk into tmp (localOff becomes end offsets). */
export const stsLocalSort = defineKernel('stsLocalSort', {
  digis: 'u32[]', tmp: 'u32[]', localOff: 'u32[]', n: 'i32', nChannels: 'u32',
}, same('stsLocalSort'));
/** Local sort: per channel, offsets of each thread's segment and the channel total. */
export const stsColumnOffsets = defineKernel('stsColumnOffsets', {
  counts: 'u32[]', colOff: 'u32[]', totals: 'u32[]', nChannels: 'i32', nRows: 'i32',
}, same('stsColumnOffsets'));
/** Local sort: thread g moves its segments from tmp to chanStart[c] + colOff[g·k+c]. */
export const stsLocalMerge = defineKernel('stsLocalMerge', {
  tmp: 'u32[]', out: 'u32[]', counts: 'u32[]', localEnd: 'u32[]', colOff: 'u32[]', chanStart: 'u32[]',
  n: 'i32', nChannels: 'u32',
}, same('stsLocalMerge'));
/** bad[0] = min index with channel ≥ nChannels (grid-stride). */
export const stsCheckChannels = defineKernel('stsCheckChannels', { digis: 'u32[]', n: 'i32', nChannels: 'u32', bad: 'u32[]' }, same('stsCheckChannels'));

/** Natural merge sort: flags[i] = 1 where a (channel, time) run starts. */
export const stsRunFlags = defineKernel('stsRunFlags', { digis: 'u32[]', flags: 'u32[]', n: 'i32' }, same('stsRunFlags'));
/** starts[pos[i]] = i at run starts, starts[nRuns] = n. */
export const stsRunStarts = defineKernel('stsRunStarts', { digis: 'u32[]', pos: 'u32[]', starts: 'u32[]', n: 'i32', nRuns: 'i32' }, same('stsRunStarts'));
/** One merge round over digis (pairs of runs, merge path, elementsPerThread outputs per thread). */
export const stsMergeDigis = defineKernel('stsMergeDigis', {
  src: 'u32[]', dst: 'u32[]', starts: 'u32[]', nRuns: 'i32', n: 'i32', elementsPerThread: 'i32',
}, same('stsMergeDigis'));
/** One merge round over keys (n keys, 2n words). */
export const stsMergeKeys = defineKernel('stsMergeKeys', {
  src: 'u32[]', dst: 'u32[]', starts: 'u32[]', nRuns: 'i32', n: 'i32', elementsPerThread: 'i32',
}, same('stsMergeKeys'));
/** keys[i] = (u64) channel << 32 | time. */
export const stsDigisToKeys = defineKernel('stsDigisToKeys', { digis: 'u32[]', keys: 'u32[]', n: 'i32' }, same('stsDigisToKeys'));
/** digis from keys (the inverse word swap). */
export const stsKeysToDigis = defineKernel('stsKeysToDigis', { keys: 'u32[]', digis: 'u32[]', n: 'i32' }, same('stsKeysToDigis'));
/** Bitonic sort of tiles of 2·blockDim.x keys in shared memory. Shared: 16·blockDim.x. */
export const stsTileSort = defineKernel('stsTileSort', { keys: 'u32[]', n: 'i32' }, same('stsTileSort'));
