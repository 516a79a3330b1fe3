// The kernels index by a digi's module id (nClustersInModule[id]) and by its column (findClus'
// histogram has 416 + 2 bins), and take no bounds checks (built-in kernels): an id or a pixel
// coordinate outside the module is a write into another array, or a trap far from its cause.
// So input from a file is checked before it reaches the device, and the first bad digi named.

import { INVALID_MODULE_ID, MAX_NUM_MODULES, NUM_COLS_IN_MODULE, NUM_ROWS_IN_MODULE, PixelInputError } from './constants.js';

/**
 * Throws PixelInputError naming the first digi (of the first n) whose module id is neither
 * below MAX_NUM_MODULES (4000) nor INVALID_MODULE_ID (65534), or whose valid module has it
 * outside the module's 160 × 416 pixels. `where` prefixes the message (a file name).
 */
export function checkPixelDigis(
  cols: { moduleInd: Uint16Array; xx: Uint16Array; yy: Uint16Array }, n: number, where: string, nModules = MAX_NUM_MODULES,
): void {
  const { moduleInd: id, xx, yy } = cols;
  for (let i = 0; i < n; i++) {
    const m = id[i]!;
    if (m === INVALID_MODULE_ID) continue;
    if (m >= nModules) {
      throw new PixelInputError(`${where}: digi ${i} has module id ${m}; ids are below ${nModules}, or ${INVALID_MODULE_ID} for an invalid digi`);
    }
    if (xx[i]! >= NUM_ROWS_IN_MODULE || yy[i]! >= NUM_COLS_IN_MODULE) {
      throw new PixelInputError(`${where}: digi ${i} (module ${m}) is at pixel (${xx[i]}, ${yy[i]}), outside the module's ` +
        `${NUM_ROWS_IN_MODULE} × ${NUM_COLS_IN_MODULE} pixels`);
    }
  }
}
