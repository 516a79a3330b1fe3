// What every backend's device array shares: its shape, the freed state, and the checks of
// ranges, upload data and fill values — the same rules and messages on every backend.

import { type DType, DTYPES, type ScalarOf, type TypedArrayOf, dtypeOfArray } from '../dtypes.js';
import { BufferMismatchError, UseAfterFreeError } from '../errors.js';
import { describe } from '../launchArgs.js';

export abstract class DeviceArrayBase<D extends DType> {
  private isFreed = false;
  readonly byteLength: number;
  abstract readonly device: { readonly id: number; readonly isDestroyed: boolean };

  constructor(readonly dtype: D, readonly length: number) {
    this.byteLength = length * DTYPES[dtype].bytes;
  }

  get freed(): boolean { return this.isFreed; }

  /** @internal */
  markFreed(): void { this.isFreed = true; }

  protected checkLive(what: string): void {
    if (this.isFreed) {
      throw new UseAfterFreeError(`${what} on a freed ${this.dtype}[${this.length}] array` +
        (this.device.isDestroyed ? ' (its device was destroyed)' : ''));
    }
  }

  /** [start, end) defaulting to the whole array; a BufferMismatchError outside it. */
  protected range(start: number | undefined, end: number | undefined, what: string): [number, number] {
    const s = start ?? 0;
    const e = end ?? this.length;
    if (!Number.isInteger(s) || !Number.isInteger(e) || s < 0 || e > this.length || s > e) {
      throw new BufferMismatchError(`${what}: range [${s}, ${e}) is outside the array's ${this.length} elements`);
    }
    return [s, e];
  }

  /** Upload data must be of this dtype (a typed array of it, or an array of values) and fit at `offset`. */
  protected checkUpload(data: TypedArrayOf[D] | ArrayLike<ScalarOf<D>>, offset: number): void {
    this.checkLive('upload');
    const kind = dtypeOfArray(data);
    if (ArrayBuffer.isView(data) && kind !== this.dtype) {
      throw new BufferMismatchError(`upload: expected ${this.dtype} data (a ${DTYPES[this.dtype].ctor.name}), got ${kind ?? (data as object).constructor.name}`);
    }
    if (!ArrayBuffer.isView(data) && (typeof data !== 'object' || data === null || typeof (data as ArrayLike<unknown>).length !== 'number')) {
      throw new BufferMismatchError(`upload: expected a typed array or array of ${this.dtype}, got ${describe(data)}`);
    }
    if (!Number.isInteger(offset) || offset < 0 || offset + data.length > this.length) {
      throw new BufferMismatchError(`upload: ${data.length} elements at offset ${offset} do not fit the array's ${this.length} elements`);
    }
  }

  /** A fill value must be a bigint for 64-bit integers and a number otherwise. */
  protected checkFill(value: unknown): void {
    const is64 = this.dtype === 'i64' || this.dtype === 'u64';
    if (is64 ? typeof value !== 'bigint' : typeof value !== 'number') {
      throw new BufferMismatchError(`fill: expected a ${is64 ? 'bigint' : 'number'} for ${this.dtype}, got ${describe(value)}`);
    }
  }
}
