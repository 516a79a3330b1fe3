// The race corpus's kernels from the seeds whose schedules matter (000 CMS countModules, 001 PET
// FillDataKernel, 004 CBM STS scatter), each as the seed has it and in a hazard or fixed form.
// Seed 000's own countModules is the shipped kernels/pixel/countModules.ts. Jobs: src/race/corpus.ts.
import { threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __extern_shared__, atomicAdd } from "simt/kernel";

// countModules' invalidModuleId (module-level names are shared by every source under kernels/).
const invalidModule: u16 = 65534;

// ---- seed 000: CMS countModules ---------------------------------------------------------------

/** Racy: countModules with the counter bumped by a plain read-modify-write (a lost update loses a module start). */
export function countModulesPlain(id: u16[], moduleStart: u32[], clusterId: i32[], numElements: i32, nMaxModules: u32): void {
  for (let i = blockDim.x * blockIdx.x + threadIdx.x; i < numElements; i += gridDim.x * blockDim.x) {
    clusterId[i] = i;
    if (invalidModule == id[i]) continue;
    let j = i - 1;
    while (j >= 0 && id[j] == invalidModule) --j;
    if (j < 0 || id[j] != id[i]) {
      const loc = moduleStart[0];
      moduleStart[0] = loc >= nMaxModules ? 0 : loc + 1;
      moduleStart[loc + 1] = i;
    }
  }
}

/** Race-free: counts the module starts only (an atomic sum is order-free). */
export function countModulesCount(id: u16[], count: u32[], clusterId: i32[], numElements: i32): void {
  for (let i = blockDim.x * blockIdx.x + threadIdx.x; i < numElements; i += gridDim.x * blockDim.x) {
    clusterId[i] = i;
    if (invalidModule == id[i]) continue;
    let j = i - 1;
    while (j >= 0 && id[j] == invalidModule) --j;
    if (j < 0 || id[j] != id[i]) atomicAdd(count, 0, 1);
  }
}

// ---- seed 001: PET intraWarpScan / intraBlockScan / FillDataKernel ----------------------------

// intraWarpScan and intraBlockScan are simt's own device functions (kernels/primitives/blockScan.ts):
// sync = 0 is the seed's lock-step form, sync = 1 puts __syncwarp() between every read and the next write.

/** out = exclusive warp scan of input (one warp); sync = 0: the seed's lock-step form (a warp-sync hazard). */
export function petWarpScan(input: u32[], out: u32[], sync: i32): void {
  const scanTile = __extern_shared__<u32>();
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  out[g] = intraWarpScan(scanTile, input[g], blockDim.x, sync);
}

const THREAD_ELEM: u32 = 4;

/**
 * The seed's FillDataKernel as written (count, then block scan of the valid nextIndex entries): a
 * thread past the data returns before the block's __syncthreads (barrier divergence) and the
 * scans rely on lock-step warps. The fixed form, every thread at every barrier and __syncwarp in
 * the warp scans, is the pipeline's own petCoinCount (kernels/pet/coincidence.ts).
 */
export function petFillData(nextIndex: i32[], arrayLength: u32, newLength: u32[], scanId: u32[], globalLen: u32[]): void {
  const scanTile = __extern_shared__<u32>();
  let local1: u32 = 0;
  const id = <u32>(threadIdx.x + blockDim.x * blockIdx.x);
  if (id * THREAD_ELEM >= arrayLength) return;
  const offset1 = id * THREAD_ELEM;
  const dataBlockLength1 = offset1 + THREAD_ELEM <= arrayLength ? THREAD_ELEM : arrayLength - offset1;
  for (let tx: u32 = 0; tx < dataBlockLength1; ++tx) {
    if (nextIndex[tx + offset1] != -1) local1++;
  }
  __syncthreads();
  const scan1 = intraBlockScan(scanTile, local1, blockDim.x, 0);
  __syncthreads();
  if (threadIdx.x == blockDim.x - 1 || offset1 + dataBlockLength1 == arrayLength) {
    atomicAdd(newLength, 0, scan1);
    globalLen[blockIdx.x] = scan1;
  }
  __syncthreads();
  scanId[id] = scan1 - local1;
}

// ---- seed 004: CBM STS counting sort scatter --------------------------------------------------

// The sort's own count and scatter are kernels/sts/atomicSort.ts (the corpus runs them).

/** Racy: stsScatterAtomic with the insertion position bumped by a plain read-modify-write. */
export function stsScatterPlain(digis: u32[], out: u32[], offsets: u32[], n: i32, nChannels: u32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || digis[2 * i] >= nChannels) return;
  const c = digis[2 * i];
  const pos = offsets[c];
  offsets[c] = pos + 1;
  out[2 * pos] = c;
  out[2 * pos + 1] = digis[2 * i + 1];
}

/** Race-free: the seed's alternative, thread c owns channel c and scans every digi in order (stable). */
export function stsOwnerScatter(channel: i32[], time: u32[], prefix: i32[], out: u32[], n: i32, channels: i32): void {
  const c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  for (let i = 0; i < n; i++) {
    if (channel[i] == c) {
      out[prefix[c]] = time[i];
      prefix[c] += 1;
    }
  }
}
