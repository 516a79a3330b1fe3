// Hooks the worker calls around a kernel: once per launch, then once per block.
import { blockIdx, blockDim, gridDim } from "./dims";
import * as dims from "./dims";
import { __setSharedBytes } from "./scratch";
import { __setSchedule, __beginBlock } from "./schedule";

export function __launch(gx: i32, gy: i32, gz: i32, bx: i32, by: i32, bz: i32,
                         sharedBytes: i32, seeded: i32, seedLo: u32, seedHi: u32): void {
  gridDim.x = gx; gridDim.y = gy; gridDim.z = gz;
  blockDim.x = bx; blockDim.y = by; blockDim.z = bz;
  dims.blockThreads = bx * by * bz;
  __setSharedBytes(sharedBytes);
  __setSchedule(seeded, seedLo, seedHi);
}

/** Sets blockIdx for the next block, given its linear index (x fastest, as CUDA orders). */
export function __block(linear: f64): void {
  if (gridDim.y == 1 && gridDim.z == 1) {
    // The common 1-D grid: no divisions.
    blockIdx.x = <i32>linear; blockIdx.y = 0; blockIdx.z = 0;
    dims.blockLinear = <i64>linear;
    __beginBlock();
    return;
  }
  const l = <i64>linear;
  const gxy = <i64>gridDim.x * <i64>gridDim.y;
  blockIdx.z = <i32>(l / gxy);
  const r = l - <i64>blockIdx.z * gxy;
  blockIdx.y = <i32>(r / <i64>gridDim.x);
  blockIdx.x = <i32>(r - <i64>blockIdx.y * <i64>gridDim.x);
  dims.blockLinear = l;
  __beginBlock();
}

/** The linear index of the block running (or that trapped) on this worker. */
export function __currentBlock(): f64 { return <f64>dims.blockLinear; }
