// simt's own compiled kernels: the per-thread sources under kernels/ (written in the kernel
// language a user writes), built by `npm run build` into build/simt.simt.* with simt's own
// compiler (scripts/build-kernels.mjs). They are an ordinary kernel module: the race tools run
// them by name, and the jobs launch them through `shippedModule().kernels.<name>`.

import { KernelModuleError, makeKernelModule, type KernelModule, type KernelModuleMeta } from './kernelModule.js';
import { readPackageFile } from './platform.js';
import type { GpuDevice } from './deviceApi.js';

let shipped: Promise<KernelModule> | undefined;

/** simt's own kernel module (loaded once per process; fs in Node, fetch in browsers). */
export function shippedModule(): Promise<KernelModule> {
  shipped ??= (async () => {
    try {
      const [json, wasm, fine, screen] = await Promise.all([
        readPackageFile('build/simt.simt.json'), readPackageFile('build/simt.simt.wasm'), readPackageFile('build/simt.simt.fine.wasm'),
        readPackageFile('build/simt.simt.screen.wasm').catch(() => undefined),
      ]);
      return makeKernelModule(JSON.parse(new TextDecoder().decode(json)) as KernelModuleMeta, wasm, fine, screen);
    } catch (e) {
      shipped = undefined;
      if (e instanceof KernelModuleError) throw e;
      throw new KernelModuleError(`cannot load simt's own kernels (build/simt.simt.*: ${(e as Error).message.split('\n')[0]}): run \`npm run build\` first`);
    }
  })();
  return shipped;
}

/** simt's own kernels, loaded on `device` (once; a device that has them returns at once). */
export async function shippedKernels(device: GpuDevice): Promise<KernelModule['kernels']> {
  const module = await shippedModule();
  await device.load(module);
  return module.kernels;
}
