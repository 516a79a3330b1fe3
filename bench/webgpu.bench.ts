// WebGPU vs wasm, per kernel: vecMax over 16M f32 and countModules over 16M digis (1M with
// --quick). Data stays on the device; one sample is one launch (countModules: the moduleStart
// reset and the launch). GB/s counts the bytes the kernel must move: vecMax 4N (A), countModules
// 2N + 4N (id read, clusterId written). On webgpu the GPU time of the compute pass (timestamp
// queries) is recorded beside the wall time. On SwiftShader (no GPU) webgpu is expected to be far
// slower than wasm: it is a correctness reference there; docs/webgpu.md shows how to run this on a
// real GPU.
//
// `warpSums/subgroups` and `warpSums/workgroup-memory` time bench/kernels/warpSums.ts's warp
// shuffles as subgroup builtins (where the device's subgroups are CUDA's warps) and through
// workgroup memory.
//
// `launch/compiled` is the per-launch cost of a kernel compiled from a per-thread source
// (kernels/reduce/vecMax.ts): one sample is one awaited launch over 1024 floats (4 blocks of
// 256), so the time is the backend's overhead, not the kernel's work; `launchesPerSec` = 1000 / ms.
import type { BenchContext, BenchRecord, BenchSuite } from './harness.js';
import { measure, median, progress, record } from './harness.js';
import { createDevice } from '../src/device.js';
import type { BackendName, GpuDevice, LaunchStats } from '../src/deviceApi.js';
import type { Kernel } from '../src/kernel.js';
import { countModules, vecMax } from '../src/kernels/index.js';
import { gridStrideShape } from '../src/ops/launchShape.js';
import { compileKernelFiles } from '../src/compiler/index.js';
import { createWebGpuDevice, type WebGpuDevice } from '../src/webgpu/device.js';
import { moduleIdsForBench, PHASE1_NUMBER_OF_MODULES, randomF32 } from '../src/data/synthetic.js';

function describeDevice(d: GpuDevice): string {
  const info = (d as { adapterInfo?: { description?: string; vendor?: string; architecture?: string } }).adapterInfo;
  return d.backend === 'webgpu' ? (info?.description || `${info?.vendor} ${info?.architecture}`) : `${d.workers} workers`;
}

/**
 * The same two kernels in two forms: simt's built-ins (on wasm their SIMD specializations; on
 * webgpu, which has no hand-written twin of either, the WGSL generated for simt's module from
 * their generic kernels), and compiled from their per-thread sources at run time.
 */
interface KernelPair { vecMax: Kernel; countModules: Kernel }

async function benchBackend(backend: BackendName, n: number, ctx: BenchContext): Promise<BenchRecord[]> {
  const out: BenchRecord[] = [];
  if (backend === 'webgpu') {
    // What a launch costs with the device's defaults, measured first, on the process's only
    // device: the timestamp queries of the device below are not what users pay, and on an H200
    // a WebGPU device opened earlier in the process (even destroyed) more than doubled the
    // awaited launch of a later one (147 against 60 us).
    const plain = await createDevice({ backend: 'webgpu' });
    try { out.push(...await launchOverhead(plain, backend, describeDevice(plain), ctx)); } finally { await plain.destroy(); }
  }
  const device = await createDevice(backend === 'webgpu'
    ? { backend: 'webgpu', memoryBytes: 1 << 30, webgpu: { gpuTiming: true } }
    : { backend: 'wasm', memoryBytes: 512 << 20, workers: ctx.workers });
  try {
    const where = describeDevice(device);
    // The kernels compiled from their per-thread sources: the WGSL the compiler generates.
    const [vm, cm] = await Promise.all([compileKernelFiles(['kernels/reduce/vecMax.ts']), compileKernelFiles(['kernels/pixel/countModules.ts'])]);
    await device.load(vm);
    await device.load(cm);
    const forms: [string, KernelPair][] = [
      ['', { vecMax, countModules }],
      ['Generic', { vecMax: vm.kernels.vecMax!, countModules: cm.kernels.countModules! }], // the user-kernels suite's names
    ];
    out.push(...await kernelRecords(device, backend, where, n, forms, ctx));
    if (backend === 'webgpu') out.push(...await warpRecords(device as WebGpuDevice, where, n, ctx));
    else out.push(...await launchOverhead(device, backend, where, ctx));
  } finally {
    await device.destroy();
  }
  return out;
}

/**
 * vecMax and countModules in both forms (records `vecMax${suffix}`, `countModules${suffix}`), same
 * data and shapes for both: vecMax on wasm with the library's grid-stride shape, on webgpu over
 * several grids (few large workgroups suit SwiftShader, a real GPU wants thousands of blocks in
 * flight); countModules on wasm with its grid-stride shape, on webgpu one thread per digi.
 * The forms take turns, a few launches each, round after round: on an H100 every kernel's GPU
 * time rose 2-4x after a few thousand launches in one process (both forms alike), so timing
 * one form after the other measured the order, not the forms.
 */
async function kernelRecords(device: GpuDevice, backend: BackendName, where: string, n: number, forms: [string, KernelPair][], ctx: BenchContext): Promise<BenchRecord[]> {
  const out: BenchRecord[] = [];
  const A = await device.upload('f32', randomF32(n, 1));
  const software = (device as { adapterInfo?: { isFallbackAdapter?: boolean } }).adapterInfo?.isFallbackAdapter === true;
  const grids = software ? [64, 1024, 4096] : [1024, 4096, 16384, 65536];
  const shapes = backend === 'webgpu' ? grids.map((grid) => ({ grid, block: 256 })) : [gridStrideShape(device, n)];
  for (const s of shapes) {
    const B = device.alloc('f32', s.grid);
    const t = await alternate(`vecMax grid ${s.grid}`, device, forms.map(([, k]) => () => device.launch(k.vecMax, { grid: s.grid, block: s.block, sharedBytes: 4 * s.block }, [A, B, n] as never)), ctx.quick);
    forms.forEach(([suffix], f) => out.push(record(`vecMax${suffix}`, `simt-${backend}`, n, t[f]!.ms, {
      bytes: 4 * n, times: t[f]!.samples, workers: device.workers, device: where, grid: s.grid, block: s.block,
      ...(t[f]!.gpuMs !== undefined ? { gpuMs: t[f]!.gpuMs, gpuGbps: (4 * n) / t[f]!.gpuMs! / 1e6 } : {}),
    })));
    B.free();
  }
  A.free();
  // The digis native CUDA's baseline counts (bench/native/cuda/seeds.cu: 1,800 modules, 1 % invalid,
  // seed 1), as the core suite does: the GPU times compare one kernel on one input.
  const id = await device.upload('u16', moduleIdsForBench(n, 1800, 0.01, 1));
  const ms = device.alloc('u32', PHASE1_NUMBER_OF_MODULES + 2);
  const cl = device.alloc('i32', n);
  const c = backend === 'webgpu' ? { grid: Math.ceil(n / 256), block: 256 } : gridStrideShape(device, n);
  const t = await alternate('countModules', device, forms.map(([, k]) => async () => {
    await ms.fill(0);
    return device.launch(k.countModules, { grid: c.grid, block: c.block }, [id, ms, cl, n, PHASE1_NUMBER_OF_MODULES] as never);
  }), ctx.quick);
  const modules = (await ms.read(0, 1))[0];
  forms.forEach(([suffix], f) => out.push(record(`countModules${suffix}`, `simt-${backend}`, n, t[f]!.ms, {
    bytes: 6 * n, times: t[f]!.samples, workers: device.workers, device: where, grid: c.grid, block: c.block, modules,
    ...(t[f]!.gpuMs !== undefined ? { gpuMs: t[f]!.gpuMs, gpuGbps: (6 * n) / t[f]!.gpuMs! / 1e6 } : {}),
  })));
  for (const a of [id, ms, cl]) a.free();
  return out;
}

/**
 * bench/kernels/warpSums.ts over n i32 (one element per thread, block 256): five
 * __shfl_xor_sync rounds per thread, no atomics, in each form a device can run them:
 * `warpSums/workgroup-memory` (a device created with `subgroups: false`) and, where this
 * device's subgroups are CUDA's warps, `warpSums/subgroups`. Every output is checked against
 * the warps' sums computed here; a wrong one is an error, not a record.
 */
async function warpRecords(device: WebGpuDevice, where: string, n: number, ctx: BenchContext): Promise<BenchRecord[]> {
  const mod = await compileKernelFiles(['bench/kernels/warpSums.ts']);
  const emulated = await createWebGpuDevice({ memoryBytes: 1 << 30, gpuTiming: true, subgroups: false, modules: [mod] });
  const out: BenchRecord[] = [];
  try {
    await device.load(mod);
    const devices = device.warpOps === 'subgroups' ? [device, emulated] : [emulated];
    // SwiftShader runs a workgroup's invocations on the CPU: a smaller input there.
    const size = device.adapterInfo.isFallbackAdapter === true ? Math.min(n, 1 << 18) : n;
    const data = Int32Array.from(randomF32(size, 5), (x) => Math.round(x));
    const expected = new Int32Array(size);
    for (let w = 0; w < size; w += 32) {
      let s = 0;
      for (let l = w; l < Math.min(size, w + 32); l++) s += data[l]!;
      expected.fill(s, w, Math.min(size, w + 32));
    }
    const arrays = await Promise.all(devices.map(async (d) => ({ A: await d.upload('i32', data), O: d.alloc('i32', size) })));
    const grid = Math.ceil(size / 256);
    const launches = devices.map((d, k) => () => d.launch(mod.kernels.warpSums!, { grid, block: 256 }, [arrays[k]!.A, arrays[k]!.O, size] as never));
    const t = await alternate(`warpSums grid ${grid}`, device, launches, ctx.quick);
    for (const [k, d] of devices.entries()) {
      const got = await arrays[k]!.O.read();
      const bad = got.findIndex((v, i) => v !== expected[i]);
      if (bad >= 0) throw new Error(`warpSums (${d.warpOps}): out[${bad}] = ${got[bad]}, expected ${expected[bad]}`);
      out.push(record(`warpSums/${d.warpOps}`, 'simt-webgpu', size, t[k]!.ms, {
        bytes: 8 * size, times: t[k]!.samples, device: where, grid, block: 256, warpOps: d.warpOps,
        ...(t[k]!.gpuMs !== undefined ? { gpuMs: t[k]!.gpuMs, gpuGbps: (8 * size) / t[k]!.gpuMs! / 1e6 } : {}),
      }));
    }
    for (const a of arrays) { a.A.free(); a.O.free(); }
  } finally {
    await emulated.destroy();
  }
  return out;
}

/** Launches of several forms in turns (two warm-up launches each, then rounds of a few each): wall and GPU time per form. */
async function alternate(name: string, device: GpuDevice, launches: (() => Promise<LaunchStats>)[], quick: boolean) {
  const rounds = quick ? 2 : 6, per = quick ? 3 : 8;
  const wall = launches.map(() => [] as number[]), gpu = launches.map(() => [] as number[]);
  progress(`${name} ${device.backend}${device.backend === 'webgpu' ? '' : ` ${device.workers} workers`}`);
  for (const l of launches) { await l(); await l(); }
  for (let r = 0; r < rounds; r++) {
    for (const [f, l] of launches.entries()) {
      for (let k = 0; k < per; k++) {
        const t0 = performance.now();
        const st = await l();
        wall[f]!.push(performance.now() - t0);
        if (st.gpuTimeMs !== undefined) gpu[f]!.push(st.gpuTimeMs);
      }
    }
  }
  return launches.map((_, f) => ({ ms: median(wall[f]!), samples: wall[f]!, gpuMs: gpu[f]!.length > 0 ? median(gpu[f]!) : undefined }));
}

/**
 * What a launch costs the host (a device with default options), as `launch/compiled`: awaited
 * launches of a small compiled kernel one after another; as `launch/compiled-inflight`: rounds
 * of 300 launches issued without awaiting, then synchronize() (the stream keeps them in order;
 * on webgpu their completion and trap records come back through shared maps).
 */
async function launchOverhead(device: GpuDevice, backend: BackendName, where: string, ctx: BenchContext): Promise<BenchRecord[]> {
  const mod = await compileKernelFiles(['kernels/reduce/vecMax.ts']);
  await device.load(mod);
  const n = 1024;
  const A = await device.upload('f32', randomF32(n, 3));
  const B = device.alloc('f32', 4);
  const kernel = mod.kernels.vecMax!;
  const { median: ms, samples } = await measure(`launch/compiled ${backend}`, () => device.launch(kernel, { grid: 4, block: 256, sharedBytes: 4 * 256 }, [A, B, n] as never),
    { iterations: ctx.quick ? 50 : 200, time: ctx.quick ? 300 : 2000, warmup: 5 });
  const ROUND = 300;
  const rounds = await measure(`launch/compiled-inflight ${backend}`, async () => {
    const launches: Promise<unknown>[] = [];
    for (let k = 0; k < ROUND; k++) launches.push(device.launch(kernel, { grid: 4, block: 256, sharedBytes: 4 * 256 }, [A, B, n] as never));
    await device.synchronize();
    await Promise.all(launches);
  }, { iterations: ctx.quick ? 3 : 9, time: ctx.quick ? 300 : 2000, warmup: 1 });
  A.free(); B.free();
  const perLaunch = rounds.median / ROUND;
  return [
    record('launch/compiled', `simt-${backend}`, 1, ms, {
      times: samples, workers: device.workers, device: where, grid: 4, block: 256, n, launchesPerSec: 1000 / ms, usPerLaunch: ms * 1000,
    }),
    record('launch/compiled-inflight', `simt-${backend}`, ROUND, perLaunch, {
      times: rounds.samples.map((t) => t / ROUND), workers: device.workers, device: where, grid: 4, block: 256, n, launchesPerSec: 1000 / perLaunch, usPerLaunch: perLaunch * 1000,
    }),
  ];
}

export const suite: BenchSuite = {
  name: 'webgpu',
  description: 'WebGPU vs wasm per kernel: vecMax 16M f32, countModules 16M digis (wall and GPU time); warp shuffles as subgroups and in workgroup memory; launches per second of a compiled kernel',
  quickDescription: 'WebGPU vs wasm per kernel: vecMax 1M f32, countModules 1M digis (wall and GPU time); launches per second of a compiled kernel',
  async run(ctx) {
    const n = ctx.quick ? 1 << 20 : 16 << 20;
    const records: BenchRecord[] = [];
    for (const backend of ['wasm', 'webgpu'] as const) {
      records.push(...await benchBackend(backend, n, ctx));
    }
    return records;
  },
};
