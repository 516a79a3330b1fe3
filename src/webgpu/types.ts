/**
 * The WebGPU objects simt's public types mention, by names of its own. Each is the real WebGPU
 * type (GPUBuffer, GPUDevice, …) when the program has WebGPU's declarations — `@webgpu/types`,
 * or a DOM lib that includes them — and `unknown` otherwise. So a consumer type-checks simt's
 * declarations under `tsc --strict` without skipLibCheck whether or not it has WebGPU's types,
 * and simt never adds WebGPU's globals to a consumer's program.
 */
type GlobalType<Name extends string> = typeof globalThis extends { [K in Name]: { prototype: infer T } } ? T : unknown;

export type WebGpuGpu = GlobalType<'GPU'>;
export type WebGpuAdapter = GlobalType<'GPUAdapter'>;
export type WebGpuDeviceHandle = GlobalType<'GPUDevice'>;
export type WebGpuBuffer = GlobalType<'GPUBuffer'>;
export type WebGpuSupportedLimits = GlobalType<'GPUSupportedLimits'>;
export type WebGpuDeviceLostInfo = GlobalType<'GPUDeviceLostInfo'>;
export type WebGpuComputePipeline = GlobalType<'GPUComputePipeline'>;
export type WebGpuBindGroupLayout = GlobalType<'GPUBindGroupLayout'>;
export type WebGpuBindGroup = GlobalType<'GPUBindGroup'>;
/** WebGPU's GPUPowerPreference. */
export type WebGpuPowerPreference = 'low-power' | 'high-performance';
