// Default launch shapes for the shipped ops.
//
// On the wasm backends a block is run by one worker from start to end, so a grid-stride loop
// makes each worker hop through memory in blockDim-sized pieces (measured: half the
// bandwidth of a contiguous stream on the test machine). One grid-stride step per block —
// grid = ceil(n / block), the classic one-element-per-thread shape — lets a worker claim a
// chunk of consecutive blocks and stream through contiguous memory; per-block overhead is
// ~15 ns (bench/RESULTS.md). On WebGPU a bounded grid with a grid-stride loop is the usual choice.
import type { GpuDevice } from '../deviceApi.js';

export interface Shape { grid: number; block: number }

const MAX_GRID_X = 2 ** 31 - 1;

/** A launch shape for n elements with `preferredBlock` threads per block. */
export function gridStrideShape(device: GpuDevice, n: number, preferredBlock = 1024): Shape {
  const block = Math.min(preferredBlock, device.maxThreadsPerBlock);
  if (device.backend === 'webgpu') return { block, grid: Math.max(1, Math.min(4096, Math.ceil(n / block))) };
  return { block, grid: Math.max(1, Math.min(MAX_GRID_X, Math.ceil(n / block))) };
}
