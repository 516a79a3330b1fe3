/**
 * 64-bit values (i64, u64, f64) in kernels compiled to WGSL, which has none: the generated shader
 * computes them in software (src/compiler/wgslWide.ts) and must give wasm's bits — f64
 * arithmetic rounded to nearest with gradual underflow, conversions rounded once, float to
 * integer saturating, i64 wrapping. Each kernel of test/kernels/wide.ts runs on wasm and on
 * webgpu with the same random and edge-case inputs, and every output element is compared
 * bit for bit (a NaN with any NaN).
 */
import { describe, expect, it } from 'vitest';
import { createDevice, type Device } from '../src/device.js';
import type { WebGpuDevice } from '../src/webgpu/device.js';
import { compileKernelFiles } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import type { DType } from '../src/dtypes.js';
import { rng, withWasmAndWebGpu } from './helpers.js';

let gpu: WebGpuDevice;
let wasm: Device;
let mod: KernelModule;
withWasmAndWebGpu(async () => {
  // vecSum's generic kernel (kernels/reduce/vecSum.ts) for the f64 tree in __extern_shared__ memory.
  mod = await compileKernelFiles(['test/kernels/wide.ts', 'kernels/reduce/vecSum.ts']);
  wasm = await createDevice({ backend: 'wasm', workers: 2, memoryBytes: 64 << 20, modules: [mod] });
  gpu = await createDevice({ backend: 'webgpu', memoryBytes: 64 << 20, modules: [mod] });
}, () => [gpu, wasm]);

type Arg = { dtype: DType; data: ArrayLike<number | bigint> } | { dtype: DType; length: number } | number | bigint;

/** Runs `kernel` on both devices with the same arguments; every array argument afterwards, per device. */
async function both(kernel: string, grid: number, block: number, args: Arg[], sharedBytes = 0) {
  const out: Record<'wasm' | 'webgpu', ArrayLike<number | bigint>[]> = { wasm: [], webgpu: [] };
  for (const [name, dev] of [['wasm', wasm], ['webgpu', gpu]] as const) {
    const values = await Promise.all(args.map((a) => (typeof a === 'object' ? ('data' in a ? dev.upload(a.dtype, a.data as never) : Promise.resolve(dev.alloc(a.dtype, a.length))) : a)));
    await dev.launch(mod.kernels[kernel]!, { grid, block, sharedBytes }, values as never);
    for (const v of values) if (typeof v === 'object') { out[name].push(await v.read() as ArrayLike<number | bigint>); v.free(); }
  }
  return out;
}

/** Bits of each element (f64/f32 compared through their bits; any NaN equal to any NaN). */
function bitsOf(a: ArrayLike<number | bigint>): (string | bigint | number)[] {
  if (a instanceof Float64Array) {
    const u = new BigUint64Array(a.buffer, a.byteOffset, a.length);
    return Array.from(a, (x, i) => (Number.isNaN(x) ? 'NaN' : u[i]!));
  }
  if (a instanceof Float32Array) {
    const u = new Uint32Array(a.buffer, a.byteOffset, a.length);
    return Array.from(a, (x, i) => (Number.isNaN(x) ? 'NaN' : u[i]!));
  }
  return Array.from(a as ArrayLike<number | bigint>);
}

/** Expects every array argument equal bit for bit; on a mismatch names the first few elements with their inputs. */
function expectSame(r: Awaited<ReturnType<typeof both>>, names: string[], inputs: (i: number) => string, n: number): void {
  r.wasm.forEach((w, k) => {
    const a = bitsOf(w), b = bitsOf(r.webgpu[k]!);
    const bad: string[] = [];
    for (let i = 0; i < a.length && bad.length < 5; i++) {
      if (a[i] !== b[i]) bad.push(`${names[k]}[${i}] (operation ${Math.floor(i / n)}, ${inputs(i % n)}): wasm ${String(a[i])}, webgpu ${String(b[i])}`);
    }
    expect(bad, names[k]).toEqual([]);
  });
}

/** Doubles that exercise rounding: edge values, random bits, random exact values, neighbours, subnormals. */
function doubles(n: number, seed: number): Float64Array {
  const r = rng(seed);
  const edge = [0, -0, 1, -1, 0.5, 1.5, 2.5, -2.5, 3, Infinity, -Infinity, NaN, Number.MIN_VALUE, -Number.MIN_VALUE,
    2.2250738585072014e-308, 2.225073858507201e-308, Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 2 ** 64,
    -(2 ** 63), 2 ** 31, -(2 ** 31), 2 ** 31 - 0.5, -(2 ** 31) - 0.5, 4294967295.5, 4294967296, 1e300, 1e-300, 3.4028234663852886e38,
    3.4028235677973366e38, 3.402823567797336e38, 1.401298464324817e-45, 7.006492321624085e-46, 7.006492321624087e-46, 1.1754942106924411e-38,
    0.1, 1 / 3, -7.5, 1e-310, 123456789.123, 2 ** -1074 * 3];
  const words = new Uint32Array(2);
  const f = new Float64Array(words.buffer);
  return Float64Array.from({ length: n }, (_, i) => {
    if (i < edge.length) return edge[i]!;
    switch (i % 5) {
      case 0: words[0] = Math.floor(r() * 2 ** 32); words[1] = Math.floor(r() * 2 ** 32); return f[0]!;
      case 1: return (Math.floor(r() * 2 ** 21) - 2 ** 20) * 2 ** (Math.floor(r() * 120) - 60);
      case 2: words[0] = Math.floor(r() * 2 ** 32); words[1] = Math.floor(r() * 2 ** 20) | (r() < 0.5 ? 0x80000000 : 0); return f[0]!;   // subnormal
      case 3: return (r() - 0.5) * 2 ** (Math.floor(r() * 40) - 20);
      default: return (r() < 0.5 ? -1 : 1) * Math.exp((r() - 0.5) * 1400);
    }
  });
}

/** A second operand for each of a: other doubles, the same value, its negation, a neighbour, a power-of-two multiple. */
function partners(a: Float64Array, seed: number): Float64Array {
  const r = rng(seed);
  const other = doubles(a.length, seed + 1);
  return Float64Array.from(a, (x, i) => {
    switch (i % 6) {
      case 0: return x;
      case 1: return -x;
      case 2: return x * (1 + (Math.floor(r() * 9) - 4) * 2 ** -52);
      case 3: return x * 2 ** (Math.floor(r() * 120) - 60);
      default: return other[(i * 7919) % other.length]!;
    }
  });
}

function bigints(n: number, seed: number): BigInt64Array {
  const r = rng(seed);
  const edge = [0n, 1n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 32n, 2n ** 32n - 1n, -(2n ** 32n), 63n, 64n, 65n, 127n, -64n, 0x7fffffffn, 0x80000000n];
  return BigInt64Array.from({ length: n }, (_, i) => {
    if (i < edge.length) return edge[i]!;
    const w = BigInt(Math.floor(r() * 2 ** 32)) | (BigInt(Math.floor(r() * 2 ** 32)) << 32n);
    switch (i % 4) {
      case 0: return BigInt.asIntN(64, w);
      case 1: return BigInt(Math.floor(r() * 200) - 100);
      case 2: return BigInt.asIntN(64, w >> BigInt(Math.floor(r() * 64)));
      default: return -BigInt.asIntN(64, w & 0xffffffffffn);
    }
  });
}

describe('64-bit values in generated WGSL: wasm\'s bits on webgpu', () => {
  for (const n of [1, 37, 3000]) {
    it(`f64 + - * /, sqrt, nearest, min, max, neg, abs, floor, ceil, trunc, copysign, Math's, and the comparisons (${n} pairs)`, async () => {
      const a = doubles(n, 11 + n), b = partners(a, 23 + n);
      const r = await both('f64Arith', Math.min(8, Math.ceil(n / 64)), 64, [{ dtype: 'f64', data: a }, { dtype: 'f64', data: b }, { dtype: 'f64', length: 16 * n }, { dtype: 'i32', length: n }, n]);
      expectSame(r, ['a', 'b', 'out', 'flags'], (i) => `a ${a[i]}, b ${b[i]}`, n);
    });
  }

  it('f64 to f32, i32, u32, i64 and u64 (rounded once; saturating to integers)', async () => {
    const n = 3000;
    const a = doubles(n, 5);
    const r = await both('f64Narrow', 8, 64, [{ dtype: 'f64', data: a }, { dtype: 'f32', length: n }, { dtype: 'i32', length: n }, { dtype: 'u32', length: n }, { dtype: 'i64', length: n }, { dtype: 'u64', length: n }, n]);
    expectSame(r, ['a', 'toF32', 'toI32', 'toU32', 'toI64', 'toU64'], (i) => `a ${a[i]}`, n);
  });

  it('f32, i32, u32, i64 and u64 to f64, and i64/u64 to f32', async () => {
    const n = 3000;
    const d = doubles(n, 7);
    const f = Float32Array.from(d);
    const r0 = rng(9);
    const ia = Int32Array.from({ length: n }, (_, i) => (i < 4 ? [0, -1, 2 ** 31 - 1, -(2 ** 31)][i]! : Math.floor(r0() * 2 ** 32) - 2 ** 31));
    const la = bigints(n, 13);
    const r = await both('f64Widen', 8, 64, [{ dtype: 'f32', data: f }, { dtype: 'i32', data: ia }, { dtype: 'u32', data: Uint32Array.from(ia, (x) => x >>> 0) },
      { dtype: 'i64', data: la }, { dtype: 'u64', data: BigUint64Array.from(la, (x) => BigInt.asUintN(64, x)) }, { dtype: 'f64', length: 5 * n }, { dtype: 'f32', length: 2 * n }, n]);
    expectSame(r, ['f', 'ia', 'ua', 'la', 'ula', 'out', 'outF32'], (i) => `f ${f[i]}, i ${ia[i]}, l ${la[i]}`, n);
  });

  it('i64 and u64 + - * & | ^ << >> >>>, neg, ~, min, max, abs, the comparisons and the wraps to 32 and 16 bits', async () => {
    const n = 3000;
    const a = bigints(n, 17), b = BigInt64Array.from(bigints(n, 19), (y, i) => (i % 5 === 0 ? a[i]! : i % 5 === 1 ? -a[i]! : y));
    const r = await both('int64Ops', 8, 64, [{ dtype: 'i64', data: a }, { dtype: 'i64', data: b }, { dtype: 'i64', length: 13 * n }, { dtype: 'u64', length: 4 * n }, { dtype: 'i32', length: n }, { dtype: 'i32', length: 3 * n }, n]);
    expectSame(r, ['a', 'b', 'out', 'uout', 'flags', 'narrow'], (i) => `a ${a[i]}, b ${b[i]}`, n);
  });

  it('i32 and u32 / and % (truncating; the remainder takes the dividend\'s sign)', async () => {
    const n = 3000;
    const r0 = rng(41);
    const a = Int32Array.from({ length: n }, (_, i) => (i < 3 ? [-(2 ** 31), 2 ** 31 - 1, 0][i]! : Math.floor(r0() * 2 ** 32) - 2 ** 31));
    const b = Int32Array.from({ length: n }, (_, i) => { const y = i % 3 === 0 ? Math.floor(r0() * 200) - 100 : Math.floor(r0() * 2 ** 32) - 2 ** 31; return y === 0 || (y === -1 && a[i] === -(2 ** 31)) ? 5 : y; });
    const r = await both('intDivide', 8, 64, [{ dtype: 'i32', data: a }, { dtype: 'i32', data: b }, { dtype: 'i32', length: 4 * n }, n]);
    expectSame(r, ['a', 'b', 'out'], (i) => `a ${a[i]}, b ${b[i]}`, n);
  });

  it('a zero divisor, and the most negative i32 divided by -1, are wasm\'s KernelError on webgpu too, in the same block', async () => {
    const n = 200;
    const base = () => ({ a: Int32Array.from({ length: n }, (_, i) => i - 100), b: Int32Array.from({ length: n }, () => 3) });
    const cases: [string, (c: ReturnType<typeof base>) => void, RegExp][] = [
      ['a zero divisor', (c) => { c.b[133] = 0; }, /^kernel intDivide trapped in block \(2, 0, 0\): RuntimeError: divide by zero$/],
      ['the most negative / -1', (c) => { c.a[70] = -(2 ** 31); c.b[70] = -1; }, /^kernel intDivide trapped in block \(1, 0, 0\): RuntimeError: divide result unrepresentable$/],
    ];
    for (const [label, spoil, message] of cases) {
      const c = base();
      spoil(c);
      for (const dev of [wasm, gpu] as const) {
        const args = [await dev.upload('i32', c.a), await dev.upload('i32', c.b), dev.alloc('i32', 4 * n)];
        await expect(dev.launch(mod.kernels.intDivide!, { grid: 4, block: 64 }, [...args, n] as never), `${label} on ${dev.backend}`).rejects.toThrow(message);
        for (const x of args) x.free();
      }
    }
    // Both devices run on after the trap.
    const ok = base();
    const r = await both('intDivide', 4, 64, [{ dtype: 'i32', data: ok.a }, { dtype: 'i32', data: ok.b }, { dtype: 'i32', length: 4 * n }, n]);
    expectSame(r, ['a', 'b', 'out'], (i) => `a ${ok.a[i]}`, n);
    expect(Array.from(r.webgpu[2]!).slice(0, 3)).toEqual([-33, -33, -32]);
  });

  it('64-bit scalar parameters, literals, compound assignments and reinterpret', async () => {
    const n = 500;
    const a = doubles(n, 29);
    for (const [s, k] of [[1.25, 3n], [-1e-200, -(2n ** 62n)], [Infinity, 0n], [0, 2n ** 63n - 1n]] as const) {
      const r = await both('wideScalars', 4, 64, [{ dtype: 'f64', data: a }, { dtype: 'f64', length: 2 * n }, { dtype: 'u64', length: n }, { dtype: 'u32', length: n }, { dtype: 'f32', data: Float32Array.from(a) }, s, k, n]);
      expectSame(r, ['a', 'out', 'bits', 'fbits', 'f'], (i) => `a ${a[i]}, s ${s}, k ${k}`, n);
    }
  });

  it('vecSum\'s generic kernel (an f64 sum through an __extern_shared__ f64 tree) gives the same partial per block', async () => {
    const r0 = rng(31);
    for (const [N, grid, block] of [[1, 1, 64], [1000, 3, 128], [100_000, 16, 256], [0, 2, 32]] as const) {
      const A = Float32Array.from({ length: N }, () => (r0() - 0.5) * 2 ** (Math.floor(r0() * 40) - 20));
      const r = await both('vecSum', grid, block, [{ dtype: 'f32', data: A }, { dtype: 'f64', length: grid }, N], 8 * block);
      expectSame(r, ['A', 'B'], () => `N ${N}`, grid);
      // And the partials are the sums: the host's f64 sum of each block's elements, in the kernel's order.
      const B = r.webgpu[1] as Float64Array;
      if (N > 0) expect(Math.abs(B.reduce((s, x) => s + x, 0) - A.reduce((s, x) => s + x, 0))).toBeLessThan(1e-9 * A.reduce((s, x) => s + Math.abs(x), 0));
    }
  });
});
