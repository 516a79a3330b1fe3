// CMS pixel clustering on the SiPixelDigisCUDASOAView store (seed 003): countModules (seed 000),
// findClus and clusterChargeCut as CMSSW's gpuClustering.h / gpuClusterChargeCut.h write them.
//
// The store is one allocation; column c starts at byte StorageLocation[c] · stride · 2, where
// stride = roundFor128ByteAlignment(maxFedWords) (uint16 words): clus i32 @0, pdigi u32 @2,
// rawIdArr u32 @4, adc u16 @6, xx u16 @7, yy u16 @8, moduleInd u16 @9 (kMAX = 10). A CUDA
// dump of the store is these bytes.
//
// Interpretations (see docs/pixel.md): the histogram is over y (the column, 416 of them) as
// CMSSW's Hist is filled with y[i]; block-scoped atomics (atomicMin_block, shared-memory
// atomicAdd/atomicDec) act on memory only the running block touches, and a block's threads
// run one at a time on one worker, so they are plain read-modify-writes here — exact.

import {
  blockIdx, blockDim, gridDim, sharedMem, registers, beginPhase, threadAt, atomicInc,
} from "../../runtime";
import { countModules } from "../countModules";

const invalidModuleId: u16 = 65534;
const invalidClusterId: i32 = -9999;
const maxPixInModule: i32 = 4000;
const nbins: i32 = 416 + 2;              // phase1PixelTopology::numColsInModule + 2
const maxiter: i32 = 16;
const maxNeighbours: i32 = 10;
const maxNumClustersPerModules: i32 = 1024;
const layer1End: u16 = 96;               // phase1PixelTopology::layerStart[1]

// Column byte offsets of the store (StorageLocation · stride · 2).
// @ts-ignore: decorator
@inline function col(soa: usize, stride: u32, loc: u32): usize { return soa + <usize>(loc * stride * 2); }
// @ts-ignore: decorator
@inline function ldId(p: usize, i: i32): u16 { return load<u16>(p + (<usize>i << 1)); }

/** countModules on the store: id = moduleInd column, clusterId = clus column. */
export function pixelCountModules(soa: usize, stride: u32, moduleStart: usize, numElements: i32, nMaxModules: u32): void {
  countModules(col(soa, stride, 9), moduleStart, col(soa, stride, 0), numElements, nMaxModules);
}

// Shared memory of findClus: 0: msize (i32), 4: foundClusters (u32), 16: hist.off[nbins + 1]
// (u32), then hist.bins[maxPixInModule] (u16).
const SH_MSIZE: usize = 0;
const SH_FOUND: usize = 4;
const SH_OFF: usize = 16;
const SH_BINS: usize = SH_OFF + <usize>((nbins + 1) * 4);
export const FIND_CLUS_SHARED: i32 = <i32>SH_BINS + maxPixInModule * 2;

/** findClus on the store (the WGSL twin's parameters): the columns of the store, then findClus. */
export function pixelFindClus(soa: usize, stride: u32, moduleStart: usize, nClustersInModule: usize,
                              moduleId: usize, numElements: i32): void {
  findClus(col(soa, stride, 9), col(soa, stride, 7), col(soa, stride, 8), moduleStart, nClustersInModule, moduleId,
    col(soa, stride, 0), numElements);
}

/**
 * findClus (one block per module, grid-stride over moduleStart[0] modules): the phase-loop
 * specialization of kernels/pixel/clustering.ts's findClus (same parameters, same bytes).
 * Per-thread arrays nn[maxiter][maxNeighbours] and nnn[maxiter] live across barriers, so they are
 * spilled to the worker's register area, indexed by the histogram entry j = t + k·blockDim.x the
 * thread owns (blockDim.x · maxiter ≥ maxPixInModule is required, as CMSSW asserts). Thread t's
 * `more` flag sits in register slot 15.
 */
export function findClus(id: usize, x: usize, y: usize, moduleStart: usize, nClustersInModule: usize,
                         moduleId: usize, clusterId: usize, numElements: i32): void {
  const sh = sharedMem();
  const off = sh + SH_OFF;
  const bins = sh + SH_BINS;
  // nn[j][maxNeighbours] u16 for j < 4096 (80 KiB), then nnn[j] u8 (4 KiB): register slots 0..10.
  const nnBase = registers(0);
  const nnnBase = nnBase + <usize>(4096 * maxNeighbours * 2);
  const moreFlags = registers(15);
  const nt = blockDim.x;
  const endModule = <i32>load<u32>(moduleStart);
  for (let module = blockIdx.x; module < endModule; module += gridDim.x) {
    const firstPixel = <i32>load<u32>(moduleStart + (<usize>(1 + module) << 2));
    const thisModuleId = ldId(id, firstPixel);
    store<i32>(sh + SH_MSIZE, numElements);
    // __syncthreads(); find the first pixel of another module
    let cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      const t = threadAt(k);
      for (let i = firstPixel + t; i < numElements; i += nt) {
        const v = ldId(id, i);
        if (v == invalidModuleId) continue;
        if (v != thisModuleId) {
          if (i < load<i32>(sh + SH_MSIZE)) store<i32>(sh + SH_MSIZE, i); // atomicMin(&msize, i)
          break;
        }
      }
    }
    // init hist
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      for (let j = threadAt(k); j <= nbins; j += nt) store<u32>(off + (<usize>j << 2), 0);
    }
    // __syncthreads(); limit to maxPixInModule (thread 0)
    let msize = load<i32>(sh + SH_MSIZE);
    if (msize - firstPixel > maxPixInModule) {
      msize = maxPixInModule + firstPixel;
      store<i32>(sh + SH_MSIZE, msize);
    }
    // fill histo: count
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      for (let i = firstPixel + threadAt(k); i < msize; i += nt) {
        if (ldId(id, i) == invalidModuleId) continue;
        const p = off + (<usize>ldId(y, i) << 2);
        store<u32>(p, load<u32>(p) + 1);                 // hist.count: block-scoped atomicAdd
      }
    }
    // finalize (an inclusive block prefix scan of the counts; one raking pass)
    let total: u32 = 0;
    for (let b = 0; b <= nbins; b++) {
      const p = off + (<usize>b << 2);
      total += load<u32>(p);
      store<u32>(p, total);
    }
    // fill: w = atomicDec(&off[bin]); bins[w - 1] = i - firstPixel — order inside a bin is the schedule's
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      for (let i = firstPixel + threadAt(k); i < msize; i += nt) {
        if (ldId(id, i) == invalidModuleId) continue;
        const p = off + (<usize>ldId(y, i) << 2);
        const w = load<u32>(p) - 1;
        store<u32>(p, w);
        store<u16>(bins + (<usize>w << 1), <u16>(i - firstPixel));
      }
    }
    const hsize = <i32>load<u32>(off + (<usize>nbins << 2));
    // __syncthreads(); fill NN: for each entry, the later entries of its bin and of bin y+1 with |dx| <= 1
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      for (let j = threadAt(k); j < hsize; j += nt) {
        const i = <i32>load<u16>(bins + (<usize>j << 1)) + firstPixel;
        const yi = <i32>ldId(y, i);
        const xi = <i32>ldId(x, i);
        const e = <i32>load<u32>(off + (<usize>(yi + 2) << 2)); // hist.end(bin(y + 1))
        let l = 0;
        const nnj = nnBase + <usize>(j * maxNeighbours * 2);
        for (let q = j + 1; q < e; q++) {
          const mRel = <i32>load<u16>(bins + (<usize>q << 1));
          const m = mRel + firstPixel;
          if (abs<i32>(<i32>ldId(x, m) - xi) > 1) continue;
          // CMSSW: assert(l < maxNeighbours) — a device assert is a trap here (KernelError).
          if (l >= maxNeighbours) unreachable();
          store<u16>(nnj + (<usize>l << 1), <u16>mRel);
          l++;
        }
        store<u8>(nnnBase + <usize>j, <u8>l);
      }
    }
    // label propagation: while (__syncthreads_or(more))
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) store<i32>(moreFlags + (<usize>threadAt(k) << 2), 1);
    let nloops = 0;
    while (true) {
      let any = false;
      for (let t = 0; t < nt; t++) if (load<i32>(moreFlags + (<usize>t << 2)) != 0) { any = true; break; }
      if (!any) break;
      cnt = beginPhase();
      if ((nloops & 1) == 1) {
        for (let k = 0; k < cnt; k++) {
          for (let j = threadAt(k); j < hsize; j += nt) {
            const i = <i32>load<u16>(bins + (<usize>j << 1)) + firstPixel;
            let m = load<i32>(clusterId + (<usize>i << 2));
            while (m != load<i32>(clusterId + (<usize>m << 2))) m = load<i32>(clusterId + (<usize>m << 2));
            store<i32>(clusterId + (<usize>i << 2), m);
          }
        }
      } else {
        for (let k = 0; k < cnt; k++) {
          const t = threadAt(k);
          let more = 0;
          for (let j = t; j < hsize; j += nt) {
            const i = <i32>load<u16>(bins + (<usize>j << 1)) + firstPixel;
            const pi = clusterId + (<usize>i << 2);
            const nnn = <i32>load<u8>(nnnBase + <usize>j);
            const nnj = nnBase + <usize>(j * maxNeighbours * 2);
            for (let kk = 0; kk < nnn; kk++) {
              const m = <i32>load<u16>(nnj + (<usize>kk << 1)) + firstPixel;
              const pm = clusterId + (<usize>m << 2);
              const ci = load<i32>(pi);
              const old = load<i32>(pm);                 // old = atomicMin_block(&clusterId[m], clusterId[i])
              if (ci < old) store<i32>(pm, ci);
              if (old != ci) more = 1;
              if (old < load<i32>(pi)) store<i32>(pi, old); // atomicMin_block(&clusterId[i], old)
            }
          }
          store<i32>(moreFlags + (<usize>t << 2), more);
        }
      }
      nloops++;
    }
    // count the clusters: roots (clusterId[i] == i) get -(atomicInc(&foundClusters) + 1)
    store<u32>(sh + SH_FOUND, 0);
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      for (let i = firstPixel + threadAt(k); i < msize; i += nt) {
        if (ldId(id, i) == invalidModuleId) continue;
        if (load<i32>(clusterId + (<usize>i << 2)) == i) {
          const old = atomicInc(sh + SH_FOUND, 0xffffffff);
          store<i32>(clusterId + (<usize>i << 2), -(<i32>old + 1));
        }
      }
    }
    // propagate the negative id to every pixel of the cluster
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      for (let i = firstPixel + threadAt(k); i < msize; i += nt) {
        if (ldId(id, i) == invalidModuleId) continue;
        const c = load<i32>(clusterId + (<usize>i << 2));
        if (c >= 0) store<i32>(clusterId + (<usize>i << 2), load<i32>(clusterId + (<usize>c << 2)));
      }
    }
    // positive ids from 0; invalid pixels get invalidClusterId
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      for (let i = firstPixel + threadAt(k); i < msize; i += nt) {
        const p = clusterId + (<usize>i << 2);
        if (ldId(id, i) == invalidModuleId) { store<i32>(p, invalidClusterId); continue; }
        store<i32>(p, -load<i32>(p) - 1);
      }
    }
    store<u32>(nClustersInModule + (<usize>thisModuleId << 2), load<u32>(sh + SH_FOUND));
    store<u32>(moduleId + (<usize>module << 2), <u32>thisModuleId);
  }
}

// Shared memory of clusterChargeCut: charge i32[1024], ok u8[1024], newclusId u16[1024].
const CC_CHARGE: usize = 0;
const CC_OK: usize = CC_CHARGE + <usize>(maxNumClustersPerModules * 4);
const CC_NEW: usize = CC_OK + <usize>maxNumClustersPerModules;
export const CHARGE_CUT_SHARED: i32 = <i32>CC_NEW + maxNumClustersPerModules * 2;

/** clusterChargeCut on the store (the WGSL twin's parameters): the columns of the store, then clusterChargeCut. */
export function pixelClusterChargeCut(soa: usize, stride: u32, moduleStart: usize, nClustersInModule: usize,
                                      numElements: i32, layer1Threshold: i32, otherThreshold: i32): void {
  clusterChargeCut(col(soa, stride, 9), col(soa, stride, 6), moduleStart, nClustersInModule, col(soa, stride, 0),
    numElements, layer1Threshold, otherThreshold);
}

/**
 * clusterChargeCut: per module, clusters with total adc ≤ threshold (layer1Threshold for
 * modules below 96, otherThreshold elsewhere) are dropped (their digis get id = clusterId =
 * invalidModuleId, as CMSSW does), the kept ones renumbered in order. The phase-loop
 * specialization of kernels/pixel/clustering.ts's clusterChargeCut (same parameters, same bytes).
 */
export function clusterChargeCut(id: usize, adc: usize, moduleStart: usize, nClustersInModule: usize, clusterId: usize,
                                 numElements: i32, layer1Threshold: i32, otherThreshold: i32): void {
  const sh = sharedMem();
  const charge = sh + CC_CHARGE;
  const ok = sh + CC_OK;
  const newId = sh + CC_NEW;
  const nt = blockDim.x;
  const endModule = <i32>load<u32>(moduleStart);
  for (let module = blockIdx.x; module < endModule; module += gridDim.x) {
    const firstPixel = <i32>load<u32>(moduleStart + (<usize>(1 + module) << 2));
    const thisModuleId = ldId(id, firstPixel);
    let nclus = <i32>load<u32>(nClustersInModule + (<usize>thisModuleId << 2));
    if (nclus == 0) continue;
    let cnt: i32;
    if (nclus > maxNumClustersPerModules) {
      cnt = beginPhase();
      for (let k = 0; k < cnt; k++) {
        for (let i = firstPixel + threadAt(k); i < numElements; i += nt) {
          const v = ldId(id, i);
          if (v == invalidModuleId) continue;
          if (v != thisModuleId) break;
          if (load<i32>(clusterId + (<usize>i << 2)) >= maxNumClustersPerModules) {
            store<u16>(id + (<usize>i << 1), invalidModuleId);
            store<i32>(clusterId + (<usize>i << 2), <i32>invalidModuleId);
          }
        }
      }
      nclus = maxNumClustersPerModules;
    }
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) for (let c = threadAt(k); c < nclus; c += nt) store<i32>(charge + (<usize>c << 2), 0);
    // __syncthreads(); atomicAdd(&charge[clusterId[i]], adc[i]) (shared memory, block scoped)
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      for (let i = firstPixel + threadAt(k); i < numElements; i += nt) {
        const v = ldId(id, i);
        if (v == invalidModuleId) continue;
        if (v != thisModuleId) break;
        const p = charge + (<usize>load<i32>(clusterId + (<usize>i << 2)) << 2);
        store<i32>(p, load<i32>(p) + <i32>load<u16>(adc + (<usize>i << 1)));
      }
    }
    const cut = thisModuleId < layer1End ? layer1Threshold : otherThreshold;
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      for (let c = threadAt(k); c < nclus; c += nt) {
        const good: u8 = load<i32>(charge + (<usize>c << 2)) > cut ? 1 : 0;
        store<u8>(ok + <usize>c, good);
        store<u16>(newId + (<usize>c << 1), good);
      }
    }
    // blockPrefixScan(newclusId, nclus): inclusive (one raking pass)
    let run: u16 = 0;
    for (let c = 0; c < nclus; c++) {
      run += load<u16>(newId + (<usize>c << 1));
      store<u16>(newId + (<usize>c << 1), run);
    }
    if (<i32>run == nclus) continue;
    store<u32>(nClustersInModule + (<usize>thisModuleId << 2), <u32>run);
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      for (let c = threadAt(k); c < nclus; c += nt) {
        if (load<u8>(ok + <usize>c) == 0) store<u16>(newId + (<usize>c << 1), invalidModuleId + 1);
      }
    }
    cnt = beginPhase();
    for (let k = 0; k < cnt; k++) {
      for (let i = firstPixel + threadAt(k); i < numElements; i += nt) {
        const v = ldId(id, i);
        if (v == invalidModuleId) continue;
        if (v != thisModuleId) break;
        const p = clusterId + (<usize>i << 2);
        const c = <i32>load<u16>(newId + (<usize>load<i32>(p) << 1)) - 1;
        store<i32>(p, c);
        if (c == <i32>invalidModuleId) store<u16>(id + (<usize>i << 1), invalidModuleId);
      }
    }
  }
}
