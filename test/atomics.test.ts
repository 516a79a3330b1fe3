// Every CUDA atomic of the device runtime against the TypeScript model of CUDA's definition.
// One worker on the 'wasm' backend runs a block's threads in index order, so the model can
// replay the exact sequence and check every returned old value, including wrap and overflow.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { kernels } from '../src/index.js';
import type { Device } from '../src/device.js';
import { applyAtomic, KIND, OP_CODE, f32, type AtomicOp } from './cuda-model.js';
import { testDevice } from './helpers.js';

const BYTES = { i32: 4, u32: 4, f32: 4, u64: 8, i64: 8, f64: 8 } as const;

function encode(kind: keyof typeof BYTES, values: readonly (number | bigint)[]): Uint8Array {
  const buf = new Uint8Array(Math.max(1, values.length) * BYTES[kind]);
  const dv = new DataView(buf.buffer);
  values.forEach((v, i) => {
    const at = i * BYTES[kind];
    switch (kind) {
      case 'i32': dv.setInt32(at, v as number, true); break;
      case 'u32': dv.setUint32(at, v as number, true); break;
      case 'f32': dv.setFloat32(at, v as number, true); break;
      case 'f64': dv.setFloat64(at, v as number, true); break;
      case 'u64': dv.setBigUint64(at, v as bigint, true); break;
      case 'i64': dv.setBigInt64(at, v as bigint, true); break;
    }
  });
  return buf;
}

function decode(kind: keyof typeof BYTES, buf: Uint8Array, n: number): (number | bigint)[] {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  return Array.from({ length: n }, (_, i) => {
    const at = i * BYTES[kind];
    switch (kind) {
      case 'i32': return dv.getInt32(at, true);
      case 'u32': return dv.getUint32(at, true);
      case 'f32': return dv.getFloat32(at, true);
      case 'f64': return dv.getFloat64(at, true);
      case 'u64': return dv.getBigUint64(at, true);
      case 'i64': return dv.getBigInt64(at, true);
    }
  });
}

async function runProbe(dev: Device, op: AtomicOp, initial: number | bigint, operands: (number | bigint)[], operands2: (number | bigint)[] = [], workers?: number) {
  const kind = KIND[op];
  const n = operands.length;
  const target = await dev.upload('u8', encode(kind, [initial]));
  const a = await dev.upload('u8', encode(kind, operands));
  const b = await dev.upload('u8', encode(kind, operands2.length ? operands2 : operands.map(() => (typeof initial === 'bigint' ? 0n : 0))));
  const olds = dev.alloc('u8', Math.max(1, n) * BYTES[kind]);
  // One block holds ≤ 1024 threads; more operands use more blocks (run in order on one worker).
  const block = Math.min(1024, Math.max(1, n));
  await dev.launch(kernels.atomicProbe, { grid: Math.max(1, Math.ceil(n / block)), block, workers }, [OP_CODE[op], target, a, b, olds, n]);
  const final = decode(kind, await target.read(), 1)[0]!;
  const oldValues = decode(kind, await olds.read(), n);
  for (const x of [target, a, b, olds]) x.free();
  return { final, olds: oldValues };
}

function model(op: AtomicOp, initial: number | bigint, operands: (number | bigint)[], operands2: (number | bigint)[] = []) {
  let cur: number | bigint = initial;
  const olds: (number | bigint)[] = [];
  operands.forEach((v, i) => { const [next, old] = applyAtomic(op, cur, v, operands2[i]); olds.push(old); cur = next; });
  return { final: cur, olds };
}

describe('CUDA atomics, sequential: every returned old value and the final value', async () => {
  const dev = await testDevice({ memoryBytes: 16 << 20, workers: 1 });
  const I32 = [-(2 ** 31), -1, 0, 1, 2 ** 31 - 1];
  const U32 = [0, 1, 2 ** 31, 2 ** 32 - 1];
  const U64 = [0n, 1n, 2n ** 63n, 2n ** 64n - 1n];
  const I64 = [-(2n ** 63n), -1n, 0n, 2n ** 63n - 1n];
  const F32 = [0, -0, 1.5, -2.25, 3.4028234663852886e38, -Infinity, Infinity, NaN, 1e-45];

  const edgeCases: [AtomicOp, number | bigint, (number | bigint)[], (number | bigint)[]?][] = [
    ['addI32', 2 ** 31 - 1, [1, -1, -(2 ** 31), -1]],              // overflow wraps
    ['addU32', 2 ** 32 - 1, [1, 2 ** 32 - 1, 5]],
    ['addU64', 2n ** 64n - 1n, [1n, 2n ** 63n, 2n ** 63n]],
    ['addF32', 0, [0.1, 0.2, 1e30, -1e30, 3.4028234663852886e38, 3.4028234663852886e38]],
    ['addF64', 0, [0.1, 0.2, 1e300, -1e300]],
    ['subI32', -(2 ** 31), [1, -1, 5]],
    ['subU32', 0, [1, 2 ** 32 - 1, 3]],
    ['exchI32', 7, I32],
    ['exchF32', 1, F32.map(f32)],
    ['exchU64', 5n, U64],
    ['minI32', 0, I32], ['maxI32', 0, I32],
    ['minU32', 2 ** 31, U32], ['maxU32', 2 ** 31, U32],
    ['minU64', 2n ** 63n, U64], ['maxU64', 2n ** 63n, U64],
    ['minI64', 0n, I64], ['maxI64', 0n, I64],
    ['minF32', 0, F32.map(f32)], ['maxF32', 0, F32.map(f32)],
    ['minF32', NaN, [NaN, 2, NaN, -1]], ['maxF32', NaN, [NaN, -5, NaN, 7]],
    // atomicInc wraps to 0 at val (CUDA), not saturating: 0,1,2,3 → 0
    ['incU32', 0, [3, 3, 3, 3, 3, 3, 3, 3, 3]],
    ['incU32', 10, [3, 0, 2 ** 32 - 1, 5]],                          // old ≥ val → 0
    ['incU32', 2 ** 32 - 1, [2 ** 32 - 1, 2 ** 32 - 1]],             // val = max: old+1 wraps only via old ≥ val
    // atomicDec: 0 or > val → val
    ['decU32', 2, [3, 3, 3, 3, 3]],
    ['decU32', 10, [3, 3, 0, 0]],
    ['casU32', 5, [5, 5, 6, 6], [6, 7, 8, 9]],
    ['casU64', 2n ** 64n - 1n, [2n ** 64n - 1n, 0n, 1n], [0n, 1n, 2n]],
    ['andU32', 2 ** 32 - 1, [0xf0f0f0f0, 0x0ff00ff0, 0xffffffff]],
    ['orU32', 0, [1, 0x80000000, 0x00ff0000]],
    ['xorU32', 0xdeadbeef, [0xffffffff, 0x12345678, 0x12345678]],
  ];
  for (const [op, init, ops, ops2] of edgeCases) {
    it(`${op} from ${String(init)} with [${ops.map(String).join(', ')}]`, async () => {
      const got = await runProbe(dev, op, init, ops, ops2);
      const want = model(op, init, ops, ops2);
      expect(got.olds).toEqual(want.olds);
      expect(got.final).toEqual(want.final);
    });
  }

  it('random sequences agree with the model (property-based)', async () => {
    const ops = Object.keys(OP_CODE) as AtomicOp[];
    const arb = fc.constantFrom(...ops).chain((op) => {
      const kind = KIND[op];
      const value = kind === 'i32' ? fc.integer()
        : kind === 'u32' ? (op === 'incU32' || op === 'decU32' ? fc.integer({ min: 0, max: 40 }) : fc.nat({ max: 2 ** 32 - 1 }))
        : kind === 'f32' ? fc.float({ noDefaultInfinity: false }).map(f32)
        : kind === 'f64' ? fc.double({ noNaN: true })
        : kind === 'u64' ? fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })
        : fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
      return fc.tuple(fc.constant(op), value, fc.array(value, { minLength: 0, maxLength: 70 }), fc.array(value, { minLength: 70, maxLength: 70 }));
    });
    await fc.assert(fc.asyncProperty(arb, async ([op, init, operands, second]) => {
      const ops2 = op.startsWith('cas') ? second.slice(0, operands.length) : [];
      const got = await runProbe(dev, op, init, operands, ops2);
      const want = model(op, init, operands, ops2);
      expect(got.olds).toEqual(want.olds);
      expect(got.final).toEqual(want.final);
    }), { numRuns: 150 });
  });
});

describe('CUDA atomics under contention (2 workers, many blocks)', async () => {
  const dev = await testDevice({ memoryBytes: 32 << 20, workers: 2 });

  async function contended(op: AtomicOp, initial: number | bigint, operands: (number | bigint)[], operands2?: (number | bigint)[]) {
    const kind = KIND[op];
    const n = operands.length;
    const target = await dev.upload('u8', encode(kind, [initial]));
    const a = await dev.upload('u8', encode(kind, operands));
    const b = await dev.upload('u8', encode(kind, operands2 ?? operands.map(() => (typeof initial === 'bigint' ? 0n : 0))));
    const olds = dev.alloc('u8', n * BYTES[kind]);
    await dev.launch(kernels.atomicProbe, { grid: Math.ceil(n / 64), block: 64 }, [OP_CODE[op], target, a, b, olds, n]);
    const res = { final: decode(kind, await target.read(), 1)[0]!, olds: decode(kind, await olds.read(), n) };
    for (const x of [target, a, b, olds]) x.free();
    return res;
  }

  it('atomicAdd i32: no update is lost, and the olds are the prefix sums in some order', async () => {
    const n = 200_000;
    const { final, olds } = await contended('addI32', 0, Array.from({ length: n }, () => 1));
    expect(final).toBe(n);
    expect((olds as number[]).sort((x, y) => x - y)).toEqual(Array.from({ length: n }, (_, i) => i));
  });

  it('atomicInc u32: the counter wraps exactly as CUDA defines, olds cycle 0..val', async () => {
    const n = 100_000, val = 999;
    const { final, olds } = await contended('incU32', 0, Array.from({ length: n }, () => val));
    expect(final).toBe(n % (val + 1));
    const counts = new Map<number, number>();
    for (const o of olds as number[]) counts.set(o, (counts.get(o) ?? 0) + 1);
    for (let v = 0; v <= val; v++) expect(counts.get(v)).toBe(n / (val + 1));
  });

  it('atomicAdd u64 and f64 with many workers sum exactly (integers in f64)', async () => {
    const n = 50_000;
    const r1 = await contended('addU64', 0n, Array.from({ length: n }, (_, i) => BigInt(i) * 1_000_000_007n));
    expect(r1.final).toBe(BigInt(n) * BigInt(n - 1) / 2n * 1_000_000_007n);
    const r2 = await contended('addF64', 0, Array.from({ length: n }, (_, i) => i));
    expect(r2.final).toBe(n * (n - 1) / 2);
  });

  it('atomicMax/atomicMin f32 and u32 find the extreme whatever the interleaving', async () => {
    const vals = Array.from({ length: 30_000 }, (_, i) => f32(Math.sin(i) * 1000));
    expect((await contended('maxF32', -Infinity, vals)).final).toBe(Math.max(...vals));
    expect((await contended('minF32', Infinity, vals)).final).toBe(Math.min(...vals));
    const us = vals.map((v) => (Math.abs(Math.round(v * 1e6)) >>> 0));
    expect((await contended('maxU32', 0, us)).final).toBe(Math.max(...us));
  });

  it('atomicCAS u32: of many threads swapping 0 → their id, exactly one wins', async () => {
    const n = 20_000;
    const { final, olds } = await contended('casU32', 0, Array.from({ length: n }, () => 0), Array.from({ length: n }, (_, i) => i + 1));
    const winners = (olds as number[]).map((o, i) => (o === 0 ? i : -1)).filter((i) => i >= 0);
    expect(winners).toHaveLength(1);
    expect(final).toBe(winners[0]! + 1);
    expect((olds as number[]).every((o) => o === 0 || o === final)).toBe(true);
  });
});
