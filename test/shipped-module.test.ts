// simt's own compiled kernels (kernels/ → build/simt.simt.*): the build compiles every source
// under kernels/ into the one shipped module, and its kernels run on every backend.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevice, type Device } from '../src/device.js';
import { shippedModule } from '../src/shippedModule.js';
import type { KernelModule } from '../src/kernelModule.js';

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourcesUnder(p) : n.endsWith('.ts') ? [p] : [];
  });
}

let mod: KernelModule;
beforeAll(async () => { mod = await shippedModule(); });

describe('the shipped module', () => {
  it('is built from every source under kernels/, and only from them', () => {
    expect(mod.meta.sources).toEqual(sourcesUnder('kernels'));
    for (const k of mod.meta.kernels) expect(k.file.startsWith('kernels/')).toBe(true);
    expect(mod.meta.unchecked).toBe(false);
  });

  it('has unique kernel names with handles', () => {
    const names = mod.meta.kernels.map((k) => k.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(mod.kernels[n]?.name).toBe(n);
  });

  it('loads once per process', async () => {
    expect(await shippedModule()).toBe(mod);
  });
});

describe.each(['wasm', 'serial'] as const)('shipped kernels on %s', (backend) => {
  let dev: Device;
  beforeAll(async () => { dev = await createDevice({ backend, workers: 2, seed: 7 }); await dev.load(mod); });
  afterAll(async () => { await dev?.destroy(); });

  it.each([[1, 1], [3, 7], [5, 64]])('atomicCounter counts every thread of a %i × %i grid', async (grid, block) => {
    const counter = dev.alloc('i32', 1);
    await counter.fill(0);
    await dev.launch(mod.kernels.atomicCounter!, { grid, block }, [counter]);
    expect(Array.from(await counter.read())).toEqual([grid * block]);
    counter.free();
  });
});
