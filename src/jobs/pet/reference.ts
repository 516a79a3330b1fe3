/**
 * Plain sequential reference implementations of the PET pipeline of seed 001:
 * raw frames -> singles (convertUdpToSinglesKernel), stable time sort (parallelMergeSort),
 * time coincidence (CoinTimeKernel, SelectKernel, FillDataKernel, CorrectPosKernel).
 * These are the oracle for the GPU kernels; they favour obviousness over speed.
 */
import { FRAME_BYTES, frameCount, frameTimeAsDouble } from './format.js';
import {
  ENERGY_BIN_WIDTH,
  ENERGY_BINS_PER_CRYSTAL,
  energyTableBase,
  geometrySizes,
  type PetGeometry,
  positionTableBase,
  validateGeometry,
  validateTables,
} from './geometry.js';

/** `SinglesStruct` as a structure of arrays. */
export interface Singles {
  /** globalCrystalIndex. */
  crystal: Uint32Array;
  /** Corrected energy (float32, keV when the table is calibrated in keV per raw unit). */
  energy: Float32Array;
  /** timevalue: the raw 64-bit time counter as a double. */
  time: Float64Array;
  /** Index of the frame each single came from (not part of SinglesStruct; for checking). */
  frame: Uint32Array;
}

export class PetFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PetFrameError';
  }
}

export class CoincidenceOptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CoincidenceOptionsError';
  }
}

/** Default energy window in keV (both ends inclusive; see `inEnergyWindow`). */
export const DEFAULT_ENERGY_WINDOW: readonly [number, number] = [350, 650];
/**
 * Default coincidence window: 4 ns. The seed never states the unit of the time counter; this
 * library takes one counter tick = 1 ps (the generator writes ps), so 4 ns = 4000 ticks.
 */
export const TIME_TICKS_PER_NS = 1000;
export const DEFAULT_COINCIDENCE_WINDOW = 4 * TIME_TICKS_PER_NS;

export interface ConvertOptions {
  /**
   * Energy window [low, high] applied to the corrected energy (`mIsCoinEnergy` true), or null to
   * keep every frame (`mIsCoinEnergy` false). Default [350, 650].
   */
  energyWindow?: readonly [number, number] | null;
}

/**
 * `coinEnergyKernel(energy, para)` is not shown in the seed. Guess: accepted iff
 * low <= energy <= high, both ends inclusive, compared in float32 (energy is a float).
 */
export function inEnergyWindow(energy: number, window: readonly [number, number]): boolean {
  return energy >= window[0] && energy <= window[1];
}

/** Crystal indices of one frame, as the conversion kernel computes them. */
export interface CrystalIndices {
  /** Crystal index inside the DU after the y flip: localX + (crystalNumY - 1 - localY) * crystalNumZ. */
  local: number;
  /** nCrystalIdInRing. */
  inRing: number;
  /** nRingId. */
  ring: number;
  /** globalCrystalIndex = inRing + ring * crystalsPerRing. */
  global: number;
}

/**
 * The kernel's crystal-index formulas for (bdm, du, origin) where origin is the position-table
 * entry. Guesses:
 * - `localY = origin / crystalNumY` in the seed is read as `origin / crystalNumZ` (row-major rows of
 *   crystalNumZ); identical because validateGeometry requires square DUs;
 * - the seed's `nCrystalNumOneRing = crystalNumY * blockNumY * m_nChannelNum` omits moduleNumY
 *   although `nCrystalIdInRing` ranges over channelNum * moduleNumY BDMs; we use
 *   crystalNumY * blockNumY * channelNum * moduleNumY, which equals the seed's value for moduleNumY = 1
 *   (the default) and keeps indices unique otherwise.
 */
export function crystalIndices(g: PetGeometry, bdm: number, du: number, origin: number): CrystalIndices {
  const cy = g.crystalNumY;
  const cz = g.crystalNumZ;
  const bdmPerRing = g.channelNum * g.moduleNumY;
  const localX = origin % cz;
  const localY = Math.floor(origin / cz);
  const local = localX + (cy - 1 - localY) * cz;
  const inRing = (bdm % bdmPerRing) * g.blockNumY * cy + Math.floor(du / g.blockNumZ) * cy + Math.floor(local / cz);
  const ring = Math.floor(bdm / bdmPerRing) * g.blockNumZ * cz + (du % g.blockNumZ) * cz + (local % cz);
  const crystalsPerRing = cy * g.blockNumY * bdmPerRing;
  return { local, inRing, ring, global: inRing + ring * crystalsPerRing };
}

/** Inverse of `crystalIndices`: which (bdm, du, local, origin) produce a global crystal index. */
export function crystalLocation(g: PetGeometry, global: number): { bdm: number; du: number; local: number; origin: number } {
  const s = geometrySizes(g);
  if (!Number.isInteger(global) || global < 0 || global >= s.crystalCount) {
    throw new RangeError(`crystal ${global} is outside 0..${s.crystalCount - 1}`);
  }
  const cy = g.crystalNumY;
  const cz = g.crystalNumZ;
  const ring = Math.floor(global / s.crystalsPerRing);
  const inRing = global % s.crystalsPerRing;
  const tBdm = Math.floor(inRing / (g.blockNumY * cy));
  const rem = inRing % (g.blockNumY * cy);
  const duY = Math.floor(rem / cy);
  const row = rem % cy;
  const axial = Math.floor(ring / (g.blockNumZ * cz));
  const rem2 = ring % (g.blockNumZ * cz);
  const duZ = Math.floor(rem2 / cz);
  const col = rem2 % cz;
  const local = row * cz + col;
  const localY = cy - 1 - row;
  return { bdm: axial * s.bdmPerRing + tBdm, du: duY * g.blockNumZ + duZ, local, origin: localY * cz + col };
}

/** Energy-correction bin for a raw energy: floor(raw / 10), clamped to the last bin (guess, see convertReference). */
export function energyBin(rawEnergy: number): number {
  return Math.min(Math.floor(rawEnergy / ENERGY_BIN_WIDTH), ENERGY_BINS_PER_CRYSTAL - 1);
}

/**
 * convertUdpToSinglesKernel, sequentially. For each frame i in input order:
 *   bdm = nBDM; du = nHeadAndDU & 0x0F; time = (double) big-endian u64 nTime;
 *   origin = positionTable[(bdm * duNum + du) * P^2 + x + y * P];
 *   crystal indices as in `crystalIndices`;
 *   energy = float32(float32(raw) * energyTable[((bdm * duNum + du) * crystalSize^2 + local) * 1000 + bin]);
 * then keeps the singles whose corrected energy is inside the window, in input order.
 *
 * Guesses and deviations:
 * - The GPU kernel compacts accepted singles block by block through `atomicAdd` on a global
 *   counter, so the order of the blocks in its output depends on the schedule (inside a block
 *   the input order is kept). The reference returns plain input order; compare GPU output as a
 *   multiset, or after a stable time sort when times are distinct.
 * - bin = floor(raw / 10) can exceed 999 for raw >= 10000 (raw is 16-bit), which in the seed
 *   reads the next crystal's factors (or past the table). We clamp to bin 999.
 * - Frames with bdm >= bdmCount, du >= duNum, or x/y >= positionSize would read outside the
 *   tables in the seed; here they throw PetFrameError naming the frame.
 * - The energy multiply is a float32 multiply (both operands are float in CUDA).
 */
export function convertReference(
  frames: Uint8Array,
  geometry: PetGeometry,
  positionTable: Uint8Array,
  energyTable: Float32Array,
  options: ConvertOptions = {},
): Singles {
  const g = validateGeometry(geometry);
  validateTables(g, positionTable, energyTable);
  const win = options.energyWindow === undefined ? DEFAULT_ENERGY_WINDOW : options.energyWindow;
  if (win !== null && (!(win.length === 2) || !(win[0] <= win[1]) || Number.isNaN(win[0]) || Number.isNaN(win[1]))) {
    throw new CoincidenceOptionsError(`energyWindow must be [low, high] with low <= high, got ${JSON.stringify(win)}`);
  }
  const n = frameCount(frames);
  const sizes = geometrySizes(g);
  const P = g.positionSize;
  const crystal = new Uint32Array(n);
  const energy = new Float32Array(n);
  const time = new Float64Array(n);
  const frame = new Uint32Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const o = i * FRAME_BYTES;
    const du = frames[o]! & 0x0f;
    const bdm = frames[o + 1]!;
    const x = frames[o + 10]!;
    const y = frames[o + 11]!;
    if (bdm >= sizes.bdmCount) throw new PetFrameError(`frame ${i}: BDM ${bdm} >= BDM count ${sizes.bdmCount}`);
    if (du >= g.duNum) throw new PetFrameError(`frame ${i}: DU ${du} >= DU count ${g.duNum}`);
    if (x >= P || y >= P) throw new PetFrameError(`frame ${i}: position (${x}, ${y}) outside the ${P} x ${P} flood map`);
    const origin = positionTable[positionTableBase(g, bdm, du) + x + y * P]!;
    const idx = crystalIndices(g, bdm, du, origin);
    const raw = (frames[o + 12]! << 8) | frames[o + 13]!;
    const factor = energyTable[energyTableBase(g, bdm, du, idx.local) + energyBin(raw)]!;
    const e = Math.fround(raw * factor);
    if (win !== null && !inEnergyWindow(e, win)) continue;
    crystal[k] = idx.global;
    energy[k] = e;
    time[k] = frameTimeAsDouble(frames, i);
    frame[k] = i;
    k++;
  }
  return { crystal: crystal.slice(0, k), energy: energy.slice(0, k), time: time.slice(0, k), frame: frame.slice(0, k) };
}

/** Builds a Singles value from plain arrays (frame defaults to 0..n-1). */
export function makeSingles(crystal: ArrayLike<number>, energy: ArrayLike<number>, time: ArrayLike<number>, frame?: ArrayLike<number>): Singles {
  const n = crystal.length;
  if (energy.length !== n || time.length !== n || (frame !== undefined && frame.length !== n)) {
    throw new CoincidenceOptionsError(`singles arrays differ in length: crystal ${n}, energy ${energy.length}, time ${time.length}${frame ? `, frame ${frame.length}` : ''}`);
  }
  const f = new Uint32Array(n);
  for (let i = 0; i < n; i++) f[i] = frame ? frame[i]! : i;
  return { crystal: Uint32Array.from(crystal), energy: Float32Array.from(energy), time: Float64Array.from(time), frame: f };
}

/**
 * Stable sort by time (ascending); equal times keep input order. Returns the sorted singles and
 * `order` with sorted[k] = input[order[k]].
 * The GPU merge sort compares only `timevalue` (guess: the comparison operator of SinglesStruct is
 * not shown); its merge step ranks ties with an inclusive search from the even block and an
 * exclusive one from the odd block, which is a stable merge, so it should match this exactly —
 * provided the input order is the same (see convertReference about block order).
 * Padding elements (the seed pads to a power of two with the maximum value) never appear in the output.
 */
export function sortByTimeReference(s: Singles): { singles: Singles; order: Uint32Array } {
  const n = s.time.length;
  const idx = Array.from({ length: n }, (_, i) => i);
  idx.sort((a, b) => (s.time[a]! < s.time[b]! ? -1 : s.time[a]! > s.time[b]! ? 1 : a - b));
  const order = Uint32Array.from(idx);
  const out: Singles = {
    crystal: new Uint32Array(n),
    energy: new Float32Array(n),
    time: new Float64Array(n),
    frame: new Uint32Array(n),
  };
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    out.crystal[k] = s.crystal[i]!;
    out.energy[k] = s.energy[i]!;
    out.time[k] = s.time[i]!;
    out.frame[k] = s.frame[i]!;
  }
  return { singles: out, order };
}

export interface CoincidenceOptions {
  /** Coincidence window in time-counter ticks (default 4000 = 4 ns at 1 ps/tick); `<=` comparison. */
  window?: number;
}

/** Coincidence pairs as structure of arrays. Pair k = (singles[index0[k]], singles[index0[k] + 1]). */
export interface CoincidencePairs {
  count: number;
  index0: Uint32Array;
  index1: Uint32Array;
  crystal0: Uint32Array;
  crystal1: Uint32Array;
  energy0: Float32Array;
  energy1: Float32Array;
  time0: Float64Array;
  time1: Float64Array;
}

function windowOf(opts: CoincidenceOptions): number {
  const w = opts.window ?? DEFAULT_COINCIDENCE_WINDOW;
  if (typeof w !== 'number' || !(w >= 0) || !Number.isFinite(w)) {
    throw new CoincidenceOptionsError(`coincidence window must be a finite number >= 0, got ${String(w)}`);
  }
  return w;
}

function checkSorted(time: Float64Array): void {
  for (let i = 1; i < time.length; i++) {
    if (!(time[i - 1]! <= time[i]!)) {
      throw new CoincidenceOptionsError(`singles must be sorted by time: time[${i - 1}] = ${time[i - 1]} > time[${i}] = ${time[i]}`);
    }
  }
}

/**
 * Kernel 1 (CoinTimeKernel / searchIndex): nextIndex[i] = the last j > i with
 * time[j] - time[i] <= window, scanning forward from i + 1 and stopping at the first miss;
 * -1 if time[i + 1] - time[i] > window or i is last.
 */
export function coincidenceNextIndex(s: Singles, opts: CoincidenceOptions = {}): Int32Array {
  const w = windowOf(opts);
  const t = s.time;
  const n = t.length;
  const next = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let j = i + 1;
    while (j < n && t[j]! - t[i]! <= w) j++;
    next[i] = j === i + 1 ? -1 : j - 1;
  }
  return next;
}

/**
 * Kernel 2 (SelectKernel), executed as the seed does it but sequentially. A "chain" is a maximal
 * run of singles whose consecutive time gaps are all <= window (`leftIndex` walks back over such
 * gaps). The thread of the chain's last element (nextIndex == -1 and not a chain start) walks the
 * chain from its start `pos`:
 *   nextIndex[pos] - pos >= 2  -> the window opened at pos holds >= 3 singles: erase them all
 *                                 (nextIndex[pos..nextIndex[pos]] = -1) and continue after them;
 *   nextIndex[pos] - pos == 1  -> exactly two singles: keep the pair unless both crystals are equal
 *                                 (then nextIndex[pos] = -1); erase nextIndex[pos + 1]; pos += 2;
 *   nextIndex[pos] == -1       -> pos += 1.
 * Chains are disjoint and each is touched by exactly one thread, so the result does not depend on
 * the schedule. Returns the modified nextIndex: entries != -1 mark pair starts.
 */
export function coincidenceSelect(s: Singles, nextIndexIn: Int32Array, opts: CoincidenceOptions = {}): Int32Array {
  const w = windowOf(opts);
  const t = s.time;
  const n = t.length;
  const next = Int32Array.from(nextIndexIn);
  for (let i = 0; i < n; i++) {
    // leftIndex(data, i)
    let cur = i;
    while (cur - 1 >= 0 && t[cur]! - t[cur - 1]! <= w) cur--;
    const pos0 = cur; // == i when i starts a chain
    if (nextIndexIn[i] === -1 && pos0 !== i) {
      let pos = pos0;
      while (pos <= i) {
        const np = next[pos]!;
        if (np !== -1 && np - pos >= 2) {
          for (let b = pos; b <= np; b++) next[b] = -1;
          pos = np + 1;
        } else if (np !== -1 && np - pos === 1) {
          if (s.crystal[pos] === s.crystal[np]) next[pos] = -1;
          next[pos + 1] = -1;
          pos += 2;
        } else {
          pos += 1;
        }
      }
    }
  }
  return next;
}

/** Kernels 3 and 4 (count + scan, fill): one pair (i, i + 1) per entry with selected[i] != -1, in index order. */
export function coincidenceFill(s: Singles, selected: Int32Array): CoincidencePairs {
  const idx: number[] = [];
  for (let i = 0; i < selected.length; i++) if (selected[i] !== -1) idx.push(i);
  return pairsFromStarts(s, idx);
}

function pairsFromStarts(s: Singles, starts: number[]): CoincidencePairs {
  const m = starts.length;
  const p: CoincidencePairs = {
    count: m,
    index0: new Uint32Array(m),
    index1: new Uint32Array(m),
    crystal0: new Uint32Array(m),
    crystal1: new Uint32Array(m),
    energy0: new Float32Array(m),
    energy1: new Float32Array(m),
    time0: new Float64Array(m),
    time1: new Float64Array(m),
  };
  for (let k = 0; k < m; k++) {
    const a = starts[k]!;
    const b = a + 1;
    p.index0[k] = a;
    p.index1[k] = b;
    p.crystal0[k] = s.crystal[a]!;
    p.crystal1[k] = s.crystal[b]!;
    p.energy0[k] = s.energy[a]!;
    p.energy1[k] = s.energy[b]!;
    p.time0[k] = s.time[a]!;
    p.time1[k] = s.time[b]!;
  }
  return p;
}

/**
 * Time coincidence on time-sorted singles, stated directly (this is what the four kernels
 * compute; `coincidenceFourKernels` runs them literally and the tests check both agree):
 *
 *   i = 0
 *   while i < n:
 *     j = last index with time[j] - time[i] <= window (j >= i)
 *     if j == i:       i += 1                       (nothing within the window)
 *     elif j == i + 1: emit (i, i + 1) if crystal[i] != crystal[i + 1]; i += 2
 *     else:            i = j + 1                     (3 or more singles: all rejected)
 *
 * So a window is opened at the first unconsumed single; a pair is made only when exactly two
 * singles fall in [time[i], time[i] + window] and their crystals differ. Note that the second
 * single of a pair may have a later neighbour within the window of itself (it is not checked),
 * exactly as in the seed. Throws CoincidenceOptionsError if the singles are not sorted by time.
 */
export function coincidencesReference(s: Singles, opts: CoincidenceOptions = {}): CoincidencePairs {
  const w = windowOf(opts);
  const t = s.time;
  checkSorted(t);
  const n = t.length;
  const starts: number[] = [];
  let i = 0;
  while (i < n) {
    let j = i;
    while (j + 1 < n && t[j + 1]! - t[i]! <= w) j++;
    if (j === i) {
      i += 1;
    } else if (j === i + 1) {
      if (s.crystal[i] !== s.crystal[i + 1]) starts.push(i);
      i += 2;
    } else {
      i = j + 1;
    }
  }
  return pairsFromStarts(s, starts);
}

/** The seed's four kernels run one after another (sequentially): nextIndex, select, count/fill. */
export function coincidenceFourKernels(s: Singles, opts: CoincidenceOptions = {}): CoincidencePairs {
  checkSorted(s.time);
  const next = coincidenceNextIndex(s, opts);
  const sel = coincidenceSelect(s, next, opts);
  return coincidenceFill(s, sel);
}
