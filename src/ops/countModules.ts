// Host helper for CMS pixel countModules (seed 000).
import type { GpuDevice, LaunchStats } from '../deviceApi.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import { countModules as countModulesKernel } from '../kernels/index.js';
import { gridStrideShape, type Shape } from './launchShape.js';

/** CMS's invalid module id: digis with it are skipped. */
export const invalidModuleId = 65534;
/** phase1PixelTopology::numberOfModules. */
export const PHASE1_MAX_MODULES = 1856;
/** phase2PixelTopology::numberOfModules, as seed 000 states it. */
export const PHASE2_MAX_MODULES = 3892;

export interface CountModulesOptions {
  /** nMaxModules: 1856 (phase 1, default), 3892 (phase 2), or any value. */
  nMaxModules?: number;
  phase?: 1 | 2;
  shape?: Partial<Shape>;
  /** Schedule seed (serial backend). */
  seed?: number;
  /**
   * 'host' (default): `clusterId` is a host copy. 'mapped': it is a view of the device array
   * (no copy; see DeviceArray.view), kept until `result.free()` or the device is destroyed; a
   * copy all the same on a device without host mapping (webgpu).
   */
  output?: 'host' | 'mapped';
}

export interface CountModulesResult {
  /** moduleStart[0] after the kernel: the number of boundaries, wrapped by atomicInc at nMaxModules as CUDA does. */
  count: number;
  /** moduleStart[1 .. 1 + min(count', nMaxModules + 1)] in the order threads reached atomicInc (schedule dependent). */
  moduleStartRaw: Uint32Array;
  /** The same, sorted ascending: schedule independent when there was no wrap. */
  moduleStartSorted: Uint32Array;
  /** The whole moduleStart array (nMaxModules + 2 words). */
  moduleStart: Uint32Array;
  /** clusterId[i] = i for every digi (the findClus initialisation). */
  clusterId: Int32Array;
  stats: LaunchStats;
  /** True when `clusterId` is a view of device memory (`output: 'mapped'` on a host-mapped device). */
  mapped: boolean;
  /** Frees the device array a mapped `clusterId` shows (its contents are then undefined); a no-op otherwise. */
  free(): void;
}

/**
 * Runs countModules over `ids` (module id per digi). moduleStart holds nMaxModules + 2 words:
 * atomicInc returns at most nMaxModules, and the kernel writes moduleStart[loc + 1].
 * When there are more boundaries than nMaxModules + 1 the counter wraps to 0 and later
 * boundaries overwrite earlier slots — exactly what CUDA does.
 */
export async function countModules(device: GpuDevice, ids: Uint16Array | DeviceArray<'u16'>, options: CountModulesOptions = {}): Promise<CountModulesResult> {
  const nMax = options.nMaxModules ?? (options.phase === 2 ? PHASE2_MAX_MODULES : PHASE1_MAX_MODULES);
  if (!Number.isInteger(nMax) || nMax < 0 || nMax >= 2 ** 31) throw new RangeError(`nMaxModules must be an integer in [0, 2^31), got ${nMax}`);
  const owned = ids instanceof Uint16Array;
  const id = owned ? await device.upload('u16', ids) : ids;
  const n = id.length;
  const mapped = options.output === 'mapped' && device.hostMapped;
  let keepClusterId = false;
  let moduleStart: DeviceArray<'u32'> | undefined;
  let clusterId: DeviceArray<'i32'> | undefined;
  try {
    moduleStart = device.alloc('u32', nMax + 2);
    clusterId = device.alloc('i32', n);
    await moduleStart.fill(0);
    const s = { ...gridStrideShape(device, n), ...options.shape };
    const stats = await device.launch(countModulesKernel, { grid: s.grid, block: s.block, seed: options.seed },
      [id, moduleStart, clusterId, n, nMax]);
    const ms = await moduleStart.read();
    const count = ms[0]!;
    const raw = ms.slice(1, 1 + Math.min(count, nMax + 1));
    const cid = clusterId;
    keepClusterId = mapped;
    return {
      count, moduleStartRaw: raw, moduleStartSorted: raw.slice().sort(), moduleStart: ms,
      clusterId: mapped ? cid.view() : await cid.read(), stats, mapped,
      free: () => { if (mapped && !cid.freed) cid.free(); },
    };
  } finally {
    moduleStart?.free();
    if (!keepClusterId) clusterId?.free();
    if (owned) id.free();
  }
}
