// Host side of the device-wide exclusive scan (assembly/kernels/sts/scan.ts): three launches,
// reduce-then-scan. Used by the STS counting sorts and the natural merge sort.
import type { GpuDevice, LaunchStats } from '../../deviceApi.js';
import type { DeviceArray } from '../../memory/deviceArray.js';
import { scanSingle, scanTileApply, scanTileSums } from '../../kernels/sts.js';
import { readElement } from '../../memory/hostAccess.js';

export interface ScanShape {
  /** Threads per block (default 256). */
  block: number;
  /** Items each thread scans (default 16): a block's tile is block·items. */
  itemsPerThread: number;
}

export const DEFAULT_SCAN_SHAPE: ScanShape = { block: 256, itemsPerThread: 16 };

/**
 * In-place scans of at most this many items (default shape) run as one single-block launch
 * (scanSingle) instead of three: below it the two extra launches and their barriers cost more
 * than the parallel passes save. Measured on 2 workers (bench/RESULTS.md, issue #16): one launch
 * is faster at every size up to 1M (0.24 vs 0.64 ms at 100k, 1.0 vs 1.9 ms at 1M); the bound
 * stays at 128k so that hosts with many workers, where the parallel passes pay sooner, keep them.
 */
export const SINGLE_LAUNCH_SCAN_MAX = 1 << 17;

/**
 * output[0..n) ← exclusive prefix sum of input[0..n) (u32, wrapping as CUDA's unsigned adds);
 * input and output may be the same array. Resolves with the total Σ input (mod 2³²) and the
 * launches' stats.
 */
export async function exclusiveScan(
  device: GpuDevice, input: DeviceArray<'u32'>, output: DeviceArray<'u32'>, n: number,
  shape: Partial<ScanShape> = {}, launches: LaunchStats[] = [],
): Promise<number> {
  const { block: wanted, itemsPerThread } = { ...DEFAULT_SCAN_SHAPE, ...shape };
  // The default block is capped by the device (WebGPU adapters allow 256 invocations or fewer).
  const block = shape.block === undefined ? Math.min(wanted, device.maxThreadsPerBlock) : wanted;
  if (n > input.length || n > output.length) throw new RangeError(`scan of ${n} items over arrays of ${input.length} / ${output.length}`);
  if (n === 0) return 0;
  if (input === output && n <= SINGLE_LAUNCH_SCAN_MAX && shape.block === undefined && shape.itemsPerThread === undefined) {
    const total = device.alloc('u32', 1);
    try {
      launches.push(await device.launch(scanSingle, { grid: 1, block, sharedBytes: 4 * block }, [input, n, total]));
      return await readElement(total, 0);
    } finally {
      total.free();
    }
  }
  const tile = block * itemsPerThread;
  const tiles = Math.ceil(n / tile);
  const sums = device.alloc('u32', tiles);
  const total = device.alloc('u32', 1);
  try {
    const shared = 4 * block;
    launches.push(await device.launch(scanTileSums, { grid: tiles, block, sharedBytes: shared }, [input, sums, n, itemsPerThread]));
    launches.push(await device.launch(scanSingle, { grid: 1, block, sharedBytes: shared }, [sums, tiles, total]));
    // In place on WebGPU too: the runtime snapshots a read-only binding that aliases a writable one.
    launches.push(await device.launch(scanTileApply, { grid: tiles, block, sharedBytes: shared }, [input, output, sums, n, itemsPerThread]));
    return await readElement(total, 0);
  } finally {
    sums.free();
    total.free();
  }
}
