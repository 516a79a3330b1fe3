// Kernels compiled from per-thread sources (test/kernels/language.ts) against TS references,
// on every backend from one table: `wasm` (2 workers), `serial` under several seeds, and the
// fine-grained form the race tools run (one emulated thread at a time, in order).
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { compileKernelFiles, compileKernels } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import type { DimLike } from '../src/dims.js';
import { KernelError } from '../src/errors.js';
import { compiledBackends, onCompiledBackend, rng, withoutProvenCopies } from './helpers.js';
import { INC_CASES, incSequence } from './cuda-model.js';

let mod: KernelModule;
beforeAll(async () => { mod = await compileKernelFiles(['test/kernels/language.ts']); });

const BACKENDS = compiledBackends([1, 2, 99]);

/** The 1-based line of test/kernels/language.ts holding `text` (report locations name it). */
const languageLine = (text: string): number => readFileSync('test/kernels/language.ts', 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;

const ints = (n: number, seed: number, lo = -50, hi = 50): Int32Array => { const r = rng(seed); return Int32Array.from({ length: n }, () => lo + Math.floor(r() * (hi - lo + 1))); };

for (const b of BACKENDS) {
  describe(`compiled kernels on ${b.name}`, async () => {
    const be = onCompiledBackend(b, () => mod);
    const run = (kernel: string, grid: DimLike, block: DimLike, args: unknown[], sharedBytes = 0) => be.launch(kernel, grid, block, args, sharedBytes);

    for (const [n, block] of [[1, 1], [31, 32], [100, 64], [1000, 256], [1025, 1024], [777, 96]] as const) {
      it(`reverseBlock: n=${n}, block=${block}`, async () => {
        const a = ints(n, n);
        const grid = Math.max(1, Math.ceil(n / block));
        const A = await be.dev.upload('i32', a);
        const O = be.dev.alloc('i32', n); await O.fill(-7);
        await run('reverseBlock', grid, block, [A, O, n], 4 * block);
        const out = await O.read();
        const ref = new Int32Array(n).fill(-7);
        for (let g = 0; g < n; g++) { const t = g % block; const src = (g - t) + block - 1 - t; if (src < n) ref[g] = a[src]!; }
        expect(Array.from(out)).toEqual(Array.from(ref));
      });

      it(`blockScan and earlyExit: n=${n}, block=${block}`, async () => {
        const a = ints(n, n + 3, 0, 9);
        const grid = Math.max(1, Math.ceil(n / block));
        const A = await be.dev.upload('i32', a);
        const O = be.dev.alloc('i32', n);
        await run('blockScan', grid, block, [A, O, n]);
        const ref = new Int32Array(n);
        for (let g = 0; g < n; g++) ref[g] = (g % block === 0 ? 0 : ref[g - 1]!) + a[g]!;
        expect(Array.from(await O.read())).toEqual(Array.from(ref));
        await run('earlyExit', grid, block, [A, O, n]);
        expect(Array.from(await O.read())).toEqual(Array.from(ref));
      });
    }

    it('a barrier under a uniform if, and returns after the last barrier', async () => {
      const n = 1000, block = 128, grid = 8;
      const a = ints(n, 5);
      const A = await be.dev.upload('i32', a); const O = be.dev.alloc('i32', n);
      await run('uniformIf', grid, block, [A, O, n]);
      const ref = new Int32Array(n);
      for (let g = 0; g < n; g++) {
        const bi = Math.floor(g / block), t = g % block;
        const val = (gi: number) => (gi < n ? a[gi]! : 0);
        ref[g] = bi % 2 === 0 ? val(bi * block + block - 1 - t) : 2 * a[g]!;
      }
      expect(Array.from(await O.read())).toEqual(Array.from(ref));
    });

    for (const [bx, by, bz] of [[4, 3, 2], [32, 8, 1], [7, 5, 3], [1, 1, 64]] as const) {
      it(`2-D/3-D block ${bx}×${by}×${bz} on a 2×3×1 grid`, async () => {
        const nt = bx * by * bz, blocks = 6;
        const O = be.dev.alloc('i32', nt * blocks);
        await run('dims3', { x: 2, y: 3, z: 1 }, { x: bx, y: by, z: bz }, [O]);
        const out = await O.read();
        for (let blk = 0; blk < blocks; blk++) for (let lin = 0; lin < nt; lin++) {
          const src = nt - 1 - lin;
          const x = src % bx, y = Math.floor(src / bx) % by, z = Math.floor(src / (bx * by));
          expect(out[blk * nt + lin]).toBe(x * 10000 + y * 100 + z);
        }
      });
    }

    it('__syncthreads_count / _or / _and', async () => {
      const block = 96, grid = 5;
      const a = ints(block * grid, 8, -3, 3);
      a.fill(1, 2 * block, 3 * block);          // block 2: all true
      a.fill(0, 3 * block, 4 * block);          // block 3: none
      const A = await be.dev.upload('i32', a); const O = be.dev.alloc('i32', grid * 3);
      await run('predicates', grid, block, [A, O]);
      const out = await O.read();
      for (let bi = 0; bi < grid; bi++) {
        const c = Array.from(a.subarray(bi * block, (bi + 1) * block)).filter((v) => v > 0).length;
        expect([out[bi * 3], out[bi * 3 + 1], out[bi * 3 + 2]]).toEqual([c, c > 0 ? 1 : 0, c === block ? 1 : 0]);
      }
    });

    for (const [op, delta, width] of [[0, 0, 32], [1, 1, 32], [1, 5, 16], [2, 1, 32], [2, 3, 8], [3, 1, 32], [3, 4, 16], [0, 0, 4]] as const) {
      it(`shuffle op ${op} delta ${delta} width ${width} (block of 80: a partial warp)`, async () => {
        const block = 80, grid = 2, n = block * grid;
        const a = ints(n, op * 10 + delta, -1000, 1000);
        const A = await be.dev.upload('i32', a); const O = be.dev.alloc('i32', n);
        await run('shuffles', grid, block, [A, O, op, delta, width]);
        const out = await O.read();
        for (let g = 0; g < n; g++) {
          const t = g % block, lane = t & 31, warpBase = g - lane;
          let src = lane;
          if (op === 0) src = (lane & ~(width - 1)) + (((lane ^ 3)) & (width - 1));
          if (op === 1) src = (lane & (width - 1)) >= delta ? lane - delta : lane;
          if (op === 2) src = (lane & (width - 1)) + delta < width ? lane + delta : lane;
          if (op === 3) { const x = lane ^ delta; src = x >= (lane & ~(width - 1)) + width ? lane : x; }
          const sg = warpBase + src;
          const inBlock = (sg - (g - t)) < block;
          expect(out[g]).toBe(inBlock ? a[sg] : a[g]);
        }
      });
    }

    for (const [op, delta] of [[1, 1], [1, 31], [2, 3], [2, 16], [3, 1], [3, 21], [2, -1]] as const) {
      it(`whole-warp shuffle op ${op} by ${delta} (block of 80: a partial warp)`, async () => {
        const block = 80, grid = 2, n = block * grid;
        const a = ints(n, op * 7 + delta + 50, -1000, 1000);
        const A = await be.dev.upload('i32', a); const O = be.dev.alloc('i32', n);
        await run('warpShuffles', grid, block, [A, O, op, delta]);
        const out = await O.read();
        for (let g = 0; g < n; g++) {
          const t = g % block, lane = t & 31;
          // CUDA's offset is unsigned: -1 is past the warp, so the lane keeps its value.
          const d = delta >>> 0;
          const src = op === 1 ? (lane >= d ? lane - d : lane) : op === 2 ? (lane + d < 32 ? lane + d : lane) : ((lane ^ d) < 32 ? lane ^ d : lane);
          const partner = t - lane + src;
          expect(out[g], `thread ${t} of block ${Math.floor(g / block)}`).toBe(partner < block ? a[g - t + partner] : a[g]);
        }
      });
    }

    for (const mask of [0xffffffff, 0x0000ffff, 0x80000001]) {
      it(`votes with mask ${mask.toString(16)} (block of 48: a partial warp)`, async () => {
        const block = 48, grid = 3, n = block * grid;
        const a = ints(n, mask % 1000, 0, 5);
        const A = await be.dev.upload('i32', a); const O = be.dev.alloc('u32', 4 * n);
        await run('votes', grid, block, [A, O, mask]);
        const out = await O.read();
        for (let g = 0; g < n; g++) {
          const t = g % block, first = g - (t & 31), lanes = Math.min(32, block - (t & ~31));
          let bits = 0;
          for (let l = 0; l < lanes; l++) if (a[first + l]! & 1) bits |= 1 << l;
          bits = (bits & mask) >>> 0;
          const active = lanes === 32 ? 0xffffffff : ((1 << lanes) - 1) >>> 0;
          expect([out[4 * g], out[4 * g + 1], out[4 * g + 2], out[4 * g + 3]]).toEqual([bits, bits !== 0 ? 1 : 0, bits === ((mask & active) >>> 0) ? 1 : 0, active]);
        }
      });
    }

    it('warp-shuffle reduction in a loop (xor butterfly, f64)', async () => {
      const n = 1000, block = 128, grid = Math.ceil(n / block);
      const r = rng(4);
      const a = Float64Array.from({ length: n }, () => Math.round((r() - 0.5) * 1e6) / 64);
      const A = await be.dev.upload('f64', a); const O = be.dev.alloc('f64', grid * block / 32);
      await run('warpSum', grid, block, [A, O, n]);
      const out = await O.read();
      for (let w = 0; w < out.length; w++) {
        let s = 0; for (let l = 0; l < 32; l++) { const g = w * 32 + l; if (g < n) s += a[g]!; }
        expect(out[w]).toBe(s);
      }
    });

    it('atomics on shared and global arrays (atomicInc wraps)', async () => {
      const block = 64, grid = 10, n = block * grid;
      const a = ints(n, 9, -100, 100);
      const A = await be.dev.upload('i32', a);
      const S = await be.dev.upload('i32', [0, -2147483648, 2147483647, 0, 0]);
      const C = await be.dev.upload('u32', [0]);
      await run('atomics', grid, block, [A, S, C, 100]);
      const s = await S.read();
      const sum = a.reduce((x, y) => x + y, 0);
      expect(Array.from(s)).toEqual([sum, Math.max(...a), Math.min(...a), grid, 7]);
      // 640 increments with wrap at limit 100: 640 mod 101.
      expect((await C.read())[0]).toBe(n % 101);
    });

    for (const c of INC_CASES) {
      it(`atomicInc from ${c.start} with bound ${c.limit}${c.store ? ' (counter stored in the kernel)' : ''}: each value once, as CUDA's sequence`, async () => {
        const n = c.grid * c.block;
        const C = await be.dev.upload('u32', [c.store ? 0 : c.start]);
        const G = be.dev.alloc('u32', n);
        await run('incTickets', c.grid, c.block, [C, G, c.limit, c.start, c.store]);
        const ref = incSequence(c.start, c.limit, n);
        expect(Array.from(await G.read()).sort((x, y) => x - y)).toEqual(ref.got.sort((x, y) => x - y));
        expect((await C.read())[0]).toBe(ref.final);
      });
    }

    it('a device function with array and scalar arguments (grid-stride axpy, n not a multiple of anything)', async () => {
      const n = 10_007;
      const r = rng(12);
      const x = Float32Array.from({ length: n }, () => r()), y = Float32Array.from({ length: n }, () => r());
      const X = await be.dev.upload('f32', x); const Y = await be.dev.upload('f32', y);
      await run('axpy', 7, 96, [2.5, X, Y, n]);
      const out = await Y.read();
      for (let i = 0; i < n; i++) expect(out[i]).toBe(Math.fround(Math.fround(2.5 * x[i]!) + y[i]!));
    });

    it('a loop with a barrier whose per-thread condition agrees across the block', async () => {
      const O = be.dev.alloc('i32', 3 * 64);
      await run('perThreadUniformLoop', 3, 64, [O, 5]);
      expect(Array.from(await O.read())).toEqual(new Array(3 * 64).fill(5));
    });

    it('a barrier in a loop whose condition differs between threads traps as a divergent barrier', async () => {
      const O = be.dev.alloc('i32', 64);
      const T = await be.dev.upload('i32', [0]);
      const p = run('divergentLoop', 1, 64, [O, T]);
      if (b.fine) {
        // The race tools run it through (a thread that left does not hold a barrier, as on
        // Volta) and report the divergence at the barrier's source line.
        await p;
        const d = be.reports.find((r) => r.kind === 'barrier-divergence');
        expect(d?.first?.location).toMatch(/language\.ts:176:\d+/);
        expect(d?.message).toMatch(/exited without reaching it/);
      } else {
        await expect(p).rejects.toThrow(KernelError);
        await expect(p).rejects.toThrow(/divergent barrier.*language\.ts:\d+/);
      }
      // The device stays usable.
      await run('perThreadUniformLoop', 1, 64, [O, 2]);
      expect((await O.read())[63]).toBe(2);
    });

    it('an index outside its array traps naming kernel, array, index, block and thread', async () => {
      const A = await be.dev.upload('i32', ints(100, 1));
      const O = be.dev.alloc('i32', 10);
      const p = run('reverseBlock', 4, 32, [A, O, 100], 128);
      await expect(p).rejects.toThrow(KernelError);
      await expect(p).rejects.toThrow(/kernel reverseBlock trapped in block \(\d, 0, 0\): index \d+ is out of bounds of 'out' \(length 10\) in thread \(\d+, 0, 0\) at test\/kernels\/language\.ts:17:/);
    });

    it('a trap names the thread that made the access (index = block · 32 + thread)', async () => {
      const A = await be.dev.upload('i32', ints(100, 1));
      const O = be.dev.alloc('i32', 10);
      const e = await run('reverseBlock', 4, 32, [A, O, 100], 128).then(() => undefined, (x: unknown) => x as Error);
      const m = /block \((\d), 0, 0\): index (\d+) is out of bounds .* in thread \((\d+), 0, 0\)/.exec(e?.message ?? '');
      expect(m, e?.message).not.toBeNull();
      expect(Number(m![2])).toBe(Number(m![1]) * 32 + Number(m![3]));
    });

    for (const [n, grid, block] of [[0, 1, 32], [1, 1, 1], [1000, 3, 128], [4099, 2, 256]] as const) {
      it(`grid-stride loops (for and while): n=${n}, grid=${grid}, block=${block}`, async () => {
        const a = ints(n, n + 1);
        const A = await be.dev.upload('i32', a);
        const O = be.dev.alloc('i32', n);
        await run('gridStrideCopy', grid, block, [A, O, n]);
        expect(Array.from(await O.read())).toEqual(Array.from(a, (x) => x * 2 + 1));
      });
    }

    // Many iterations per thread: the block form runs these loops interchanged (block-level steps).
    for (const [n, grid, bx, by] of [[0, 1, 32, 1], [1, 1, 1, 1], [5000, 2, 64, 1], [9999, 3, 32, 2], [70000, 2, 256, 1]] as const) {
      it(`grid-stride loops carrying values, continue, return: n=${n}, grid=${grid}, block=${bx}x${by}`, async () => {
        const a = ints(n, n + 5);
        const A = await be.dev.upload('i32', a);
        const threads = grid * bx * by;
        const O = be.dev.alloc('i32', 4 * threads);
        await run('gridStrideCarry', grid, { x: bx, y: by }, [A, O, n]);
        const ref = new Int32Array(4 * threads);
        const stride = grid * bx;
        for (let ty = 0; ty < by; ty++) for (let b = 0; b < grid; b++) for (let tx = 0; tx < bx; tx++) {
          const o = 4 * ((ty * grid + b) * bx + tx), first = b * bx + tx;
          let sum = 0, count = 0, best = -1000, last = first;
          for (let i = first; i < n; i += stride) { if (a[i]! >= 0) { sum += a[i]!; count++; } best = Math.max(best, a[i]!); }
          while (last < n) last += stride;
          ref.set([sum, count, best, last], o);
        }
        expect(Array.from(await O.read())).toEqual(Array.from(ref));
        const stop = n > 0 ? a[Math.floor(n * 0.6)]! : 0;
        const E = be.dev.alloc('i32', threads); await E.fill(-12345);
        await run('gridStrideExit', grid, bx, [A, E, n, stop]);
        const refE = new Int32Array(grid * bx);
        for (let g = 0; g < grid * bx; g++) {
          let seen = 0, r = -12345;
          for (let i = g; i < n; i += stride) { if (a[i] === stop) { r = -1 - seen; break; } seen++; }
          refE[g] = r === -12345 ? seen : r;
        }
        expect(Array.from((await E.read()).subarray(0, grid * bx))).toEqual(Array.from(refE));
      });
    }

    // A step below blockDim.x (threads' iterations overlap), with enough iterations per thread for
    // the interchanged form: each thread runs exactly its own iterations (the step's end once cut
    // short the threads with threadIdx.x >= step).
    for (const [n, grid, block, step] of [[5000, 1, 64, 7], [3000, 2, 128, 1], [20000, 1, 256, 100], [777, 3, 32, 33], [100, 1, 32, 5]] as const) {
      it(`a strided loop whose step (${step}) is below blockDim.x: n=${n}, grid=${grid}, block=${block}`, async () => {
        const a = ints(n, n + step);
        const A = await be.dev.upload('i32', a);
        const O = be.dev.alloc('i32', grid * block);
        await run('overlappingStride', grid, block, [A, O, n, step]);
        const ref = Array.from({ length: grid * block }, (_, t) => { let s = 0; for (let i = t; i < n; i += step) if (a[i]! >= 0) s += a[i]!; return s; });
        expect(Array.from(await O.read())).toEqual(ref);
      });
    }

    it('a grid-stride loop running past an array traps', async () => {
      const A = await be.dev.upload('i32', ints(100, 2));
      const O = be.dev.alloc('i32', 60);
      const p = run('gridStrideCopy', 2, 32, [A, O, 100]);
      await expect(p).rejects.toThrow(/index (6\d|[7-9]\d) is out of bounds of 'out' \(length 60\)/);
      const B = be.dev.alloc('i32', 100);
      const q = run('gridStrideCopy', 2, 32, [O, B, 100]);
      await expect(q).rejects.toThrow(/is out of bounds of 'a' \(length 60\)/);
    });

    for (const [n, grid, block] of [[1, 1, 32], [100, 2, 64], [1000, 4, 256], [3000, 3, 1024]] as const) {
      it(`device functions with barriers, shuffles and __shared__ (inlined): n=${n}, grid=${grid}, block=${block}`, async () => {
        const a = ints(n, n + 7);
        const A = await be.dev.upload('i32', a);
        const O = be.dev.alloc('i32', grid * block);
        await run('deviceBarriers', grid, block, [A, O, n]);
        const ref = new Int32Array(grid * block);
        for (let b = 0; b < grid; b++) {
          let s = 0;
          for (let t = 0; t < block; t++) { const g = b * block + t; s += g < n ? a[g]! : 0; }
          const s2 = 2 * s + block;
          for (let t = 0; t < block; t++) ref[b * block + t] = 3 * (s + s2);
        }
        expect(Array.from(await O.read())).toEqual(Array.from(ref));
      });
    }

    for (const [n, grid, block] of [[1, 1, 32], [200, 2, 64], [1000, 3, 256], [3000, 2, 1024]] as const) {
      it(`warp operations under warp-uniform conditions: n=${n}, grid=${grid}, block=${block}`, async () => {
        const a = ints(n, n + 9);
        const A = await be.dev.upload('i32', a);
        const O = be.dev.alloc('i32', grid * block);
        await run('warpUniformIf', grid, block, [A, O, n]);
        const ref = new Int32Array(grid * block);
        for (let b = 0; b < grid; b++) {
          let total = 0;
          for (let t = 0; t < block; t++) { const g = b * block + t; total += g < n ? a[g]! : 0; }
          for (let t = 0; t < block; t++) {
            const g = b * block + t, warp = t >> 5;
            ref[g] = warp === 0 ? total : warp === 1 ? g ^ 1 : -1;
          }
        }
        expect(Array.from(await O.read())).toEqual(Array.from(ref));
      });
    }

    it('a warp operation under a condition that differs inside a warp is a divergent warp operation', async () => {
      const O = be.dev.alloc('i32', 64);
      const p = run('warpDivergentIf', 1, 64, [O]);
      if (b.fine) {
        // The race tools run it through: lanes 5..31 never reach the full-mask shuffle lanes 0..4
        // wait at (they finish first), reported at the shuffle's line with the lanes missing.
        await p;
        const d = be.reports.filter((r) => r.kind === 'warp-divergence');
        expect(d).toHaveLength(1);
        const line = languageLine('if (threadIdx.x < 5) v = __shfl_xor_sync(0xffffffff, v, 1);');
        expect(d[0]!.first?.location).toMatch(new RegExp(`language\\.ts:${line}:\\d+`));
        expect(d[0]).toMatchObject({ severity: 'error', warp: 0, mask: 0xffffffff, missingLanes: Array.from({ length: 27 }, (_, k) => k + 5), second: { thread: [5, 0, 0] } });
        expect(d[0]!.message).toContain(`warp 0: __shfl_xor_sync at test/kernels/language.ts:${line}:`);
        expect(d[0]!.message).toMatch(/ names lanes 5-31 in its mask 0xffffffff, but they exited without reaching it \(lanes 0-4 wait there\)/);
        return;
      }
      await expect(p).rejects.toThrow(KernelError);
      await expect(p).rejects.toThrow(/divergent warp operation: the condition of an if with warp operations at test\/kernels\/language\.ts:\d+:\d+ differs between the lanes of warp 0 \(first seen in thread \(5, 0, 0\)\)/);
    });

    // NaN, both zeros and the infinities among random values, each at several positions.
    const specials = [NaN, 0, -0, Infinity, -Infinity, 1e-45, -1e-45];
    const floats = (n: number, seed: number): number[] => {
      const r = rng(seed);
      return Array.from({ length: n }, () => (r() < 0.3 ? specials[Math.floor(r() * specials.length)]! : (r() - 0.5) * 1e3));
    };
    /** `cond ? x : y` exactly as the kernel's source reads it. */
    const same = (got: ArrayLike<number>, ref: ArrayLike<number>) => {
      for (let i = 0; i < ref.length; i++) if (!Object.is(got[i], ref[i])) throw new Error(`[${i}] = ${got[i]}, expected ${ref[i]}`);
    };
    for (const [n, grid, block] of [[1, 1, 1], [300, 2, 64], [1000, 3, 128], [4096, 4, 256], [5, 1, 32]] as const) {
      it(`float min/max shapes (branch-free in the block form): n=${n}, grid=${grid}, block=${block}`, async () => {
        const a = Float32Array.from(floats(n, n + 11));
        const A = await be.dev.upload('f32', a);
        const O = be.dev.alloc('f32', grid * block * 7);
        await run('floatMinMax', grid, block, [A, O, n]);
        const ref = new Float32Array(grid * block * 7);
        for (let b = 0; b < grid; b++) {
          const c = new Float32Array(block);
          for (let t = 0; t < block; t++) {
            let hi = -Infinity, lo = Infinity, t1 = 0, t2 = 0, t3 = 0, t4 = 0;
            for (let i = b * block + t; i < n; i += block * grid) {
              const x = a[i]!;
              if (x > hi) hi = x;
              if (x < lo) lo = x;
              t1 = x > t1 ? x : t1; t2 = t2 < x ? t2 : x; t3 = x < t3 ? t3 : x; t4 = t4 > x ? x : t4;
            }
            c[t] = hi;
            ref.set([hi, lo, t1, t2, t3, t4, 0], (b * block + t) * 7);
          }
          for (let s = block >> 1; s > 0; s >>= 1) for (let t = 0; t < s; t++) if (c[t + s]! > c[t]!) c[t] = c[t + s]!;
          ref[b * block * 7 + 6] = c[0]!;
        }
        same(await O.read(), ref);
        const d = Float64Array.from(floats(n, n + 5));
        const D = await be.dev.upload('f64', d);
        const P = be.dev.alloc('f64', grid * block * 2);
        await run('doubleMinMax', grid, block, [D, P, n]);
        const refD = new Float64Array(grid * block * 2);
        for (let g = 0; g < grid * block; g++) {
          let hi = -Infinity, lo = Infinity;
          for (let i = g; i < n; i += block * grid) { if (hi < d[i]!) hi = d[i]!; lo = d[i]! < lo ? d[i]! : lo; }
          refD[2 * g] = hi; refD[2 * g + 1] = lo;
        }
        same(await P.read(), refD);
      });
    }
  });
}

describe('grid-stride loops in the block form', () => {
  const SRC = `import { threadIdx, blockIdx, blockDim, gridDim } from "simt/kernel";
export function forms(a: f32[], out: f32[], n: i32): void {
  let s: f32 = 0;
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += a[i];
  let k = threadIdx.x + blockIdx.x * blockDim.x;
  while (k < n) { s += a[k]; k += blockDim.x * gridDim.x; }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
export function lets(a: f32[], out: f32[], n: i32): void {
  let tid = blockIdx.x * blockDim.x + threadIdx.x;
  let stride = blockDim.x * gridDim.x;
  let s: f32 = 0;
  for (let i = tid; i < n; i += stride) s += a[i];
  out[tid] = s;
}
export function kept(a: f32[], out: i32[], n: i32): void {
  let k = blockIdx.x * blockDim.x + threadIdx.x;
  while (k < n) { k += blockDim.x * gridDim.x; }
  out[blockIdx.x * blockDim.x + threadIdx.x] = k;
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) { if (a[i] > 0) break; }
  for (let i = threadIdx.y; i < n; i += blockDim.y) out[i] = 0;
}
`;
  it('run interchanged (block-level steps) when each thread has many iterations, and as written otherwise', async () => {
    let block = '';
    await compileKernels([{ path: 'gs.ts', source: SRC }], { cacheDir: false, optimize: false, onGenerated: (g) => { block = g.block; } });
    const fast = (k: string): string => block.slice(block.indexOf(`export function __fast_${k}(`)).split('\n}\n')[0]!;
    // Both loops of `forms`: the launch picks the interchanged form when either has more iterations per thread than one step holds.
    expect(fast('forms')).toMatch(/^ {2}if \(<i64>\(n\) - <i64>\(__bix \* __bdx\) > <i64>\(\(?__bdx \* __gdx\)?\) \* <i64>\(max\(2, 4096 \/ \(__bdx \* __bdy \* __bdz\)\)\) \|\| <i64>\(n\) - /m);
    block = withoutProvenCopies(block);
    expect(block.match(/const __iEnd = <i32>min<i64>\(<i64>__u\d+, <i64>__u\d+ \+ <i64>__tx\); for \(let i: i32 = __u\d+ \+ __tx; i < __iEnd; i \+= __u\d+\) \{/g)).toHaveLength(2); // forms and lets
    expect(block.match(/for \(let k: i32 = __u\d+ \+ __tx; k < __iEnd; k \+= __u\d+\) \{/g)).toHaveLength(1);
    // An index read after its loop, a break, an index not threadIdx.x-based: left per thread.
    expect(fast('kept')).not.toMatch(/>= <i64>/);
    expect(block).not.toMatch(/__kept_gs_r/);
    // `let` values never assigned again count as constants (the CUDA idiom's `int stride = …`).
    expect(block).toMatch(/__lets_gs_r/);
  });
});
