// The device: one fixed-size shared WebAssembly.Memory, a heap allocator over it, and a worker
// pool that runs kernels launched CUDA-style. Backends:
//   'wasm'   — the parallel pool (one worker per core by default): real concurrency, so the
//              order of atomics between threads varies from run to run, as on a GPU;
//   'serial' — one worker; block order and every phase's thread order drawn from a seeded
//              generator: same seed ⇒ bit-identical output, other seeds ⇒ other legal orders.

import type { WasmMemory } from './wasmTypes.js';
import { type DType, DTYPES, type ScalarOf, type TypedArrayOf, dtypeOfArray, viewOf } from './dtypes.js';
import { type Dim3, type DimLike, toDim3 } from './dims.js';
import {
  BackendUnavailableError, BufferMismatchError, ControlPageError, DeviceDestroyedError, KernelArgumentError, KernelError,
  KernelTimeoutError, LaunchAbortedError, LaunchConfigError, MemorySizeError, OutOfDeviceMemoryError,
  SharedMemoryLimitError, UseAfterFreeError, WorkerLostError,
} from './errors.js';
import type { Kernel, ParamSpec } from './kernel.js';
import type { LaunchArgsParam } from './launchTypes.js';
import { argumentList, checkArrayArg, checkScalarArg, describe } from './launchArgs.js';
import type { GpuDevice, KernelArgs, LaunchConfig, LaunchStats, MemoryInfo } from './deviceApi.js';
import { CONTROL_BYTES, CTL, Command, GUARD_BYTES, HEAP_ALIGN, MAX_DEVICE_BYTES, PAGE_BYTES } from './layout.js';
import { HeapAllocator } from './memory/allocator.js';
import type { DeviceArray } from './memory/deviceArray.js';
import { DeviceArrayBase } from './memory/deviceArrayBase.js';
import type { MemoryObserver } from './memory/observer.js';
import { loadKernelsModule } from './module.js';
import { coreCount, defaultWorkerCount, sharedMemoryProblem } from './platform.js';
import { checkDeviceOptions } from './deviceOptions.js';
import { WorkerPool } from './pool/pool.js';
import { ArgTag } from './pool/protocol.js';
import { launchSeed, normalizeSeed, randomSeed, seedProblem, splitSeed } from './schedule/seeds.js';
import type { WebGpuDevice, WebGpuDeviceOptions } from './webgpu/device.js';
import type { KernelModule } from './kernelModule.js';
import type { PoolModule } from './pool/protocol.js';

export type Backend = 'wasm' | 'serial';

export interface DeviceOptions {
  /**
   * 'wasm' (default): parallel pool. 'serial': one worker, seeded schedule. 'webgpu': the WGSL
   * kernels on a WebGPU adapter (BackendUnavailableError — a WebGpuUnavailableError — saying why
   * when there is none; never a silent fallback). 'auto': webgpu if an adapter opens, else wasm,
   * with `device.fallbackReason` saying why it fell back.
   */
  backend?: Backend | 'webgpu' | 'auto';
  /** Workers of the 'wasm' backend (default: available parallelism). 'serial' always uses 1. */
  workers?: number;
  /**
   * Size of the device memory in bytes (default 1 GiB; at most 4032 MiB: wasm32 addresses
   * 4 GiB, and the last 64 MiB are a guard where an access past the end traps instead of
   * wrapping around to the control page at address 0).
   */
  memoryBytes?: number;
  /** Device seed: fixes every launch's schedule seed, in launch order (default: random). */
  seed?: number | bigint;
  /** Dynamic shared memory limit per block in bytes (default 48 KiB, as CUDA's default). */
  sharedMemoryLimit?: number;
  /** Default time limit of a launch in ms (default 10 minutes). */
  launchTimeoutMs?: number;
  /** How long workers spin on the launch word before sleeping, in µs (default 200). */
  spinMicros?: number;
  /**
   * How long the host spins waiting for a launch before it blocks, µs (default 50). Without
   * this option, where there are as many workers as cores, the host spins only for a launch whose
   * kernel and block count last ended within that time: a spinning host keeps a worker off its
   * core for the whole of a longer launch (16 workers on 16 cores, 16 blocks of 47 µs: 141–354 µs
   * a launch spinning, 119–154 µs not), and blocking costs a short one its wake-up (2 workers on
   * 2 cores, 16 blocks of 64 threads: 19 µs spinning, 31 µs not; bench/RESULTS.md).
   */
  hostSpinMicros?: number;
  /** How long the host blocks its thread waiting for a launch before awaiting asynchronously, ms (default 2; 0 never blocks). */
  syncWaitMs?: number;
  /** Compiled kernel modules to load at creation (`compileKernels`, `simt build`); more with `device.load`. */
  modules?: readonly KernelModule[];
  /** WebGPU-only options (backend 'webgpu' or 'auto'): adapter choice, Dawn flags, GPU timing. */
  webgpu?: Omit<WebGpuDeviceOptions, 'memoryBytes' | 'launchTimeoutMs'>;
}

export type { LaunchConfig, KernelArgs, LaunchStats };

export const DEFAULT_MEMORY_BYTES = 1 << 30;
export const DEFAULT_SHARED_LIMIT = 48 * 1024;
/** The host's spin on a launch before it blocks, µs (DeviceOptions.hostSpinMicros). */
const DEFAULT_HOST_SPIN_MICROS = 50;
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
const STOP_GRACE_MS = 300;
// Per-worker scratch beyond the shared bytes: thread order (4 KiB), warp lanes, 32 register slots of 8 KiB.
const SCRATCH_EXTRA = 1024 * 4 + 256 + 32 * 1024 * 8;

let nextDeviceId = 1;

/**
 * Creates a device: `createDevice()` (wasm pool), `{ backend: 'serial', seed }`,
 * `{ backend: 'webgpu' }` or `{ backend: 'auto' }` (webgpu, else wasm with `fallbackReason`).
 */
export async function createDevice(options?: DeviceOptions & { backend?: Backend }): Promise<Device>;
export async function createDevice(options: DeviceOptions & { backend: 'webgpu' }): Promise<WebGpuDevice>;
export async function createDevice(options: DeviceOptions): Promise<Device | WebGpuDevice>;
export async function createDevice(options: DeviceOptions = {}): Promise<Device | WebGpuDevice> {
  const backend = options.backend ?? 'wasm';
  if (backend === 'webgpu' || backend === 'auto') {
    // Loaded on demand: the wasm backends never load the WebGPU code (nor dawn.node).
    const { createWebGpuDevice } = await import('./webgpu/device.js');
    const gpuOptions: WebGpuDeviceOptions = { ...options.webgpu };
    if (options.memoryBytes !== undefined) gpuOptions.memoryBytes = options.memoryBytes;
    if (options.launchTimeoutMs !== undefined) gpuOptions.launchTimeoutMs = options.launchTimeoutMs;
    if (options.modules !== undefined) gpuOptions.modules = options.modules;
    if (backend === 'webgpu') return createWebGpuDevice(gpuOptions);
    try {
      return await createWebGpuDevice(gpuOptions);
    } catch (e) {
      if (!(e instanceof BackendUnavailableError)) throw e;
      return createWasmDevice({ ...options, backend: 'wasm' }, e.message);
    }
  }
  if (backend !== 'wasm' && backend !== 'serial') {
    throw new BackendUnavailableError(`unknown backend '${String(backend)}': use 'wasm', 'serial', 'webgpu' or 'auto'`);
  }
  return createWasmDevice({ ...options, backend }, undefined);
}

async function createWasmDevice(options: DeviceOptions & { backend: Backend }, fallbackReason: string | undefined): Promise<Device> {
  const backend = options.backend;
  checkDeviceOptions(options);
  const isolation = sharedMemoryProblem();
  if (isolation !== undefined) throw new BackendUnavailableError(`the ${backend} backend needs shared memory: ${isolation}`);
  const memoryBytes = options.memoryBytes ?? DEFAULT_MEMORY_BYTES;
  if (!Number.isInteger(memoryBytes) || memoryBytes <= 0) {
    throw new MemorySizeError(`memoryBytes must be a positive integer, got ${String(memoryBytes)}`);
  }
  if (memoryBytes > MAX_DEVICE_BYTES) {
    throw new MemorySizeError(`memoryBytes ${memoryBytes} exceeds the largest device, ${MAX_DEVICE_BYTES} bytes (4 GiB, ` +
      `what wasm32 addresses, less a ${GUARD_BYTES >> 20} MiB guard where an access past the end traps instead of wrapping to address 0)`);
  }
  const sharedLimit = options.sharedMemoryLimit ?? DEFAULT_SHARED_LIMIT;
  if (!Number.isInteger(sharedLimit) || sharedLimit < 0 || sharedLimit > 1 << 24) {
    throw new LaunchConfigError(`sharedMemoryLimit must be an integer in [0, 16 MiB], got ${String(sharedLimit)}`);
  }
  let workers = backend === 'serial' ? 1 : (options.workers ?? await defaultWorkerCount());
  if (!Number.isInteger(workers) || workers < 1 || workers > 256) {
    throw new LaunchConfigError(`workers must be an integer in [1, 256], got ${String(workers)}`);
  }
  const kernels = await loadKernelsModule();
  const scratchStride = Math.ceil((Math.ceil(sharedLimit / HEAP_ALIGN) * HEAP_ALIGN + SCRATCH_EXTRA) / HEAP_ALIGN) * HEAP_ALIGN;
  const staticEnd = kernels.memoryBase + kernels.data.length;
  const scratchBase = Math.ceil(Math.max(staticEnd, CONTROL_BYTES + PAGE_BYTES) / PAGE_BYTES) * PAGE_BYTES;
  const heapBase = Math.ceil((scratchBase + workers * scratchStride) / PAGE_BYTES) * PAGE_BYTES;
  const pages = Math.ceil(memoryBytes / PAGE_BYTES);
  if (heapBase >= pages * PAGE_BYTES) {
    throw new MemorySizeError(`memoryBytes ${memoryBytes} leaves no device heap: the control page, static data and ` +
      `${workers} workers' scratch already take ${heapBase} bytes`);
  }
  let memory: WasmMemory;
  try {
    memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  } catch (e) {
    throw new MemorySizeError(`cannot create a shared memory of ${pages * PAGE_BYTES} bytes: ${(e as Error).message}`);
  }
  new Uint8Array(memory.buffer, kernels.memoryBase, kernels.data.length).set(kernels.data);
  // One instance on the host too: it checks the exports' arity against declarations and is
  // never used to run kernels.
  const hostInstance = new WebAssembly.Instance(kernels.module, { env: { memory } });
  // The runtime owns the scratch layout (assembly/runtime/scratch.ts); SCRATCH_EXTRA mirrors it
  // because the memory must be sized before the module can be asked.
  const needed = (hostInstance.exports.__scratchBytes as (limit: number) => number)(Math.ceil(sharedLimit / HEAP_ALIGN) * HEAP_ALIGN);
  if (needed > scratchStride) throw new Error(`internal: a worker's scratch needs ${needed} bytes, the layout gives ${scratchStride}`);
  const spinMicros = options.spinMicros ?? 200;
  const hostSpinMicros = options.hostSpinMicros ?? DEFAULT_HOST_SPIN_MICROS;
  const hostSpinOnlyWhenShort = options.hostSpinMicros === undefined && workers >= await coreCount();
  const seed = options.seed === undefined ? randomSeed() : normalizeSeed(options.seed);
  const builtin: LoadedModule = { id: BUILTIN_MODULE, kernelNames: kernels.kernelNames, exports: hostInstance.exports, pool: { module: kernels.module, kernelNames: kernels.kernelNames } };
  const loaded = [builtin];
  for (const m of options.modules ?? []) {
    if (!loaded.some((l) => l.id === m.id)) loaded.push(await prepareModule(m, memory));
  }
  const pool = await WorkerPool.start({
    modules: loaded.map((l) => l.pool), memory, workers, scratchBase, scratchStride, sharedLimit,
    spinMicros, syncWaitMs: options.syncWaitMs ?? 2,
    hostSpinMicros,
  });
  try {
    return new Device({
      backend, workers, memory, pool, heapBase, sharedLimit, modules: loaded, hostSpinMicros, hostSpinOnlyWhenShort,
      seed, launchTimeoutMs: options.launchTimeoutMs ?? DEFAULT_TIMEOUT_MS, fallbackReason,
    });
  } catch (e) {
    await pool.destroy(); // nothing may outlive a failed createDevice
    throw e;
  }
}

const BUILTIN_MODULE = 'builtin';

/** A module loaded on a device: its kernels and a host instance (for checking exports). */
interface LoadedModule { id: string; kernelNames: string[]; exports: Record<string, unknown>; pool: PoolModule }

const compiledModules = new Map<string, Promise<WebAssembly.Module>>();

/** Compiles a kernel module's block form (once per process) and checks it links to the device memory. */
async function prepareModule(m: KernelModule, memory: WebAssembly.Memory): Promise<LoadedModule> {
  if (!m || typeof m.id !== 'string' || !(m.wasm instanceof Uint8Array) || !m.meta) {
    throw new KernelArgumentError('(module)', '(module)', 'not a kernel module: build one with compileKernels() or `simt build`');
  }
  let wasm = compiledModules.get(m.id);
  if (!wasm) {
    wasm = WebAssembly.compile(m.wasm as BufferSource);
    compiledModules.set(m.id, wasm);
    wasm.catch(() => compiledModules.delete(m.id));
  }
  const module = await wasm;
  const exports = new WebAssembly.Instance(module, { env: { memory } }).exports;
  const kernelNames = m.meta.kernels.map((k) => k.name);
  return { id: m.id, kernelNames, exports, pool: { module, kernelNames, trapInfo: { arrays: m.meta.arrays, sites: m.meta.sites } } };
}

interface DeviceParts {
  backend: Backend; workers: number; memory: WasmMemory; pool: WorkerPool; heapBase: number;
  sharedLimit: number; modules: LoadedModule[]; seed: number; launchTimeoutMs: number;
  fallbackReason: string | undefined; hostSpinMicros: number; hostSpinOnlyWhenShort: boolean;
}

export class Device implements GpuDevice {
  readonly maxThreadsPerBlock = 1024;
  readonly id = nextDeviceId++;
  readonly backend: Backend;
  readonly workers: number;
  /** How long the host spins for a launch to end before it blocks, µs (DeviceOptions.hostSpinMicros). */
  readonly hostSpinMicros: number;
  /**
   * The host spins only for launches whose kernel last ended within hostSpinMicros at the same
   * block count (the default where there are as many workers as cores), else for every launch.
   */
  readonly hostSpinOnlyWhenShort: boolean;
  /** By kernel index: the block count of its last launch and the µs it took (hostSpinOnlyWhenShort). */
  private readonly lastBlocks: number[] = [];
  private readonly lastMicros: number[] = [];
  readonly memoryBytes: number;
  readonly sharedMemoryLimit: number;
  /** The device seed (launch seeds derive from it in launch order). */
  readonly seed: number;
  /** Set when `backend: 'auto'` found no WebGPU adapter: why this wasm device was returned instead. */
  readonly fallbackReason: string | undefined;
  readonly memory: WasmMemory;
  /** Device memory is host memory: `array.view()` reads and writes arrays in place. */
  readonly hostMapped = true;
  private readonly heap: HeapAllocator;
  private readonly pool: WorkerPool;
  /** `moduleId/kernel` → the launch index (kernels of every loaded module, in load order). */
  private readonly kernelIndex = new Map<string, { index: number; exports: Record<string, unknown> }>();
  private readonly modules: LoadedModule[] = [];
  private readonly i32: Int32Array;
  private readonly dv: DataView;
  private readonly launchTimeoutMs: number;
  private launches = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** A launch is executing (dispatch may skip the queue only when none is). */
  private busy = false;
  /** Launches issued and not yet settled: transfers issued after them must wait. */
  private pending = 0;
  private destroyed = false;
  private teardown: Promise<void> | undefined;
  private readonly live = new Set<WasmDeviceArray<DType>>();
  /** @internal A tool that shadows this device's memory (memcheck's initcheck): told of allocations, host writes and frees. */
  memoryObserver: MemoryObserver | undefined = undefined;

  constructor(p: DeviceParts) {
    this.backend = p.backend;
    this.workers = p.workers;
    this.hostSpinMicros = p.hostSpinMicros;
    this.hostSpinOnlyWhenShort = p.hostSpinOnlyWhenShort;
    this.memory = p.memory;
    this.memoryBytes = p.memory.buffer.byteLength;
    this.sharedMemoryLimit = p.sharedLimit;
    this.seed = p.seed;
    this.pool = p.pool;
    this.heap = new HeapAllocator(p.heapBase, this.memoryBytes - p.heapBase);
    for (const m of p.modules) this.register(m);
    this.i32 = new Int32Array(p.memory.buffer);
    this.dv = new DataView(p.memory.buffer);
    this.launchTimeoutMs = p.launchTimeoutMs;
    this.fallbackReason = p.fallbackReason;
  }

  private register(m: LoadedModule): void {
    let next = this.kernelIndex.size;
    for (const n of m.kernelNames) this.kernelIndex.set(`${m.id}/${n}`, { index: next++, exports: m.exports });
    this.modules.push(m);
  }

  /**
   * Loads a compiled kernel module (`compileKernels`, `simt build`) so its kernels can be
   * launched. Waits for queued launches; loading the same module twice is a no-op.
   */
  async load(module: KernelModule): Promise<void> {
    // Loaded already: nothing to wait for (jobs load simt's own module before their launches).
    if (this.modules.some((m) => m.id === module?.id)) return;
    await this.idle();
    if (this.modules.some((m) => m.id === module?.id)) return;
    const loaded = await prepareModule(module, this.memory);
    await this.idle();
    if (this.modules.some((m) => m.id === module.id)) return;
    await this.pool.addModule(loaded.pool);
    this.register(loaded);
  }

  /** Heap bytes: total, in use and free (and the largest free block). */
  memoryInfo(): MemoryInfo {
    return {
      heapBytes: this.heap.size, usedBytes: this.heap.usedBytes, freeBytes: this.heap.freeBytes,
      largestFreeBytes: this.heap.largestFreeBytes, allocations: this.heap.allocations,
    };
  }

  /** Allocates `length` elements of `dtype`, 128-byte aligned. Contents are unspecified (as cudaMalloc). */
  alloc<D extends DType>(dtype: D, length: number): DeviceArray<D> {
    this.checkAlive();
    if (!Object.prototype.hasOwnProperty.call(DTYPES, dtype)) {
      throw new BufferMismatchError(`unknown dtype '${String(dtype)}'; use one of ${Object.keys(DTYPES).join(', ')}`);
    }
    if (!Number.isSafeInteger(length) || length < 0) {
      throw new BufferMismatchError(`length must be a non-negative integer, got ${String(length)}`);
    }
    const bytes = length * DTYPES[dtype].bytes;
    const offset = bytes <= this.memoryBytes ? this.heap.alloc(bytes) : undefined;
    if (offset === undefined) {
      throw new OutOfDeviceMemoryError(bytes, this.heap.freeBytes, this.heap.largestFreeBytes);
    }
    const a = new WasmDeviceArray(this, dtype, length, offset);
    this.live.add(a as WasmDeviceArray<DType>);
    this.memoryObserver?.allocated(a);
    return a;
  }

  /** Allocates and uploads in one step. */
  async upload<D extends DType>(dtype: D, data: TypedArrayOf[D] | ArrayLike<ScalarOf<D>>): Promise<DeviceArray<D>> {
    const a = this.alloc(dtype, data.length);
    await a.upload(data);
    return a;
  }

  /** @internal */
  releaseArray(a: WasmDeviceArray<DType>): void {
    this.live.delete(a);
    this.memoryObserver?.freed(a);
    if (!this.destroyed) this.heap.release(a.byteOffset);
  }

  /** Resolves when every launch queued so far has finished (cudaDeviceSynchronize). */
  async synchronize(): Promise<void> {
    await this.queue.catch(() => undefined);
  }

  /**
   * Launches `kernel` over `grid` blocks of `block` threads. Resolves with the launch's stats
   * when it has finished; rejects with a typed error for a bad configuration or argument
   * (before anything runs), a trap (KernelError), a timeout or an abort.
   */
  launch<P extends Record<string, ParamSpec>>(kernel: Kernel<P>, config: LaunchConfig, ...rest: LaunchArgsParam<P>): Promise<LaunchStats> {
    return this.launchWith(kernel, config, rest[0] ?? [], {});
  }

  /**
   * @internal A launch as simt's own tools make it: `seeded` runs it in the serial backend's
   * seeded order (one worker claims every block), `screenState` tells a race-screen form where
   * its state block is (src/race/screen.ts).
   */
  launchWith(kernel: Kernel, config: LaunchConfig, args: KernelArgs, internal: InternalLaunch): Promise<LaunchStats> {
    let prepared: PreparedLaunch;
    try {
      this.checkAlive();
      prepared = { ...this.prepare(kernel, config, args), seeded: internal.seeded ?? this.backend === 'serial', screenState: internal.screenState ?? 0 };
    } catch (e) {
      return Promise.reject(e);
    }
    // Launches run one at a time, in order (one stream). The common case — nothing in flight —
    // dispatches at once, without a trip through the microtask queue.
    let run: Promise<LaunchStats>;
    this.pending++;
    if (this.pending === 1 && !this.busy) {
      run = this.execute(prepared);
    } else {
      run = this.queue.catch(() => undefined).then(() => this.execute(prepared));
    }
    const settle = () => { this.pending--; };
    run.then(settle, settle);
    this.queue = run;
    return run;
  }

  private prepare(kernel: Kernel, config: LaunchConfig, args: KernelArgs): Omit<PreparedLaunch, 'seeded' | 'screenState'> {
    if (!kernel || typeof kernel.name !== 'string' || !Array.isArray(kernel.params)) {
      throw new KernelArgumentError(String((kernel as Kernel | undefined)?.name), '(kernel)', 'not a kernel declared with defineKernel');
    }
    const entry = this.kernelIndex.get(`${kernel.module?.id ?? BUILTIN_MODULE}/${kernel.name}`);
    if (entry === undefined) {
      if (kernel.module) throw new LaunchConfigError(`kernel '${kernel.name}' belongs to a kernel module this device has not loaded: call device.load(module) first (or createDevice({ modules }))`);
      throw new LaunchConfigError(`kernel '${kernel.name}' is not in the kernels module (known: ${this.modules[0]!.kernelNames.join(', ')})`);
    }
    const index = entry.index;
    const fn = entry.exports[kernel.name] as (...a: unknown[]) => void;
    const wasmParams = kernel.params.reduce((n, p) => n + (kernel.module && p.kind === 'array' ? 2 : 1), 0);
    if (fn.length !== wasmParams) {
      throw new KernelArgumentError(kernel.name, '(declaration)',
        `declared with ${kernel.params.length} parameters but the wasm export takes ${fn.length}`);
    }
    if (config === null || typeof config !== 'object') throw new LaunchConfigError('launch config must be an object {grid, block, sharedBytes?}');
    const grid = toDim3('grid', config.grid);
    const block = toDim3('block', config.block);
    const sharedBytes = config.sharedBytes ?? 0;
    if (!Number.isInteger(sharedBytes) || sharedBytes < 0) {
      throw new LaunchConfigError(`sharedBytes must be a non-negative integer, got ${String(sharedBytes)}`);
    }
    const staticShared = kernel.module?.staticSharedBytes ?? 0;
    if (sharedBytes + staticShared > this.sharedMemoryLimit) throw new SharedMemoryLimitError(sharedBytes + staticShared, this.sharedMemoryLimit);
    const problem = kernel.requires?.({ grid, block, sharedBytes });
    if (problem !== undefined) throw new LaunchConfigError(`kernel ${kernel.name} ${problem}`);
    const blocks = grid.x * grid.y * grid.z;
    if (!Number.isSafeInteger(blocks)) {
      throw new LaunchConfigError(`grid has ${blocks} blocks; simt runs at most 2^53 blocks per launch`);
    }
    let workers = this.workers;
    if (config.workers !== undefined) {
      if (!Number.isInteger(config.workers) || config.workers < 1 || config.workers > this.workers) {
        throw new LaunchConfigError(`workers must be an integer in [1, ${this.workers}], got ${String(config.workers)}`);
      }
      workers = config.workers;
    }
    const timeoutMs = config.timeoutMs ?? this.launchTimeoutMs;
    if (!(timeoutMs > 0)) throw new LaunchConfigError(`timeoutMs must be positive, got ${String(timeoutMs)}`);
    const seedIssue = config.seed === undefined ? undefined : seedProblem(config.seed);
    if (seedIssue !== undefined) throw new LaunchConfigError(`seed ${seedIssue}`);
    const values = this.marshal(kernel, args);
    // Only a launch that passed every check takes the next launch seed: a rejected one leaves
    // the device seed's sequence as it was (same seed ⇒ same bytes).
    const seed = config.seed !== undefined ? normalizeSeed(config.seed) : launchSeed(this.seed, this.launches);
    this.launches++;
    return { kernel, index, grid, block, blocks, sharedBytes, workers, timeoutMs, seed, values, signal: config.signal };
  }

  /** Checks every argument against the declaration (launchArgs.ts) and encodes it (tag, 8-byte value). */
  private marshal(kernel: Kernel, args: KernelArgs): Marshalled[] {
    if (kernel.params.length > CTL.MAX_ARGS) throw new KernelArgumentError(kernel.name, '(all)', `more than ${CTL.MAX_ARGS} parameters`);
    const values = argumentList(kernel, args);
    const compiled = !!kernel.module;
    if (compiled && kernel.params.length + kernel.params.filter((p) => p.kind === 'array').length > CTL.MAX_ARGS) {
      throw new KernelArgumentError(kernel.name, '(all)', `more than ${CTL.MAX_ARGS} argument words (an array takes two)`);
    }
    return kernel.params.flatMap((p, k): Marshalled[] => {
      if (p.kind === 'array') {
        const a = checkArrayArg(kernel.name, p, values[k], WasmDeviceArray, this);
        // The launch may write any array it is passed.
        this.memoryObserver?.written(a, 0, a.byteLength);
        // A compiled kernel's array is (pointer, length): its accesses are bounds-checked.
        return compiled ? [{ tag: ArgTag.Pointer, value: a.byteOffset }, { tag: ArgTag.I32, value: a.length }] : [{ tag: ArgTag.Pointer, value: a.byteOffset }];
      }
      const v = checkScalarArg(kernel.name, p, values[k]);
      switch (p.dtype) {
        case 'i32': return [{ tag: ArgTag.I32, value: v }];
        case 'u32': return [{ tag: ArgTag.U32, value: v }];
        case 'f32': return [{ tag: ArgTag.F32, value: v }];
        case 'f64': return [{ tag: ArgTag.F64, value: v }];
        default: return [{ tag: ArgTag.I64, value: BigInt.asIntN(64, v as bigint) }];
      }
    });
  }

  /**
   * The host's spin for a launch (hostSpinOnlyWhenShort): none where the kernel's last launch had
   * the same block count and outlasted the spin; the spin for any other (a shape not seen last).
   */
  private hostSpinFor(l: PreparedLaunch): number {
    if (!this.hostSpinOnlyWhenShort) return this.hostSpinMicros;
    return this.lastBlocks[l.index] === l.blocks && this.lastMicros[l.index]! > this.hostSpinMicros ? 0 : this.hostSpinMicros;
  }

  private async execute(l: PreparedLaunch): Promise<LaunchStats> {
    this.checkAlive();
    // Aborted before it started (while queued, or already on issue): nothing runs.
    if (l.signal?.aborted) throw new LaunchAbortedError(l.kernel.name, l.signal.reason);
    this.busy = true;
    try {
      // A worker lost since the last launch is replaced before this one runs (DeviceLostError
      // when none can be started), so a launch always runs on the workers its stats claim.
      if (this.pool.failure) throw this.pool.failure;
      if (this.pool.lost) await this.pool.recover();
      const t0 = performance.now();
      const i32 = this.i32;
      const dv = this.dv;
      const seeded = l.seeded;
      const chunk = chunkSize(l.blocks, l.workers, seeded);
      this.pool.publish(Math.ceil(l.blocks / chunk), () => {
        for (let a = 0; a < l.values.length; a++) {
          const m = l.values[a]!;
          const at = CTL.ARGS_BYTE + a * 8;
          i32[CTL.ARG_TAGS + a] = m.tag;
          if (m.tag === ArgTag.F32) dv.setFloat32(at, m.value as number, true);
          else if (m.tag === ArgTag.F64) dv.setFloat64(at, m.value as number, true);
          else if (m.tag === ArgTag.I64) dv.setBigInt64(at, m.value as bigint, true);
          else dv.setUint32(at, (m.value as number) >>> 0, true);
        }
        i32[CTL.COMMAND] = Command.Run;
        i32[CTL.KERNEL] = l.index;
        i32[CTL.NARGS] = l.values.length;
        i32[CTL.GRID_X] = l.grid.x; i32[CTL.GRID_Y] = l.grid.y; i32[CTL.GRID_Z] = l.grid.z;
        i32[CTL.BLOCK_X] = l.block.x; i32[CTL.BLOCK_Y] = l.block.y; i32[CTL.BLOCK_Z] = l.block.z;
        i32[CTL.SHARED_BYTES] = l.sharedBytes;
        const [lo, hi] = splitSeed(l.seed);
        i32[CTL.SEEDED] = seeded ? 1 : 0;
        i32[CTL.SEED_LO] = lo | 0; i32[CTL.SEED_HI] = hi | 0;
        i32[CTL.CHUNK_BLOCKS] = chunk;
        i32[CTL.ACTIVE_WORKERS] = l.workers;
        i32[CTL.SCREEN_STATE] = l.screenState;
        dv.setFloat64(CTL.TOTAL_BLOCKS_BYTE, l.blocks, true);
      });
      const outcome = await this.pool.wait(t0 + l.timeoutMs, l.signal, this.hostSpinFor(l));
      const elapsedMs = performance.now() - t0;
      this.lastBlocks[l.index] = l.blocks;
      this.lastMicros[l.index] = elapsedMs * 1000;
      if (outcome !== 'cancelled' && outcome !== 'lost') {
        // A kernel that wrote over the launch protocol makes every other outcome meaningless
        // (a launch "done" with blocks that never ran): say so, and start clean workers.
        const word = this.pool.controlPageProblem();
        if (word !== undefined) {
          await this.pool.restart();
          throw new ControlPageError(l.kernel.name, word);
        }
      }
      if (outcome === 'cancelled') throw new DeviceDestroyedError(`the device was destroyed while kernel ${l.kernel.name} ran`);
      if (outcome === 'lost') {
        const lost = this.pool.lost!;
        await this.pool.recover();
        throw new WorkerLostError(l.kernel.name, lost.worker, this.workers, lost.detail);
      }
      if (outcome !== 'done') {
        const restarted = await this.pool.stop(STOP_GRACE_MS);
        if (outcome === 'timeout') throw new KernelTimeoutError(l.kernel.name, l.timeoutMs, restarted);
        throw new LaunchAbortedError(l.kernel.name, l.signal?.reason);
      }
      if (Atomics.load(i32, CTL.ERROR) !== 0) throw this.trapError(l);
      return {
        kernel: l.kernel.name, backend: this.backend, grid: l.grid, block: l.block, blocks: l.blocks,
        threadsPerBlock: l.block.x * l.block.y * l.block.z, sharedBytes: l.sharedBytes, workers: l.workers,
        elapsedMs, seed: seeded ? l.seed : null,
      };
    } finally {
      this.busy = false;
    }
  }

  private trapError(l: PreparedLaunch): KernelError {
    const len = this.i32[CTL.ERROR_MSG_LEN]!;
    const msg = new TextDecoder().decode(new Uint8Array(this.memory.buffer, CTL.ERROR_MSG_BYTE, len).slice());
    const linear = this.dv.getFloat64(CTL.ERROR_BLOCK_BYTE, true);
    const gxy = l.grid.x * l.grid.y;
    const z = Math.floor(linear / gxy);
    const r = linear - z * gxy;
    const y = Math.floor(r / l.grid.x);
    return new KernelError(l.kernel.name, { x: r - y * l.grid.x, y, z }, msg);
  }

  private checkAlive(): void {
    if (this.destroyed) throw new DeviceDestroyedError('the device was destroyed');
  }

  /** @internal Orders host transfers after queued launches. */
  async idle(): Promise<void> {
    this.checkAlive();
    if (this.pending > 0 || this.busy) await this.queue.catch(() => undefined);
    this.checkAlive();
  }

  get isDestroyed(): boolean { return this.destroyed; }

  /**
   * Ends the workers and invalidates every array. A launch running is cancelled (its workers
   * are terminated, whatever the kernel does) and it and the queued ones reject with
   * DeviceDestroyedError, as does anything issued from now on. Safe to call twice.
   */
  destroy(): Promise<void> {
    if (this.teardown) return this.teardown;
    this.destroyed = true;
    this.pool.cancel();
    this.teardown = (async () => {
      await this.synchronize();
      for (const a of this.live) a.markFreed();
      this.live.clear();
      await this.pool.destroy();
    })();
    return this.teardown;
  }
}

interface Marshalled { tag: number; value: number | bigint }

interface PreparedLaunch {
  kernel: Kernel; index: number; grid: Dim3; block: Dim3; blocks: number; sharedBytes: number; workers: number;
  timeoutMs: number; seed: number; values: Marshalled[]; signal: AbortSignal | undefined;
  /** Blocks in a seeded order, threads in seeded phase orders (the serial backend's launches). */
  seeded: boolean;
  /** A race-screen launch's state block (CTL.SCREEN_STATE); 0 for every other launch. */
  screenState: number;
}

/** See Device.launchWith. */
export interface InternalLaunch { seeded?: boolean; screenState?: number }

/**
 * Blocks claimed per compare-exchange: enough to make claiming cheap (≤ 256), few enough to balance the
 * load (≈16 claims per worker), and at least total/2³⁰ so the chunk counter stays in i32.
 */
function chunkSize(blocks: number, workers: number, seeded: boolean): number {
  if (seeded) return Math.max(1, Math.ceil(blocks / 2 ** 30));
  const balanced = Math.floor(blocks / (workers * 16));
  return Math.max(1, Math.min(256, balanced), Math.ceil(blocks / 2 ** 30));
}

export class WasmDeviceArray<D extends DType> extends DeviceArrayBase<D> implements DeviceArray<D> {

  constructor(readonly device: Device, dtype: D, length: number, readonly byteOffset: number) {
    super(dtype, length);
  }

  /**
   * The elements [start, end) in place: a typed array over the device's shared memory, no copy
   * (the DeviceArray interface states the lifetime rules). The memory never grows (its initial
   * and maximum sizes are equal), so `memory.buffer` is one SharedArrayBuffer for the device's
   * life and a view never goes stale for that reason.
   */
  view(start?: number, end?: number): TypedArrayOf[D] {
    this.checkLive('view');
    if (this.device.isDestroyed) throw new DeviceDestroyedError('view: the device was destroyed');
    const [s, e] = this.range(start, end, 'view');
    // What the host writes through the view is not seen: handing it out counts as writing it.
    this.device.memoryObserver?.written(this, s * DTYPES[this.dtype].bytes, (e - s) * DTYPES[this.dtype].bytes);
    return viewOf(this.dtype, this.device.memory.buffer, this.byteOffset + s * DTYPES[this.dtype].bytes, e - s);
  }

  /** @deprecated The same as `view()`. */
  unsafeView(): TypedArrayOf[D] {
    return this.view();
  }

  async upload(data: TypedArrayOf[D] | ArrayLike<ScalarOf<D>>, offset = 0): Promise<void> {
    this.checkUpload(data, offset);
    await this.device.idle();
    this.checkLive('upload');
    const view = viewOf(this.dtype, this.device.memory.buffer, this.byteOffset + offset * DTYPES[this.dtype].bytes, data.length);
    try {
      (view as unknown as { set(a: ArrayLike<unknown>): void }).set(data as ArrayLike<unknown>);
    } catch (e) {
      throw new BufferMismatchError(`upload: data does not convert to ${this.dtype}: ${(e as Error).message}`);
    }
    this.device.memoryObserver?.written(this, offset * DTYPES[this.dtype].bytes, data.length * DTYPES[this.dtype].bytes);
  }

  async read(start?: number, end?: number): Promise<TypedArrayOf[D]> {
    this.checkLive('read');
    const [s, e] = this.range(start, end, 'read');
    await this.device.idle();
    this.checkLive('read');
    const bytes = DTYPES[this.dtype].bytes;
    const copy = new Uint8Array(this.device.memory.buffer, this.byteOffset + s * bytes, (e - s) * bytes).slice();
    return viewOf(this.dtype, copy.buffer, 0, e - s);
  }

  async fill(value: ScalarOf<D>, start?: number, end?: number): Promise<void> {
    this.checkLive('fill');
    const [s, e] = this.range(start, end, 'fill');
    this.checkFill(value);
    await this.device.idle();
    this.checkLive('fill');
    (viewOf(this.dtype, this.device.memory.buffer, this.byteOffset, this.length) as unknown as { fill(v: unknown, s: number, e: number): void }).fill(value, s, e);
    this.device.memoryObserver?.written(this, s * DTYPES[this.dtype].bytes, (e - s) * DTYPES[this.dtype].bytes);
  }

  free(): void {
    this.checkLive('free');
    this.markFreed();
    this.device.releaseArray(this as unknown as WasmDeviceArray<DType>);
  }
}
