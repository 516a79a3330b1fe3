// Thread-kernel versions of the seed kernels whose schedules matter (seeds 000, 001, 004):
// written per thread as the CUDA source is, each with its racy form (as in the seed) and a
// corrected form. Used by the race tools' corpus (src/race/corpus.ts).
import {
  threadIdx, blockIdx, blockDim, gridDim, sharedMem, threadLinear,
  ld, st, ldi, sti, atomicAdd, atomicInc, syncthreads, syncwarp,
} from "./runtime";

const invalidModuleId: u16 = 65534;

// ---- seed 000: CMS countModules --------------------------------------------------------------

/** As the seed: moduleStart[1..] filled in atomicInc order, which the schedule decides (benign). */
export function tk_countModules(id: usize, moduleStart: usize, clusterId: usize, numElements: i32, nMaxModules: u32): void {
  const first = blockDim.x * blockIdx.x + threadIdx.x;
  for (let i = first; i < numElements; i += gridDim.x * blockDim.x) {
    sti<i32>(clusterId, i, i);
    const m = ldi<u16>(id, i);
    if (m == invalidModuleId) continue;
    let j = i - 1;
    while (j >= 0 && ldi<u16>(id, j) == invalidModuleId) --j;
    if (j < 0 || ldi<u16>(id, j) != m) {
      const loc = atomicInc(moduleStart, nMaxModules);
      sti<u32>(moduleStart, <i32>loc + 1, <u32>i);
    }
  }
}

/** Racy: the counter bumped by a plain read-modify-write (a lost update loses a module start). */
export function tk_countModulesPlain(id: usize, moduleStart: usize, clusterId: usize, numElements: i32, nMaxModules: u32): void {
  const first = blockDim.x * blockIdx.x + threadIdx.x;
  for (let i = first; i < numElements; i += gridDim.x * blockDim.x) {
    sti<i32>(clusterId, i, i);
    const m = ldi<u16>(id, i);
    if (m == invalidModuleId) continue;
    let j = i - 1;
    while (j >= 0 && ldi<u16>(id, j) == invalidModuleId) --j;
    if (j < 0 || ldi<u16>(id, j) != m) {
      const loc = ld<u32>(moduleStart);
      st<u32>(moduleStart, loc >= nMaxModules ? 0 : loc + 1);
      sti<u32>(moduleStart, <i32>loc + 1, <u32>i);
    }
  }
}

/** Race-free: counts the module starts only (an atomic sum is order-free). */
export function tk_countModulesCount(id: usize, count: usize, clusterId: usize, numElements: i32): void {
  const first = blockDim.x * blockIdx.x + threadIdx.x;
  for (let i = first; i < numElements; i += gridDim.x * blockDim.x) {
    sti<i32>(clusterId, i, i);
    const m = ldi<u16>(id, i);
    if (m == invalidModuleId) continue;
    let j = i - 1;
    while (j >= 0 && ldi<u16>(id, j) == invalidModuleId) --j;
    if (j < 0 || ldi<u16>(id, j) != m) atomicAdd<u32>(count, 1);
  }
}

// ---- seed 001: PET intraWarpScan / intraBlockScan / FillDataKernel ---------------------------

/**
 * The seed's intraWarpScan: exclusive scan of `val` over the warp through `volatile` shared
 * memory, relying on the lanes running in lock-step. With `sync`, __syncwarp() separates
 * every read from the next write (the fix for independent thread scheduling).
 */
function intraWarpScan(scanTile: usize, val: u32, blockSize: i32, sync: bool): u32 {
  const t = threadLinear();
  const w = min(blockSize, 32);
  if (sync) syncwarp();
  let index = 2 * t - (t & (w - 1));
  sti<u32>(scanTile, index, 0);
  index += w;
  sti<u32>(scanTile, index, val);
  if (sync) syncwarp();
  for (let k = 1; k <= 16; k <<= 1) {
    if (blockSize >= 2 * k) {
      if (sync) {
        const other = ldi<u32>(scanTile, index - k);
        syncwarp();
        sti<u32>(scanTile, index, ldi<u32>(scanTile, index) + other);
        syncwarp();
      } else {
        sti<u32>(scanTile, index, ldi<u32>(scanTile, index) + ldi<u32>(scanTile, index - k));
      }
    }
  }
  const r = ldi<u32>(scanTile, index) - val;
  if (sync) syncwarp();
  return r;
}

/** The seed's intraBlockScan: inclusive scan of `val` over the block (scanTile: 2·blockSize u32). */
function intraBlockScan(scanTile: usize, val: u32, blockSize: i32, sync: bool): u32 {
  const t = threadLinear();
  const warpIdx = t >> 5;
  const laneIdx = t & 31;
  const warpResult = intraWarpScan(scanTile, val, blockSize, sync);
  syncthreads();
  if (laneIdx == 31) sti<u32>(scanTile, warpIdx, warpResult + val);
  syncthreads();
  if (t < 32) {
    const v = ldi<u32>(scanTile, t);
    const r = intraWarpScan(scanTile, v, blockSize / 32, sync);
    sti<u32>(scanTile, t, r);
  }
  syncthreads();
  return warpResult + ldi<u32>(scanTile, warpIdx) + val;
}

/** out[t] = exclusive warp scan of input (one warp). sync = 0: the seed's form. */
export function tk_petWarpScan(input: usize, out: usize, sync: i32): void {
  const t = threadLinear();
  const v = ldi<u32>(input, globalIndex());
  const r = intraWarpScan(sharedMem(), v, blockDim.x, sync != 0);
  sti<u32>(out, globalIndex(), r);
}

// @ts-ignore: decorator
@inline function globalIndex(): i32 { return blockIdx.x * blockDim.x + threadIdx.x; }

const THREAD_ELEM: u32 = 4;

/**
 * The seed's FillDataKernel (count + block scan of the valid `nextIndex` entries). fixed = 0:
 * as the seed — a thread past the data returns before the block's __syncthreads (barrier
 * divergence) and the scans rely on warp lock-step. fixed = 1: every thread reaches every
 * barrier and the scans use __syncwarp.
 */
export function tk_petFillData(nextIndex: usize, arrayLength: u32, newLength: usize, scanId: usize, globalLen: usize, fixed: i32): void {
  let offset1: u32 = 0, dataBlockLength1: u32 = 0;
  let local1: u32 = 0;
  const id = <u32>(threadIdx.x + blockDim.x * blockIdx.x);
  const inRange = id * THREAD_ELEM < arrayLength;
  if (inRange) {
    offset1 = id * THREAD_ELEM;
    dataBlockLength1 = offset1 + THREAD_ELEM <= arrayLength ? THREAD_ELEM : arrayLength - offset1;
  } else if (fixed == 0) {
    return;
  }
  for (let tx: u32 = 0; tx < dataBlockLength1; ++tx) {
    if (ldi<i32>(nextIndex, <i32>(tx + offset1)) != -1) local1++;
  }
  syncthreads();
  const scan1 = intraBlockScan(sharedMem(), local1, blockDim.x, fixed != 0);
  syncthreads();
  if (inRange && (threadIdx.x == blockDim.x - 1 || offset1 + dataBlockLength1 == arrayLength)) {
    atomicAdd<u32>(newLength, scan1);
    sti<u32>(globalLen, blockIdx.x, scan1);
  }
  syncthreads();
  if (inRange) sti<u32>(scanId, <i32>id, scan1 - local1);
}

// ---- seed 004: CBM STS counting sort scatter ------------------------------------------------

/** As the seed: output[atomicAdd(&prefix[channel], 1)] = time — the order inside a channel is the atomics' order. */
export function tk_stsScatter(channel: usize, time: usize, prefix: usize, out: usize, n: i32): void {
  const i = globalIndex();
  if (i >= n) return;
  const ch = ldi<i32>(channel, i);
  const pos = atomicAdd<i32>(prefix + (<usize>ch << 2), 1);
  sti<u32>(out, pos, ldi<u32>(time, i));
}

/** Racy: the insertion position bumped by a plain read-modify-write. */
export function tk_stsScatterPlain(channel: usize, time: usize, prefix: usize, out: usize, n: i32): void {
  const i = globalIndex();
  if (i >= n) return;
  const ch = ldi<i32>(channel, i);
  const p = prefix + (<usize>ch << 2);
  const pos = ld<i32>(p);
  st<i32>(p, pos + 1);
  sti<u32>(out, pos, ldi<u32>(time, i));
}

/** Step 1 of the sort: digis per channel, by atomicAdd (order-free). */
export function tk_stsCount(channel: usize, counts: usize, n: i32): void {
  const i = globalIndex();
  if (i < n) atomicAdd<i32>(counts + (<usize>ldi<i32>(channel, i) << 2), 1);
}

/** The seed's alternative: thread c owns channel c and scans every digi in order (stable, race-free). */
export function tk_stsOwnerScatter(channel: usize, time: usize, prefix: usize, out: usize, n: i32, channels: i32): void {
  const c = globalIndex();
  if (c >= channels) return;
  for (let i = 0; i < n; i++) {
    if (ldi<i32>(channel, i) == c) {
      const p = prefix + (<usize>c << 2);
      const pos = ld<i32>(p);
      st<i32>(p, pos + 1);
      sti<u32>(out, pos, ldi<u32>(time, i));
    }
  }
}
