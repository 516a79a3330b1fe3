/**
 * Plain reference implementations of the CMS pixel kernels countModules (seed 000), findClus and
 * clusterChargeCut (CMSSW gpuClustering.h / gpuClusterChargeCut.h), run sequentially.
 *
 * Schedule dependence in the GPU kernels, and how the reference pins it down:
 * - countModules writes module starts into moduleStart[1..] in the order threads win atomicInc;
 *   the reference gives the sorted starts (and the array a sequential index-order run leaves).
 * - findClus numbers the clusters of a module by atomicInc over the cluster roots (the pixel with
 *   the smallest index of each cluster), in schedule order. The reference numbers them by root
 *   index ("canonical" numbering, = a one-thread run); canonicalizeClusterIds maps any valid GPU
 *   numbering to it and sameClusterPartition compares two numberings.
 * - moduleId[block] follows the order of moduleStart, so it is schedule dependent too; pass the
 *   GPU's moduleStart to reproduce it.
 */
import {
  CHARGE_THRESHOLD_LAYER1,
  CHARGE_THRESHOLD_OTHER,
  INVALID_CLUSTER_ID,
  INVALID_MODULE_ID,
  MAX_NUM_CLUSTERS_PER_MODULE,
  MAX_NUM_MODULES,
  MAX_PIX_IN_MODULE,
  NUM_COLS_IN_MODULE,
  NUM_ROWS_IN_MODULE,
  PixelInputError,
  START_BPIX2,
} from './constants.js';

export * from './constants.js';

export interface CountModulesResult {
  /** Final moduleStart[0]: number of boundaries modulo (nMaxModules + 1) (atomicInc wrap). */
  count: number;
  /** Number of module boundaries found (before wrap). */
  boundaries: number;
  /** True when the counter wrapped (boundaries > nMaxModules). */
  wrapped: boolean;
  /** All boundary digi indices, ascending (= GPU moduleStart[1..count] sorted, when not wrapped). */
  sortedStarts: Uint32Array;
  /**
   * moduleStart (length nMaxModules + 2) as left by one thread visiting digis in index order;
   * entries past the written ones are 0. Under wrap the GPU contents are schedule dependent.
   */
  moduleStart: Uint32Array;
  /** clusterId[i] = i. */
  clusterIdInit: Int32Array;
}

/** CUDA atomicInc: stores ((old >= val) ? 0 : old + 1) and returns old. */
export function atomicIncValue(old: number, val: number): number {
  return old >= val ? 0 : old + 1;
}

function checkIds(ids: Uint16Array): void {
  if (!(ids instanceof Uint16Array)) throw new PixelInputError('module ids must be a Uint16Array');
}

/**
 * countModules: digi i starts a module iff it is valid and the closest valid digi before it does
 * not exist or has another module id. moduleStart[0] starts at `initialCount` (0 after the
 * memset CMSSW does before the kernel).
 */
export function countModulesReference(ids: Uint16Array, nMaxModules: number, initialCount = 0): CountModulesResult {
  checkIds(ids);
  if (!Number.isInteger(nMaxModules) || nMaxModules < 0 || nMaxModules > 0xfffffffe) {
    throw new PixelInputError(`nMaxModules must be an integer in [0, 2^32 - 2], got ${nMaxModules}`);
  }
  const n = ids.length;
  const clusterIdInit = new Int32Array(n);
  const moduleStart = new Uint32Array(nMaxModules + 2);
  moduleStart[0] = initialCount;
  const starts: number[] = [];
  let prevValid = -1;
  for (let i = 0; i < n; i++) {
    clusterIdInit[i] = i;
    if (ids[i] === INVALID_MODULE_ID) continue;
    if (prevValid < 0 || ids[prevValid] !== ids[i]) {
      starts.push(i);
      const loc = moduleStart[0]!;
      moduleStart[0] = atomicIncValue(loc, nMaxModules);
      moduleStart[loc + 1] = i;
    }
    prevValid = i;
  }
  return {
    count: moduleStart[0]!,
    boundaries: starts.length,
    wrapped: starts.length > nMaxModules - initialCount,
    sortedStarts: Uint32Array.from(starts),
    moduleStart,
    clusterIdInit,
  };
}

export interface FindClusInput {
  id: Uint16Array;
  x: Uint16Array;
  y: Uint16Array;
}

export interface FindClusOptions {
  /**
   * Module starts in block order (moduleStart[1..count]); default: the sorted starts from
   * countModulesReference. Give the GPU's array to reproduce its moduleId[] order.
   */
  moduleStarts?: Uint32Array;
  /** clusterId before the kernel (default i, from countModules). */
  clusterIdInit?: Int32Array;
  /**
   * Duplicate pixels (same x, y twice in a module): 'merge' (default) treats them as neighbours
   * (CMSSW before the pixelStatus pass); 'invalidate' does what newer CMSSW does: every copy in
   * [firstPixel, msize - 1) whose (x, y) occurs at least twice there gets id = invalid — the last
   * digi of the range is neither counted nor invalidated (the kernel loops to msize - 1).
   */
  duplicates?: 'merge' | 'invalidate';
  /** maxPixInModule (default 4000). A larger module range throws PixelInputError. */
  maxPixInModule?: number;
}

export interface FindClusResult {
  /** Per digi: cluster number in its module, -9999 for invalid digis in a module range, init value elsewhere. */
  clusterId: Int32Array;
  /** Module ids after the kernel (duplicates may have been invalidated). */
  id: Uint16Array;
  /** Indexed by module id (length MAX_NUM_MODULES). */
  nClustersInModule: Uint32Array;
  /** moduleId[block] = id of the module that block k handled. */
  moduleId: Uint32Array;
  /** The module starts used, in block order. */
  moduleStarts: Uint32Array;
  /** Per block: end of the module range (msize). */
  moduleEnds: Uint32Array;
}

/**
 * findClus. For each block k: firstPixel = starts[k], thisModuleId = id[firstPixel];
 * msize = first index >= firstPixel whose id is valid and != thisModuleId (or n). Inside
 * [firstPixel, msize) valid digis adjacent with |dx| <= 1 and |dy| <= 1 are connected; each
 * connected set is a cluster numbered by the order of its smallest digi index. Invalid digis in
 * the range get -9999. Digis in no module range (invalid digis before the first valid one) keep
 * the initial value — as in CMSSW, where nothing overwrites them.
 * Throws PixelInputError when a range exceeds maxPixInModule (CMSSW truncates it and leaves the
 * rest unclustered), or a valid digi lies outside 160 x 416.
 */
export function findClusReference(input: FindClusInput, options: FindClusOptions = {}): FindClusResult {
  const n = input.id.length;
  checkIds(input.id);
  if (input.x.length !== n || input.y.length !== n) {
    throw new PixelInputError(`id (${n}), x (${input.x.length}) and y (${input.y.length}) differ in length`);
  }
  const id = Uint16Array.from(input.id);
  const { x, y } = input;
  const starts = options.moduleStarts ?? countModulesReference(id, MAX_NUM_MODULES - 1).sortedStarts;
  const clusterId = options.clusterIdInit ? Int32Array.from(options.clusterIdInit) : Int32Array.from({ length: n }, (_, i) => i);
  if (clusterId.length !== n) throw new PixelInputError(`clusterIdInit has ${clusterId.length} entries, expected ${n}`);
  const maxPix = options.maxPixInModule ?? MAX_PIX_IN_MODULE;
  const dup = options.duplicates ?? 'merge';
  const nClustersInModule = new Uint32Array(MAX_NUM_MODULES);
  const moduleId = new Uint32Array(starts.length);
  const moduleEnds = new Uint32Array(starts.length);
  for (let k = 0; k < starts.length; k++) {
    const first = starts[k]!;
    if (first >= n) throw new PixelInputError(`module start ${first} (block ${k}) is outside the ${n} digis`);
    const thisModuleId = id[first]!;
    if (thisModuleId === INVALID_MODULE_ID || thisModuleId >= MAX_NUM_MODULES) {
      throw new PixelInputError(`block ${k}: digi ${first} has module id ${thisModuleId}, not a valid module start`);
    }
    let msize = n;
    for (let i = first; i < n; i++) {
      if (id[i] !== INVALID_MODULE_ID && id[i] !== thisModuleId) {
        msize = i;
        break;
      }
    }
    if (msize - first > maxPix) {
      throw new PixelInputError(`module ${thisModuleId}: ${msize - first} digis in its range exceed maxPixInModule ${maxPix} (CMSSW would truncate)`);
    }
    if (dup === 'invalidate' && msize > 1) {
      const seen = new Map<number, number>();
      for (let i = first; i < msize - 1; i++) {
        if (id[i] === INVALID_MODULE_ID) continue;
        const key = x[i]! * 65536 + y[i]!;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      for (let i = first; i < msize - 1; i++) {
        if (id[i] === INVALID_MODULE_ID) continue;
        if (seen.get(x[i]! * 65536 + y[i]!)! >= 2) id[i] = INVALID_MODULE_ID;
      }
    }
    // Union-find over the valid digis of the range, union by smaller index.
    const members: number[] = [];
    for (let i = first; i < msize; i++) {
      if (id[i] === INVALID_MODULE_ID) continue;
      if (x[i]! >= NUM_ROWS_IN_MODULE || y[i]! >= NUM_COLS_IN_MODULE) {
        throw new PixelInputError(`digi ${i} (module ${thisModuleId}) at (${x[i]}, ${y[i]}) is outside the ${NUM_ROWS_IN_MODULE} x ${NUM_COLS_IN_MODULE} module`);
      }
      members.push(i);
    }
    const parent = new Map<number, number>();
    for (const i of members) parent.set(i, i);
    const find = (a: number): number => {
      let r = a;
      while (parent.get(r)! !== r) r = parent.get(r)!;
      parent.set(a, r);
      return r;
    };
    for (let p = 0; p < members.length; p++) {
      for (let q = p + 1; q < members.length; q++) {
        const a = members[p]!;
        const b = members[q]!;
        if (Math.abs(x[a]! - x[b]!) <= 1 && Math.abs(y[a]! - y[b]!) <= 1) {
          const ra = find(a);
          const rb = find(b);
          if (ra !== rb) parent.set(Math.max(ra, rb), Math.min(ra, rb));
        }
      }
    }
    const number = new Map<number, number>();
    for (const i of members) {
      const r = find(i); // the smallest index of the cluster
      if (!number.has(r)) number.set(r, number.size); // members ascend, so roots are met in index order
      clusterId[i] = number.get(r)!;
    }
    for (let i = first; i < msize; i++) if (id[i] === INVALID_MODULE_ID) clusterId[i] = INVALID_CLUSTER_ID;
    nClustersInModule[thisModuleId] = number.size;
    moduleId[k] = thisModuleId;
    moduleEnds[k] = msize;
  }
  return { clusterId, id, nClustersInModule, moduleId, moduleStarts: Uint32Array.from(starts), moduleEnds };
}

export interface ChargeCutInput {
  id: Uint16Array;
  adc: Uint16Array;
  clusterId: Int32Array;
  nClustersInModule: Uint32Array;
  moduleStarts: Uint32Array;
}

export interface ChargeCutOptions {
  layer1Threshold?: number;
  otherThreshold?: number;
}

export interface ChargeCutResult {
  clusterId: Int32Array;
  id: Uint16Array;
  nClustersInModule: Uint32Array;
  /** Total adc of each cluster before the cut, per block (index = cluster number before the cut). */
  charges: Int32Array[];
}

/**
 * clusterChargeCut. Per block: nclus = nClustersInModule[module]; if nclus > 1024 the digis of
 * clusters >= 1024 are removed (id and clusterId := 65534) and nclus = 1024. A cluster is kept
 * iff its total adc > threshold (2000 for modules < 96, else 4000). If all are kept nothing
 * changes; otherwise kept clusters are renumbered in order (inclusive prefix sum of "kept" - 1),
 * nClustersInModule is updated, and the digis of dropped clusters get clusterId = 65534 and
 * id = 65534 (invalidModuleId) — CMSSW's values, not -9999.
 */
export function clusterChargeCutReference(input: ChargeCutInput, options: ChargeCutOptions = {}): ChargeCutResult {
  const n = input.id.length;
  if (input.adc.length !== n || input.clusterId.length !== n) {
    throw new PixelInputError(`id (${n}), adc (${input.adc.length}) and clusterId (${input.clusterId.length}) differ in length`);
  }
  const t1 = options.layer1Threshold ?? CHARGE_THRESHOLD_LAYER1;
  const t2 = options.otherThreshold ?? CHARGE_THRESHOLD_OTHER;
  const id = Uint16Array.from(input.id);
  const clusterId = Int32Array.from(input.clusterId);
  const nClustersInModule = Uint32Array.from(input.nClustersInModule);
  const charges: Int32Array[] = [];
  for (let k = 0; k < input.moduleStarts.length; k++) {
    const first = input.moduleStarts[k]!;
    const thisModuleId = id[first]!;
    let nclus = nClustersInModule[thisModuleId]!;
    if (nclus === 0) {
      charges.push(new Int32Array(0));
      continue;
    }
    // The module's digis: from firstPixel, skipping invalid ones, up to the first other module.
    const members: number[] = [];
    for (let i = first; i < n; i++) {
      if (id[i] === INVALID_MODULE_ID) continue;
      if (id[i] !== thisModuleId) break;
      members.push(i);
    }
    if (nclus > MAX_NUM_CLUSTERS_PER_MODULE) {
      for (const i of members) {
        if (clusterId[i]! >= MAX_NUM_CLUSTERS_PER_MODULE) {
          id[i] = INVALID_MODULE_ID;
          clusterId[i] = INVALID_MODULE_ID;
        }
      }
      nclus = MAX_NUM_CLUSTERS_PER_MODULE;
    }
    const charge = new Int32Array(nclus);
    for (const i of members) {
      if (id[i] === INVALID_MODULE_ID) continue;
      const c = clusterId[i]!;
      if (c < 0 || c >= nclus) throw new PixelInputError(`digi ${i}: cluster id ${c} outside 0..${nclus - 1} of module ${thisModuleId}`);
      charge[c]! += input.adc[i]!;
    }
    charges.push(charge);
    const cut = thisModuleId < START_BPIX2 ? t1 : t2;
    const newId = new Int32Array(nclus);
    let kept = 0;
    for (let c = 0; c < nclus; c++) {
      if (charge[c]! > cut) kept++;
      newId[c] = kept; // inclusive prefix sum of ok
    }
    if (kept === nclus) continue;
    nClustersInModule[thisModuleId] = kept;
    for (let c = 0; c < nclus; c++) if (!(charge[c]! > cut)) newId[c] = INVALID_MODULE_ID + 1;
    for (const i of members) {
      if (id[i] === INVALID_MODULE_ID) continue;
      clusterId[i] = newId[clusterId[i]!]! - 1;
      if (clusterId[i] === INVALID_MODULE_ID) id[i] = INVALID_MODULE_ID;
    }
  }
  return { clusterId, id, nClustersInModule, charges };
}

export interface PixelClusteringInput {
  moduleInd: Uint16Array;
  xx: Uint16Array;
  yy: Uint16Array;
  adc: Uint16Array;
}

export interface PixelClusteringResult {
  countModules: CountModulesResult;
  findClus: FindClusResult;
  chargeCut: ChargeCutResult;
  /** Final per-digi cluster ids, ids, clusters per module (by module id) and module per block. */
  clusterId: Int32Array;
  id: Uint16Array;
  nClustersInModule: Uint32Array;
  moduleId: Uint32Array;
}

/** countModules -> findClus -> clusterChargeCut, with canonical numbering. */
export function pixelClusteringReference(
  ev: PixelClusteringInput,
  options: { nMaxModules?: number; findClus?: FindClusOptions; chargeCut?: ChargeCutOptions } = {},
): PixelClusteringResult {
  const cm = countModulesReference(ev.moduleInd, options.nMaxModules ?? MAX_NUM_MODULES - 1);
  if (cm.wrapped) throw new PixelInputError(`${cm.boundaries} module starts overflow nMaxModules; moduleStart is undefined after the wrap`);
  const fc = findClusReference(
    { id: ev.moduleInd, x: ev.xx, y: ev.yy },
    { moduleStarts: cm.sortedStarts, clusterIdInit: cm.clusterIdInit, ...options.findClus },
  );
  const cc = clusterChargeCutReference(
    { id: fc.id, adc: ev.adc, clusterId: fc.clusterId, nClustersInModule: fc.nClustersInModule, moduleStarts: fc.moduleStarts },
    options.chargeCut,
  );
  return {
    countModules: cm,
    findClus: fc,
    chargeCut: cc,
    clusterId: cc.clusterId,
    id: cc.id,
    nClustersInModule: cc.nClustersInModule,
    moduleId: fc.moduleId,
  };
}

/**
 * Renumbers clusters canonically: inside each module, labels get 0, 1, 2 ... in order of their
 * first (smallest-index) digi. Digis with an invalid module id or a negative label keep their
 * value. `id` is the module id per digi (after the kernel).
 */
export function canonicalizeClusterIds(id: Uint16Array, clusterId: Int32Array): Int32Array {
  if (id.length !== clusterId.length) throw new PixelInputError(`id (${id.length}) and clusterId (${clusterId.length}) differ in length`);
  const out = Int32Array.from(clusterId);
  const maps = new Map<number, Map<number, number>>();
  for (let i = 0; i < id.length; i++) {
    if (id[i] === INVALID_MODULE_ID || clusterId[i]! < 0) continue;
    let m = maps.get(id[i]!);
    if (!m) maps.set(id[i]!, (m = new Map()));
    let v = m.get(clusterId[i]!);
    if (v === undefined) m.set(clusterId[i]!, (v = m.size));
    out[i] = v;
  }
  return out;
}

/**
 * Why two cluster numberings differ as partitions, or null when they are the same partition:
 * invalid digis (id invalid or label < 0) must carry equal labels; valid digis must be related
 * by a bijection between (module, label a) and (module, label b).
 */
export function clusterPartitionMismatch(id: Uint16Array, a: Int32Array, b: Int32Array): string | null {
  if (a.length !== id.length || b.length !== id.length) return `lengths differ: id ${id.length}, a ${a.length}, b ${b.length}`;
  const ab = new Map<number, number>();
  const ba = new Map<number, number>();
  for (let i = 0; i < id.length; i++) {
    const va = a[i]!;
    const vb = b[i]!;
    if (id[i] === INVALID_MODULE_ID || va < 0 || vb < 0) {
      if (va !== vb) return `digi ${i}: labels ${va} and ${vb} differ (invalid or negative labels must be equal)`;
      continue;
    }
    const ka = id[i]! * 2 ** 32 + va;
    const kb = id[i]! * 2 ** 32 + vb;
    const pa = ab.get(ka);
    const pb = ba.get(kb);
    if (pa === undefined && pb === undefined) {
      ab.set(ka, kb);
      ba.set(kb, ka);
    } else if (pa !== kb || pb !== ka) {
      return `digi ${i} (module ${id[i]}): label ${va} in a and ${vb} in b are not matched one to one`;
    }
  }
  return null;
}

export function sameClusterPartition(id: Uint16Array, a: Int32Array, b: Int32Array): boolean {
  return clusterPartitionMismatch(id, a, b) === null;
}
