// CMS pixel findClus (seed 003; CMSSW gpuClustering.h), per thread as CMSSW writes it. The
// parameters are the SiPixelDigisCUDASOAView store's columns (id = moduleInd, x = xx, y = yy,
// clusterId = clus), each a view of the one store allocation (src/jobs/pixel/run.ts). CUDA:
//
//   __global__ void findClus(uint16_t const* id, uint16_t const* x, uint16_t const* y,
//                            uint32_t const* moduleStart, uint32_t* nClustersInModule,
//                            uint32_t* moduleId, int32_t* clusterId, int numElements) {
//     __shared__ int msize;
//     for (auto module = blockIdx.x; module < moduleStart[0]; module += gridDim.x) {
//       auto firstPixel = moduleStart[1 + module]; auto thisModuleId = id[firstPixel];
//       auto first = firstPixel + threadIdx.x;
//       msize = numElements;
//       __syncthreads();
//       for (int i = first; i < numElements; i += blockDim.x) {
//         if (id[i] == invalidModuleId) continue;
//         if (id[i] != thisModuleId) { atomicMin(&msize, i); break; }
//       }
//       __shared__ Hist hist;                        // HistoContainer<uint16_t, 418, 4000, 9, uint16_t>
//       for (auto j = threadIdx.x; j < Hist::totbins(); j += blockDim.x) hist.off[j] = 0;
//       __syncthreads();
//       if (0 == threadIdx.x && msize - firstPixel > maxPixInModule) msize = maxPixInModule + firstPixel;
//       __syncthreads();
//       for (int i = first; i < msize; i += blockDim.x) { if (id[i] == invalidModuleId) continue; hist.count(y[i]); }
//       __syncthreads();
//       hist.finalize(ws);
//       __syncthreads();
//       for (int i = first; i < msize; i += blockDim.x) { if (id[i] == invalidModuleId) continue; hist.fill(y[i], i - firstPixel); }
//       uint16_t nn[maxiter][maxNeighbours]; uint8_t nnn[maxiter];
//       for (uint32_t k = 0; k < maxiter; ++k) nnn[k] = 0;
//       __syncthreads();
//       for (auto j = threadIdx.x, k = 0U; j < hist.size(); j += blockDim.x, ++k) {
//         auto p = hist.begin() + j; auto i = *p + firstPixel;
//         auto e = hist.end(Hist::bin(y[i] + 1));
//         for (++p; p < e; ++p) {
//           auto m = (*p) + firstPixel;
//           if (std::abs(int(x[m]) - int(x[i])) > 1) continue;
//           auto l = nnn[k]++; assert(l < maxNeighbours); nn[k][l] = *p;
//         }
//       }
//       bool more = true; int nloops = 0;
//       while (__syncthreads_or(more)) {
//         if (1 == nloops % 2) {
//           for (auto j = threadIdx.x; j < hist.size(); j += blockDim.x) {
//             auto i = hist.begin()[j] + firstPixel; auto m = clusterId[i];
//             while (m != clusterId[m]) m = clusterId[m];
//             clusterId[i] = m;
//           }
//         } else {
//           more = false;
//           for (auto j = threadIdx.x, k = 0U; j < hist.size(); j += blockDim.x, ++k) {
//             auto i = hist.begin()[j] + firstPixel;
//             for (int kk = 0; kk < nnn[k]; ++kk) {
//               auto m = nn[k][kk] + firstPixel;
//               auto old = atomicMin_block(&clusterId[m], clusterId[i]);
//               if (old != clusterId[i]) more = true;
//               atomicMin_block(&clusterId[i], old);
//             }
//           }
//         }
//         ++nloops;
//       }
//       __shared__ unsigned int foundClusters; foundClusters = 0;
//       __syncthreads();
//       for (int i = first; i < msize; i += blockDim.x) {
//         if (id[i] == invalidModuleId) continue;
//         if (clusterId[i] == i) { auto old = atomicInc(&foundClusters, 0xffffffff); clusterId[i] = -(old + 1); }
//       }
//       __syncthreads();
//       for (int i = first; i < msize; i += blockDim.x) {
//         if (id[i] == invalidModuleId) continue;
//         if (clusterId[i] >= 0) clusterId[i] = clusterId[clusterId[i]];
//       }
//       __syncthreads();
//       for (int i = first; i < msize; i += blockDim.x) {
//         if (id[i] == invalidModuleId) { clusterId[i] = invalidClusterId; continue; }
//         clusterId[i] = -clusterId[i] - 1;
//       }
//       __syncthreads();
//       if (threadIdx.x == 0) { nClustersInModule[thisModuleId] = foundClusters; moduleId[module] = thisModuleId; }
//     }
//   }
//
// The histogram is over y (the column; bin(y) = y, as CMSSW's Hist with 9 bits), hist.off and
// hist.bins in __shared__; hist.finalize's block prefix scan is one thread's inclusive scan.
// atomicMin_block is atomicMin (simt has no block-scoped variant; the result is the same). The
// cluster numbering follows the order threads reach atomicInc: schedule dependent, as on a GPU.
import {
  threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __syncthreads_or, __shared__, __local__, atomicMin, atomicAdd, atomicDec, atomicInc,
} from "simt/kernel";

// invalidModuleId (65534) is countModules.ts's: the sources under kernels/ compile as one module scope.
const invalidClusterId: i32 = -9999;
const maxPixInModule: i32 = 4000;
const nbins: i32 = 416 + 2;        // phase1PixelTopology::numColsInModule + 2
const totbins: i32 = nbins + 1;    // Hist::totbins()
const maxiter: i32 = 16;           // blockDim.x · maxiter ≥ maxPixInModule (the host's block ≥ 250)
const maxNeighbours: i32 = 10;

export function findClus(id: u16[], x: u16[], y: u16[], moduleStart: u32[], nClustersInModule: u32[],
                         moduleId: u32[], clusterId: i32[], numElements: i32): void {
  const msize = __shared__<i32>(1);
  const off = __shared__<u32>(totbins);          // hist.off
  const bins = __shared__<u16>(maxPixInModule);  // hist.bins
  const foundClusters = __shared__<u32>(1);
  const nn = __local__<u16>(maxiter * maxNeighbours);
  const nnn = __local__<u8>(maxiter);
  for (let module = blockIdx.x; module < <i32>moduleStart[0]; module += gridDim.x) {
    const firstPixel = <i32>moduleStart[1 + module];
    const thisModuleId = id[firstPixel];
    const first = firstPixel + threadIdx.x;
    msize[0] = numElements;
    __syncthreads();
    // the first pixel of another module ends this one
    for (let i = first; i < numElements; i += blockDim.x) {
      if (id[i] == invalidModuleId) continue;
      if (id[i] != thisModuleId) { atomicMin(msize, 0, i); break; }
    }
    for (let j = threadIdx.x; j < totbins; j += blockDim.x) off[j] = 0;
    __syncthreads();
    if (threadIdx.x == 0 && msize[0] - firstPixel > maxPixInModule) msize[0] = maxPixInModule + firstPixel;
    __syncthreads();
    // fill the histogram: count, finalize (inclusive prefix scan), fill from each bin's end
    for (let i = first; i < msize[0]; i += blockDim.x) {
      if (id[i] == invalidModuleId) continue;
      atomicAdd(off, y[i], 1);                                            // hist.count(y[i])
    }
    __syncthreads();
    if (threadIdx.x == 0) for (let b = 1; b < totbins; b++) off[b] += off[b - 1]; // hist.finalize()
    __syncthreads();
    for (let i = first; i < msize[0]; i += blockDim.x) {
      if (id[i] == invalidModuleId) continue;
      const w = atomicDec(off, y[i], 0xffffffff);                         // hist.fill(y[i], i - firstPixel)
      bins[w - 1] = <u16>(i - firstPixel);
    }
    for (let q = 0; q < maxiter; ++q) nnn[q] = 0;
    __syncthreads();
    // nearest neighbours: the later entries of the pixel's bin and of bin y + 1 with |dx| ≤ 1
    const hsize = <i32>off[nbins];                                        // hist.size()
    let k = 0;
    for (let j = threadIdx.x; j < hsize; j += blockDim.x) {
      const i = <i32>bins[j] + firstPixel;
      const e = <i32>off[<i32>y[i] + 2];                                  // hist.end(Hist::bin(y[i] + 1))
      for (let p = j + 1; p < e; ++p) {
        const m = <i32>bins[p] + firstPixel;
        if (abs<i32>(<i32>x[m] - <i32>x[i]) > 1) continue;
        const l = <i32>nnn[k];
        if (l >= maxNeighbours) unreachable();                            // assert(l < maxNeighbours)
        nnn[k] = <u8>(l + 1);
        nn[k * maxNeighbours + l] = bins[p];
      }
      ++k;
    }
    // label propagation: atomicMin over the neighbours, then pointer jumping, until nothing changes
    let more: bool = true;
    let nloops = 0;
    while (__syncthreads_or(more)) {
      if (1 == nloops % 2) {
        for (let j = threadIdx.x; j < hsize; j += blockDim.x) {
          const i = <i32>bins[j] + firstPixel;
          let m = clusterId[i];
          while (m != clusterId[m]) m = clusterId[m];
          clusterId[i] = m;
        }
      } else {
        more = false;
        k = 0;
        for (let j = threadIdx.x; j < hsize; j += blockDim.x) {
          const i = <i32>bins[j] + firstPixel;
          for (let kk = 0; kk < <i32>nnn[k]; ++kk) {
            const m = <i32>nn[k * maxNeighbours + kk] + firstPixel;
            const old = atomicMin(clusterId, m, clusterId[i]);            // atomicMin_block
            if (old != clusterId[i]) more = true;
            atomicMin(clusterId, i, old);
          }
          ++k;
        }
      }
      ++nloops;
    }
    foundClusters[0] = 0;
    __syncthreads();
    // roots (clusterId[i] == i) get -(their number + 1), numbered in atomicInc order
    for (let i = first; i < msize[0]; i += blockDim.x) {
      if (id[i] == invalidModuleId) continue;
      if (clusterId[i] == i) {
        const old = atomicInc(foundClusters, 0, 0xffffffff);
        clusterId[i] = -(<i32>old + 1);
      }
    }
    __syncthreads();
    // every pixel takes its root's number
    for (let i = first; i < msize[0]; i += blockDim.x) {
      if (id[i] == invalidModuleId) continue;
      if (clusterId[i] >= 0) clusterId[i] = clusterId[clusterId[i]];
    }
    __syncthreads();
    // positive ids from 0; invalid pixels in the range get invalidClusterId
    for (let i = first; i < msize[0]; i += blockDim.x) {
      if (id[i] == invalidModuleId) { clusterId[i] = invalidClusterId; continue; }
      clusterId[i] = -clusterId[i] - 1;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      nClustersInModule[thisModuleId] = foundClusters[0];
      moduleId[module] = thisModuleId;
    }
  }
}

// CMS pixel clusterChargeCut (CMSSW gpuClusterChargeCut.h): clusters whose total adc is not above
// the layer's threshold are dropped (their digis get id = clusterId = invalidModuleId), the kept
// ones renumbered in order. CUDA (thresholds as two parameters; moduleId, used only in asserts,
// left out):
//
//   __global__ void clusterChargeCut(uint16_t* id, uint16_t const* adc, uint32_t const* moduleStart,
//                                    uint32_t* nClustersInModule, int32_t* clusterId, uint32_t numElements) {
//     __shared__ int32_t charge[maxNumClustersPerModules];
//     __shared__ uint8_t ok[maxNumClustersPerModules];
//     __shared__ uint16_t newclusId[maxNumClustersPerModules];
//     for (auto module = blockIdx.x; module < moduleStart[0]; module += gridDim.x) {
//       auto firstPixel = moduleStart[1 + module]; auto thisModuleId = id[firstPixel];
//       auto nclus = nClustersInModule[thisModuleId];
//       if (nclus == 0) continue;
//       auto first = firstPixel + threadIdx.x;
//       if (nclus > maxNumClustersPerModules) {
//         for (auto i = first; i < numElements; i += blockDim.x) {
//           if (id[i] == invalidModuleId) continue;
//           if (id[i] != thisModuleId) break;
//           if (clusterId[i] >= maxNumClustersPerModules) { id[i] = invalidModuleId; clusterId[i] = invalidModuleId; }
//         }
//         nclus = maxNumClustersPerModules;
//       }
//       for (auto i = threadIdx.x; i < nclus; i += blockDim.x) charge[i] = 0;
//       __syncthreads();
//       for (auto i = first; i < numElements; i += blockDim.x) {
//         if (id[i] == invalidModuleId) continue;
//         if (id[i] != thisModuleId) break;
//         atomicAdd(&charge[clusterId[i]], adc[i]);
//       }
//       __syncthreads();
//       auto chargeCut = thisModuleId < phase1PixelTopology::layerStart[1] ? layer1Threshold : otherThreshold;
//       for (auto i = threadIdx.x; i < nclus; i += blockDim.x) newclusId[i] = ok[i] = charge[i] > chargeCut ? 1 : 0;
//       __syncthreads();
//       cms::cuda::blockPrefixScan(newclusId, nclus, ws);
//       if (nclus == newclusId[nclus - 1]) continue;
//       nClustersInModule[thisModuleId] = newclusId[nclus - 1];
//       __syncthreads();
//       for (auto i = threadIdx.x; i < nclus; i += blockDim.x) if (0 == ok[i]) newclusId[i] = invalidModuleId + 1;
//       __syncthreads();
//       for (auto i = first; i < numElements; i += blockDim.x) {
//         if (id[i] == invalidModuleId) continue;
//         if (id[i] != thisModuleId) break;
//         clusterId[i] = newclusId[clusterId[i]] - 1;
//         if (clusterId[i] == invalidModuleId) id[i] = invalidModuleId;
//       }
//       __syncthreads();
//     }
//   }
//
// A loop holding barriers takes no `continue` here, so the two early continues become ifs around
// the rest of the body; blockPrefixScan is one thread's inclusive scan (then a barrier).

const maxNumClustersPerModules: i32 = 1024;
const layer1End: u16 = 96;          // phase1PixelTopology::layerStart[1]

export function clusterChargeCut(id: u16[], adc: u16[], moduleStart: u32[], nClustersInModule: u32[], clusterId: i32[],
                                 numElements: i32, layer1Threshold: i32, otherThreshold: i32): void {
  const charge = __shared__<i32>(maxNumClustersPerModules);
  const ok = __shared__<u8>(maxNumClustersPerModules);
  const newclusId = __shared__<u16>(maxNumClustersPerModules);
  for (let module = blockIdx.x; module < <i32>moduleStart[0]; module += gridDim.x) {
    const firstPixel = <i32>moduleStart[1 + module];
    const thisModuleId = id[firstPixel];
    let nclus = <i32>nClustersInModule[thisModuleId];
    if (nclus != 0) {
      const first = firstPixel + threadIdx.x;
      if (nclus > maxNumClustersPerModules) {
        // remove the excess clusters
        for (let i = first; i < numElements; i += blockDim.x) {
          if (id[i] == invalidModuleId) continue;
          if (id[i] != thisModuleId) break;
          if (clusterId[i] >= maxNumClustersPerModules) { id[i] = invalidModuleId; clusterId[i] = invalidModuleId; }
        }
        nclus = maxNumClustersPerModules;
      }
      for (let i = threadIdx.x; i < nclus; i += blockDim.x) charge[i] = 0;
      __syncthreads();
      for (let i = first; i < numElements; i += blockDim.x) {
        if (id[i] == invalidModuleId) continue;
        if (id[i] != thisModuleId) break;
        atomicAdd(charge, clusterId[i], <i32>adc[i]);
      }
      __syncthreads();
      const chargeCut = thisModuleId < layer1End ? layer1Threshold : otherThreshold;
      for (let i = threadIdx.x; i < nclus; i += blockDim.x) {
        ok[i] = charge[i] > chargeCut ? 1 : 0;
        newclusId[i] = ok[i];
      }
      __syncthreads();
      if (threadIdx.x == 0) for (let i = 1; i < nclus; i++) newclusId[i] += newclusId[i - 1]; // blockPrefixScan
      __syncthreads();
      if (nclus != <i32>newclusId[nclus - 1]) {
        nClustersInModule[thisModuleId] = newclusId[nclus - 1];
        __syncthreads();
        // mark the bad clusters again
        for (let i = threadIdx.x; i < nclus; i += blockDim.x) if (0 == ok[i]) newclusId[i] = invalidModuleId + 1;
        __syncthreads();
        // reassign the ids
        for (let i = first; i < numElements; i += blockDim.x) {
          if (id[i] == invalidModuleId) continue;
          if (id[i] != thisModuleId) break;
          clusterId[i] = <i32>newclusId[clusterId[i]] - 1;
          if (clusterId[i] == <i32>invalidModuleId) id[i] = invalidModuleId;
        }
      }
    }
    __syncthreads();
  }
}
