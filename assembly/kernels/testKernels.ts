// Small kernels used by the test suite and the benchmarks to exercise the runtime itself:
// launch mechanics, traps, atomics under contention, warp intrinsics, block predicates.

import {
  blockIdx, blockDim, gridDim, blockThreads, threadIdxX, threadIdxY, threadIdxZ, sharedMem, reg,
  beginPhase, threadAt, atomicAdd, atomicInc, atomicDec, atomicMax, atomicMin, atomicExch, atomicCAS,
  atomicAnd, atomicOr, atomicXor, atomicSub, shflSync, shflSyncAll, shflUpSync, shflDownSync,
  shflXorSync, ballotSync, anySync, allSync, syncthreadsCount, syncthreadsOr, syncthreadsAnd,
} from "../runtime";

/** Does nothing: measures launch latency. */
export function emptyKernel(): void {}

/** out[linear thread id] = (blockIdx.x,y,z, threadIdx.x,y,z) packed as six i32. */
export function writeIndices(out: usize): void {
  const n = beginPhase();
  const blockLin = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  for (let k = 0; k < n; k++) {
    const t = threadAt(k);
    const g = <usize>(blockLin * blockThreads + t) * 24;
    store<i32>(out + g, blockIdx.x);
    store<i32>(out + g, blockIdx.y, 4);
    store<i32>(out + g, blockIdx.z, 8);
    store<i32>(out + g, threadIdxX(t), 12);
    store<i32>(out + g, threadIdxY(t), 16);
    store<i32>(out + g, threadIdxZ(t), 20);
  }
}

/** Traps (unreachable) in block `badBlock`; every other block adds 1 to counter[0]. */
export function trapInBlock(counter: usize, badBlock: i32): void {
  if (blockIdx.x == badBlock) unreachable();
  atomic.add<i32>(counter, 1);
}

/** Integer division: traps on division by zero (wasm semantics match a CUDA fault here). */
export function divide(a: usize, b: usize, out: usize, n: i32): void {
  const i0 = blockIdx.x * blockDim.x;
  const cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const i = i0 + threadAt(k);
    if (i < n) store<i32>(out + (<usize>i << 2), load<i32>(a + (<usize>i << 2)) / load<i32>(b + (<usize>i << 2)));
  }
}

/** Reads the address `addr` (an out-of-bounds address traps). */
export function readAddress(addr: u32, out: usize): void {
  store<i32>(out, load<i32>(<usize>addr));
}

/** Writes `value` at the address `addr`: a wild pointer, for the bounds tests. */
export function writeAddress(addr: u32, value: i32): void {
  store<i32>(<usize>addr, value);
}

/** Spins for `iterations` per block (for timeout/abort tests); -1 spins forever. */
export function spin(iterations: i32, out: usize): void {
  let x: i32 = 0;
  // (A negative count never ends: `i != -1` would end after 2^32 iterations, seconds on a fast core.)
  for (let i = 0; iterations < 0 || i < iterations; i++) { x = x * 1103515245 + 12345; }
  store<i32>(out, x);
}

/**
 * Every thread of the grid applies atomic `op` to target[0] with operand operands[gtid]
 * (and operands2[gtid] for CAS), and records the returned old value in olds[gtid].
 * op: 0 add i32, 1 add u32, 2 add u64, 3 add f32, 4 add f64, 5 sub i32, 6 exch i32,
 * 7 min i32, 8 max i32, 9 min u32, 10 max u32, 11 min u64, 12 max u64, 13 min f32, 14 max f32,
 * 15 inc u32, 16 dec u32, 17 cas u32, 18 cas u64, 19 and, 20 or, 21 xor, 22 exch f32,
 * 23 exch u64, 24 min i64, 25 max i64, 26 sub u32.
 * 64-bit operands/olds are 8 bytes per thread; 32-bit ones 4 bytes.
 */
export function atomicProbe(op: i32, target: usize, operands: usize, operands2: usize, olds: usize, n: i32): void {
  const i0 = blockIdx.x * blockDim.x;
  const cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const i = i0 + threadAt(k);
    if (i >= n) continue;
    const p4 = <usize>i << 2;
    const p8 = <usize>i << 3;
    switch (op) {
      case 0: store<i32>(olds + p4, atomicAdd<i32>(target, load<i32>(operands + p4))); break;
      case 1: store<u32>(olds + p4, atomicAdd<u32>(target, load<u32>(operands + p4))); break;
      case 2: store<u64>(olds + p8, atomicAdd<u64>(target, load<u64>(operands + p8))); break;
      case 3: store<f32>(olds + p4, atomicAdd<f32>(target, load<f32>(operands + p4))); break;
      case 4: store<f64>(olds + p8, atomicAdd<f64>(target, load<f64>(operands + p8))); break;
      case 5: store<i32>(olds + p4, atomicSub<i32>(target, load<i32>(operands + p4))); break;
      case 6: store<i32>(olds + p4, atomicExch<i32>(target, load<i32>(operands + p4))); break;
      case 7: store<i32>(olds + p4, atomicMin<i32>(target, load<i32>(operands + p4))); break;
      case 8: store<i32>(olds + p4, atomicMax<i32>(target, load<i32>(operands + p4))); break;
      case 9: store<u32>(olds + p4, atomicMin<u32>(target, load<u32>(operands + p4))); break;
      case 10: store<u32>(olds + p4, atomicMax<u32>(target, load<u32>(operands + p4))); break;
      case 11: store<u64>(olds + p8, atomicMin<u64>(target, load<u64>(operands + p8))); break;
      case 12: store<u64>(olds + p8, atomicMax<u64>(target, load<u64>(operands + p8))); break;
      case 13: store<f32>(olds + p4, atomicMin<f32>(target, load<f32>(operands + p4))); break;
      case 14: store<f32>(olds + p4, atomicMax<f32>(target, load<f32>(operands + p4))); break;
      case 15: store<u32>(olds + p4, atomicInc(target, load<u32>(operands + p4))); break;
      case 16: store<u32>(olds + p4, atomicDec(target, load<u32>(operands + p4))); break;
      case 17: store<u32>(olds + p4, atomicCAS<u32>(target, load<u32>(operands + p4), load<u32>(operands2 + p4))); break;
      case 18: store<u64>(olds + p8, atomicCAS<u64>(target, load<u64>(operands + p8), load<u64>(operands2 + p8))); break;
      case 19: store<u32>(olds + p4, atomicAnd<u32>(target, load<u32>(operands + p4))); break;
      case 20: store<u32>(olds + p4, atomicOr<u32>(target, load<u32>(operands + p4))); break;
      case 21: store<u32>(olds + p4, atomicXor<u32>(target, load<u32>(operands + p4))); break;
      case 22: store<f32>(olds + p4, atomicExch<f32>(target, load<f32>(operands + p4))); break;
      case 23: store<u64>(olds + p8, atomicExch<u64>(target, load<u64>(operands + p8))); break;
      case 24: store<i64>(olds + p8, atomicMin<i64>(target, load<i64>(operands + p8))); break;
      case 25: store<i64>(olds + p8, atomicMax<i64>(target, load<i64>(operands + p8))); break;
      case 26: store<u32>(olds + p4, atomicSub<u32>(target, load<u32>(operands + p4))); break;
      default: unreachable();
    }
  }
}

/**
 * Warp intrinsics over one block: vals (i32 per thread), aux (i32 per thread: source lanes),
 * out (i32 per thread). op: 0 shfl (per-lane src = aux), 1 shfl broadcast lane `arg`,
 * 2 shfl_up arg, 3 shfl_down arg, 4 shfl_xor arg, 5 ballot (out[warp] = bits),
 * 6 any, 7 all (out[warp] = 0/1). width and mask are per launch.
 */
export function warpProbe(op: i32, arg: i32, width: i32, mask: u32, vals: usize, aux: usize, out: usize): void {
  const warps = (blockThreads + 31) >> 5;
  for (let w = 0; w < warps; w++) {
    const v = vals + (<usize>(w * 32) << 2);
    const o = out + (<usize>(w * 32) << 2);
    switch (op) {
      case 0: shflSync<i32>(mask, v, aux + (<usize>(w * 32) << 2), width, o); break;
      case 1: shflSyncAll<i32>(mask, v, arg, width, o); break;
      case 2: shflUpSync<i32>(mask, v, <u32>arg, width, o); break;
      case 3: shflDownSync<i32>(mask, v, <u32>arg, width, o); break;
      case 4: shflXorSync<i32>(mask, v, arg, width, o); break;
      case 5: store<u32>(out + (<usize>w << 2), ballotSync(mask, v)); break;
      case 6: store<i32>(out + (<usize>w << 2), anySync(mask, v) ? 1 : 0); break;
      case 7: store<i32>(out + (<usize>w << 2), allSync(mask, v) ? 1 : 0); break;
      default: unreachable();
    }
  }
}

/** Block predicates: out[blockIdx.x*3 + 0..2] = count, or, and of preds over the block's threads. */
export function blockPredicateProbe(preds: usize, out: usize): void {
  const p = preds + (<usize>(blockIdx.x * blockThreads) << 2);
  const o = out + (<usize>(blockIdx.x * 3) << 2);
  store<i32>(o, syncthreadsCount(p));
  store<i32>(o, syncthreadsOr(p) ? 1 : 0, 4);
  store<i32>(o, syncthreadsAnd(p) ? 1 : 0, 8);
}

/**
 * Per-thread registers across a barrier and dynamic shared memory: each thread keeps
 * x = in[gtid] in a register slot, writes it to shared, barrier, reads its neighbour's
 * (t+1 mod n) value from shared, writes x + neighbour to out.
 */
export function neighbourSum(input: usize, out: usize, n: i32): void {
  const smem = sharedMem();
  const i0 = blockIdx.x * blockDim.x;
  let cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const t = threadAt(k);
    const i = i0 + t;
    const x = i < n ? load<i32>(input + (<usize>i << 2)) : 0;
    store<i32>(reg<i32>(0, t), x);
    store<i32>(smem + (<usize>t << 2), x);
  }
  cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const t = threadAt(k);
    const i = i0 + t;
    if (i >= n) continue;
    const nb = load<i32>(smem + (<usize>((t + 1) % blockThreads) << 2));
    store<i32>(out + (<usize>i << 2), load<i32>(reg<i32>(0, t)) + nb);
  }
}

/**
 * Order probe: every thread appends its global thread id to log via atomicAdd on log[0]
 * (log[1 + k] = the k-th thread to run). Shows the schedule: in the serial backend a seed
 * fixes it, and different seeds give different legal orders.
 */
export function orderProbe(log: usize, n: i32): void {
  const i0 = blockIdx.x * blockDim.x;
  const cnt = beginPhase();
  for (let k = 0; k < cnt; k++) {
    const i = i0 + threadAt(k);
    if (i >= n) continue;
    const slot = atomic.add<u32>(log, 1);
    store<u32>(log + (<usize>(slot + 1) << 2), <u32>i);
  }
}
