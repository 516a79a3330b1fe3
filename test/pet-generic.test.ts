// The PET kernels that the job launches in their generic form only (kernels/pet/: petCrystalLut,
// petPadSingles; the others are declared specializations, test/specializations.test.ts): each
// against its plain-TS reference on edge and random cases, on wasm and serial (three schedule seeds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createDevice, type Device } from '../src/device.js';
import { shippedModule } from '../src/shippedModule.js';
import type { Kernel } from '../src/kernel.js';
import type { KernelModule } from '../src/kernelModule.js';
import { PET_GENERIC_INPUTS, type PetCase } from './pet-specializations.js';

let mod: KernelModule;
beforeAll(async () => { mod = await shippedModule(); });

/** The kernel on fresh uploads of the case's arrays: every array's bytes after it. */
async function run(dev: Device, kernel: Kernel, c: PetCase): Promise<Record<string, Uint8Array>> {
  const arrays: { name: string; a: Awaited<ReturnType<Device['upload']>> }[] = [];
  try {
    const args = [];
    for (const p of kernel.params) {
      if (p.kind === 'scalar') { args.push(c.args[p.name] as number); continue; }
      const a = await dev.upload(p.dtype, c.args[p.name] as never);
      arrays.push({ name: p.name, a });
      args.push(a);
    }
    await dev.launch(kernel, { grid: c.grid, block: c.block, sharedBytes: c.sharedBytes ?? 0 }, args as never);
    const out: Record<string, Uint8Array> = {};
    for (const { name, a } of arrays) { const v = await a.read(); out[name] = new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice(); }
    return out;
  } finally {
    for (const { a } of arrays) a.free();
  }
}

/** Where the outputs first differ from the reference's (as "array: byte i"), or []. */
function differences(x: Record<string, Uint8Array>, y: Record<string, Uint8Array>): string[] {
  const out: string[] = [];
  for (const k of Object.keys(y)) {
    if (x[k]!.length !== y[k]!.length) { out.push(`${k}: lengths ${x[k]!.length} vs ${y[k]!.length}`); continue; }
    const i = x[k]!.findIndex((b, j) => b !== y[k]![j]);
    if (i >= 0) out.push(`${k}: byte ${i}`);
  }
  return out;
}

for (const [backend, seed] of [['wasm', 1], ['serial', 1], ['serial', 2], ['serial', 3]] as const) {
  describe(`${backend} (seed ${seed}): the generic PET kernels against their references`, () => {
    let dev: Device;
    beforeAll(async () => { dev = await createDevice({ backend, seed, workers: 2, memoryBytes: 96 << 20 }); await dev.load(mod); });
    afterAll(async () => { await dev?.destroy(); });

    for (const [name, inputs] of Object.entries(PET_GENERIC_INPUTS)) {
      it(`${name}: edge cases`, async () => {
        const k = mod.kernels[name]!;
        for (const c of inputs.cases(undefined, backend === 'wasm')) expect(differences(await run(dev, k, c), inputs.reference(c)), c.label).toEqual([]);
      });
      it(`${name}: random cases (property-based)`, async () => {
        const k = mod.kernels[name]!;
        await fc.assert(fc.asyncProperty(inputs.arbitrary, async (c) => {
          expect(differences(await run(dev, k, c), inputs.reference(c)), c.label).toEqual([]);
        }), { numRuns: 20, seed });
      });
    }
  });
}

it('a wrong table is caught: crystals per ring off by one changes the kernel\'s table, not the reference\'s', async () => {
  const dev = await createDevice({ backend: 'wasm', memoryBytes: 64 << 20 });
  try {
    await dev.load(mod);
    const inputs = PET_GENERIC_INPUTS.petCrystalLut!;
    const c = inputs.cases(undefined, false)[0]!;
    const geometry = (c.args.geometry as Uint32Array).slice();
    geometry[9]! += 1;
    const got = await run(dev, mod.kernels.petCrystalLut!, { ...c, args: { ...c.args, geometry } });
    expect(differences(got, inputs.reference(c)).some((d) => d.startsWith('lut: '))).toBe(true);
  } finally {
    await dev.destroy();
  }
});
