/**
 * Zero-copy host access: `array.view()` is the array's bytes in the device memory itself on the
 * host-mapped backends (wasm, serial) — kernels see what the view wrote, the view sees what
 * kernels wrote — for every dtype and awkward lengths; its range and lifetime errors; the fixed
 * size of the memory; `uploadWith` / `readWith` / `readElement` on every backend (webgpu
 * through a staging copy), and `view()` on webgpu as a typed error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevice, type Device } from '../src/device.js';
import type { GpuDevice } from '../src/deviceApi.js';
import { DTYPES, type DType } from '../src/dtypes.js';
import {
  BufferMismatchError, DeviceDestroyedError, NotHostMappedError, UseAfterFreeError,
} from '../src/errors.js';
import { compileKernels } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import { readElement, readWith, uploadWith } from '../src/memory/hostAccess.js';

const ALL: DType[] = ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64'];
// Lengths around the 4- and 8-element (16/32/64-byte) strides SIMD code and word merges use.
const LENGTHS = [0, 1, 3, 5, 7, 9, 33, 1001];

// out[i] = a[i] + 1 and a[i] = a[i] + 2, one kernel per dtype: the kernel reads what the view
// wrote and writes two arrays the views must then show.
const SOURCE = 'import { threadIdx, blockIdx, blockDim } from "simt/kernel";\n' + ALL.map((d) =>
  `export function bump_${d}(a: ${d}[], out: ${d}[], n: i32): void {\n` +
  '  const i = blockIdx.x * blockDim.x + threadIdx.x;\n' +
  `  if (i < n) { const x = a[i]; out[i] = (x + 1) as ${d}; a[i] = (x + 2) as ${d}; }\n}\n`).join('');

let mod: KernelModule;
const devices: Record<'wasm' | 'serial', Device> = {} as Record<'wasm' | 'serial', Device>;
beforeAll(async () => {
  mod = await compileKernels([{ path: 'host-views.ts', source: SOURCE }], { cacheDir: false });
  devices.wasm = await createDevice({ memoryBytes: 64 << 20, workers: 2, modules: [mod] });
  devices.serial = await createDevice({ backend: 'serial', memoryBytes: 64 << 20, seed: 7, modules: [mod] });
}, 120_000);
afterAll(async () => {
  await devices.wasm?.destroy();
  await devices.serial?.destroy();
});

/** Element k of a test pattern in dtype d: distinct, sign-varying, and exact in every type. */
function pattern(d: DType, k: number): number | bigint {
  const v = ((k * 37) % 101) - 50;
  if (d === 'u8' || d === 'u16' || d === 'u32') return v + 50;
  if (d === 'i64') return BigInt(v) * 3_000_000_000n;
  if (d === 'u64') return BigInt(v + 50) * 3_000_000_000n;
  if (d === 'f32' || d === 'f64') return v + 0.5;
  return v;
}

function plus(d: DType, x: number | bigint, by: number): number | bigint {
  return typeof x === 'bigint' ? x + BigInt(by) : x + by;
}

describe.each(['wasm', 'serial'] as const)('view() on %s', (backend) => {
  const dev = () => devices[backend];

  it('is host mapped', () => {
    expect(dev().hostMapped).toBe(true);
  });

  describe.each(ALL)('%s', (d) => {
    it.each(LENGTHS)('length %i: the kernel sees view writes and the views see kernel writes', async (n) => {
      const a = dev().alloc(d, n);
      const out = dev().alloc(d, n);
      try {
        const va = a.view();
        const vo = out.view();
        expect(va).toBeInstanceOf(DTYPES[d].ctor);
        expect(va.length).toBe(n);
        expect(va.buffer).toBe(dev().memory.buffer);
        expect(va.byteOffset).toBe(a.byteOffset);
        for (let k = 0; k < n; k++) (va as unknown as (number | bigint)[])[k] = pattern(d, k);
        const kernel = mod.kernels[`bump_${d}`]!;
        await dev().launch(kernel, { grid: Math.max(1, Math.ceil(n / 64)), block: 64 }, [a, out, n]);
        // The views taken before the launch show its writes: same memory, nothing to refresh.
        for (let k = 0; k < n; k++) {
          expect(vo[k]).toBe(plus(d, pattern(d, k), 1));
          expect(va[k]).toBe(plus(d, pattern(d, k), 2));
        }
        // read() (a copy) agrees with the view.
        expect(Array.from(await out.read() as ArrayLike<unknown>)).toEqual(Array.from(vo as ArrayLike<unknown>));
      } finally {
        a.free(); out.free();
      }
    });

    it('upload() and fill() show in the view, view writes in read()', async () => {
      const n = 13;
      const a = dev().alloc(d, n);
      try {
        const data = Array.from({ length: n }, (_, k) => pattern(d, k));
        await a.upload(data as never);
        expect(Array.from(a.view() as ArrayLike<unknown>)).toEqual(data);
        await a.fill(plus(d, pattern(d, 0), 0) as never, 2, 5);
        expect(a.view()[3]).toBe(pattern(d, 0));
        (a.view(7, 8) as unknown as (number | bigint)[])[0] = pattern(d, 1);
        expect((await a.read(7, 8))[0]).toBe(pattern(d, 1));
      } finally {
        a.free();
      }
    });
  });

  it('view(start, end) is that range; outside the array is a BufferMismatchError', () => {
    const a = dev().alloc('u32', 10);
    try {
      const v = a.view(3, 7);
      expect(v.length).toBe(4);
      expect(v.byteOffset).toBe(a.byteOffset + 12);
      expect(a.view(10).length).toBe(0);
      expect(() => a.view(0, 11)).toThrow(BufferMismatchError);
      expect(() => a.view(5, 4)).toThrow(BufferMismatchError);
      expect(() => a.view(-1)).toThrow(BufferMismatchError);
      expect(() => a.view(1.5)).toThrow(BufferMismatchError);
    } finally {
      a.free();
    }
  });

  it('a freed array has no view (UseAfterFreeError)', () => {
    const a = dev().alloc('f32', 4);
    a.free();
    expect(() => a.view()).toThrow(UseAfterFreeError);
  });

  it('kernels and views agree on the little-endian bytes of an element', async () => {
    // The u32 kernel bumps words whose bytes the host wrote through a u8 view of the same memory.
    const a = dev().alloc('u32', 4);
    const out = dev().alloc('u32', 4);
    try {
      new Uint8Array(dev().memory.buffer, a.byteOffset, 16).set([1, 0, 0, 0, 0xff, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 1, 0]);
      await dev().launch(mod.kernels['bump_u32']!, { grid: 1, block: 4 }, [a, out, 4]);
      expect(Array.from(out.view())).toEqual([2, 0x100, 0, 0x10001]);
      expect(Array.from(new Uint8Array(dev().memory.buffer, out.byteOffset + 4, 4))).toEqual([0, 1, 0, 0]);
    } finally {
      a.free(); out.free();
    }
  });
});

describe('the device memory', () => {
  it('never grows: one SharedArrayBuffer for the device life, growing it fails', async () => {
    const dev = devices.wasm;
    const buffer = dev.memory.buffer;
    expect(buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(buffer.byteLength).toBe(dev.memoryBytes);
    expect(() => dev.memory.grow(1)).toThrow(RangeError);
    const a = dev.alloc('u8', 1 << 20);
    a.free();
    expect(dev.memory.buffer).toBe(buffer);
  });

  it('after destroy() a view is a DeviceDestroyedError or UseAfterFreeError, at once', async () => {
    const dev = await createDevice({ memoryBytes: 16 << 20, workers: 1 });
    const a = dev.alloc('u16', 8);
    const done = dev.destroy();
    expect(() => a.view()).toThrow(DeviceDestroyedError);
    await done;
    expect(() => a.view()).toThrow(UseAfterFreeError);
  });
});

// The portable helpers, on every backend: webgpu copies through a staging array.
describe.each(['wasm', 'serial', 'webgpu'] as const)('uploadWith / readWith / readElement on %s', (backend) => {
  let dev: GpuDevice;
  let setupError: unknown;
  beforeAll(async () => {
    try {
      dev = backend === 'webgpu' ? await createDevice({ backend, memoryBytes: 16 << 20 }) : devices[backend];
    } catch (e) { setupError = e; }
  });
  afterAll(async () => { if (backend === 'webgpu') await dev?.destroy(); });
  const device = () => { if (setupError !== undefined) throw setupError; return dev; };

  it.each([0, 1, 3, 8, 257])('fill in place and read in place, length %i', async (n) => {
    const a = await uploadWith(device(), 'u32', n, (v) => { for (let k = 0; k < n; k++) v[k] = 3 * k + 1; });
    try {
      expect(a.length).toBe(n);
      expect(Array.from(await a.read())).toEqual(Array.from({ length: n }, (_, k) => 3 * k + 1));
      const sum = await readWith(a, (v) => v.reduce((s, x) => s + x, 0));
      expect(sum).toBe(Array.from({ length: n }, (_, k) => 3 * k + 1).reduce((s, x) => s + x, 0));
      if (n > 2) {
        expect(await readElement(a, 2)).toBe(7);
        expect(await readWith(a, (v) => Array.from(v), 1, 3)).toEqual([4, 7]);
      }
    } finally {
      a.free();
    }
  });

  it('16- and 64-bit dtypes round-trip at odd lengths', async () => {
    const a = await uploadWith(device(), 'u16', 5, (v) => v.set([1, 65535, 3, 4, 5]));
    const b = await uploadWith(device(), 'i64', 3, (v) => v.set([-1n, 2n ** 40n, 7n]));
    try {
      expect(Array.from(await readWith(a, (v) => v.slice()))).toEqual([1, 65535, 3, 4, 5]);
      expect(await readElement(b, 1)).toBe(2n ** 40n);
    } finally {
      a.free(); b.free();
    }
  });

  it('a throwing writer frees the array and rethrows', async () => {
    const before = device().memoryInfo().allocations;
    await expect(uploadWith(device(), 'f32', 16, () => { throw new Error('producer failed'); })).rejects.toThrow('producer failed');
    expect(device().memoryInfo().allocations).toBe(before);
  });

  it('a freed array is a UseAfterFreeError', async () => {
    const a = device().alloc('u32', 4);
    a.free();
    await expect(readWith(a, (v) => v[0])).rejects.toThrow(UseAfterFreeError);
  });

  it('view() is available exactly where device.hostMapped says', () => {
    const a = device().alloc('u8', 4);
    try {
      if (device().hostMapped) expect(a.view().length).toBe(4);
      else expect(() => a.view()).toThrow(NotHostMappedError);
    } finally {
      a.free();
    }
  });
});
