/**
 * simt's one family of seeded pseudo-random numbers. Every seeded data generator of the library
 * and its benchmarks draws from {@link Xoshiro128ss}: the benchmark inputs (`synthetic.ts`, shared
 * bit for bit with the native C references in `bench/native/simt_data.h`), the PET, STS and pixel
 * job generators (`src/jobs/{pet,sts,pixel}/generate.ts`) and the cross-check jobs' inputs
 * (`src/crosscheck/jobs`); so does the tests' `rng` (test/helpers.ts).
 *
 * The algorithm is fixed; every implementation must follow it exactly:
 *
 * 1. **Seeding — splitmix64.** The seed is an unsigned 64-bit integer `x` (a JS `number` must be a
 *    non-negative safe integer; a `bigint` is reduced modulo 2^64). Two splitmix64 outputs are drawn:
 *
 *        x += 0x9E3779B97F4A7C15                       (mod 2^64)
 *        z  = x
 *        z  = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9     (mod 2^64)
 *        z  = (z ^ (z >> 27)) * 0x94D049BB133111EB     (mod 2^64)
 *        z  =  z ^ (z >> 31)
 *
 *    The first output `z1` and second output `z2` give the xoshiro128** state
 *    `s = [lo32(z1), hi32(z1), lo32(z2), hi32(z2)]`. (The state can never be all zero: splitmix64's
 *    output function is a bijection, so two consecutive outputs are never both 0.)
 *
 * 2. **Stream — xoshiro128\*\*** (Blackman & Vigna), all arithmetic on uint32 modulo 2^32:
 *
 *        result = rotl(s1 * 5, 7) * 9
 *        t  = s1 << 9
 *        s2 ^= s0;  s3 ^= s1;  s1 ^= s2;  s0 ^= s3;
 *        s2 ^= t;   s3 = rotl(s3, 11)
 *        return result
 *
 * 3. **Derived draws shared with C** (each consumes exactly one `nextU32()`, called `u` below):
 *    - `uniformInt(bound)` for `1 <= bound <= 2^32`: `floor(u * bound / 2^32)` computed exactly
 *      (in C: `(uint32_t)(((uint64_t)u * bound) >> 32)`, for `bound < 2^32`), a value in
 *      `[0, bound)`. (`bound = 2^32` gives `u` itself.)
 *    - `uniformF32(lo, span)`: `k = u >>> 8` (24 bits); the value `lo + span * (k * 2^-24)` is
 *      computed in f64 and rounded once to f32 (round to nearest even). For the benchmark range
 *      (`lo = -1000, span = 2000`) every f64 step is exact, so the only rounding is the final one
 *      and the result is the same in JS, C (with or without FMA contraction) and wasm; it lies in
 *      `[-1000, 1000)`.
 *
 * 4. **Derived draws of the job generators** (TypeScript only: no C code takes them; the PET
 *    native reference reads its generated frames from files):
 *    - `uniform()`: `u * 2^-32`, exact in f64, a value in `[0, 1)`. One draw.
 *    - `range(lo, hi)` (integers, `lo <= hi`, `hi - lo + 1 <= 2^32`): `lo + uniformInt(hi - lo + 1)`,
 *      a value in `[lo, hi]`. One draw.
 *    - `bernoulli(p)`: `uniform() < p`. One draw.
 *    - `exponential(mean)`: `-ln(1 - uniform()) * mean` (`1 - uniform()` is in `(0, 1]`, so the
 *      value is finite and `>= 0`). One draw.
 *    - `normal()`: a standard normal deviate by Box–Muller, in pairs. A call with no value pending
 *      takes two draws, `u1 = 1 - uniform()` (in `(0, 1]`), then `u2 = uniform()`; with
 *      `r = sqrt(-2 ln u1)` and `a = 2 pi u2` it returns `r cos a` and keeps `r sin a` pending;
 *      the next call returns the pending value and takes no draw.
 *    - `shuffle(a, lo = 0, hi = a.length)`: Fisher–Yates on `a[lo, hi)`: for `i = hi - 1` down to
 *      `lo + 1`, `j = lo + uniformInt(i - lo + 1)`, swap `a[i]` and `a[j]`. `hi - lo - 1` draws.
 *    `exponential` and `normal` go through `Math.log`, `Math.sqrt`, `Math.cos` and `Math.sin`, so
 *    their values are the same wherever those functions are (V8's are fdlibm ports, the same on
 *    every platform), not guaranteed across JavaScript engines; every other draw is exact.
 *
 * 5. **Checksum** (`checksum32`): FNV-1a applied to whole 32-bit words instead of bytes:
 *    `h = 0x811C9DC5; for each word w: h = (h ^ w) * 0x01000193 mod 2^32`. A `Float32Array` is
 *    hashed through its bit patterns, a `Uint16Array` one element (zero-extended) per word.
 */
import { pinErrorNames, SimtError } from '../errors.js';

/** A seed or a draw's argument outside its range (the message names which and why). */
export class RandomArgumentError extends SimtError {}
pinErrorNames({ RandomArgumentError });

const MASK64 = (1n << 64n) - 1n;

/** Splitmix64 seeding (step 1 above): the four 32-bit words of the xoshiro128** state. */
export function seedState(seed: number | bigint): Uint32Array {
  let x: bigint;
  if (typeof seed === 'bigint') {
    x = seed & MASK64;
  } else {
    if (!Number.isSafeInteger(seed) || seed < 0) {
      throw new RandomArgumentError(`seed must be a non-negative safe integer or a bigint, got ${seed}`);
    }
    x = BigInt(seed);
  }
  const s = new Uint32Array(4);
  for (let k = 0; k < 2; k++) {
    x = (x + 0x9e3779b97f4a7c15n) & MASK64;
    let z = x;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    z = z ^ (z >> 31n);
    s[2 * k] = Number(z & 0xffffffffn);
    s[2 * k + 1] = Number(z >> 32n);
  }
  return s;
}

/** xoshiro128** generator seeded by splitmix64. Not cryptographic; deterministic everywhere. */
export class Xoshiro128ss {
  /** The four state words; exposed so that fast fill loops can work on locals and write back. */
  readonly s: Uint32Array;
  /** `normal()`'s second value of a Box–Muller pair, returned by the next call when `hasSpareNormal`. */
  private spareNormal = 0;
  private hasSpareNormal = false;

  constructor(seed: number | bigint) {
    this.s = seedState(seed);
  }

  /** Next raw output, an unsigned 32-bit integer. */
  nextU32(): number {
    const s = this.s;
    const s0 = s[0]!, s1 = s[1]!, s2 = s[2]!, s3 = s[3]!;
    const m = Math.imul(s1, 5);
    const result = Math.imul((m << 7) | (m >>> 25), 9) >>> 0;
    const t = s1 << 9;
    const n2 = s2 ^ s0;
    const n3 = s3 ^ s1;
    s[1] = s1 ^ n2;
    s[0] = s0 ^ n3;
    s[2] = n2 ^ t;
    s[3] = (n3 << 11) | (n3 >>> 21);
    return result;
  }

  /** Integer in `[0, bound)`, `1 <= bound <= 2^32`: exactly `floor(u * bound / 2^32)`. */
  uniformInt(bound: number): number {
    if (!(bound >= 1 && bound <= 0x100000000 && Math.floor(bound) === bound)) {
      throw new RandomArgumentError(`uniformInt: bound must be an integer in [1, 2^32], got ${bound}`);
    }
    const u = this.nextU32();
    // Below 2^21, u * bound < 2^53 is exact and so is its scaling by 2^-32: one floor suffices.
    if (bound <= 0x200000) return Math.floor(u * bound * 2.3283064365386963e-10);
    // Otherwise u * bound can exceed 2^53; split u into 16-bit halves so every product is exact.
    const a = (u >>> 16) * bound;
    const b = (u & 0xffff) * bound;
    return Math.floor((a + Math.floor(b / 65536)) / 65536);
  }

  /** `u * 2^-32`: a float in `[0, 1)` carrying all 32 random bits. */
  uniform(): number {
    return this.nextU32() * 2.3283064365386963e-10;
  }

  /** Integer in `[lo, hi]` (inclusive): `lo + uniformInt(hi - lo + 1)`. */
  range(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi < lo) {
      throw new RandomArgumentError(`range: needs integers lo <= hi, got [${lo}, ${hi}]`);
    }
    return lo + this.uniformInt(hi - lo + 1);
  }

  /** `true` with probability `p`: `uniform() < p`. */
  bernoulli(p: number): boolean {
    return this.uniform() < p;
  }

  /** Exponential deviate of the given mean: `-ln(1 - uniform()) * mean`. */
  exponential(mean: number): number {
    return -Math.log(1 - this.uniform()) * mean;
  }

  /** Standard normal deviate (Box–Muller; each pair's second value is returned by the next call). */
  normal(): number {
    if (this.hasSpareNormal) {
      this.hasSpareNormal = false;
      return this.spareNormal;
    }
    const u1 = 1 - this.uniform(); // (0, 1], so the log is finite
    const u2 = this.uniform();
    const r = Math.sqrt(-2 * Math.log(u1));
    const a = 2 * Math.PI * u2;
    this.spareNormal = r * Math.sin(a);
    this.hasSpareNormal = true;
    return r * Math.cos(a);
  }

  /** Fisher–Yates shuffle of `a[lo, hi)` in place (see the module comment for the draw order). */
  shuffle<T extends { [i: number]: unknown; length: number }>(a: T, lo = 0, hi = a.length): T {
    for (let i = hi - 1; i > lo; i--) {
      const j = lo + this.uniformInt(i - lo + 1);
      const tmp = a[i];
      a[i] = a[j];
      a[j] = tmp;
    }
    return a;
  }

  /** `lo + span * (k * 2^-24)` with `k = nextU32() >>> 8`, rounded to f32. */
  uniformF32(lo: number, span: number): number {
    return Math.fround(lo + span * ((this.nextU32() >>> 8) * 5.9604644775390625e-8));
  }

  /**
   * Fills `out` with consecutive `uniformF32(lo, span)` draws (same stream, same values), with the
   * state held in locals: ~2-3 ns per value on V8.
   */
  fillF32(out: Float32Array, lo: number, span: number, start = 0, end = out.length): void {
    const s = this.s;
    let s0 = s[0]! | 0, s1 = s[1]! | 0, s2 = s[2]! | 0, s3 = s[3]! | 0;
    const scale = span * 5.9604644775390625e-8; // span * 2^-24: exact for span = 2000
    for (let i = start; i < end; i++) {
      const m = Math.imul(s1, 5);
      const r = Math.imul((m << 7) | (m >>> 25), 9);
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      // span * 2^-24 and k * 2^-24 are both exact (power-of-two scaling), so k * scale rounds
      // the same real number as span * (k * 2^-24): identical to uniformF32 for every span.
      out[i] = lo + (r >>> 8) * scale;
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
  }
}

/** FNV-1a over 32-bit words (see the module comment); `h` lets a checksum continue over chunks. */
export function checksum32(
  data: Float32Array | Uint32Array | Int32Array | Uint16Array,
  start = 0,
  end = data.length,
  h = 0x811c9dc5,
): number {
  let words: Uint32Array | Int32Array | Uint16Array;
  if (data instanceof Float32Array) {
    words = new Uint32Array(data.buffer, data.byteOffset, data.length);
  } else {
    words = data;
  }
  let x = h | 0;
  for (let i = start; i < end; i++) {
    x = Math.imul(x ^ words[i]!, 0x01000193);
  }
  return x >>> 0;
}
