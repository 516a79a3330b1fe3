// The host side of the worker pool: starts the workers on the device memory, publishes one
// launch at a time through the control page (layout.ts), waits for it, and restarts the
// workers when a launch must be killed (timeout, or an abort of a kernel that never returns).

import { CONTROL_BYTES, CTL, Command } from '../layout.js';
import { ControlPageCheck } from './controlCheck.js';
import { startWorker, type WorkerHandle } from '../platform.js';
import type { PoolModule, WorkerInit, WorkerReply } from './protocol.js';
import { DeviceLostError } from '../errors.js';

export interface PoolConfig {
  modules: PoolModule[];
  memory: WebAssembly.Memory;
  workers: number;
  scratchBase: number;
  scratchStride: number;
  sharedLimit: number;
  /** How long workers spin on the generation word before they sleep (µs). */
  spinMicros: number;
  /** How long the host spins on completion before it blocks (µs). */
  hostSpinMicros: number;
  /** How long the host may block its thread on completion before it awaits asynchronously (ms). */
  syncWaitMs: number;
}

export type WaitOutcome = 'done' | 'timeout' | 'aborted' | 'cancelled' | 'lost';

const now = (): number => performance.now();
const CLOSED = 0xffffffffn;

/**
 * Runs `f` with a ref'd timer pending, so that Node does not exit while it runs: the workers
 * are unref'd, and neither Atomics.waitAsync nor an unref'd worker's 'exit' keeps the event
 * loop alive. Without it a script whose only pending work is a launch being stopped (timeout,
 * abort) or a pool being restarted or destroyed ends with exit code 13 and nothing printed.
 */
export async function keepingAlive<T>(f: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => undefined, 1 << 30);
  try {
    return await f();
  } finally {
    clearInterval(timer);
  }
}

/** Whether this thread may block in Atomics.wait (Node's main thread may; a browser's may not). */
const canBlock = (() => {
  try { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0); return true; } catch { return false; }
})();

export class WorkerPool {
  private handles: WorkerHandle[] = [];
  /** Workers the pool terminates itself: their 'exit' is not a loss. */
  private readonly retiring = new WeakSet<WorkerHandle>();
  private readonly lastError = new WeakMap<WorkerHandle, Error>();
  /** The first worker whose thread ended without the pool ending it, until the workers are restarted. */
  lost: { worker: number; detail: string } | undefined;
  /** Set when the workers could not be started again: the pool runs no more launches. */
  failure: DeviceLostError | undefined;
  private readonly i32: Int32Array;
  private readonly i64: BigInt64Array;
  private readonly CLAIM = CTL.CLAIM_BYTE / 8;
  private genTag = 0n;
  /** Set by cancel(): the device is being destroyed, waits end at once. */
  private cancelled = false;
  private readonly check: ControlPageCheck;

  private constructor(private cfg: PoolConfig) {
    this.i32 = new Int32Array(cfg.memory.buffer);
    this.i64 = new BigInt64Array(cfg.memory.buffer, 0, CTL.CLAIM_BYTE / 8 + 1);
    this.check = new ControlPageCheck(this.i32, this.i64, cfg.workers);
  }

  static async start(cfg: PoolConfig): Promise<WorkerPool> {
    const pool = new WorkerPool(cfg);
    await pool.spawn();
    return pool;
  }

  get size(): number { return this.cfg.workers; }

  /**
   * Starts every worker and waits for each to be ready. If one fails to start, the ones
   * started are terminated (none is left running) and the error is thrown.
   */
  private async spawn(): Promise<void> {
    const started = await Promise.allSettled(
      Array.from({ length: this.cfg.workers }, (_, k) => startWorker(`simt-worker-${k}`)),
    );
    const handles = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    try {
      const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      await Promise.all(handles.map((h, k) => new Promise<void>((resolve, reject) => {
        h.onMessage((m) => {
          const r = m as WorkerReply;
          if (r.type === 'ready') resolve();
          else reject(new Error(`worker ${k} failed to start: ${r.message}`));
        });
        h.onError((e) => { this.lastError.set(h, e); reject(e); });
        h.onExit((code, detail) => {
          reject(new Error(`worker ${k} exited (code ${code}) before it was ready`));
          this.exited(h, k, code, detail);
        });
        const init: WorkerInit = {
          modules: this.cfg.modules,
          memory: this.cfg.memory,
          workerIndex: k,
          scratchBase: this.cfg.scratchBase + k * this.cfg.scratchStride,
          sharedLimit: this.cfg.sharedLimit,
          spinMicros: this.cfg.spinMicros,
        };
        h.post(init);
      })));
    } catch (e) {
      await this.retire(handles);
      throw e;
    }
    this.handles = handles;
    this.lost = undefined;
    for (const h of handles) h.unref();
  }

  /** A worker's thread ended: unless the pool ended it, the pool has lost it (wakes a waiting launch). */
  private exited(h: WorkerHandle, k: number, code: number, detail?: string): void {
    if (this.retiring.has(h) || this.handles[k] !== h) return;
    const e = this.lastError.get(h);
    this.lost ??= { worker: k, detail: `exit code ${code}${detail ? `: ${detail}` : e ? `: ${e.message}` : ''}` };
    Atomics.add(this.i32, CTL.PROGRESS, 1);
    Atomics.notify(this.i32, CTL.PROGRESS);
  }

  /** Terminates workers the pool is done with (their exit is expected, not a loss). */
  private async retire(handles: WorkerHandle[]): Promise<void> {
    for (const h of handles) this.retiring.add(h);
    await Promise.all(handles.map((h) => h.terminate().catch(() => undefined)));
  }

  /**
   * Publishes a launch: `write` fills in the description while the generation is odd (the
   * seqlock is held), then the generation becomes even and the workers are woken.
   */
  publish(totalChunks: number, write: () => void): void {
    const i32 = this.i32;
    const gen = Atomics.add(i32, CTL.GEN, 1) + 1; // odd: writing
    write();
    Atomics.store(i32, CTL.TOTAL_CHUNKS, totalChunks);
    Atomics.store(i32, CTL.CHUNKS_DONE, 0);
    Atomics.store(i32, CTL.ERROR, 0);
    const next = (gen + 1) | 0;
    this.genTag = BigInt.asIntN(64, BigInt(next >>> 0) << 32n);
    Atomics.store(this.i64, this.CLAIM, this.genTag);
    Atomics.store(i32, CTL.GEN, next); // even: published
    this.check.record(next, this.genTag);
    Atomics.notify(i32, CTL.GEN);
  }

  /**
   * After a launch: the first protocol word a kernel overwrote (a wild or wrapped address),
   * or undefined. The caller restarts the workers when there is one.
   */
  controlPageProblem(): string | undefined {
    return this.check.problem();
  }

  private closed(): boolean {
    return (Atomics.load(this.i64, this.CLAIM) & 0xffffffffn) === CLOSED;
  }

  /** The launch is over: every chunk done, or claims closed (trap/abort) and no block running. */
  private finished(): boolean {
    const i32 = this.i32;
    if (Atomics.load(i32, CTL.CHUNKS_DONE) >= Atomics.load(i32, CTL.TOTAL_CHUNKS)) return true;
    return this.closed() && Atomics.load(i32, CTL.IN_FLIGHT) === 0;
  }

  /**
   * Waits for the launch to end: spins for `hostSpinMicros` (short launches end within it; the
   * device may ask for less per launch),
   * then blocks on the futex for up to `syncWaitMs` where this thread may block, then awaits
   * Atomics.waitAsync in short slices so a deadline or an AbortSignal is noticed promptly.
   */
  async wait(deadline: number, signal?: AbortSignal, hostSpinMicros = this.cfg.hostSpinMicros): Promise<WaitOutcome> {
    const i32 = this.i32;
    if (this.finished()) return 'done';
    const spinUntil = now() + hostSpinMicros / 1000;
    let spins = 0;
    while (!this.finished()) {
      if ((++spins & 63) === 0 && now() > spinUntil) break;
    }
    if (this.cfg.syncWaitMs > 0 && canBlock) {
      const until = Math.min(deadline, now() + this.cfg.syncWaitMs);
      for (;;) {
        const seen = Atomics.load(i32, CTL.PROGRESS);
        if (this.finished()) return 'done';
        if (this.cancelled) return 'cancelled';
        const left = until - now();
        if (left <= 0) break;
        Atomics.wait(i32, CTL.PROGRESS, seen, left);
      }
    }
    // A timer keeps the process alive while a launch is in flight (workers are unref'd).
    let keepAlive: ReturnType<typeof setInterval> | undefined;
    try {
      for (;;) {
        const seen = Atomics.load(i32, CTL.PROGRESS);
        if (this.finished()) return 'done';
        if (this.cancelled) return 'cancelled';
        if (this.lost) return 'lost';
        if (signal?.aborted) return 'aborted';
        const left = deadline - now();
        if (left <= 0) return 'timeout';
        keepAlive ??= setInterval(() => undefined, 1000);
        const w = Atomics.waitAsync(i32, CTL.PROGRESS, seen, Math.min(left, 20));
        if (w.async) await w.value;
      }
    } finally {
      if (keepAlive !== undefined) clearInterval(keepAlive);
    }
  }

  /**
   * Ends the wait of the launch in flight at once ('cancelled') and every later one: the
   * device is being destroyed, and destroy() terminates the workers whatever they run.
   */
  cancel(): void {
    this.cancelled = true;
    Atomics.add(this.i32, CTL.PROGRESS, 1);
    Atomics.notify(this.i32, CTL.PROGRESS);
  }

  /**
   * Stops the current launch: closes the claims, gives running blocks `graceMs` to finish,
   * and restarts the workers if one does not (a kernel that never returns).
   * Returns true when the pool was restarted.
   */
  stop(graceMs: number): Promise<boolean> {
    return keepingAlive(() => this.stopNow(graceMs));
  }

  private async stopNow(graceMs: number): Promise<boolean> {
    for (;;) {
      const cur = Atomics.load(this.i64, this.CLAIM);
      if ((cur & ~0xffffffffn) !== this.genTag) break;
      if (Atomics.compareExchange(this.i64, this.CLAIM, cur, this.genTag | CLOSED) === cur) break;
    }
    const deadline = now() + graceMs;
    while (Atomics.load(this.i32, CTL.IN_FLIGHT) !== 0 && now() < deadline) {
      const seen = Atomics.load(this.i32, CTL.PROGRESS);
      const w = Atomics.waitAsync(this.i32, CTL.PROGRESS, seen, 10);
      if (w.async) await w.value;
    }
    if (Atomics.load(this.i32, CTL.IN_FLIGHT) === 0) return false;
    await this.restartNow();
    return true;
  }

  /** Restarts the workers with one more module (instantiated in every worker). */
  async addModule(m: PoolModule): Promise<void> {
    this.cfg.modules = [...this.cfg.modules, m];
    await this.restart();
  }

  restart(): Promise<void> {
    return keepingAlive(() => this.restartNow());
  }

  /**
   * After a worker was lost: terminates the others and starts a full set again. When that
   * fails the pool is failed for good: this and every later launch get the DeviceLostError.
   */
  recover(): Promise<void> {
    return this.restart();
  }

  private async restartNow(): Promise<void> {
    if (this.failure) throw this.failure;
    const lost = this.lost;
    const old = this.handles;
    this.handles = [];
    await this.retire(old);
    // Nobody runs now: start the new workers on a clean control page (the killed ones may
    // have left IN_FLIGHT raised, a kernel may have written over it).
    this.i32.fill(0, 0, CONTROL_BYTES / 4);
    try {
      await this.spawn();
    } catch (e) {
      const why = lost ? `worker ${lost.worker} of ${this.cfg.workers} exited (${lost.detail})` : 'the workers had to be restarted';
      this.failure = new DeviceLostError(`${why} and no worker could be started again: ${e instanceof Error ? e.message : String(e)}`);
      throw this.failure;
    }
  }

  destroy(): Promise<void> {
    return keepingAlive(async () => {
      this.publish(0, () => { this.i32[CTL.COMMAND] = Command.Shutdown; });
      const old = this.handles;
      this.handles = [];
      await this.retire(old);
    });
  }
}
