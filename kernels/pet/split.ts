// The PET job's read-back, per thread: SinglesStruct / CoinStruct records (kernels/pet/records.ts)
// split into plain columns on the device, so the host reads arrays instead of regrouping records
// itself. simt's own kernels (the seed has none: it hands the records to the host as they are).
// Grid-stride, one record per thread, as CUDA would write them:
//
//   __global__ void splitSingles(const SinglesStruct* src, int n, unsigned* crystal, float* energy, double* time) {
//     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
//       crystal[i] = src[i].globalCrystalIndex; energy[i] = src[i].energy; time[i] = src[i].timevalue;
//     }
//   }
//   __global__ void splitPairs(const CoinStruct* pairs, const unsigned* first, int n, unsigned* index1,
//       unsigned* crystal0, unsigned* crystal1, float* energy0, float* energy1, double* time0, double* time1) {
//     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
//       index1[i] = first[i] + 1;
//       crystal0[i] = pairs[i].nCoinStruct[0].globalCrystalIndex; crystal1[i] = pairs[i].nCoinStruct[1].globalCrystalIndex;
//       energy0[i] = pairs[i].nCoinStruct[0].energy;              energy1[i] = pairs[i].nCoinStruct[1].energy;
//       time0[i] = pairs[i].nCoinStruct[0].timevalue;             time1[i] = pairs[i].nCoinStruct[1].timevalue;
//     }
//   }
//
// Every field's bits are copied as they are (NaN energies and times included). The time columns
// are f64[], which WGSL cannot bind as such: these kernels have no generated WGSL form.
import { threadIdx, blockIdx, blockDim, gridDim } from "simt/kernel";

/** SinglesStruct[n] → crystal[n], energy[n], time[n]. */
export function petSplitSingles(src: u32[], n: i32, crystal: u32[], energy: f32[], time: f64[]): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    crystal[i] = crystalOf(src, i);
    energy[i] = energyOf(src, i);
    time[i] = timeOf(src, i);
  }
}

/** CoinStruct[n] (singles 2i, 2i + 1) and each pair's first single → the pair table's columns. */
export function petSplitPairs(pairs: u32[], first: u32[], n: i32, index1: u32[], crystal0: u32[], crystal1: u32[],
                              energy0: f32[], energy1: f32[], time0: f64[], time1: f64[]): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    index1[i] = first[i] + 1;
    crystal0[i] = crystalOf(pairs, 2 * i);
    crystal1[i] = crystalOf(pairs, 2 * i + 1);
    energy0[i] = energyOf(pairs, 2 * i);
    energy1[i] = energyOf(pairs, 2 * i + 1);
    time0[i] = timeOf(pairs, 2 * i);
    time1[i] = timeOf(pairs, 2 * i + 1);
  }
}
