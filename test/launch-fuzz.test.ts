// Random launch configurations and arguments, valid and invalid: every invalid one must be a
// typed SimtError, every valid one must run and produce the right indices, nothing may hang.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SimtError } from '../src/errors.js';
import { kernels } from '../src/index.js';
import { LIMITS } from '../src/dims.js';
import { testDevice } from './helpers.js';

describe('launch fuzzing', async () => {
  const dev = await testDevice({ memoryBytes: 64 << 20, workers: 2, sharedMemoryLimit: 8192 });
  const otherDev = await testDevice({ memoryBytes: 8 << 20, workers: 1 });
  const MAX_OUT = 1 << 18;
  const out = dev.alloc('i32', MAX_OUT * 6);
  const wrongType = dev.alloc('f32', 8);
  const foreign = otherDev.alloc('i32', 8);
  const freed = dev.alloc('i32', 8);
  freed.free();

  const dimValue = fc.oneof(
    { weight: 14, arbitrary: fc.integer({ min: 1, max: 8 }) },
    { weight: 1, arbitrary: fc.integer({ min: -3, max: 0 }) },
    { weight: 1, arbitrary: fc.constantFrom(1024, 1025, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 1.5, NaN) },
  );
  const dim = fc.oneof(dimValue, fc.record({ x: dimValue, y: fc.option(dimValue, { nil: undefined }), z: fc.option(dimValue, { nil: undefined }) }),
    fc.constantFrom(undefined, null, '4', {} as never));
  const arg = fc.oneof({ weight: 6, arbitrary: fc.constant('out') }, fc.constantFrom('wrongType', 'foreign', 'freed', 'number', 'missing', 'typed'));
  const shared = fc.oneof(fc.constant(undefined), fc.integer({ min: -1, max: 9000 }));

  it('every invalid launch is a typed error and every valid one is correct', async () => {
    let valid = 0, invalid = 0;
    await fc.assert(fc.asyncProperty(dim, dim, shared, arg, async (grid, block, sharedBytes, chosen) => {
      // A launch valid for CUDA but larger than the out buffer would write past it: give it a
      // bad argument instead, so it must fail validation before anything runs.
      const which = chosen === 'out' && !fitsOut(grid, block) ? 'missing' : chosen;
      const a = { out, wrongType, foreign, freed, number: 7, missing: undefined, typed: new Int32Array(4) }[which];
      const args = which === 'missing' ? [] : [a];
      let ok: boolean;
      try {
        const s = await dev.launch(kernels.writeIndices, { grid: grid as never, block: block as never, sharedBytes, timeoutMs: 20_000 }, args as never);
        ok = true;
        // Valid: the model of validity must agree, and the indices must be right.
        expect(s.blocks * s.threadsPerBlock).toBeLessThanOrEqual(MAX_OUT * 1000);
        if (s.blocks * s.threadsPerBlock <= MAX_OUT) {
          const v = await out.read(0, s.blocks * s.threadsPerBlock * 6);
          const last = s.blocks * s.threadsPerBlock - 1;
          expect(v[last * 6 + 3]).toBe((s.threadsPerBlock - 1) % s.block.x);
        }
        valid++;
      } catch (e) {
        ok = false;
        if (!(e instanceof SimtError)) throw e;
        invalid++;
      }
      expect(ok).toBe(expectValid(grid, block, sharedBytes, which));
    }), { numRuns: 400 });
    expect(valid).toBeGreaterThan(20);
    expect(invalid).toBeGreaterThan(20);
  });

  function fitsOut(grid: unknown, block: unknown): boolean {
    const n = (d: unknown) => (typeof d === 'number' ? [d, 1, 1] : d && typeof d === 'object' && 'x' in (d as object)
      ? [(d as { x: number }).x, (d as { y?: number }).y ?? 1, (d as { z?: number }).z ?? 1] : [1, 1, 1]);
    const t = [...n(grid), ...n(block)].reduce((p, v) => p * (Number.isFinite(v) ? Math.max(1, Math.abs(v)) : 1), 1);
    return t <= MAX_OUT;
  }

  /** An independent statement of CUDA's launch rules (and the out buffer's size). */
  function expectValid(grid: unknown, block: unknown, sharedBytes: unknown, which: string): boolean {
    const norm = (d: unknown): [number, number, number] | undefined => {
      if (typeof d === 'number') return [d, 1, 1];
      if (d && typeof d === 'object' && 'x' in (d as object)) {
        const o = d as { x: number; y?: number; z?: number };
        return [o.x, o.y ?? 1, o.z ?? 1];
      }
      return undefined;
    };
    const g = norm(grid), b = norm(block);
    if (!g || !b) return false;
    if (![...g, ...b].every((v) => Number.isInteger(v) && v >= 1)) return false;
    if (g[0] > LIMITS.maxGridDim.x || g[1] > 65535 || g[2] > 65535) return false;
    if (b[0] > 1024 || b[1] > 1024 || b[2] > 64 || b[0] * b[1] * b[2] > 1024) return false;
    if (sharedBytes !== undefined && (!Number.isInteger(sharedBytes) || (sharedBytes as number) < 0 || (sharedBytes as number) > 8192)) return false;
    if (which !== 'out') return false;
    // Launches that would write past the out buffer are excluded from "valid" by construction:
    const threads = g[0] * g[1] * g[2] * b[0] * b[1] * b[2];
    return threads <= MAX_OUT;
  }
}, 120_000);
