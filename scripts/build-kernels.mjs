// Builds simt's own kernels: the per-thread sources under kernels/ (the kernel language, as a
// user writes kernels) → build/simt.simt.{json,wasm,fine.wasm,screen.wasm}, one module that every device
// and the race tools load as "simt's own kernels" (src/shippedModule.ts).
//
// It runs simt's compiler from dist/ (after `tsc`), exactly as `simt build` would; the compiler's
// disk cache (node_modules/.cache/simt) makes an unchanged rebuild instant.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { compileKernelFiles, writeModuleFiles, KernelCompileError } = await import(pathToFileURL(join(root, 'dist/src/compiler/index.js')).href);

/** Every kernel source under kernels/, sorted, as paths relative to the package root (reports name them so). */
function sources(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(relative(root, p).split('\\').join('/'));
  }
  return out;
}

process.chdir(root);
const paths = sources(join(root, 'kernels'));
const t0 = performance.now();
let module;
try {
  module = await compileKernelFiles(paths);
} catch (e) {
  if (e instanceof KernelCompileError) { console.error(e.format()); process.exit(1); }
  throw e;
}
await writeModuleFiles(module, join(root, 'build'), 'simt');
// simt's own module must carry its race screen (writeModuleFiles leaves out one that does not
// build, and the race tools would then fall back to the fine-grained detector alone, slowly).
if (!existsSync(join(root, 'build', 'simt.simt.screen.wasm'))) {
  console.error('simt.simt.screen.wasm: the race screen form of simt\'s own kernels did not build (assembly/runtime/checked.ts)');
  process.exit(1);
}
console.log(`simt.simt.wasm: ${module.meta.kernels.length} kernels from ${paths.length} sources in ${Math.round(performance.now() - t0)} ms`);
