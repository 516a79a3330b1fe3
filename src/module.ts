// The compiled kernels module, loaded once per process and shared by every device.
import { isNode, readPackageFile } from './platform.js';

export interface KernelsModule {
  module: WebAssembly.Module;
  /** The static data the build stripped from the module; copied into each device's memory once. */
  data: Uint8Array;
  memoryBase: number;
  /** Every export that is a kernel (not the runtime's `__` hooks). */
  kernelNames: string[];
}

let cached: Promise<KernelsModule> | undefined;

export function loadKernelsModule(): Promise<KernelsModule> {
  cached ??= (async () => {
    let wasm: Uint8Array;
    try {
      wasm = await readPackageFile('build/kernels.wasm');
    } catch (e) {
      cached = undefined;
      throw new Error(`cannot read build/kernels.wasm (${(e as Error).message}): run \`npm run build\` first`);
    }
    const data = await readPackageFile('build/kernels.data.bin');
    const meta = JSON.parse(new TextDecoder().decode(await readPackageFile('build/kernels.meta.json'))) as { memoryBase: number };
    const module = await WebAssembly.compile(wasm as BufferSource);
    const kernelNames = WebAssembly.Module.exports(module)
      .filter((e) => e.kind === 'function' && !e.name.startsWith('__'))
      .map((e) => e.name);
    return { module, data, memoryBase: meta.memoryBase, kernelNames };
  })();
  return cached;
}

export { isNode };
