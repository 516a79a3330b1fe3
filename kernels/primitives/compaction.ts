// Stream compaction with a block scan and one atomicAdd per block: seed 001's pattern in
// convertUdpToSinglesKernel (the PET singles that pass the energy window), here keeping the
// non-zero words of input[0..n).
//
//   localTrue = (number of kept elements among this thread's items);
//   scanTrue = intraBlockScan<threadsConvert>(localTrue);              // inclusive
//   __syncthreads();
//   __shared__ unsigned globalTrue;
//   if (threadIdx.x == threadsConvert - 1) globalTrue = atomicAdd(coinEnergyLength, scanTrue);
//   __syncthreads();
//   unsigned indexTrue = globalTrue + scanTrue - localTrue;            // this thread's first slot
//   for (...) if (kept) dst[indexTrue++] = src[...];
//
// Thread t of block b owns the `items` consecutive elements from (b·blockDim.x + t)·items (the
// seed strides them by the block size; consecutive items keep input order inside a block).
// Between blocks the output follows the order of the atomicAdds (schedule dependent: compare it
// as a multiset); counter[0] ends as the number kept. Shared: compactionSharedBytes(blockDim.x).
import { threadIdx, blockIdx, blockDim, __syncthreads, __shared__, __extern_shared__, atomicAdd } from "simt/kernel";

export function compactNonZeroU32(input: u32[], n: i32, output: u32[], counter: u32[], items: i32): void {
  const scanTile = __extern_shared__<u32>();
  const globalTrue = __shared__<u32>(1);
  const first = (blockIdx.x * blockDim.x + threadIdx.x) * items;
  let localTrue: u32 = 0;
  for (let j = 0; j < items; j++) if (first + j < n && input[first + j] != 0) localTrue++;
  const scanTrue = intraBlockScan(scanTile, localTrue, blockDim.x, 1);
  __syncthreads();
  if (threadIdx.x == blockDim.x - 1) globalTrue[0] = atomicAdd(counter, 0, scanTrue);
  __syncthreads();
  let indexTrue = globalTrue[0] + scanTrue - localTrue;
  for (let j = 0; j < items && first + j < n; j++) {
    const v = input[first + j];
    if (v != 0) {
      output[indexTrue] = v;
      indexTrue++;
    }
  }
}
