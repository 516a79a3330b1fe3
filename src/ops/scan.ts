// simt's device-wide exclusive scan of u32, reduce-then-scan (kernels/primitives/scan.ts): the
// tiles' sums, one block scanning them, then each tile scanned from its offset. The STS sorts,
// the natural merge sort's run compaction and the PET pair table all use it.
import type { GpuDevice, LaunchStats } from '../deviceApi.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import { readElement } from '../memory/hostAccess.js';
import { shippedKernels } from '../shippedModule.js';

export interface ScanShape {
  /** Threads per block (default 256, capped by the device). */
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
 * input and output may be the same array. Resolves with the total Σ input (mod 2³²); each
 * launch's stats are appended to `launches`; `seed` is the launches' schedule seed (serial).
 */
export async function exclusiveScan(
  device: GpuDevice, input: DeviceArray<'u32'>, output: DeviceArray<'u32'>, n: number,
  shape: Partial<ScanShape> = {}, launches: LaunchStats[] = [], seed?: number,
): Promise<number> {
  if (!Number.isInteger(n) || n < 0 || n > input.length || n > output.length) {
    throw new RangeError(`exclusive scan: n = ${n} must be an integer in [0, ${Math.min(input.length, output.length)}]`);
  }
  const { block: wanted, itemsPerThread } = { ...DEFAULT_SCAN_SHAPE, ...shape };
  // The default block is capped by the device (WebGPU adapters allow 256 invocations or fewer).
  const block = shape.block === undefined ? Math.min(wanted, device.maxThreadsPerBlock) : wanted;
  if (n === 0) return 0;
  const k = await shippedKernels(device);
  const shared = 4 * block;
  const total = device.alloc('u32', 1);
  try {
    if (input === output && n <= SINGLE_LAUNCH_SCAN_MAX && shape.block === undefined && shape.itemsPerThread === undefined) {
      launches.push(await device.launch(k.scanSingle!, { grid: 1, block, sharedBytes: shared, seed }, [input, n, total]));
      return await readElement(total, 0);
    }
    const tiles = Math.ceil(n / (block * itemsPerThread));
    const sums = device.alloc('u32', tiles);
    try {
      launches.push(await device.launch(k.scanTileSums!, { grid: tiles, block, sharedBytes: shared, seed }, [input, sums, n, itemsPerThread]));
      launches.push(await device.launch(k.scanSingle!, { grid: 1, block, sharedBytes: shared, seed }, [sums, tiles, total]));
      // In place on WebGPU too: the runtime snapshots a read-only binding that aliases a writable one.
      launches.push(await device.launch(k.scanTileApply!, { grid: tiles, block, sharedBytes: shared, seed }, [input, output, sums, n, itemsPerThread]));
    } finally {
      sums.free();
    }
    return await readElement(total, 0);
  } finally {
    total.free();
  }
}

/**
 * output[i] = input[0] + … + input[i-1] (wrapping u32) for i < n. `output` may be `input`.
 * Resolves with the launches' stats (`exclusiveScan` also gives the total).
 */
export async function deviceExclusiveScan(device: GpuDevice, input: DeviceArray<'u32'>, output: DeviceArray<'u32'>, n = input.length, seed?: number): Promise<LaunchStats[]> {
  const stats: LaunchStats[] = [];
  await exclusiveScan(device, input, output, n, {}, stats, seed);
  return stats;
}
