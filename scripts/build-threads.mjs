// Builds the thread-kernels module: assembly/threads/ → build/threads.wasm.
//
// 1. asc compiles the per-thread kernels against an imported shared memory (the device's).
// 2. wasm-opt --asyncify instruments every function that can reach a yield import
//    (simt.access, simt.barrier, simt.fence), so the host can unwind an emulated thread at any yield point
//    and rewind it later; then optimises again.
// The module must carry no data segments: it is instantiated on a live device memory and a
// segment would overwrite the kernels module's static data. The build fails if it has any.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = join(root, 'build');
mkdirSync(build, { recursive: true });
const bin = (name) => join(root, 'node_modules', '.bin', name);
const raw = join(build, 'threads.raw.wasm');
const out = join(build, 'threads.wasm');

execFileSync(bin('asc'), ['--config', 'asconfig.threads.json', '--target', 'release'], { cwd: root, stdio: 'inherit' });
execFileSync(bin('wasm-opt'), [
  raw, '--enable-simd', '--enable-threads', '--enable-bulk-memory', '--enable-nontrapping-float-to-int',
  '--enable-sign-ext', '--enable-mutable-globals',
  '--asyncify', '--pass-arg=asyncify-imports@simt.access,simt.barrier,simt.fence',
  '-O3', '-o', out,
], { cwd: root, stdio: 'inherit' });
const segments = dataSegments(readFileSync(out));
if (segments > 0) throw new Error(`threads.wasm has ${segments} data segments; thread kernels must use no static data`);
const mod = new WebAssembly.Module(readFileSync(out));
const names = WebAssembly.Module.exports(mod).map((e) => e.name);
console.log(`threads.wasm: ${readFileSync(out).length} bytes, ${names.filter((n) => n.startsWith('tk_')).length} thread kernels`);

/** Number of data segments in a wasm binary (the data section's count, id 11). */
function dataSegments(bytes) {
  let at = 8;
  const leb = () => { let r = 0, shift = 0, b; do { b = bytes[at++]; r |= (b & 0x7f) << shift; shift += 7; } while (b & 0x80); return r >>> 0; };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    if (id === 11) return leb();
    at += size;
  }
  return 0;
}
