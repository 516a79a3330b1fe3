// The block form's x4 regions (four threads in the lanes of wasm SIMD vectors,
// src/compiler/laneVector.ts), on the kernels of test/kernels/lanes.ts: against TS references on
// `wasm` (which runs them), `serial` and the fine-grained form (which do not: the same answers),
// on block sizes that leave 0-3 threads of a row to the scalar loop; the traps' thread and index
// as the scalar loop names them; the unchecked build; and which regions have the x4 form.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { compileKernels } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import { KernelError } from '../src/errors.js';
import { compiledBackends, onCompiledBackend, rng, testDevice } from './helpers.js';

const FILE = 'test/kernels/lanes.ts';
const source = readFileSync(FILE, 'utf8');
let mod: KernelModule;
let unchecked: KernelModule;
let blockForm = '';
beforeAll(async () => {
  mod = await compileKernels([{ path: FILE, source }], { cacheDir: false, onGenerated: (g) => { blockForm = g.block; } });
  unchecked = await compileKernels([{ path: FILE, source }], { cacheDir: false, unchecked: true });
});

const f = Math.fround;
const floats = (n: number, seed: number): Float32Array => { const r = rng(seed); return Float32Array.from({ length: n }, () => Math.round((r() * 200 - 100) * 8) / 8); };
const ints = (n: number, seed: number, lo: number, hi: number): Int32Array => { const r = rng(seed); return Int32Array.from({ length: n }, () => lo + Math.floor(r() * (hi - lo))); };

function affineMixRef(a: Float32Array, b: Int32Array, n: number): { out: Float32Array; outI: Int32Array } {
  const out = new Float32Array(a.length), outI = new Int32Array(a.length);
  for (let i = 0; i < n; i++) {
    let x = f(f(a[i]! * 2) - b[i]!);
    x = b[i]! > 0 ? f(x + 1) : -x;
    out[i] = x;
    outI[i] = ((b[i]! << 2) ^ (b[i]! >> 1)) | (i & 7);
  }
  return { out, outI };
}

function stridedSumRef(a: Float32Array, threads: number): Float32Array {
  const out = new Float32Array(threads);
  for (let g = 0; g < threads; g++) { let s = 0; for (let i = g; i < a.length; i += threads) s = f(s + a[i]!); out[g] = s; }
  return out;
}

function divergentLoopRef(counts: Int32Array): Int32Array {
  return Int32Array.from(counts, (c) => {
    let acc = 0;
    for (let k = 0; k < c; k++) acc += k * 3;
    acc += 2 * (c % 5);
    return acc * 10 + 2;
  });
}

function unsignedSharedRef(bytes: Uint8Array, words: Uint32Array, n: number): Uint32Array {
  const s = Uint32Array.from(words, (w, g) => (w > 0x80000000 ? w - 0x80000000 : (w + bytes[g]!) >>> 0));
  return Uint32Array.from(s, (_, g) => { const base = g - (g % n); const t = g % n; return (s[base + ((t + 1) % n)]! + (s[g]! >>> 3)) >>> 0; });
}

function chunkRunsRef(a: Int32Array, items: number): Int32Array {
  const out = new Int32Array(a.length);
  for (let b = 0; b < a.length; b += items) { let run = 0; for (let i = b; i < b + items; i++) { out[i] = run; run = (run + a[i]!) | 0; } }
  return out;
}

const BACKENDS = compiledBackends([3]);

for (const b of BACKENDS) {
  describe(`x4 regions' kernels on ${b.name}`, () => {
    const be = onCompiledBackend(b, () => mod);

    it.each([[1, 1, 1], [1, 6, 3], [2, 13, 7], [3, 64, 33]])('chunkRuns: grid %i × block %i, %i items per thread (each lane its own run)', async (grid, block, items) => {
      const total = grid * block * items;
      const a = ints(total, items, -1000, 1000);
      const A = await be.dev.upload('i32', a), out = be.dev.alloc('i32', total);
      await be.launch('chunkRuns', grid, block, [A, out, items]);
      expect(Array.from(await out.read())).toEqual(Array.from(chunkRunsRef(a, items)));
      A.free(); out.free();
    });

    it.each([[1, 1, 1], [1, 5, 5], [3, 7, 20], [2, 100, 199], [4, 64, 256], [1, 1024, 1000]])('affineMix: grid %i × block %i, n %i (floats, casts, if/else per lane, bit operations)', async (grid, block, n) => {
      const total = grid * block;
      const a = floats(total, n), bv = ints(total, n + 1, -50, 50);
      const A = await be.dev.upload('f32', a), B = await be.dev.upload('i32', bv);
      const out = be.dev.alloc('f32', total), outI = be.dev.alloc('i32', total);
      await out.fill(0); await outI.fill(0); // (threads past n write nothing; alloc leaves memory as it was)
      await be.launch('affineMix', grid, block, [A, B, out, outI, n]);
      const ref = affineMixRef(a, bv, n);
      expect(Array.from(await out.read())).toEqual(Array.from(ref.out));
      expect(Array.from(await outI.read())).toEqual(Array.from(ref.outI));
      A.free(); B.free(); out.free(); outI.free();
    });

    it.each([[1, 4, 0], [1, 4, 3], [2, 6, 100], [3, 32, 1001], [2, 128, 4099]])('stridedSum: grid %i × block %i over %i values (the lanes finish a strided loop one by one)', async (grid, block, n) => {
      const a = floats(Math.max(n, 1), 7).subarray(0, n);
      const A = await be.dev.upload('f32', n ? a : new Float32Array(1)), out = be.dev.alloc('f32', grid * block);
      await be.launch('stridedSum', grid, block, [A, out, n]);
      expect(Array.from(await out.read())).toEqual(Array.from(stridedSumRef(a, grid * block)));
      A.free(); out.free();
    });

    it.each([[1, 8], [2, 13], [3, 64]])('divergentLoop: grid %i × block %i (trip counts per thread, a loop with a break per lane)', async (grid, block) => {
      const counts = ints(grid * block, block, -3, 40);
      const C = await be.dev.upload('i32', counts), out = be.dev.alloc('i32', grid * block);
      await be.launch('divergentLoop', grid, block, [C, out]);
      expect(Array.from(await out.read())).toEqual(Array.from(divergentLoopRef(counts)));
      C.free(); out.free();
    });

    it.each([[[6, 5], 2], [[4, 3], 3], [[9, 1], 1]] as const)('unsignedShared: block %j, grid %i (u8 and u32 lanes, unsigned compares, 2-D rows)', async (block, grid) => {
      const n = block[0] * block[1], total = n * grid;
      const r = rng(n);
      const bytes = Uint8Array.from({ length: total }, () => Math.floor(r() * 256));
      const words = Uint32Array.from({ length: total }, () => Math.floor(r() * 2 ** 32));
      const Bt = await be.dev.upload('u8', bytes), W = await be.dev.upload('u32', words), out = be.dev.alloc('u32', total);
      await be.launch('unsignedShared', grid, { x: block[0], y: block[1] }, [Bt, W, out], 4 * n);
      expect(Array.from(await out.read())).toEqual(Array.from(unsignedSharedRef(bytes, words, n)));
      Bt.free(); W.free(); out.free();
    });

    it.each([[1, 6], [2, 33]])('localRows: grid %i × block %i (a __local__ array read at a uniform index)', async (grid, block) => {
      const a = ints(grid * block, block, -100, 100);
      const A = await be.dev.upload('i32', a), out = be.dev.alloc('i32', grid * block);
      await be.launch('localRows', grid, block, [A, out]);
      expect(Array.from(await out.read())).toEqual(Array.from(a, (x) => 20 * x * x + 3 * x));
      A.free(); out.free();
    });

    it.each([[1, 4, 50], [2, 32, 1000], [3, 64, 777]])('skipScan: grid %i × block %i over %i ids (continue per lane, loads under && / || / ?:, u16 lanes)', async (grid, block, n) => {
      const r = rng(n);
      const id = Uint16Array.from({ length: n }, () => (r() < 0.3 ? 7 : Math.floor(r() * 4)));
      const vals = ints(n, n, -1000, 1000);
      const I = await be.dev.upload('u16', id), V = await be.dev.upload('i32', vals);
      const out = be.dev.alloc('i32', n), prev = be.dev.alloc('i32', n), marks = be.dev.alloc('u32', 1);
      await marks.fill(0);
      await be.launch('skipScan', grid, block, [I, V, out, prev, marks, n]);
      const refOut = new Int32Array(n), refPrev = new Int32Array(n);
      let refMarks = 0;
      for (let i = 0; i < n; i++) {
        refPrev[i] = i > 0 ? vals[i - 1]! : -5;
        if (id[i] === 7) { refOut[i] = -1; continue; }
        let j = i - 1;
        while (j >= 0 && id[j] === 7) j--;
        refOut[i] = j;
        if (j < 0 || id[j] !== id[i]) refMarks++;
      }
      expect(Array.from(await out.read())).toEqual(Array.from(refOut));
      expect(Array.from(await prev.read())).toEqual(Array.from(refPrev));
      expect((await marks.read())[0]).toBe(refMarks);
      I.free(); V.free(); out.free(); prev.free(); marks.free();
    });

    // (invalid fraction: none, 1 % as CMS digis, a third, all; n not a multiple of 4 or of the block)
    it.each([[1, 32, 1, 0], [16, 64, 1000, 0.01], [25, 40, 999, 0.33], [2, 8, 13, 1], [65, 64, 4099, 0.01]])('entryScan: grid %i × block %i over %i ids, %f invalid (a scan from an affine start, its first test on lane 0\'s value)', async (grid, block, n, invalid) => {
      const r = rng(n);
      const id = Uint16Array.from({ length: n }, () => (r() < invalid ? 7 : Math.floor(r() * 3)));
      const threads = grid * block;
      const I = await be.dev.upload('u16', id), out = be.dev.alloc('i32', threads);
      await out.fill(-9); // (threads past n write nothing)
      await be.launch('entryScan', grid, block, [I, out, n]);
      const ref = Array.from({ length: threads }, (_, i) => {
        if (i >= n) return -9;
        let j = i - 1;
        while (j >= 0 && id[j] === 7) j--;
        let k = i + 1;
        while (k < n && id[k] === 7) k++;
        k += 2;
        return (j < 0 || id[j] !== id[i] ? 1 : 0) + 2 * j + 10000 * k;
      });
      expect(Array.from(await out.read())).toEqual(ref);
      I.free(); out.free();
    });

    it.each([[1, 1, 10], [7, 1, 63], [32, 1, 200], [100, 1, 5], [8, 3, 70], [96, 2, 300]])('boundLoops: block %i × %i, k %i (loops from threadIdx.x to a uniform bound: the thread loop stops there)', async (bx, by, k) => {
      const grid = 2, r = rng(bx * 7 + k);
      const data = Uint32Array.from({ length: grid * (k + 1) }, () => Math.floor(r() * 2 ** 32));
      const D = await be.dev.upload('u32', data), out = be.dev.alloc('u32', grid * 64);
      await be.launch('boundLoops', grid, { x: bx, y: by }, [D, out, k]);
      const ref = new Uint32Array(grid * 64);
      for (let b = 0; b < grid; b++) {
        for (let j = 0; j < 64; j++) ref[b * 64 + j] = 3 * j;
        for (let i = 0; i <= k; i++) ref[b * 64 + (i & 63)] = (ref[b * 64 + (i & 63)]! + by * data[b * (k + 1) + i]!) >>> 0;
      }
      expect(Array.from(await out.read())).toEqual(Array.from(ref));
      D.free(); out.free();
    });

    it.each([[1, 4, 4], [3, 64, 150], [2, 36, 72], [2, 256, 300], [4, 12, 1]])('splitRegions: grid %i × block %i, width %i (values declared by their one assignment after a barrier)', async (grid, block, width) => {
      const r = rng(block * 3 + width);
      const data = Int32Array.from({ length: width }, () => Math.floor(r() * 2001) - 1000);
      const D = await be.dev.upload('i32', data), out = be.dev.alloc('i32', grid * block);
      await out.fill(-7);
      await be.launch('splitRegions', grid, block, [D, out, width]);
      const ref = new Int32Array(grid * block).fill(-7);
      for (let b = 0; b < grid; b++) {
        const s = Array.from({ length: block }, (_, t) => { const x = b * block + t; const z = x < width ? data[x]! : -1; return x < width ? z + b + z : 0; });
        for (let t = 0; t < block; t++) {
          const x = b * block + t, z = s[(t + 1) % block]!, w = z > 0 ? z * 2 : z;
          if (x < width) ref[x] = w * 3 + (width - b);
        }
      }
      expect(Array.from(await out.read())).toEqual(Array.from(ref));
      D.free(); out.free();
    });

    it.each([[1, 4], [2, 37]])('widen: grid %i × block %i (i8 and i16 lanes sign-extended)', async (grid, block) => {
      const n = grid * block, r = rng(block);
      const a8 = Int8Array.from({ length: n }, () => Math.floor(r() * 256) - 128);
      const a16 = Int16Array.from({ length: n }, () => Math.floor(r() * 65536) - 32768);
      const A8 = await be.dev.upload('i8', a8), A16 = await be.dev.upload('i16', a16), out = be.dev.alloc('i32', n);
      await be.launch('widen', grid, block, [A8, A16, out]);
      expect(Array.from(await out.read())).toEqual(Array.from(a8, (x, k) => x * 100000 + a16[k]!));
      A8.free(); A16.free(); out.free();
    });

    it.each([[1, 4, 37], [2, 64, 1000], [3, 30, 5000]])('binsAndMax: grid %i × block %i over %i values (shared, global and compare-and-swap atomics per lane)', async (grid, block, n) => {
      const r = rng(n);
      const data = Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
      const vals = ints(n, n + 1, -1 << 20, 1 << 20);
      const D = await be.dev.upload('u8', data), V = await be.dev.upload('i32', vals);
      const bins = be.dev.alloc('u32', 16), maxOut = await be.dev.upload('i32', Int32Array.of(-(2 ** 31))), cas = be.dev.alloc('i32', n);
      await bins.fill(0); await cas.fill(0);
      await be.launch('binsAndMax', grid, block, [D, V, bins, maxOut, cas, n]);
      const refBins = new Array(16).fill(0);
      for (const v of data) refBins[v & 15]++;
      expect(Array.from(await bins.read())).toEqual(refBins);
      expect((await maxOut.read())[0]).toBe(Math.max(...vals));
      expect(Array.from(await cas.read())).toEqual(Array.from(vals, (v) => v));
      D.free(); V.free(); bins.free(); maxOut.free(); cas.free();
    });

    it.each([[1, 8], [2, 37]])('jumpCounts: grid %i × block %i (counters a break or continue makes differ between threads)', async (grid, block) => {
      const a = ints(grid * block, block, -2, 11);
      const A = await be.dev.upload('i32', a), out = be.dev.alloc('i32', grid * block);
      await be.launch('jumpCounts', grid, block, [A, out]);
      const ref = Array.from(a, (x, g) => {
        const c = x >= 0 && x < 8 ? x : 8;
        const d = 2 * (8 - Math.min(8, Math.max(0, x)));
        const e = x < 4 ? 3 : 9;
        const t = g % block;
        let i = t, f = 0;
        while (i < t + 12) { i += 1; if ((i & 1) === (x & 1)) continue; f += i; i += 2; }
        return c * 10000 + d * 100 + e + f * 1000000;
      });
      expect(Array.from(await out.read())).toEqual(ref);
      A.free(); out.free();
    });

    // (lo, hi, base): lanes below, around and above the bounds; bases where base + t wraps past
    // i32.MAX_VALUE inside a group of four and at the block's start; the bounds at i32's ends.
    it.each([
      [0, 10, 0], [-7, 40, 3], [5, 5, 2], [20, 3, -9], [-2147483648, 2147483647, 2147483647 - 9], [2147483640, 2147483647, 2147483647 - 2],
      [-2147483647, -2147483648, 2147483645], [10, 60, -2147483648], [2147483646, 2147483647, 2147483647],
    ])('affineCompare: lo %i, hi %i, base %i (affine against uniform: every operator, both orders, ifs, loops, continue; wrapping lanes)', async (lo, hi, base) => {
      for (const [grid, block] of [[1, 13], [2, 32]] as const) {
        const out = be.dev.alloc('i32', grid * block);
        await be.launch('affineCompare', grid, block, [out, lo, hi, base]);
        const ref = Array.from({ length: grid * block }, (_, g) => {
          const t = g % block, v = (base + t) | 0;
          let bits = 0;
          if (v < hi) bits |= 1;
          if (v <= hi) bits |= 2;
          if (v > lo) bits |= 4;
          if (v >= lo) bits |= 8;
          if (v === hi) bits |= 16;
          if (v !== lo) bits |= 32;
          if (hi > v) bits |= 64;
          if (lo >= v) bits |= 128;
          if (hi === v) bits |= 256;
          bits |= lo !== v ? 512 : 1024;
          let n = 0, m = 0, c = 0;
          for (let i = v; i < (hi & ~(1 << 28)); i = (i + (1 << 28)) | 0) n++;
          for (let i = v; i > (lo | (1 << 28)); i = (i - (1 << 28)) | 0) m++;
          for (let j = 0; j < 4; j++) { if (t + j * 3 <= lo) continue; c += j + 1; }
          return bits + (n << 11) + (m << 16) + (c << 21);
        });
        expect(Array.from(await out.read()), `grid ${grid} × block ${block}`).toEqual(ref);
        out.free();
      }
    });

    it.each([[1, 4], [3, 32], [2, 256]])('treeMax: grid %i × block %i (float max, a guarded shared tree, an atomic per lane)', async (grid, block) => {
      const a = floats(grid * block, block + 3);
      const A = await be.dev.upload('f32', a), out = be.dev.alloc('f32', grid), count = be.dev.alloc('u32', 1);
      await count.fill(0);
      await be.launch('treeMax', grid, block, [A, out, count], 4 * block);
      const maxima = Array.from({ length: grid }, (_, k) => Math.max(...a.subarray(k * block, (k + 1) * block)));
      expect(Array.from(await out.read())).toEqual(maxima);
      expect((await count.read())[0]).toBe(a.filter((x) => x > 0).length);
      A.free(); out.free(); count.free();
    });
  });
}

describe('x4 regions: traps, the unchecked build, which regions have the form', () => {
  it.each([[32, 30, 0], [32, 29, 2], [8, 6, 1], [100, 97, 0]])('block %i reading a[t + off] (length %i, off %i): the trap names the first thread past the end', async (block, length, off) => {
    const dev = await testDevice({ backend: 'wasm', workers: 2 });
    try {
      await dev.load(mod);
      const a = await dev.upload('i32', Int32Array.from({ length }, (_, k) => k)), out = dev.alloc('i32', block);
      const err = await dev.launch(mod.kernels.pastEnd!, { grid: 1, block }, [a, out, off]).catch((e) => e);
      expect(err).toBeInstanceOf(KernelError);
      expect(err.message).toMatch(new RegExp(`index ${length} is out of bounds of 'a' \\(length ${length}\\)`));
      expect(err.message).toMatch(new RegExp(`thread \\(${length - off}, 0, 0\\)`));
      // In bounds the kernel runs, and the device stays usable.
      await dev.launch(mod.kernels.pastEnd!, { grid: 1, block: length - off }, [a, out, off]);
      expect(Array.from((await out.read()).subarray(0, length - off))).toEqual(Array.from({ length: length - off }, (_, t) => t + off));
    } finally { await dev.destroy(); }
  });

  it.each([[16, -2], [16, -9], [7, -5]])('block %i reading a[t + off] (off %i): a negative index traps at thread 0 and names that index', async (block, off) => {
    const dev = await testDevice({ backend: 'wasm', workers: 1 });
    try {
      await dev.load(mod);
      const a = await dev.upload('i32', new Int32Array(64)), out = dev.alloc('i32', block);
      const err = await dev.launch(mod.kernels.pastEnd!, { grid: 1, block }, [a, out, off]).catch((e) => e);
      expect(err).toBeInstanceOf(KernelError);
      expect(err.message).toMatch(new RegExp(`index ${off} is out of bounds of 'a' \\(length 64\\)`));
      expect(err.message).toMatch(/thread \(0, 0, 0\)/);
    } finally { await dev.destroy(); }
  });

  // readBins reads data[t + off] for its atomic's index: where all four lanes' reads are inside,
  // the atomics read unchecked; a lane past the end sends the four to the per-lane form, whose
  // trap names that thread; a bin index past `bins` traps there too (lanes before it counted).
  it.each([[32, 32, 0, 256], [32, 30, 0, 256], [13, 20, 9, 256], [32, 32, 0, 16]])('readBins: block %i over data of length %i (off %i), %i bins: the counts, or the trap of the first thread outside', async (block, length, off, nBins) => {
    const dev = await testDevice({ backend: 'wasm', workers: 1 });
    try {
      await dev.load(mod);
      const r = rng(block + length);
      const data = Uint8Array.from({ length }, (_, k) => (nBins === 16 && k >= 6 ? 17 + k : Math.floor(r() * nBins)));
      const D = await dev.upload('u8', data), bins = dev.alloc('u32', nBins);
      await bins.fill(0);
      const result = await dev.launch(mod.kernels.readBins!, { grid: 1, block }, [D, bins, off]).then(() => undefined, (e) => e);
      const firstOut = block + off > length ? length - off : undefined;
      if (firstOut !== undefined) {
        expect(result).toBeInstanceOf(KernelError);
        expect(result.message).toMatch(new RegExp(`index ${length} is out of bounds of 'data' \\(length ${length}\\)`));
        expect(result.message).toMatch(new RegExp(`thread \\(${firstOut}, 0, 0\\)`));
      } else if (nBins === 16) {
        expect(result).toBeInstanceOf(KernelError);
        expect(result.message).toMatch(new RegExp(`index ${data[6]} is out of bounds of 'bins' \\(length 16\\)`));
        expect(result.message).toMatch(/thread \(6, 0, 0\)/);
        // (threads 0-5 counted before thread 6 trapped, in thread order as the scalar loop)
        expect(Array.from(await bins.read()).reduce((a, b) => a + b, 0)).toBe(6);
      } else {
        expect(result).toBeUndefined();
        const ref = new Array(nBins).fill(0);
        for (let t = 0; t < block; t++) ref[data[t + off]!]++;
        expect(Array.from(await bins.read())).toEqual(ref);
      }
      D.free(); bins.free();
    } finally { await dev.destroy(); }
  });

  it('the unchecked build computes the same', async () => {
    const dev = await testDevice({ backend: 'wasm', workers: 2 });
    try {
      await dev.load(unchecked);
      const n = 999, total = 1024;
      const a = floats(total, 5), bv = ints(total, 6, -9, 9);
      const A = await dev.upload('f32', a), B = await dev.upload('i32', bv), out = dev.alloc('f32', total), outI = dev.alloc('i32', total);
      await dev.launch(unchecked.kernels.affineMix!, { grid: 4, block: 256 }, [A, B, out, outI, n]);
      const ref = affineMixRef(a, bv, n);
      expect(Array.from(await out.read())).toEqual(Array.from(ref.out));
      expect(Array.from(await outI.read())).toEqual(Array.from(ref.outI));
      const S = dev.alloc('f32', 64);
      await dev.launch(unchecked.kernels.stridedSum!, { grid: 2, block: 32 }, [A, S, total]);
      expect(Array.from(await S.read())).toEqual(Array.from(stridedSumRef(a, 64)));
    } finally { await dev.destroy(); }
  });

  it('every region of these kernels has an x4 form; the fast thread loops call it four threads at a time', () => {
    for (const k of ['affineMix', 'stridedSum', 'divergentLoop', 'unsignedShared', 'treeMax', 'pastEnd', 'localRows', 'skipScan', 'widen', 'binsAndMax', 'jumpCounts', 'affineCompare', 'chunkRuns', 'entryScan', 'readBins', 'boundLoops', 'splitRegions']) {
      const regions = mod.meta.kernels.find((x) => x.name === k)!.regions;
      for (let r = 0; r < regions; r++) {
        expect(blockForm, `${k} region ${r}`).toContain(`@inline function __${k}_r${r}_x4(`);
        expect(blockForm, `${k} region ${r}`).toMatch(new RegExp(`for \\(; __tx \\+ 4 <= __xhi; __tx \\+= 4\\) \\{ const __t = __row \\+ __tx; __${k}_r${r}_x4\\(`));
      }
    }
    // affineCompare's conditions (ten ifs, two loops, a continue) compare an affine value with a
    // uniform one: tested on lane 0's value, with a lane mask only for the lanes a continue lets go on.
    const cmp = blockForm.slice(blockForm.indexOf('function __affineCompare_r0_x4('));
    const cmpText = cmp.slice(0, cmp.indexOf('\n}'));
    expect(cmpText.match(/__affAll\(/g)).toHaveLength(13);
    expect(cmpText.match(/__all4\(/g)).toBeNull();
    // binsAndMax's atomic at a computed index takes vector operands (one narrow load of data[i]),
    // then runs per lane; those whose operands are only element reads run per lane as written.
    const bins = blockForm.slice(blockForm.indexOf('function __binsAndMax_r1_x4('));
    expect(bins.slice(0, bins.indexOf('\n}'))).toMatch(/const __i\d+ = v128\.and\(__ld4<u8>\(true, __p_data, __n_data, <i32>\(i(__\d+)?__a\).*__atomicAdd<u32>\(true,.*__atomicMax<i32>\(false, __p_maxOut, __n_maxOut, <i64>\(0\), <i32>\(__ld<i32>\(__p_vals,.*__atomicCAS<i32>\(false,/s);
    // skipScan's loads under `?:` and `&&` are masked loads, widen's narrow loads one load each.
    const skip = blockForm.slice(blockForm.indexOf('function __skipScan_r0_x4('));
    expect(skip.slice(0, skip.indexOf('\n}'))).toMatch(/__ldm4<i32>\(.*__ldm4<u16>\(/s);
    // chunkRuns' loop steps each lane through its own chunk: it runs per lane (a scalar loop per
    // lane, no gathered vector loads).
    const runs = blockForm.slice(blockForm.indexOf('function __chunkRuns_r0_x4('));
    const runsText = runs.slice(0, runs.indexOf('\n}'));
    expect(runsText.match(/for \(let i = begin; i < begin \+ items; i\+\+\)/g)).toHaveLength(4);
    expect(runsText).not.toMatch(/__ldv4|__stv4|__gather4/);
    // entryScan's j starts affine: the loop's first test and the rest where no lane enters it read
    // id[j] as one vector load and test j < 0 on lane 0's value; k, stepped after its loop, does not.
    const entry = blockForm.slice(blockForm.indexOf('function __entryScan_r0_x4('));
    const entryText = entry.slice(0, entry.indexOf('\n}'));
    expect(entryText).toMatch(/const j__a: i32 = i32x4\.extract_lane\(j__v, 0\);\s*const __m\d+ = \(__affAll\(3, <i32>\(j__a\), <i32>\(0\)\) \? i32x4\.eq\(__ld4<u16>\(true, __p_id, __n_id, <i32>\(j__a\)/);
    expect(entryText).toMatch(/!__affAny\(0, <i32>\(j__a\), <i32>\(0\)\) \? i32x4\.ne\(__ld4<u16>\(true, __p_id, __n_id, <i32>\(j__a\)/);
    expect(entryText).not.toMatch(/k__a/);
    const rb = blockForm.slice(blockForm.indexOf('function __readBins_r0_x4('));
    expect(rb.slice(0, rb.indexOf('\n}'))).toMatch(/if \(__inside4\(<i32>\(\(<i32>\(__tx0\) \+ <i32>\(off\)\)\), __n_data\)\) \{\s*__atomicAdd<u32>\(false, __p_bins, __n_bins, <i64>\(__ldu<u8>\(__p_data/);
    // boundLoops' loops from threadIdx.x as a region's only statement: the fast thread loops stop
    // at their bounds (the accumulation in both the as-written and the interchanged form, which
    // runs the initialisation as a block-level strided loop instead).
    const bl = blockForm.slice(blockForm.indexOf('export function __fast_boundLoops('));
    const blText = bl.slice(0, bl.indexOf('\n}'));
    expect(blText.match(/const __xhi = min\(<i32>\(64\), __bdx\)/g)).toHaveLength(1);
    expect(blText.match(/const __xhi = min\(<i32>\(k\) \+ 1, __bdx\)/g)).toHaveLength(2);
    // splitRegions' x, y and z are declared by their one assignment after the barrier: x affine
    // (out[x] one store), y the same in the four lanes, z a vector filled lane by lane (its
    // `%` index has no vector form); w, assigned twice, is a vector assigned in place.
    const split = blockForm.slice(blockForm.indexOf('function __splitRegions_r1_x4('));
    const splitText = split.slice(0, split.indexOf('\n}'));
    expect(splitText).toMatch(/const x__a: i32 = \(<i32>\(__tx0\) \+ <i32>\(__bix \* __bdx\)\);/);
    expect(splitText).toMatch(/const y: i32 = <i32>\(width - __bix \+ __ty\);/);
    expect(splitText).toMatch(/let z__v: v128 = i32x4\.splat\(<i32>\(0\)\);\s*\{ const __t = __t0 \+ 0; const __tx = __tx0 \+ 0; let z: i32 = /);
    expect(splitText).toMatch(/let w__v: v128 = i32x4\.splat\(<i32>\(0\)\);[^]*w__v = z__v;/);
    expect(splitText).toMatch(/__st4<i32>\(true, __p_out, __n_out, <i32>\([^;]*x__a/);
    const widen = blockForm.slice(blockForm.indexOf('function __widen_r0_x4('));
    expect(widen.slice(0, widen.indexOf('\n}'))).toMatch(/__ld4<i8>\(true, __p_a8, __n_a8, <i32>\(i__a\).*__ld4<i16>\(/s);
  });
});
