// Host declarations of the kernels over the block/warp primitives (assembly/primitives/).
import { defineKernel } from '../kernel.js';

/** Threads' u32 cell in the scan tile: the shared bytes a block scan of `threads` threads needs. */
export function blockScanSharedBytes(threads: number): number {
  return Math.max(4 * (2 * threads + 32), 4 * 96);
}
/** Shared bytes of a compaction (scan tile + the block's base cell). */
export function compactionSharedBytes(threads: number): number {
  return blockScanSharedBytes(threads) + 16;
}

/** Probe: each block scans its blockDim.x elements (intraBlockScan). Shared: blockScanSharedBytes(block). */
export const blockScanProbe = defineKernel('blockScanProbe', { input: 'u32[]', output: 'u32[]', n: 'i32', inclusive: 'i32' });
/** Probe: exclusive scan inside each warp (intraWarpScan with __syncwarp). Shared: 4·(2·block+32). */
export const warpScanProbe = defineKernel('warpScanProbe', { input: 'u32[]', output: 'u32[]', n: 'i32' });
/** The seed's intraWarpScan without __syncwarp (lock-step hazard): schedule-dependent output. */
export const intraWarpScanUnsynced = defineKernel('intraWarpScanUnsynced', { input: 'u32[]', output: 'u32[]', n: 'i32' });
/** Stream compaction of non-zero u32 (block scan + one atomicAdd per block). Shared: compactionSharedBytes(block). */
export const compactNonZeroU32 = defineKernel('compactNonZeroU32', {
  input: 'u32[]', n: 'i32', output: 'u32[]', counter: 'u32[]', items: 'i32',
});
