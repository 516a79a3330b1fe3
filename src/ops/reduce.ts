// Host helpers for the seed-002 reductions: launch the block kernel, then fold the per-block
// partials on the host (a handful of values).
import type { GpuDevice } from '../deviceApi.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import { vecMax, vecMin, vecSum } from '../kernels/index.js';
import type { LaunchStats } from '../deviceApi.js';
import { gridStrideShape, type Shape } from './launchShape.js';

export interface ReduceResult { value: number; partials: Float32Array | Float64Array; stats: LaunchStats }

async function asDeviceArray(device: GpuDevice, data: Float32Array | DeviceArray<'f32'>): Promise<[DeviceArray<'f32'>, boolean]> {
  if (data instanceof Float32Array) return [await device.upload('f32', data), true];
  return [data, false];
}

async function extremum(which: 'max' | 'min', device: GpuDevice, data: Float32Array | DeviceArray<'f32'>, shape?: Partial<Shape>): Promise<ReduceResult> {
  const [A, owned] = await asDeviceArray(device, data);
  const n = A.length;
  const s = { ...gridStrideShape(device, n), ...shape };
  const B = device.alloc('f32', s.grid);
  try {
    const stats = await device.launch(which === 'max' ? vecMax : vecMin, { grid: s.grid, block: s.block, sharedBytes: 4 * s.block }, [A, B, n]);
    const partials = await B.read();
    // Fold as the kernel does: NaN partials (blocks with only NaN) never win.
    let v = which === 'max' ? -Infinity : Infinity;
    for (const p of partials) if (which === 'max' ? p > v : p < v) v = p;
    return { value: v, partials, stats };
  } finally {
    B.free();
    if (owned) A.free();
  }
}

/** max(A) by seed 002's VecMax; -Infinity for an empty or all-NaN input. */
export function deviceMax(device: GpuDevice, data: Float32Array | DeviceArray<'f32'>, shape?: Partial<Shape>): Promise<ReduceResult> {
  return extremum('max', device, data, shape);
}

/** min(A); +Infinity for an empty or all-NaN input. */
export function deviceMin(device: GpuDevice, data: Float32Array | DeviceArray<'f32'>, shape?: Partial<Shape>): Promise<ReduceResult> {
  return extremum('min', device, data, shape);
}

/**
 * Σ A in f64 (partials per block in f64, folded on the host in f64). Bound:
 * |result − exact| ≤ (N + grid)·2⁻⁵³·Σ|Aᵢ|. On WebGPU (no f64) the kernel accumulates in f32
 * with Kahan compensation; see docs/webgpu.md for that bound.
 */
export async function deviceSum(device: GpuDevice, data: Float32Array | DeviceArray<'f32'>, shape?: Partial<Shape>): Promise<ReduceResult> {
  const [A, owned] = await asDeviceArray(device, data);
  const n = A.length;
  const s = { ...gridStrideShape(device, n), ...shape };
  const B = device.alloc('f64', s.grid);
  try {
    const stats = await device.launch(vecSum, { grid: s.grid, block: s.block, sharedBytes: 8 * s.block }, [A, B, n]);
    const partials = await B.read();
    let v = 0;
    for (const p of partials) v += p;
    return { value: v, partials, stats };
  } finally {
    B.free();
    if (owned) A.free();
  }
}
