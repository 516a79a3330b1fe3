// First-fit allocator over the device heap, 128-byte granularity, coalescing on free.
// Host-side bookkeeping only: device memory itself is never touched here.

import { HEAP_ALIGN } from '../layout.js';

interface Block { offset: number; size: number }

export class HeapAllocator {
  private free: Block[];
  private used = new Map<number, number>();

  constructor(readonly base: number, readonly size: number) {
    this.free = size > 0 ? [{ offset: base, size }] : [];
  }

  /** Byte offset of `bytes` (rounded up to 128), or undefined when no free block fits. */
  alloc(bytes: number): number | undefined {
    const size = Math.max(HEAP_ALIGN, Math.ceil(bytes / HEAP_ALIGN) * HEAP_ALIGN);
    for (let k = 0; k < this.free.length; k++) {
      const b = this.free[k]!;
      if (b.size < size) continue;
      const offset = b.offset;
      if (b.size === size) this.free.splice(k, 1);
      else { b.offset += size; b.size -= size; }
      this.used.set(offset, size);
      return offset;
    }
    return undefined;
  }

  release(offset: number): void {
    const size = this.used.get(offset);
    if (size === undefined) throw new Error(`internal: double free at ${offset}`);
    this.used.delete(offset);
    // Insert sorted, then merge with neighbours.
    let k = 0;
    while (k < this.free.length && this.free[k]!.offset < offset) k++;
    this.free.splice(k, 0, { offset, size });
    const next = this.free[k + 1];
    if (next && offset + size === next.offset) { this.free[k]!.size += next.size; this.free.splice(k + 1, 1); }
    const prev = this.free[k - 1];
    if (prev && prev.offset + prev.size === offset) { prev.size += this.free[k]!.size; this.free.splice(k, 1); }
  }

  get freeBytes(): number { return this.free.reduce((s, b) => s + b.size, 0); }
  get largestFreeBytes(): number { return this.free.reduce((m, b) => Math.max(m, b.size), 0); }
  get usedBytes(): number { return this.size - this.freeBytes; }
  get allocations(): number { return this.used.size; }
}
