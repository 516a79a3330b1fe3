// Launches and transfers issued without awaiting run in issue order, like a CUDA stream.
import { describe, expect, it } from 'vitest';
import { kernels } from '../src/index.js';
import { testDevice } from './helpers.js';

describe('stream order', async () => {
  const dev = await testDevice({ memoryBytes: 16 << 20, workers: 2 });

  it('queued launches all run, in order, and a read issued after them sees their effect', async () => {
    const n = 1000;
    const target = await dev.upload('u8', new Uint8Array(4));
    const ones = await dev.upload('u8', new Uint8Array(Int32Array.from({ length: n }, () => 1).buffer));
    const olds = dev.alloc('u8', 4 * n);
    const pending = [];
    for (let k = 0; k < 50; k++) pending.push(dev.launch(kernels.atomicProbe, { grid: 4, block: 256 }, [0, target, ones, ones, olds, n]));
    const read = target.read(); // issued before any launch finished
    const stats = await Promise.all(pending);
    expect(stats).toHaveLength(50);
    expect(new Int32Array((await read).buffer)[0]).toBe(50 * n);
  });

  it('an upload issued after a launch waits for it; a failed launch does not block the stream', async () => {
    const counter = dev.alloc('i32', 1);
    await counter.fill(0);
    const bad = dev.launch(kernels.trapInBlock, { grid: 8, block: 1 }, [counter, 3]);
    const after = dev.launch(kernels.trapInBlock, { grid: 8, block: 1 }, [counter, -1]);
    const reset = counter.fill(100);
    await expect(bad).rejects.toThrow(/trapped in block \(3, 0, 0\)/);
    await after;
    await reset;
    expect((await counter.read())[0]).toBe(100);
  });
});
