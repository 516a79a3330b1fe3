/**
 * Seeded pseudo-random numbers for the synthetic data generators.
 *
 * Algorithm: xoshiro128** (Blackman & Vigna, 2018; 32-bit state words, period 2^128 - 1),
 * with its 128-bit state filled from the seed by splitmix32 (the 32-bit variant of
 * splitmix64: add the golden-ratio increment 0x9e3779b9, then two xor-shift-multiply
 * rounds). Every generator in `src/jobs` draws only from this class, so the same seed
 * always yields the same data on every platform (all arithmetic is 32-bit integer
 * arithmetic through `Math.imul` and `>>>`; floating-point values are derived from
 * integers by exact scaling).
 */

/** splitmix32 step: returns [next state, output]. Used only to expand a seed. */
export function splitmix32(state: number): [number, number] {
  const s = (state + 0x9e3779b9) | 0;
  let t = s ^ (s >>> 16);
  t = Math.imul(t, 0x21f0aaad);
  t ^= t >>> 15;
  t = Math.imul(t, 0x735a2d97);
  t ^= t >>> 15;
  return [s, t >>> 0];
}

export class RandomSeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RandomSeedError';
  }
}

const INV_2_32 = 1 / 4294967296;

/** xoshiro128** generator. */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  private spareNormal = 0;
  private hasSpareNormal = false;

  /** `seed` must be an integer in [0, 2^32) (negative safe integers are taken modulo 2^32). */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) {
      throw new RandomSeedError(`seed must be a safe integer, got ${seed}`);
    }
    let st = Number(BigInt.asUintN(32, BigInt(seed)));
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [ns, out] = splitmix32(st);
      st = ns;
      words.push(out | 0);
    }
    this.s0 = words[0]!;
    this.s1 = words[1]!;
    this.s2 = words[2]!;
    this.s3 = words[3]!;
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1; // all-zero state is a fixed point
  }

  /** Next uniform 32-bit unsigned integer. */
  nextU32(): number {
    const s1 = this.s1;
    const m = Math.imul(s1, 5);
    const r = Math.imul((m << 7) | (m >>> 25), 9);
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = (this.s3 << 11) | (this.s3 >>> 21);
    return r >>> 0;
  }

  /** Uniform float in [0, 1) with 32 random bits. */
  next(): number {
    return this.nextU32() * INV_2_32;
  }

  /**
   * Uniform integer in [0, n), 1 <= n <= 2^32, computed as floor(u32 * n / 2^32) (one draw, no
   * division). The bias is below n / 2^32 per value — irrelevant for synthetic data, and much
   * faster than rejection sampling with a floating-point modulo.
   */
  int(n: number): number {
    if (!(n >= 1 && n <= 4294967296)) {
      throw new RandomSeedError(`int(n) needs 1 <= n <= 2^32, got ${n}`);
    }
    const r = Math.floor(this.nextU32() * n * INV_2_32);
    return r < n ? r : n - 1;
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** true with probability p. */
  bernoulli(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal deviate (Box–Muller, polar-free form; the second value is cached). */
  normal(): number {
    if (this.hasSpareNormal) {
      this.hasSpareNormal = false;
      return this.spareNormal;
    }
    const u1 = 1 - this.next(); // (0, 1]
    const u2 = this.next();
    const r = Math.sqrt(-2 * Math.log(u1));
    const a = 2 * Math.PI * u2;
    this.spareNormal = r * Math.sin(a);
    this.hasSpareNormal = true;
    return r * Math.cos(a);
  }

  /** Exponential deviate with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /** Fisher–Yates shuffle of a[lo, hi) in place. */
  shuffle<T extends { [i: number]: number | bigint } | unknown[]>(a: T, lo = 0, hi = (a as { length: number }).length): T {
    const arr = a as unknown as unknown[];
    for (let i = hi - 1; i > lo; i--) {
      const j = lo + this.int(i - lo + 1);
      const tmp = arr[i];
      arr[i] = arr[j];
      arr[j] = tmp;
    }
    return a;
  }
}
