// The optimizer process's entry (started by optimizerProcess.ts with `node --liftoff-only`):
// Binaryen's -O3 of each module sent to it over the IPC channel, answered in order of arrival.

import { optimizeO3 } from './wasmOptimizer.js';

/** A request: optimise `binary`. A reply: the same id with the optimised bytes or the error's message. */
export interface OptimizeRequest { id: number; binary: Uint8Array }
export interface OptimizeReply { id: number; binary?: Uint8Array; error?: string }

const binaryen = (await import('binaryen')).default;

process.on('message', (m: OptimizeRequest) => {
  let reply: OptimizeReply;
  try {
    reply = { id: m.id, binary: optimizeO3(binaryen, m.binary) };
  } catch (e) {
    reply = { id: m.id, error: e instanceof Error ? e.message : String(e) };
  }
  process.send!(reply);
});
// The parent went away (it exited, or let this process go when idle): so does this process.
process.on('disconnect', () => process.exit(0));
process.send!({ id: -1 } satisfies OptimizeReply);
