// Host declarations of the pixel kernels (assembly/kernels/pixel/). The pixel* kernels work on
// the SiPixelDigisCUDASOAView store (one u8 allocation) and its stride =
// roundFor128ByteAlignment(maxFedWords); on wasm and serial each passes the store's columns to
// countModules / findClus / clusterChargeCut, the phase-loop specializations of simt's own
// per-thread kernels of the same names (kernels/pixel/). On webgpu, which cannot bind parts of
// one buffer as separate arrays when one is written, the generic kernel runs on copies of the
// columns (`storeColumns`).
import { defineKernel, type LaunchRequirement } from '../kernel.js';

/** The store's column locations (StorageLocation: column loc starts at byte loc · stride · 2). */
const CLUS = 0, ADC = 6, XX = 7, YY = 8, MODULE_IND = 9;

/** 16 + 4·(418 + 1) + 2·4000 bytes: msize, foundClusters, hist.off, hist.bins. */
export const FIND_CLUS_SHARED_BYTES = 16 + 4 * 419 + 2 * 4000;
/** charge i32[1024], ok u8[1024], newclusId u16[1024]. */
export const CHARGE_CUT_SHARED_BYTES = 1024 * 7;

const sharedBytesAtLeast = (bytes: number): LaunchRequirement => ({ sharedBytes }) =>
  (sharedBytes < bytes ? `needs at least ${bytes} shared bytes (its histogram and per-module arrays), got ${sharedBytes}` : undefined);

/** countModules (seed 000) on the store: id = moduleInd column, clusterId = clus column. */
export const pixelCountModules = defineKernel('pixelCountModules', {
  store: 'u8[]', stride: 'u32', moduleStart: 'u32[]', numElements: 'i32', nMaxModules: 'u32',
}, { storeColumns: { generic: 'countModules', store: 'store', stride: 'stride', columns: { id: MODULE_IND, clusterId: CLUS } } });
/** findClus: one block per module (grid-stride over moduleStart[0]). Shared: FIND_CLUS_SHARED_BYTES. */
export const pixelFindClus = defineKernel('pixelFindClus', {
  store: 'u8[]', stride: 'u32', moduleStart: 'u32[]', nClustersInModule: 'u32[]', moduleId: 'u32[]', numElements: 'i32',
}, {
  requires: sharedBytesAtLeast(FIND_CLUS_SHARED_BYTES),
  storeColumns: { generic: 'findClus', store: 'store', stride: 'stride', columns: { id: MODULE_IND, x: XX, y: YY, clusterId: CLUS } },
});
/** clusterChargeCut: one block per module. Shared: CHARGE_CUT_SHARED_BYTES. */
export const pixelClusterChargeCut = defineKernel('pixelClusterChargeCut', {
  store: 'u8[]', stride: 'u32', moduleStart: 'u32[]', nClustersInModule: 'u32[]', numElements: 'i32',
  layer1Threshold: 'i32', otherThreshold: 'i32',
}, {
  requires: sharedBytesAtLeast(CHARGE_CUT_SHARED_BYTES),
  storeColumns: { generic: 'clusterChargeCut', store: 'store', stride: 'stride', columns: { id: MODULE_IND, adc: ADC, clusterId: CLUS } },
});

/**
 * findClus on the store's columns (CMSSW's parameters): one block per module. Its cluster
 * numbers follow the order threads reach atomicInc, the schedule's: on wasm the generic kernel's
 * numbers, on serial another order of the same schedule seed, so clusterId is the same partition
 * per module (`labels`), the other outputs the same bytes.
 */
export const findClus = defineKernel('findClus', {
  id: 'u16[]', x: 'u16[]', y: 'u16[]', moduleStart: 'u32[]', nClustersInModule: 'u32[]', moduleId: 'u32[]', clusterId: 'i32[]', numElements: 'i32',
}, { requires: sharedBytesAtLeast(FIND_CLUS_SHARED_BYTES), specializes: { generic: 'findClus', labels: [{ param: 'clusterId', groupBy: 'id' }] } });
/** clusterChargeCut on the store's columns: one block per module. */
export const clusterChargeCut = defineKernel('clusterChargeCut', {
  id: 'u16[]', adc: 'u16[]', moduleStart: 'u32[]', nClustersInModule: 'u32[]', clusterId: 'i32[]', numElements: 'i32',
  layer1Threshold: 'i32', otherThreshold: 'i32',
}, { requires: sharedBytesAtLeast(CHARGE_CUT_SHARED_BYTES), specializes: { generic: 'clusterChargeCut' } });
