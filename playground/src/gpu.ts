// The WebGPU side of the compute panel: navigator.gpu through simt's WebGPU runtime
// (src/webgpu), running the WGSL twins of the kernels. Opening is tried once; when the browser
// offers no adapter (headless Chromium with --disable-gpu, or no WebGPU at all) the reason is
// kept and shown, and the wasm pool runs alone.
import { openWebGpu, type WebGpuContext } from 'simt/internal/webgpu/gpu.js';
import { WebGpuRuntime } from 'simt/internal/webgpu/runtime.js';
import { loadWgsl, packScalars, WGSL_KERNELS } from 'simt/internal/webgpu/kernels.js';

export type GpuState =
  | { ok: true; rt: WebGpuRuntime; ctx: WebGpuContext; description: string }
  | { ok: false; reason: string };

let opening: Promise<GpuState> | undefined;

export function openGpu(): Promise<GpuState> {
  opening ??= (async (): Promise<GpuState> => {
    try {
      const ctx = await openWebGpu();
      const rt = await WebGpuRuntime.create(ctx);
      const i = ctx.adapterInfo;
      const description = [i.vendor, i.architecture, i.description || i.device].filter(Boolean).join(' / ') || 'adapter';
      return { ok: true, rt, ctx, description: `${description}${i.isFallbackAdapter ? ' (fallback adapter)' : ''}` };
    } catch (e) {
      return { ok: false, reason: e instanceof Error ? e.message : String(e) };
    }
  })();
  return opening;
}

const BLOCK = 256;
/** WebGPU's usual shape: a bounded grid of 256-thread workgroups with a grid-stride loop. */
const gridFor = (n: number): number => Math.max(1, Math.min(4096, Math.ceil(n / BLOCK)));

export interface GpuRun { value: number; ms: number; partials: number }

/** vecMax / vecSum on WebGPU: per-workgroup partials folded on the host, as simt's ops do. */
export async function gpuReduce(rt: WebGpuRuntime, kernel: 'vecMax' | 'vecSum', A: Float32Array, reps: number): Promise<GpuRun> {
  const grid = gridFor(A.length);
  // The partial's type is the kernel's declared one (f32, or f64 words where the WGSL writes f64).
  const partialDtype = WGSL_KERNELS[kernel].params[1]!.dtype as string;
  const partialBytes = partialDtype === 'f64' ? 8 : 4;
  const wgsl = await loadWgsl(kernel);
  const a = rt.createBuffer(A.byteLength, 'A');
  const b = rt.createBuffer(partialBytes * grid, 'B');
  try {
    rt.write(a, 0, A);
    await rt.finish();
    let best = Infinity;
    let out: Float32Array | Float64Array = new Float32Array(0);
    for (let r = 0; r < reps + 1; r++) { // the first run compiles the pipeline: not timed
      const t0 = performance.now();
      const res = await rt.dispatch({
        wgsl, entryPoint: WGSL_KERNELS[kernel].entryPoint, workgroupSize: [BLOCK, 1, 1], grid: { x: grid },
        buffers: [a, b], scalars: packScalars(WGSL_KERNELS[kernel].params, [A.length]),
      });
      await res.completed();
      const bytes = await rt.read(b, 0, partialBytes * grid);
      const ms = performance.now() - t0;
      if (r > 0) best = Math.min(best, ms);
      out = partialBytes === 8 ? new Float64Array(bytes.buffer, bytes.byteOffset, grid) : new Float32Array(bytes.buffer, bytes.byteOffset, grid);
    }
    let v = kernel === 'vecMax' ? -Infinity : 0;
    for (const p of out) v = kernel === 'vecMax' ? (p > v ? p : v) : v + p;
    return { value: v, ms: best, partials: grid };
  } finally {
    a.destroy();
    b.destroy();
  }
}

export interface GpuCountRun { count: number; sorted: Uint32Array; ms: number }

export async function gpuCountModules(rt: WebGpuRuntime, ids: Uint16Array, nMax: number, reps: number): Promise<GpuCountRun> {
  const n = ids.length;
  const grid = gridFor(n);
  const wgsl = await loadWgsl('countModules');
  const idBuf = rt.createBuffer(ids.byteLength, 'id');
  const ms = rt.createBuffer(4 * (nMax + 2), 'moduleStart');
  const cl = rt.createBuffer(4 * n, 'clusterId');
  try {
    rt.write(idBuf, 0, ids);
    let best = Infinity;
    let starts = new Uint32Array(0);
    for (let r = 0; r < reps + 1; r++) {
      rt.write(ms, 0, new Uint32Array(nMax + 2));
      await rt.finish();
      const t0 = performance.now();
      const res = await rt.dispatch({
        wgsl, entryPoint: 'countModules', workgroupSize: [BLOCK, 1, 1], grid: { x: grid },
        buffers: [idBuf, ms, cl], scalars: packScalars(WGSL_KERNELS.countModules.params, [n, nMax]),
      });
      await res.completed();
      const bytes = await rt.read(ms, 0, 4 * (nMax + 2));
      const t = performance.now() - t0;
      if (r > 0) best = Math.min(best, t);
      starts = new Uint32Array(bytes.buffer, bytes.byteOffset, nMax + 2).slice();
    }
    const count = starts[0]!;
    const sorted = starts.slice(1, 1 + Math.min(count, nMax + 1)).sort();
    return { count, sorted, ms: best };
  } finally {
    idBuf.destroy();
    ms.destroy();
    cl.destroy();
  }
}
