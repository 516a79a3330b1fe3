// Shared test plumbing: devices are created once per file (starting workers costs ~50 ms).
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createDevice, type Device, type DeviceOptions } from '../src/device.js';
import { Xoshiro128ss } from '../src/data/random.js';

export async function testDevice(options: DeviceOptions = {}): Promise<Device> {
  const dev = await createDevice({ memoryBytes: 128 << 20, ...options });
  afterAll(async () => { await dev.destroy(); });
  return dev;
}

/**
 * Test data: a function returning successive `uniform()` draws (floats in [0, 1)) of simt's one
 * seeded generator, `Xoshiro128ss(seed >>> 0)` (src/data/random.ts).
 */
export function rng(seed: number): () => number {
  const g = new Xoshiro128ss(seed >>> 0);
  return () => g.uniform();
}

/**
 * The set-up the WebGPU test files share: `setup` creates their wasm and webgpu devices before
 * the file's tests; if it throws, every test fails with its error (not a cascade of undefined
 * devices); `devices()` are destroyed after the file, in order.
 */
export function withWasmAndWebGpu(setup: () => Promise<void>, devices: () => readonly ({ destroy(): Promise<void> } | undefined)[]): void {
  let setupError: unknown;
  beforeAll(async () => {
    try { await setup(); } catch (e) { setupError = e; }
  });
  beforeEach(() => { if (setupError !== undefined) throw setupError; });
  afterAll(async () => { for (const d of devices()) await d?.destroy(); });
}
