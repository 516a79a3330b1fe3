// The optimizer process's entry (started by optimizerProcess.ts): Binaryen's -O3 or asyncify
// (wasmOptimizer.ts) of each module sent to it over the IPC channel, answered in order of arrival.

import { asyncifyForRaceTools, optimizeO3 } from './wasmOptimizer.js';

/** What the optimizer process does to a module. */
export type OptimizeJob = 'O3' | 'asyncify';
/**
 * A request: `job` on `binary`. A reply: the same id with the resulting bytes, or without them
 * when Binaryen failed (the caller then runs the job itself, which reports the error).
 */
export interface OptimizeRequest { id: number; job: OptimizeJob; binary: Uint8Array }
export interface OptimizeReply { id: number; binary?: Uint8Array }

const binaryen = (await import('binaryen')).default;

process.on('message', (m: OptimizeRequest) => {
  let reply: OptimizeReply;
  try {
    reply = { id: m.id, binary: (m.job === 'asyncify' ? asyncifyForRaceTools : optimizeO3)(binaryen, m.binary) };
  } catch {
    reply = { id: m.id };
  }
  process.send!(reply);
});
// The parent went away (it exited, or let this process go when idle): so does this process.
process.on('disconnect', () => process.exit(0));
process.send!({ id: -1 } satisfies OptimizeReply);
