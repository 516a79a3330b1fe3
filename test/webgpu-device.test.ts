/**
 * The webgpu backend behind createDevice/alloc/launch: DeviceArray semantics and typed errors,
 * launch validation (CUDA limits and the adapter's), argument checking, 'auto' and its fallback,
 * and `simt info` exiting cleanly. No adapter is a failure, not a skip.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDevice } from '../src/device.js';
import {
  BackendUnavailableError, BufferMismatchError, DeviceDestroyedError, KernelArgumentError, LaunchConfigError,
  OutOfDeviceMemoryError, SharedMemoryLimitError, UseAfterFreeError,
} from '../src/errors.js';
import { countModules, emptyKernel, vecMax, vecSum, writeIndices } from '../src/kernels/index.js';
import { defineKernel } from '../src/kernel.js';
import { WebGpuDevice } from '../src/webgpu/device.js';
import { WebGpuUnavailableError } from '../src/webgpu/gpu.js';
import { deviceMax, deviceSum } from '../src/ops/reduce.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

let dev: WebGpuDevice;
let setupError: unknown;
beforeAll(async () => {
  try {
    dev = await createDevice({ backend: 'webgpu', memoryBytes: 64 << 20 });
  } catch (e) {
    setupError = e;
  }
});
beforeEach(() => {
  if (setupError !== undefined) throw setupError;
});
afterAll(async () => {
  await dev?.destroy();
});

describe('device arrays on webgpu', () => {
  it('upload / read / fill round-trip every dtype, with sub-word offsets', async () => {
    const cases = [
      ['u8', Uint8Array.from({ length: 13 }, (_, i) => i * 7)], ['i8', Int8Array.from({ length: 7 }, (_, i) => -i)],
      ['u16', Uint16Array.from({ length: 9 }, (_, i) => 65535 - i)], ['i16', Int16Array.from({ length: 5 }, (_, i) => -300 * i)],
      ['i32', Int32Array.from([1, -2, 3])], ['u32', Uint32Array.from([4e9, 1])], ['f32', Float32Array.from([1.5, NaN, -0])],
      ['f64', Float64Array.from([Math.PI, -1e300, 5e-324])], ['i64', BigInt64Array.from([-(2n ** 63n), 5n])],
      ['u64', BigUint64Array.from([2n ** 64n - 1n, 7n])],
    ] as const;
    for (const [dtype, data] of cases) {
      const a = await dev.upload(dtype, data as never);
      expect(a.byteOffset).toBe(0);
      expect(Array.from(await a.read() as ArrayLike<unknown>)).toEqual(Array.from(data as ArrayLike<unknown>));
      a.free();
    }
    // Odd offsets of 1- and 2-byte types keep the neighbours in the shared 4-byte word.
    const u16 = await dev.upload('u16', Uint16Array.from([1, 2, 3, 4, 5, 6, 7]));
    await u16.upload(Uint16Array.from([20, 30]), 1);
    await u16.fill(9, 5, 6);
    expect(Array.from(await u16.read())).toEqual([1, 20, 30, 4, 5, 9, 7]);
    expect(Array.from(await u16.read(3, 6))).toEqual([4, 5, 9]);
    const u8 = dev.alloc('u8', 11);
    await u8.fill(0);
    await u8.fill(255, 3, 6);
    await u8.upload([1, 2], 9);
    expect(Array.from(await u8.read())).toEqual([0, 0, 0, 255, 255, 255, 0, 0, 0, 1, 2]);
    const f = dev.alloc('f32', 1000);
    await f.fill(2.5);
    await f.fill(0, 10, 20);
    const r = await f.read();
    expect(r[9]).toBe(2.5);
    expect(r[10]).toBe(0);
    expect(r[999]).toBe(2.5);
    const big = dev.alloc('i64', 3);
    await big.fill(-7n);
    expect(Array.from(await big.read())).toEqual([-7n, -7n, -7n]);
    for (const a of [u16, u8, f, big]) a.free();
  });

  it('typed errors: BufferMismatchError, UseAfterFreeError, OutOfDeviceMemoryError', async () => {
    const a = dev.alloc('f32', 4);
    await expect(a.upload(new Int32Array(4) as never)).rejects.toThrow(BufferMismatchError);
    await expect(a.upload(new Float32Array(5))).rejects.toThrow(BufferMismatchError);
    await expect(a.upload(new Float32Array(2), 3)).rejects.toThrow(BufferMismatchError);
    await expect(a.read(2, 5)).rejects.toThrow(BufferMismatchError);
    await expect(a.fill(1n as never)).rejects.toThrow(BufferMismatchError);
    expect(() => dev.alloc('f17' as never, 4)).toThrow(BufferMismatchError);
    expect(() => dev.alloc('f32', -1)).toThrow(BufferMismatchError);
    a.free();
    await expect(a.read()).rejects.toThrow(UseAfterFreeError);
    await expect(a.upload(new Float32Array(4))).rejects.toThrow(UseAfterFreeError);
    await expect(a.fill(0)).rejects.toThrow(UseAfterFreeError);
    expect(() => a.free()).toThrow(UseAfterFreeError);
    const before = dev.memoryInfo();
    expect(() => dev.alloc('f32', 32 << 20)).toThrow(OutOfDeviceMemoryError); // 128 MiB > the 64 MiB budget
    const x = dev.alloc('f32', 8 << 20); // 32 MiB
    expect(dev.memoryInfo().usedBytes).toBe(before.usedBytes + (32 << 20));
    expect(() => dev.alloc('f32', 9 << 20)).toThrow(OutOfDeviceMemoryError);
    x.free();
    expect(dev.memoryInfo()).toEqual(before);
  });
});

describe('launches on webgpu', () => {
  it('runs vecMax and vecSum through the GpuDevice ops, stats say webgpu', async () => {
    const A = Float32Array.from({ length: 100_000 }, (_, i) => Math.sin(i) * 100);
    const m = await deviceMax(dev, A, { grid: 64, block: 256 });
    expect(m.value).toBe(A.reduce((x, y) => Math.max(x, y)));
    expect(m.stats).toMatchObject({ kernel: 'vecMax', backend: 'webgpu', blocks: 64, threadsPerBlock: 256, workers: 0, seed: null });
    const s = await deviceSum(dev, A, { grid: 64, block: 256 });
    expect(s.partials).toBeInstanceOf(Float64Array);
    let exact = 0;
    for (const v of A) exact += v;
    expect(Math.abs(s.value - exact)).toBeLessThan(1e-3);
  });

  it('launches on an idle stream encode at once: a burst shares one submit, and a launch behind one still building its pipeline waits its turn', async () => {
    const n = 256;
    const A1 = await dev.upload('f32', Float32Array.from({ length: n }, (_, i) => i));          // max 255
    const A2 = await dev.upload('f32', Float32Array.from({ length: n }, (_, i) => -i - 1));     // max -1
    const B = dev.alloc('f32', 8);
    await dev.launch(vecMax, { grid: 8, block: 32, sharedBytes: 128 }, [A2, B, n]);   // builds block 32's pipeline
    const queue = dev.context.device.queue;
    const submit = queue.submit.bind(queue);
    let submits = 0;
    queue.submit = (buffers: Iterable<GPUCommandBuffer>) => { submits++; submit(buffers); };
    try {
      const burst = Array.from({ length: 20 }, () => dev.launch(vecMax, { grid: 8, block: 32, sharedBytes: 128 }, [A1, B, n]));
      await Promise.all(burst);
      expect(submits).toBe(1);
    } finally {
      queue.submit = submit;
    }
    expect(Array.from(await B.read())).toEqual([31, 63, 95, 127, 159, 191, 223, 255]);
    // Block 8 has no pipeline yet: its launch waits for the build, and the launch behind it (whose
    // pipeline is built) must not overtake it. Both write B; the later one's values stay.
    const first = dev.launch(vecMax, { grid: 8, block: 8, sharedBytes: 32 }, [A1, B, n]);
    const second = dev.launch(vecMax, { grid: 8, block: 32, sharedBytes: 128 }, [A2, B, n]);
    await Promise.all([first, second]);
    expect(Array.from(await B.read())).toEqual([-1, -33, -65, -97, -129, -161, -193, -225]);
    for (const a of [A1, A2, B]) a.free();
  });

  it('a relaunch reuses its checked launch only while configuration and arguments are the same', async () => {
    const n = 96;
    const A = await dev.upload('f32', Float32Array.from({ length: n }, (_, i) => (i * 37) % 101));
    const B = dev.alloc('f32', 8);
    // vecMax is a grid-stride loop: block b's threads read b·block + t + k·grid·block.
    const maxes = (grid: number, block: number, len: number): number[] => Array.from({ length: grid }, (_, b) => {
      let m = -Infinity;
      for (let i = 0; i < len; i++) if (Math.floor(i / block) % grid === b) m = Math.max(m, (i * 37) % 101);
      return m;
    });
    const config = { grid: 3, block: { x: 32 }, sharedBytes: 128 };
    await dev.launch(vecMax, config, [A, B, n]);
    await dev.launch(vecMax, config, [A, B, n]);
    expect(Array.from(await B.read()).slice(0, 3)).toEqual(maxes(3, 32, n));
    // Another scalar, the same objects: a new launch.
    await dev.launch(vecMax, config, [A, B, 40]);
    expect(Array.from(await B.read()).slice(0, 3)).toEqual(maxes(3, 32, 40));
    // The caller's config object changed in place: its new shape is launched.
    await dev.launch(vecMax, config, [A, B, n]);
    config.block.x = 16;
    await dev.launch(vecMax, config, [A, B, n]);
    expect(Array.from(await B.read()).slice(0, 3)).toEqual(maxes(3, 16, n));
    config.grid = 6;
    await dev.launch(vecMax, config, [A, B, n]);
    expect(Array.from(await B.read()).slice(0, 6)).toEqual(maxes(6, 16, n));
    // A bad scalar is caught again after good launches with the same arrays.
    await expect(dev.launch(vecMax, config, [A, B, 1.5])).rejects.toThrow(KernelArgumentError);
    // A freed argument is caught on a relaunch as on a first launch.
    await dev.launch(vecMax, config, [A, B, n]);
    A.free();
    await expect(dev.launch(vecMax, config, [A, B, n])).rejects.toThrow(/parameter 'A': the array was freed/);
    B.free();
  });

  it('validates grid/block against CUDA and the adapter (LaunchConfigError)', async () => {
    const A = await dev.upload('f32', new Float32Array(16));
    const B = dev.alloc('f32', 4);
    const args = [A, B, 16];
    const maxInv = dev.limits.maxComputeInvocationsPerWorkgroup;
    expect(dev.maxThreadsPerBlock).toBe(Math.min(1024, maxInv));
    await expect(dev.launch(vecMax, { grid: 1, block: 2048 }, args)).rejects.toThrow(/CUDA's limit/);
    await expect(dev.launch(vecMax, { grid: 0, block: 64 }, args)).rejects.toThrow(LaunchConfigError);
    if (maxInv < 1024) {
      await expect(dev.launch(vecMax, { grid: 1, block: { x: 32, y: 32 } }, args)).rejects.toThrow(/invocations per workgroup/);
      await expect(dev.launch(vecMax, { grid: 1, block: 1024 }, args)).rejects.toThrow(/workgroup size limits/);
    }
    await expect(dev.launch(vecMax, { grid: 1, block: 96 }, args)).rejects.toThrow(/power of two/);
    await expect(dev.launch(vecMax, { grid: { x: 1, y: 70000 }, block: 64 }, args)).rejects.toThrow(LaunchConfigError);
    await expect(dev.launch(vecMax, { grid: 1, block: 64, sharedBytes: dev.sharedMemoryLimit + 4 }, args)).rejects.toThrow(SharedMemoryLimitError);
    await expect(dev.launch(vecMax, { grid: 1, block: 64, sharedBytes: 256, timeoutMs: 0 }, args)).rejects.toThrow(/timeoutMs must be positive/);
    await expect(dev.launch(writeIndices, { grid: 1, block: 32 }, [B])).rejects.toThrow(/^kernel 'writeIndices' has no WGSL version, so the webgpu backend cannot run it \(webgpu runs the kernels with a WGSL twin, vecSum, .*; the built-ins declared as specializations of a generic kernel with a WGSL form, such as vecMax, countModules and findClus; and the kernels of loaded modules\)$/);
    A.free();
    B.free();
  });

  it('checks arguments against the declaration (KernelArgumentError names the parameter)', async () => {
    const A = await dev.upload('f32', new Float32Array(16));
    const B = dev.alloc('f32', 4);
    const I = dev.alloc('i32', 4);
    const cfg = { grid: 1, block: 64, sharedBytes: 256 };
    const fails = async (args: unknown, param: string, msg: RegExp) => {
      const e = await dev.launch(vecMax, cfg, args as never).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(KernelArgumentError);
      expect((e as KernelArgumentError).parameter).toBe(param);
      expect((e as Error).message).toMatch(msg);
    };
    await fails([A, B], 'N', /expected 3 arguments/);
    await fails([A, I, 16], 'B', /expected f32\[\], got i32\[\]/);
    await fails([A, new Float32Array(4), 16], 'B', /expected a device array/);
    await fails([A, B, 1.5], 'N', /expected an i32/);
    await fails([A, B, 2 ** 31], 'N', /expected an i32/);
    await fails({ A, B, N: 16, M: 1 }, 'M', /not a parameter/);
    await fails({ A, B }, 'N', /missing/);
    const other = await createDevice({ backend: 'wasm', memoryBytes: 16 << 20, workers: 1 });
    const foreign = other.alloc('f32', 4);
    await fails([A, foreign, 16], 'B', /belongs to device/);
    await other.destroy();
    const freed = dev.alloc('f32', 4);
    freed.free();
    await fails([A, freed, 16], 'B', /freed/);
    const wrongDecl = defineKernel('vecSum', { A: 'f32[]', B: 'f32[]', N: 'i32' });
    await expect(dev.launch(wrongDecl, cfg, [A, B, 16])).rejects.toThrow(/WGSL version takes/);
    // Named arguments work as positional ones do.
    const st = await dev.launch(vecMax, cfg, { A, B, N: 16 });
    expect(st.backend).toBe('webgpu');
    for (const a of [A, B, I]) a.free();
  });

  it('countModules: the u16 column and u32 scalar reach the WGSL kernel', async () => {
    const ids = Uint16Array.from([65534, 3, 3, 65534, 3, 5, 5, 65534, 7]);
    const id = await dev.upload('u16', ids);
    const ms = dev.alloc('u32', 10);
    await ms.fill(0);
    const cl = dev.alloc('i32', ids.length);
    await dev.launch(countModules, { grid: 1, block: 32 }, [id, ms, cl, ids.length, 8]);
    const out = await ms.read();
    expect(out[0]).toBe(3);
    expect(Array.from(out.slice(1, 4)).sort()).toEqual([1, 5, 8]);
    expect(Array.from(await cl.read())).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    for (const a of [id, ms, cl]) a.free();
  });

  it('an aborted launch rejects; a destroyed device throws DeviceDestroyedError', async () => {
    const A = await dev.upload('f32', new Float32Array(16));
    const B = dev.alloc('f32', 1);
    const ac = new AbortController();
    ac.abort('stop');
    await expect(dev.launch(vecMax, { grid: 1, block: 64, sharedBytes: 256, signal: ac.signal }, [A, B, 16])).rejects.toThrow(/aborted/);
    const d2 = await createDevice({ backend: 'webgpu' });
    const x = d2.alloc('f32', 4);
    await d2.destroy();
    await d2.destroy();
    expect(() => d2.alloc('f32', 1)).toThrow(DeviceDestroyedError);
    await expect(x.read()).rejects.toThrow(UseAfterFreeError);
    await expect(d2.launch(emptyKernel, { grid: 1, block: 1 })).rejects.toThrow(DeviceDestroyedError);
    A.free();
    B.free();
  });

  it('a built-in kernel\'s launch requirements are checked as on wasm, with the same one-line LaunchConfigError', async () => {
    const gpu = await createDevice({ backend: 'webgpu' });
    const wasm = await createDevice({ backend: 'wasm', workers: 1 });
    try {
      const bad: [number, number][] = [[100, 400], [256, 512], [64, 0]];   // block, sharedBytes
      for (const dev of [wasm, gpu]) {
        const A = await dev.upload('f32', new Float32Array(1000)), B = dev.alloc('f32', 8);
        for (const [block, sharedBytes] of bad) {
          const err = await dev.launch(vecMax, { grid: 8, block, sharedBytes }, [A, B, 1000]).then(() => undefined, (e: unknown) => e);
          expect(err, `${dev.backend} block ${block} shared ${sharedBytes}`).toBeInstanceOf(LaunchConfigError);
          expect((err as Error).message).toMatch(block === 100 ? /^kernel vecMax needs blockDim\.x to be a power of two \(its shared-memory tree halves it\), got 100$/ : /^kernel vecMax needs at least \d+ shared bytes \(4 per thread\), got \d+$/);
        }
        // The device stays usable.
        await dev.launch(vecMax, { grid: 8, block: 64, sharedBytes: 256 }, [A, B, 1000]);
        A.free(); B.free();
      }
    } finally {
      await gpu.destroy();
      await wasm.destroy();
    }
  });

  it('gpuTiming reports the GPU time of the pass when timestamps are available', async () => {
    const d = await createDevice({ backend: 'webgpu', webgpu: { gpuTiming: true } });
    const A = await d.upload('f32', new Float32Array(1 << 16));
    const B = d.alloc('f32', 8);
    const st = await d.launch(vecMax, { grid: 8, block: 256, sharedBytes: 1024 }, [A, B, 1 << 16]);
    if (d.context.hasTimestampQuery) expect(st.gpuTimeMs).toBeGreaterThan(0);
    // The query sets are reused (runtime.ts, takeTimer): awaited and in-flight launches after it
    // each still report their own pass, and the pool holds no more sets than were in flight.
    for (let i = 0; i < 5; i++) {
      const s = await d.launch(vecMax, { grid: 8, block: 256, sharedBytes: 1024 }, [A, B, 1 << 16]);
      if (d.context.hasTimestampQuery) expect(s.gpuTimeMs).toBeGreaterThan(0);
    }
    const inFlight = await Promise.all(Array.from({ length: 6 }, () => d.launch(vecMax, { grid: 8, block: 256, sharedBytes: 1024 }, [A, B, 1 << 16])));
    if (d.context.hasTimestampQuery) {
      for (const s of inFlight) expect(s.gpuTimeMs).toBeGreaterThan(0);
      expect(d.runtime.timedLaunchSlots).toBeGreaterThanOrEqual(1);
      expect(d.runtime.timedLaunchSlots).toBeLessThanOrEqual(6);
    }
    await d.destroy();
    void vecSum;
  });
});

describe("createDevice backends 'webgpu' and 'auto'", () => {
  it("'auto' opens webgpu when an adapter opens, and keeps the create() object alive", async () => {
    const d = await createDevice({ backend: 'auto' });
    expect(d.backend).toBe('webgpu');
    expect(d.fallbackReason).toBeUndefined();
    expect((d as WebGpuDevice).context.gpu).toBeDefined();
    await d.destroy();
  });

  it('an unknown backend is a BackendUnavailableError', async () => {
    await expect(createDevice({ backend: 'cuda' as never })).rejects.toThrow(BackendUnavailableError);
    expect(new WebGpuUnavailableError('no-adapter', 'x')).toBeInstanceOf(BackendUnavailableError);
  });

  it("without an adapter: 'webgpu' throws WebGpuUnavailableError saying why, 'auto' falls back to wasm and says why", async () => {
    const script = `
      import { createDevice } from './src/device.ts';
      const d = await createDevice({ backend: 'auto', memoryBytes: 16 << 20 });
      const out = { backend: d.backend, fallbackReason: d.fallbackReason };
      await d.destroy();
      try { await createDevice({ backend: 'webgpu' }); out.webgpu = 'opened'; }
      catch (e) { out.webgpu = { name: e.name, message: e.message, isBackendUnavailable: e instanceof (await import('./src/errors.ts')).BackendUnavailableError }; }
      console.log(JSON.stringify(out));`;
    const file = join(mkdtempSync(join(tmpdir(), 'simt-')), 'fallback.mjs');
    writeFileSync(file, script.replaceAll('.ts', '.js').replaceAll('./src/', pathToFileURL(join(root, 'dist/src/')).href));
    const { stdout } = await run(process.execPath, [file],
      { cwd: root, env: { ...process.env, VK_ICD_FILENAMES: '/nonexistent/no_icd.json' } });
    const out = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(out.backend).toBe('wasm');
    expect(out.fallbackReason).toMatch(/no adapter.*\/nonexistent\/no_icd\.json/);
    expect(out.webgpu).toMatchObject({ name: 'WebGpuUnavailableError', isBackendUnavailable: true });
    expect(out.webgpu.message).toMatch(/WebGPU unavailable/);
  });
});

describe('simt info', () => {
  it('exits 0 (no crash in Dawn teardown at process exit), five times in a row', async () => {
    for (let k = 0; k < 5; k++) {
      const { stdout } = await run(process.execPath, ['bin/simt.js', 'info', '--json'], { cwd: root });
      expect(JSON.parse(stdout).backends.webgpu).toBe(true);
    }
  });
});
