// createDevice with an invalid option fails with a typed error before any worker starts
// (before: `seed: -1` threw a plain RangeError after the pool started, leaking its workers —
// 20 calls left 40 threads behind).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';

const started = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/platform.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/platform.js')>();
  return { ...real, startWorker: (name: string) => { started.count++; return real.startWorker(name); } };
});

const { createDevice } = await import('../../src/device.js');
const { SimtError } = await import('../../src/errors.js');

afterEach(() => { started.count = 0; });

describe('invalid device options', () => {
  const bad: [string, object, RegExp][] = [
    ['seed -1', { seed: -1 }, /seed.*-1/],
    ['seed 1.5', { seed: 1.5 }, /seed/],
    ['seed NaN', { seed: NaN }, /seed/],
    ['seed 2^53', { seed: 2 ** 53 }, /seed/],
    ['seed as a string', { seed: '7' }, /seed/],
    ['negative bigint seed', { seed: -1n }, /seed/],
    ['serial seed -1', { backend: 'serial', seed: -1 }, /seed/],
    ['launchTimeoutMs 0', { launchTimeoutMs: 0 }, /launchTimeoutMs/],
    ['launchTimeoutMs NaN', { launchTimeoutMs: NaN }, /launchTimeoutMs/],
    ['spinMicros -1', { spinMicros: -1 }, /spinMicros/],
    ['hostSpinMicros NaN', { hostSpinMicros: NaN }, /hostSpinMicros/],
    ['syncWaitMs -5', { syncWaitMs: -5 }, /syncWaitMs/],
    ['workers 0', { workers: 0 }, /workers/],
    ['memoryBytes -1', { memoryBytes: -1 }, /memoryBytes/],
    ['sharedMemoryLimit -1', { sharedMemoryLimit: -1 }, /sharedMemoryLimit/],
    ['unknown backend', { backend: 'cuda' }, /backend/],
  ];
  for (const [what, options, message] of bad) {
    it(`${what}: a typed error, and no worker started`, async () => {
      const err = await createDevice({ memoryBytes: 16 << 20, workers: 2, ...options } as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SimtError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain('\n');
      expect(started.count).toBe(0);
    });
  }

  it('twenty failed calls leave no thread behind', async () => {
    const threads = (): number | undefined => {
      try {
        // Linux: the process's thread count. Elsewhere the startWorker count above suffices.
        const m = /^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'));
        return m ? Number(m[1]) : undefined;
      } catch { return undefined; }
    };
    const before = threads();
    for (let k = 0; k < 20; k++) await createDevice({ memoryBytes: 16 << 20, workers: 2, seed: -1 }).catch(() => undefined);
    expect(started.count).toBe(0);
    const after = threads();
    if (before !== undefined && after !== undefined) expect(after).toBeLessThanOrEqual(before + 2);
  });

  it('a valid device still starts (the mock counts its workers)', async () => {
    const dev = await createDevice({ memoryBytes: 16 << 20, workers: 2, seed: 0 });
    expect(started.count).toBe(2);
    await dev.destroy();
  });
});
