/**
 * The coincidence stage of the PET job (petCoinNextIndex, petCoinSelect, petCoinCount, the
 * device scan of globalLen, petCoinFill) on its own, on any GpuDevice, with runPet's launch
 * shapes, over time-sorted SinglesStruct records (4 words each). For cross-checking backends;
 * runPet is unchanged.
 */
import type { GpuDevice } from '../../deviceApi.js';
import { blockScanSharedBytes } from '../../kernels/primitives.js';
import { PET_SHAPES, petCoinCount, petCoinFill, petCoinNextIndex, petCoinSelect } from '../../kernels/pet.js';
import { deviceExclusiveScan } from '../../ops/scan.js';
import { Xoshiro128ss } from '../../data/random.js';

export interface PetCoincidenceStageResult {
  /** petCoinNextIndex's output. */
  nextIndex: Int32Array;
  /** After petCoinSelect: != -1 exactly at pair starts. */
  selected: Int32Array;
  scanId: Uint32Array;
  globalLen: Uint32Array;
  count: number;
  /** 8 words per pair (two records), in index order. */
  pairs: Uint32Array;
  pairFirst: Uint32Array;
}

export async function runPetCoincidenceStage(device: GpuDevice, records: Uint32Array, window: number): Promise<PetCoincidenceStageResult> {
  const m = records.length >>> 2;
  const empty: PetCoincidenceStageResult = {
    nextIndex: new Int32Array(0), selected: new Int32Array(0), scanId: new Uint32Array(0), globalLen: new Uint32Array(0),
    count: 0, pairs: new Uint32Array(0), pairFirst: new Uint32Array(0),
  };
  if (m < 2) return empty;
  const owned: { free(): void }[] = [];
  const keep = <T extends { free(): void }>(a: T): T => { owned.push(a); return a; };
  try {
    const cth = PET_SHAPES.coinThreads, cel = PET_SHAPES.coinElems;
    const data = keep(await device.upload('u32', records));
    const nextIndex = keep(device.alloc('i32', m));
    const gridA = Math.ceil(m / (cth * cel));
    await device.launch(petCoinNextIndex, { grid: gridA, block: cth }, [data, nextIndex, m, window, cel]);
    const first = await nextIndex.read();
    await device.launch(petCoinSelect, { grid: gridA, block: cth }, [data, nextIndex, m, window, cel]);
    const selected = await nextIndex.read();
    const gridB = Math.ceil(Math.ceil(m / cel) / cth);
    const scanId = keep(device.alloc('u32', gridB * cth));
    const globalLen = keep(device.alloc('u32', gridB));
    const newLength = keep(await device.upload('u32', new Uint32Array([0])));
    await device.launch(petCoinCount, { grid: gridB, block: cth, sharedBytes: blockScanSharedBytes(cth) },
      [nextIndex, m, scanId, globalLen, newLength, cel]);
    const count = (await newLength.read())[0]!;
    const gl = await globalLen.read();
    await deviceExclusiveScan(device, globalLen, globalLen, gridB);
    const pairs = keep(device.alloc('u32', Math.max(1, 8 * count)));
    const pairFirst = keep(device.alloc('u32', Math.max(1, count)));
    await device.launch(petCoinFill, { grid: gridB, block: cth }, [data, pairs, pairFirst, nextIndex, m, scanId, globalLen, cel]);
    return {
      nextIndex: first, selected, scanId: await scanId.read(), globalLen: gl, count,
      pairs: (await pairs.read()).slice(0, 8 * count), pairFirst: (await pairFirst.read()).slice(0, count),
    };
  } finally {
    for (const a of owned) a.free();
  }
}

/**
 * m time-sorted records with chains of 1–4 singles (gaps ≤ window inside a chain, > window
 * between chains, some exactly = window), crystals from a small set (equal crystals happen),
 * times as f64 of integer ticks from `start` (≥ 2^53 makes the f64 differences round). Every
 * random number is a `uniform()` of `Xoshiro128ss((seed ^ 0x2545f491) >>> 0)`, taken in the order
 * the loop below reads them.
 */
export function coincidenceRecords(m: number, seed: number, window: number, start = 2 ** 40 + 12345): Uint32Array {
  const rng = new Xoshiro128ss((seed ^ 0x2545f491) >>> 0);
  const out = new Uint32Array(4 * m);
  const f32 = new Float32Array(out.buffer);
  const f64 = new Float64Array(1);
  const w64 = new Uint32Array(f64.buffer);
  let t = start;
  let left = 0;
  for (let i = 0; i < m; i++) {
    if (left === 0) { left = 1 + Math.floor(rng.uniform() * 4); if (i > 0) t += window + 1 + Math.floor(rng.uniform() * 3 * window); }
    else t += rng.uniform() < 0.1 ? window : Math.floor(rng.uniform() * window / 2);
    left--;
    out[4 * i] = Math.floor(rng.uniform() * 6);
    f32[4 * i + 1] = 300 + rng.uniform() * 400;
    f64[0] = t;
    out[4 * i + 2] = w64[0]!; out[4 * i + 3] = w64[1]!;
  }
  return out;
}
