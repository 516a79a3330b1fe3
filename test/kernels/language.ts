// Kernels that exercise the kernel language's control flow, for test/compiler-*.test.ts.
import {
  threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __syncthreads_count, __syncthreads_or, __syncthreads_and,
  __shared__, __extern_shared__, __shfl_sync, __shfl_up_sync, __shfl_down_sync, __shfl_xor_sync, __ballot_sync,
  __any_sync, __all_sync, __activemask, atomicAdd, atomicMax, atomicInc, atomicCAS, atomicExch, atomicMin,
} from "simt/kernel";

/** Reverse each block's slice through shared memory (one barrier). */
export function reverseBlock(a: i32[], out: i32[], n: i32): void {
  const s = __extern_shared__<i32>();
  const t = threadIdx.x;
  const g = blockIdx.x * blockDim.x + t;
  if (g < n) s[t] = a[g];
  __syncthreads();
  const src = blockDim.x - 1 - t;
  const gs = blockIdx.x * blockDim.x + src;
  if (g < n && gs < n) out[g] = s[src];
}

/** Inclusive block scan (Hillis–Steele): a barrier in a uniform loop, a value live across barriers. */
export function blockScan(a: i32[], out: i32[], n: i32): void {
  const s = __shared__<i32>(1024);
  const t = threadIdx.x;
  const g = blockIdx.x * blockDim.x + t;
  let v: i32 = g < n ? a[g] : 0;
  s[t] = v;
  __syncthreads();
  for (let off = 1; off < blockDim.x; off *= 2) {
    let add: i32 = 0;
    if (t >= off) add = s[t - off];
    __syncthreads();
    v += add;
    s[t] = v;
    __syncthreads();
  }
  if (g < n) out[g] = v;
}

/** Early return before a barrier (threads past n leave), and a per-thread loop count after it. */
export function earlyExit(a: i32[], out: i32[], n: i32): void {
  const s = __shared__<i32>(1024);
  const t = threadIdx.x;
  const g = blockIdx.x * blockDim.x + t;
  s[t] = -1;
  if (g >= n) return;
  s[t] = a[g];
  __syncthreads();
  let sum = 0;
  for (let k = 0; k <= t; k++) if (s[k] >= 0) sum += s[k];
  out[g] = sum;
}

/** A barrier under a uniform if (the block index decides), and a return after the last barrier. */
export function uniformIf(a: i32[], out: i32[], n: i32): void {
  const s = __shared__<i32>(1024);
  const t = threadIdx.x;
  const g = blockIdx.x * blockDim.x + t;
  s[t] = g < n ? a[g] : 0;
  __syncthreads();
  if (blockIdx.x % 2 == 0) {
    const x = s[blockDim.x - 1 - t];
    __syncthreads();
    s[t] = x;
    __syncthreads();
  } else {
    s[t] = s[t] * 2;
    __syncthreads();
  }
  if (g >= n) return;
  out[g] = s[t];
}

/** 2-D and 3-D blocks: every thread writes its linear index and coordinates. */
export function dims3(out: i32[]): void {
  const s = __shared__<i32>(1024);
  const lin = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  s[lin] = threadIdx.x * 10000 + threadIdx.y * 100 + threadIdx.z;
  __syncthreads();
  const nt = blockDim.x * blockDim.y * blockDim.z;
  const b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  out[b * nt + lin] = s[nt - 1 - lin];
}

/** Block predicates: count, or, and of (a[g] > 0). */
export function predicates(a: i32[], out: i32[]): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const p = a[g] > 0;
  const c = __syncthreads_count(p);
  const any = __syncthreads_or(p);
  const all = __syncthreads_and(p);
  if (threadIdx.x == 0) { out[blockIdx.x * 3] = c; out[blockIdx.x * 3 + 1] = any; out[blockIdx.x * 3 + 2] = all; }
}

/** Warp shuffles: op 0 shfl(src = lane ^ 3), 1 up(delta), 2 down(delta), 3 xor(delta), with a width. */
export function shuffles(a: i32[], out: i32[], op: i32, delta: i32, width: i32): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const v = a[g];
  let r: i32 = 0;
  if (op == 0) r = __shfl_sync(0xffffffff, v, (threadIdx.x & 31) ^ 3, width);
  if (op == 1) r = __shfl_up_sync(0xffffffff, v, delta, width);
  if (op == 2) r = __shfl_down_sync(0xffffffff, v, delta, width);
  if (op == 3) r = __shfl_xor_sync(0xffffffff, v, delta, width);
  out[g] = r;
}

/** Votes with a mask: ballot, any, all of (a[g] & 1), and the active mask. */
export function votes(a: i32[], out: u32[], mask: u32): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const p = (a[g] & 1) != 0;
  const b = __ballot_sync(mask, p);
  const y = __any_sync(mask, p);
  const l = __all_sync(mask, p);
  out[g * 4] = b;
  out[g * 4 + 1] = y ? 1 : 0;
  out[g * 4 + 2] = l ? 1 : 0;
  out[g * 4 + 3] = __activemask();
}

/** Warp-shuffle reduction in a loop (values live across several warp splits), lane 0 writes. */
export function warpSum(a: f64[], out: f64[], n: i32): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  let v: f64 = g < n ? a[g] : 0;
  for (let o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) out[g >> 5] = v;
}

/** Atomics on global and shared arrays: add, max, inc (wrap), CAS, exch, min. */
export function atomics(a: i32[], sums: i32[], counters: u32[], limit: u32): void {
  const s = __shared__<i32>(4);
  const t = threadIdx.x;
  if (t < 4) s[t] = t == 2 ? 0x7fffffff : 0;
  __syncthreads();
  const v = a[blockIdx.x * blockDim.x + t];
  atomicAdd(s, 0, v);
  atomicMax(s, 1, v);
  atomicMin(s, 2, v);
  atomicInc(counters, 0, limit);
  atomicCAS(s, 3, 0, 1);
  __syncthreads();
  if (t == 0) {
    atomicAdd(sums, 0, s[0]);
    atomicMax(sums, 1, s[1]);
    atomicMin(sums, 2, s[2]);
    atomicAdd(sums, 3, s[3]);
    atomicExch(sums, 4, 7);
  }
}

/** A device function called from a kernel (arrays and scalars as arguments). */
function axpyAt(x: f32[], y: f32[], i: i32, alpha: f32): void {
  y[i] = alpha * x[i] + y[i];
}
export function axpy(alpha: f32, x: f32[], y: f32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) axpyAt(x, y, i, alpha);
}

/** A loop with a barrier and a per-thread condition that is the same for the whole block. */
export function perThreadUniformLoop(out: i32[], rounds: i32): void {
  const s = __shared__<i32>(1024);
  let k = out[0] * 0;   // per thread (read from memory), yet the same everywhere
  s[threadIdx.x] = 0;
  __syncthreads();
  while (k < rounds) {
    s[threadIdx.x] += 1;
    __syncthreads();
    k = k + 1;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

/** A barrier in a loop whose condition differs between threads at run time: a divergent barrier (traps). */
export function divergentLoop(out: i32[], ticket: i32[]): void {
  const r = atomicAdd(ticket, 0, 1);
  let k = 0;
  while (k < r) {
    __syncthreads();
    k++;
  }
  out[threadIdx.x % out.length] = k;
}

/**
 * The float min/max shapes the compiler makes branch-free (src/compiler/minmax.ts): per thread,
 * over its grid-stride elements, `if (x > m) m = x`, `if (x < m) m = x`, the four ternary
 * forms, and a shared-memory tree `if (t < s && c[t + s] > c[t]) c[t] = c[t + s]`. Written
 * exactly as CUDA reads, so NaN and signed zeros must come out as the comparisons say.
 */
export function floatMinMax(a: f32[], out: f32[], n: i32): void {
  const c = __shared__<f32>(256);
  const t = threadIdx.x;
  let hi: f32 = -Infinity;
  let lo: f32 = Infinity;
  let t1: f32 = 0;
  let t2: f32 = 0;
  let t3: f32 = 0;
  let t4: f32 = 0;
  for (let i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
    if (a[i] > hi) hi = a[i];
    if (a[i] < lo) lo = a[i];
    const x = a[i];
    t1 = x > t1 ? x : t1;
    t2 = t2 < x ? t2 : x;
    t3 = (x < t3) ? t3 : x;
    t4 = t4 > x ? x : t4;
  }
  c[t] = hi;
  __syncthreads();
  for (let s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s && c[t + s] > c[t]) c[t] = c[t + s];
    __syncthreads();
  }
  const g = (blockIdx.x * blockDim.x + t) * 7;
  out[g] = hi; out[g + 1] = lo; out[g + 2] = t1; out[g + 3] = t2; out[g + 4] = t3; out[g + 5] = t4;
  out[g + 6] = t == 0 ? c[0] : 0;
}

/** The same shapes on f64. */
export function doubleMinMax(a: f64[], out: f64[], n: i32): void {
  let hi: f64 = -Infinity;
  let lo: f64 = Infinity;
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (hi < a[i]) hi = a[i];
    lo = a[i] < lo ? a[i] : lo;
  }
  const g = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
  out[g] = hi; out[g + 1] = lo;
}

/** Grid-stride loops, the for form and the while form. With n past either array's end they must trap. */
export function gridStrideCopy(a: i32[], out: i32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = a[i] * 2;
  let k = blockIdx.x * blockDim.x + threadIdx.x;
  while (k < n) { out[k] += 1; k += blockDim.x * gridDim.x; }
}

/**
 * Grid-stride loops carrying values from step to step (interchanged into block-level steps when
 * threads have many iterations): a skip by `continue`, the while form, and a loop index read
 * after its loop (kept per thread). One output row of 4 per thread, threadIdx.y included.
 */
export function gridStrideCarry(a: i32[], out: i32[], n: i32): void {
  const o = 4 * ((threadIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x);
  const first = blockIdx.x * blockDim.x + threadIdx.x;
  let stride = blockDim.x * gridDim.x; // a `let` never assigned again: known at the block's start
  let sum: i32 = 0;
  let count: i32 = 0;
  for (let i = first; i < n; i += stride) {
    if (a[i] < 0) continue;
    sum += a[i];
    count++;
  }
  let best: i32 = -1000;
  let k = threadIdx.x + blockIdx.x * blockDim.x;
  while (k < n) { best = max(best, a[k]); k += blockDim.x * gridDim.x; }
  let last = first;
  while (last < n) { last += blockDim.x * gridDim.x; }
  out[o] = sum; out[o + 1] = count; out[o + 2] = best; out[o + 3] = last;
}

/**
 * A strided loop whose step is a parameter, below blockDim.x: the threads' iterations overlap
 * (thread t and thread t + step both read a[t + step]). Interchanged, each thread must still
 * run exactly its own iterations.
 */
export function overlappingStride(a: i32[], out: i32[], n: i32, step: i32): void {
  const t = blockIdx.x * blockDim.x + threadIdx.x;
  let s: i32 = 0;
  for (let i = t; i < n; i += step) {
    if (a[i] < 0) continue;
    s += a[i];
  }
  out[t] = s;
}

/** A grid-stride loop a thread leaves by `return` (its output then says where). */
export function gridStrideExit(a: i32[], out: i32[], n: i32, stop: i32): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  let seen: i32 = 0;
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (a[i] == stop) { out[g] = -1 - seen; return; }
    seen++;
  }
  out[g] = seen;
}

// Device functions holding barriers, warp operations and __shared__ arrays, inlined into the
// kernels that call them (src/compiler/inline.ts): a warp sum, a block sum built on it (one
// __shared__ allocation for both calls, as in CUDA), and a void helper taking an array.
function warpSum(v: i32): i32 {
  for (let off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
  return v;
}

function blockSum(v: i32): i32 {
  const partial = __shared__<i32>(32);
  const w = warpSum(v);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = w;
  __syncthreads();
  let total: i32 = 0;
  for (let k = 0; k < (blockDim.x >> 5); k++) total += partial[k];
  __syncthreads();
  return total;
}

function storeScaled(dst: i32[], i: i32, v: i32): void {
  __syncthreads();
  dst[i] = v * 3;
}

export function deviceBarriers(a: i32[], out: i32[], n: i32): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const v: i32 = g < n ? a[g] : 0;
  const s = blockSum(v);
  let s2: i32 = 0;
  s2 = blockSum(v * 2 + 1);
  storeScaled(out, g, s + s2);
}

/** All lanes get the warp's sum (butterfly). */
function warpAllSum(v: i32): i32 {
  for (let m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffff, v, m);
  return v;
}

/**
 * Warp operations under conditions that differ between warps but not within one (CUDA's block
 * reduce: the first warp sums the partials), with an else branch, and a second such if.
 */
export function warpUniformIf(a: i32[], out: i32[], n: i32): void {
  const partial = __shared__<i32>(32);
  const t = threadIdx.x;
  const lane = t & 31;
  const warp = t >> 5;
  const g = blockIdx.x * blockDim.x + t;
  let v: i32 = g < n ? a[g] : 0;
  v = warpAllSum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < (blockDim.x >> 5) ? partial[lane] : 0;
  if (warp == 0) v = warpAllSum(v);
  else v = -1;
  if (warp == 1) {
    v = __shfl_xor_sync(0xffffffff, g, 1);
  }
  out[g] = v;
}

/** A warp operation under a condition that differs inside a warp: a divergent warp operation. */
export function warpDivergentIf(out: i32[]): void {
  let v: i32 = threadIdx.x;
  if (threadIdx.x < 5) v = __shfl_xor_sync(0xffffffff, v, 1);
  out[threadIdx.x] = v;
}

/** Whole-warp shuffles by an offset the same for every thread (on WGSL, their own subgroup builtins): op 1 up, 2 down, 3 xor. */
export function warpShuffles(a: i32[], out: i32[], op: i32, delta: i32): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const v = a[g];
  let r: i32 = 0;
  if (op == 1) r = __shfl_up_sync(0xffffffff, v, delta);
  if (op == 2) r = __shfl_down_sync(0xffffffff, v, delta);
  if (op == 3) r = __shfl_xor_sync(0xffffffff, v, delta);
  out[g] = r;
}

/**
 * CUDA's atomicInc on one global counter from every thread, each thread keeping the value it got.
 * With `store` set, thread 0 of the (single) block first stores `start` into the counter, after
 * the launch began: the WGSL form's per-launch ticket guard cannot have seen that value.
 */
export function incTickets(counters: u32[], got: u32[], limit: u32, start: u32, store: i32): void {
  if (store != 0 && threadIdx.x == 0) counters[0] = start;
  __syncthreads();
  got[blockIdx.x * blockDim.x + threadIdx.x] = atomicInc(counters, 0, limit);
}
