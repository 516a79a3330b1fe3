// Device-wide exclusive scan of u32 (assembly/primitives/deviceScan.ts): per-tile scans, the
// tile totals scanned recursively, then the offsets added back.
import type { GpuDevice, LaunchStats } from '../deviceApi.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import { blockScanSharedBytes, scanAddOffsetsU32, scanBlocksU32 } from '../kernels/primitives.js';

export const SCAN_BLOCK = 256;
export const SCAN_ITEMS = 8;

/**
 * output[i] = input[0] + … + input[i-1] (wrapping u32) for i < n. `output` may be `input`.
 * Launches: 2 per level plus one per level of the recursion (levels = ⌈log₂₀₄₈ n⌉).
 */
export async function deviceExclusiveScan(device: GpuDevice, input: DeviceArray<'u32'>, output: DeviceArray<'u32'>, n = input.length, seed?: number): Promise<LaunchStats[]> {
  if (!Number.isInteger(n) || n < 0 || n > input.length || n > output.length) {
    throw new RangeError(`deviceExclusiveScan: n = ${n} must be an integer in [0, ${Math.min(input.length, output.length)}]`);
  }
  const stats: LaunchStats[] = [];
  if (n === 0) return stats;
  const perBlock = SCAN_BLOCK * SCAN_ITEMS;
  const grid = Math.ceil(n / perBlock);
  const sums = device.alloc('u32', grid);
  try {
    stats.push(await device.launch(scanBlocksU32, { grid, block: SCAN_BLOCK, sharedBytes: blockScanSharedBytes(SCAN_BLOCK), seed },
      [input, output, sums, n, SCAN_ITEMS]));
    if (grid > 1) {
      stats.push(...await deviceExclusiveScan(device, sums, sums, grid, seed));
      stats.push(await device.launch(scanAddOffsetsU32, { grid, block: SCAN_BLOCK, seed }, [output, sums, n, SCAN_ITEMS]));
    }
  } finally {
    sums.free();
  }
  return stats;
}
