// The serial backend's block order: a seeded bijection of [0, total) computed per index, so
// grids of any size (up to 2⁵³ blocks) are permuted without materialising a table.
//
// A 4-round Feistel network over the smallest even-bit-width power of two ≥ total, with
// cycle walking to stay inside [0, total). The round function is splitmix-style mixing of
// (key, round, half). Bits beyond 2³² are handled by splitting the index into two halves
// each ≤ 26 bits (total ≤ 2⁵²), which is plenty: a launch of 2⁵² blocks is not run.

function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

export class BlockOrder {
  private readonly halfBits: number;
  private readonly halfMask: number;
  private readonly keys: number[];

  constructor(readonly total: number, seedLo: number, seedHi: number) {
    let bits = 2;
    while (2 ** bits < total) bits += 2;
    this.halfBits = bits / 2;
    this.halfMask = 2 ** this.halfBits - 1;
    this.keys = [0, 1, 2, 3].map((r) => mix32(seedLo ^ mix32(seedHi + r * 0x9e3779b9)));
  }

  private encrypt(x: number): number {
    const m = this.halfMask;
    const size = m + 1;
    let left = Math.floor(x / size);
    let right = x % size;
    for (const k of this.keys) {
      const f = (mix32(right ^ k) & m) >>> 0;
      const next = (left ^ f) >>> 0;
      left = right;
      right = next & m;
    }
    return left * size + right;
  }

  /** The block to run k-th. */
  at(k: number): number {
    if (this.total <= 1) return 0;
    let x = this.encrypt(k);
    while (x >= this.total) x = this.encrypt(x);
    return x;
  }
}
