// destroy() during a kernel that never ends must not wait out the launch timeout: it cancels
// the running launch (the workers are terminated), rejects the queued ones with
// DeviceDestroyedError, and a launch issued after destroy() rejects at once.
import { describe, expect, it } from 'vitest';
import { createDevice } from '../../src/device.js';
import { DeviceDestroyedError } from '../../src/errors.js';
import { kernels } from '../../src/index.js';

describe('destroy() cancels what runs and rejects what is queued', () => {
  for (const backend of ['wasm', 'serial'] as const) {
    it(`${backend}: a never-ending kernel with the default 10-minute timeout`, async () => {
      const dev = await createDevice({ backend, memoryBytes: 16 << 20, workers: 2 });
      const out = dev.alloc('i32', 6);
      const running = dev.launch(kernels.spin, { grid: 2, block: 1 }, [-1, out]).catch((e: unknown) => e);
      const queued = dev.launch(kernels.writeIndices, { grid: 1, block: 1 }, [out]).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 100));
      const t0 = performance.now();
      const destroyed = dev.destroy();
      // Issued while destroy() is under way: rejected at once, not queued.
      const after = dev.launch(kernels.writeIndices, { grid: 1, block: 1 }, [out]).catch((e: unknown) => e);
      await destroyed;
      expect(performance.now() - t0).toBeLessThan(5_000);
      expect(await running).toBeInstanceOf(DeviceDestroyedError);
      expect(await queued).toBeInstanceOf(DeviceDestroyedError);
      expect(await after).toBeInstanceOf(DeviceDestroyedError);
      await expect(dev.launch(kernels.writeIndices, { grid: 1, block: 1 }, [out])).rejects.toBeInstanceOf(DeviceDestroyedError);
      expect(() => dev.alloc('i32', 1)).toThrow(DeviceDestroyedError);
      await dev.destroy(); // twice is fine
    });
  }

  it('a second destroy() while the first runs waits for the same teardown', async () => {
    const dev = await createDevice({ memoryBytes: 16 << 20, workers: 1 });
    const out = dev.alloc('i32', 1);
    const running = dev.launch(kernels.spin, { grid: 1, block: 1 }, [-1, out]).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    await Promise.all([dev.destroy(), dev.destroy()]);
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(await running).toBeInstanceOf(DeviceDestroyedError);
    expect(dev.isDestroyed).toBe(true);
  });
});
