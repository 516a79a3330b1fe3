// When has a browser worker died? Node says (the worker's 'exit' event); a browser does not:
// a module worker that is terminated from outside fires nothing, and one whose launch loop
// ended (an exception escaped it: the worker sends 'fatal') or that got an uncaught error is
// still "alive" to the page while it runs no launch. Undetected, the launch it should have
// run waits out its timeout, and the stats count it. So in a browser each worker holds a Web
// Lock named for it from before it reports ready until its thread ends (locks are released
// when their holder's context goes away), and the host asks for that lock: being granted it
// means the worker is gone. This module is the host's bookkeeping of those signals, the same
// for every platform: it turns the first sign of death after 'ready' into one exit report.

/** What ends a worker: its lock released (thread gone), a 'fatal' reply, an uncaught error. */
export interface WorkerLife {
  /** Every message the worker sends: 'ready' arms the watch, 'fatal' after it is a death. */
  message(m: unknown): void;
  /** An error event after 'ready' (the launch loop cannot survive one). */
  error(e: Error): void;
  /** The worker's life lock was granted to the host: the worker's thread has ended. */
  released(): void;
}

/** Calls `exit` once, at the first sign that a ready worker no longer runs its launch loop. */
export function watchWorkerLife(exit: (code: number, detail: string) => void, onReady: () => void = () => undefined): WorkerLife {
  let ready = false;
  let over = false;
  const end = (code: number, detail: string): void => {
    if (!ready || over) return;
    over = true;
    exit(code, detail);
  };
  return {
    message(m) {
      const type = (m as { type?: unknown } | null)?.type;
      if (type === 'ready' && !ready) { ready = true; onReady(); return; }
      if (type === 'fatal') end(1, `its launch loop ended: ${String((m as { message?: unknown }).message)}`);
    },
    error(e) { end(1, `uncaught error: ${e.message}`); },
    released() { end(1, 'its thread ended (terminated)'); },
  };
}
