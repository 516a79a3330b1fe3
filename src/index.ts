// simt: CUDA-style kernels on a WebAssembly SIMD + threads worker pool.
export { createDevice, Device, DEFAULT_MEMORY_BYTES, DEFAULT_SHARED_LIMIT } from './device.js';
export type { Backend, DeviceOptions } from './device.js';
export type { BackendName, GpuDevice, KernelArg, KernelArgs, LaunchConfig, LaunchStats, MemoryInfo } from './deviceApi.js';
export type { DeviceArray } from './memory/deviceArray.js';
export { defineKernel } from './kernel.js';
export type { Kernel, Param, ParamSpec, ScalarDType } from './kernel.js';
export { LIMITS, toDim3 } from './dims.js';
export type { Dim3, DimLike } from './dims.js';
export { DTYPES, roundFor128ByteAlignment } from './dtypes.js';
export type { DType, TypedArrayOf, ScalarOf } from './dtypes.js';
export * from './errors.js';
export * as kernels from './kernels/index.js';
export * as race from './race/index.js';
export * as pet from './jobs/pet/index.js';
export { deviceExclusiveScan } from './ops/scan.js';
