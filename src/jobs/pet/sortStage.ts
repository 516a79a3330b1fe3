/**
 * The sort stage of the PET job (petPadSingles, petSortTiles, then per merge pass
 * petMergeRanks + petMergeBlocks) on its own, on any GpuDevice, recording what every kernel
 * produced so that backends can be compared kernel by kernel. runPet's own sort
 * (sortSinglesByTime) is unchanged; the only difference here is petSortTiles' block: 512
 * threads (the seed's) where the device allows it, else the largest power of two it allows
 * (256 on SwiftShader) — the tile stays 1024 records, so the result is the same.
 */
import type { GpuDevice } from '../../deviceApi.js';
import { PET_SHAPES, petMergeBlocks, petMergeRanks, petSortTiles } from '../../kernels/pet.js';
import { shippedKernels } from '../../shippedModule.js';

export interface PetSortStageResult {
  /** After petPadSingles + petSortTiles: 4 words per record, n2 records. */
  tiles: Uint32Array;
  /** Per merge pass: the rank arrays and the merged records. */
  passes: { ranksEven: Uint32Array; ranksOdd: Uint32Array; merged: Uint32Array }[];
  /** The sorted records [0, m). */
  sorted: Uint32Array;
  sortBlock: number;
}

function nextPow2(x: number): number { let p = 1; while (p < x) p *= 2; return p; }

export async function runPetSortStage(device: GpuDevice, records: Uint32Array): Promise<PetSortStageResult> {
  const m = records.length >>> 2;
  const n2 = Math.max(nextPow2(m), PET_SHAPES.sortTile);
  let sortBlock = PET_SHAPES.sortThreads;
  while (sortBlock > device.maxThreadsPerBlock) sortBlock >>= 1;
  const init = new Uint32Array(4 * n2);
  init.set(records);
  const owned: { free(): void }[] = [];
  const keep = <T extends { free(): void }>(a: T): T => { owned.push(a); return a; };
  try {
    let data = keep(await device.upload('u32', init));
    let other = keep(await device.upload('u32', init));
    const passes: PetSortStageResult['passes'] = [];
    if (m <= 1) return { tiles: init, passes, sorted: records.slice(), sortBlock };
    await device.launch((await shippedKernels(device)).petPadSingles!, { grid: Math.min(1024, Math.ceil((n2 - m) / 256) || 1), block: 256 }, [data, other, m, n2]);
    // The tile's two halves in shared memory, as runPet gives it: the generic kernel (and the wasm
    // specialization) index them there; the WGSL twin declares its own workgroup arrays.
    await device.launch(petSortTiles, { grid: n2 / PET_SHAPES.sortTile, block: sortBlock, sharedBytes: 2 * PET_SHAPES.sortTile * 16 }, [data, m]);
    const tiles = await data.read();
    const sub = PET_SHAPES.subBlock;
    const ranksEven = keep(device.alloc('u32', n2 / sub));
    const ranksOdd = keep(device.alloc('u32', n2 / sub));
    for (let S = PET_SHAPES.sortTile; S < m; S *= 2) {
      await device.launch(petMergeRanks, { grid: Math.ceil(n2 / sub / 256), block: 256 }, [data, ranksEven, ranksOdd, S, m, n2]);
      await device.launch(petMergeBlocks, { grid: { x: (2 * S) / sub, y: n2 / (2 * S) }, block: sub, sharedBytes: 2 * sub * 16 },
        [data, other, ranksEven, ranksOdd, S, m]);
      [data, other] = [other, data];
      // Only the pairs that hold real records are written (padding-only pairs are skipped).
      const used = Math.min(n2, Math.ceil(m / (2 * S)) * 2 * S);
      passes.push({
        ranksEven: (await ranksEven.read()).slice(0, used / sub), ranksOdd: (await ranksOdd.read()).slice(0, used / sub),
        merged: (await data.read()).slice(0, 4 * used),
      });
    }
    const out = await data.read();
    return { tiles, passes, sorted: out.slice(0, 4 * m), sortBlock };
  } finally {
    for (const a of owned) a.free();
  }
}
