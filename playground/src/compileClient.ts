// The page's side of the compile worker: one worker for the page's life (the compiler stays
// loaded, so later compiles take a fraction of the first), one request at a time.
import { makeKernelModule, type KernelModule } from 'simt';
import type { Diagnostic } from 'simt/internal/compiler/index.js';
import type { CompileReply, CompileRequest } from './compileProtocol.js';

/** A kernel source that did not compile: the compiler's diagnostics (file, line, column). */
export class KernelDiagnosticsError extends Error {
  override name = 'KernelDiagnosticsError';
  constructor(readonly diagnostics: Diagnostic[], message: string) { super(message); }
}

export interface Compiled { module: KernelModule; loadMs: number; compileMs: number }

let worker: Worker | undefined;
let nextId = 1;

function compileWorker(): Worker {
  worker ??= new Worker(new URL('./compileWorker.ts', import.meta.url), { type: 'module', name: 'simt-compiler' });
  return worker;
}

export function compileInWorker(sources: { path: string; source: string }[], baseUrl: string,
  onStage: (stage: string, fraction: number) => void, optimize = false): Promise<Compiled> {
  const w = compileWorker();
  const id = nextId++;
  return new Promise<Compiled>((resolve, reject) => {
    const onMessage = (e: MessageEvent<CompileReply>): void => {
      const m = e.data;
      if (m.id !== id) return;
      if (m.kind === 'stage') { onStage(m.stage, m.fraction); return; }
      cleanup();
      if (m.kind === 'done') resolve({ module: makeKernelModule(m.meta, m.wasm, m.fineWasm), loadMs: m.loadMs, compileMs: m.compileMs });
      else if (m.kind === 'failed') reject(new KernelDiagnosticsError(m.diagnostics, m.message));
      else reject(Object.assign(new Error(m.message), { name: m.name }));
    };
    const onError = (e: ErrorEvent): void => {
      e.preventDefault();
      cleanup();
      worker = undefined; // a worker that failed to start is not reused
      reject(new Error(`the compile worker failed: ${e.message || 'its script did not load (served without Cross-Origin-Embedder-Policy?)'}`));
    };
    const cleanup = (): void => { w.removeEventListener('message', onMessage); w.removeEventListener('error', onError); };
    w.addEventListener('message', onMessage);
    w.addEventListener('error', onError);
    const req: CompileRequest = { id, baseUrl, sources, optimize };
    w.postMessage(req);
  });
}
