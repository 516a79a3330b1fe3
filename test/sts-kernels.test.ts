// The STS sorts' kernels as written per thread (kernels/sts/countingSort.ts, mergeSort.ts), each
// launched on its own against an independent plain-TS reference (test/stsKernelCases.ts: stable
// sorts by channel or (channel, time) from Array.prototype.sort, not the kernels' algorithms) on
// random inputs and at the edges (empty, one digi, sizes that are not powers of two, the largest tile, words at
// 2^32 - 1), on wasm, serial under three schedule seeds and the race tools' fine-grained form.
import { beforeAll, describe, expect, it } from 'vitest';
import { compiledBackends, onCompiledBackend } from './helpers.js';
import { allCases } from './stsKernelCases.js';
import { shippedModule } from '../src/shippedModule.js';
import type { KernelModule } from '../src/kernelModule.js';

let mod: KernelModule;
beforeAll(async () => { mod = await shippedModule(); });

for (const b of compiledBackends([1, 7, 12])) {
  describe(`STS kernels (per thread) on ${b.name}`, () => {
    const be = onCompiledBackend(b, () => mod);
    const small = b.fine === true;
    it(`every kernel equals its reference (${small ? 'small' : 'random and edge'} cases)`, async () => {
      const cases = allCases(small);
      expect(new Set(cases.map((c) => c.kernel)).size).toBe(22);
      for (const c of cases) {
        const arrays = await Promise.all(c.args.map((a) => (typeof a === 'number' ? a : be.dev.upload('u32', a.length ? a : new Uint32Array(1)))));
        await be.launch(c.kernel, c.grid, c.block, arrays, c.sharedBytes ?? 0);
        for (let k = 0; k < c.args.length; k++) {
          const want = c.expected[k]!;
          if (typeof want === 'number') continue;
          const got = (await (arrays[k] as { read(): Promise<Uint32Array> }).read()).subarray(0, want.length);
          if (got.length !== want.length || got.some((x, i) => x !== want[i])) {
            const i = got.findIndex((x, j) => x !== want[j]);
            expect.fail(`${c.kernel} (${c.label}): argument ${k} differs at ${i}: ${got[i]} ≠ ${want[i]}`);
          }
        }
        for (const a of arrays) if (typeof a !== 'number') a.free();
      }
    }, 300_000);
  });
}
