// Host side of CMS pixel clustering on the device: the SiPixelDigisCUDASOAView store (seed 003)
// in one device allocation, countModules (seed 000), findClus and clusterChargeCut
// (CMSSW gpuClustering.h / gpuClusterChargeCut.h).
import type { GpuDevice, LaunchStats } from '../../deviceApi.js';
import type { DeviceArray } from '../../memory/deviceArray.js';
import {
  CHARGE_CUT_SHARED_BYTES, FIND_CLUS_SHARED_BYTES, pixelClusterChargeCut, pixelCountModules, pixelFindClus,
} from '../../kernels/pixel.js';
import { gridStrideShape } from '../../ops/launchShape.js';
import {
  CHARGE_THRESHOLD_LAYER1, CHARGE_THRESHOLD_OTHER, MAX_NUM_MODULES, PixelInputError,
} from './constants.js';
import { packSoaInto, soaLayout, unpackSoa, type PixelDigisSoa, type SoaLayout } from './soa.js';
import { readElement, uploadWith } from '../../memory/hostAccess.js';

/** The digi store on a device: one u8 allocation laid out as SiPixelDigisCUDASOAView. */
export interface DevicePixelStore {
  bytes: DeviceArray<'u8'>;
  layout: SoaLayout;
  /** Digis in the store (≤ maxFedWords). */
  n: number;
}

/** Columns a caller must give; the others default to zero. */
export type PixelColumnsIn = Pick<PixelDigisSoa, 'moduleInd' | 'xx' | 'yy' | 'adc'> & Partial<PixelDigisSoa>;

/** Uploads columns (packed as the seed lays them out) or a raw store dump (`bytes`, `maxFedWords`). */
export async function uploadPixelStore(
  device: GpuDevice, digis: PixelColumnsIn | { bytes: Uint8Array; maxFedWords: number; n?: number }, maxFedWords?: number,
): Promise<DevicePixelStore> {
  if ('bytes' in digis) {
    const layout = soaLayout(digis.maxFedWords);
    if (digis.bytes.length !== layout.totalBytes) {
      throw new PixelInputError(`store has ${digis.bytes.length} bytes, maxFedWords = ${digis.maxFedWords} needs ${layout.totalBytes}`);
    }
    const n = digis.n ?? digis.maxFedWords;
    if (!Number.isSafeInteger(n) || n < 0 || n > digis.maxFedWords) throw new PixelInputError(`n must be in [0, maxFedWords], got ${n}`);
    return { bytes: await device.upload('u8', digis.bytes), layout, n };
  }
  const n = digis.moduleInd.length;
  for (const c of ['xx', 'yy', 'adc'] as const) {
    if (digis[c].length !== n) throw new PixelInputError(`column ${c} has ${digis[c].length} digis, moduleInd has ${n}`);
  }
  const cols: PixelDigisSoa = {
    clus: digis.clus ?? new Int32Array(n), pdigi: digis.pdigi ?? new Uint32Array(n), rawIdArr: digis.rawIdArr ?? new Uint32Array(n),
    adc: digis.adc, xx: digis.xx, yy: digis.yy, moduleInd: digis.moduleInd,
  };
  const layout = soaLayout(maxFedWords ?? n);
  // Packed straight into the device array on host-mapped devices: no host-side store.
  const bytes = await uploadWith(device, 'u8', layout.totalBytes, (v) => packSoaInto(cols, v, maxFedWords ?? n));
  return { bytes, layout, n };
}

/** Reads the whole store back (a byte-for-byte image, as a CUDA dump) and its columns. */
export async function readPixelStore(store: DevicePixelStore): Promise<{ bytes: Uint8Array; columns: PixelDigisSoa }> {
  const bytes = await store.bytes.read();
  return { bytes, columns: unpackSoa(bytes, store.layout.maxFedWords, store.n) };
}

export interface PixelClusteringOptions {
  /** countModules' nMaxModules (default MAX_NUM_MODULES - 1 = 3999; larger for concatenated events). */
  nMaxModules?: number;
  /** Run clusterChargeCut after findClus (default true). */
  chargeCut?: boolean;
  layer1Threshold?: number;
  otherThreshold?: number;
  /** Threads per block of findClus / chargeCut (default 256; blockDim·16 ≥ 4000 as CMSSW asserts). */
  block?: number;
  /** Schedule seed of the launches (serial backend). */
  seed?: number;
  /**
   * pixelClustering only. 'host' (default): `clusterId`, `id` and `storeBytes` are host copies.
   * 'mapped': they are views of the device store (no copy; see DeviceArray.view), kept until
   * `result.free()` or the device is destroyed; copies all the same on webgpu.
   */
  output?: 'host' | 'mapped';
}

export interface PixelClusteringResult {
  /** moduleStart[0]: modules found. */
  nModules: number;
  /** moduleStart[1 .. 1 + nModules] in the order threads won atomicInc (schedule dependent). */
  moduleStarts: Uint32Array;
  /** nClustersInModule, indexed by module id (MAX_NUM_MODULES entries, or nMaxModules + 1 if larger). */
  nClustersInModule: Uint32Array;
  /** moduleId[block]: the module block k handled (order follows moduleStarts). */
  moduleId: Uint32Array;
  launches: LaunchStats[];
  /** Wall time of the kernels and the small reads between them, ms. */
  ms: number;
}

/** Runs countModules → findClus → clusterChargeCut on a device store (the clus and moduleInd columns change). */
export async function clusterPixelStore(device: GpuDevice, store: DevicePixelStore, options: PixelClusteringOptions = {}): Promise<PixelClusteringResult> {
  const nMax = options.nMaxModules ?? MAX_NUM_MODULES - 1;
  if (!Number.isInteger(nMax) || nMax < 1 || nMax >= 2 ** 31) throw new PixelInputError(`nMaxModules must be an integer in [1, 2^31), got ${nMax}`);
  const block = options.block ?? 256;
  if (!Number.isInteger(block) || block < 250 || block > 1024) throw new PixelInputError(`block must be in [250, 1024] (blockDim·16 ≥ maxPixInModule), got ${block}`);
  const { n } = store;
  const stride = store.layout.stride;
  const launches: LaunchStats[] = [];
  const nModuleIds = Math.max(MAX_NUM_MODULES, nMax + 1);
  const moduleStart = device.alloc('u32', nMax + 2);
  const nClusters = device.alloc('u32', nModuleIds);
  let moduleId: DeviceArray<'u32'> | undefined;
  const t0 = performance.now();
  try {
    await moduleStart.fill(0);
    await nClusters.fill(0);
    const seed = options.seed;
    launches.push(await device.launch(pixelCountModules, { ...gridStrideShape(device, n), seed }, [store.bytes, stride, moduleStart, n, nMax]));
    const nModules = await readElement(moduleStart, 0);
    const nStarts = Math.min(nModules, nMax + 1);
    moduleId = device.alloc('u32', Math.max(1, nStarts));
    if (nModules > 0) {
      const grid = nStarts;
      launches.push(await device.launch(pixelFindClus, { grid, block, sharedBytes: FIND_CLUS_SHARED_BYTES, seed },
        [store.bytes, stride, moduleStart, nClusters, moduleId, n]));
      if (options.chargeCut ?? true) {
        launches.push(await device.launch(pixelClusterChargeCut, { grid, block, sharedBytes: CHARGE_CUT_SHARED_BYTES, seed },
          [store.bytes, stride, moduleStart, nClusters, n, options.layer1Threshold ?? CHARGE_THRESHOLD_LAYER1, options.otherThreshold ?? CHARGE_THRESHOLD_OTHER]));
      }
    }
    const ms = performance.now() - t0;
    return {
      nModules,
      moduleStarts: nStarts > 0 ? await moduleStart.read(1, 1 + nStarts) : new Uint32Array(0),
      nClustersInModule: await nClusters.read(),
      moduleId: nStarts > 0 ? await moduleId.read(0, nStarts) : new Uint32Array(0),
      launches,
      ms,
    };
  } finally {
    moduleStart.free();
    nClusters.free();
    moduleId?.free();
  }
}

export interface PixelRunResult extends PixelClusteringResult {
  /** Per digi: cluster id after the kernels (−9999: invalid digi in a module range; 65534: dropped by the charge cut). */
  clusterId: Int32Array;
  /** Module id per digi after the kernels (the charge cut invalidates dropped digis). */
  id: Uint16Array;
  /** The store's bytes after the kernels (a CUDA dump of the same store compares byte for byte). */
  storeBytes: Uint8Array;
  /** True when the arrays above are views of the device store (`output: 'mapped'` on a host-mapped device). */
  mapped: boolean;
  /** Frees the device store a mapped result's views show (their contents are then undefined); a no-op otherwise. */
  free(): void;
}

/** Uploads an event, clusters it and reads everything back. */
export async function pixelClustering(
  device: GpuDevice, digis: PixelColumnsIn | { bytes: Uint8Array; maxFedWords: number; n?: number }, options: PixelClusteringOptions = {},
): Promise<PixelRunResult> {
  const store = await uploadPixelStore(device, digis);
  let keep = false;
  try {
    const r = await clusterPixelStore(device, store, options);
    if (options.output === 'mapped' && device.hostMapped) {
      // The columns are aligned sub-ranges of the store, little-endian like every host wasm runs
      // on: typed views of them need no copy either.
      const bytes = store.bytes.view();
      const at = (c: 'clus' | 'moduleInd') => bytes.byteOffset + store.layout.offsets[c];
      keep = true;
      return {
        ...r, storeBytes: bytes, mapped: true,
        clusterId: new Int32Array(bytes.buffer, at('clus'), store.n),
        id: new Uint16Array(bytes.buffer, at('moduleInd'), store.n),
        free: () => { if (!store.bytes.freed) store.bytes.free(); },
      };
    }
    const { bytes, columns } = await readPixelStore(store);
    return { ...r, clusterId: columns.clus, id: columns.moduleInd, storeBytes: bytes, mapped: false, free: () => undefined };
  } finally {
    if (!keep) store.bytes.free();
  }
}
