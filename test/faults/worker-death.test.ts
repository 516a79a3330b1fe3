// A pool worker that dies (its thread ends: a crash, an out-of-memory kill, a stray
// terminate) is noticed within the launch it hits: that launch rejects with WorkerLostError
// instead of waiting for its timeout, the pool starts fresh workers, and launches after it
// run on every worker the stats claim. When no worker can be started again the device fails
// with DeviceLostError instead of timing out launch after launch.
import { describe, expect, it } from 'vitest';
import { createDevice, type Device } from '../../src/device.js';
import { DeviceLostError, KernelTimeoutError, WorkerLostError } from '../../src/errors.js';
import { configureAssets, kernels } from '../../src/index.js';

interface Handle { terminate(): Promise<void> }
/** Ends worker k's thread behind the pool's back, as a crash would. */
async function killWorker(dev: Device, k: number): Promise<void> {
  const pool = (dev as unknown as { pool: { handles: Handle[] } }).pool;
  await pool.handles[k]!.terminate();
}
const handles = (dev: Device): Handle[] => [...(dev as unknown as { pool: { handles: Handle[] } }).pool.handles];

async function healthy(dev: Device, workers: number): Promise<void> {
  const out = dev.alloc('i32', 64 * 6);
  const s = await dev.launch(kernels.writeIndices, { grid: 4, block: 16, timeoutMs: 10_000 }, [out]);
  expect(s.workers).toBe(workers);
  const v = await out.read();
  expect(v[6 * 63 + 0]).toBe(3);
  expect(v[6 * 63 + 3]).toBe(15);
  out.free();
}

describe('worker death', () => {
  it('between launches: the next launch restarts the dead worker and runs on all of them', async () => {
    const dev = await createDevice({ memoryBytes: 16 << 20, workers: 2 });
    try {
      await healthy(dev, 2);
      const killed = handles(dev)[1];
      await killWorker(dev, 1);
      await new Promise((r) => setTimeout(r, 20));
      await healthy(dev, 2);
      // The stats' 2 workers are 2 live ones: the dead one was replaced.
      expect(handles(dev)).toHaveLength(2);
      expect(handles(dev)).not.toContain(killed);
      // A long grid needs both workers' share to finish: a silent loss would time out.
      const out = dev.alloc('i32', 1);
      await dev.launch(kernels.spin, { grid: 2000, block: 1, timeoutMs: 20_000 }, [10_000, out]);
    } finally {
      await dev.destroy();
    }
  });

  it('during a launch: it rejects with WorkerLostError at once, not at its timeout; the device works after', async () => {
    const dev = await createDevice({ memoryBytes: 16 << 20, workers: 2 });
    try {
      const out = dev.alloc('i32', 1);
      const t0 = performance.now();
      const p = dev.launch(kernels.spin, { grid: 2, block: 1, timeoutMs: 60_000 }, [-1, out]).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 150));
      await killWorker(dev, 0);
      const err = await p;
      expect(err).toBeInstanceOf(WorkerLostError);
      expect((err as Error).message).toMatch(/kernel spin: worker 0 of 2 exited during the launch/);
      expect(performance.now() - t0).toBeLessThan(10_000);
      await healthy(dev, 2);
    } finally {
      await dev.destroy();
    }
  });

  it('all workers dead: launches run again (not time out forever)', async () => {
    const dev = await createDevice({ memoryBytes: 16 << 20, workers: 2 });
    try {
      await killWorker(dev, 0);
      await killWorker(dev, 1);
      await new Promise((r) => setTimeout(r, 20));
      const out = dev.alloc('i32', 1);
      const r = await dev.launch(kernels.spin, { grid: 4, block: 1, timeoutMs: 5_000 }, [1000, out]).catch((e: unknown) => e);
      expect(r).not.toBeInstanceOf(KernelTimeoutError);
      await healthy(dev, 2);
    } finally {
      await dev.destroy();
    }
  });

  it('a serial device (one worker) recovers too', async () => {
    const dev = await createDevice({ backend: 'serial', memoryBytes: 16 << 20, seed: 3 });
    try {
      await killWorker(dev, 0);
      await new Promise((r) => setTimeout(r, 20));
      await healthy(dev, 1);
    } finally {
      await dev.destroy();
    }
  });

  it('no worker can start again: the device fails with DeviceLostError, launch after launch', async () => {
    const dev = await createDevice({ memoryBytes: 16 << 20, workers: 2 });
    try {
      configureAssets({ workerUrl: new URL('./no-such-worker.js', import.meta.url) });
      await killWorker(dev, 1);
      await new Promise((r) => setTimeout(r, 20));
      const out = dev.alloc('i32', 6);
      const t0 = performance.now();
      const e1 = await dev.launch(kernels.writeIndices, { grid: 1, block: 1 }, [out]).catch((e: unknown) => e);
      expect(e1).toBeInstanceOf(DeviceLostError);
      expect((e1 as Error).message).toMatch(/worker 1 of 2 exited/);
      const e2 = await dev.launch(kernels.writeIndices, { grid: 1, block: 1 }, [out]).catch((e: unknown) => e);
      expect(e2).toBeInstanceOf(DeviceLostError);
      expect(performance.now() - t0).toBeLessThan(10_000);
      // Host memory stays readable: what the device holds can be saved.
      expect((await out.read()).length).toBe(6);
    } finally {
      configureAssets({});
      await dev.destroy();
    }
  });
});
