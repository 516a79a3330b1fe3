// The CUDA programming guide's __threadfence() example (threadFenceReduction: "sum of an array
// in one launch, the last block to finish adds the partial sums"), and a publication by a
// fence without an atomic, for test/race-fence.test.ts. The guide's code:
//
//   __device__ unsigned int count = 0;
//   __shared__ bool isLastBlockDone;
//   __global__ void sum(const float* array, unsigned int N, volatile float* result) {
//     float partialSum = calculatePartialSum(array, N);
//     if (threadIdx.x == 0) {
//       result[blockIdx.x] = partialSum;
//       __threadfence();
//       unsigned int value = atomicInc(&count, gridDim.x);
//       isLastBlockDone = (value == (gridDim.x - 1));
//     }
//     __syncthreads();
//     if (isLastBlockDone) {
//       float totalSum = calculateTotalSum(result);
//       if (threadIdx.x == 0) { result[0] = totalSum; count = 0; }
//     }
//   }
import {
  threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __shared__, __threadfence, __threadfence_block, __threadfence_system,
  atomicInc, atomicExch, atomicOr,
} from "simt/kernel";

/** The block's sum of one value per thread: a shared-memory tree (blockDim.x a power of two, at most 256). */
function blockTreeSum(v: f32): f32 {
  const s = __shared__<f32>(256);
  const t = threadIdx.x;
  s[t] = v;
  __syncthreads();
  for (let k = blockDim.x >> 1; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  const total = s[0];
  __syncthreads(); // s is the same array at the next call (one allocation per block, as in CUDA)
  return total;
}

/**
 * The guide's sum: result[0] = the sum of array[0..n), result[b] = block b's partial sum for
 * b ≥ 1; count (one u32) back at 0. `fence` = 0 leaves out the __threadfence(): the race the
 * guide's fence is there to prevent.
 */
export function sumLastBlock(array: f32[], n: i32, result: f32[], count: u32[], fence: i32): void {
  const isLastBlockDone = __shared__<i32>(1);
  let mine: f32 = 0;
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) mine += array[i];
  const partialSum = blockTreeSum(mine);
  if (threadIdx.x == 0) {
    result[blockIdx.x] = partialSum; // the partial sum
    if (fence != 0) __threadfence();
    const value = atomicInc(count, 0, gridDim.x);
    isLastBlockDone[0] = <i32>value == gridDim.x - 1 ? 1 : 0;
  }
  __syncthreads();
  if (isLastBlockDone[0] != 0) {
    let part: f32 = 0;
    for (let i = threadIdx.x; i < gridDim.x; i += blockDim.x) part += result[i]; // the last block reads the partials
    const totalSum = blockTreeSum(part);
    if (threadIdx.x == 0) {
      result[0] = totalSum;
      count[0] = 0;
    }
  }
}

/**
 * No atomic: thread 0 of block b writes its value, fences, raises a plain flag, and reads its
 * neighbour's value if the neighbour's flag is up (no spinning). A fence orders this thread's
 * own writes; without an atomic that the reader observes, nothing orders the two blocks.
 */
export function fenceFlagNoAtomic(values: f32[], flags: i32[], out: f32[]): void {
  if (threadIdx.x == 0) {
    values[blockIdx.x] = <f32>(blockIdx.x + 1); // the value
    __threadfence();
    flags[blockIdx.x] = 1; // the flag
    const next = (blockIdx.x + 1) % gridDim.x;
    out[blockIdx.x] = flags[next] != 0 ? values[next] : -1; // the neighbour's flag and value
  }
}

/**
 * The scopes: thread 0 of block 0 writes data[0], fences (scope 0 none, 1 __threadfence_block,
 * 2 __threadfence, 3 __threadfence_system) and raises flag with an atomic; thread 32 (another
 * warp) of block `reader` reads flag with an atomic and, if it is up, data[0].
 */
export function fencedPublish(data: i32[], flag: u32[], out: i32[], scope: i32, reader: i32): void {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    data[0] = 42; // the data
    if (scope == 1) __threadfence_block();
    if (scope == 2) __threadfence();
    if (scope == 3) __threadfence_system();
    atomicExch(flag, 0, 1);
  }
  if (blockIdx.x == reader && threadIdx.x == 32) out[0] = atomicOr(flag, 0, 0) != 0 ? data[0] : -1; // the reader
}
