// Host declarations of the pixel kernels (assembly/kernels/pixel/). Each works on the
// SiPixelDigisCUDASOAView store (one u8 allocation) and its stride = roundFor128ByteAlignment(maxFedWords).
import { defineKernel } from '../kernel.js';

/** countModules (seed 000) on the store: id = moduleInd column, clusterId = clus column. */
export const pixelCountModules = defineKernel('pixelCountModules', {
  store: 'u8[]', stride: 'u32', moduleStart: 'u32[]', numElements: 'i32', nMaxModules: 'u32',
});
/** findClus: one block per module (grid-stride over moduleStart[0]). Shared: FIND_CLUS_SHARED_BYTES. */
export const pixelFindClus = defineKernel('pixelFindClus', {
  store: 'u8[]', stride: 'u32', moduleStart: 'u32[]', nClustersInModule: 'u32[]', moduleId: 'u32[]', numElements: 'i32',
});
/** clusterChargeCut: one block per module. Shared: CHARGE_CUT_SHARED_BYTES. */
export const pixelClusterChargeCut = defineKernel('pixelClusterChargeCut', {
  store: 'u8[]', stride: 'u32', moduleStart: 'u32[]', nClustersInModule: 'u32[]', numElements: 'i32',
  layer1Threshold: 'i32', otherThreshold: 'i32',
});

/** 16 + 4·(418 + 1) + 2·4000 bytes: msize, foundClusters, hist.off, hist.bins. */
export const FIND_CLUS_SHARED_BYTES = 16 + 4 * 419 + 2 * 4000;
/** charge i32[1024], ok u8[1024], newclusId u16[1024]. */
export const CHARGE_CUT_SHARED_BYTES = 1024 * 7;
