// Runs of warp shuffles with constant lane arguments (test/kernels/warpChains.ts): the fast block
// form runs them a warp at a time in registers where blockDim.x is a multiple of 32, and as
// passes over the block otherwise. Every lane's result is compared with a TS model of CUDA's
// shuffles, on `wasm`, `serial` and the fine-grained form, for block shapes that take the
// register form (32, 64, 256, 32×3, 64×2×2) and shapes that do not (16×4, 80: a partial warp).
// The module has a device function: a region that calls it stays scalar, the others do not.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { compileKernels } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import { compiledBackends, onCompiledBackend, rng } from './helpers.js';

const FILE = 'test/kernels/warpChains.ts';
const SOURCE = readFileSync(FILE, 'utf8');

let mod: KernelModule;
let block = '';
beforeAll(async () => {
  mod = await compileKernels([{ path: FILE, source: SOURCE }], { cacheDir: false, onGenerated: (g) => { block = g.block; } });
});

// --- a model of CUDA's shuffles over one block's threads (linear ids) ---------------------------

type Lanes = number[];
/** Thread t reads `src(lane)` of its warp; a lane that is not a thread of the block gives t its own value. */
function shuffle(v: Lanes, src: (lane: number) => number): Lanes {
  return v.map((x, t) => { const s = (t & ~31) + src(t & 31); return s < v.length ? v[s]! : x; });
}
const shflDown = (v: Lanes, d: number, w = 32) => shuffle(v, (l) => ((l % w) + d < w ? l + d : l));
const shflUp = (v: Lanes, d: number, w = 32) => shuffle(v, (l) => ((l % w) >= d ? l - d : l));
const shflXor = (v: Lanes, m: number, w = 32) => shuffle(v, (l) => ((l ^ m) >= (Math.floor(l / w) + 1) * w ? l : l ^ m));
const shflIdx = (v: Lanes, s: number, w = 32) => shuffle(v, (l) => Math.floor(l / w) * w + (s % w));
const i32 = (x: number) => x | 0;

function reduceScanButterflyRef(a: Int32Array, threads: number): Int32Array {
  const out = new Int32Array(3 * a.length);
  for (let b = 0; b < a.length; b += threads) {
    const blk = Array.from(a.subarray(b, b + threads));
    let v = blk;
    for (let o = 16; o > 0; o >>= 1) { const n = shflDown(v, o); v = v.map((x, t) => i32(x + n[t]!)); }
    let s = blk;
    for (let o = 1; o < 32; o *= 2) { const n = shflUp(s, o); s = s.map((x, t) => ((t & 31) >= o ? i32(x + n[t]!) : x)); }
    let x = blk;
    for (let m = 1; m < 32; m *= 2) { const n = shflXor(x, m); x = x.map((y, t) => y ^ Math.imul(n[t]!, 3)); }
    blk.forEach((_, t) => { out[3 * (b + t)] = v[t]!; out[3 * (b + t) + 1] = s[t]!; out[3 * (b + t) + 2] = x[t]!; });
  }
  return out;
}

function widthsRef(a: Int32Array, threads: number): Int32Array {
  const out = new Int32Array(a.length);
  for (let b = 0; b < a.length; b += threads) {
    let v = Array.from(a.subarray(b, b + threads));
    let n = shflDown(v, 3, 8); v = v.map((x, t) => i32(x + n[t]!));
    n = shflUp(v, 5, 16); v = v.map((x, t) => i32(x + n[t]!));
    n = shflXor(v, 6, 16); v = v.map((x, t) => i32(Math.imul(x, 7) + n[t]!));
    n = shflXor(v, 12, 8); v = v.map((x, t) => i32(x - n[t]!));
    n = shflIdx(v, 7, 16); v = v.map((x, t) => i32(x + n[t]!));
    n = shflIdx(v, 29); v = v.map((x, t) => x ^ n[t]!);
    out.set(v, b);
  }
  return out;
}

function afterDeviceCallRef(a: Int32Array, threads: number, x: number): Int32Array {
  const out = new Int32Array(a.length);
  for (let b = 0; b < a.length; b += threads) {
    let v = Array.from(a.subarray(b, b + threads), (y, t) => i32(Math.imul(y, 3) + (t % x)));
    for (let m = 1; m < 32; m *= 2) { const n = shflXor(v, m); v = v.map((y, t) => i32(y + n[t]!)); }
    out.set(v, b);
  }
  return out;
}

function floatDeltaRef(a: Int32Array, threads: number): Int32Array {
  const out = new Int32Array(a.length);
  for (let b = 0; b < a.length; b += threads) {
    const v = Array.from(a.subarray(b, b + threads));
    const n = shflDown(v, 5);
    out.set(v.map((x, t) => i32(x + n[t]!)), b);
  }
  return out;
}

function floatAllReduceRef(a: Float32Array, threads: number): Float32Array {
  const out = new Float32Array(a.length);
  for (let b = 0; b < a.length; b += threads) {
    let v = Array.from(a.subarray(b, b + threads));
    for (let m = 16; m > 0; m >>= 1) { const n = shflXor(v, m); v = v.map((x, t) => Math.fround(x + n[t]!)); }
    out.set(v, b);
  }
  return out;
}

/** Block shapes (x, y, z): the first five take the register form, the last two the passes. */
const SHAPES: [number, number, number][] = [[32, 1, 1], [64, 1, 1], [256, 1, 1], [32, 3, 1], [64, 2, 2], [16, 4, 1], [80, 1, 1]];

describe('runs of constant shuffles, a warp at a time in registers', () => {
  const fastOf = (k: string): string => { const i = block.indexOf(`export function __fast_${k}(`); return block.slice(i, block.indexOf('\n}\n', i)); };

  it('each kernel\'s runs of shuffles become warp loops in the fast form (and only there), behind a test of blockDim.x', () => {
    // The scan's `if` is per lane (a select), so each of the three loops is one run; widths is one run of six shuffles.
    expect(fastOf('reduceScanButterfly').match(/a warp at a time/g)).toHaveLength(3);
    expect(fastOf('widths').match(/a warp at a time/g)).toHaveLength(1);
    expect(fastOf('floatAllReduce').match(/a warp at a time/g)).toHaveLength(1);
    // The module has a device function: only the region that calls it stays scalar.
    expect(fastOf('afterDeviceCall').match(/a warp at a time/g)).toHaveLength(1);
    expect(block).toMatch(/@inline function __afterDeviceCall_r0\(/);
    expect(block).not.toMatch(/@inline function __afterDeviceCall_r0_x4\(/);
    expect(fastOf('widths')).toContain('if ((__bdx & 31) == 0) {');
    const seeded = block.slice(block.indexOf('export function widths('), block.indexOf('export function __fast_widths('));
    expect(seeded).not.toContain('a warp at a time');
    // The widths run reads no context slot through a shuffle helper in its register form.
    const chain = fastOf('widths').split('a warp at a time')[1]!.split('} else {')[0]!;
    expect(chain).not.toMatch(/__shfl/);
    expect(chain).toMatch(/v128\.shuffle<i32>/);
  });

  for (const b of compiledBackends([1, 7])) {
    describe(`on ${b.name}`, () => {
      const be = onCompiledBackend(b, () => mod);
      for (const [x, y, z] of SHAPES) {
        const threads = x * y * z, grid = 3, n = grid * threads;
        it(`block ${x}×${y}×${z}: reduce, scan and butterfly; widths and index shuffles; float all-reduce`, async () => {
          const r = rng(threads * 31 + y);
          const a = Int32Array.from({ length: n }, () => Math.floor(r() * 2e6) - 1e6);
          const f = Float32Array.from({ length: n }, () => (r() - 0.5) * 1000);
          const A = await be.dev.upload('i32', a), F = await be.dev.upload('f32', f);
          const out3 = be.dev.alloc('i32', 3 * n), out = be.dev.alloc('i32', n), outF = be.dev.alloc('f32', n);
          await be.launch('reduceScanButterfly', grid, { x, y, z }, [A, out3]);
          await be.launch('widths', grid, { x, y, z }, [A, out]);
          await be.launch('floatAllReduce', grid, { x, y, z }, [F, outF]);
          const outD = be.dev.alloc('i32', n);
          await be.launch('afterDeviceCall', grid, { x, y, z }, [A, outD]);
          expect(Array.from(await outD.read())).toEqual(Array.from(afterDeviceCallRef(a, threads, x)));
          await be.launch('floatDelta', grid, { x, y, z }, [A, outD]);
          expect(Array.from(await outD.read())).toEqual(Array.from(floatDeltaRef(a, threads)));
          outD.free();
          expect(Array.from(await out3.read())).toEqual(Array.from(reduceScanButterflyRef(a, threads)));
          expect(Array.from(await out.read())).toEqual(Array.from(widthsRef(a, threads)));
          expect(Array.from(await outF.read())).toEqual(Array.from(floatAllReduceRef(f, threads)));
          for (const arr of [A, F, out3, out, outF]) arr.free();
        });
      }
    });
  }
});
