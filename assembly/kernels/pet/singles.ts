// SinglesStruct as the seed declares it, 16 bytes, one v128:
//   { uint32 globalCrystalIndex; float energy; double timevalue; }   // offsets 0, 4, 8
// A coincidence pair (CoinStruct) is two of them, 32 bytes.

export const SINGLE_BYTES: i32 = 16;
export const PAIR_BYTES: i32 = 32;
/** Crystal index of padding and of frames that failed validation. */
export const NO_CRYSTAL: u32 = 0xffffffff;

// @ts-ignore: decorator
@inline export function singleAt(base: usize, i: i32): usize { return base + (<usize>i << 4); }
// @ts-ignore: decorator
@inline export function timeOf(base: usize, i: i32): f64 { return load<f64>(base + (<usize>i << 4), 8); }
// @ts-ignore: decorator
@inline export function crystalOf(base: usize, i: i32): u32 { return load<u32>(base + (<usize>i << 4)); }
// @ts-ignore: decorator
@inline export function copySingle(dst: usize, src: usize): void { v128.store(dst, v128.load(src)); }
