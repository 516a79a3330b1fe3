// Builds the kernels module: AssemblyScript → wasm, then strips the data segments.
//
// Why strip: a wasm module re-applies its active data segments at every instantiation, so the
// second worker to instantiate the module would silently overwrite static data the first one
// already changed in the shared memory. wasm-opt moves the segments into a side file that the
// host copies into the memory exactly once, when the device is created.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = join(root, 'build');
mkdirSync(build, { recursive: true });
const bin = (name) => join(root, 'node_modules', '.bin', name);
const MEMORY_BASE = 65536;

execFileSync(bin('asc'), ['--config', 'asconfig.json', '--target', 'release'], { cwd: root, stdio: 'inherit' });
const raw = join(build, 'kernels.raw.wasm');
const dataFile = join(build, 'kernels.data.bin');
execFileSync(bin('wasm-opt'), [
  raw, '--enable-simd', '--enable-threads', '--enable-bulk-memory', '--enable-nontrapping-float-to-int',
  '--enable-sign-ext', '--enable-mutable-globals',
  `--separate-data-segments=${dataFile}`,
  `--pass-arg=separate-data-segments-global-base@${MEMORY_BASE}`,
  '-o', join(build, 'kernels.wasm'),
], { cwd: root, stdio: 'inherit' });
if (!existsSync(dataFile)) writeFileSync(dataFile, new Uint8Array(0));

const wasm = readFileSync(join(build, 'kernels.wasm'));
const mod = new WebAssembly.Module(wasm);
const meta = {
  memoryBase: MEMORY_BASE,
  dataBytes: statSync(dataFile).size,
  exports: WebAssembly.Module.exports(mod).map((e) => e.name),
  imports: WebAssembly.Module.imports(mod).map((i) => `${i.module}.${i.name}`),
};
writeFileSync(join(build, 'kernels.meta.json'), JSON.stringify(meta, null, 2) + '\n');
console.log(`kernels.wasm: ${wasm.length} bytes, ${meta.dataBytes} bytes of static data, ${meta.exports.length} exports`);
