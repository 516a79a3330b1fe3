/**
 * Scanner geometry of the PET pipeline, mirroring the seed's `CoinPetPara` fields that the
 * conversion kernel reads, plus the derived table sizes.
 *
 * Hierarchy (from the kernel's index formulas):
 *   scanner = moduleNumZ axial rings of (channelNum * moduleNumY) BDMs around the ring;
 *   BDM     = DU_NUM detector units, arranged blockNumY (transaxial) x blockNumZ (axial),
 *             DU index du = duY * blockNumZ + duZ;
 *   DU      = crystalNumY x crystalNumZ crystals; the position table maps a flood-map pixel (x, y)
 *             to an "origin" crystal index inside the DU.
 * Global BDM index bdm = axialModule * (channelNum * moduleNumY) + transaxialBdm.
 *
 * Guesses, documented here and in the reference:
 * - `channelNum` is the number of BDMs (readout channels) around one ring (the commented-out
 *   formula `globalBDMIndex % m_nChannelNum` in the seed);
 * - `crystalSize` is the crystal count along one side of a DU (the energy table strides by
 *   `crystalSize * crystalSize` per DU while the crystal index ranges over
 *   `crystalNumY * crystalNumZ`); the seed's formulas also divide the origin index by
 *   `crystalNumY` where the row length is `crystalNumZ`. Those formulas agree only for square
 *   DUs, so validateGeometry requires crystalNumY == crystalNumZ == crystalSize;
 * - `m_nDUNum` must equal blockNumY * blockNumZ (the DU index is split with `/ blockNumZ` and
 *   `% blockNumZ`), and is at most 16 because the DU index is a 4-bit nibble;
 * - the BDM count is channelNum * moduleNumY * moduleNumZ and must fit the 8-bit `nBDM` field;
 * - moduleNumX, blockNumX and crystalNumX (radial) are read by nothing (commented out in the
 *   seed) and must be 1 here.
 */

export interface PetGeometry {
  /** m_nChannelNum: BDMs around one ring (per moduleNumY). */
  channelNum: number;
  moduleNumX: number;
  moduleNumY: number;
  moduleNumZ: number;
  blockNumX: number;
  blockNumY: number;
  blockNumZ: number;
  crystalNumX: number;
  crystalNumY: number;
  crystalNumZ: number;
  /** m_nCrystalSize: crystals along one DU side. */
  crystalSize: number;
  /** m_nPositionSize: flood-map side in pixels (x, y < positionSize). */
  positionSize: number;
  /** m_nDUNum: DUs per BDM. */
  duNum: number;
}

/** Energy-correction bins per crystal; the kernel indexes bin `floor(rawEnergy / 10)`. */
export const ENERGY_BINS_PER_CRYSTAL = 1000;
/** Raw-energy units per energy-correction bin. */
export const ENERGY_BIN_WIDTH = 10;

/**
 * Default small-animal geometry: 8 BDMs in one ring, each BDM 2 x 2 DUs of 8 x 8 crystals,
 * 64 x 64 flood maps. 128 crystals per ring, 16 rings, 2048 crystals.
 */
export const DEFAULT_GEOMETRY: Readonly<PetGeometry> = Object.freeze({
  channelNum: 8,
  moduleNumX: 1,
  moduleNumY: 1,
  moduleNumZ: 1,
  blockNumX: 1,
  blockNumY: 2,
  blockNumZ: 2,
  crystalNumX: 1,
  crystalNumY: 8,
  crystalNumZ: 8,
  crystalSize: 8,
  positionSize: 64,
  duNum: 4,
});

export class GeometryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GeometryError';
  }
}

export class TableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TableError';
  }
}

const FIELDS: (keyof PetGeometry)[] = [
  'channelNum', 'moduleNumX', 'moduleNumY', 'moduleNumZ', 'blockNumX', 'blockNumY', 'blockNumZ',
  'crystalNumX', 'crystalNumY', 'crystalNumZ', 'crystalSize', 'positionSize', 'duNum',
];

/** Checks every constraint listed above; returns the geometry unchanged (frozen copy). */
export function validateGeometry(g: PetGeometry): Readonly<PetGeometry> {
  if (g === null || typeof g !== 'object') throw new GeometryError('geometry must be an object');
  for (const k of FIELDS) {
    const v = (g as unknown as Record<string, unknown>)[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      throw new GeometryError(`geometry.${k} must be a positive integer, got ${String(v)}`);
    }
  }
  for (const k of ['moduleNumX', 'blockNumX', 'crystalNumX'] as const) {
    if (g[k] !== 1) throw new GeometryError(`geometry.${k} must be 1 (radial layers are not modelled), got ${g[k]}`);
  }
  if (g.crystalNumY !== g.crystalNumZ || g.crystalSize !== g.crystalNumY) {
    throw new GeometryError(
      `geometry needs square DUs: crystalNumY (${g.crystalNumY}), crystalNumZ (${g.crystalNumZ}) and crystalSize ` +
        `(${g.crystalSize}) must be equal — the seed's crystal-index formulas are only consistent then`,
    );
  }
  if (g.crystalSize * g.crystalSize > 256) {
    throw new GeometryError(`crystalSize ${g.crystalSize} gives ${g.crystalSize ** 2} crystals per DU; the uint8 position table holds at most 256`);
  }
  if (g.duNum !== g.blockNumY * g.blockNumZ) {
    throw new GeometryError(`geometry.duNum (${g.duNum}) must equal blockNumY * blockNumZ (${g.blockNumY * g.blockNumZ})`);
  }
  if (g.duNum > 16) throw new GeometryError(`geometry.duNum (${g.duNum}) exceeds 16, the range of the 4-bit DU field`);
  if (g.positionSize > 256) throw new GeometryError(`geometry.positionSize (${g.positionSize}) exceeds 256, the range of the uint8 x/y fields`);
  const nBdm = g.channelNum * g.moduleNumY * g.moduleNumZ;
  if (nBdm > 256) throw new GeometryError(`geometry has ${nBdm} BDMs (channelNum * moduleNumY * moduleNumZ); the uint8 nBDM field allows 256`);
  const copy: PetGeometry = { ...g };
  return Object.freeze(copy);
}

/** Sizes derived from a geometry. */
export interface GeometrySizes {
  bdmCount: number;
  /** BDMs around one ring: channelNum * moduleNumY. */
  bdmPerRing: number;
  crystalsPerDu: number;
  crystalsPerRing: number;
  ringCount: number;
  crystalCount: number;
  /** Entries (bytes) of the uint8 position table: bdmCount * duNum * positionSize^2. */
  positionTableLength: number;
  /** Entries (float32) of the energy-correction table: bdmCount * duNum * crystalSize^2 * 1000. */
  energyTableLength: number;
}

export function geometrySizes(g: PetGeometry): GeometrySizes {
  validateGeometry(g);
  const bdmPerRing = g.channelNum * g.moduleNumY;
  const bdmCount = bdmPerRing * g.moduleNumZ;
  const crystalsPerDu = g.crystalSize * g.crystalSize;
  const crystalsPerRing = g.crystalNumY * g.blockNumY * bdmPerRing;
  const ringCount = g.moduleNumZ * g.blockNumZ * g.crystalNumZ;
  return {
    bdmCount,
    bdmPerRing,
    crystalsPerDu,
    crystalsPerRing,
    ringCount,
    crystalCount: crystalsPerRing * ringCount,
    positionTableLength: bdmCount * g.duNum * g.positionSize * g.positionSize,
    energyTableLength: bdmCount * g.duNum * crystalsPerDu * ENERGY_BINS_PER_CRYSTAL,
  };
}

/** Offset of the (bdm, du) flood map inside the position table. */
export function positionTableBase(g: PetGeometry, bdm: number, du: number): number {
  return (bdm * g.duNum + du) * g.positionSize * g.positionSize;
}

/** Offset of the (bdm, du, localCrystal) 1000-bin row inside the energy table. */
export function energyTableBase(g: PetGeometry, bdm: number, du: number, localCrystal: number): number {
  return ((bdm * g.duNum + du) * g.crystalSize * g.crystalSize + localCrystal) * ENERGY_BINS_PER_CRYSTAL;
}

/**
 * Checks table lengths and contents: every position-table entry must be a crystal index
 * < crystalSize^2, every energy factor finite and >= 0.
 */
export function validateTables(g: PetGeometry, positionTable: Uint8Array, energyTable: Float32Array): void {
  const s = geometrySizes(g);
  if (!(positionTable instanceof Uint8Array)) throw new TableError('position table must be a Uint8Array');
  if (!(energyTable instanceof Float32Array)) throw new TableError('energy-correction table must be a Float32Array');
  if (positionTable.length !== s.positionTableLength) {
    throw new TableError(`position table has ${positionTable.length} entries, geometry needs ${s.positionTableLength} (bdm ${s.bdmCount} x du ${g.duNum} x ${g.positionSize}^2)`);
  }
  if (energyTable.length !== s.energyTableLength) {
    throw new TableError(`energy-correction table has ${energyTable.length} entries, geometry needs ${s.energyTableLength} (bdm ${s.bdmCount} x du ${g.duNum} x ${s.crystalsPerDu} crystals x ${ENERGY_BINS_PER_CRYSTAL} bins)`);
  }
  for (let i = 0; i < positionTable.length; i++) {
    if (positionTable[i]! >= s.crystalsPerDu) {
      throw new TableError(`position table entry ${i} = ${positionTable[i]} is not a crystal index < ${s.crystalsPerDu}`);
    }
  }
  for (let i = 0; i < energyTable.length; i++) {
    const f = energyTable[i]!;
    if (!Number.isFinite(f) || f < 0) throw new TableError(`energy-correction factor ${i} = ${f} is not a finite value >= 0`);
  }
}
