// pixel kernels (seeds 000, 003, CMSSW gpuClustering.h): re-exported by assembly/index.ts.
export { pixelCountModules, pixelFindClus, pixelClusterChargeCut, findClus, clusterChargeCut } from "./clustering";
