// Launch seeds. A device seed fixes the seed of every launch it makes, in launch order, so a
// whole program replays from one number; a launch may also be given its own seed (e.g. the
// one a previous launch's stats reported) to replay just that launch.

function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97);
  return (x ^ (x >>> 15)) >>> 0;
}

/** A seed is an unsigned integer below 2⁵³ (so it survives JSON and a double). */
export function normalizeSeed(seed: number | bigint): number {
  const s = typeof seed === 'bigint' ? Number(BigInt.asUintN(53, seed)) : seed;
  if (!Number.isSafeInteger(s) || s < 0) throw new RangeError(`seed must be an integer in [0, 2^53), got ${String(seed)}`);
  return s;
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
