// A launch rejected before it runs (bad argument, bad configuration) must not consume a launch
// seed of a seeded device: "same seed, same bytes" holds for the launches after it.
import { describe, expect, it } from 'vitest';
import { createDevice, type Device } from '../../src/device.js';
import { KernelArgumentError, LaunchConfigError } from '../../src/errors.js';
import { kernels } from '../../src/index.js';

const n = 512;

/** Two orderProbe launches: the order the threads ran in, under the device's launch seeds. */
async function probe(dev: Device, before?: (log: import('../../src/index.js').DeviceArray<'u32'>) => Promise<unknown>): Promise<{ bytes: Uint32Array[]; seeds: (number | null)[] }> {
  const log = dev.alloc('u32', n + 1);
  const bytes: Uint32Array[] = [];
  const seeds: (number | null)[] = [];
  for (let k = 0; k < 2; k++) {
    await log.fill(0);
    if (k === 0 && before) await before(log);
    const s = await dev.launch(kernels.orderProbe, { grid: 8, block: 64 }, [log, n]);
    seeds.push(s.seed);
    bytes.push(await log.read());
  }
  log.free();
  return { bytes, seeds };
}

describe('a rejected launch consumes no seed', () => {
  it('bad arguments and bad configurations leave the seed sequence as it was', async () => {
    const a = await createDevice({ backend: 'serial', memoryBytes: 16 << 20, seed: 42 });
    const b = await createDevice({ backend: 'serial', memoryBytes: 16 << 20, seed: 42 });
    try {
      const clean = await probe(a);
      const f32 = b.alloc('f32', n + 1);
      const afterRejections = await probe(b, async (log) => {
        await expect(b.launch(kernels.orderProbe, { grid: 8, block: 64 }, [f32, n])).rejects.toBeInstanceOf(KernelArgumentError);
        await expect(b.launch(kernels.orderProbe, { grid: 8, block: 64 }, [log])).rejects.toBeInstanceOf(KernelArgumentError);
        await expect(b.launch(kernels.orderProbe, { grid: 0, block: 64 }, [log, n])).rejects.toBeInstanceOf(LaunchConfigError);
        await expect(b.launch(kernels.orderProbe, { grid: 8, block: 64, seed: -1 }, [log, n])).rejects.toBeInstanceOf(LaunchConfigError);
        await expect(b.launch(kernels.orderProbe, { grid: 8, block: 64, timeoutMs: -1 }, [log, n])).rejects.toBeInstanceOf(LaunchConfigError);
      });
      expect(afterRejections.seeds).toEqual(clean.seeds);
      expect(afterRejections.bytes.map((x) => Buffer.from(x.buffer))).toEqual(clean.bytes.map((x) => Buffer.from(x.buffer)));
      // The schedules differ from launch to launch (so equal bytes above mean equal seeds).
      expect(Buffer.from(clean.bytes[0]!.buffer)).not.toEqual(Buffer.from(clean.bytes[1]!.buffer));
    } finally {
      await a.destroy();
      await b.destroy();
    }
  });
});
