/**
 * Synthetic CMS pixel data.
 *
 * generatePixelEvent: one event in the SoA columns, digis grouped by module in ascending module
 * id (as the raw-to-digi step delivers them), pixels shuffled inside a module, with:
 *   ordinary clusters (8-connected random shapes of 1..8 pixels), isolated single pixels,
 *   clusters touching the module edges (x = 0 / 159, y = 0 / 415), pairs touching only by a corner
 *   (diagonal neighbours, one cluster), weak clusters below the charge threshold, runs of invalid
 *   digis (module id 65534) between and inside modules and before the first module, and one noisy
 *   module full of low-charge single pixels.
 * Clusters never touch each other (each pixel's 8-neighbourhood is free of other clusters), so the
 * generated clusters are exactly the connected components the reference must find.
 *
 * generateModuleIds: large sorted module-id arrays for countModules.
 */
import { Xoshiro128ss } from '../../data/random.js';
import {
  CHARGE_THRESHOLD_LAYER1,
  CHARGE_THRESHOLD_OTHER,
  INVALID_MODULE_ID,
  NUM_COLS_IN_MODULE,
  NUM_ROWS_IN_MODULE,
  PHASE1_NUM_MODULES,
  PixelInputError,
  START_BPIX2,
} from './constants.js';

export const CLUSTER_ORDINARY = 0;
export const CLUSTER_ISOLATED = 1;
export const CLUSTER_EDGE = 2;
export const CLUSTER_DIAGONAL = 3;
export const CLUSTER_WEAK = 4;
export const CLUSTER_NOISE = 5;

/** PixelDigi packing (CMSSW): row bits 0..10, column bits 11..21, adc bits 22..31 (adc clamped to 1023). */
export function packPdigi(row: number, col: number, adc: number): number {
  return ((row & 0x7ff) | ((col & 0x7ff) << 11) | (Math.min(adc, 1023) << 22)) >>> 0;
}

export function unpackPdigi(p: number): { row: number; col: number; adc: number } {
  return { row: p & 0x7ff, col: (p >>> 11) & 0x7ff, adc: p >>> 22 };
}

/** Synthetic DetId of a module (the real mapping needs the CMS geometry). */
export function syntheticRawId(moduleId: number): number {
  return (0x12000000 + moduleId * 4) >>> 0;
}

export interface PixelEventOptions {
  seed: number;
  /** Modules that may carry digis: ids 0..nModules-1 (default 1856). */
  nModules?: number;
  /** Modules with digis (default 64; at least 4 of them in layer 1 when nModules > 96). */
  activeModules?: number;
  /** Mean clusters per active module (default 6). */
  clustersPerModule?: number;
  /** Probability of an invalid-digi run after each digi slot (default 0.02). */
  invalidRunProbability?: number;
  /** Put an invalid run before the first valid digi (default true). */
  leadingInvalid?: boolean;
  /** Noisy module id (default: the 2nd active module), or null for none. */
  noisyModule?: number | null;
  /** Single pixels tried in the noisy module (default 500). */
  noisyPixels?: number;
}

export interface PixelEventTruth {
  /** Per digi: index into the cluster list, or -1 for invalid digis. */
  cluster: Int32Array;
  /** Per cluster: module id, number of pixels, total adc, kind (CLUSTER_*), kept by the charge cut. */
  clusterModule: Uint16Array;
  clusterSize: Uint32Array;
  clusterCharge: Uint32Array;
  clusterKind: Uint8Array;
  clusterKept: Uint8Array;
  /** Sorted module ids that have digis. */
  modules: Uint16Array;
}

export interface PixelEvent {
  n: number;
  moduleInd: Uint16Array;
  xx: Uint16Array;
  yy: Uint16Array;
  adc: Uint16Array;
  rawIdArr: Uint32Array;
  pdigi: Uint32Array;
  /** Zero-filled (countModules initialises it). */
  clus: Int32Array;
  truth: PixelEventTruth;
}

function optInt(name: string, v: number, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
    throw new PixelInputError(`${name} must be an integer in [${min}, ${max}], got ${String(v)}`);
  }
  return v;
}

function optProb(name: string, v: number): number {
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new PixelInputError(`${name} must be in [0, 1], got ${String(v)}`);
  return v;
}

const W = NUM_ROWS_IN_MODULE;
const H = NUM_COLS_IN_MODULE;

export function generatePixelEvent(options: PixelEventOptions): PixelEvent {
  const seed = optInt('seed', options.seed, 0, 2 ** 32 - 1);
  const nModules = optInt('nModules', options.nModules ?? PHASE1_NUM_MODULES, 1, INVALID_MODULE_ID);
  const active = optInt('activeModules', options.activeModules ?? Math.min(64, nModules), 0, nModules);
  const meanClusters = options.clustersPerModule ?? 6;
  if (!(meanClusters >= 0 && meanClusters <= 500)) throw new PixelInputError(`clustersPerModule must be in [0, 500], got ${meanClusters}`);
  const pInvalid = optProb('invalidRunProbability', options.invalidRunProbability ?? 0.02);
  const noisyPixels = optInt('noisyPixels', options.noisyPixels ?? 500, 0, 3000);
  const rng = new Xoshiro128ss(seed);

  // Choose the active modules: some in layer 1, the rest anywhere.
  const chosen = new Set<number>();
  const nLayer1 = nModules > START_BPIX2 ? Math.min(active, 4, START_BPIX2) : 0;
  while (chosen.size < nLayer1) chosen.add(rng.uniformInt(START_BPIX2));
  while (chosen.size < active) chosen.add(rng.uniformInt(nModules));
  const modules = Uint16Array.from([...chosen].sort((a, b) => a - b));
  let noisy: number | null = options.noisyModule === undefined ? (modules.length > 1 ? modules[1]! : null) : options.noisyModule;
  if (noisy !== null) {
    optInt('noisyModule', noisy, 0, nModules - 1);
    if (!chosen.has(noisy)) throw new PixelInputError(`noisyModule ${noisy} is not among the active modules`);
  }

  const dId: number[] = [];
  const dX: number[] = [];
  const dY: number[] = [];
  const dAdc: number[] = [];
  const dCluster: number[] = [];
  const cModule: number[] = [];
  const cSize: number[] = [];
  const cCharge: number[] = [];
  const cKind: number[] = [];

  const pushInvalidRun = (): void => {
    const len = 1 + rng.uniformInt(5);
    for (let q = 0; q < len; q++) {
      dId.push(INVALID_MODULE_ID);
      dX.push(rng.uniformInt(W));
      dY.push(rng.uniformInt(H));
      dAdc.push(0);
      dCluster.push(-1);
    }
  };
  if (options.leadingInvalid ?? true) pushInvalidRun();

  const owner = new Int32Array(W * H).fill(-1);
  const touched: number[] = [];
  const free = (px: number, py: number, self: number): boolean => {
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        const qx = px + dx;
        const qy = py + dy;
        if (qx < 0 || qy < 0 || qx >= W || qy >= H) continue;
        const o = owner[qx * H + qy]!;
        if (o !== -1 && o !== self) return false;
      }
    }
    return true;
  };

  for (const m of modules) {
    const pixels: { x: number; y: number; adc: number; c: number }[] = [];
    const addCluster = (shape: [number, number][], kind: number, adcLo: number, adcHi: number): boolean => {
      const c = cModule.length;
      for (const [px, py] of shape) {
        if (px < 0 || py < 0 || px >= W || py >= H || !free(px, py, c)) return false;
      }
      let charge = 0;
      for (const [px, py] of shape) {
        owner[px * H + py] = c;
        touched.push(px * H + py);
        const a = rng.range(adcLo, adcHi);
        charge += a;
        pixels.push({ x: px, y: py, adc: a, c });
      }
      cModule.push(m);
      cSize.push(shape.length);
      cCharge.push(charge);
      cKind.push(kind);
      return true;
    };
    const randomShape = (x0: number, y0: number, size: number): [number, number][] => {
      const shape: [number, number][] = [[x0, y0]];
      const inShape = new Set<number>([x0 * H + y0]);
      for (let tries = 0; shape.length < size && tries < 50; tries++) {
        const [bx, by] = shape[rng.uniformInt(shape.length)]!;
        const nx = bx + rng.range(-1, 1);
        const ny = by + rng.range(-1, 1);
        if (nx < 0 || ny < 0 || nx >= W || ny >= H || inShape.has(nx * H + ny)) continue;
        inShape.add(nx * H + ny);
        shape.push([nx, ny]);
      }
      return shape;
    };
    // One edge cluster, one diagonal pair, one isolated pixel per module, then ordinary/weak ones.
    const edge = rng.uniformInt(4);
    const ex = edge === 0 ? 0 : edge === 1 ? W - 1 : rng.uniformInt(W);
    const ey = edge === 2 ? 0 : edge === 3 ? H - 1 : rng.uniformInt(H);
    for (let t = 0; t < 20 && !addCluster(randomShape(ex, ey, 2 + rng.uniformInt(4)), CLUSTER_EDGE, 1500, 9000); t++);
    for (let t = 0; t < 20; t++) {
      const x0 = rng.uniformInt(W - 1);
      const y0 = 1 + rng.uniformInt(H - 2);
      const up = rng.bernoulli(0.5);
      if (addCluster([[x0, y0], [x0 + 1, up ? y0 + 1 : y0 - 1]], CLUSTER_DIAGONAL, 1000, 6000)) break;
    }
    for (let t = 0; t < 20 && !addCluster([[rng.uniformInt(W), rng.uniformInt(H)]], CLUSTER_ISOLATED, 1500, 9000); t++);
    const nOrdinary = Math.floor(rng.uniform() * 2 * meanClusters);
    for (let q = 0; q < nOrdinary; q++) {
      const weak = rng.bernoulli(0.15);
      addCluster(randomShape(rng.uniformInt(W), rng.uniformInt(H), 1 + rng.uniformInt(8)), weak ? CLUSTER_WEAK : CLUSTER_ORDINARY, weak ? 300 : 1000, weak ? 1200 : 12000);
    }
    if (m === noisy) {
      for (let q = 0; q < noisyPixels; q++) addCluster([[rng.uniformInt(W), rng.uniformInt(H)]], CLUSTER_NOISE, 200, 2600);
    }
    rng.shuffle(pixels);
    for (const p of pixels) {
      dId.push(m);
      dX.push(p.x);
      dY.push(p.y);
      dAdc.push(p.adc);
      dCluster.push(p.c);
      if (rng.bernoulli(pInvalid)) pushInvalidRun();
    }
    for (const cell of touched) owner[cell] = -1;
    touched.length = 0;
  }

  const n = dId.length;
  const ev: PixelEvent = {
    n,
    moduleInd: Uint16Array.from(dId),
    xx: Uint16Array.from(dX),
    yy: Uint16Array.from(dY),
    adc: Uint16Array.from(dAdc),
    rawIdArr: new Uint32Array(n),
    pdigi: new Uint32Array(n),
    clus: new Int32Array(n),
    truth: {
      cluster: Int32Array.from(dCluster),
      clusterModule: Uint16Array.from(cModule),
      clusterSize: Uint32Array.from(cSize),
      clusterCharge: Uint32Array.from(cCharge),
      clusterKind: Uint8Array.from(cKind),
      clusterKept: Uint8Array.from(cModule.map((m, c) => (cCharge[c]! > (m < START_BPIX2 ? CHARGE_THRESHOLD_LAYER1 : CHARGE_THRESHOLD_OTHER) ? 1 : 0))),
      modules,
    },
  };
  for (let i = 0; i < n; i++) {
    if (dId[i] === INVALID_MODULE_ID) continue;
    ev.rawIdArr[i] = syntheticRawId(dId[i]!);
    ev.pdigi[i] = packPdigi(dX[i]!, dY[i]!, dAdc[i]! >>> 4);
  }
  return ev;
}

function geometricLength(rng: Xoshiro128ss, p: number): number {
  // Number of trials up to and including the first success, success probability p (0 < p <= 1).
  if (p >= 1) return 1;
  return 1 + Math.floor(Math.log(1 - rng.uniform()) / Math.log(1 - p));
}

/**
 * n module ids in ascending module order, with runs of invalid ids (65534) making up about
 * `invalidFraction` of the digis (mean invalid run length 4 when possible). Module k + 1 follows
 * module k after a geometric number of valid digis (mean n (1 - f) / nModules); ids stay below
 * nModules. 50M ids take well under 2 s (runs are written with fill()).
 */
export function generateModuleIds(n: number, nModules: number, invalidFraction: number, seed: number): Uint16Array {
  optInt('n', n, 0, 2 ** 31);
  optInt('nModules', nModules, 1, INVALID_MODULE_ID);
  optProb('invalidFraction', invalidFraction);
  optInt('seed', seed, 0, 2 ** 32 - 1);
  const rng = new Xoshiro128ss(seed);
  const out = new Uint16Array(n);
  const f = invalidFraction;
  const pExit = f === 1 ? 0 : Math.min(0.25, (1 - f) / f);
  const pEnter = f === 0 ? 0 : f === 1 ? 1 : (f * pExit) / (1 - f);
  const meanPerModule = Math.max(1, (n * (1 - f)) / nModules);
  let module = 0;
  let leftInModule = geometricLength(rng, 1 / meanPerModule);
  let invalid = rng.uniform() < f;
  let k = 0;
  while (k < n) {
    if (invalid) {
      const len = pExit === 0 ? n - k : Math.min(n - k, geometricLength(rng, pExit));
      out.fill(INVALID_MODULE_ID, k, k + len);
      k += len;
      invalid = false;
    } else {
      let len = pEnter === 0 ? n - k : Math.min(n - k, geometricLength(rng, pEnter));
      while (len > 0) {
        const seg = Math.min(len, leftInModule);
        out.fill(module, k, k + seg);
        k += seg;
        len -= seg;
        leftInModule -= seg;
        if (leftInModule === 0) {
          if (module < nModules - 1) module++;
          leftInModule = geometricLength(rng, 1 / meanPerModule);
        }
      }
      invalid = true;
    }
  }
  return out;
}

/** Module ids for a given list of module starts (digi i belongs to the module whose start is the last <= i). */
export function moduleIdsFromStarts(starts: ArrayLike<number>, n: number, moduleOf: (k: number) => number = (k) => k): Uint16Array {
  const out = new Uint16Array(n);
  for (let k = 0; k < starts.length; k++) {
    const s = starts[k]!;
    const e = k + 1 < starts.length ? starts[k + 1]! : n;
    if (!(s < e) || e > n) throw new PixelInputError(`module starts must be strictly increasing and below ${n}; got ${s} then ${e}`);
    out.fill(moduleOf(k), s, e);
  }
  if (starts.length > 0 && starts[0]! > 0) out.fill(INVALID_MODULE_ID, 0, starts[0]!);
  return out;
}
