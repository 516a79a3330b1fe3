// Seed 001's conversion of raw 16-byte DataFrameV2 frames into SinglesStruct records
// (kernels/pet/records.ts), per thread as the seed writes it, plus petCrystalLut, which tabulates
// the seed's per-frame crystal formulas once per (BDM, DU, position-table entry). CUDA:
//
//   template <unsigned threadsConvert, unsigned elemsConvert>
//   __global__ void convertUdpToSinglesKernel(DataFrameV2* src, SinglesStruct* dst, SinglesStruct* dstBuffer,
//       unsigned arrayLength, const CoinPetPara mCoinPetPara, uint8* d_m_pPositionTable,
//       float* d_m_pEnergyCorrFactor, bool mIsCoinEnergy, unsigned* coinEnergyLength) {
//     unsigned offset, dataBlockLength;
//     calcDataBlockLength<threadsConvert, elemsConvert>(offset, dataBlockLength, arrayLength);
//     unsigned localTrue = 0, scanTrue = 0;
//     for (unsigned tx = threadIdx.x; tx < dataBlockLength; tx += threadsConvert) {
//       temp.globalBDMIndex = src[offset + tx].nBDM;
//       temp.localDUIndex = src[offset + tx].nHeadAndDU & (0x0F);
//       uint64 nTimeTemp = src[offset + tx].nTime[0];
//       for (unsigned i = 1; i <= 7; ++i) { nTimeTemp <<= 8; nTimeTemp |= src[offset + tx].nTime[i]; }
//       temp.timevalue = (double)nTimeTemp;
//       uint32 originCrystalIndex = (d_m_pPositionTable + temp.globalBDMIndex * m_nDUNum * m_nPositionSize * m_nPositionSize
//           + temp.localDUIndex * m_nPositionSize * m_nPositionSize)[src[offset + tx].X + src[offset + tx].Y * positionSize];
//       … localCrystalIndex, nCrystalIdInRing, nRingId (the formulas petCrystalLut tabulates)
//       temp.energy = (float)(src[offset + tx].Energy[0] << 8 | src[offset + tx].Energy[1]);
//       dstBuffer[offset + tx].globalCrystalIndex = nCrystalIdInRing + nRingId * nCrystalNumOneRing;
//       dstBuffer[offset + tx].energy = temp.energy * (d_m_pEnergyCorrFactor + … + temp.localCrystalIndex * 1000)[int(floor(temp.energy / 10))];
//       dstBuffer[offset + tx].timevalue = temp.timevalue;
//       localTrue += coinEnergyKernel(dstBuffer[offset + tx].energy, mCoinPetPara);
//     }
//     scanTrue = intraBlockScan<threadsConvert>(localTrue);
//     __syncthreads();
//     __shared__ unsigned globalTrue;
//     if (threadIdx.x == (threadsConvert - 1)) globalTrue = atomicAdd(coinEnergyLength, scanTrue);
//     __syncthreads();
//     unsigned indexTrue = globalTrue + scanTrue - localTrue;
//     for (unsigned tx = threadIdx.x; tx < dataBlockLength; tx += threadsConvert) {
//       SinglesStruct temp = dstBuffer[offset + tx];
//       if (coinEnergyKernel(temp.energy, mCoinPetPara)) dst[indexTrue++] = temp;
//     }
//   }
//
// Interpretations (docs/pet.md): the geometry arrives as words (src/kernels/pet.ts's
// PET_GEOMETRY_WORDS); the energy bin is clamped to 999 (the seed reads past the crystal's 1000
// bins for raw ≥ 10000); coinEnergyKernel (not shown) is eLow ≤ energy ≤ eHigh in f64, and
// useWindow = 0 keeps every frame (mIsCoinEnergy false); a frame whose BDM, DU or (x, y) lies
// outside the geometry (the seed would read outside its tables) is dropped with crystal
// 0xffffffff and energy NaN, and badFrame[0] takes the smallest such index (atomicMin).
// The hand-written form (assembly/kernels/pet/convert.ts) is a declared specialization.
import { threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __shared__, atomicAdd, atomicMin } from "simt/kernel";

const ENERGY_BINS: i32 = 1000;

/** lut[2e], lut[2e + 1] for e = (bdm·duNum + du)·crystalsPerDu + origin: global crystal, energy-table row. */
export function petCrystalLut(geometry: u32[], lut: u32[], count: i32): void {
  const duNum = <i32>geometry[1], crystalsPerDu = <i32>geometry[3], bdmPerRing = <i32>geometry[4];
  const blockNumY = <i32>geometry[5], blockNumZ = <i32>geometry[6], crystalNumY = <i32>geometry[7];
  const crystalNumZ = <i32>geometry[8], crystalsPerRing = <i32>geometry[9];
  for (let e = blockIdx.x * blockDim.x + threadIdx.x; e < count; e += blockDim.x * gridDim.x) {
    const origin = e % crystalsPerDu;
    const bdmDu = e / crystalsPerDu;
    const du = bdmDu % duNum, bdm = bdmDu / duNum;
    const localX = origin % crystalNumZ;
    const localY = origin / crystalNumZ;       // the seed divides by crystalNumY: equal, DUs are square
    const localCrystal = localX + (crystalNumY - 1 - localY) * crystalNumZ;
    const inRing = bdm % bdmPerRing * blockNumY * crystalNumY + du / blockNumZ * crystalNumY + localCrystal / crystalNumZ;
    const ring = bdm / bdmPerRing * blockNumZ * crystalNumZ + du % blockNumZ * crystalNumZ + localCrystal % crystalNumZ;
    lut[2 * e] = <u32>(inRing + ring * crystalsPerRing);
    lut[2 * e + 1] = <u32>((bdmDu * crystalsPerDu + localCrystal) * ENERGY_BINS);
  }
}

/** coinEnergyKernel, and a frame inside the geometry. */
function coinEnergy(crystal: u32, energy: f32, eLow: f64, eHigh: f64, useWindow: i32): bool {
  return crystal != NO_CRYSTAL && (useWindow == 0 || (<f64>energy >= eLow && <f64>energy <= eHigh));
}

/** convertUdpToSinglesKernel: block = threadsConvert threads (a power of two, 32…1024), elems frames each. */
export function petConvert(frames: u8[], n: i32, dst: u32[], dstBuffer: u32[], counter: u32[], positionTable: u8[], lut: u32[],
                           energyTable: f32[], geometry: u32[], eLow: f64, eHigh: f64, useWindow: i32, badFrame: i32[], elems: i32): void {
  const scanTile = __shared__<u32>(2 * 1024);
  const globalTrue = __shared__<u32>(1);
  const elemsPerThreadBlock = blockDim.x * elems;          // calcDataBlockLength
  const offset = blockIdx.x * elemsPerThreadBlock;
  const dataBlockLength = offset + elemsPerThreadBlock <= n ? elemsPerThreadBlock : n - offset;
  const bdmCount = <i32>geometry[0], duNum = <i32>geometry[1], positionSize = <i32>geometry[2], crystalsPerDu = <i32>geometry[3];
  let localTrue: u32 = 0;
  for (let tx = threadIdx.x; tx < dataBlockLength; tx += blockDim.x) {
    const f = 16 * (offset + tx);
    const du = <i32>(frames[f] & 0x0f), bdm = <i32>frames[f + 1];
    let nTimeTemp = <u64>frames[f + 2];
    for (let i = 1; i <= 7; ++i) nTimeTemp = (nTimeTemp << 8) | <u64>frames[f + 2 + i];
    const x = <i32>frames[f + 10], y = <i32>frames[f + 11];
    let crystal = NO_CRYSTAL;
    let energy: f32 = NaN;
    if (bdm < bdmCount && du < duNum && x < positionSize && y < positionSize) {
      const bdmDu = bdm * duNum + du;
      const origin = <i32>positionTable[bdmDu * positionSize * positionSize + x + y * positionSize];
      const e = bdmDu * crystalsPerDu + origin;
      crystal = lut[2 * e];
      const rawCount = (<i32>frames[f + 12] << 8) | <i32>frames[f + 13];
      const raw = <f32>rawCount;
      // The seed's floor(raw / 10.0f) is the integer quotient for raw < 2^16 (a non-integer quotient
      // lies at least 0.1 from an integer): the same bin on a GPU whose f32 division is not
      // correctly rounded (WGSL allows 2.5 ULP, and 30 / 10 may come out below 3).
      energy = raw * energyTable[<i32>lut[2 * e + 1] + min(rawCount / 10, ENERGY_BINS - 1)];
    } else {
      atomicMin(badFrame, 0, offset + tx);
    }
    const time = reinterpret<u64>(<f64>nTimeTemp);
    const i = 4 * (offset + tx);
    dstBuffer[i] = crystal;
    dstBuffer[i + 1] = reinterpret<u32>(energy);
    dstBuffer[i + 2] = <u32>time;
    dstBuffer[i + 3] = <u32>(time >> 32);
    if (coinEnergy(crystal, energy, eLow, eHigh, useWindow)) localTrue++;
  }
  const scanTrue = intraBlockScan(scanTile, localTrue, blockDim.x, 1);
  __syncthreads();
  if (threadIdx.x == blockDim.x - 1) globalTrue[0] = atomicAdd(counter, 0, scanTrue);
  __syncthreads();
  let indexTrue = <i32>(globalTrue[0] + scanTrue - localTrue);
  for (let tx = threadIdx.x; tx < dataBlockLength; tx += blockDim.x) {
    const i = offset + tx;
    if (coinEnergy(dstBuffer[4 * i], reinterpret<f32>(dstBuffer[4 * i + 1]), eLow, eHigh, useWindow)) copySingle(dst, indexTrue++, dstBuffer, i);
  }
}
