// The WebGPU side of the compute panel: a simt webgpu device on navigator.gpu, running the same
// ops as the wasm pool (vecMax and countModules as the WGSL simt generates from their per-thread
// sources, vecSum as its hand-written f64 twin). Opening is tried once; when the browser offers
// no adapter (headless Chromium with --disable-gpu, or no WebGPU at all) the reason is kept and
// shown, and the wasm pool runs alone.
import { countModules, createDevice, deviceMax, deviceSum } from 'simt';
import type { WebGpuDevice } from 'simt/internal/webgpu/device.js';

export type GpuState =
  | { ok: true; dev: WebGpuDevice; description: string }
  | { ok: false; reason: string };

let opening: Promise<GpuState> | undefined;

export function openGpu(): Promise<GpuState> {
  opening ??= (async (): Promise<GpuState> => {
    try {
      const dev = await createDevice({ backend: 'webgpu' });
      const i = dev.adapterInfo;
      const description = [i.vendor, i.architecture, i.description || i.device].filter(Boolean).join(' / ') || 'adapter';
      return { ok: true, dev, description: `${description}${i.isFallbackAdapter ? ' (fallback adapter)' : ''}` };
    } catch (e) {
      return { ok: false, reason: e instanceof Error ? e.message : String(e) };
    }
  })();
  return opening;
}

export interface GpuRun { value: number; ms: number }

/** vecMax / vecSum on WebGPU through simt's ops (per-block partials folded on the host); the best of `reps` timed runs. */
export async function gpuReduce(dev: WebGpuDevice, kernel: 'vecMax' | 'vecSum', A: Float32Array, reps: number): Promise<GpuRun> {
  const Ad = await dev.upload('f32', A);
  try {
    let best = Infinity;
    let value = NaN;
    for (let r = 0; r < reps + 1; r++) { // the first run compiles the pipeline: not timed
      const t0 = performance.now();
      value = (kernel === 'vecMax' ? await deviceMax(dev, Ad) : await deviceSum(dev, Ad)).value;
      const ms = performance.now() - t0;
      if (r > 0) best = Math.min(best, ms);
    }
    return { value, ms: best };
  } finally {
    Ad.free();
  }
}

export interface GpuCountRun { count: number; sorted: Uint32Array; ms: number }

/** countModules on WebGPU through simt's op; the best of `reps` timed runs. */
export async function gpuCountModules(dev: WebGpuDevice, ids: Uint16Array, nMax: number, reps: number): Promise<GpuCountRun> {
  const idd = await dev.upload('u16', ids);
  try {
    let best = Infinity;
    let res!: Awaited<ReturnType<typeof countModules>>;
    for (let r = 0; r < reps + 1; r++) {
      const t0 = performance.now();
      res = await countModules(dev, idd, { nMaxModules: nMax });
      const ms = performance.now() - t0;
      if (r > 0) best = Math.min(best, ms);
    }
    return { count: res.count, sorted: res.moduleStartSorted, ms: best };
  } finally {
    idd.free();
  }
}
