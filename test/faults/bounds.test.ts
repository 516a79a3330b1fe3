// Bounds: no wild or wrapped address may reach the control page unnoticed. wasm32 addresses
// wrap at 4 GiB, so on a 4 GiB device a kernel writing past the end of the last array landed
// at address 0, over the launch protocol: the launch "ended" with garbage or with blocks that
// never ran, and the device was unusable after. The memory now stops 64 MiB below 4 GiB
// (the guard: an overrun traps there), and a write that reaches the control page anyway is a
// ControlPageError after which the workers are fresh. None of this touches more than a few
// pages: a device's memory is reserved, not committed, so a 4 GiB device is cheap to test.
import { describe, expect, it } from 'vitest';
import { createDevice, type Device } from '../../src/device.js';
import { ControlPageError, KernelError, MemorySizeError } from '../../src/errors.js';
import { GUARD_BYTES, MAX_DEVICE_BYTES } from '../../src/layout.js';
import { kernels } from '../../src/index.js';

/** The device works: a launch runs every block, and its results read back. */
async function healthy(dev: Device): Promise<void> {
  const out = dev.alloc('i32', 64 * 6);
  const s = await dev.launch(kernels.writeIndices, { grid: 4, block: 16, timeoutMs: 10_000 }, [out]);
  expect(s.blocks).toBe(4);
  const v = await out.read();
  expect(v[6 * 63 + 0]).toBe(3);
  expect(v[6 * 63 + 3]).toBe(15);
  out.free();
}

describe('bounds: the memory layout', () => {
  it('refuses a 4 GiB device: its last byte is adjacent to address 0 once addresses wrap', async () => {
    const err = await createDevice({ memoryBytes: 2 ** 32, workers: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemorySizeError);
    expect((err as Error).message).toMatch(/largest device, 4227858432 bytes .*64 MiB guard/);
    expect(MAX_DEVICE_BYTES + GUARD_BYTES).toBe(2 ** 32);
  });

  it('a kernel writing past the end of the last array of the largest device traps in the guard; the device stays usable', async () => {
    const dev = await createDevice({ memoryBytes: MAX_DEVICE_BYTES, workers: 2 });
    try {
      expect(dev.memoryBytes).toBe(MAX_DEVICE_BYTES);
      // divide writes out[i] at `out + i*4` (no immediate offset), i < n: 16 KiB of `out` at
      // the very top of the heap, then 80 KiB beyond — which on a 4 GiB device wrapped to 0.
      const n = 4096 + 20_000;
      const a = await dev.upload('i32', new Int32Array(n).fill(7));
      const b = await dev.upload('i32', new Int32Array(n).fill(1));
      const filler = dev.alloc('u8', dev.memoryInfo().largestFreeBytes - 16 * 1024);
      const out = dev.alloc('i32', 4096);
      expect(out.byteOffset + out.byteLength).toBe(MAX_DEVICE_BYTES);
      const err = await dev.launch(kernels.divide, { grid: Math.ceil(n / 256), block: 256, timeoutMs: 20_000 }, [a, b, out, n]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KernelError);
      expect((err as KernelError).trap).toMatch(/out of bounds/);
      // The first out-of-bounds block is 16 (4096 / 256): nothing before it trapped.
      expect((err as KernelError).blockIdx.x).toBeGreaterThanOrEqual(16);
      // What lies below the overrun kept what the kernel wrote there.
      expect((await out.read(4095, 4096))[0]).toBe(7);
      filler.free();
      await healthy(dev);
    } finally {
      await dev.destroy();
    }
  }, 60_000);

  it('a wild write into the control page is a ControlPageError, not a launch that "ran"; fresh workers after it', async () => {
    const dev = await createDevice({ memoryBytes: 16 << 20, workers: 2 });
    try {
      // Word 0 (the generation), a description word (the grid), the claim word: each is caught.
      for (const addr of [0, 8 * 128 + 8, 128]) {
        const err = await dev.launch(kernels.writeAddress, { grid: 1, block: 1, timeoutMs: 10_000 }, [addr, 12345]).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ControlPageError);
        expect((err as Error).message).toMatch(/^kernel writeAddress wrote into the device's control page \(the .* changed during the launch\)/);
        await healthy(dev);
      }
      // A write elsewhere in the heap is the kernel's business: no error.
      const x = dev.alloc('i32', 1);
      await dev.launch(kernels.writeAddress, { grid: 1, block: 1 }, [x.byteOffset, 42]);
      expect((await x.read())[0]).toBe(42);
    } finally {
      await dev.destroy();
    }
  });

  it('an address past the end of memory traps on every device size', async () => {
    const dev = await createDevice({ memoryBytes: 16 << 20, workers: 1 });
    try {
      for (const addr of [16 << 20, MAX_DEVICE_BYTES, 2 ** 32 - 4]) {
        const err = await dev.launch(kernels.writeAddress, { grid: 1, block: 1 }, [addr, 1]).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(KernelError);
      }
      await healthy(dev);
    } finally {
      await dev.destroy();
    }
  });
});
