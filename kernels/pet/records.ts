// Seed 001's records as simt's PET kernels hold them: u32[] arrays of 4 words per single.
//
//   typedef struct _SinglesStruct {
//     uint32 globalCrystalIndex;     // word 0
//     float  energy;                 // word 1 (the f32's bits)
//     double timevalue;              // words 2 (low) and 3 (high) of the f64's bits
//   } SinglesStruct;
//
// A coincidence pair (CoinStruct: SinglesStruct nCoinStruct[2]) is two of them, 8 words. The
// helpers below are the struct's field accesses and its assignment.
/** globalCrystalIndex of padding and of frames outside the geometry. */
const NO_CRYSTAL: u32 = 0xffffffff;

/** data[i].globalCrystalIndex */
function crystalOf(data: u32[], i: i32): u32 {
  return data[4 * i];
}

/** data[i].energy (its bits as they are) */
function energyOf(data: u32[], i: i32): f32 {
  return reinterpret<f32>(data[4 * i + 1]);
}

/** data[i].timevalue */
function timeOf(data: u32[], i: i32): f64 {
  return reinterpret<f64>((<u64>data[4 * i + 3] << 32) | <u64>data[4 * i + 2]);
}

/** dst[d] = src[s] (one SinglesStruct). */
function copySingle(dst: u32[], d: i32, src: u32[], s: i32): void {
  dst[4 * d] = src[4 * s];
  dst[4 * d + 1] = src[4 * s + 1];
  dst[4 * d + 2] = src[4 * s + 2];
  dst[4 * d + 3] = src[4 * s + 3];
}
