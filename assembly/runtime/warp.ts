// Warp intrinsics for phase-loop kernels. In a phase loop a per-thread value lives in an
// array (a register slot or shared memory); a warp intrinsic is then one operation over the
// 32 lanes of a warp: `vals` points at lane 0's value, lanes are consecutive elements of T.
// Every lane of `mask` must take part, as CUDA requires; a lane outside `mask` keeps its own
// value in `out` (CUDA leaves it undefined). Reading from a lane outside `mask` is undefined in
// CUDA; here it reads that lane's value.
//
// `out` may alias `vals`: every function reads all sources before it writes.

export const WARP_SIZE: i32 = 32;

/** Scratch of 32 values used to make in-place shuffles safe. */
let laneScratch: usize = 0;
export function __setWarpScratch(p: usize): void { laneScratch = p; }

// @ts-ignore: decorator
@inline function inMask(mask: u32, lane: i32): bool { return ((mask >> <u32>lane) & 1) != 0; }

// @ts-ignore: decorator
@inline function copyIn<T>(vals: usize, lanes: i32): void {
  memory.copy(laneScratch, vals, <usize>(lanes * sizeof<T>()));
}

// @ts-ignore: decorator
@inline function laneVal<T>(lane: i32): T { return load<T>(laneScratch + <usize>(lane * sizeof<T>())); }

/**
 * __shfl_sync(mask, var, srcLane, width) with a per-lane source: lane l reads from
 * `srcLanes[l]` (an i32 array) taken modulo `width`, inside its own width-sized segment.
 */
export function shflSync<T>(mask: u32, vals: usize, srcLanes: usize, width: i32, out: usize): void {
  copyIn<T>(vals, WARP_SIZE);
  for (let l = 0; l < WARP_SIZE; l++) {
    if (!inMask(mask, l)) { store<T>(out + <usize>(l * sizeof<T>()), laneVal<T>(l)); continue; }
    const base = l & ~(width - 1);
    const src = base + (load<i32>(srcLanes + <usize>(l << 2)) & (width - 1));
    store<T>(out + <usize>(l * sizeof<T>()), laneVal<T>(src));
  }
}

/** __shfl_sync with one source lane for every lane (the common broadcast form). */
export function shflSyncAll<T>(mask: u32, vals: usize, srcLane: i32, width: i32, out: usize): void {
  copyIn<T>(vals, WARP_SIZE);
  for (let l = 0; l < WARP_SIZE; l++) {
    if (!inMask(mask, l)) { store<T>(out + <usize>(l * sizeof<T>()), laneVal<T>(l)); continue; }
    const base = l & ~(width - 1);
    store<T>(out + <usize>(l * sizeof<T>()), laneVal<T>(base + (srcLane & (width - 1))));
  }
}

/** __shfl_up_sync: lane l reads lane l - delta of its segment; lanes below delta keep theirs. */
export function shflUpSync<T>(mask: u32, vals: usize, delta: u32, width: i32, out: usize): void {
  copyIn<T>(vals, WARP_SIZE);
  for (let l = 0; l < WARP_SIZE; l++) {
    const inSeg = l & (width - 1);
    const src = inMask(mask, l) && <u32>inSeg >= delta ? l - <i32>delta : l;
    store<T>(out + <usize>(l * sizeof<T>()), laneVal<T>(src));
  }
}

/** __shfl_down_sync: lane l reads lane l + delta of its segment; lanes past the end keep theirs. */
export function shflDownSync<T>(mask: u32, vals: usize, delta: u32, width: i32, out: usize): void {
  copyIn<T>(vals, WARP_SIZE);
  for (let l = 0; l < WARP_SIZE; l++) {
    const inSeg = l & (width - 1);
    const src = inMask(mask, l) && <u32>inSeg + delta < <u32>width ? l + <i32>delta : l;
    store<T>(out + <usize>(l * sizeof<T>()), laneVal<T>(src));
  }
}

/**
 * __shfl_xor_sync: lane l reads lane l ^ laneMask. As CUDA specifies for width < 32, a lane
 * may read from an earlier width-group but reading from a later one returns its own value.
 */
export function shflXorSync<T>(mask: u32, vals: usize, laneMask: i32, width: i32, out: usize): void {
  copyIn<T>(vals, WARP_SIZE);
  for (let l = 0; l < WARP_SIZE; l++) {
    let src = l ^ laneMask;
    const segmentEnd = (l & ~(width - 1)) + width;
    if (!inMask(mask, l) || src >= segmentEnd || src < 0 || src >= WARP_SIZE) src = l;
    store<T>(out + <usize>(l * sizeof<T>()), laneVal<T>(src));
  }
}

/** __ballot_sync: bit l set when lane l is in `mask` and its predicate (i32 array) is non-zero. */
export function ballotSync(mask: u32, preds: usize): u32 {
  let bits: u32 = 0;
  for (let l = 0; l < WARP_SIZE; l++) {
    if (inMask(mask, l) && load<i32>(preds + <usize>(l << 2)) != 0) bits |= <u32>1 << <u32>l;
  }
  return bits;
}

/** __any_sync: some lane of `mask` has a non-zero predicate. */
export function anySync(mask: u32, preds: usize): bool { return ballotSync(mask, preds) != 0; }

/** __all_sync: every lane of `mask` has a non-zero predicate. */
export function allSync(mask: u32, preds: usize): bool { return ballotSync(mask, preds) == mask; }

/**
 * __syncwarp(mask). In a phase loop every lane of a warp has finished the phase before the
 * next one starts, so this is an ordering point only; it exists so that warp-synchronous code
 * reads like its CUDA original, and so the race tools can see where a kernel synchronises.
 */
// @ts-ignore: decorator
@inline export function syncwarp(mask: u32 = 0xffffffff): void {}
