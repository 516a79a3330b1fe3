// Block-level loops with a constant trip count (`for (let offset = 16; offset > 0; offset /= 2)`,
// the warp reduction; up to 8 trips) are written out in the block form, so each trip's thread
// loop sees its counter as a constant; a loop of more trips stays a loop. Both give the TS
// reference's answers on `wasm`, `serial` and the fine-grained form.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { compileKernels } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import { compiledBackends, halvingTreesRef, onCompiledBackend, rng } from './helpers.js';

const FILE = 'test/kernels/trips.ts';
const SOURCE = readFileSync(FILE, 'utf8');

let mod: KernelModule;
let block = '';
beforeAll(async () => {
  mod = await compileKernels([{ path: FILE, source: SOURCE }], { cacheDir: false, onGenerated: (g) => { block = g.block; } });
});

/** The text of a generated function, from its header to the next top-level closing brace. */
const fnText = (name: string): string => { const i = block.indexOf(`export function ${name}(`); return block.slice(i, block.indexOf('\n}\n', i)); };

function tripsRef(): number[] {
  let v = Array.from({ length: 64 }, (_, t) => t);
  for (let k = 0; k < 8; k++) { const s = v.slice(); v = v.map((x, t) => (x + s[(t + 1) & 63]!) | 0); }
  for (let k = 1; k < 512; k *= 2) { const s = v.slice(); v = v.map((x, t) => x ^ s[(t + k) & 63]!); }
  return v;
}

describe('constant trip counts in the block form', () => {
  it('the 8-trip loop and the warp reduction are written out (no loop around their thread loops); the 9-trip loop stays a loop', () => {
    for (const f of ['trips', '__fast_trips']) {
      const text = fnText(f);
      expect(text.match(/while \(true\) \{/g), f).toHaveLength(1);
      expect(text.match(/\bk__\d+\+\+;/g), f).toHaveLength(8);
      expect(text.match(/\bk__\d+ \*= 2;/g), f).toHaveLength(1);
    }
    for (const f of ['warpSum', '__fast_warpSum']) {
      const text = fnText(f);
      expect(text, f).not.toMatch(/while \(true\) \{/);
      // The fast form has the reduction twice: a warp at a time in registers (warpChain.ts) and
      // as passes over the block for blocks whose x extent is not a multiple of 32.
      expect(text.match(/offset \/= 2/g), f).toHaveLength(f === 'warpSum' ? 5 : 10);
    }
  });

  for (const b of compiledBackends([1, 9])) {
    describe(`on ${b.name}`, () => {
      const be = onCompiledBackend(b, () => mod);

      it('trips: 8 and 9 trips around barriers', async () => {
        const out = be.dev.alloc('i32', 64);
        await be.launch('trips', 1, 64, [out]);
        expect(Array.from(await out.read())).toEqual(tripsRef());
        out.free();
      });

      it.each([[2, 1], [2, 3], [3, 64], [2, 100], [1, 1024]])('halvingTrees: grid %i × block %i, against the TS reference', async (grid, blk) => {
        const n = grid * blk, r = rng(n + 7);
        const a = Int32Array.from({ length: n }, () => Math.floor(r() * 2 ** 32) | 0);
        const A = await be.dev.upload('i32', a), out = be.dev.alloc('i32', 2 * grid);
        await be.launch('halvingTrees', grid, blk, [A, out]);
        expect(Array.from(await out.read())).toEqual(halvingTreesRef(a, grid, blk));
        A.free(); out.free();
      });

      it.each([[1, 32], [3, 64], [2, 96]])('warpSum: grid %i × block %i', async (grid, blk) => {
        const n = grid * blk, r = rng(n);
        const a = Int32Array.from({ length: n }, () => Math.floor(r() * 2000) - 1000);
        const A = await be.dev.upload('i32', a), sums = be.dev.alloc('i32', n / 32);
        await be.launch('warpSum', grid, blk, [A, sums]);
        expect(Array.from(await sums.read())).toEqual(Array.from({ length: n / 32 }, (_, w) => a.subarray(w * 32, w * 32 + 32).reduce((x, y) => x + y, 0)));
        A.free(); sums.free();
      });
    });
  }
});
