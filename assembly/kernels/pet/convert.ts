// Seed 001's convertUdpToSinglesKernel: raw 16-byte DataFrameV2 frames → SinglesStruct, with
// the position table, the crystal/ring index formulas, the energy-correction table and the
// energy window, compacted by a block scan + one atomicAdd per block.
//
// Launch (seed defaults): block = threadsConvert = 128 threads, each thread converts
// `elems` = 32 frames strided by the block size (tx = t, t + 128, …) inside the block's range
// of blockDim·elems frames (calcDataBlockLength). Shared: compactionTileBytes(blockDim).
//
//   phase 1: every frame of the block → dstBuffer[i] (uncompacted); local[t] = frames kept
//   scan + atomicAdd (primitives/compaction.ts)
//   phase 2: thread t copies its kept singles, in its own order, to dst[start[t]…]
//
// Interpretations (see docs/pet.md):
// - time: nTime is a big-endian u64, converted to f64 with one rounding (u64 → double);
//   energy: big-endian u16 (Energy[0] << 8 | Energy[1]) as float.
// - crystal indices: computed once per (BDM, DU, position-table entry) by petCrystalLut
//   (kernels/pet/convert.ts, the generic kernel the job launches) with the seed's formulas (so
//   the per-frame path does no integer division); localY divides by
//   crystalNumZ (the row length; the seed writes crystalNumY, equal for the square DUs the
//   geometry requires) and crystals per ring include moduleNumY (the seed's formula omits it,
//   equal for moduleNumY = 1).
// - energy bin: floor(float(raw) / 10) clamped to 999 (the seed reads past the crystal's 1000
//   bins for raw ≥ 10000). Corrected energy = float(raw) * factor, in f32.
// - coinEnergyKernel (not shown in the seed): eLow ≤ energy ≤ eHigh, inclusive, compared in
//   f64 (default window 350–650). useWindow = 0 keeps every frame (mIsCoinEnergy false).
// - frames whose BDM, DU or (x, y) lie outside the geometry would read outside the tables in
//   the seed; here they are dropped and the smallest such frame index is recorded in
//   badFrame[0] (atomicMin) so the host can reject the input.

import { blockIdx, blockDim, beginPhase, threadAt, scheduleIsFree, sharedMem, registers, atomicMin } from "../../runtime";
import { compactionOffsets } from "../../primitives/compaction";
import { NO_CRYSTAL, singleAt } from "./singles";

// Geometry words (src/jobs/pet/run.ts packs them).
const G_BDM_COUNT = 0;
const G_DU_NUM = 1;
const G_POSITION_SIZE = 2;
const G_CRYSTALS_PER_DU = 3;
const ENERGY_BINS: i32 = 1000;

// @ts-ignore: decorator
@inline function geo(g: usize, k: i32): i32 { return load<i32>(g + (<usize>k << 2)); }

// @ts-ignore: decorator
@inline function accepted(crystal: u32, e: f32, eLow: f64, eHigh: f64, useWindow: i32): bool {
  return crystal != NO_CRYSTAL && (useWindow == 0 || (<f64>e >= eLow && <f64>e <= eHigh));
}

/** Converts frame i into dstBuffer[i]; returns 1 if it passes the energy window. */
// @ts-ignore: decorator
@inline function convertOne(i: i32, frames: usize, dstBuffer: usize, posTable: usize, lut: usize, energyTable: usize,
                            bdmCount: i32, duNum: i32, P: i32, cpd: i32, eLow: f64, eHigh: f64, useWindow: i32, badFrame: usize): u32 {
  const f = frames + (<usize>i << 4);
  const du = <i32>(load<u8>(f) & 0x0f);
  const bdm = <i32>load<u8>(f, 1);
  const time = <f64>bswap<u64>(load<u64>(f, 2));
  const x = <i32>load<u8>(f, 10);
  const y = <i32>load<u8>(f, 11);
  const raw = (<i32>load<u8>(f, 12) << 8) | <i32>load<u8>(f, 13);
  const out = singleAt(dstBuffer, i);
  if (bdm >= bdmCount || du >= duNum || x >= P || y >= P) {
    atomicMin<i32>(badFrame, i);
    store<u32>(out, NO_CRYSTAL);
    store<f32>(out, NaN, 4);
    store<f64>(out, time, 8);
    return 0;
  }
  const bd = bdm * duNum + du;
  const origin = <i32>load<u8>(posTable + <usize>(bd * P * P + x + y * P));
  const l = lut + (<usize>(bd * cpd + origin) << 3);
  const crystal = load<u32>(l);
  const row = load<u32>(l, 4);
  const ef = <f32>raw;
  let bin = <i32>Mathf.floor(ef / <f32>10);
  if (bin > ENERGY_BINS - 1) bin = ENERGY_BINS - 1;
  const e = ef * load<f32>(energyTable + (<usize>(row + <u32>bin) << 2));
  store<u32>(out, crystal);
  store<f32>(out, e, 4);
  store<f64>(out, time, 8);
  return accepted(crystal, e, eLow, eHigh, useWindow) ? 1 : 0;
}


/**
 * Fast-path half of convertOne: decodes frame i, writes crystal and time of dstBuffer[i] and
 * returns the energy-table index (floats) of its factor; `raw` energy goes to rawOut. Invalid
 * frames return index 0 with raw = NaN (so they fail the window) and NO_CRYSTAL.
 */
// @ts-ignore: decorator
@inline function decodeOne(i: i32, frames: usize, dstBuffer: usize, posTable: usize, lut: usize,
                           bdmCount: i32, duNum: i32, P: i32, cpd: i32, badFrame: usize, rawOut: usize): u32 {
  const f = frames + (<usize>i << 4);
  const du = <i32>(load<u8>(f) & 0x0f);
  const bdm = <i32>load<u8>(f, 1);
  const time = <f64>bswap<u64>(load<u64>(f, 2));
  const x = <i32>load<u8>(f, 10);
  const y = <i32>load<u8>(f, 11);
  const raw = (<i32>load<u8>(f, 12) << 8) | <i32>load<u8>(f, 13);
  const out = singleAt(dstBuffer, i);
  store<f64>(out, time, 8);
  if (bdm >= bdmCount || du >= duNum || x >= P || y >= P) {
    atomicMin<i32>(badFrame, i);
    store<u32>(out, NO_CRYSTAL);
    store<f32>(rawOut, NaN);
    return 0;
  }
  const bd = bdm * duNum + du;
  const origin = <i32>load<u8>(posTable + <usize>(bd * P * P + x + y * P));
  const l = lut + (<usize>(bd * cpd + origin) << 3);
  store<u32>(out, load<u32>(l));
  const ef = <f32>raw;
  store<f32>(rawOut, ef);
  let bin = <i32>Mathf.floor(ef / <f32>10);
  if (bin > ENERGY_BINS - 1) bin = ENERGY_BINS - 1;
  return load<u32>(l, 4) + <u32>bin;
}

const GATHER: i32 = 64;
const REG_INDEX: i32 = 2;
const REG_RAW: i32 = 3;

const REG_LOCAL: i32 = 0;
const REG_START: i32 = 1;

export function petConvert(frames: usize, n: i32, dst: usize, dstBuffer: usize, counter: usize,
                           posTable: usize, lut: usize, energyTable: usize, g: usize,
                           eLow: f64, eHigh: f64, useWindow: i32, badFrame: usize, elems: i32): void {
  const nt = blockDim.x;
  // calcDataBlockLength
  const perBlock = nt * elems;
  const offset = blockIdx.x * perBlock;
  const len = offset + perBlock <= n ? perBlock : n - offset;
  const bdmCount = geo(g, G_BDM_COUNT);
  const duNum = geo(g, G_DU_NUM);
  const P = geo(g, G_POSITION_SIZE);
  const cpd = geo(g, G_CRYSTALS_PER_DU);
  const local = registers(REG_LOCAL);
  const start = registers(REG_START);

  if (scheduleIsFree()) {
    // Phase 1 in frame order (thread of frame offset+j is j mod nt): contiguous reads, and
    // the energy-table reads (random rows of a table of megabytes: cache misses) gathered
    // GATHER at a time in a loop of independent loads, so that the misses overlap.
    memory.fill(local, 0, <usize>(nt << 2));
    const idx = registers(REG_INDEX);
    const raws = registers(REG_RAW);
    let t = 0;
    for (let c0 = 0; c0 < len; c0 += GATHER) {
      const cn = min(GATHER, len - c0);
      for (let j = 0; j < cn; j++) {
        store<u32>(idx + (<usize>j << 2), decodeOne(offset + c0 + j, frames, dstBuffer, posTable, lut, bdmCount, duNum, P, cpd, badFrame, raws + (<usize>j << 2)));
      }
      for (let j = 0; j < cn; j++) {
        const out = singleAt(dstBuffer, offset + c0 + j);
        const e = load<f32>(raws + (<usize>j << 2)) * load<f32>(energyTable + (<usize>load<u32>(idx + (<usize>j << 2)) << 2));
        store<f32>(out, e, 4);
        const p = local + (<usize>t << 2);
        store<u32>(p, load<u32>(p) + (accepted(load<u32>(out), e, eLow, eHigh, useWindow) ? 1 : 0));
        if (++t == nt) t = 0;
      }
    }
  } else {
    const m = beginPhase();
    for (let k = 0; k < m; k++) {
      const t = threadAt(k);
      let c: u32 = 0;
      for (let tx = t; tx < len; tx += nt) {
        c += convertOne(offset + tx, frames, dstBuffer, posTable, lut, energyTable, bdmCount, duNum, P, cpd, eLow, eHigh, useWindow, badFrame);
      }
      store<u32>(local + (<usize>t << 2), c);
    }
  }

  compactionOffsets(local, start, sharedMem(), counter);

  const m = beginPhase();
  for (let k = 0; k < m; k++) {
    const t = threadAt(k);
    let o = load<u32>(start + (<usize>t << 2));
    if (load<u32>(local + (<usize>t << 2)) == 0) continue;
    for (let tx = t; tx < len; tx += nt) {
      const src = singleAt(dstBuffer, offset + tx);
      const rec = v128.load(src);
      if (accepted(i32x4.extract_lane(rec, 0), f32x4.extract_lane(rec, 1), eLow, eHigh, useWindow)) {
        v128.store(singleAt(dst, <i32>o), rec);
        o++;
      }
    }
  }
}
