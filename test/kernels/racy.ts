// Kernels with planted races (and their fixed twins) for test/race-compiled*.test.ts: the race
// tools must report each planted race at its source line and stay quiet on the fixed versions.
import {
  threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __syncwarp, __shared__, __shfl_xor_sync, __ballot_sync, __activemask, atomicAdd,
} from "simt/kernel";

/** examples/kernels/histogram.ts with a plain increment of the shared bin instead of atomicAdd: lost updates. */
export function histogramPlain(data: u8[], n: i32, bins: u32[]): void {
  const local = __shared__<u32>(256);
  for (let i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    local[data[i]]++; // RACE: plain read-modify-write
  __syncthreads();
  for (let i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(bins, i, local[i]);
}

/** A shared-memory tree reduction missing the __syncthreads in its loop. */
export function reduceNoSync(input: i32[], out: i32[]): void {
  const s = __shared__<i32>(128);
  const t = threadIdx.x;
  s[t] = input[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (let k = blockDim.x / 2; k > 0; k /= 2) {
    if (t < k) s[t] += s[t + k]; // RACE: no barrier between the steps
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

/** The same reduction with its barrier. */
export function reduceSynced(input: i32[], out: i32[]): void {
  const s = __shared__<i32>(128);
  const t = threadIdx.x;
  s[t] = input[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (let k = blockDim.x / 2; k > 0; k /= 2) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

/** Lanes read their neighbour's shared entry without __syncwarp: lock-step assumed. */
export function warpNeighbour(input: i32[], out: i32[]): void {
  const s = __shared__<i32>(64);
  const t = threadIdx.x;
  s[t] = input[t];
  out[t] = s[t ^ 1]; // RACE: warp-synchronous read
}

/** The same with __syncwarp between the store and the load. */
export function warpNeighbourSynced(input: i32[], out: i32[]): void {
  const s = __shared__<i32>(64);
  const t = threadIdx.x;
  s[t] = input[t];
  __syncwarp();
  out[t] = s[t ^ 1];
}

/** A shuffle between the store and the load does not publish the store (a shuffle orders no memory). */
export function shuffleThenShared(input: i32[], out: i32[]): void {
  const s = __shared__<i32>(64);
  const t = threadIdx.x;
  s[t] = input[t];
  const v = __shfl_xor_sync(0xffffffff, input[t], 1);
  out[t] = v + s[t ^ 1]; // RACE: the shuffle is no __syncwarp
}

/** The same with __syncwarp: the shuffle and the shared read agree. */
export function shuffleThenSharedSynced(input: i32[], out: i32[]): void {
  const s = __shared__<i32>(64);
  const t = threadIdx.x;
  s[t] = input[t];
  const v = __shfl_xor_sync(0xffffffff, input[t], 1);
  __syncwarp();
  out[t] = v + s[t ^ 1];
}

/** Copies n elements without a bounds guard on a grid larger than the data. */
export function copyUnguarded(input: i32[], out: i32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = input[i]; // OOB past the arrays' length
}

/**
 * Threads at or past n return; the rest of the warp then pairs up with a shuffle (op 0: full
 * mask — it names lanes that exited, CUDA's undefined case; op 1: `__activemask()`, the lanes
 * still there) or votes with a full-mask ballot (op 2). n is even, so no partner has exited.
 */
export function warpAfterReturn(input: i32[], out: i32[], n: i32, op: i32): void {
  const t = threadIdx.x;
  if (t >= n) return;
  const v = input[t];
  let r: i32 = 0;
  if (op == 0) r = v + __shfl_xor_sync(0xffffffff, v, 1); // full mask after the return
  if (op == 1) r = v + __shfl_xor_sync(__activemask(), v, 1);
  if (op == 2) r = <i32>__ballot_sync(0xffffffff, v > 0); // full-mask ballot after the return
  out[t] = r;
}
