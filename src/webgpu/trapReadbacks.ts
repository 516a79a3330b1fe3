// Where the trap records of generated kernels' launches come back to the host. Each launch's
// record (a slot of the runtime's record buffer) is copied into its own slot of a shared
// MAP_READ buffer when its batch is submitted (runtime.ts: one copy for a batch's consecutive
// slots); one map of that buffer then reports every launch submitted into it, and waits for them. A map per launch cost a Dawn round trip each: with 2,000 launches
// in flight on an H100, 267 µs per launch, against 12 µs to encode and submit one.
//
// One map is pending at a time: launches submitted meanwhile go to another buffer, which is
// mapped when the pending map returns. A lone awaited launch still costs one map.
import type { WebGpuBuffer, WebGpuDeviceHandle } from './types.js';
import { TRAP_RECORD_BYTES } from './trapRecord.js';

/** Launches per shared readback buffer. */
const SLOTS = 256;

interface Waiter { offset: number; resolve(words: Uint32Array): void; reject(e: unknown): void }

/** One shared readback buffer and the launches waiting on its next map. */
interface Collector {
  buffer: WebGpuBuffer;
  /** Slots handed out since its last map. */
  used: number;
  /** Slots reserved by a launch not yet submitted: the buffer is not mapped meanwhile. */
  reserved: number;
  waiters: Waiter[];
  mapping: boolean;
}

/** A launch's place in a shared readback: the buffer and byte offset its record is copied to. */
export interface TrapSlot { readonly buffer: WebGpuBuffer; readonly offset: number; readonly collector: Collector }

export class TrapReadbacks {
  private readonly all: Collector[] = [];
  private current: Collector | undefined;
  private destroyed = false;

  /** stride: bytes between two slots (the runtime's trapRecordStride, so a batch's records copy as one run). */
  constructor(private readonly device: WebGpuDeviceHandle, private readonly stride: number) {}

  /** A slot for the next launch's record (reserve, encode the copy, submit, then submitted() or release()). */
  reserve(): TrapSlot {
    let c = this.current;
    if (!c || c.mapping || c.used === SLOTS) {
      c = this.all.find((x) => !x.mapping && x.used === 0 && x.reserved === 0);
      if (!c) {
        c = {
          buffer: this.device.createBuffer({ size: SLOTS * this.stride, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, label: 'simt-trap-readbacks' }),
          used: 0, reserved: 0, waiters: [], mapping: false,
        };
        this.all.push(c);
      }
      this.current = c;
    }
    c.reserved++;
    return { buffer: c.buffer, offset: c.used++ * this.stride, collector: c };
  }

  /** A slot reserved for a launch that was not submitted: nothing is copied to it. */
  release(slot: TrapSlot): void {
    slot.collector.reserved--;
    this.schedule();
  }

  /** The launch holding `slot` was submitted: resolves with its record once it has run. */
  submitted(slot: TrapSlot): Promise<Uint32Array> {
    const c = slot.collector;
    c.reserved--;
    const done = new Promise<Uint32Array>((resolve, reject) => c.waiters.push({ offset: slot.offset, resolve, reject }));
    this.schedule();
    return done;
  }

  /** Maps the buffer whose launches have waited longest, unless a map is pending. */
  private schedule(): void {
    if (this.destroyed || this.all.some((x) => x.mapping)) return;
    const c = this.all.find((x) => x.waiters.length > 0 && x.reserved === 0 && !x.mapping);
    if (!c) return;
    c.mapping = true;
    const waiters = c.waiters;
    c.waiters = [];
    const bytes = c.used * this.stride;   // only the slots handed out
    c.buffer.mapAsync(GPUMapMode.READ, 0, bytes).then(() => {
      const words = new Uint32Array(c.buffer.getMappedRange(0, bytes).slice(0));
      c.buffer.unmap();
      for (const w of waiters) w.resolve(words.subarray(w.offset / 4, (w.offset + TRAP_RECORD_BYTES) / 4));
      c.used = 0;
      c.mapping = false;
    }, (e: unknown) => {
      for (const w of waiters) w.reject(e);
      this.all.splice(this.all.indexOf(c), 1);
      if (this.current === c) this.current = undefined;
      c.buffer.destroy();
    }).finally(() => this.schedule());
  }

  /** Rejects every launch still waiting (the device is going away). */
  destroy(reason: unknown): void {
    this.destroyed = true;
    for (const c of this.all) {
      for (const w of c.waiters) w.reject(reason);
      c.waiters = [];
    }
  }
}
