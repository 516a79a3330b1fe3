// Stream compaction offsets (seed 001's pattern in convertUdpToSinglesKernel): every thread
// has counted how many of its elements it keeps (`counts[t]`); a block scan gives each thread
// its offset inside the block, and ONE atomicAdd per block (by the last thread) reserves the
// block's range of the output:
//
//   scan = intraBlockScan(local);                        // inclusive
//   if (t == blockSize - 1) base = atomicAdd(counter, scan);   // __shared__ base
//   __syncthreads();
//   start[t] = base + scan - local;
//
// Output order: inside a block, thread order; between blocks, the order of the atomicAdds
// (schedule dependent: compare compacted outputs as multisets).
//
// `tile` is shared memory of compactionTileBytes(blockThreads) bytes (the scan tile plus the
// shared `base` cell). Returns the block's total.

import { beginPhase, threadAt, blockThreads, atomicAdd } from "../runtime";
import { blockScanInclusive, blockScanTileBytes } from "./blockScan";

// @ts-ignore: decorator
@inline function at(p: usize, i: i32): usize { return p + (<usize>i << 2); }

export function compactionTileBytes(threads: i32): i32 { return blockScanTileBytes(threads) + 16; }

/** starts[t] = the first output index of thread t's kept elements. */
export function compactionOffsets(counts: usize, starts: usize, tile: usize, counter: usize): u32 {
  const nt = blockThreads;
  const baseCell = tile + <usize>blockScanTileBytes(nt);
  const total = blockScanInclusive(counts, starts, tile);
  let n = beginPhase();
  for (let k = 0; k < n; k++) {
    const t = threadAt(k);
    if (t == nt - 1) store<u32>(baseCell, atomicAdd<u32>(counter, load<u32>(at(starts, t))));
  }
  // __syncthreads()
  const base = load<u32>(baseCell);
  n = beginPhase();
  for (let k = 0; k < n; k++) {
    const t = threadAt(k);
    store<u32>(at(starts, t), base + load<u32>(at(starts, t)) - load<u32>(at(counts, t)));
  }
  return total;
}
