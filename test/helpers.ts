// Shared test plumbing: devices are created once per file (starting workers costs ~50 ms).
import { afterAll } from 'vitest';
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
