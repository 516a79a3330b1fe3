import { describe, expect, it } from 'vitest';
import { createDevice, DEFAULT_MEMORY_BYTES } from '../src/device.js';
import {
  BufferMismatchError, KernelArgumentError, MemorySizeError, OutOfDeviceMemoryError, UseAfterFreeError, DeviceDestroyedError,
} from '../src/errors.js';
import { roundFor128ByteAlignment } from '../src/dtypes.js';
import { kernels } from '../src/index.js';
import { testDevice } from './helpers.js';

describe('device memory', async () => {
  const dev = await testDevice({ memoryBytes: 16 << 20, workers: 2 });

  it('allocations are 128-byte aligned and do not overlap', () => {
    const sizes = [1, 3, 127, 128, 129, 1000, 4096, 33];
    const arrays = sizes.map((n, k) => dev.alloc(k % 2 ? 'u8' : 'f64', n));
    const ranges = arrays.map((a) => [a.byteOffset, a.byteOffset + a.byteLength] as const).sort((x, y) => x[0] - y[0]);
    for (const a of arrays) expect(a.byteOffset % 128).toBe(0);
    for (let k = 1; k < ranges.length; k++) expect(ranges[k]![0]).toBeGreaterThanOrEqual(ranges[k - 1]![1]);
    for (const a of arrays) a.free();
  });

  it('roundFor128ByteAlignment rounds up to multiples of 128', () => {
    expect([0, 1, 127, 128, 129, 256, 257].map(roundFor128ByteAlignment)).toEqual([0, 128, 128, 128, 256, 256, 384]);
  });

  it('upload / read round-trip for every dtype, with offsets and ranges', async () => {
    const cases = [
      ['i8', Int8Array.from([-128, 0, 127])], ['u8', Uint8Array.from([0, 255, 7])],
      ['i16', Int16Array.from([-32768, 1, 32767])], ['u16', Uint16Array.from([0, 65535, 65534])],
      ['i32', Int32Array.from([-(2 ** 31), 5, 2 ** 31 - 1])], ['u32', Uint32Array.from([0, 2 ** 32 - 1, 9])],
      ['i64', BigInt64Array.from([-(2n ** 63n), 0n, 2n ** 63n - 1n])], ['u64', BigUint64Array.from([0n, 2n ** 64n - 1n, 3n])],
      ['f32', Float32Array.from([-0, Math.fround(1.1), Infinity])], ['f64', Float64Array.from([Math.PI, -1e300, NaN])],
    ] as const;
    for (const [dtype, data] of cases) {
      const a = dev.alloc(dtype, data.length + 2);
      await a.upload(data as never, 2);
      const back = await a.read(2);
      expect(Array.from(back as ArrayLike<unknown>)).toEqual(Array.from(data as ArrayLike<unknown>));
      expect((back as object).constructor).toBe((data as object).constructor);
      expect(Array.from((await a.read(3, 4)) as ArrayLike<unknown>)).toEqual([Array.from(data as ArrayLike<unknown>)[1]]);
      a.free();
    }
  });

  it('fill sets every element or a range', async () => {
    const a = dev.alloc('i32', 10);
    await a.fill(7);
    await a.fill(-1, 2, 5);
    expect(Array.from(await a.read())).toEqual([7, 7, -1, -1, -1, 7, 7, 7, 7, 7]);
    const b = dev.alloc('u64', 3);
    await b.fill(2n ** 64n - 1n);
    expect(Array.from(await b.read())).toEqual([2n ** 64n - 1n, 2n ** 64n - 1n, 2n ** 64n - 1n]);
    a.free(); b.free();
  });

  it('uploads a plain array of numbers', async () => {
    const a = await dev.upload('f32', [1.5, 2.5, -3]);
    expect(Array.from(await a.read())).toEqual([1.5, 2.5, -3]);
    a.free();
  });

  it('zero-length arrays are allowed', async () => {
    const a = dev.alloc('f32', 0);
    expect(a.length).toBe(0);
    expect((await a.read()).length).toBe(0);
    a.free();
  });

  it('out of device memory names requested and free bytes', () => {
    const free = dev.memoryInfo().freeBytes;
    try {
      dev.alloc('f64', free); // 8× too many bytes
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(OutOfDeviceMemoryError);
      const err = e as OutOfDeviceMemoryError;
      expect(err.requestedBytes).toBe(free * 8);
      expect(err.freeBytes).toBe(free);
      expect(err.message).toContain(`requested ${free * 8} bytes`);
      expect(err.message).toContain(`${free} bytes free`);
    }
  });

  it('freed memory is reused and fragmentation coalesces', () => {
    const before = dev.memoryInfo();
    const big = Math.floor(before.largestFreeBytes / 3 / 128) * 128;
    const xs = [dev.alloc('u8', big), dev.alloc('u8', big), dev.alloc('u8', big)];
    expect(() => dev.alloc('u8', big)).toThrow(OutOfDeviceMemoryError);
    xs[1]!.free(); xs[0]!.free(); xs[2]!.free();
    expect(dev.memoryInfo().largestFreeBytes).toBe(before.largestFreeBytes);
    expect(dev.memoryInfo().allocations).toBe(before.allocations);
  });

  it('use after free is a typed error for every operation, and in a launch', async () => {
    const a = dev.alloc('i32', 4);
    a.free();
    expect(a.freed).toBe(true);
    await expect(a.read()).rejects.toBeInstanceOf(UseAfterFreeError);
    await expect(a.upload(new Int32Array(4))).rejects.toBeInstanceOf(UseAfterFreeError);
    await expect(a.fill(1)).rejects.toBeInstanceOf(UseAfterFreeError);
    expect(() => a.free()).toThrow(UseAfterFreeError);
    await expect(dev.launch(kernels.writeIndices, { grid: 1, block: 1 }, [a])).rejects.toThrow(/parameter 'out': the array was freed/);
  });

  it('length and dtype mismatches are typed errors', async () => {
    const a = dev.alloc('f32', 4);
    await expect(a.upload(new Float32Array(5))).rejects.toBeInstanceOf(BufferMismatchError);
    await expect(a.upload(new Float32Array(3), 2)).rejects.toThrow(/do not fit/);
    await expect(a.upload(new Float64Array(4) as never)).rejects.toThrow(/expected f32 data/);
    await expect(a.upload(new Int32Array(4) as never)).rejects.toBeInstanceOf(BufferMismatchError);
    await expect(a.read(0, 5)).rejects.toBeInstanceOf(BufferMismatchError);
    await expect(a.read(3, 2)).rejects.toBeInstanceOf(BufferMismatchError);
    await expect(a.fill(1n as never)).rejects.toBeInstanceOf(BufferMismatchError);
    expect(() => dev.alloc('f16' as never, 4)).toThrow(BufferMismatchError);
    expect(() => dev.alloc('f32', -1)).toThrow(BufferMismatchError);
    expect(() => dev.alloc('f32', 1.5)).toThrow(BufferMismatchError);
    a.free();
  });

  it('an array of another device is rejected at launch', async () => {
    const other = await createDevice({ memoryBytes: 8 << 20, workers: 1 });
    try {
      const a = other.alloc('i32', 6);
      await expect(dev.launch(kernels.writeIndices, { grid: 1, block: 1 }, [a])).rejects.toBeInstanceOf(KernelArgumentError);
      await expect(dev.launch(kernels.writeIndices, { grid: 1, block: 1 }, [a])).rejects.toThrow(/belongs to device/);
    } finally {
      await other.destroy();
    }
  });

  it('memory sizes beyond wasm32 or too small for the heap are typed errors', async () => {
    await expect(createDevice({ memoryBytes: 2 ** 32 + 65536 })).rejects.toBeInstanceOf(MemorySizeError);
    await expect(createDevice({ memoryBytes: 2 ** 32 + 65536 })).rejects.toThrow(/4 GiB/);
    await expect(createDevice({ memoryBytes: 0 })).rejects.toBeInstanceOf(MemorySizeError);
    await expect(createDevice({ memoryBytes: 65536 })).rejects.toThrow(/leaves no device heap/);
  });

  it('the default memory size is 1 GiB', async () => {
    expect(DEFAULT_MEMORY_BYTES).toBe(2 ** 30);
    const d = await createDevice({ workers: 1 });
    try {
      expect(d.memoryBytes).toBe(2 ** 30);
      expect(d.memoryInfo().heapBytes).toBeGreaterThan(2 ** 30 - (4 << 20));
    } finally {
      await d.destroy();
    }
  });

  it('destroy invalidates arrays and the device', async () => {
    const d = await createDevice({ memoryBytes: 8 << 20, workers: 1 });
    const a = d.alloc('i32', 4);
    await d.destroy();
    await d.destroy(); // twice is fine
    await expect(a.read()).rejects.toThrow(/its device was destroyed/);
    expect(() => d.alloc('i32', 1)).toThrow(DeviceDestroyedError);
    await expect(d.launch(kernels.emptyKernel, { grid: 1, block: 1 }, [])).rejects.toBeInstanceOf(DeviceDestroyedError);
  });
});
