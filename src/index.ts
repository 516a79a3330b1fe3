// simt: CUDA-style kernels on a WebAssembly SIMD + threads worker pool.
export { createDevice, Device, DEFAULT_MEMORY_BYTES, DEFAULT_SHARED_LIMIT } from './device.js';
export type { Backend, DeviceOptions } from './device.js';
export type { BackendName, GpuDevice, KernelArg, KernelArgs, LaunchConfig, LaunchStats, MemoryInfo } from './deviceApi.js';
export type { DeviceArray } from './memory/deviceArray.js';
export { readElement, readWith, uploadWith } from './memory/hostAccess.js';
export { defineKernel } from './kernel.js';
export type { Kernel, Param, ParamSpec, ScalarDType, Specialization, StoreColumns } from './kernel.js';
export type { ArgOf, LaunchArgs, LaunchArgsParam, NamedLaunchArgs, PositionalLaunchArgs } from './launchTypes.js';
export { LIMITS, toDim3 } from './dims.js';
export type { Dim3, DimLike } from './dims.js';
export { DTYPES, roundFor128ByteAlignment } from './dtypes.js';
export type { DType, TypedArrayOf, ScalarOf } from './dtypes.js';
export * from './errors.js';
export * as kernels from './kernels/index.js';
export * as race from './race/index.js';
export { defineJob, explore, replay, racecheck, memcheck, RaceJobError } from './race/index.js';
export type { JobSpec, JobLaunch, BufferSpec, UserJobContext } from './race/index.js';
export { createWebGpuDevice, WebGpuDevice, WebGpuDeviceArray } from './webgpu/device.js';
export type { WebGpuDeviceOptions } from './webgpu/device.js';
export { WebGpuUnavailableError } from './webgpu/gpu.js';
export { crossCheck, jobs, registerJob, getJob } from './crosscheck/index.js';
export type { Job, Comparison, CrossCheckOptions, CrossCheckReport, OutputReport, OutputRule } from './crosscheck/index.js';
// Host helpers (src/ops/) and synthetic data generators, for applications and examples/.
export { deviceMax, deviceMin, deviceSum } from './ops/reduce.js';
export type { ReduceResult } from './ops/reduce.js';
export { countModules, invalidModuleId, PHASE1_MAX_MODULES, PHASE2_MAX_MODULES } from './ops/countModules.js';
export type { CountModulesOptions, CountModulesResult } from './ops/countModules.js';
export { gridStrideShape } from './ops/launchShape.js';
export type { Shape } from './ops/launchShape.js';
export * as data from './data/synthetic.js';
// NumPy .npy files: read, written, and as a job's input buffer.
export { readNpy, writeNpy, npyBuffer, NpyFormatError } from './io/npy.js';
export type { NpyArray, NpyData, NpyDtype, WriteNpyOptions } from './io/npy.js';
// Browsers: where a bundled page serves the run-time files (docs/browser.md).
export { configureAssets, sharedMemoryProblem } from './platform.js';
export type { AssetLocations } from './platform.js';
export * as pet from './jobs/pet/index.js';
export { deviceExclusiveScan } from './ops/scan.js';
// Your own kernels: per-thread CUDA-shaped AssemblyScript, compiled by simt (docs/kernels.md).
export { compileKernels, compileKernelFiles, KernelCompileError, writeModuleFiles } from './compiler/index.js';
export type { CompileOptions, KernelSource, Diagnostic } from './compiler/index.js';
export { loadKernelModule, makeKernelModule, KernelModuleError } from './kernelModule.js';
export { shippedModule } from './shippedModule.js';
export type { KernelModule, KernelModuleMeta, ModuleKernels } from './kernelModule.js';
