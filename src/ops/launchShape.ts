// Default launch shapes for the shipped ops. A grid-stride kernel needs enough blocks to keep
// every worker (or every GPU core) busy, and on the CPU not so many that per-block overhead
// shows; these defaults were chosen by the benchmarks in bench/.
import type { GpuDevice } from '../deviceApi.js';

export interface Shape { grid: number; block: number }

/** A grid-stride shape for n elements: `block` threads, at most `maxBlocks` blocks. */
export function gridStrideShape(device: GpuDevice, n: number, preferredBlock = 256, blocksPerWorker = 64): Shape {
  const block = Math.min(preferredBlock, device.maxThreadsPerBlock);
  const maxBlocks = device.backend === 'webgpu' ? 4096 : Math.max(1, device.workers) * blocksPerWorker;
  return { block, grid: Math.max(1, Math.min(maxBlocks, Math.ceil(n / block))) };
}
