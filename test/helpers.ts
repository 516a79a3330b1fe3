// Shared test plumbing: devices are created once per file (starting workers costs ~50 ms).
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createDevice, type Device, type DeviceOptions } from '../src/device.js';
import type { DimLike } from '../src/dims.js';
import type { KernelModule } from '../src/kernelModule.js';
import { InOrderChooser, RaceSession, type RaceReport } from '../src/race/index.js';
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

/**
 * The backends a compiled kernel is checked on, from one table: `wasm` (2 workers), `serial`
 * under the given schedule seeds, and the fine-grained form the race tools run (one emulated
 * thread at a time, in order).
 */
export function compiledBackends(serialSeeds: number[]): { name: string; fine?: true; options: DeviceOptions }[] {
  return [
    { name: 'wasm', options: { backend: 'wasm', workers: 2 } },
    ...serialSeeds.map((seed) => ({ name: `serial seed ${seed}`, options: { backend: 'serial' as const, seed } })),
    { name: 'the fine-grained form (race tools)', fine: true, options: { backend: 'serial', seed: 1 } },
  ];
}

/** One backend of compiledBackends, set up for a describe block: its device with the module loaded, and one launch function for all. */
export interface CompiledBackend {
  readonly dev: Device;
  /** The fine form's reports of the last launch (empty elsewhere). */
  readonly reports: RaceReport[];
  launch(kernel: string, grid: DimLike, block: DimLike, args: unknown[], sharedBytes?: number, detect?: boolean): Promise<unknown>;
}

/** Registers beforeAll/afterAll for backend `b` of compiledBackends with the module `mod()` (fine form: a race session's runner). */
export function onCompiledBackend(b: { fine?: true; options: DeviceOptions }, mod: () => KernelModule): CompiledBackend {
  let dev: Device;
  let session: RaceSession | undefined;
  let reports: RaceReport[] = [];
  beforeAll(async () => {
    if (b.fine) {
      session = await RaceSession.open();
      dev = session.device;
      await session.runner.load(mod());
    } else {
      dev = await testDevice({ ...b.options, memoryBytes: 64 << 20 });
      await dev.load(mod());
    }
  });
  afterAll(async () => { await session?.close(); });
  return {
    get dev() { return dev; },
    get reports() { return reports; },
    async launch(kernel, grid, block, args, sharedBytes = 0, detect = false) {
      const k = mod().kernels[kernel]!;
      if (session) {
        reports = [];
        session.runner.run({ kernel: k, grid, block, sharedBytes, args: args as never }, { chooser: new InOrderChooser(), detect, decisions: [], reports });
        return undefined;
      }
      return dev.launch(k, { grid, block, sharedBytes }, args as never);
    },
  };
}
/** Pixel digi columns (the SoA store's inputs to the clustering kernels). */
export interface PixelColumns { moduleInd: Uint16Array; xx: Uint16Array; yy: Uint16Array; adc: Uint16Array }

/**
 * One module of exactly maxPixInModule = 4000 digis (the most the reference takes), shuffled:
 * pixels on a 2-pixel grid, every 50th with two neighbours that join it to the next grid pixels,
 * so well over maxNumClustersPerModules = 1024 clusters; adcs around the charge thresholds.
 */
export function pixelModuleAtCapacity(seed: number, moduleId: number): PixelColumns {
  const r = rng(seed);
  const px: [number, number, number][] = [];
  for (let yy = 0; yy < 416 && px.length < 4000; yy += 2) {
    for (let xx = 0; xx < 160 && px.length < 4000; xx += 2) {
      px.push([xx, yy, Math.floor(r() * 9000)]);
      if (px.length % 50 === 0 && xx < 158 && px.length < 3998) px.push([xx + 1, yy, 900], [xx, yy + 1, 900]);
    }
  }
  for (let i = px.length - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); [px[i], px[j]] = [px[j]!, px[i]!]; }
  return {
    moduleInd: new Uint16Array(px.length).fill(moduleId), xx: Uint16Array.from(px, (p) => p[0]),
    yy: Uint16Array.from(px, (p) => p[1]), adc: Uint16Array.from(px, (p) => p[2]),
  };
}

/** A generated block form without its proven copies (rangeProof.ts): the checked form, each kernel once. */
export function withoutProvenCopies(block: string): string {
  return block.replace(/\/\/ the proven copy of (\w+):[^]*?\/\/ end of the proven copy of \1\n/g, '');
}

/**
 * TS reference of test/kernels/trips.ts's halvingTrees: per block, the tree `s[t] += s[t + ib] * 3`
 * for ib = blockDim / 2, halved to 0, and `s[t] ^= s[t + k] + k` for k = blockDim >> 1 down to 1
 * (in i32). Returns out: [first tree, second tree] per block.
 */
export function halvingTreesRef(a: Int32Array, grid: number, block: number): number[] {
  const out: number[] = [];
  for (let b = 0; b < grid; b++) {
    const s = Array.from(a.subarray(b * block, (b + 1) * block));
    for (let ib = Math.trunc(block / 2); ib !== 0; ib = Math.trunc(ib / 2)) for (let t = 0; t < ib; t++) s[t] = (s[t]! + Math.imul(s[t + ib]!, 3)) | 0;
    const first = s[0]!;
    const u = Array.from(a.subarray(b * block, (b + 1) * block));
    for (let k = block >> 1; k > 0; k >>= 1) for (let t = 0; t < k; t++) u[t] = u[t]! ^ ((u[t + k]! + k) | 0);
    out.push(first, u[0]!);
  }
  return out;
}
