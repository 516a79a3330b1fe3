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
import { loadWgsl, packScalars, WGSL_KERNELS } from '../src/webgpu/kernels.js';

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

async function readU32(buf: GPUBuffer, n: number): Promise<Uint32Array> {
  const bytes = await rt.read(buf, 0, 4 * n);
  return new Uint32Array(bytes.buffer, bytes.byteOffset, n);
}

/**
 * One launch of vecSum's hand-written WGSL (f64 partials, which WGSL cannot generate) through the
 * runtime directly: the vehicle for the runtime's own behaviour (grid splitting, pipeline cache).
 * vecMax, vecMin and countModules run as generated WGSL: test/webgpu-builtins.test.ts.
 */
async function runVecSum(A: Float32Array, block: number, grid: number) {
  const info = WGSL_KERNELS.vecSum;
  const a = rt.createBuffer(A.byteLength);
  rt.write(a, 0, A);
  const b = rt.createBuffer(8 * grid);
  const res = await rt.dispatch({
    wgsl: await loadWgsl('vecSum'),
    entryPoint: info.entryPoint,
    workgroupSize: [block, 1, 1],
    grid: { x: grid },
    buffers: [a, b],
    scalars: packScalars(info.params, [A.length]),
  });
  const bytes = await rt.read(b, 0, 8 * grid);
  a.destroy();
  b.destroy();
  return { out: new Float64Array(bytes.buffer, bytes.byteOffset, grid), dispatches: res.dispatches };
}

/** Per-block reference: block b sees i with floor((i mod (grid*block)) / block) == b. */
function blockRefs(A: Float32Array, block: number, grid: number) {
  const sum = new Float64Array(grid);
  const abs = new Float64Array(grid);
  const count = new Float64Array(grid * block); // elements per thread
  const span = grid * block;
  for (let i = 0; i < A.length; i++) {
    const t = i % span;
    const b = Math.floor(t / block);
    const v = A[i]!;
    sum[b] += v;
    abs[b] += Math.abs(v);
    count[t]! += 1;
  }
  let m = 0;
  for (const c of count) m = Math.max(m, c);
  return { sum, abs, m };
}

const U = 2 ** -24;
/** The bound stated in vecSum.wgsl, with one extra u of slack. */
const sumBound = (block: number, m: number, absSum: number): number =>
  ((Math.log2(block) + 4) * U + 2 * m * U * U) * absSum;

function expectSums(out: Float64Array, A: Float32Array, block: number, grid: number): void {
  const ref = blockRefs(A, block, grid);
  for (let b = 0; b < grid; b++) {
    const err = Math.abs(out[b]! - ref.sum[b]!);
    if (!(err <= sumBound(block, ref.m, ref.abs[b]!))) {
      expect(err, `sum block ${b}: got ${out[b]} want ${ref.sum[b]}`).toBeLessThanOrEqual(sumBound(block, ref.m, ref.abs[b]!));
    }
  }
}

// -------------------------------------------------------------------------------- reductions

const SIZES = [0, 1, 31, 32, 33, 1023, 1025, (1 << 20) + 3];

describe('vecSum (seed 002) on WebGPU', () => {
  for (const n of SIZES) {
    it(`n = ${n}, block 256, grid 64: partials within the stated bound of the TS reference`, async () => {
      const A = randomF32(n, 1000 + n);
      expectSums((await runVecSum(A, 256, 64)).out, A, 256, 64);
    });
  }

  it('other block sizes and grids (block 32/64/128, grid 1/3/7)', async () => {
    const A = randomF32(50_001, 7);
    for (const [block, grid] of [
      [32, 1],
      [64, 3],
      [128, 7],
    ] as const) {
      expectSums((await runVecSum(A, block, grid)).out, A, block, grid);
    }
  });

  it('vecSum keeps Kahan compensation (2^24 followed by ones in one thread)', async () => {
    const block = 32;
    const A = new Float32Array(block * 1000).fill(1);
    A[0] = 2 ** 24; // thread 0 adds 999 ones to 2^24: plain f32 summation would lose all of them
    const { out } = await runVecSum(A, block, 1);
    const exact = 2 ** 24 + A.length - 1;
    expect(Math.abs(out[0]! - exact)).toBeLessThanOrEqual(2); // f32 spacing at 2^24 is 2
  });

  it('grid.x > 65535 is split into dispatches with blockOffset', async () => {
    const grid = 70_000;
    const A = randomF32(grid * 32 + 5, 99);
    const { out, dispatches } = await runVecSum(A, 32, grid);
    expect(dispatches).toBe(Math.ceil(grid / ctx.limits.maxComputeWorkgroupsPerDimension));
    expect(dispatches).toBeGreaterThan(1);
    expectSums(out, A, 32, grid);
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

  it('a relaunch of validated bindings goes without a validation scope, and its failure still rejects it', async () => {
    const wgsl = `
      @group(0) @binding(0) var<storage, read_write> a: array<u32>;
      struct Launch { gridDim: vec3u, blockOffset: u32, add: u32 }
      @group(0) @binding(1) var<uniform> launch: Launch;
      @compute @workgroup_size(1) fn main() { a[0] = a[0] + launch.add; }`;
    const buf = rt.createBuffer(4);
    const launch = (add: number) => rt.dispatch({ wgsl, entryPoint: 'main', workgroupSize: [1, 1, 1], grid: { x: 1 }, buffers: [buf], scalars: new Uint32Array([add]) });
    const scopes = { pushed: 0 };
    const push = ctx.device.pushErrorScope.bind(ctx.device);
    ctx.device.pushErrorScope = (filter: GPUErrorFilter) => { scopes.pushed++; push(filter); };
    try {
      await (await launch(1)).completed();   // new bindings: validated in a scope (and the shader's compile in one)
      expect(scopes.pushed).toBeGreaterThanOrEqual(1);
      const first = scopes.pushed;
      await (await launch(2)).completed();   // the same bindings, other words: no scope
      await (await launch(3)).completed();
      expect(scopes.pushed).toBe(first);
      expect((await readU32(buf, 1))[0]).toBe(6);
      // The bound buffer destroyed behind the runtime's back: the same commands now fail at the
      // submit, outside any scope; the uncaptured error fails the launch.
      buf.destroy();
      const failing = await launch(4);
      await expect(failing.completed()).rejects.toThrow(/failed validation: .*destroyed/i);
      expect(scopes.pushed).toBe(first);
    } finally {
      ctx.device.pushErrorScope = push;
    }
    // The runtime runs on: a new buffer is new bindings, validated in a scope again.
    const fresh = rt.createBuffer(4);
    await (await rt.dispatch({ wgsl, entryPoint: 'main', workgroupSize: [1, 1, 1], grid: { x: 1 }, buffers: [fresh], scalars: new Uint32Array([5]) })).completed();
    expect((await readU32(fresh, 1))[0]).toBe(5);
    fresh.destroy();
  });

  it('pipelines are cached by (source, entry point, workgroup size)', async () => {
    const A = randomF32(1000, 5);
    await runVecSum(A, 128, 2);
    const before = rt.pipelineCount;
    await runVecSum(A, 128, 5);
    expect(rt.pipelineCount).toBe(before);
    await runVecSum(A, 16, 5);
    expect(rt.pipelineCount).toBe(before + 1);
  });

  it('adapter info and limits are exposed', () => {
    expect(typeof ctx.adapterInfo.vendor).toBe('string');
    expect(ctx.adapterInfo.description.length + ctx.adapterInfo.vendor.length).toBeGreaterThan(0);
    expect(ctx.limits.maxStorageBufferBindingSize).toBeGreaterThanOrEqual(128 << 20);
  });
});

// ---------------------------------------------------------------------------------- timings
