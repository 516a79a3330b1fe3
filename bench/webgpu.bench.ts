// WebGPU vs wasm, per kernel: vecMax over 16M f32 and countModules over 16M digis (1M with
// --quick). Data stays on the device; one sample is one launch (countModules: the moduleStart
// reset and the launch). GB/s counts the bytes the kernel must move: vecMax 4N (A), countModules
// 2N + 4N (id read, clusterId written). On webgpu the GPU time of the compute pass (timestamp
// queries) is recorded beside the wall time. On SwiftShader (no GPU) webgpu is expected to be far
// slower than wasm: it is a correctness reference there; docs/webgpu.md shows how to run this on a
// real GPU.
//
// `launch/compiled` is the per-launch cost of a kernel compiled from a per-thread source
// (kernels/reduce/vecMax.ts): one sample is one awaited launch over 1024 floats (4 blocks of
// 256), so the time is the backend's overhead, not the kernel's work; `launchesPerSec` = 1000 / ms.
import type { BenchContext, BenchRecord, BenchSuite } from './harness.js';
import { measure, median, record } from './harness.js';
import { createDevice } from '../src/device.js';
import type { BackendName, GpuDevice, LaunchStats } from '../src/deviceApi.js';
import type { Kernel } from '../src/kernel.js';
import { countModules, vecMax } from '../src/kernels/index.js';
import { gridStrideShape } from '../src/ops/launchShape.js';
import { compileKernelFiles } from '../src/compiler/index.js';
import { moduleIdsForBench, PHASE1_NUMBER_OF_MODULES, randomF32 } from '../src/data/synthetic.js';

function describeDevice(d: GpuDevice): string {
  const info = (d as { adapterInfo?: { description?: string; vendor?: string; architecture?: string } }).adapterInfo;
  return d.backend === 'webgpu' ? (info?.description || `${info?.vendor} ${info?.architecture}`) : `${d.workers} workers`;
}

async function timeLaunches(name: string, device: GpuDevice, launch: () => Promise<LaunchStats>, quick: boolean) {
  const gpu: number[] = [];
  const { median: ms, samples } = await measure(`${name} ${device.backend}${device.backend === 'webgpu' ? '' : ` ${device.workers} workers`}`, async () => {
    const st = await launch();
    if (st.gpuTimeMs !== undefined) gpu.push(st.gpuTimeMs);
  }, { iterations: quick ? 3 : 7, time: quick ? 100 : 500, warmup: 2 });
  return { ms, samples, gpuMs: gpu.length > 0 ? median(gpu) : undefined };
}

/** The same two kernels in two forms: the hand-written twins, and compiled from examples/kernels. */
interface KernelPair { vecMax: Kernel; countModules: Kernel }

async function benchBackend(backend: BackendName, n: number, ctx: BenchContext): Promise<BenchRecord[]> {
  const device = await createDevice(backend === 'webgpu'
    ? { backend: 'webgpu', memoryBytes: 1 << 30, webgpu: { gpuTiming: true } }
    : { backend: 'wasm', memoryBytes: 512 << 20, workers: ctx.workers });
  const out: BenchRecord[] = [];
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
    for (const [suffix, k] of forms) out.push(...await kernelRecords(device, backend, where, n, k, suffix, ctx));
    if (backend === 'webgpu') {
      // What a launch costs with the device's defaults: the timestamp queries of the device
      // above (a query set resolved and mapped per launch) are not what users pay.
      const plain = await createDevice({ backend: 'webgpu' });
      try { out.push(await launchOverhead(plain, backend, where, ctx)); } finally { await plain.destroy(); }
    } else {
      out.push(await launchOverhead(device, backend, where, ctx));
    }
  } finally {
    await device.destroy();
  }
  return out;
}

/**
 * vecMax and countModules of one form (records `vecMax${suffix}`, `countModules${suffix}`), same
 * data and shapes for both forms: vecMax on wasm with the library's grid-stride shape, on webgpu
 * over several grids (few large workgroups suit SwiftShader, a real GPU wants thousands of blocks
 * in flight); countModules on wasm with its grid-stride shape, on webgpu one thread per digi.
 */
async function kernelRecords(device: GpuDevice, backend: BackendName, where: string, n: number, k: KernelPair, suffix: string, ctx: BenchContext): Promise<BenchRecord[]> {
  const out: BenchRecord[] = [];
  const A = await device.upload('f32', randomF32(n, 1));
  const software = (device as { adapterInfo?: { isFallbackAdapter?: boolean } }).adapterInfo?.isFallbackAdapter === true;
  const grids = software ? [64, 1024, 4096] : [1024, 4096, 16384, 65536];
  const shapes = backend === 'webgpu' ? grids.map((grid) => ({ grid, block: 256 })) : [gridStrideShape(device, n)];
  for (const s of shapes) {
    const B = device.alloc('f32', s.grid);
    const t = await timeLaunches(`vecMax${suffix} grid ${s.grid}`, device, () => device.launch(k.vecMax, { grid: s.grid, block: s.block, sharedBytes: 4 * s.block }, [A, B, n] as never), ctx.quick);
    out.push(record(`vecMax${suffix}`, `simt-${backend}`, n, t.ms, {
      bytes: 4 * n, times: t.samples, workers: device.workers, device: where, grid: s.grid, block: s.block,
      ...(t.gpuMs !== undefined ? { gpuMs: t.gpuMs, gpuGbps: (4 * n) / t.gpuMs / 1e6 } : {}),
    }));
    B.free();
  }
  A.free();
  const id = await device.upload('u16', moduleIdsForBench(n, 1800, 0.05, 2));
  const ms = device.alloc('u32', PHASE1_NUMBER_OF_MODULES + 2);
  const cl = device.alloc('i32', n);
  const c = backend === 'webgpu' ? { grid: Math.ceil(n / 256), block: 256 } : gridStrideShape(device, n);
  const t = await timeLaunches(`countModules${suffix}`, device, async () => {
    await ms.fill(0);
    return device.launch(k.countModules, { grid: c.grid, block: c.block }, [id, ms, cl, n, PHASE1_NUMBER_OF_MODULES] as never);
  }, ctx.quick);
  out.push(record(`countModules${suffix}`, `simt-${backend}`, n, t.ms, {
    bytes: 6 * n, times: t.samples, workers: device.workers, device: where, grid: c.grid, block: c.block, modules: (await ms.read(0, 1))[0],
    ...(t.gpuMs !== undefined ? { gpuMs: t.gpuMs, gpuGbps: (6 * n) / t.gpuMs / 1e6 } : {}),
  }));
  for (const a of [id, ms, cl]) a.free();
  return out;
}

/** Awaited launches of a small compiled kernel, one after another: what each launch costs the host (a device with default options). */
async function launchOverhead(device: GpuDevice, backend: BackendName, where: string, ctx: BenchContext): Promise<BenchRecord> {
  const mod = await compileKernelFiles(['kernels/reduce/vecMax.ts']);
  await device.load(mod);
  const n = 1024;
  const A = await device.upload('f32', randomF32(n, 3));
  const B = device.alloc('f32', 4);
  const kernel = mod.kernels.vecMax!;
  const { median: ms, samples } = await measure(`launch/compiled ${backend}`, () => device.launch(kernel, { grid: 4, block: 256, sharedBytes: 4 * 256 }, [A, B, n] as never),
    { iterations: ctx.quick ? 50 : 200, time: ctx.quick ? 300 : 2000, warmup: 5 });
  A.free(); B.free();
  return record('launch/compiled', `simt-${backend}`, 1, ms, {
    times: samples, workers: device.workers, device: where, grid: 4, block: 256, n, launchesPerSec: 1000 / ms, usPerLaunch: ms * 1000,
  });
}

export const suite: BenchSuite = {
  name: 'webgpu',
  description: 'WebGPU vs wasm per kernel: vecMax 16M f32, countModules 16M digis (wall and GPU time); launches per second of a compiled kernel',
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
