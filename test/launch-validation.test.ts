import { describe, expect, it } from 'vitest';
import { KernelArgumentError, LaunchConfigError, SharedMemoryLimitError } from '../src/errors.js';
import { defineKernel } from '../src/kernel.js';
import { kernels } from '../src/index.js';
import { createDevice } from '../src/device.js';
import { testDevice } from './helpers.js';

describe('launch validation', async () => {
  const dev = await testDevice({ memoryBytes: 16 << 20, workers: 2, sharedMemoryLimit: 4096 });
  const out = dev.alloc('i32', 6 * 64);
  const { writeIndices, emptyKernel, divide, atomicProbe } = kernels;

  const bad: [string, object, RegExp][] = [
    ['grid 0', { grid: 0, block: 1 }, /grid.x must be at least 1/],
    ['negative block', { grid: 1, block: -4 }, /block.x must be at least 1/],
    ['fractional grid', { grid: 1.5, block: 1 }, /grid.x must be an integer/],
    ['string block', { grid: 1, block: '32' }, /block must be a number or/],
    ['missing grid', { block: 32 }, /grid is required/],
    ['block.x > 1024', { grid: 1, block: 1025 }, /block.x = 1025 exceeds CUDA's limit of 1024/],
    ['block.y > 1024', { grid: 1, block: { x: 1, y: 1025 } }, /block.y = 1025 exceeds/],
    ['block.z > 64', { grid: 1, block: { x: 1, y: 1, z: 65 } }, /block.z = 65 exceeds CUDA's limit of 64/],
    ['> 1024 threads per block', { grid: 1, block: { x: 32, y: 33 } }, /1056 threads .* at most 1024/],
    ['grid.x > 2^31-1', { grid: 2 ** 31, block: 1 }, /grid.x = 2147483648 exceeds CUDA's limit of 2147483647/],
    ['grid.y > 65535', { grid: { x: 1, y: 65536 }, block: 1 }, /grid.y = 65536 exceeds CUDA's limit of 65535/],
    ['grid.z > 65535', { grid: { x: 1, y: 1, z: 65536 }, block: 1 }, /grid.z = 65536 exceeds/],
    ['negative shared', { grid: 1, block: 1, sharedBytes: -1 }, /sharedBytes must be a non-negative integer/],
    ['workers out of range', { grid: 1, block: 1, workers: 3 }, /workers must be an integer in \[1, 2\]/],
    ['timeout 0', { grid: 1, block: 1, timeoutMs: 0 }, /timeoutMs must be positive/],
  ];
  for (const [what, config, message] of bad) {
    it(`rejects ${what}`, async () => {
      const p = dev.launch(emptyKernel, config as never, []);
      await expect(p).rejects.toBeInstanceOf(LaunchConfigError);
      await expect(dev.launch(emptyKernel, config as never, [])).rejects.toThrow(message);
    });
  }

  it('accepts the limits themselves', async () => {
    await dev.launch(emptyKernel, { grid: { x: 3, y: 65535, z: 1 }, block: { x: 1, y: 1, z: 64 } }, []);
    await dev.launch(emptyKernel, { grid: 1, block: 1024, sharedBytes: 4096 }, []);
    await dev.launch(emptyKernel, { grid: { x: 1, y: 1, z: 65535 }, block: { x: 16, y: 64 } }, []);
  });

  it('rejects shared memory over the configured limit with the numbers', async () => {
    const p = dev.launch(emptyKernel, { grid: 1, block: 1, sharedBytes: 4097 }, []);
    await expect(p).rejects.toBeInstanceOf(SharedMemoryLimitError);
    await expect(dev.launch(emptyKernel, { grid: 1, block: 1, sharedBytes: 4097 }, [])).rejects.toThrow(/asks for 4097 bytes, the device allows 4096/);
  });

  it('the default shared memory limit is 48 KiB', async () => {
    const d = await createDevice({ memoryBytes: 8 << 20, workers: 1 });
    try {
      expect(d.sharedMemoryLimit).toBe(48 * 1024);
      await d.launch(emptyKernel, { grid: 1, block: 1, sharedBytes: 48 * 1024 }, []);
      await expect(d.launch(emptyKernel, { grid: 1, block: 1, sharedBytes: 48 * 1024 + 1 }, [])).rejects.toBeInstanceOf(SharedMemoryLimitError);
    } finally { await d.destroy(); }
  });

  const argCases: [string, () => unknown, RegExp][] = [
    ['a missing argument', () => [], /parameter 'out': expected 1 arguments \(out\), got 0/],
    ['a missing named argument', () => ({}), /parameter 'out': missing/],
    ['an unknown named argument', () => ({ out, extra: 1 }), /parameter 'extra': is not a parameter/],
    ['a number for an array', () => [5], /parameter 'out': expected a device array of i32, got number 5/],
    ['a typed array for an array', () => [new Int32Array(4)], /parameter 'out': expected a device array of i32, got Int32Array/],
    ['an array of the wrong dtype', () => [dev.alloc('f32', 4)], /parameter 'out': expected i32\[\], got f32\[\]/],
    ['too many arguments', () => [out, out], /expected 1 arguments/],
  ];
  for (const [what, args, message] of argCases) {
    it(`rejects ${what}, naming the parameter`, async () => {
      await expect(dev.launch(writeIndices, { grid: 1, block: 1 }, args() as never)).rejects.toBeInstanceOf(KernelArgumentError);
      await expect(dev.launch(writeIndices, { grid: 1, block: 1 }, args() as never)).rejects.toThrow(message);
    });
  }

  it('checks scalar types and ranges', async () => {
    const a = dev.alloc('i32', 1), b = dev.alloc('i32', 1), o = dev.alloc('i32', 1);
    await expect(dev.launch(divide, { grid: 1, block: 1 }, [a, b, o, 1.5])).rejects.toThrow(/parameter 'n': expected an i32, got number 1.5/);
    await expect(dev.launch(divide, { grid: 1, block: 1 }, [a, b, o, 2 ** 31])).rejects.toThrow(/parameter 'n': expected an i32/);
    await expect(dev.launch(divide, { grid: 1, block: 1 }, [a, b, o, 1n])).rejects.toThrow(/parameter 'n': expected an i32, got bigint 1/);
    await expect(dev.launch(divide, { grid: 1, block: 1 }, [a, b, o, '1'])).rejects.toThrow(/parameter 'n'/);
    const u8 = dev.alloc('u8', 8);
    await expect(dev.launch(atomicProbe, { grid: 1, block: 1 }, [0, u8, u8, u8, u8, -1])).resolves.toBeDefined();
    await expect(dev.launch(kernels.warpProbe, { grid: 1, block: 1 }, [0, 0, 32, -1, a, a, a])).rejects.toThrow(/parameter 'mask': expected a u32/);
  });

  it('accepts arguments by name', async () => {
    const stats = await dev.launch(writeIndices, { grid: 2, block: 3 }, { out });
    expect(stats.blocks).toBe(2);
  });

  it('rejects a kernel not in the module and a declaration whose arity differs from the export', async () => {
    await expect(dev.launch(defineKernel('noSuchKernel', {}), { grid: 1, block: 1 }, [])).rejects.toThrow(/not in the kernels module/);
    await expect(dev.launch(defineKernel('writeIndices', {}), { grid: 1, block: 1 }, [])).rejects.toThrow(/declared with 0 parameters but the wasm export takes 1/);
    await expect(dev.launch({} as never, { grid: 1, block: 1 }, [])).rejects.toBeInstanceOf(KernelArgumentError);
  });

  it('defineKernel rejects unknown types', () => {
    expect(() => defineKernel('k', { a: 'f16[]' as never })).toThrow(/unknown dtype 'f16'/);
    expect(() => defineKernel('k', { a: 'bool' as never })).toThrow(/unknown scalar type 'bool'/);
  });

  it('stats report backend, blocks, threads, time and seed', async () => {
    const s = await dev.launch(writeIndices, { grid: { x: 2, y: 2 }, block: { x: 4, y: 2 } }, [out]);
    expect(s).toMatchObject({ kernel: 'writeIndices', backend: 'wasm', blocks: 4, threadsPerBlock: 8, workers: 2, seed: null });
    expect(s.elapsedMs).toBeGreaterThan(0);
  });

  it('the device is usable after every rejected launch', async () => {
    const s = await dev.launch(writeIndices, { grid: 1, block: 2 }, [out]);
    expect(s.blocks).toBe(1);
    expect(Array.from(await out.read(0, 12))).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0]);
  });
});
