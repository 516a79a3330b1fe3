// Warp-level exclusive scan (seed 001's `intraWarpScan`) as a phase-loop primitive.
//
// CUDA original, per thread (lanes of a warp run it together):
//   index = 2*t - (t & (W-1)); tile[index] = 0; index += W; tile[index] = val;
//   tile[index] += tile[index - 1]; ... tile[index] += tile[index - W/2];   // Hillis–Steele
//   return tile[index] - val;                                               // exclusive
// with W = min(blockSize, 32). Each lane's region of `tile` is [2·W·seg, 2·W·seg + 2W): W zeros
// (so reads below the segment see 0) then the W running sums.
//
// In a phase loop a per-thread value lives in an array: `vals` (u32 per linear thread index),
// `out` receives the exclusive prefix of each thread inside its width-lane segment, for the
// threads t < `active` (the block scan's second scan runs on its first warp only).
//
// `intraWarpScan` puts a __syncwarp between the read and the write of each step (each step is
// two phases), which is what the seed's `volatile` lock-step silently relies on; it is correct
// under every schedule. (The seed as written, without it, is kernels/primitives/blockScan.ts's
// intraWarpScanUnsynced, compiled, for the race tools.)
//
// Register slot 15 is used as the step temporary; `tile` needs 4·(2·active + 32) bytes.

import { beginPhase, threadAt, scheduleIsFree, reg } from "../runtime";

export const WARP_SIZE: i32 = 32;
/** Register slot the warp scan uses for its per-thread step temporary. */
export const REG_WARP_TMP: i32 = 15;

// @ts-ignore: decorator
@inline export function warpTileIndex(t: i32, width: i32): i32 { return 2 * t - (t & (width - 1)) + width; }

// @ts-ignore: decorator
@inline function at(p: usize, i: i32): usize { return p + (<usize>i << 2); }

/** Bytes of shared tile a warp scan over `threads` threads needs. */
export function warpScanTileBytes(threads: i32): i32 { return 4 * (2 * threads + WARP_SIZE); }

/**
 * Exclusive scan of vals[t] inside segments of `width` lanes (a power of two ≤ 32), for threads
 * t < active: out[t] = Σ vals[s] for s in t's segment, s < t. Correct under any schedule.
 */
export function intraWarpScan(tile: usize, vals: usize, out: usize, active: i32, width: i32): void {
  if (scheduleIsFree()) {
    // A legal schedule of the same computation: each segment scanned in lane order.
    let run: u32 = 0;
    for (let t = 0; t < active; t++) {
      if ((t & (width - 1)) == 0) run = 0;
      const v = load<u32>(at(vals, t));
      store<u32>(at(out, t), run);
      run += v;
    }
    return;
  }
  let n = beginPhase();
  for (let k = 0; k < n; k++) {
    const t = threadAt(k);
    if (t >= active) continue;
    const idx = warpTileIndex(t, width);
    store<u32>(at(tile, idx - width), 0);
    store<u32>(at(tile, idx), load<u32>(at(vals, t)));
    // The last lane of a group with fewer lanes than its width also zeroes the missing lanes'
    // cells, which the first steps read (kernels/primitives/blockScan.ts does the same).
    const lane = t & (width - 1);
    if (t == min(t - lane + width, active) - 1) {
      for (let z = lane + 1; z < width; z++) store<u32>(at(tile, idx - width - lane + z), 0);
    }
  }
  for (let d = 1; d < width; d <<= 1) {
    n = beginPhase();                       // read half of the step
    for (let k = 0; k < n; k++) {
      const t = threadAt(k);
      if (t >= active) continue;
      store<u32>(reg<u32>(REG_WARP_TMP, t), load<u32>(at(tile, warpTileIndex(t, width) - d)));
    }
    n = beginPhase();                       // __syncwarp(); write half
    for (let k = 0; k < n; k++) {
      const t = threadAt(k);
      if (t >= active) continue;
      const p = at(tile, warpTileIndex(t, width));
      store<u32>(p, load<u32>(p) + load<u32>(reg<u32>(REG_WARP_TMP, t)));
    }
  }
  n = beginPhase();
  for (let k = 0; k < n; k++) {
    const t = threadAt(k);
    if (t >= active) continue;
    store<u32>(at(out, t), load<u32>(at(tile, warpTileIndex(t, width))) - load<u32>(at(vals, t)));
  }
}
