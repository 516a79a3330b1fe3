// The workbench's compile worker: simt's kernel compiler (src/compiler, AssemblyScript +
// Binaryen, ~3 MB) runs here so the page stays responsive while it loads and compiles. The
// compiler reads its device runtime (assembly/runtime/*.ts, assembly/threads/compiled.ts) through
// readPackageFile, i.e. fetched from the simt/ folder the page names in each request.
import { buildFine, compileKernels, KernelCompileError, type KernelSource } from 'simt/internal/compiler/index.js';
import { configureAssets } from 'simt/internal/platform.js';
import type { CompileReply, CompileRequest } from './compileProtocol.js';

const post = (m: CompileReply, transfer: Transferable[] = []): void => (self as unknown as Worker).postMessage(m, transfer);

let compilerLoaded: Promise<void> | undefined;

/** Loads the compiler's two big pieces up front, so the page can show that stage apart. */
function loadCompiler(): Promise<void> {
  compilerLoaded ??= Promise.all([import('assemblyscript'), import('assemblyscript/asc'), import('binaryen')]).then(() => undefined);
  return compilerLoaded;
}

self.addEventListener('message', (e: MessageEvent<CompileRequest>) => {
  const { id, baseUrl, sources, optimize } = e.data;
  void (async () => {
    const t0 = performance.now();
    try {
      configureAssets({ baseUrl });
      post({ id, kind: 'stage', stage: 'loading the compiler (AssemblyScript + Binaryen)…', fraction: 0.1 });
      await loadCompiler();
      const loadMs = performance.now() - t0;
      post({ id, kind: 'stage', stage: 'compiling (block and fine-grained forms, WGSL)…', fraction: 0.5 });
      const t1 = performance.now();
      const mod = await compileKernels(sources as KernelSource[], { optimize, cacheDir: false });
      // The page runs the race tools on it too: its fine-grained form is built here, with the rest.
      // Copies: the module's bytes stay valid in this worker's cache for the next identical compile.
      const wasm = mod.wasm.slice(), fineWasm = (await buildFine(mod)).slice();
      post({ id, kind: 'done', meta: mod.meta, wasm, fineWasm, loadMs, compileMs: performance.now() - t1 }, [wasm.buffer, fineWasm.buffer]);
    } catch (err) {
      if (err instanceof KernelCompileError) post({ id, kind: 'failed', diagnostics: err.diagnostics, message: err.message });
      else post({ id, kind: 'error', name: err instanceof Error ? err.name : 'Error', message: err instanceof Error ? err.message : String(err) });
    }
  })();
});
