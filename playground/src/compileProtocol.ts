// Messages between the page and the compile worker (compileWorker.ts).
import type { Diagnostic } from 'simt/internal/compiler/index.js';
import type { KernelModuleMeta } from 'simt/internal/kernelModule.js';

export interface CompileRequest {
  id: number;
  /** Where simt's run-time files are served (the compiler fetches its runtime sources there). */
  baseUrl: string;
  sources: { path: string; source: string }[];
  optimize: boolean;
}

export type CompileReply =
  | { id: number; kind: 'stage'; stage: string; fraction: number }
  | { id: number; kind: 'done'; meta: KernelModuleMeta; wasm: Uint8Array; fineWasm: Uint8Array; loadMs: number; compileMs: number }
  | { id: number; kind: 'failed'; diagnostics: Diagnostic[]; message: string }
  | { id: number; kind: 'error'; name: string; message: string };
