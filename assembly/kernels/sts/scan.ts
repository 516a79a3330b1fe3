// Device-wide exclusive scan of u32 (reduce-then-scan, three launches), used by the STS
// counting sorts (seed 004, step 2: "calculate the prefix sums to get the start index of each
// sequence") and by the natural merge sort's run compaction.
//
//   1. scanTileSums   grid = ceil(n / T) blocks, T = blockDim.x * itemsPerThread:
//                     sums[b] = Σ input[tile b]
//   2. scanSingle     one block: sums[0..nTiles) scanned in place (exclusive), total → *total
//   3. scanTileApply  same grid as 1: output[i] = sums[b] + Σ input[tile start .. i)
//
// Each block uses 4·blockDim.x bytes of shared memory: thread t's partial. Inside a block the
// threads own consecutive runs of `itemsPerThread` items (a blocked arrangement, as CUB's
// BLOCK_LOAD_DIRECT), the block scan of the partials is a raking step by thread 0 (one phase).
// Integer addition wraps mod 2³², exactly as in CUDA; the host checks totals against 2³².
// `input` and `output` may be the same array: each thread reads its items before it writes them.

import { blockIdx, blockDim, sharedMem, beginPhase, threadAt } from "../../runtime";

// @ts-ignore: decorator
@inline function threadPartial(input: usize, begin: i32, end: i32): u32 {
  let s: u32 = 0;
  let i = begin;
  for (; i + 4 <= end; i += 4) {
    // four lanes of one thread's run: the sum does not depend on how it is grouped
    const v = v128.load(input + (<usize>i << 2));
    s += i32x4.extract_lane(v, 0) + i32x4.extract_lane(v, 1) + i32x4.extract_lane(v, 2) + i32x4.extract_lane(v, 3);
  }
  for (; i < end; i++) s += load<u32>(input + (<usize>i << 2));
  return s;
}

/** Phase 1 of every tile kernel: s[t] = Σ of thread t's items. */
// @ts-ignore: decorator
@inline function partials(input: usize, n: i32, items: i32): void {
  const s = sharedMem();
  const tileStart = blockIdx.x * blockDim.x * items;
  const cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const t = threadAt(k);
    const b = min(n, tileStart + t * items);
    const e = min(n, b + items);
    store<u32>(s + (<usize>t << 2), b < e ? threadPartial(input, b, e) : 0);
  }
}

/** sums[blockIdx.x] = Σ input over the block's tile of blockDim.x·itemsPerThread items. Shared: 4·blockDim.x. */
export function scanTileSums(input: usize, sums: usize, n: i32, itemsPerThread: i32): void {
  partials(input, n, itemsPerThread);
  // __syncthreads(); thread 0 folds the partials.
  const s = sharedMem();
  const cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    if (threadAt(k) != 0) continue;
    let total: u32 = 0;
    for (let t = 0; t < blockDim.x; t++) total += load<u32>(s + (<usize>t << 2));
    store<u32>(sums + (<usize>blockIdx.x << 2), total);
  }
}

/**
 * One block: data[0..n) ← exclusive scan of data (in place), *total ← Σ data. Thread t scans a
 * blocked slice, thread 0 rakes the slice sums. Shared: 4·blockDim.x.
 */
export function scanSingle(data: usize, n: i32, total: usize): void {
  const items = (n + blockDim.x - 1) / blockDim.x;
  partials(data, n, items);
  const s = sharedMem();
  let cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    if (threadAt(k) != 0) continue;
    let run: u32 = 0;
    for (let t = 0; t < blockDim.x; t++) {
      const p = s + (<usize>t << 2);
      const v = load<u32>(p);
      store<u32>(p, run);
      run += v;
    }
    store<u32>(total, run);
  }
  cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const t = threadAt(k);
    const b = min(n, t * items);
    const e = min(n, b + items);
    let run = load<u32>(s + (<usize>t << 2));
    for (let i = b; i < e; i++) {
      const p = data + (<usize>i << 2);
      const v = load<u32>(p);
      store<u32>(p, run);
      run += v;
    }
  }
}

/** output[i] = sums[b] + Σ input[tile start .. i) for the block's tile. Shared: 4·blockDim.x. */
export function scanTileApply(input: usize, output: usize, sums: usize, n: i32, itemsPerThread: i32): void {
  partials(input, n, itemsPerThread);
  const s = sharedMem();
  let cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    if (threadAt(k) != 0) continue;
    let run = load<u32>(sums + (<usize>blockIdx.x << 2));
    for (let t = 0; t < blockDim.x; t++) {
      const p = s + (<usize>t << 2);
      const v = load<u32>(p);
      store<u32>(p, run);
      run += v;
    }
  }
  const tileStart = blockIdx.x * blockDim.x * itemsPerThread;
  cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const t = threadAt(k);
    const b = min(n, tileStart + t * itemsPerThread);
    const e = min(n, b + itemsPerThread);
    let run = load<u32>(s + (<usize>t << 2));
    for (let i = b; i < e; i++) {
      const v = load<u32>(input + (<usize>i << 2));
      store<u32>(output + (<usize>i << 2), run);
      run += v;
    }
  }
}
