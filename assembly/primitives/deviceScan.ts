// Device-wide exclusive scan of u32 (for counting sorts, compaction offsets, the coincidence
// fill): the classic three steps, each a kernel launch —
//   1. scanBlocksU32: block b scans its tile of blockDim·items elements (thread t owns `items`
//      consecutive elements: a sequential sum, then the block scan over the threads' sums) and
//      writes the exclusive prefixes to `output` and the tile's total to blockSums[b];
//   2. the host scans blockSums recursively with the same kernel (one level per 2048× size);
//   3. scanAddOffsetsU32: adds the scanned block sum to every element of tile b.
// Wrapping u32 arithmetic. `output` may be `input` (each thread reads an element before it
// writes it). Host side: src/ops/scan.ts (deviceExclusiveScan).

import { blockIdx, blockDim, beginPhase, threadAt, scheduleIsFree, sharedMem, registers } from "../runtime";
import { blockScanExclusive } from "./blockScan";

// @ts-ignore: decorator
@inline function at(p: usize, i: i32): usize { return p + (<usize>i << 2); }

const REG_SUM: i32 = 0;
const REG_PREFIX: i32 = 1;

/** Step 1. Shared: blockScanTileBytes(blockDim.x). */
export function scanBlocksU32(input: usize, output: usize, blockSums: usize, n: i32, items: i32): void {
  const nt = blockDim.x;
  const tileStart = blockIdx.x * nt * items;
  if (scheduleIsFree()) {
    const end = min(n, tileStart + nt * items);
    let run: u32 = 0;
    for (let i = tileStart; i < end; i++) {
      const v = load<u32>(at(input, i));
      store<u32>(at(output, i), run);
      run += v;
    }
    store<u32>(at(blockSums, blockIdx.x), run);
    return;
  }
  const sums = registers(REG_SUM);
  const prefix = registers(REG_PREFIX);
  let m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    const first = tileStart + t * items;
    let s: u32 = 0;
    for (let j = 0; j < items; j++) { const i = first + j; if (i < n) s += load<u32>(at(input, i)); }
    store<u32>(at(sums, t), s);
  }
  const total = blockScanExclusive(sums, prefix, sharedMem());
  m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    const first = tileStart + t * items;
    let run = load<u32>(at(prefix, t));
    for (let j = 0; j < items; j++) {
      const i = first + j;
      if (i >= n) break;
      const v = load<u32>(at(input, i));
      store<u32>(at(output, i), run);
      run += v;
    }
    if (t == 0) store<u32>(at(blockSums, blockIdx.x), total);
  }
}

/** Step 3: output[i] += offsets[b] over tile b. */
export function scanAddOffsetsU32(output: usize, offsets: usize, n: i32, items: i32): void {
  const nt = blockDim.x;
  const tileStart = blockIdx.x * nt * items;
  const add = load<u32>(at(offsets, blockIdx.x));
  if (add == 0) return;
  if (scheduleIsFree()) {
    const end = min(n, tileStart + nt * items);
    let i = tileStart;
    const a4 = i32x4.splat(add);
    for (; i + 4 <= end; i += 4) v128.store(at(output, i), i32x4.add(v128.load(at(output, i)), a4));
    for (; i < end; i++) store<u32>(at(output, i), load<u32>(at(output, i)) + add);
    return;
  }
  const m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    const first = tileStart + t * items;
    for (let j = 0; j < items; j++) {
      const i = first + j;
      if (i < n) store<u32>(at(output, i), load<u32>(at(output, i)) + add);
    }
  }
}
