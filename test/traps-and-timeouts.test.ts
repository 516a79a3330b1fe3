import { describe, expect, it } from 'vitest';
import { KernelError, KernelTimeoutError, LaunchAbortedError } from '../src/errors.js';
import { kernels } from '../src/index.js';
import { testDevice } from './helpers.js';

for (const backend of ['wasm', 'serial'] as const) {
  describe(`${backend}: traps reject the launch and the device stays usable`, async () => {
    const dev = await testDevice({ memoryBytes: 16 << 20, backend, workers: 2 });
    const counter = dev.alloc('i32', 1);

    async function healthy() {
      const out = dev.alloc('i32', 64 * 6);
      const s = await dev.launch(kernels.writeIndices, { grid: 4, block: 16 }, [out]);
      expect(s.blocks).toBe(4);
      const v = await out.read();
      expect(v[6 * 63 + 0]).toBe(3); // last thread: blockIdx.x 3
      expect(v[6 * 63 + 3]).toBe(15); // threadIdx.x 15
      out.free();
    }

    it('unreachable names the kernel, the block and the trap', async () => {
      await counter.fill(0);
      const err = await dev.launch(kernels.trapInBlock, { grid: 500, block: 32 }, [counter, 321]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KernelError);
      const k = err as KernelError;
      expect(k.kernel).toBe('trapInBlock');
      expect(k.blockIdx).toEqual({ x: 321, y: 0, z: 0 });
      expect(k.trap).toMatch(/unreachable/);
      expect(k.message).toMatch(/kernel trapInBlock trapped in block \(321, 0, 0\): RuntimeError: unreachable/);
      // The launch stopped: no more blocks than exist ran, and later blocks may have been skipped.
      expect((await counter.read())[0]).toBeLessThanOrEqual(499);
      await healthy();
    });

    it('an out-of-bounds access traps with its block index', async () => {
      const out = dev.alloc('i32', 1);
      const err = await dev.launch(kernels.readAddress, { grid: 1, block: 1 }, [2 ** 32 - 4, out]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KernelError);
      expect((err as KernelError).trap).toMatch(/out of bounds/);
      out.free();
      await healthy();
    });

    it('integer division by zero traps in the right block', async () => {
      const n = 1000;
      const a = await dev.upload('i32', Int32Array.from({ length: n }, (_, i) => i));
      const b = await dev.upload('i32', Int32Array.from({ length: n }, (_, i) => (i === 777 ? 0 : 1)));
      const o = dev.alloc('i32', n);
      const err = await dev.launch(kernels.divide, { grid: Math.ceil(n / 64), block: 64 }, [a, b, o, n]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KernelError);
      expect((err as KernelError).blockIdx.x).toBe(Math.floor(777 / 64));
      expect((err as KernelError).trap).toMatch(/divide by zero/);
      await b.fill(1);
      await dev.launch(kernels.divide, { grid: Math.ceil(n / 64), block: 64 }, [a, b, o, n]);
      expect(Array.from(await o.read())).toEqual(Array.from({ length: n }, (_, i) => i));
      a.free(); b.free(); o.free();
    });

    it('a kernel that never returns is killed at its timeout; the pool restarts and works', async () => {
      const out = dev.alloc('i32', 1);
      const t0 = performance.now();
      const err = await dev.launch(kernels.spin, { grid: 4, block: 1, timeoutMs: 300 }, [-1, out]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KernelTimeoutError);
      expect((err as Error).message).toMatch(/did not finish within 300 ms/);
      expect(performance.now() - t0).toBeLessThan(10_000);
      out.free();
      await healthy();
    });

    it('an AbortSignal cancels a running launch', async () => {
      const out = dev.alloc('i32', 1);
      const ac = new AbortController();
      setTimeout(() => ac.abort('user pressed stop'), 100);
      const err = await dev.launch(kernels.spin, { grid: 2, block: 1, signal: ac.signal }, [-1, out]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LaunchAbortedError);
      expect((err as Error).message).toMatch(/user pressed stop/);
      out.free();
      await healthy();
    });

    it('a timeout between blocks stops claiming without killing the workers', async () => {
      const out = dev.alloc('i32', 1);
      // Many blocks of a finite spin: the launch is stopped between blocks.
      const err = await dev.launch(kernels.spin, { grid: 100_000, block: 1, timeoutMs: 100 }, [200_000, out]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KernelTimeoutError);
      out.free();
      await healthy();
    });
  });
}
