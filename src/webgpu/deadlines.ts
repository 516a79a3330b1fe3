// The launches' deadlines on one device, kept by one timer. A timer per launch cost an awaited
// launch its own setTimeout and clearTimeout (0–4 µs on an H200 host, bench/RESULTS.md); this
// timer is armed for the earliest deadline and left armed — unref'd while no launch waits, so a
// process with nothing in flight exits — and when it fires it expires what is due and re-arms
// for the next. Launches with the device's one timeout add later deadlines, which re-arm nothing.

interface Deadline { readonly at: number; readonly expire: () => void }

export class Deadlines {
  private readonly pending = new Set<Deadline>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armedAt = Infinity;

  /** Calls `expire` at `at` (performance.now() time) unless removed first; returns the handle for remove(). */
  add(at: number, expire: () => void): Deadline {
    const d: Deadline = { at, expire };
    this.pending.add(d);
    if (at < this.armedAt) this.arm(at);
    else if (this.pending.size === 1) keepAlive(this.timer, true);
    return d;
  }

  remove(d: Deadline): void {
    if (this.pending.delete(d) && this.pending.size === 0) keepAlive(this.timer, false);
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - performance.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const d of [...this.pending]) {
      if (d.at <= now) {
        this.pending.delete(d);
        d.expire();
      } else next = Math.min(next, d.at);
    }
    if (next !== Infinity) this.arm(next);
  }
}

/** Node's timers keep the process alive unless unref'd; a browser's have no such say. */
function keepAlive(timer: ReturnType<typeof setTimeout> | undefined, alive: boolean): void {
  const t = timer as { ref?: () => void; unref?: () => void } | undefined;
  if (alive) t?.ref?.();
  else t?.unref?.();
}
