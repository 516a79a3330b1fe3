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
  scope.onmessage = (e: MessageEvent) => { scope.onmessage = null; start(e.data as WorkerInit, (m) => scope.postMessage(m)); };
}
