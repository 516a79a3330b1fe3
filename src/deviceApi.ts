// What every backend's device offers — the wasm pool ('wasm', 'serial') and WebGPU alike —
// so host code (src/ops, the jobs, crossCheck) is written once against this interface.

import type { DType, ScalarOf, TypedArrayOf } from './dtypes.js';
import type { Dim3, DimLike } from './dims.js';
import type { Kernel, ParamSpec } from './kernel.js';
import type { KernelModule } from './kernelModule.js';
import type { LaunchArgsParam } from './launchTypes.js';
import type { DeviceArray } from './memory/deviceArray.js';

export type BackendName = 'wasm' | 'serial' | 'webgpu';

export interface LaunchConfig {
  grid: DimLike;
  block: DimLike;
  /** Dynamic shared memory (CUDA's third <<<>>> parameter), bytes. */
  sharedBytes?: number;
  /** Schedule seed for this launch (serial backend); default derives from the device seed. */
  seed?: number | bigint;
  /** Time limit in ms; past it the launch is killed and rejects with KernelTimeoutError. */
  timeoutMs?: number;
  /** Cancels the launch; it rejects with LaunchAbortedError. */
  signal?: AbortSignal;
  /** Run on only this many of the pool's workers (benchmarks: 1 worker vs all). */
  workers?: number;
}

export type KernelArg = DeviceArray | number | bigint;
export type KernelArgs = readonly KernelArg[] | Readonly<Record<string, KernelArg>>;

export interface LaunchStats {
  kernel: string;
  backend: BackendName;
  grid: Dim3;
  block: Dim3;
  blocks: number;
  threadsPerBlock: number;
  sharedBytes: number;
  /** Workers that ran blocks (wasm backends); 0 on webgpu. */
  workers: number;
  /** Wall time from dispatch to completion, ms. */
  elapsedMs: number;
  /** The schedule seed: relaunch with `{ seed }` to replay (serial). null where no seed orders anything. */
  seed: number | null;
  /** GPU time of the launch's compute pass, ms (webgpu with `gpuTiming` and 'timestamp-query' only). */
  gpuTimeMs?: number;
  /**
   * webgpu, a compiled kernel with a launch proof (src/launchProof.ts): whether every block of
   * the launch passed it, so the accesses it covers ran unchecked (false: all checked).
   */
  proven?: boolean;
}

export interface MemoryInfo {
  heapBytes: number; usedBytes: number; freeBytes: number; largestFreeBytes: number; allocations: number;
}

export interface GpuDevice {
  readonly id: number;
  readonly backend: BackendName;
  /** Workers of the pool (1 for serial); 0 for webgpu. */
  readonly workers: number;
  readonly sharedMemoryLimit: number;
  /** Largest block (threads) this device runs: 1024 on wasm, the adapter's limit on WebGPU. */
  readonly maxThreadsPerBlock: number;
  /**
   * Why this is not the backend asked for: set when `createDevice({ backend: 'auto' })` found no
   * WebGPU adapter and returned a wasm device instead; undefined otherwise (and on backends that
   * never fall back, which may leave it out).
   */
  readonly fallbackReason?: string | undefined;
  /**
   * True where device memory is host memory ('wasm', 'serial': one shared WebAssembly.Memory), so
   * `array.view()` fills and reads arrays in place; false on 'webgpu' (copies only).
   */
  readonly hostMapped: boolean;
  alloc<D extends DType>(dtype: D, length: number): DeviceArray<D>;
  upload<D extends DType>(dtype: D, data: TypedArrayOf[D] | ArrayLike<ScalarOf<D>>): Promise<DeviceArray<D>>;
  /**
   * Runs `kernel` over `config.grid` blocks of `config.block` threads. `args` are type-checked
   * against the kernel's parameters (launchTypes.ts): by name or in order.
   */
  launch<P extends Record<string, ParamSpec>>(kernel: Kernel<P>, config: LaunchConfig, ...args: LaunchArgsParam<P>): Promise<LaunchStats>;
  /** Makes a compiled kernel module's kernels launchable (wasm: its block form; webgpu: its generated WGSL). */
  load(module: KernelModule): Promise<void>;
  synchronize(): Promise<void>;
  memoryInfo(): MemoryInfo;
  destroy(): Promise<void>;
}
