// Launch seeds. A device seed fixes the seed of every launch it makes, in launch order, so a
// whole program replays from one number; a launch may also be given its own seed (e.g. the
// one a previous launch's stats reported) to replay just that launch.

function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97);
  return (x ^ (x >>> 15)) >>> 0;
}

/**
 * Why `seed` is not a seed, or undefined when it is one. A seed is an unsigned integer below
 * 2⁵³ (so it survives JSON and a double), or a non-negative bigint (its low 53 bits are used).
 */
export function seedProblem(seed: unknown): string | undefined {
  if (typeof seed === 'bigint') return seed < 0n ? `must be a non-negative bigint, got ${seed}n` : undefined;
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) {
    return `must be an integer in [0, 2^53), got ${typeof seed === 'string' ? `'${seed}'` : String(seed)}`;
  }
  return undefined;
}

/** The seed as a number in [0, 2⁵³); throws a RangeError for what is not a seed (see seedProblem). */
export function normalizeSeed(seed: number | bigint): number {
  const problem = seedProblem(seed);
  if (problem !== undefined) throw new RangeError(`seed ${problem}`);
  return typeof seed === 'bigint' ? Number(BigInt.asUintN(53, seed)) : seed;
}

/** The seed of the n-th launch of a device seeded with `deviceSeed`. */
export function launchSeed(deviceSeed: number, n: number): number {
  const lo = deviceSeed >>> 0;
  const hi = Math.floor(deviceSeed / 2 ** 32) >>> 0;
  const a = mix32(lo ^ mix32(n ^ 0x5bd1e995));
  const b = mix32(hi ^ mix32(a + n + 0x27d4eb2f)) & 0x1fffff;
  return b * 2 ** 32 + a;
}

export function splitSeed(seed: number): [lo: number, hi: number] {
  return [seed >>> 0, Math.floor(seed / 2 ** 32) >>> 0];
}

export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 53);
}
