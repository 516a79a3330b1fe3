// Cross-check jobs for seed 002's reductions: vecMax, vecMin (exact) and vecSum (within the
// bound both backends' roundings allow).
import type { GpuDevice } from '../../deviceApi.js';
import { randomF32 } from '../../data/synthetic.js';
import { Xoshiro128ss } from '../../data/random.js';
import { deviceMax, deviceMin, deviceSum } from '../../ops/reduce.js';
import type { Comparison, Job } from '../types.js';

export interface ReductionInputs { A: Float32Array }

/** The launch shape every backend uses (same blocks ⇒ comparable per-block partials). */
export function reductionShape(n: number): { grid: number; block: number } {
  return { block: 256, grid: Math.max(1, Math.min(1024, Math.ceil(n / 256))) };
}

/** Uniform values in [-1000, 1000), plus (for n ≥ 16) a few NaNs, ±0, ±∞-free extremes and exact ties. */
export function reductionInputs(n: number, seed: number): ReductionInputs {
  const A = randomF32(n, seed);
  if (n >= 16) {
    const rng = new Xoshiro128ss(BigInt(seed) ^ 0x5eed5eedn);
    const at = (): number => rng.uniformInt(n);
    for (let k = 0; k < 3; k++) A[at()] = NaN;
    A[at()] = -0;
    A[at()] = 0;
    A[at()] = 3.4e38;
    A[at()] = -3.4e38;
    const tie = A[at()]!;
    A[at()] = tie;
  }
  return { A };
}

const EDGE_SIZES = [0, 1, 2, 3, 4, 5, 255, 256, 257, 1023, 1024, 1025, 65537, 256 * 1024 + 1] as const;

function extremumJob(which: 'vecMax' | 'vecMin'): Job<ReductionInputs> {
  const op = which === 'vecMax' ? deviceMax : deviceMin;
  return {
    name: which,
    description: `seed 002 ${which === 'vecMax' ? 'max' : 'min'}-reduction of f32: per-block partials (block 256, ≤1024 blocks) and the folded value, exact`,
    defaultSize: 1 << 20,
    edgeSizes: EDGE_SIZES,
    generate: reductionInputs,
    async run(device: GpuDevice, { A }) {
      const r = await op(device, A, reductionShape(A.length));
      return { value: r.value, partials: r.partials };
    },
    compare: () => ({ value: { kind: 'exact' }, partials: { kind: 'exact' } }),
  };
}

export const vecMaxJob = extremumJob('vecMax');
export const vecMinJob = extremumJob('vecMin');

const U32 = 2 ** -24; // f32 unit roundoff
const U64 = 2 ** -53;

/**
 * Per-block bound on |wasm − webgpu| for vecSum's partial of block b: the wasm kernel sums in f64
 * (≤ (m + L + 2)·2⁻⁵³·S_b), the WGSL kernel in f32 with Kahan (≤ ((L + 4)·2⁻²⁴ + 2m·2⁻⁴⁸)·S_b,
 * vecSum.wgsl), where S_b = Σ|A[i]| over block b's elements, L = log2(block), m = the most
 * elements one thread summed. NaN/∞ inputs are not allowed in this job (the bound needs finite sums).
 */
export function vecSumBounds(A: Float32Array): { partial: Float64Array; total: number } {
  const { grid, block } = reductionShape(A.length);
  const span = grid * block;
  const S = new Float64Array(grid);
  let all = 0;
  for (let i = 0; i < A.length; i++) {
    const v = Math.abs(A[i]!);
    S[Math.floor((i % span) / block)] += v;
    all += v;
  }
  const L = Math.log2(block);
  const m = Math.ceil(A.length / span);
  const factor = (m + L + 2) * U64 + (L + 4) * U32 + 2 * m * U32 * U32;
  const partial = S.map((s) => factor * s);
  let total = 2 * (grid + 1) * U64 * all;
  for (const p of partial) total += p;
  return { partial, total };
}

export const vecSumJob: Job<ReductionInputs> = {
  name: 'vecSum',
  description: 'sum of f32 with f64 partials (wasm: f64 accumulation; webgpu: f32 Kahan, f64 storage), within the stated bound',
  defaultSize: 1 << 20,
  edgeSizes: EDGE_SIZES,
  generate: (n, seed) => ({ A: randomF32(n, seed) }),
  async run(device, { A }) {
    const r = await deviceSum(device, A, reductionShape(A.length));
    return { value: r.value, partials: r.partials };
  },
  compare({ A }): Record<string, Comparison> {
    const b = vecSumBounds(A);
    return {
      value: { kind: 'withinBound', bound: () => b.total, why: 'Σ of the per-block bounds + 2 host folds in f64' },
      partials: { kind: 'withinBound', bound: (i) => b.partial[i] ?? 0, why: '((m+L+2)·2⁻⁵³ + (L+4)·2⁻²⁴ + 2m·2⁻⁴⁸)·Σ|A| of the block' },
    };
  },
};
