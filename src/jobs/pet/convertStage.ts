/**
 * The convert stage of the PET job (petCrystalLut + petConvert) on its own, on any GpuDevice —
 * wasm, serial or webgpu (petConvert's WGSL twin, petCrystalLut's generated WGSL) — with runPet's launch shapes. Used to
 * cross-check the stage between backends (src/crosscheck/jobs/pet.ts); runPet itself is
 * unchanged.
 */
import type { GpuDevice } from '../../deviceApi.js';
import { compactionSharedBytes } from '../../kernels/primitives.js';
import { PET_SHAPES, petConvert } from '../../kernels/pet.js';
import { shippedKernels } from '../../shippedModule.js';
import { frameCount } from './format.js';
import { geometrySizes, type PetGeometry } from './geometry.js';
import { DEFAULT_ENERGY_WINDOW } from './reference.js';

export const NO_BAD_FRAME = 0x7fffffff;

export interface PetConvertStageResult {
  /** petCrystalLut's table: (crystal, energy-row start) per (bdm, du, origin). */
  lut: Uint32Array;
  /** Every frame converted, uncompacted: 4 words per frame {crystal, energy bits, time lo, time hi}. */
  converted: Uint32Array;
  /** The kept singles, 4 words each, blocks in atomicAdd order (schedule dependent). */
  singles: Uint32Array;
  count: number;
  /** Smallest index of an out-of-geometry frame, or 0x7fffffff. */
  badFrame: number;
}

/** Runs petCrystalLut and petConvert on `device` (no validation beyond runPet's shapes: use validatePetInputs first). */
export async function runPetConvertStage(device: GpuDevice, frames: Uint8Array, g: PetGeometry,
  tables: { positionTable: Uint8Array; energyTable: Float32Array },
  energyWindow: readonly [number, number] | null = DEFAULT_ENERGY_WINDOW): Promise<PetConvertStageResult> {
  const n = frameCount(frames);
  const s = geometrySizes(g);
  const owned: { free(): void }[] = [];
  const keep = <T extends { free(): void }>(a: T): T => { owned.push(a); return a; };
  try {
    const dFrames = keep(await device.upload('u8', n > 0 ? frames : new Uint8Array(16)));
    const dPos = keep(await device.upload('u8', tables.positionTable));
    const dEnergy = keep(await device.upload('f32', tables.energyTable));
    const dGeo = keep(await device.upload('u32', new Uint32Array([s.bdmCount, g.duNum, g.positionSize, s.crystalsPerDu,
      s.bdmPerRing, g.blockNumY, g.blockNumZ, g.crystalNumY, g.crystalNumZ, s.crystalsPerRing])));
    const words = 4 * Math.max(1, n);
    const dst = keep(device.alloc('u32', words));
    const dstBuffer = keep(device.alloc('u32', words));
    const counter = keep(await device.upload('u32', new Uint32Array([0])));
    const badFrame = keep(await device.upload('i32', new Int32Array([NO_BAD_FRAME])));
    const lutCount = s.bdmCount * g.duNum * s.crystalsPerDu;
    const dLut = keep(device.alloc('u32', 2 * lutCount));
    await device.launch((await shippedKernels(device)).petCrystalLut!, { grid: Math.ceil(lutCount / 256), block: 256 }, [dGeo, dLut, lutCount]);
    const ct = PET_SHAPES.convertThreads, ce = PET_SHAPES.convertElems;
    if (n > 0) {
      const w = energyWindow;
      await device.launch(petConvert, { grid: Math.ceil(n / (ct * ce)), block: ct, sharedBytes: compactionSharedBytes(ct) },
        [dFrames, n, dst, dstBuffer, counter, dPos, dLut, dEnergy, dGeo, w ? w[0] : 0, w ? w[1] : 0, w ? 1 : 0, badFrame, ce]);
    }
    const count = (await counter.read())[0]!;
    return {
      lut: await dLut.read(),
      converted: n > 0 ? await dstBuffer.read() : new Uint32Array(0),
      singles: n > 0 ? (await dst.read()).slice(0, 4 * Math.min(count, n)) : new Uint32Array(0),
      count,
      badFrame: (await badFrame.read())[0]!,
    };
  } finally {
    for (const a of owned) a.free();
  }
}

/** The records of `words` (4 words each) in a canonical order (time, crystal, energy bits): for multiset comparison. */
export function sortRecords(words: Uint32Array): Uint32Array {
  const k = words.length >>> 2;
  const idx = Array.from({ length: k }, (_, i) => i);
  const key = (i: number, w: number): number => words[4 * i + w]!;
  idx.sort((a, b) => (key(a, 3) - key(b, 3)) || (key(a, 2) - key(b, 2)) || (key(a, 0) - key(b, 0)) || (key(a, 1) - key(b, 1)));
  const out = new Uint32Array(words.length);
  idx.forEach((i, j) => out.set(words.subarray(4 * i, 4 * i + 4), 4 * j));
  return out;
}

/** NaN energies written as 0x7fc00000 (wasm's f32 NaN sign/payload may vary by operation). */
export function canonicalNaNEnergies(words: Uint32Array): Uint32Array {
  const out = Uint32Array.from(words);
  for (let i = 1; i < out.length; i += 4) if ((out[i]! & 0x7fffffff) > 0x7f800000) out[i] = 0x7fc00000;
  return out;
}
