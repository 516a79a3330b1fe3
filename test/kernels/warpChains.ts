// Runs of warp shuffles with constant lane arguments, for test/compiler-warp-chains.test.ts: the
// fast block form runs each run a warp at a time with the warp's values in registers
// (src/compiler/warpChain.ts). Every thread writes its own values, so every lane of every
// shuffle is checked, not only lane 0's.
import { threadIdx, blockIdx, blockDim, __shfl_sync, __shfl_up_sync, __shfl_down_sync, __shfl_xor_sync } from "simt/kernel";

// A down reduction, an inclusive scan with __shfl_up_sync and an xor butterfly (each a written-out loop).
export function reduceScanButterfly(a: i32[], out: i32[]): void {
  const t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const g = blockIdx.x * blockDim.x * blockDim.y * blockDim.z + t;
  let v = a[g];
  for (let o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  let s = a[g];
  for (let o = 1; o < 32; o *= 2) {
    const n = __shfl_up_sync(0xffffffff, s, o);
    if ((t & 31) >= o) s += n;
  }
  let x = a[g];
  for (let m = 1; m < 32; m *= 2) x ^= __shfl_xor_sync(0xffffffff, x, m) * 3;
  out[3 * g] = v;
  out[3 * g + 1] = s;
  out[3 * g + 2] = x;
}

// Shuffles written one by one, with segment widths below 32 and the index form.
export function widths(a: i32[], out: i32[]): void {
  const g = blockIdx.x * blockDim.x * blockDim.y * blockDim.z + (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  let v = a[g];
  v += __shfl_down_sync(0xffffffff, v, 3, 8);
  v += __shfl_up_sync(0xffffffff, v, 5, 16);
  v = v * 7 + __shfl_xor_sync(0xffffffff, v, 6, 16);
  v -= __shfl_xor_sync(0xffffffff, v, 12, 8);
  v += __shfl_sync(0xffffffff, v, 7, 16);
  v ^= __shfl_sync(0xffffffff, v, 29);
  out[g] = v;
}

// A float all-reduce (xor butterfly): every lane ends with the warp's sum in the same order of additions.
export function floatAllReduce(a: f32[], out: f32[]): void {
  const g = blockIdx.x * blockDim.x * blockDim.y * blockDim.z + (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  let v = a[g];
  for (let m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffff, v, m);
  out[g] = v;
}

/**
 * A device function without barriers or warp operations, of two statements (so not an accessor
 * the compiler writes into the kernel: it stays a call): a region calling it stays scalar, the
 * others of its module do not.
 */
function scaled(v: i32, k: i32): i32 { const s = v * k; return s + threadIdx.x; }

// A scalar region (the call) before a run of xor shuffles: every lane ends with its warp's sum.
export function afterDeviceCall(a: i32[], out: i32[]): void {
  const g = blockIdx.x * blockDim.x * blockDim.y * blockDim.z + (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  let v = scaled(a[g], 3);
  for (let m = 1; m < 32; m *= 2) v += __shfl_xor_sync(0xffffffff, v, m);
  out[g] = v;
}

// A lane argument computed in f32 by block-level statements (10 / 4 * 2 = 5; 4 in integer arithmetic).
export function floatDelta(a: i32[], out: i32[]): void {
  const g = blockIdx.x * blockDim.x * blockDim.y * blockDim.z + (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  let v = a[g];
  let o: f32 = 10;
  o /= 4;
  o *= 2;
  v += __shfl_down_sync(0xffffffff, v, <i32>o);
  out[g] = v;
}
