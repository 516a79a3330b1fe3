// 10,000 launches in a loop: the device heap, the live allocations and the process heap must
// not grow (no per-launch leak in the host, the pool or the workers' control protocol).
import { describe, expect, it } from 'vitest';
import { kernels } from '../src/index.js';
import { deviceMax } from '../src/ops/reduce.js';
import { testDevice } from './helpers.js';

describe('many launches', async () => {
  const dev = await testDevice({ memoryBytes: 32 << 20, workers: 2 });

  it('10,000 launches with no growth in device or host memory', async () => {
    const data = Float32Array.from({ length: 4096 }, (_, i) => Math.sin(i));
    const A = await dev.upload('f32', data);
    const out = dev.alloc('i32', 64 * 6);
    const gc = (globalThis as { gc?: () => void }).gc;
    expect(gc, 'vitest.config.ts runs the tests with --expose-gc').toBeTypeOf('function');
    const run = async (count: number) => {
      for (let i = 0; i < count; i++) {
        if (i % 10 === 0) {
          const r = await deviceMax(dev, A, { grid: 4, block: 256 }); // allocates and frees partials
          if (r.value !== Math.fround(Math.max(...data))) throw new Error(`wrong max at ${i}`);
        } else {
          await dev.launch(kernels.writeIndices, { grid: 4, block: 16 }, [out]);
        }
      }
    };
    await run(1000); // warm-up: JIT, pools
    gc!();
    const deviceBefore = dev.memoryInfo();
    const heapBefore = process.memoryUsage().heapUsed;
    await run(10_000);
    gc!();
    const deviceAfter = dev.memoryInfo();
    expect(deviceAfter.usedBytes).toBe(deviceBefore.usedBytes);
    expect(deviceAfter.allocations).toBe(deviceBefore.allocations);
    expect(deviceAfter.largestFreeBytes).toBe(deviceBefore.largestFreeBytes);
    // After a full collection a leak of one object per launch would still be ≥ 1 MB.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(2 << 20);
    const v = await out.read();
    expect(v[6 * 63]).toBe(3);
  });
});
