// Shared test plumbing: devices are created once per file (starting workers costs ~50 ms).
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createDevice, type Device, type DeviceOptions } from '../src/device.js';

export async function testDevice(options: DeviceOptions = {}): Promise<Device> {
  const dev = await createDevice({ memoryBytes: 128 << 20, ...options });
  afterAll(async () => { await dev.destroy(); });
  return dev;
}

/** A small deterministic generator for test data (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
