// What the host sends a worker once, at start. Everything after that goes through the
// control page (see layout.ts).

/** A kernel module as the workers see it: its compiled wasm and its kernels, in launch-index order. */
export interface PoolModule {
  module: WebAssembly.Module;
  kernelNames: string[];
  /** For compiled modules (src/compiler): names for trap messages. */
  trapInfo?: { arrays: string[]; sites: { file: string; line: number; column: number; what: string }[] };
}

export interface WorkerInit {
  /** Every loaded module; kernel index k of a launch counts through their kernels in order. */
  modules: PoolModule[];
  memory: WebAssembly.Memory;
  workerIndex: number;
  scratchBase: number;
  sharedLimit: number;
  /** How long a worker spins on the generation word before it sleeps (µs). */
  spinMicros: number;
  /** Browsers: the Web Lock the worker holds for its life (the host learns of its end by it; workerLife.ts). */
  lifeLock?: string;
}

export type WorkerReply = { type: 'ready'; workerIndex: number } | { type: 'fatal'; message: string };

/**
 * Argument tags in the control page, one per argument: how the worker decodes the 8-byte slot
 * before passing it to the wasm export.
 */
export const ArgTag = { Pointer: 112 /* p */, I32: 105 /* i */, U32: 117 /* u */, F32: 102 /* f */, F64: 100 /* d */, I64: 108 /* l */ } as const;
