/**
 * Deterministic synthetic data for the PET pipeline: raw frames, position and
 * energy-correction tables, and the ground truth of every frame.
 *
 * Model (all times in counter ticks, 1 tick = 1 ps):
 * - Events follow each other with gaps `minEventGap + 1 + Exp(meanEventGap)` (integer ticks), so
 *   events may pile up inside one coincidence window unless minEventGap > window.
 * - An event is a TRUE coincidence (a decay whose two 511 keV photons are detected in two
 *   different crystals roughly opposite on the ring, |dt| = |N(0, timeResolution * sqrt 2)|
 *   clamped to [1, window]), a RANDOM (two photons from two different decays, different
 *   crystals, dt uniform in [1, window]) or a LONE photon (its partner escaped).
 * - Photon energy: photopeak N(511, 511 * energyResolution / 2.355) keV, or with probability
 *   `scatterFraction` uniform in the Compton continuum [100, 480] keV. The raw 16-bit energy is
 *   round(keV / gain(crystal)); the truth energy is what the tables turn that raw value into
 *   (float32(raw * factor)), so convertReference must recover it exactly.
 * - Every single has a distinct time (strictly increasing in generation order), so the time sort
 *   has a unique answer.
 * - Output order imitates the readout: each BDM (channel) streams its own frames in time order,
 *   cut into packets of 1..maxPacketFrames frames; packets are taken round-robin over the BDMs.
 *   Frames are therefore time-ordered per BDM but not globally.
 * - Position tables: each DU's flood map is split into a crystalSize x crystalSize grid of cells
 *   and the cells are mapped to crystal (origin) indices through a seeded permutation, so a wrong
 *   table offset gives wrong crystals. A frame's (x, y) is a random pixel of its crystal's cell.
 * - Energy tables: factor(crystal, bin) = gain(crystal) * (1 + 0.04 * (bin - 500) / 500), gains
 *   uniform in [0.10, 0.15] keV per raw unit.
 * Large inputs (16M frames) are written straight into preallocated typed arrays.
 */
import { Xoshiro128ss } from '../../data/random.js';
import { FRAME_BYTES } from './format.js';
import {
  DEFAULT_GEOMETRY,
  ENERGY_BINS_PER_CRYSTAL,
  GeometryError,
  geometrySizes,
  type PetGeometry,
  validateGeometry,
} from './geometry.js';
import { crystalLocation, DEFAULT_COINCIDENCE_WINDOW, energyBin } from './reference.js';

export const EVENT_TRUE = 0;
export const EVENT_RANDOM = 1;
export const EVENT_LONE = 2;

export class PetGenerateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PetGenerateError';
  }
}

export interface PetGenerateOptions {
  nFrames: number;
  seed: number;
  geometry?: PetGeometry;
  /** Time of the first event in ticks (default 2^40 + 12345, so several time bytes are non-zero). */
  startTime?: number;
  /** Mean of the exponential part of the gap between events (default 20000 ticks = 20 ns). */
  meanEventGap?: number;
  /** Fixed extra gap between events (default 0). Above `window`, events never pile up. */
  minEventGap?: number;
  /** Coincidence window used to bound pair time differences (default 4000). */
  window?: number;
  /** Per-photon time resolution sigma in ticks (default 200). */
  timeResolution?: number;
  trueFraction?: number;
  randomFraction?: number;
  scatterFraction?: number;
  /** Energy resolution FWHM as a fraction of 511 keV (default 0.15). */
  energyResolution?: number;
  maxPacketFrames?: number;
}

export interface PetTruth {
  /** Per frame (output order): global crystal index. */
  crystal: Uint32Array;
  /** Per frame: corrected energy the reference must produce. */
  energy: Float32Array;
  /** Per frame: time in ticks. */
  time: Float64Array;
  /** Per frame: raw 16-bit energy written to the frame. */
  rawEnergy: Uint16Array;
  /** Per frame: decay number, in time order. The two photons of a TRUE event share it; the two photons of a RANDOM come from two decays and carry consecutive numbers. */
  event: Uint32Array;
  /** Per frame: EVENT_TRUE, EVENT_RANDOM or EVENT_LONE. */
  kind: Uint8Array;
}

export interface PetDataset {
  geometry: Readonly<PetGeometry>;
  nFrames: number;
  frames: Uint8Array;
  positionTable: Uint8Array;
  energyTable: Float32Array;
  truth: PetTruth;
  /** Number of events. */
  events: number;
}

function fraction(name: string, v: number): number {
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new PetGenerateError(`${name} must be in [0, 1], got ${String(v)}`);
  return v;
}

function nonNegInt(name: string, v: number, min = 0): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw new PetGenerateError(`${name} must be an integer >= ${min}, got ${String(v)}`);
  return v;
}

/** Position table with a seeded cell -> crystal permutation per DU; also returns cellOf (inverse). */
export function makePositionTable(geometry: PetGeometry, seed: number): { table: Uint8Array; cellOf: Uint8Array } {
  const g = validateGeometry(geometry);
  const s = geometrySizes(g);
  const P = g.positionSize;
  const CS = g.crystalSize;
  if (P < CS) throw new GeometryError(`generator needs positionSize (${P}) >= crystalSize (${CS}) so that every crystal has flood-map pixels`);
  const rng = new Xoshiro128ss(seed);
  const nDu = s.bdmCount * g.duNum;
  const table = new Uint8Array(s.positionTableLength);
  const cellOf = new Uint8Array(nDu * s.crystalsPerDu);
  const perm = new Uint8Array(s.crystalsPerDu);
  for (let d = 0; d < nDu; d++) {
    for (let c = 0; c < perm.length; c++) perm[c] = c;
    rng.shuffle(perm);
    for (let c = 0; c < perm.length; c++) cellOf[d * s.crystalsPerDu + perm[c]!] = c;
    const base = d * P * P;
    for (let y = 0; y < P; y++) {
      const cy = Math.floor((y * CS) / P);
      for (let x = 0; x < P; x++) {
        const cx = Math.floor((x * CS) / P);
        table[base + x + y * P] = perm[cy * CS + cx]!;
      }
    }
  }
  return { table, cellOf };
}

/** Energy-correction table and per-crystal-row gains (row = (bdm * duNum + du) * crystalSize^2 + local). */
export function makeEnergyTable(geometry: PetGeometry, seed: number): { table: Float32Array; gain: Float64Array } {
  const g = validateGeometry(geometry);
  const s = geometrySizes(g);
  const rng = new Xoshiro128ss(seed);
  const rows = s.energyTableLength / ENERGY_BINS_PER_CRYSTAL;
  const table = new Float32Array(s.energyTableLength);
  const gain = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    const gr = 0.1 + 0.05 * rng.uniform();
    gain[r] = gr;
    const base = r * ENERGY_BINS_PER_CRYSTAL;
    // generatePetData recomputes this expression for the truth energies: keep them identical.
    for (let b = 0; b < ENERGY_BINS_PER_CRYSTAL; b++) table[base + b] = gr * (1 + (0.04 * (b - 500)) / 500);
  }
  return { table, gain };
}

const TWO32 = 4294967296;

export function generatePetData(options: PetGenerateOptions): PetDataset {
  const g = validateGeometry(options.geometry ?? DEFAULT_GEOMETRY);
  const s = geometrySizes(g);
  const n = nonNegInt('nFrames', options.nFrames);
  const seed = nonNegInt('seed', options.seed);
  const startTime = nonNegInt('startTime', options.startTime ?? 2 ** 40 + 12345);
  const meanGap = options.meanEventGap ?? 20000;
  if (!(meanGap >= 0 && Number.isFinite(meanGap))) throw new PetGenerateError(`meanEventGap must be finite and >= 0, got ${meanGap}`);
  const minGap = nonNegInt('minEventGap', options.minEventGap ?? 0);
  const window = nonNegInt('window', options.window ?? DEFAULT_COINCIDENCE_WINDOW, 1);
  const sigmaT = options.timeResolution ?? 200;
  if (!(sigmaT >= 0 && Number.isFinite(sigmaT))) throw new PetGenerateError(`timeResolution must be finite and >= 0, got ${sigmaT}`);
  const pTrue = fraction('trueFraction', options.trueFraction ?? 0.6);
  const pRandom = fraction('randomFraction', options.randomFraction ?? 0.1);
  if (pTrue + pRandom > 1) throw new PetGenerateError(`trueFraction + randomFraction must be <= 1, got ${pTrue + pRandom}`);
  const pScatter = fraction('scatterFraction', options.scatterFraction ?? 0.3);
  const eRes = options.energyResolution ?? 0.15;
  if (!(eRes >= 0 && Number.isFinite(eRes))) throw new PetGenerateError(`energyResolution must be finite and >= 0, got ${eRes}`);
  const maxPacket = nonNegInt('maxPacketFrames', options.maxPacketFrames ?? 32, 1);
  if (s.crystalCount < 2) throw new PetGenerateError('geometry must have at least two crystals');

  const { table: positionTable, cellOf } = makePositionTable(g, (seed ^ 0x5eed0001) >>> 0);
  const { table: energyTable, gain } = makeEnergyTable(g, (seed ^ 0x5eed0002) >>> 0);
  const rng = new Xoshiro128ss(seed);

  // Per-crystal lookup: BDM, DU, energy-table row, origin.
  const cBdm = new Uint8Array(s.crystalCount);
  const cDu = new Uint8Array(s.crystalCount);
  const cRow = new Uint32Array(s.crystalCount);
  const cCell = new Uint8Array(s.crystalCount);
  for (let c = 0; c < s.crystalCount; c++) {
    const loc = crystalLocation(g, c);
    cBdm[c] = loc.bdm;
    cDu[c] = loc.du;
    cRow[c] = (loc.bdm * g.duNum + loc.du) * s.crystalsPerDu + loc.local;
    cCell[c] = cellOf[(loc.bdm * g.duNum + loc.du) * s.crystalsPerDu + loc.origin]!;
  }
  const P = g.positionSize;
  const CS = g.crystalSize;
  const lo = new Uint16Array(CS);
  const hi = new Uint16Array(CS);
  for (let c = 0; c < CS; c++) {
    lo[c] = Math.ceil((c * P) / CS);
    hi[c] = Math.ceil(((c + 1) * P) / CS) - 1;
  }

  // 1. Singles in generation (= time) order.
  const gTime = new Float64Array(n);
  const gCrystal = new Uint32Array(n);
  const gEvent = new Uint32Array(n);
  const gKind = new Uint8Array(n);
  const perRing = s.crystalsPerRing;
  const quarter = Math.max(1, Math.floor(perRing / 4));
  let t = startTime;
  let k = 0;
  let ev = 0;
  while (k < n) {
    if (k > 0) t += 1 + minGap + Math.floor(rng.exponential(meanGap));
    const u = rng.uniform();
    let kind = u < pTrue ? EVENT_TRUE : u < pTrue + pRandom ? EVENT_RANDOM : EVENT_LONE;
    if (k + 1 === n) kind = EVENT_LONE;
    const a = rng.uniformInt(s.crystalCount);
    gTime[k] = t;
    gCrystal[k] = a;
    gEvent[k] = ev;
    gKind[k] = kind;
    k++;
    if (kind !== EVENT_LONE) {
      let b: number;
      let dt: number;
      if (kind === EVENT_TRUE) {
        const ring = rng.uniformInt(s.ringCount);
        const inRing = ((a % perRing) + Math.floor(perRing / 2) + rng.range(-quarter + 1, quarter - 1) + perRing) % perRing;
        b = inRing + ring * perRing;
        dt = Math.round(Math.abs(rng.normal() * sigmaT * Math.SQRT2));
      } else {
        b = rng.uniformInt(s.crystalCount);
        dt = rng.range(1, window);
      }
      if (b === a) b = (a + 1) % s.crystalCount;
      dt = Math.min(Math.max(dt, 1), window);
      t += dt;
      gTime[k] = t;
      gCrystal[k] = b;
      gEvent[k] = kind === EVENT_RANDOM ? ev + 1 : ev;
      gKind[k] = kind;
      k++;
      if (kind === EVENT_RANDOM) ev++; // the two photons of a random come from two decays
    }
    ev++;
  }
  if (t >= 2 ** 53) throw new PetGenerateError(`time counter exceeded 2^53 ticks; lower startTime or meanEventGap`);

  // 2. Group by BDM keeping time order (stable counting sort), then interleave packets round-robin.
  const nBdm = s.bdmCount;
  const counts = new Uint32Array(nBdm + 1);
  for (let i = 0; i < n; i++) counts[cBdm[gCrystal[i]!]! + 1]!++;
  for (let b = 0; b < nBdm; b++) counts[b + 1]! += counts[b]!;
  const byBdm = new Uint32Array(n);
  const fill = counts.slice(0, nBdm);
  for (let i = 0; i < n; i++) byBdm[fill[cBdm[gCrystal[i]!]!]!++] = i;
  const cursor = counts.slice(0, nBdm);
  const order = new Uint32Array(n); // output position -> generation index
  let out = 0;
  while (out < n) {
    for (let b = 0; b < nBdm; b++) {
      const left = counts[b + 1]! - cursor[b]!;
      if (left === 0) continue;
      const len = Math.min(left, 1 + rng.uniformInt(maxPacket));
      for (let q = 0; q < len; q++) order[out++] = byBdm[cursor[b]!++]!;
    }
  }

  // 3. Write frames and truth in output order.
  const frames = new Uint8Array(n * FRAME_BYTES);
  const truth: PetTruth = {
    crystal: new Uint32Array(n),
    energy: new Float32Array(n),
    time: new Float64Array(n),
    rawEnergy: new Uint16Array(n),
    event: new Uint32Array(n),
    kind: new Uint8Array(n),
  };
  const temps = new Int8Array(nBdm);
  for (let b = 0; b < nBdm; b++) temps[b] = 24 + rng.uniformInt(5);
  const peakSigma = (511 * eRes) / 2.355;
  for (let o = 0; o < n; o++) {
    const i = order[o]!;
    const c = gCrystal[i]!;
    const bdm = cBdm[c]!;
    const cell = cCell[c]!;
    const cx = cell % CS;
    const cy = (cell - cx) / CS;
    const x = lo[cx]! + rng.uniformInt(hi[cx]! - lo[cx]! + 1);
    const y = lo[cy]! + rng.uniformInt(hi[cy]! - lo[cy]! + 1);
    let keV = rng.uniform() < pScatter ? 100 + 380 * rng.uniform() : 511 + peakSigma * rng.normal();
    if (keV < 1) keV = 1;
    const row = cRow[c]!;
    const gr = gain[row]!;
    let raw = Math.round(keV / gr);
    if (raw > 0xffff) raw = 0xffff;
    const time = gTime[i]!;
    const th = Math.floor(time / TWO32);
    const tl = time - th * TWO32;
    const f = o * FRAME_BYTES;
    frames[f] = 0xa0 | cDu[c]!;
    frames[f + 1] = bdm;
    frames[f + 2] = (th >>> 24) & 0xff;
    frames[f + 3] = (th >>> 16) & 0xff;
    frames[f + 4] = (th >>> 8) & 0xff;
    frames[f + 5] = th & 0xff;
    frames[f + 6] = (tl >>> 24) & 0xff;
    frames[f + 7] = (tl >>> 16) & 0xff;
    frames[f + 8] = (tl >>> 8) & 0xff;
    frames[f + 9] = tl & 0xff;
    frames[f + 10] = x;
    frames[f + 11] = y;
    frames[f + 12] = raw >>> 8;
    frames[f + 13] = raw & 0xff;
    frames[f + 14] = temps[bdm]! & 0xff;
    frames[f + 15] = (rng.uniformInt(16) << 4) | 0x0a;
    truth.crystal[o] = c;
    // Same value as energyTable[row * 1000 + energyBin(raw)] (see makeEnergyTable), recomputed
    // because a random row of the big table misses the cache on every frame.
    truth.energy[o] = Math.fround(raw * Math.fround(gr * (1 + (0.04 * (energyBin(raw) - 500)) / 500)));
    truth.time[o] = time;
    truth.rawEnergy[o] = raw;
    truth.event[o] = gEvent[i]!;
    truth.kind[o] = gKind[i]!;
  }
  return { geometry: g, nFrames: n, frames, positionTable, energyTable, truth, events: ev };
}
