import { SimtError } from '../../errors.js';

/** Phase-1 CMS pixel constants used by countModules / findClus / clusterChargeCut. */

/** invalidModuleId = std::numeric_limits<uint16_t>::max() - 1. */
export const INVALID_MODULE_ID = 65534;
/** invalidClusterId, written by findClus to invalid digis inside a module's range. */
export const INVALID_CLUSTER_ID = -9999;
/** phase1PixelTopology::numberOfModules. */
export const PHASE1_NUM_MODULES = 1856;
/** maxNumModules: size of nClustersInModule. */
export const MAX_NUM_MODULES = 4000;
/** First module of barrel layer 2; modules below it are layer 1. */
export const START_BPIX2 = 96;
/** maxPixInModule (4000 in CMSSW 12; later releases raised it to 6000). */
export const MAX_PIX_IN_MODULE = 4000;
/** maxNumClustersPerModules (Phase 1). */
export const MAX_NUM_CLUSTERS_PER_MODULE = 1024;
/** Module size in pixels: x (row) < 160, y (column) < 416. */
export const NUM_ROWS_IN_MODULE = 160;
export const NUM_COLS_IN_MODULE = 416;
/** Charge-cut thresholds (electrons): cluster kept iff total adc > threshold. */
export const CHARGE_THRESHOLD_LAYER1 = 2000;
export const CHARGE_THRESHOLD_OTHER = 4000;

/** Pixel input that the kernels cannot run on (a data error: the CLI exits 1 with one line). */
export class PixelInputError extends SimtError {}
