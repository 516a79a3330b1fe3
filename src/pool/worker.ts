// Entry point of a pool worker, in Node (worker_threads) and in browsers (module workers).
import type { WorkerInit, WorkerReply } from './protocol.js';
import { runWorker } from './workerLoop.js';

function start(init: WorkerInit, reply: (m: WorkerReply) => void): void {
  try {
    // runWorker instantiates first (so a LinkError reaches the host as 'fatal'), then reports
    // ready and blocks in its launch loop for the rest of the worker's life.
    runWorker(init, () => reply({ type: 'ready', workerIndex: init.workerIndex }));
  } catch (e) {
    reply({ type: 'fatal', message: e instanceof Error ? e.message : String(e) });
  }
}

const isNode = typeof process !== 'undefined' && !!process.versions?.node;
if (isNode) {
  const { parentPort } = await import('node:worker_threads');
  parentPort!.once('message', (init: WorkerInit) => start(init, (m) => parentPort!.postMessage(m)));
} else {
  const scope = globalThis as unknown as { onmessage: ((e: MessageEvent) => void) | null; postMessage(m: unknown): void };
  const locks = (globalThis as unknown as { navigator?: { locks?: LockManager } }).navigator?.locks;
  scope.onmessage = (e: MessageEvent) => {
    scope.onmessage = null;
    const init = e.data as WorkerInit;
    const reply = (m: WorkerReply): void => scope.postMessage(m);
    if (!init.lifeLock || !locks) { start(init, reply); return; }
    // Hold the life lock until this thread ends (workerLife.ts), and start only once it is
    // held: the host asks for it after 'ready', and must wait for our end, not get it first.
    void locks.request(init.lifeLock, () => {
      setTimeout(() => start(init, reply));
      return new Promise<never>(() => undefined);
    });
  };
}
