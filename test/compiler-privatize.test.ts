// Arrays a kernel only ever atomicAdds into (result unused) are privatised by the block form:
// each worker adds into its own copy for a chunk of blocks, then into the array once per
// non-zero element. The sums must be exactly the atomics' sums on every backend, at any size
// (an array too big for the copy stays atomics), after a trap, and with the array passed twice.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { compileKernels } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import { KernelError } from '../src/errors.js';
import { compiledBackends, onCompiledBackend, rng } from './helpers.js';

const FILE = 'test/kernels/privatize.ts';
const source = readFileSync(FILE, 'utf8');
let mod: KernelModule;
let blockForm = '';
beforeAll(async () => {
  mod = await compileKernels([{ path: FILE, source }], { cacheDir: false, onGenerated: (g) => { blockForm = g.block; } });
});

const fnText = (name: string): string => { const a = blockForm.indexOf(`export function ${name}(`); return blockForm.slice(a, blockForm.indexOf('\n}', a)); };

describe('privatised atomicAdd: the generated block form', () => {
  it('adds into the copy only for arrays nothing else touches, and checks the other arrays for overlap', () => {
    expect(fnText('__blocks_addBins')).toMatch(/if \(\(__p_keys \+ \(<usize>__n_keys << 2\) <= __p_bins \|\| __p_bins \+ \(<usize>__n_bins << 2\) <= __p_keys\) && .*__p_vals.*\) __privBegin\(__p_bins, __n_bins, 0 \+ sharedSize\(\)\);[^]*__privFlush\(\);/);
    expect(fnText('__blocks_mergeBins')).toContain('__privBegin(__p_bins, __n_bins, 256 + sharedSize());');
    expect(fnText('__blocks_aliasBins')).toMatch(/__p_view \+ \(<usize>__n_view << 2\) <= __p_bins/);
    expect(blockForm).toMatch(/__atomicAddP<i32>\(false, __p_bins, __n_bins, <i64>\(__ld<i32>\(__p_keys/);
    expect(fnText('__blocks_addAndRead')).not.toMatch(/__privBegin|__privFlush/);
    expect(fnText('__fast_addAndRead')).not.toMatch(/__atomicAddP/);
    // the local histogram's shared atomics are plain read-modify-writes, never privatised
    expect(fnText('__fast_mergeBins')).not.toMatch(/__atomicAddP<u32>\(true/);
  });
});

for (const b of compiledBackends([3])) {
  describe(`privatised atomicAdd on ${b.name}`, () => {
    const be = onCompiledBackend(b, () => mod);

    it.each([[0, 7, 1, 32], [1, 1, 1, 4], [1000, 7, 3, 64], [100_003, 256, 40, 256], [50_000, 100_000, 16, 128], [4096, 3, 200, 32]])(
      'addBins: %i values into %i i32 bins, grid %i × block %i (sums as the atomics make them)', async (n, nb, grid, block) => {
        const r = rng(n + nb);
        const keys = Int32Array.from({ length: n }, () => Math.floor(r() * nb));
        const vals = Int32Array.from({ length: n }, () => (r() < 0.5 ? -1 : 1) * Math.floor(r() * 2 ** 31));
        const K = await be.dev.upload('i32', keys.length ? keys : [0]), V = await be.dev.upload('i32', vals.length ? vals : [0]);
        const bins = be.dev.alloc('i32', nb);
        await bins.fill(5);
        await be.launch('addBins', grid, block, [K, V, n, bins]);
        const ref = new Int32Array(nb).fill(5);
        for (let i = 0; i < n; i++) ref[keys[i]!] = (ref[keys[i]!]! + vals[i]!) | 0;
        expect(Array.from(await bins.read())).toEqual(Array.from(ref));
        K.free(); V.free(); bins.free();
      });

    it.each([[65_536, 64, 512, 256], [1000, 10, 7, 32], [3, 64, 1, 64]])('mergeBins: %i values, %i of 64 bins merged, grid %i × block %i', async (n, nb, grid, block) => {
      const r = rng(n);
      const data = Uint32Array.from({ length: n }, () => Math.floor(r() * 2 ** 32));
      const D = await be.dev.upload('u32', data), bins = be.dev.alloc('u32', nb);
      await bins.fill(0);
      await be.launch('mergeBins', grid, block, [D, n, bins, nb]);
      const ref = new Uint32Array(nb);
      for (const v of data) if (v % 64 < nb) ref[v % 64]! += 1;
      expect(Array.from(await bins.read())).toEqual(Array.from(ref));
      D.free(); bins.free();
    });

    it('aliasBins: the bins passed again as the array read: every block sees its own add, and the count is the grid', async () => {
      const grid = 300;
      const bins = be.dev.alloc('u32', 1), out = be.dev.alloc('u32', grid);
      await bins.fill(0);
      await be.launch('aliasBins', grid, 32, [bins, bins, out]);
      expect((await bins.read())[0]).toBe(grid);
      const seen = Array.from(await out.read());
      expect(seen.filter((v) => v < 1 || v > grid)).toEqual([]);
      bins.free(); out.free();
    });

    it('addAndRead (not privatised): the counts', async () => {
      const grid = 50, block = 64;
      const bins = be.dev.alloc('u32', block), out = be.dev.alloc('u32', grid * block);
      await bins.fill(0);
      await be.launch('addAndRead', grid, block, [bins, out]);
      expect(Array.from(await bins.read())).toEqual(new Array(block).fill(grid));
      expect(Array.from(await out.read()).filter((v) => v < 1 || v > grid)).toEqual([]);
      bins.free(); out.free();
    });

    it('a key outside the bins traps, the adds made before it are in the bins, and the next launch is exact', async () => {
      // one block of one thread: adds in index order, so the keys before the bad one have added
      const n = 200, nb = 16, bad = 137;
      const keys = Int32Array.from({ length: n }, (_, i) => (i === bad ? nb + 3 : i % nb));
      const vals = Int32Array.from({ length: n }, (_, i) => i + 1);
      const K = await be.dev.upload('i32', keys), V = await be.dev.upload('i32', vals), bins = be.dev.alloc('i32', nb);
      await bins.fill(0);
      const err = await be.launch('addBins', 1, 1, [K, V, n, bins]).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(KernelError);
      expect(String((err as Error).message)).toMatch(/index 19 is out of bounds of 'bins' \(length 16\)/);
      const before = new Int32Array(nb);
      for (let i = 0; i < bad; i++) before[keys[i]!]! += vals[i]!;
      expect(Array.from(await bins.read())).toEqual(Array.from(before));
      const good = Int32Array.from(keys, (k) => (k >= nb ? 0 : k));
      const G = await be.dev.upload('i32', good);
      await bins.fill(0);
      await be.launch('addBins', 4, 32, [G, V, n, bins]);
      const ref = new Int32Array(nb);
      for (let i = 0; i < n; i++) ref[good[i]!]! += vals[i]!;
      expect(Array.from(await bins.read())).toEqual(Array.from(ref));
      K.free(); V.free(); G.free(); bins.free();
    });
  });
}
