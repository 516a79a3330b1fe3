// A device array: a typed, 128-byte aligned range of a device's memory. Transfers are async
// and ordered after the launches already queued on the device (as on a CUDA stream).

import type { DType, ScalarOf, TypedArrayOf } from '../dtypes.js';

export interface DeviceArray<D extends DType = DType> {
  readonly dtype: D;
  readonly length: number;
  readonly byteLength: number;
  /** The device pointer: a byte offset into the device memory (the wasm backends). */
  readonly byteOffset: number;
  readonly device: { readonly id: number; readonly hostMapped: boolean; synchronize(): Promise<void> };
  readonly freed: boolean;
  /** Copies host data in, starting at element `offset`. The data's type must match the dtype. */
  upload(data: TypedArrayOf[D] | ArrayLike<ScalarOf<D>>, offset?: number): Promise<void>;
  /** Copies elements [start, end) out to a new typed array. */
  read(start?: number, end?: number): Promise<TypedArrayOf[D]>;
  /** Sets every element (or [start, end)) to `value`. */
  fill(value: ScalarOf<D>, start?: number, end?: number): Promise<void>;
  /**
   * The elements [start, end) as a typed array over the device memory itself: no copy, writes
   * through it are what the next launch reads, and it sees what finished launches wrote
   * (`device.hostMapped` devices: 'wasm' and 'serial'; NotHostMappedError on 'webgpu').
   * Not ordered with launches: call it (and use the view) after awaiting the launches that
   * write the array, or `await device.synchronize()`. Valid until the array is freed or the
   * device destroyed; after that it still reads and writes memory, but memory another array
   * may own. Never use it while a launch that reads or writes these elements runs.
   */
  view(start?: number, end?: number): TypedArrayOf[D];
  /** Returns the memory to the device; any later use is a UseAfterFreeError. */
  free(): void;
}
