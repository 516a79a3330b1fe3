import type { Command } from '../command.js';
import { createDevice, DEFAULT_MEMORY_BYTES, DEFAULT_SHARED_LIMIT } from '../../device.js';
import { defaultWorkerCount } from '../../platform.js';
import { loadKernelsModule } from '../../module.js';

export const info: Command = {
  name: 'info',
  summary: 'backends available, workers, memory, WebGPU adapter',
  usage: 'simt info [--json]',
  options: [{ name: 'json', description: 'one JSON document: { backends, workers, defaultMemoryBytes, wasmPool, webgpu?, … }' }],
  examples: ['simt info --json'],
  async run(args, io) {
    const workers = await defaultWorkerCount();
    const mod = await loadKernelsModule();
    const report: Record<string, unknown> = {
      backends: { wasm: true, serial: true, webgpu: false as boolean | string },
      workers,
      defaultMemoryBytes: DEFAULT_MEMORY_BYTES,
      sharedMemoryLimit: DEFAULT_SHARED_LIMIT,
      kernels: mod.kernelNames,
      node: typeof process !== 'undefined' ? process.version : undefined,
    };
    // The wasm pool must really start: create a small device and run one launch.
    const dev = await createDevice({ memoryBytes: 16 << 20 });
    report.wasmPool = { workers: dev.workers, memoryBytes: dev.memoryBytes, heapBytes: dev.memoryInfo().heapBytes };
    await dev.destroy();
    try {
      const { openWebGpu } = await import('../../webgpu/gpu.js');
      const gpu = await openWebGpu();
      report.backends = { ...(report.backends as object), webgpu: true };
      report.webgpu = gpu.adapterInfo;
      await gpu.destroy();
    } catch (e) {
      report.backends = { ...(report.backends as object), webgpu: `unavailable: ${(e as Error).message}` };
    }
    if (args.options.json) { io.out(JSON.stringify(report)); return 0; }
    io.out(`simt ${report.node ? `on Node ${String(report.node)}` : ''}`);
    io.out(`  wasm backend:   ${workers} workers (available parallelism), default memory ${DEFAULT_MEMORY_BYTES / 2 ** 20} MiB, shared memory limit ${DEFAULT_SHARED_LIMIT / 1024} KiB per block`);
    io.out(`  serial backend: 1 worker, seeded schedules`);
    const wg = (report.backends as { webgpu: boolean | string }).webgpu;
    io.out(`  webgpu backend: ${wg === true ? JSON.stringify(report.webgpu) : String(wg)}`);
    io.out(`  kernels: ${mod.kernelNames.join(', ')}`);
    return 0;
  },
};
