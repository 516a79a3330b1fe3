/// <reference types="@webgpu/types" />
/**
 * The WebGPU device: the same GpuDevice API as the wasm backends (src/device.ts), over a WebGPU
 * device (Dawn in Node, navigator.gpu in a browser). Device arrays are GPU storage buffers holding
 * the host's own bytes; launches are compute dispatches of the kernel's WGSL twin
 * (assembly/kernels/NAME.wgsl) through WebGpuRuntime. docs/webgpu.md lists every difference
 * from the wasm backends.
 */
import type { WebGpuBuffer, WebGpuSupportedLimits } from './types.js';
import { type DType, DTYPES, type ScalarOf, type TypedArrayOf, dtypeOfArray, viewOf } from '../dtypes.js';
import { type Dim3, toDim3 } from '../dims.js';
import {
  BufferMismatchError, DeviceDestroyedError, KernelArgumentError, KernelError, KernelTimeoutError, LaunchAbortedError,
  LaunchConfigError, MemorySizeError, OutOfDeviceMemoryError, SharedMemoryLimitError, UseAfterFreeError,
  NotHostMappedError,
} from '../errors.js';
import type { Kernel, Param, ParamSpec, StoreColumns } from '../kernel.js';
import type { LaunchArgsParam } from '../launchTypes.js';
import { argumentList, checkArrayArg, checkScalarArg, describe } from '../launchArgs.js';
import type { GpuDevice, KernelArg, KernelArgs, LaunchConfig, LaunchStats, MemoryInfo } from '../deviceApi.js';
import type { DeviceArray } from '../memory/deviceArray.js';
import { DeviceArrayBase } from '../memory/deviceArrayBase.js';
import { openWebGpu, type OpenWebGpuOptions, type WebGpuAdapterInfo, type WebGpuContext } from './gpu.js';
import { kernelWgslNow, loadKernelWgsl, WGSL_KERNELS, type WgslKernelInfo } from './kernels.js';
import { type BufferCopy, type DispatchDescriptor, type DispatchResult, LaunchValidationError, WebGpuRuntime } from './runtime.js';
import { KernelModuleError, MODULE_FORMAT, type KernelModule, type KernelModuleMeta, type ModuleWgslKernel } from '../kernelModule.js';
import { trapMessage } from './trapRecord.js';
import { probeSubgroupWarps, subgroupSizeRulesOut, type SubgroupWarps } from './subgroupProbe.js';
import { Deadlines } from './deadlines.js';
import { TrapReadbacks, type TrapSlot } from './trapReadbacks.js';
import { Relaunches } from './relaunch.js';
import { shippedModule } from '../shippedModule.js';
import { compileLaunchProof, type LaunchProof, type LaunchProofMeta } from '../launchProof.js';

export interface WebGpuDeviceOptions extends OpenWebGpuOptions {
  /**
   * Device memory budget in bytes (default 1 GiB, as the wasm device). WebGPU does not say how
   * much memory a GPU has: allocations beyond this budget, or one array beyond the adapter's
   * maxStorageBufferBindingSize, fail with OutOfDeviceMemoryError.
   */
  memoryBytes?: number;
  /** Default time limit of a launch in ms (default 10 minutes). */
  launchTimeoutMs?: number;
  /** Bracket every launch with timestamp queries and report `gpuTimeMs` (needs 'timestamp-query'). */
  gpuTiming?: boolean;
  /** An already opened context to use (the device then owns and destroys it). */
  context?: WebGpuContext;
  /** Compiled kernel modules (`compileKernels`, `simt build`) whose kernels run as their generated WGSL. */
  modules?: readonly KernelModule[];
  /**
   * Run warp shuffles and votes as subgroup builtins where the device's subgroups are CUDA's
   * warps (checked when the device is created: 32 lanes, lane = thread index mod 32), else in
   * workgroup memory (default true; false: always workgroup memory). `device.warpOps` says which.
   */
  subgroups?: boolean;
  /**
   * Run the built-ins that have a hand-written WGSL twin (vecSum, the PET kernels, the pixel
   * store kernels) as that twin (default true). false: as their generic kernel's generated WGSL,
   * like every other built-in (the pixel kernels on copies of the store's columns), which
   * computes f64 in software with wasm's exact bits (vecSum's twin sums in f32 within a bound).
   * `device.twins` says which.
   */
  twins?: boolean;
}

const DEFAULT_MEMORY_BYTES = 1 << 30;
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

let nextWebGpuDeviceId = 1_000_001; // distinct from the wasm devices' ids

/** Opens a WebGPU adapter and device; throws WebGpuUnavailableError (a BackendUnavailableError) saying why when none can be had. */
export async function createWebGpuDevice(options: WebGpuDeviceOptions = {}): Promise<WebGpuDevice> {
  const memoryBytes = options.memoryBytes ?? DEFAULT_MEMORY_BYTES;
  if (!Number.isSafeInteger(memoryBytes) || memoryBytes <= 0) {
    throw new MemorySizeError(`memoryBytes must be a positive integer, got ${String(memoryBytes)}`);
  }
  const timeout = options.launchTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeout > 0)) throw new LaunchConfigError(`launchTimeoutMs must be positive, got ${String(timeout)}`);
  const ctx = options.context ?? await openWebGpu(options);
  try {
    const runtime = await WebGpuRuntime.create(ctx);
    // simt's own module: a declared specialization without a WGSL twin runs its generic kernel's
    // generated WGSL (loaded now, so that such a launch takes its place in the stream at once).
    const shipped = await shippedModule().catch(() => undefined);
    const warps: SubgroupWarps = options.subgroups === false ? { ok: false, reason: 'subgroups: false' }
      : !ctx.hasSubgroups ? { ok: false, reason: 'the adapter has no subgroups feature' }
      : subgroupSizeRulesOut(ctx.adapterInfo.subgroupMinSize, ctx.adapterInfo.subgroupMaxSize) ?? await probeSubgroupWarps(ctx.device, Math.min(1024, ctx.limits.maxComputeInvocationsPerWorkgroup));
    if (options.twins !== undefined && typeof options.twins !== 'boolean') throw new LaunchConfigError(`webgpu.twins must be a boolean, got ${String(options.twins)}`);
    const dev = new WebGpuDevice(ctx, runtime, memoryBytes, timeout, options.gpuTiming === true, shipped, warps, options.twins !== false);
    if (shipped) await dev.load(shipped);
    for (const m of options.modules ?? []) await dev.load(m);
    return dev;
  } catch (e) {
    await ctx.destroy();
    throw e;
  }
}

interface PreparedLaunch {
  kernel: Kernel; info: WgslKernelInfo; wgsl: string; grid: Dim3; block: Dim3; blocks: number; sharedBytes: number;
  timeoutMs: number; buffers: WebGpuBuffer[]; scalars: Uint32Array; signal: AbortSignal | undefined;
  /** A kernel of a compiled module: its generated WGSL and where its traps point. */
  generated?: { wgsl: ModuleWgslKernel; meta: KernelModuleMeta; constants: Record<string, number>; proven?: boolean };
  /** A store kernel run as its generic kernel: its columns copied in before the pass, the written ones back after. */
  copiesBefore?: BufferCopy[]; copiesAfter?: BufferCopy[];
  /** What the runtime dispatches for it, kept where it is the same each launch (no trap record slot). */
  desc?: DispatchDescriptor;
}

/** A store column the generic kernel of a store kernel binds (as `binding`), and its copies. */
interface ColumnBinding { binding: number; copyIn: BufferCopy; copyBack: BufferCopy }

export class WebGpuDevice implements GpuDevice {
  readonly id = nextWebGpuDeviceId++;
  readonly backend = 'webgpu' as const;
  readonly workers = 0;
  /** The adapter's maxComputeWorkgroupStorageSize (32 KiB on SwiftShader, 48 KiB on NVIDIA). */
  readonly sharedMemoryLimit: number;
  /** min(1024, the adapter's maxComputeInvocationsPerWorkgroup): 256 on SwiftShader. */
  readonly maxThreadsPerBlock: number;
  /** Set only on wasm devices that `backend: 'auto'` fell back to. */
  readonly fallbackReason: string | undefined = undefined;
  /**
   * How compiled kernels run warp shuffles and votes here: as subgroup builtins (the device's
   * subgroups are CUDA's warps) or through workgroup memory (any subgroup size).
   */
  readonly warpOps: 'subgroups' | 'workgroup-memory';
  /** Why `warpOps` is what it is (the subgroup probe's finding). */
  readonly warpOpsReason: string;
  /** GPU memory is not the host's: `view()` throws NotHostMappedError; read()/upload() copy. */
  readonly hostMapped = false;
  readonly memoryBytes: number;
  readonly adapterInfo: WebGpuAdapterInfo;
  /** The WebGPU context: holds dawn.node's create() object alive until destroy(). */
  readonly context: WebGpuContext;
  readonly runtime: WebGpuRuntime;
  private usedBytes = 0;
  private readonly live = new Set<WebGpuDeviceArray<DType>>();
  private destroyed = false;
  private tail: Promise<unknown> = Promise.resolve();
  /** Operations enqueued and not yet started: a launch with none behind it submits its batch. */
  private queued = 0;
  /** Operations enqueued and not yet settled: with none, a launch encodes at once (launch()). */
  private active = 0;
  /** A flush is due at the end of the current task's synchronous code (launches encoded at once). */
  private flushDue = false;
  private readonly launchTimeoutMs: number;
  private readonly gpuTiming: boolean;
  private lostReason: string | undefined;
  /** simt's own module (shippedModule()), when it could be loaded: the generic kernels of the built-in specializations. */
  private readonly shipped: KernelModule | undefined;
  /** The deadlines of the launches in flight, on one timer. */
  private readonly deadlines = new Deadlines();
  /** Loaded kernel modules by id. */
  private readonly modules = new Map<string, KernelModuleMeta>();
  /** The trap record generated kernels write (zero between launches: each launch's command buffer clears it). */
  /** Where each generated launch's command buffer copies the trap record, mapped for many launches at once. */
  private readonly trapReadbacks: TrapReadbacks;
  /** The subgroup form of each generated kernel launched here (generatedKernel). */
  private readonly subgroupForms = new WeakMap<ModuleWgslKernel, ModuleWgslKernel>();
  private readonly launchProofs = new WeakMap<LaunchProofMeta, LaunchProof>();
  /** Each kernel's last launch, prepared: a relaunch with the same configuration and arguments reuses it. */
  private readonly relaunches = new Relaunches<Omit<PreparedLaunch, 'wgsl'>>();
  /** Launches submitted and not yet settled: synchronize() and destroy() wait for them. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Whether the built-ins with a hand-written WGSL twin run as it (WebGpuDeviceOptions.twins). */
  readonly twins: boolean;
  /** The arrays a store kernel's columns are copied into, by `generic.param` (reused across launches). */
  private readonly columnArrays = new Map<string, WebGpuDeviceArray<DType>>();

  constructor(ctx: WebGpuContext, runtime: WebGpuRuntime, memoryBytes: number, launchTimeoutMs: number, gpuTiming: boolean, shipped?: KernelModule,
              warps: SubgroupWarps = { ok: false, reason: 'not checked' }, twins = true) {
    this.context = ctx;
    this.twins = twins;
    this.warpOps = warps.ok ? 'subgroups' : 'workgroup-memory';
    this.warpOpsReason = warps.reason;
    this.shipped = shipped;
    this.runtime = runtime;
    this.memoryBytes = memoryBytes;
    this.launchTimeoutMs = launchTimeoutMs;
    this.gpuTiming = gpuTiming;
    this.trapReadbacks = new TrapReadbacks(ctx.device, runtime.trapRecordStride);
    this.adapterInfo = ctx.adapterInfo;
    const lim = ctx.limits;
    this.sharedMemoryLimit = lim.maxComputeWorkgroupStorageSize;
    this.maxThreadsPerBlock = Math.min(1024, lim.maxComputeInvocationsPerWorkgroup);
    void ctx.lost.then((info) => {
      if (!this.destroyed) this.lostReason = `the WebGPU device was lost (${info.reason}): ${info.message}`;
    });
  }

  get limits(): WebGpuSupportedLimits { return this.context.limits; }
  get isDestroyed(): boolean { return this.destroyed; }

  /** Largest one array: the adapter's storage binding limit (and maxBufferSize). */
  get maxArrayBytes(): number {
    const l = this.context.limits;
    return Math.min(l.maxStorageBufferBindingSize, l.maxBufferSize);
  }

  memoryInfo(): MemoryInfo {
    const free = this.memoryBytes - this.usedBytes;
    return {
      heapBytes: this.memoryBytes, usedBytes: this.usedBytes, freeBytes: free,
      largestFreeBytes: Math.max(0, Math.min(free, this.maxArrayBytes)), allocations: this.live.size,
    };
  }

  /** A storage buffer of `length` elements. Contents are zero (cudaMalloc leaves them unspecified). */
  alloc<D extends DType>(dtype: D, length: number): DeviceArray<D> {
    this.checkAlive();
    if (!Object.prototype.hasOwnProperty.call(DTYPES, dtype)) {
      throw new BufferMismatchError(`unknown dtype '${String(dtype)}'; use one of ${Object.keys(DTYPES).join(', ')}`);
    }
    if (!Number.isSafeInteger(length) || length < 0) {
      throw new BufferMismatchError(`length must be a non-negative integer, got ${String(length)}`);
    }
    const bytes = length * DTYPES[dtype].bytes;
    // Buffers are whole 4-byte words (u8/u16 columns are read as u32 words in WGSL), at least one.
    const size = Math.max(4, Math.ceil(bytes / 4) * 4);
    const info = this.memoryInfo();
    if (size > info.largestFreeBytes) throw new OutOfDeviceMemoryError(bytes, info.freeBytes, info.largestFreeBytes);
    const buffer = this.context.device.createBuffer({
      size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, label: `simt-${dtype}[${length}]`,
    });
    this.usedBytes += size;
    const a = new WebGpuDeviceArray(this, dtype, length, buffer, size);
    this.live.add(a as WebGpuDeviceArray<DType>);
    return a;
  }

  async upload<D extends DType>(dtype: D, data: TypedArrayOf[D] | ArrayLike<ScalarOf<D>>): Promise<DeviceArray<D>> {
    const a = this.alloc(dtype, (data as ArrayLike<unknown> | null)?.length ?? -1);
    try {
      await a.upload(data);
    } catch (e) {
      a.free();
      throw e;
    }
    return a;
  }

  /** @internal */
  releaseArray(a: WebGpuDeviceArray<DType>): void {
    if (!this.live.delete(a)) return;
    this.usedBytes -= a.bufferBytes;
    if (this.destroyed) return;
    // Launches queued before the free may still bind the buffer: it goes once they are submitted
    // (WebGPU defers a destroy past submitted work), as cudaFree waits for the work before it.
    // In stream order, without submitting a batch that launches after it may still join.
    const buffer = a.buffer;
    void this.enqueue(async () => {
      this.runtime.afterSubmit(() => buffer.destroy());
      if (this.queued === 0) this.runtime.flush();
    }, true).catch(() => buffer.destroy());
  }

  /**
   * Runs `op` after every operation queued before it (one stream: launches and transfers in
   * order, as the wasm device orders them).
   * @internal
   */
  enqueue<T>(op: () => Promise<T>, launch = false): Promise<T> {
    this.queued++;
    this.active++;
    const run = this.tail.catch(() => undefined).then(() => {
      this.queued--;
      // Launches encoded so far go to the GPU before any other operation (runtime.ts: batches).
      if (!launch) this.runtime.flush();
      this.checkAlive();
      return op();
    });
    const settled = (): void => { this.active--; };
    run.then(settled, settled);
    this.tail = run;
    return run;
  }

  /**
   * Submits the launches encoded at once once the caller's synchronous code is done: a loop of
   * launches fills one batch (one command buffer and submit), as launches queued behind one another do.
   */
  private flushSoon(): void {
    if (this.flushDue) return;
    this.flushDue = true;
    queueMicrotask(() => {
      this.flushDue = false;
      try {
        this.runtime.flush();
      } catch {
        // The batch's launches reject with what the submit threw (runtime.flush settles them).
      }
    });
  }

  async synchronize(): Promise<void> {
    await this.tail.catch(() => undefined);
    await Promise.allSettled([...this.inFlight]);
    if (!this.destroyed) await this.context.device.queue.onSubmittedWorkDone();
  }

  /**
   * Makes a compiled module's kernels launchable here: each runs as the WGSL the compiler
   * generated for it (`meta.wgsl`); a kernel without one fails its launch naming the reason.
   * Loading the same module twice is a no-op.
   */
  async load(module: KernelModule): Promise<void> {
    this.checkAlive();
    const meta = (module as KernelModule | undefined)?.meta;
    if (meta?.format !== MODULE_FORMAT) throw new KernelModuleError(`not a simt kernel module (format ${String(meta?.format)}; expected ${MODULE_FORMAT})`);
    // Each kernel's launch proof is parsed here, once: a module whose proof the host cannot read is refused.
    for (const [name, w] of Object.entries(meta.wgsl ?? {})) {
      if (!w.launchProof || this.launchProofs.has(w.launchProof)) continue;
      try {
        this.launchProofs.set(w.launchProof, compileLaunchProof(w.launchProof));
      } catch (e) {
        throw new KernelModuleError(`kernel '${name}': its launch proof cannot be read (${(e as Error).message}); rebuild the module`);
      }
    }
    this.modules.set(module.id, meta);
  }

  launch<P extends Record<string, ParamSpec>>(kernel: Kernel<P>, config: LaunchConfig, ...rest: LaunchArgsParam<P>): Promise<LaunchStats> {
    const args: KernelArgs = rest[0] ?? [];
    let prepared: Omit<PreparedLaunch, 'wgsl'>;
    try {
      this.checkAlive();
      prepared = this.prepareOrReuse(kernel, config, args);
    } catch (e) {
      return Promise.reject(e);
    }
    // Launches are ordered on the stream by their submission, not their completion (as CUDA's
    // are): the next launch or transfer is submitted while this one runs, and this promise
    // settles when it has run and its trap record has been read. On an idle stream, with its
    // pipeline built, the launch is encoded now, and its batch submitted when the caller's
    // synchronous code returns (an awaited launch then waits for the GPU alone).
    let done: Promise<LaunchStats> | undefined;
    if (this.active === 0) {
      let now: SubmittedLaunch | undefined;
      try {
        now = this.encodeNow(prepared);
      } catch (e) {
        return Promise.reject(e);
      }
      if (now) {
        this.flushSoon();
        done = this.complete(prepared, now);
      }
    }
    done ??= this.enqueue(() => this.submit(prepared), true).then((s) => this.complete(prepared, s));
    this.inFlight.add(done);
    void done.then(() => this.inFlight.delete(done), () => this.inFlight.delete(done));
    return done;
  }

  /** The kernel's last launch when this one asks for the same (relaunch.ts), else a new one prepared and remembered. */
  private prepareOrReuse(kernel: Kernel, config: LaunchConfig, args: KernelArgs): Omit<PreparedLaunch, 'wgsl'> {
    const again = config !== null && typeof config === 'object' ? this.relaunches.find(kernel, config, args) : undefined;
    if (again) return again;
    const prepared = this.prepare(kernel, config, args);
    // Not a store kernel's: the arrays its columns are copied into may be replaced by another launch.
    if (!prepared.copiesBefore) this.relaunches.remember(kernel, config, args, prepared);
    return prepared;
  }

  private prepare(kernel: Kernel, config: LaunchConfig, args: KernelArgs): Omit<PreparedLaunch, 'wgsl'> {
    if (!kernel || typeof kernel.name !== 'string' || !Array.isArray(kernel.params)) {
      throw new KernelArgumentError(String((kernel as Kernel | undefined)?.name), '(kernel)', 'not a kernel declared with defineKernel');
    }
    let info = this.twins ? (WGSL_KERNELS as Record<string, WgslKernelInfo>)[kernel.name] : undefined;
    // A built-in kernel's launch requirements (a shared-memory tree's power-of-two block, the
    // shared bytes it indexes) hold on every backend, so they are checked below on the kernel as
    // declared; a module kernel's are the wasm pool's own (its register area).
    const declared = kernel;
    // A declared specialization (src/kernels/) without a WGSL twin runs as its generic kernel:
    // the same parameters and results, from the WGSL the compiler generated for simt's module.
    const generic = !kernel.module && info === undefined ? kernel.specializes?.generic : undefined;
    if (generic !== undefined && this.shipped?.kernels[generic]) kernel = this.shipped.kernels[generic]!;
    // A store kernel without a twin runs as its generic kernel on copies of the store's columns.
    const storeColumns = !kernel.module && info === undefined && generic === undefined ? kernel.storeColumns : undefined;
    let columns: ColumnBinding[] | undefined;
    if (storeColumns && this.shipped?.kernels[storeColumns.generic]) {
      ({ kernel, args, columns } = this.onColumns(kernel, storeColumns, args));
    }
    let generated: PreparedLaunch['generated'];
    if (kernel.module) {
      generated = this.generatedKernel(kernel);
      info = { name: kernel.name, entryPoint: 'main', params: [], powerOfTwoBlock: false };
    } else if (info === undefined) {
      throw new LaunchConfigError(`kernel '${kernel.name}' has no WGSL version, so the webgpu backend cannot run it ` +
        `(webgpu runs the kernels with a WGSL twin, ${Object.keys(WGSL_KERNELS).join(', ')}; the built-ins declared as ` +
        `specializations of a generic kernel with a WGSL form, such as vecMax, countModules and findClus; and the kernels of loaded modules)`);
    } else checkDeclaration(kernel, info);
    if (config === null || typeof config !== 'object') throw new LaunchConfigError('launch config must be an object {grid, block, sharedBytes?}');
    const grid = toDim3('grid', config.grid);
    const block = toDim3('block', config.block);
    const lim = this.context.limits;
    const threads = block.x * block.y * block.z;
    const adapter = this.adapterInfo.description || this.adapterInfo.vendor || 'the adapter';
    if (block.x > lim.maxComputeWorkgroupSizeX || block.y > lim.maxComputeWorkgroupSizeY || block.z > lim.maxComputeWorkgroupSizeZ) {
      throw new LaunchConfigError(`block (${block.x}, ${block.y}, ${block.z}) exceeds ${adapter}'s workgroup size limits ` +
        `(${lim.maxComputeWorkgroupSizeX}, ${lim.maxComputeWorkgroupSizeY}, ${lim.maxComputeWorkgroupSizeZ})`);
    }
    if (threads > lim.maxComputeInvocationsPerWorkgroup) {
      throw new LaunchConfigError(`block has ${threads} threads (${block.x}×${block.y}×${block.z}); ${adapter} allows at most ` +
        `${lim.maxComputeInvocationsPerWorkgroup} invocations per workgroup`);
    }
    if (grid.y > lim.maxComputeWorkgroupsPerDimension || grid.z > lim.maxComputeWorkgroupsPerDimension) {
      throw new LaunchConfigError(`grid.y and grid.z must be at most ${lim.maxComputeWorkgroupsPerDimension} on ${adapter}, ` +
        `got (${grid.x}, ${grid.y}, ${grid.z})`);
    }
    const sharedBytes = config.sharedBytes ?? 0;
    if (!Number.isInteger(sharedBytes) || sharedBytes < 0) {
      throw new LaunchConfigError(`sharedBytes must be a non-negative integer, got ${String(sharedBytes)}`);
    }
    if (!declared.module) {
      const problem = declared.requires?.({ grid, block, sharedBytes });
      if (problem !== undefined) throw new LaunchConfigError(`kernel ${declared.name} ${problem}`);
    }
    if (info.powerOfTwoBlock && (block.x & (block.x - 1)) !== 0) {
      throw new LaunchConfigError(`kernel ${kernel.name} needs blockDim.x to be a power of two (its tree reduction halves it), got ${block.x}`);
    }
    if (sharedBytes > this.sharedMemoryLimit) throw new SharedMemoryLimitError(sharedBytes, this.sharedMemoryLimit);
    const blocks = grid.x * grid.y * grid.z;
    if (config.workers !== undefined && (!Number.isInteger(config.workers) || config.workers < 1)) {
      throw new LaunchConfigError(`workers must be a positive integer, got ${String(config.workers)} (ignored on webgpu)`);
    }
    const timeoutMs = config.timeoutMs ?? this.launchTimeoutMs;
    if (!(timeoutMs > 0)) throw new LaunchConfigError(`timeoutMs must be positive, got ${String(timeoutMs)}`);
    const { buffers, scalars, lengths, values } = this.marshal(kernel, args);
    if (generated) {
      // A generated kernel's Launch uniform carries the arrays' lengths after the scalars (bounds checks).
      const elem = generated.wgsl.dynamicSharedElemBytes;
      if (elem) {
        const len = Math.floor(sharedBytes / elem);
        generated.constants = { sx_dyn_len: len, sx_dyn_count: Math.max(1, len) };
      }
      // The launch proof (src/launchProof.ts): where every block passes it, the proven form.
      const proof = generated.wgsl.launchProof ? this.launchProofs.get(generated.wgsl.launchProof) : undefined;
      if (proof) {
        generated.proven = proof.holds({ grid, block, sharedBytes, params: values });
        generated.constants = { ...generated.constants, sx_proven: generated.proven ? 1 : 0 };
      }
      const copies = columns ? this.columnCopies(columns, generated.wgsl.source!) : {};
      return { kernel, info, grid, block, blocks, sharedBytes, timeoutMs, buffers, scalars: Uint32Array.from([...scalars, ...lengths]), signal: config.signal, generated, ...copies };
    }
    return { kernel, info, grid, block, blocks, sharedBytes, timeoutMs, buffers, scalars, signal: config.signal };
  }

  /**
   * A store kernel's launch as its generic kernel's: the arguments checked against the store
   * kernel's declaration, then the generic kernel's, each column parameter an array of the
   * column's `stride` elements that the column is copied into (made once, kept for later launches).
   */
  private onColumns(declared: Kernel, sc: StoreColumns, args: KernelArgs): { kernel: Kernel; args: KernelArg[]; columns: ColumnBinding[] } {
    this.marshal(declared, args); // every argument as the store kernel declares it
    const given = argumentList(declared, args);
    const byName = new Map(declared.params.map((p, k) => [p.name, given[k]]));
    const store = byName.get(sc.store) as WebGpuDeviceArray<'u8'>;
    const stride = byName.get(sc.stride) as number;
    const kernel = this.shipped!.kernels[sc.generic]!;
    const out: KernelArg[] = [];
    const columns: ColumnBinding[] = [];
    let binding = 0;
    for (const p of kernel.params) {
      const loc = sc.columns[p.name];
      if (loc === undefined || p.kind !== 'array') {
        out.push(byName.get(p.name) as KernelArg);
      } else {
        const at = loc * stride * 2, size = stride * DTYPES[p.dtype].bytes;
        if (at % 4 !== 0 || size % 4 !== 0) {
          throw new KernelArgumentError(declared.name, sc.stride, `column '${p.name}' (${size} bytes at byte ${at}) is not whole 4-byte words, which WebGPU copies a store's columns in (stride ${stride})`);
        }
        if (at + size > store.length) {
          throw new KernelArgumentError(declared.name, sc.store, `has ${store.length} bytes; column '${p.name}' (location ${loc}, ${stride} ${p.dtype} at stride ${stride}) ends at byte ${at + size}`);
        }
        const col = this.columnArray(`${sc.generic}.${p.name}`, p.dtype, stride);
        out.push(col);
        columns.push({
          binding,
          copyIn: { src: store.buffer, srcOffset: at, dst: col.buffer, dstOffset: 0, size },
          copyBack: { src: col.buffer, srcOffset: 0, dst: store.buffer, dstOffset: at, size },
        });
      }
      if (p.kind === 'array') binding++;
    }
    return { kernel, args: out, columns };
  }

  /** The array `key`'s column is copied into: `length` elements of `dtype`, replaced when either changes. */
  private columnArray(key: string, dtype: DType, length: number): WebGpuDeviceArray<DType> {
    const had = this.columnArrays.get(key);
    if (had && !had.freed && had.dtype === dtype && had.length === length) return had;
    if (had && !had.freed) had.free();
    const made = this.alloc(dtype, length) as WebGpuDeviceArray<DType>;
    this.columnArrays.set(key, made);
    return made;
  }

  /** Every column copied in; the ones the generic kernel may write (not `var<storage, read>`) copied back. */
  private columnCopies(columns: readonly ColumnBinding[], wgsl: string): { copiesBefore: BufferCopy[]; copiesAfter: BufferCopy[] } {
    const readOnly = this.runtime.readOnlyBindingsOf(wgsl);
    return {
      copiesBefore: columns.map((c) => c.copyIn),
      copiesAfter: columns.filter((c) => !readOnly.has(c.binding)).map((c) => c.copyBack),
    };
  }

  /** The generated WGSL of a module's kernel, or a LaunchConfigError saying why there is none. */
  private generatedKernel(kernel: Kernel): NonNullable<PreparedLaunch['generated']> {
    const meta = this.modules.get(kernel.module!.id);
    if (!meta) {
      throw new LaunchConfigError(`kernel '${kernel.name}' belongs to a kernel module this device has not loaded: call device.load(module) first (or createDevice({ backend: 'webgpu', modules }))`);
    }
    const wgsl = meta.wgsl?.[kernel.name];
    if (!wgsl) throw new LaunchConfigError(`kernel '${kernel.name}' has no WGSL version: its module was built by a compiler that did not emit WGSL (rebuild it)`);
    if (!wgsl.source) {
      const d = wgsl.diagnostics?.[0];
      throw new LaunchConfigError(`kernel '${kernel.name}' has no WGSL form, so the webgpu backend cannot run it` +
        (d ? `: ${d.file}:${d.line}:${d.column}: ${d.message}` : ''));
    }
    // The kernel's subgroup form where this device's subgroups are its warps (made once per kernel).
    if (this.warpOps === 'subgroups' && wgsl.subgroups) {
      let form = this.subgroupForms.get(wgsl);
      if (!form) { form = { ...wgsl, source: wgsl.subgroups.source, sites: wgsl.subgroups.sites }; this.subgroupForms.set(wgsl, form); }
      return { wgsl: form, meta, constants: {} };
    }
    return { wgsl, meta, constants: {} };
  }

  /**
   * Checks every argument against the declaration (launchArgs.ts, as the wasm device does) and
   * encodes it; `values`: by parameter, an array's length or a scalar's value (the launch proof's).
   */
  private marshal(kernel: Kernel, args: KernelArgs): { buffers: WebGpuBuffer[]; scalars: Uint32Array; lengths: number[]; values: number[] } {
    const given = argumentList(kernel, args);
    const buffers: WebGpuBuffer[] = [];
    const lengths: number[] = [];
    const words: number[] = [];
    const values: number[] = [];
    kernel.params.forEach((p, k) => {
      if (p.kind === 'array') {
        const a = checkArrayArg(kernel.name, p, given[k], WebGpuDeviceArray, this);
        buffers.push(a.buffer);
        lengths.push(a.length);
        values.push(a.length);
      } else {
        const v = checkScalarArg(kernel.name, p, given[k]);
        words.push(...scalarWords(p, v));
        values.push(Number(v));
      }
    });
    return { buffers, scalars: Uint32Array.from(words), lengths, values };
  }

  /**
   * Encodes one launch (in stream order) into the runtime's open batch, and submits the batch
   * unless another operation is already queued behind it (a burst of launches in flight then
   * shares one command buffer and submit); complete() waits for it.
   */
  private async submit(l: Omit<PreparedLaunch, 'wgsl'>): Promise<SubmittedLaunch> {
    try {
      return await this.encode(l);
    } finally {
      if (this.queued === 0) this.runtime.flush();
    }
  }

  private async encode(l: Omit<PreparedLaunch, 'wgsl'>): Promise<SubmittedLaunch> {
    this.checkEncodable(l);
    const wgsl = l.generated ? l.generated.wgsl.source! : await loadKernelWgsl(l.info);
    const t0 = performance.now();
    const { desc, slot } = this.dispatchDescriptor(l, wgsl);
    let result: DispatchResult;
    try {
      result = await this.runtime.dispatch(desc);
    } catch (e) {
      throw this.notDispatched(l, slot, e);
    }
    return this.dispatched(result, t0, slot);
  }

  /** encode() without waiting, or undefined (nothing encoded) where it would wait: for a WGSL source or a pipeline not loaded yet. */
  private encodeNow(l: Omit<PreparedLaunch, 'wgsl'>): SubmittedLaunch | undefined {
    this.checkEncodable(l);
    const wgsl = l.generated ? l.generated.wgsl.source! : kernelWgslNow(l.info);
    if (wgsl === undefined) return undefined;
    const t0 = performance.now();
    const { desc, slot } = this.dispatchDescriptor(l, wgsl);
    let result: DispatchResult | undefined;
    try {
      result = this.runtime.dispatchNow(desc);
    } catch (e) {
      throw this.notDispatched(l, slot, e);
    }
    if (!result) {
      if (slot) this.trapReadbacks.release(slot);
      return undefined;
    }
    return this.dispatched(result, t0, slot);
  }

  private checkEncodable(l: Omit<PreparedLaunch, 'wgsl'>): void {
    if (this.lostReason) throw new DeviceDestroyedError(this.lostReason);
    if (l.signal?.aborted) throw new LaunchAbortedError(l.kernel.name, l.signal.reason);
  }

  /** What the runtime dispatches for a launch, and the trap record slot it reserved (released if the dispatch fails). */
  private dispatchDescriptor(l: Omit<PreparedLaunch, 'wgsl'>, wgsl: string): { desc: DispatchDescriptor; slot: TrapSlot | undefined } {
    // A proven launch of a kernel whose every trap site the proof covers cannot trap: its record
    // is bound but not read back, and waiting for it is waiting for the GPU alone.
    const trapFree = l.generated?.proven === true && l.generated.wgsl.trapFreeWhenProven === true;
    const slot = l.generated && !trapFree ? this.trapReadbacks.reserve() : undefined;
    if (!slot && l.desc?.wgsl === wgsl) return { desc: l.desc, slot };
    const desc: DispatchDescriptor = {
      wgsl, entryPoint: l.info.entryPoint, workgroupSize: [l.block.x, l.block.y, l.block.z], grid: l.grid,
      buffers: l.buffers, scalars: l.scalars, timing: this.gpuTiming, label: l.kernel.name,
    };
    if (l.generated) desc.constants = l.generated.constants;
    if (slot) { desc.errorReadback = slot.buffer; desc.errorReadbackOffset = slot.offset; } else if (trapFree) desc.unreadTrapRecord = true;
    if (l.generated?.wgsl.guardEntryPoint) desc.guardEntryPoint = l.generated.wgsl.guardEntryPoint;
    if (l.copiesBefore) { desc.copiesBefore = l.copiesBefore; desc.copiesAfter = l.copiesAfter; }
    if (!slot) l.desc = desc;
    return { desc, slot };
  }

  private notDispatched(l: Omit<PreparedLaunch, 'wgsl'>, slot: TrapSlot | undefined, e: unknown): LaunchConfigError {
    if (slot) this.trapReadbacks.release(slot);
    return new LaunchConfigError(`kernel ${l.kernel.name}: ${(e as Error).message}`);
  }

  private dispatched(result: DispatchResult, t0: number, slot: TrapSlot | undefined): SubmittedLaunch {
    // An empty grid submits nothing: there is no record to wait for.
    if (slot && result.dispatches === 0) { this.trapReadbacks.release(slot); return { result, t0 }; }
    // The record's slot may be mapped only once the batch holding the launch is submitted.
    return { result, t0, ...(slot ? { words: result.submitted.then(() => this.trapReadbacks.submitted(slot)) } : {}) };
  }

  /** Waits for a submitted launch to run, then checks its trap record (generated kernels). */
  private async complete(l: Omit<PreparedLaunch, 'wgsl'>, s: SubmittedLaunch): Promise<LaunchStats> {
    const { result, t0, words } = s;
    words?.catch(() => undefined); // a timeout leaves it behind: never an unhandled rejection
    try {
      await this.waitFor(words ? Promise.all([words, result.validated]).then(() => undefined) : result.finished(), l, t0);
    } catch (e) {
      if (e instanceof LaunchValidationError) throw new LaunchConfigError(`kernel ${l.kernel.name}: ${e.message}`);
      throw e;
    }
    if (words) this.checkTrap(l, await words);
    const elapsedMs = performance.now() - t0;
    const stats: LaunchStats = {
      kernel: l.kernel.name, backend: 'webgpu', grid: l.grid, block: l.block, blocks: l.blocks,
      threadsPerBlock: l.block.x * l.block.y * l.block.z, sharedBytes: l.sharedBytes, workers: 0, elapsedMs, seed: null,
    };
    if (result.gpuTimeNs) stats.gpuTimeMs = (await result.gpuTimeNs) / 1e6;
    if (l.generated?.proven !== undefined) stats.proven = l.generated.proven;
    return stats;
  }

  /**
   * Waits for `done`; rejects at the launch's deadline (KernelTimeoutError) or when its signal
   * aborts (LaunchAbortedError). WebGPU cannot stop a dispatch: the promise settles, the GPU runs on.
   */
  private waitFor(done: Promise<void>, l: Omit<PreparedLaunch, 'wgsl'>, t0: number): Promise<void> {
    const kernel = l.kernel.name, signal = l.signal;
    return new Promise<void>((resolve, reject) => {
      let onAbort: (() => void) | undefined;
      const settle = (): void => {
        this.deadlines.remove(deadline);
        if (onAbort) signal!.removeEventListener('abort', onAbort);
      };
      const deadline = this.deadlines.add(t0 + l.timeoutMs, () => {
        settle();
        reject(new KernelTimeoutError(kernel, l.timeoutMs, false,
          'WebGPU cannot stop a dispatch: the GPU may still be running it, and the device\'s later work waits behind it'));
      });
      if (signal) {
        onAbort = () => { settle(); reject(new LaunchAbortedError(kernel, signal.reason)); };
        signal.addEventListener('abort', onAbort, { once: true });
      }
      done.then(() => { settle(); resolve(); }, (e: unknown) => { settle(); reject(e); });
    });
  }

  private checkAlive(): void {
    if (this.destroyed) throw new DeviceDestroyedError('the device was destroyed');
  }


  /** The trap record as a generated kernel's launch left it: a trap is the KernelError wasm would throw. */
  private checkTrap(l: Omit<PreparedLaunch, 'wgsl'>, rec: Uint32Array): void {
    if (rec[0] === 0) return;
    const t = trapMessage(rec, l.block, l.generated!.wgsl, l.generated!.meta.arrays);
    throw new KernelError(l.kernel.name, t.blockIdx, t.message);
  }

  /** Waits for queued work, frees every array and destroys the WebGPU device. Safe to call twice. */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    await this.synchronize().catch(() => undefined);
    this.destroyed = true;
    this.trapReadbacks.destroy(new DeviceDestroyedError('the device was destroyed'));
    for (const a of this.live) a.markFreed();
    this.live.clear();
    this.usedBytes = 0;
    await this.context.destroy();
  }
}

/** A launch encoded and submitted: what complete() waits on. */
interface SubmittedLaunch { result: DispatchResult; t0: number; words?: Promise<Uint32Array> }

/** The declaration and the WGSL kernel's parameter list must agree (names, kinds, element types). */
function checkDeclaration(kernel: Kernel, info: WgslKernelInfo): void {
  const w = info.params;
  const same = w.length === kernel.params.length && kernel.params.every((p, k) =>
    p.name === w[k]!.name && p.kind === w[k]!.kind && p.dtype === w[k]!.dtype);
  if (!same) {
    const fmt = (ps: readonly { name: string; kind: string; dtype: string }[]): string =>
      ps.map((p) => `${p.name}: ${p.dtype}${p.kind === 'array' ? '[]' : ''}`).join(', ');
    throw new KernelArgumentError(kernel.name, '(declaration)',
      `declared as (${fmt(kernel.params)}) but its WGSL version takes (${fmt(w)})`);
  }
}

/**
 * A checked scalar argument as Launch-uniform words: i32/u32/f32 one word; f64 two words (lo, hi)
 * of its IEEE bits; i64/u64 two words (lo, hi), two's complement.
 */
function scalarWords(p: Param, v: number | bigint): number[] {
  switch (p.dtype) {
    case 'i32': case 'u32': return [(v as number) >>> 0];
    case 'f32': return [new Uint32Array(new Float32Array([v as number]).buffer)[0]!];
    case 'f64': {
      const w = new Uint32Array(new Float64Array([v as number]).buffer);
      return [w[0]!, w[1]!];
    }
    default: {
      const u = BigInt.asUintN(64, v as bigint);
      return [Number(u & 0xffffffffn), Number(u >> 32n)];
    }
  }
}

/**
 * A device array on WebGPU: one storage buffer holding exactly the bytes of the host's typed array
 * (little-endian; 16-bit elements two per WGSL u32 word, 64-bit elements as (lo, hi) word pairs),
 * zero-padded to a whole number of 4-byte words.
 */
export class WebGpuDeviceArray<D extends DType> extends DeviceArrayBase<D> implements DeviceArray<D> {
  /** No device pointers on WebGPU: every array is its own buffer, at offset 0. */
  readonly byteOffset = 0;

  constructor(readonly device: WebGpuDevice, dtype: D, length: number, readonly buffer: WebGpuBuffer,
    readonly bufferBytes: number) {
    super(dtype, length);
  }

  async upload(data: TypedArrayOf[D] | ArrayLike<ScalarOf<D>>, offset = 0): Promise<void> {
    this.checkUpload(data, offset);
    let typed: TypedArrayOf[D];
    if (ArrayBuffer.isView(data)) {
      typed = data as TypedArrayOf[D];
    } else {
      typed = viewOf(this.dtype, new ArrayBuffer(data.length * DTYPES[this.dtype].bytes), 0, data.length);
      try {
        (typed as unknown as { set(a: ArrayLike<unknown>): void }).set(data as ArrayLike<unknown>);
      } catch (e) {
        throw new BufferMismatchError(`upload: data does not convert to ${this.dtype}: ${(e as Error).message}`);
      }
    }
    const bytes = new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
    await this.device.enqueue(async () => {
      this.checkLive('upload');
      await this.writeBytes(offset * DTYPES[this.dtype].bytes, bytes);
    });
  }

  /** Writes bytes at a byte offset; sub-word edges keep the neighbouring bytes (read, merge, write). */
  private async writeBytes(at: number, bytes: Uint8Array): Promise<void> {
    if (bytes.byteLength === 0) return;
    const rt = this.device.runtime;
    const a0 = at - (at % 4);
    const end = at + bytes.byteLength;
    const a1 = Math.ceil(end / 4) * 4;
    if (a0 === at && a1 === end) {
      rt.write(this.buffer, at, bytes);
      return;
    }
    const merged = new Uint8Array(a1 - a0);
    if (a0 !== at) merged.set(await rt.read(this.buffer, a0, 4), 0);
    if (a1 !== end) merged.set(await rt.read(this.buffer, a1 - 4, 4), merged.length - 4);
    merged.set(bytes, at - a0);
    rt.write(this.buffer, a0, merged);
  }

  async read(start?: number, end?: number): Promise<TypedArrayOf[D]> {
    this.checkLive('read');
    const [s, e] = this.range(start, end, 'read');
    const bytes = DTYPES[this.dtype].bytes;
    return this.device.enqueue(async () => {
      this.checkLive('read');
      const raw = await this.device.runtime.read(this.buffer, s * bytes, (e - s) * bytes);
      const copy = raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength ? raw : raw.slice();
      return viewOf(this.dtype, copy.buffer, 0, e - s);
    });
  }

  async fill(value: ScalarOf<D>, start?: number, end?: number): Promise<void> {
    this.checkLive('fill');
    const [s, e] = this.range(start, end, 'fill');
    this.checkFill(value);
    if (s === e) return;
    const eb = DTYPES[this.dtype].bytes;
    const one = viewOf(this.dtype, new ArrayBuffer(eb), 0, 1) as unknown as { [k: number]: unknown; buffer: ArrayBuffer };
    one[0] = value;
    const zero = new Uint8Array(one.buffer).every((b) => b === 0);
    const at = s * eb;
    const n = (e - s) * eb;
    await this.device.enqueue(async () => {
      this.checkLive('fill');
      if (zero && at % 4 === 0 && n % 4 === 0) {
        const enc = this.device.context.device.createCommandEncoder({ label: 'simt-fill' });
        enc.clearBuffer(this.buffer, at, n);
        this.device.context.device.queue.submit([enc.finish()]);
        return;
      }
      const host = viewOf(this.dtype, new ArrayBuffer(n), 0, e - s) as unknown as { fill(v: unknown): void; buffer: ArrayBuffer };
      host.fill(value);
      await this.writeBytes(at, new Uint8Array(host.buffer));
    });
  }

  /** No host view of GPU memory: read()/upload() (or readWith/uploadWith, which copy here). */
  view(): TypedArrayOf[D] {
    this.checkLive('view');
    throw new NotHostMappedError(`view: a webgpu array lives in GPU memory the host cannot address; use read()/upload() (device.hostMapped is false)`);
  }

  free(): void {
    this.checkLive('free');
    this.markFreed();
    this.device.releaseArray(this as unknown as WebGpuDeviceArray<DType>);
  }
}
