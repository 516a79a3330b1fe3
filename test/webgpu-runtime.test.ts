/**
 * The WebGPU runtime and the WGSL kernels, run for real (on SwiftShader when there is no GPU).
 * No adapter is a failure, not a skip: beforeAll throws WebGpuUnavailableError and every test
 * in the file fails with its message.
 *
 * Timings: bench/webgpu.bench.ts (npm run bench -- webgpu).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openWebGpu, type WebGpuContext } from '../src/webgpu/gpu.js';
import { WebGpuRuntime } from '../src/webgpu/runtime.js';
import { rng } from './helpers.js';
import { INVALID_MODULE_ID, loadWgsl, packScalars, WGSL_KERNELS } from '../src/webgpu/kernels.js';

let ctx: WebGpuContext;
let rt: WebGpuRuntime;
let setupError: unknown;

beforeAll(async () => {
  try {
    ctx = await openWebGpu();
    rt = await WebGpuRuntime.create(ctx);
  } catch (err) {
    setupError = err;
  }
});

// A failed beforeAll would only mark the tests skipped; failing each test makes a missing
// adapter impossible to overlook.
beforeEach(() => {
  if (setupError !== undefined) throw setupError;
});

it('opens a WebGPU adapter and device', () => {
  expect(setupError).toBeUndefined();
  expect(ctx.device).toBeDefined();
});

afterAll(async () => {
  await ctx?.destroy();
});

// ------------------------------------------------------------------------------------ helpers

function randomF32(n: number, seed: number): Float32Array {
  const r = rng(seed);
  const a = new Float32Array(n);
  // Mixed signs and magnitudes (no denormals: SwiftShader flushes them).
  for (let i = 0; i < n; i++) a[i] = (r() * 2 - 1) * 2 ** Math.floor(r() * 20 - 10);
  return a;
}

const f32bits = (x: number): number => new Uint32Array(new Float32Array([x]).buffer)[0]!;

async function readF32(buf: GPUBuffer, n: number): Promise<Float32Array> {
  const bytes = await rt.read(buf, 0, 4 * n);
  return new Float32Array(bytes.buffer, bytes.byteOffset, n);
}

async function readU32(buf: GPUBuffer, n: number): Promise<Uint32Array> {
  const bytes = await rt.read(buf, 0, 4 * n);
  return new Uint32Array(bytes.buffer, bytes.byteOffset, n);
}

type Reduction = 'vecMax' | 'vecMin' | 'vecSum';

async function runReduction(kernel: Reduction, A: Float32Array, block: number, grid: number) {
  const wgsl = await loadWgsl(kernel);
  const a = rt.createBuffer(A.byteLength);
  rt.write(a, 0, A);
  const wide = WGSL_KERNELS[kernel].params[1].dtype === 'f64'; // vecSum's B: f64 words
  const b = rt.createBuffer((wide ? 8 : 4) * grid);
  const res = await rt.dispatch({
    wgsl,
    entryPoint: WGSL_KERNELS[kernel].entryPoint,
    workgroupSize: [block, 1, 1],
    grid: { x: grid },
    buffers: [a, b],
    scalars: packScalars(WGSL_KERNELS[kernel].params, [A.length]),
  });
  let out: Float32Array | Float64Array;
  if (wide) {
    const bytes = await rt.read(b, 0, 8 * grid);
    out = new Float64Array(bytes.buffer, bytes.byteOffset, grid);
  } else {
    out = await readF32(b, grid);
  }
  a.destroy();
  b.destroy();
  return { out, dispatches: res.dispatches };
}

/** Per-block reference: block b sees i with floor((i mod (grid*block)) / block) == b. */
function blockRefs(A: Float32Array, block: number, grid: number) {
  const max = new Float64Array(grid).fill(-Infinity);
  const min = new Float64Array(grid).fill(Infinity);
  const sum = new Float64Array(grid);
  const abs = new Float64Array(grid);
  const count = new Float64Array(grid * block); // elements per thread
  const span = grid * block;
  for (let i = 0; i < A.length; i++) {
    const t = i % span;
    const b = Math.floor(t / block);
    const v = A[i]!;
    if (v > max[b]!) max[b] = v;
    if (v < min[b]!) min[b] = v;
    sum[b] += v;
    abs[b] += Math.abs(v);
    count[t]! += 1;
  }
  let m = 0;
  for (const c of count) m = Math.max(m, c);
  return { max, min, sum, abs, m };
}

const U = 2 ** -24;
/** The bound stated in vecSum.wgsl, with one extra u of slack. */
const sumBound = (block: number, m: number, absSum: number): number =>
  ((Math.log2(block) + 4) * U + 2 * m * U * U) * absSum;

// -------------------------------------------------------------------------------- reductions

const SIZES = [0, 1, 31, 32, 33, 1023, 1025, (1 << 20) + 3];

describe('vecMax / vecMin / vecSum (seed 002) on WebGPU', () => {
  for (const n of SIZES) {
    it(`n = ${n}, block 256, grid 64: partials match the TS reference`, async () => {
      const A = randomF32(n, 1000 + n);
      const ref = blockRefs(A, 256, 64);
      const mx = await runReduction('vecMax', A, 256, 64);
      const mn = await runReduction('vecMin', A, 256, 64);
      const sm = await runReduction('vecSum', A, 256, 64);
      for (let b = 0; b < 64; b++) {
        expect(mx.out[b], `max block ${b}`).toBe(ref.max[b]);
        expect(mn.out[b], `min block ${b}`).toBe(ref.min[b]);
        const err = Math.abs(sm.out[b]! - ref.sum[b]!);
        expect(err, `sum block ${b}: got ${sm.out[b]} want ${ref.sum[b]}`).toBeLessThanOrEqual(
          sumBound(256, ref.m, ref.abs[b]!),
        );
      }
      // The full reduction of the partials.
      if (n > 0) {
        expect(mx.out.reduce((x, y) => Math.max(x, y), -Infinity)).toBe(A.reduce((x, y) => Math.max(x, y), -Infinity));
        expect(mn.out.reduce((x, y) => Math.min(x, y), Infinity)).toBe(A.reduce((x, y) => Math.min(x, y), Infinity));
      }
    });
  }

  it('other block sizes and grids (block 32/64/128, grid 1/3/7)', async () => {
    const A = randomF32(50_001, 7);
    for (const [block, grid] of [
      [32, 1],
      [64, 3],
      [128, 7],
    ] as const) {
      const ref = blockRefs(A, block, grid);
      const mx = await runReduction('vecMax', A, block, grid);
      const sm = await runReduction('vecSum', A, block, grid);
      for (let b = 0; b < grid; b++) {
        expect(mx.out[b]).toBe(ref.max[b]);
        expect(Math.abs(sm.out[b]! - ref.sum[b]!)).toBeLessThanOrEqual(sumBound(block, ref.m, ref.abs[b]!));
      }
    }
  });

  it('vecSum keeps Kahan compensation (2^24 followed by ones in one thread)', async () => {
    const block = 32;
    const A = new Float32Array(block * 1000).fill(1);
    A[0] = 2 ** 24; // thread 0 adds 999 ones to 2^24: plain f32 summation would lose all of them
    const { out } = await runReduction('vecSum', A, block, 1);
    const exact = 2 ** 24 + A.length - 1;
    expect(Math.abs(out[0]! - exact)).toBeLessThanOrEqual(2); // f32 spacing at 2^24 is 2
  });

  it('NaN elements are ignored by vecMax/vecMin; an all-NaN block gives the identity', async () => {
    const A = new Float32Array([NaN, 3, NaN, -7, 5, NaN]);
    expect((await runReduction('vecMax', A, 32, 1)).out[0]).toBe(5);
    expect((await runReduction('vecMin', A, 32, 1)).out[0]).toBe(-7);
    const allNaN = new Float32Array(10).fill(NaN);
    expect((await runReduction('vecMax', allNaN, 32, 1)).out[0]).toBe(-Infinity);
    expect((await runReduction('vecMin', allNaN, 32, 1)).out[0]).toBe(Infinity);
  });

  it('grid.x > 65535 is split into dispatches with blockOffset', async () => {
    const grid = 70_000;
    const A = randomF32(grid * 32 + 5, 99);
    const ref = blockRefs(A, 32, grid);
    const { out, dispatches } = await runReduction('vecMax', A, 32, grid);
    expect(dispatches).toBe(Math.ceil(grid / ctx.limits.maxComputeWorkgroupsPerDimension));
    expect(dispatches).toBeGreaterThan(1);
    for (let b = 0; b < grid; b++) if (out[b] !== ref.max[b]) expect(out[b], `block ${b}`).toBe(ref.max[b]);
  });
});

// ------------------------------------------------------------------------------ countModules

/** Sorted module ids with runs of invalid ids, some splitting a module's run. */
function makeIds(n: number, seed: number, opts: { maxRun?: number; invalidP?: number } = {}): Uint16Array {
  const r = rng(seed);
  const maxRun = opts.maxRun ?? 40;
  const invalidP = opts.invalidP ?? 0.3;
  const id = new Uint16Array(n);
  let mod = Math.floor(r() * 5);
  let i = 0;
  while (i < n) {
    if (r() < invalidP) {
      const len = 1 + Math.floor(r() * 15);
      for (let k = 0; k < len && i < n; k++) id[i++] = INVALID_MODULE_ID;
    }
    const len = 1 + Math.floor(r() * maxRun);
    for (let k = 0; k < len && i < n; k++) id[i++] = mod;
    // Sometimes the same module continues after the invalid run (not a boundary).
    if (r() < 0.75) mod = Math.min(mod + 1 + Math.floor(r() * 3), 65533);
  }
  return id;
}

function boundaries(id: Uint16Array): number[] {
  const out: number[] = [];
  let prev = -1; // last valid id
  for (let i = 0; i < id.length; i++) {
    const v = id[i]!;
    if (v === INVALID_MODULE_ID) continue;
    if (prev < 0 || v !== prev) out.push(i);
    prev = v;
  }
  return out;
}

async function runCountModules(id: Uint16Array, nMaxModules: number, block: number, grid: number) {
  const wgsl = await loadWgsl('countModules');
  const n = id.length;
  const idBuf = rt.createBuffer(id.byteLength); // same bytes as the Uint16Array
  rt.write(idBuf, 0, id);
  const ms = rt.createBuffer(4 * (nMaxModules + 2)); // zero-filled: moduleStart[0] = 0
  const cl = rt.createBuffer(4 * n);
  rt.write(cl, 0, new Int32Array(n).fill(-1));
  const res = await rt.dispatch({
    wgsl,
    entryPoint: 'countModules',
    workgroupSize: [block, 1, 1],
    grid: { x: grid },
    buffers: [idBuf, ms, cl],
    scalars: packScalars(WGSL_KERNELS.countModules.params, [n, nMaxModules]),
  });
  const moduleStart = await readU32(ms, nMaxModules + 2);
  const bytes = await rt.read(cl, 0, 4 * n);
  const clusterId = new Int32Array(bytes.buffer, bytes.byteOffset, n);
  idBuf.destroy();
  ms.destroy();
  cl.destroy();
  return { moduleStart, clusterId, dispatches: res.dispatches };
}

/**
 * Checks moduleStart against CUDA atomicInc semantics for B boundaries and val = nMaxModules:
 * the counter ends at B mod (val + 1); slots 1..min(B, val+1) each hold a distinct boundary
 * (exactly the boundaries when B <= val + 1); later slots stay 0.
 */
function checkModuleStart(moduleStart: Uint32Array, bounds: number[], nMaxModules: number) {
  const B = bounds.length;
  expect(moduleStart[0]).toBe(B % (nMaxModules + 1));
  const filled = Math.min(B, nMaxModules + 1);
  const written = Array.from(moduleStart.subarray(1, 1 + filled)).sort((x, y) => x - y);
  if (B <= nMaxModules + 1) {
    expect(written).toEqual([...bounds].sort((x, y) => x - y));
  } else {
    const set = new Set(bounds);
    expect(new Set(written).size).toBe(written.length);
    for (const w of written) expect(set.has(w), `slot value ${w} is a boundary`).toBe(true);
  }
  for (let k = 1 + filled; k < moduleStart.length; k++) expect(moduleStart[k]).toBe(0);
}

function checkClusterId(clusterId: Int32Array) {
  for (let i = 0; i < clusterId.length; i++) if (clusterId[i] !== i) expect(clusterId[i], `clusterId[${i}]`).toBe(i);
}

describe('countModules (seed 000) on WebGPU', () => {
  for (const [n, seed] of [
    [1, 1],
    [2, 2],
    [1001, 3],
    [100_003, 4],
  ] as const) {
    it(`random sorted ids with invalid runs, n = ${n}`, async () => {
      const id = makeIds(n, seed);
      const bounds = boundaries(id);
      const nMax = Math.max(bounds.length + 10, 4);
      for (const [block, grid] of [
        [256, 64],
        [64, Math.ceil(n / 64)],
      ] as const) {
        const { moduleStart, clusterId } = await runCountModules(id, nMax, block, grid);
        checkModuleStart(moduleStart, bounds, nMax);
        checkClusterId(clusterId);
      }
    });
  }

  it('all ids invalid: no module, counter stays 0', async () => {
    const id = new Uint16Array(5000).fill(INVALID_MODULE_ID);
    const { moduleStart, clusterId } = await runCountModules(id, 100, 256, 8);
    expect(Array.from(moduleStart).every((v) => v === 0)).toBe(true);
    checkClusterId(clusterId);
  });

  it('one module (after a leading invalid run, with invalid runs inside)', async () => {
    const id = new Uint16Array(3001).fill(42);
    id.fill(INVALID_MODULE_ID, 0, 17);
    id.fill(INVALID_MODULE_ID, 1000, 1300);
    id[2999] = INVALID_MODULE_ID;
    const { moduleStart, clusterId } = await runCountModules(id, 10, 128, 5);
    expect(moduleStart[0]).toBe(1);
    expect(moduleStart[1]).toBe(17);
    checkClusterId(clusterId);
  });

  it('more boundaries than nMaxModules: the counter wraps by the CUDA rule', async () => {
    const id = makeIds(20_000, 11, { maxRun: 8 });
    const bounds = boundaries(id);
    for (const nMax of [100, 1000, bounds.length - 2, bounds.length - 1]) {
      expect(bounds.length).toBeGreaterThan(nMax);
      const { moduleStart, clusterId } = await runCountModules(id, nMax, 256, 16);
      checkModuleStart(moduleStart, bounds, nMax);
      checkClusterId(clusterId);
    }
  });

  it('grid.x > 65535: 70000 blocks of 32 threads over 70000*32+5 elements', async () => {
    const grid = 70_000;
    const n = grid * 32 + 5;
    const id = makeIds(n, 21, { maxRun: 400 });
    const bounds = boundaries(id);
    expect(bounds.length).toBeLessThan(65533);
    const nMax = bounds.length + 1;
    const { moduleStart, clusterId, dispatches } = await runCountModules(id, nMax, 32, grid);
    expect(dispatches).toBe(2);
    checkModuleStart(moduleStart, bounds, nMax);
    checkClusterId(clusterId);
  });
});

// ----------------------------------------------------------------------- prelude and runtime

describe('cuda_atomics.wgsl prelude', () => {
  const wgsl = /* wgsl */ `
override BLOCK_X: u32 = 64;
struct Launch { gridDim: vec3u, blockOffset: u32, incVal: u32, decVal: u32 }
@group(0) @binding(0) var<storage, read_write> w: array<atomic<u32>>;
@group(0) @binding(1) var<uniform> launch: Launch;
var<workgroup> wgInc: atomic<u32>;
@compute @workgroup_size(BLOCK_X)
fn main(@builtin(local_invocation_id) lid: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let t = (wg.x + launch.blockOffset) * BLOCK_X + lid.x;
  cudaAtomicInc(&w[0], launch.incVal);
  cudaAtomicDec(&w[1], launch.decVal);
  cudaAtomicAddF32(&w[2], 1.0);
  cudaAtomicMaxF32(&w[3], f32(t) - 100.0);
  cudaAtomicMinF32(&w[4], f32(t) - 100.0);
  cudaAtomicIncWg(&wgInc, 1000000u);
  workgroupBarrier();
  if (lid.x == 0u) { atomicAdd(&w[5], atomicLoad(&wgInc)); }
}`;

  it('atomicInc/atomicDec wrap like CUDA; f32 add/max/min by CAS', async () => {
    const blocks = 16;
    const threads = blocks * 64;
    const buf = rt.createBuffer(6 * 4);
    rt.write(buf, 0, new Uint32Array([0, 0, f32bits(0), f32bits(-Infinity), f32bits(Infinity), 0]));
    await rt.dispatch({ wgsl, entryPoint: 'main', workgroupSize: [64, 1, 1], grid: { x: blocks }, buffers: [buf], scalars: new Uint32Array([9, 9]) });
    const w = await readU32(buf, 6);
    let inc = 0;
    let dec = 0;
    for (let k = 0; k < threads; k++) {
      inc = inc >= 9 ? 0 : inc + 1;
      dec = dec === 0 || dec > 9 ? 9 : dec - 1;
    }
    expect(w[0]).toBe(inc);
    expect(w[1]).toBe(dec);
    const f = new Float32Array(w.buffer, w.byteOffset, 6);
    expect(f[2]).toBe(threads);
    expect(f[3]).toBe(threads - 1 - 100);
    expect(f[4]).toBe(-100);
    expect(w[5]).toBe(threads);
    buf.destroy();
  });

  it('wide.wgsl: f64BitsOfF32 converts every kind of f32 exactly (zeros, denormals, inf, NaN)', async () => {
    const xs = new Uint32Array([
      0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00400000, 0x00000300, 0x00800000,
      0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00001,
      0x34000000, 0x4b800001, 0xc2f6e979,
    ]);
    const wgsl = `
      @group(0) @binding(0) var<storage, read_write> inp: array<u32>;
      @group(0) @binding(1) var<storage, read_write> out: array<vec2u>;
      struct Launch { gridDim: vec3u, blockOffset: u32, n: u32 }
      @group(0) @binding(2) var<uniform> launch: Launch;
      @compute @workgroup_size(32)
      fn conv(@builtin(global_invocation_id) g: vec3u) {
        if (g.x < launch.n) { out[g.x] = f64BitsOfF32(bitcast<f32>(inp[g.x])); }
        out[g.x + launch.n] = i64OfI32(-i32(g.x) - 1);
      }`;
    const inp = rt.createBuffer(xs.byteLength);
    rt.write(inp, 0, xs);
    const out = rt.createBuffer(8 * (xs.length + 32));
    await rt.dispatch({ wgsl, entryPoint: 'conv', workgroupSize: [32, 1, 1], grid: { x: 1 }, buffers: [inp, out], scalars: new Uint32Array([xs.length]) });
    const bytes = await rt.read(out, 0, 8 * (xs.length + 32));
    const f64 = new Float64Array(bytes.buffer, bytes.byteOffset, xs.length);
    const u64 = new BigUint64Array(bytes.buffer, bytes.byteOffset, xs.length);
    const f32 = new Float32Array(xs.buffer);
    for (let k = 0; k < xs.length; k++) {
      if (Number.isNaN(f32[k]!)) {
        // NaN payloads: the f32 mantissa moves to the top of the f64 mantissa, sign kept.
        const x = BigInt(xs[k]!);
        const want = ((x >> 31n) << 63n) | (0x7ffn << 52n) | ((x & 0x7fffffn) << 29n);
        expect(u64[k]).toBe(want);
      } else {
        expect(Object.is(f64[k], f32[k]!), `0x${xs[k]!.toString(16)}: got ${f64[k]}, want ${f32[k]}`).toBe(true);
      }
    }
    const i64 = new BigInt64Array(bytes.buffer, bytes.byteOffset + 8 * xs.length, 32);
    for (let k = 0; k < 32; k++) expect(i64[k]).toBe(BigInt(-k - 1));
    inp.destroy();
    out.destroy();
  });

  it('compile errors are reported with kernel line numbers', async () => {
    const bad = 'override BLOCK_X: u32 = 1;\n@compute @workgroup_size(BLOCK_X)\nfn main() {\n  let x: u32 = nope;\n}\n';
    await expect(
      rt.dispatch({ wgsl: bad, entryPoint: 'main', workgroupSize: [1, 1, 1], grid: { x: 1 }, buffers: [] }),
    ).rejects.toThrow(/kernel line 4:/);
  });

  it('pipelines are cached by (source, entry point, workgroup size)', async () => {
    const A = randomF32(1000, 5);
    await runReduction('vecMax', A, 128, 2);
    const before = rt.pipelineCount;
    await runReduction('vecMax', A, 128, 5);
    expect(rt.pipelineCount).toBe(before);
    await runReduction('vecMax', A, 16, 5);
    expect(rt.pipelineCount).toBe(before + 1);
  });

  it('adapter info and limits are exposed', () => {
    expect(typeof ctx.adapterInfo.vendor).toBe('string');
    expect(ctx.adapterInfo.description.length + ctx.adapterInfo.vendor.length).toBeGreaterThan(0);
    expect(ctx.limits.maxStorageBufferBindingSize).toBeGreaterThanOrEqual(128 << 20);
  });
});

// ---------------------------------------------------------------------------------- timings
