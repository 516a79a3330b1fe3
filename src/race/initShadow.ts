// initcheck's state: which bytes of device memory have been written since they were allocated.
//
// Global memory: a byte per byte of each array allocated while the shadow watches the device
// (`device.memoryObserver`). The host's writes (upload, fill, host views, launches on the pool)
// and the kernels' writes mark bytes; an array written whole is dropped (nothing left to check).
// An array the shadow never saw allocated counts as written: it cannot know what the host did.
//
// Shared memory: the resident blocks' area of the current wave, never written when the wave
// starts (CUDA does not zero shared memory; simt does, which would hide the bug).

import type { DeviceArray } from '../memory/deviceArray.js';
import type { MemoryObserver } from '../memory/observer.js';

interface Unwritten { written: Uint8Array; left: number }

export class InitShadow implements MemoryObserver {
  /** Arrays with bytes never written, by base address (1 = written). */
  private readonly arrays = new Map<number, Unwritten>();
  private sharedStart = 0;
  private shared = new Uint8Array(0);

  allocated(array: DeviceArray): void {
    if (array.byteLength > 0) this.arrays.set(array.byteOffset, { written: new Uint8Array(array.byteLength), left: array.byteLength });
  }

  written(array: DeviceArray, start: number, bytes: number): void { this.mark(array.byteOffset, start, bytes); }

  freed(array: DeviceArray): void { this.arrays.delete(array.byteOffset); }

  /** Bytes [offset, offset + bytes) of the array at `base` are written. */
  mark(base: number, offset: number, bytes: number): void {
    const a = this.arrays.get(base);
    if (!a) return;
    const end = Math.min(offset + bytes, a.written.length);
    for (let k = Math.max(offset, 0); k < end; k++) if (!a.written[k]) { a.written[k] = 1; a.left--; }
    if (a.left === 0) this.arrays.delete(base);
  }

  /** True when every byte [offset, offset + bytes) of the array at `base` was written (or the array is not watched). */
  isWritten(base: number, offset: number, bytes: number): boolean {
    const a = this.arrays.get(base);
    if (!a) return true;
    for (let k = offset; k < offset + bytes; k++) if (!a.written[k]) return false;
    return true;
  }

  /** A wave of blocks starts: their shared memory, device bytes [start, end), is unwritten. */
  freshShared(start: number, end: number): void {
    this.sharedStart = start;
    if (this.shared.length < end - start) this.shared = new Uint8Array(end - start);
    else this.shared.fill(0, 0, end - start);
  }

  markShared(addr: number, bytes: number): void {
    this.shared.fill(1, addr - this.sharedStart, addr - this.sharedStart + bytes);
  }

  isSharedWritten(addr: number, bytes: number): boolean {
    const o = addr - this.sharedStart;
    for (let k = o; k < o + bytes; k++) if (!this.shared[k]) return false;
    return true;
  }
}
