// Shared-memory sizes of simt's block/warp scan and compaction. The kernels are written per
// thread in kernels/primitives/ (blockScan.ts: intraWarpScan, intraBlockScan and their probes;
// compaction.ts: compactNonZeroU32) and launched from the shipped module (src/shippedModule.ts);
// the PET pipeline's hand-written kernels use the phase-loop forms in assembly/primitives/.

/** Bytes of the scan tile a block scan of `threads` threads needs (2·threads + 32 words, at least 96). */
export function blockScanSharedBytes(threads: number): number {
  return Math.max(4 * (2 * threads + 32), 4 * 96);
}
/** Shared bytes of a compaction (scan tile + the block's base cell). */
export function compactionSharedBytes(threads: number): number {
  return blockScanSharedBytes(threads) + 16;
}
