// Block-wide scan (seed 001's `intraBlockScan`) as a phase-loop primitive over a per-thread
// u32 array.
//
// CUDA original (blockSize threads, a multiple of 32):
//   warpResult = intraWarpScan<blockSize>(scanTile, val);          // exclusive inside the warp
//   __syncthreads();
//   if (lane == 31) scanTile[warpIdx] = warpResult + val;           // warp totals
//   __syncthreads();
//   if (t < 32) scanTile[t] = intraWarpScan<blockSize/32>(scanTile, scanTile[t]);
//   __syncthreads();
//   return warpResult + scanTile[warpIdx] + val;                    // inclusive
//
// Here `vals[t]` is thread t's value, `out[t]` its inclusive (blockScanInclusive) or exclusive
// (blockScanExclusive) prefix over the block; both return the block total. Any block size up
// to 1024 works: widths are rounded up to powers of two (lanes past the end only ever add to
// lanes above them). `tile` is shared memory of blockScanTileBytes(blockThreads) bytes;
// register slots 13 and 14 (and 15, through the warp scan) are used.
//
// Fast path (free schedule): one sequential pass over vals — the same
// u32 sums (wrapping addition is associative), in one legal schedule.

import { beginPhase, threadAt, scheduleIsFree, registers, blockThreads } from "../runtime";
import { intraWarpScan, WARP_SIZE, warpScanTileBytes } from "./warpScan";

export const REG_SCAN_WARP: i32 = 13;
export const REG_SCAN_TOP: i32 = 14;

// @ts-ignore: decorator
@inline function at(p: usize, i: i32): usize { return p + (<usize>i << 2); }

function pow2AtLeast(x: i32): i32 { let p = 1; while (p < x) p <<= 1; return p; }

/** Shared bytes a block scan over `threads` threads needs. */
export function blockScanTileBytes(threads: i32): i32 {
  const w = warpScanTileBytes(threads);
  return w > 4 * 96 ? w : 4 * 96;
}

function blockScan(vals: usize, out: usize, tile: usize, inclusive: bool): u32 {
  const nt = blockThreads;
  if (scheduleIsFree()) {
    let run: u32 = 0;
    if (inclusive) {
      for (let t = 0; t < nt; t++) { run += load<u32>(at(vals, t)); store<u32>(at(out, t), run); }
    } else {
      for (let t = 0; t < nt; t++) { const v = load<u32>(at(vals, t)); store<u32>(at(out, t), run); run += v; }
    }
    return run;
  }
  const width = nt < WARP_SIZE ? pow2AtLeast(nt) : WARP_SIZE;
  const warps = (nt + WARP_SIZE - 1) / WARP_SIZE;
  const warpRes = registers(REG_SCAN_WARP);
  const top = registers(REG_SCAN_TOP);
  intraWarpScan(tile, vals, warpRes, nt, width);
  // __syncthreads(); the last lane of each warp publishes the warp's total.
  let n = beginPhase();
  for (let k = 0; k < n; k++) {
    const t = threadAt(k);
    if ((t & (WARP_SIZE - 1)) == WARP_SIZE - 1 || t == nt - 1) {
      store<u32>(at(tile, t / WARP_SIZE), load<u32>(at(warpRes, t)) + load<u32>(at(vals, t)));
    }
  }
  // __syncthreads(); the first warp scans the totals: argument read, scan, store back.
  const lanes = nt < WARP_SIZE ? nt : WARP_SIZE;
  n = beginPhase();
  for (let k = 0; k < n; k++) {
    const t = threadAt(k);
    if (t >= lanes) continue;
    store<u32>(at(top, t), load<u32>(at(tile, t)));
  }
  intraWarpScan(tile, top, top, lanes, pow2AtLeast(warps));
  n = beginPhase();
  for (let k = 0; k < n; k++) {
    const t = threadAt(k);
    if (t >= lanes) continue;
    store<u32>(at(tile, t), load<u32>(at(top, t)));
  }
  // __syncthreads(); every thread combines.
  n = beginPhase();
  for (let k = 0; k < n; k++) {
    const t = threadAt(k);
    const excl = load<u32>(at(warpRes, t)) + load<u32>(at(tile, t / WARP_SIZE));
    store<u32>(at(out, t), inclusive ? excl + load<u32>(at(vals, t)) : excl);
  }
  // The total as the last thread sees it (its inclusive prefix).
  const last = nt - 1;
  return inclusive ? load<u32>(at(out, last)) : load<u32>(at(out, last)) + load<u32>(at(vals, last));
}

/** out[t] = vals[0] + … + vals[t]; returns the block total. */
export function blockScanInclusive(vals: usize, out: usize, tile: usize): u32 {
  return blockScan(vals, out, tile, true);
}

/** out[t] = vals[0] + … + vals[t-1]; returns the block total. */
export function blockScanExclusive(vals: usize, out: usize, tile: usize): u32 {
  return blockScan(vals, out, tile, false);
}
