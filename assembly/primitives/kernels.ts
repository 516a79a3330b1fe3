// Kernels over the primitives: the device-wide scan, and one probe kernel per primitive for
// the tests and the race tools.

import { blockIdx, blockDim, beginPhase, threadAt, sharedMem, registers, reg, blockThreads } from "../runtime";
import { intraWarpScan, intraWarpScanUnsyncedSteps, WARP_SIZE } from "./warpScan";
import { blockScanInclusive, blockScanExclusive } from "./blockScan";
import { compactionOffsets } from "./compaction";

// @ts-ignore: decorator
@inline function at(p: usize, i: i32): usize { return p + (<usize>i << 2); }

function loadBlock(input: usize, n: i32, slot: i32): void {
  const base = blockIdx.x * blockDim.x;
  const m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    const i = base + t;
    store<u32>(reg<u32>(slot, t), i < n ? load<u32>(at(input, i)) : 0);
  }
}

function storeBlock(output: usize, n: i32, slot: i32): void {
  const base = blockIdx.x * blockDim.x;
  const m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    const i = base + t;
    if (i < n) store<u32>(at(output, i), load<u32>(reg<u32>(slot, t)));
  }
}

/** Each block scans its blockDim.x elements (inclusive != 0: inclusive). Shared: blockScanTileBytes. */
export function blockScanProbe(input: usize, output: usize, n: i32, inclusive: i32): void {
  loadBlock(input, n, 0);
  if (inclusive != 0) blockScanInclusive(registers(0), registers(1), sharedMem());
  else blockScanExclusive(registers(0), registers(1), sharedMem());
  storeBlock(output, n, 1);
}

/** Each warp's exclusive scan (seed's intraWarpScan with __syncwarp). Shared: 4·(2·blockDim+32). */
export function warpScanProbe(input: usize, output: usize, n: i32): void {
  loadBlock(input, n, 0);
  const nt = blockThreads;
  intraWarpScan(sharedMem(), registers(0), registers(1), nt, nt < WARP_SIZE ? nt : WARP_SIZE);
  storeBlock(output, n, 1);
}

/**
 * The seed's intraWarpScan as written, relying on warp lock-step through volatile shared
 * memory with no __syncwarp: its result depends on the schedule (see docs/pet.md). blockDim.x
 * must be a power of two ≤ 32 or a multiple of 32.
 */
export function intraWarpScanUnsynced(input: usize, output: usize, n: i32): void {
  loadBlock(input, n, 0);
  const nt = blockThreads;
  intraWarpScanUnsyncedSteps(sharedMem(), registers(0), registers(1), nt, nt < WARP_SIZE ? nt : WARP_SIZE);
  storeBlock(output, n, 1);
}

/**
 * Stream compaction of the non-zero elements of input[0..n) into output, `items` consecutive
 * elements per thread; counter[0] ends as the number kept. Shared: compactionTileBytes.
 */
export function compactNonZeroU32(input: usize, n: i32, output: usize, counter: usize, items: i32): void {
  const nt = blockDim.x;
  const tileStart = blockIdx.x * nt * items;
  const counts = registers(0);
  const starts = registers(1);
  let m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    let c: u32 = 0;
    for (let j = 0; j < items; j++) {
      const i = tileStart + t * items + j;
      if (i < n && load<u32>(at(input, i)) != 0) c++;
    }
    store<u32>(at(counts, t), c);
  }
  compactionOffsets(counts, starts, sharedMem(), counter);
  m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    let o = load<u32>(at(starts, t));
    for (let j = 0; j < items; j++) {
      const i = tileStart + t * items + j;
      if (i >= n) break;
      const v = load<u32>(at(input, i));
      if (v != 0) { store<u32>(at(output, <i32>o), v); o++; }
    }
  }
}
