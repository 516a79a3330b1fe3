// Launch dimensions and CUDA's limits on them.
import { LaunchConfigError } from './errors.js';

export interface Dim3 { x: number; y: number; z: number }
export type DimLike = number | { x: number; y?: number; z?: number };

/** CUDA's limits (compute capability ≥ 3.0), which simt enforces. */
export const LIMITS = {
  maxThreadsPerBlock: 1024,
  maxBlockDim: { x: 1024, y: 1024, z: 64 },
  maxGridDim: { x: 2 ** 31 - 1, y: 65535, z: 65535 },
  warpSize: 32,
} as const;

function component(what: string, axis: string, v: unknown, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new LaunchConfigError(`${what}.${axis} must be an integer, got ${String(v)}`);
  }
  if (v < 1) throw new LaunchConfigError(`${what}.${axis} must be at least 1, got ${v}`);
  if (v > max) throw new LaunchConfigError(`${what}.${axis} = ${v} exceeds CUDA's limit of ${max}`);
  return v;
}

export function toDim3(what: 'grid' | 'block', d: DimLike | undefined): Dim3 {
  if (d === undefined || d === null) throw new LaunchConfigError(`${what} is required`);
  const max = what === 'grid' ? LIMITS.maxGridDim : LIMITS.maxBlockDim;
  if (typeof d === 'number') return { x: component(what, 'x', d, max.x), y: 1, z: 1 };
  if (typeof d !== 'object') throw new LaunchConfigError(`${what} must be a number or {x, y, z}, got ${typeof d}`);
  const dim = {
    x: component(what, 'x', d.x, max.x),
    y: component(what, 'y', d.y ?? 1, max.y),
    z: component(what, 'z', d.z ?? 1, max.z),
  };
  if (what === 'block' && dim.x * dim.y * dim.z > LIMITS.maxThreadsPerBlock) {
    throw new LaunchConfigError(
      `block has ${dim.x * dim.y * dim.z} threads (${dim.x}×${dim.y}×${dim.z}); CUDA allows at most ${LIMITS.maxThreadsPerBlock}`);
  }
  return dim;
}
