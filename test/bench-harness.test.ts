// The benchmark harness's warm-up: untimed runs by count and by time (bench/harness.ts).
import { describe, expect, it } from 'vitest';
import { measure, setWarmupMs, warmUp } from '../bench/harness.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('bench warm-up', () => {
  it('runs at least `runs` times and for at least `ms`', async () => {
    let calls = 0;
    await warmUp(() => { calls++; }, 3, 0);
    expect(calls).toBe(3);
    calls = 0;
    const t0 = performance.now();
    await warmUp(async () => { calls++; await sleep(5); }, 1, 40);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(40);
    expect(calls).toBeGreaterThan(1);
    calls = 0;
    await warmUp(() => { calls++; }, 0, 0);
    expect(calls).toBe(0);
  });

  it('measure warms up for the run\'s default time unless the measurement names its own', async () => {
    const timed: number[] = [];
    let calls = 0;
    const fn = async (): Promise<void> => { calls++; await sleep(2); };
    try {
      setWarmupMs(60);
      const t0 = performance.now();
      const r = await measure('w', fn, { iterations: 3, time: 0, warmup: 1 });
      timed.push(performance.now() - t0);
      // 60 ms of 2 ms runs untimed, then the 3 timed ones.
      expect(calls - r.samples.length).toBeGreaterThan(5);
      expect(r.samples).toHaveLength(3);
      calls = 0;
      const own = await measure('w', fn, { iterations: 3, time: 0, warmup: 1, warmupMs: 0 });
      expect(calls - own.samples.length).toBe(1);
    } finally {
      setWarmupMs(0);
    }
    expect(timed[0]).toBeGreaterThanOrEqual(60);
  });
});
