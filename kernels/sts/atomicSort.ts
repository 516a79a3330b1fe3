// CBM STS digi sorting by channel (seed 004), the talk's parallel counting sort — steps 1 and 3
// as its CUDA kernels write them (step 2 is simt's device-wide scan, kernels/primitives/scan.ts).
// A digi is two u32 words, (channel, time): digis[2i] is digi i's channel.
//
//   __global__ void countKernel(const Digi* digis, unsigned* digisPerChannel, int n) {
//     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
//       atomicAdd(&digisPerChannel[digis[i].channel], 1);
//   }
//   __global__ void scatterKernel(const Digi* digis, Digi* out, unsigned* prefixSum, int n) {
//     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
//       out[atomicAdd(&prefixSum[digis[i].channel], 1)] = digis[i];
//   }
//
// simt checks the channels too: a digi whose channel is not below nChannels is neither counted
// nor scattered, and bad[0] (0xffffffff from the host) takes the smallest such index. The order
// of the digis inside a channel is the order in which threads win the atomicAdd: schedule
// dependent, as on a GPU. The hand-written fast path (assembly/kernels/sts/countingSort.ts) is a
// declared specialization of these two.
import { threadIdx, blockIdx, blockDim, gridDim, atomicAdd, atomicMin } from "simt/kernel";

export function stsCountChannels(digis: u32[], counts: u32[], n: i32, nChannels: u32, bad: u32[]): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const c = digis[2 * i];
    if (c < nChannels) atomicAdd(counts, c, 1);
    else atomicMin(bad, 0, <u32>i);
  }
}

export function stsScatterAtomic(digis: u32[], out: u32[], offsets: u32[], n: i32, nChannels: u32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const c = digis[2 * i];
    if (c >= nChannels) continue;
    const pos = atomicAdd(offsets, c, 1);
    out[2 * pos] = c;
    out[2 * pos + 1] = digis[2 * i + 1];
  }
}
