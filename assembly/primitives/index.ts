// Kernels built on the block/warp primitives: re-exported by assembly/index.ts. The
// primitives themselves (warpScan.ts, blockScan.ts, compaction.ts) are imported by kernels.
export {
  blockScanProbe, warpScanProbe, intraWarpScanUnsynced, compactNonZeroU32,
} from "./kernels";
