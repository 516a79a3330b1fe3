// What a tool that shadows a device's memory learns from the host side: which arrays exist and
// which of their bytes the host has written. memcheck's initcheck (src/race/initShadow.ts) uses
// it to tell a read of never-written memory from a read of data.

import type { DeviceArray } from './deviceArray.js';

export interface MemoryObserver {
  /** `array` was allocated: its contents are unspecified (as after cudaMalloc) until written. */
  allocated(array: DeviceArray): void;
  /**
   * Bytes [start, start + bytes) of `array` (offsets into it) were written by the host: an
   * upload, a fill, a launch on the device's worker pool (every array it is passed), or a host
   * view handed out over them (what the host does through a view is not seen, so taking one
   * counts as writing it).
   */
  written(array: DeviceArray, start: number, bytes: number): void;
  /** `array` was freed. */
  freed(array: DeviceArray): void;
}
