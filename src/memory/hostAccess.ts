// Portable in-place host access. On a host-mapped device ('wasm', 'serial') device memory is
// host memory, so filling or consuming an array through its view saves the copy that
// upload()/read() make; on 'webgpu' the same calls go through one host staging array. Host code
// written once against GpuDevice (src/ops, the jobs) uses these instead of branching itself.

import type { GpuDevice } from '../deviceApi.js';
import type { DType, TypedArrayOf } from '../dtypes.js';
import { DTYPES, viewOf } from '../dtypes.js';
import { BufferMismatchError } from '../errors.js';
import type { DeviceArray } from './deviceArray.js';

/**
 * Allocates `length` elements of `dtype` and lets `write` fill them. Host-mapped devices: `write`
 * gets the array's own view (no copy; contents unspecified until written, as after alloc);
 * webgpu: a zeroed host array, uploaded once `write` returns. Ordered after the launches already
 * queued, as `upload` is. `write` must not keep the view. The array is freed if `write` throws.
 */
export async function uploadWith<D extends DType>(
  device: GpuDevice, dtype: D, length: number, write: (view: TypedArrayOf[D]) => void,
): Promise<DeviceArray<D>> {
  if (typeof write !== 'function') throw new BufferMismatchError('uploadWith: write must be a function (view) => void');
  const a = device.alloc(dtype, length);
  try {
    if (device.hostMapped) {
      await device.synchronize();
      write(a.view());
    } else {
      const staging = viewOf(dtype, new ArrayBuffer(length * DTYPES[dtype].bytes), 0, length);
      write(staging);
      await a.upload(staging);
    }
    return a;
  } catch (e) {
    if (!a.freed) a.free();
    throw e;
  }
}

/**
 * Calls `read` with the elements [start, end) of `array` once the launches queued before it have
 * finished, and returns what it returns. Host-mapped devices: the array's own view (no copy);
 * webgpu: a host copy (`array.read`). `read` must not keep the view: copy what must outlive it.
 */
export async function readWith<D extends DType, T>(
  array: DeviceArray<D>, read: (view: TypedArrayOf[D]) => T, start?: number, end?: number,
): Promise<T> {
  if (typeof read !== 'function') throw new BufferMismatchError('readWith: read must be a function (view) => value');
  if (array.device.hostMapped) {
    await array.device.synchronize();
    return read(array.view(start, end));
  }
  return read(await array.read(start, end));
}

/** One element, read without allocating a host array on host-mapped devices (counters, flags). */
export function readElement<D extends DType>(array: DeviceArray<D>, index: number): Promise<TypedArrayOf[D][number]> {
  return readWith(array, (v) => v[0]!, index, index + 1);
}
