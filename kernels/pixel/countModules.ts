// CMS pixel countModules (seed 000): marks where each module's digis start. CUDA original:
//
//   __global__ void countModules(uint16_t const* id, uint32_t* moduleStart, int32_t* clusterId,
//                                int numElements) {
//     int first = blockDim.x * blockIdx.x + threadIdx.x;
//     for (int i = first; i < numElements; i += gridDim.x * blockDim.x) {
//       clusterId[i] = i;
//       if (invalidModuleId == id[i]) continue;
//       auto j = i - 1;
//       while (j >= 0 and id[j] == invalidModuleId) --j;
//       if (j < 0 or id[j] != id[i]) {
//         auto loc = atomicInc(moduleStart, nMaxModules);
//         moduleStart[loc + 1] = i;
//       }
//     }
//   }
//
// nMaxModules is a parameter here (a template constant in CMS). The order of moduleStart[1..]
// is the order in which threads reach atomicInc: schedule dependent, as on a GPU.
import { threadIdx, blockIdx, blockDim, gridDim, atomicInc } from "simt/kernel";

const invalidModuleId: u16 = 65534;

export function countModules(id: u16[], moduleStart: u32[], clusterId: i32[], numElements: i32, nMaxModules: u32): void {
  const first = blockDim.x * blockIdx.x + threadIdx.x;
  for (let i = first; i < numElements; i += gridDim.x * blockDim.x) {
    clusterId[i] = i;
    if (invalidModuleId == id[i]) continue;
    let j = i - 1;
    while (j >= 0 && id[j] == invalidModuleId) --j;
    if (j < 0 || id[j] != id[i]) {
      const loc = atomicInc(moduleStart, 0, nMaxModules);
      moduleStart[loc + 1] = i;
    }
  }
}
