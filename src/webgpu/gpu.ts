/// <reference types="@webgpu/types" />
/**
 * Opening a WebGPU device, in Node (through the `webgpu` npm package, i.e. Dawn's dawn.node) or
 * in a browser (`navigator.gpu`).
 *
 * Node without a GPU: Dawn's Vulkan backend runs on SwiftShader, the CPU Vulkan driver that
 * Debian's `chromium` package ships in /usr/lib/chromium (see scripts/ci-webgpu-setup.sh and
 * docs/webgpu.md). Two things have to be true before `create()` is called:
 *
 * 1. The Vulkan loader must be told to use that driver: `VK_ICD_FILENAMES` names the ICD json.
 *    The loader reads the variable when Dawn first enumerates Vulkan instances, which happens
 *    inside `create()`/`requestAdapter()` in this process, so setting `process.env` here, before
 *    the first `create()`, is early enough. We only set it when it is unset and the SwiftShader
 *    json exists, so a machine with a real GPU driver (or a user's own choice) is left alone.
 *
 * 2. A Vulkan loader (`libvulkan.so.1`) must be loadable. Debian's `libvulkan1` provides one;
 *    the chromium package also carries its own copy beside SwiftShader, but not on the library
 *    path. When no system loader is found we load chromium's copy into the process with
 *    RTLD_NODELETE (through `process.dlopen`, which then fails with "did not self-register"
 *    because it is not a Node addon: expected and ignored). Dawn's later
 *    `dlopen("libvulkan.so.1")` then finds the already-loaded library by its soname. Setting
 *    LD_LIBRARY_PATH from inside the process would not work: glibc reads it at startup.
 *
 * Lifetime: dawn.node lives as long as the object returned by `create()` is referenced; if it
 * is garbage-collected while a device is in use, Dawn tears down underneath us and Node can
 * crash. The context keeps it in `gpu` until `destroy()`. Conversely a live reference keeps
 * Node from exiting: call `destroy()` when done.
 */

import type { WebGpuAdapter, WebGpuDeviceHandle, WebGpuDeviceLostInfo, WebGpuGpu, WebGpuPowerPreference, WebGpuSupportedLimits } from './types.js';
import { BackendUnavailableError, pinErrorNames } from '../errors.js';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const CHROMIUM_VULKAN_LOADER = '/usr/lib/chromium/libvulkan.so.1';

/** Default dawn.node options: report unquantized GPU timestamps (Dawn rounds them otherwise). */
export const DEFAULT_DAWN_FLAGS: readonly string[] = ['disable-dawn-features=timestamp_quantization'];

export interface OpenWebGpuOptions {
  powerPreference?: WebGpuPowerPreference;
  /** dawn.node `create()` options; defaults to DEFAULT_DAWN_FLAGS. Ignored in a browser. */
  dawnFlags?: string[];
  /**
   * Load chromium's bundled Vulkan loader when the system has none (Linux, Node only).
   * Default true.
   */
  preloadVulkanLoader?: boolean;
}

export interface WebGpuAdapterInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** Subgroup size range when the adapter reports it. */
  subgroupMinSize?: number;
  subgroupMaxSize?: number;
  isFallbackAdapter?: boolean;
  /** 'node (dawn.node)' or 'browser'. */
  host: 'node' | 'browser';
  /** The Vulkan ICD file in effect (Node), if any. */
  icdFile?: string;
}

export type WebGpuUnavailableReason =
  | 'package-not-installed'
  | 'package-load-failed'
  | 'no-navigator-gpu'
  | 'no-adapter'
  | 'device-request-failed';

/**
 * Thrown by openWebGpu (and so by `createDevice({ backend: 'webgpu' })`) when no WebGPU device
 * can be had; the message says what was tried. A BackendUnavailableError, so callers can catch
 * every "backend cannot run here" alike.
 */
export class WebGpuUnavailableError extends BackendUnavailableError {
  readonly reason: WebGpuUnavailableReason;
  readonly icdFile: string | undefined;
  constructor(reason: WebGpuUnavailableReason, message: string, icdFile?: string, cause?: unknown) {
    super(message);
    if (cause !== undefined) (this as { cause?: unknown }).cause = cause;
    this.reason = reason;
    this.icdFile = icdFile;
  }
}

pinErrorNames({ WebGpuUnavailableError });

export interface WebGpuContext {
  /** The GPU object (dawn.node's `create()` result or navigator.gpu). Kept alive on purpose. */
  readonly gpu: WebGpuGpu;
  readonly adapter: WebGpuAdapter;
  readonly device: WebGpuDeviceHandle;
  readonly adapterInfo: WebGpuAdapterInfo;
  readonly features: ReadonlySet<string>;
  readonly limits: WebGpuSupportedLimits;
  readonly hasTimestampQuery: boolean;
  readonly hasSubgroups: boolean;
  /** Resolves when the device is lost (including by destroy()). */
  readonly lost: Promise<WebGpuDeviceLostInfo>;
  /**
   * Destroys the device, waits until dawn.node has delivered the device-lost event and run its
   * last scheduled event-processing callback, then drops the `create()` object. Await it: dropping
   * that object earlier frees Dawn's instance under a still-scheduled callback (see below).
   */
  destroy(): Promise<void>;
}

const isNode = (): boolean =>
  typeof process !== 'undefined' && typeof process.versions === 'object' && !!process.versions.node;

/** Limits requested at the adapter's maximum (the rest keep WebGPU's defaults). */
const MAX_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupSizeZ',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
  'maxUniformBufferBindingSize',
  'maxBindingsPerBindGroup',
  'maxBindGroups',
] as const;

const OPTIONAL_FEATURES: GPUFeatureName[] = ['timestamp-query', 'subgroups'];

interface NodeGpuResult {
  gpu: WebGpuGpu;
  icdFile: string | undefined;
}

async function nodeGpu(options: OpenWebGpuOptions): Promise<NodeGpuResult> {
  const fs = await import('node:fs');
  let icdFile = process.env.VK_ICD_FILENAMES;
  if (icdFile === undefined && fs.existsSync(SWIFTSHADER_ICD)) {
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
    icdFile = SWIFTSHADER_ICD;
  }
  if (options.preloadVulkanLoader !== false && process.platform === 'linux') {
    preloadVulkanLoader(fs.existsSync);
  }
  let mod: { create(flags: string[]): WebGpuGpu; globals: object };
  try {
    mod = (await import('webgpu')) as unknown as typeof mod;
  } catch (err) {
    if (isMissingPackage(err)) {
      throw new WebGpuUnavailableError('package-not-installed', WEBGPU_NOT_INSTALLED, icdFile, err);
    }
    throw new WebGpuUnavailableError(
      'package-load-failed',
      `WebGPU unavailable: the 'webgpu' package (dawn.node) failed to load: ${String(err)}`,
      icdFile,
      err,
    );
  }
  // WebGPU's constant namespaces (GPUBufferUsage, GPUMapMode, ...) as globals, like a browser.
  for (const [k, v] of Object.entries(mod.globals)) {
    if (!(k in globalThis)) (globalThis as Record<string, unknown>)[k] = v;
  }
  const gpu = mod.create([...(options.dawnFlags ?? DEFAULT_DAWN_FLAGS)]);
  return { gpu, icdFile };
}

/** The message when the optional peer dependency `webgpu` is not installed. */
export const WEBGPU_NOT_INSTALLED =
  "the webgpu backend needs the optional package 'webgpu' (Dawn for Node), which is not installed: run `npm install webgpu`";

/** True for "Cannot find package 'webgpu'" (not for a webgpu package that is there but fails to load). */
function isMissingPackage(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND') && /['"]webgpu['"]/.test(e.message ?? '');
}

let vulkanPreloaded = false;
function preloadVulkanLoader(exists: (p: string) => boolean): void {
  if (vulkanPreloaded || !exists(CHROMIUM_VULKAN_LOADER)) return;
  const dirs = [
    ...(process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean),
    '/usr/lib/x86_64-linux-gnu',
    '/usr/lib/aarch64-linux-gnu',
    '/lib/x86_64-linux-gnu',
    '/lib/aarch64-linux-gnu',
    '/usr/lib64',
    '/lib64',
    '/usr/lib',
    '/lib',
    '/usr/local/lib',
  ];
  if (dirs.some((d) => exists(`${d}/libvulkan.so.1`))) return;
  vulkanPreloaded = true;
  const RTLD_NOW = 2;
  const RTLD_GLOBAL = 0x100;
  const RTLD_NODELETE = 0x1000; // glibc; not in os.constants.dlopen
  try {
    process.dlopen({ exports: {} }, CHROMIUM_VULKAN_LOADER, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  } catch {
    // "Module did not self-register": expected, the library stays loaded (RTLD_NODELETE).
  }
}

function describeAttempt(host: 'node' | 'browser', icdFile: string | undefined): string {
  if (host === 'browser') return 'navigator.gpu.requestAdapter() returned null';
  const icd =
    icdFile === undefined
      ? `VK_ICD_FILENAMES unset and ${SWIFTSHADER_ICD} not found (run scripts/ci-webgpu-setup.sh ` +
        `to install chromium's SwiftShader Vulkan driver)`
      : `Vulkan ICD file tried: ${icdFile}`;
  const loader = vulkanPreloaded ? `; Vulkan loader preloaded from ${CHROMIUM_VULKAN_LOADER}` : '';
  return `dawn.node (webgpu package) found no adapter; ${icd}${loader}`;
}

/** Opens a WebGPU adapter and device with the adapter's maximum limits. */
export async function openWebGpu(options: OpenWebGpuOptions = {}): Promise<WebGpuContext> {
  const host: 'node' | 'browser' = isNode() ? 'node' : 'browser';
  let gpu: WebGpuGpu;
  let icdFile: string | undefined;
  if (host === 'node') {
    ({ gpu, icdFile } = await nodeGpu(options));
  } else {
    const nav = (globalThis as { navigator?: { gpu?: WebGpuGpu } }).navigator;
    if (!nav?.gpu) {
      throw new WebGpuUnavailableError('no-navigator-gpu', 'WebGPU unavailable: navigator.gpu is undefined');
    }
    gpu = nav.gpu;
  }

  const adapter = await gpu.requestAdapter(
    options.powerPreference ? { powerPreference: options.powerPreference } : undefined,
  );
  if (!adapter) {
    throw new WebGpuUnavailableError('no-adapter', `WebGPU unavailable: ${describeAttempt(host, icdFile)}`, icdFile);
  }

  const requiredFeatures = OPTIONAL_FEATURES.filter((f) => adapter.features.has(f));
  const requiredLimits: Record<string, number> = {};
  const adapterLimits = adapter.limits as unknown as Record<string, number | undefined>;
  for (const name of MAX_LIMITS) {
    const v = adapterLimits[name];
    if (typeof v === 'number') requiredLimits[name] = v;
  }

  let device: WebGpuDeviceHandle;
  try {
    device = await adapter.requestDevice({ requiredFeatures, requiredLimits, label: 'simt' });
  } catch (err) {
    throw new WebGpuUnavailableError(
      'device-request-failed',
      `WebGPU unavailable: requestDevice failed on adapter ${adapter.info.description || adapter.info.vendor}: ${String(err)}`,
      icdFile,
      err,
    );
  }

  const info = adapter.info;
  const adapterInfo: WebGpuAdapterInfo = {
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description: info.description,
    host,
  };
  const extra = info as unknown as { subgroupMinSize?: number; subgroupMaxSize?: number; isFallbackAdapter?: boolean };
  if (typeof extra.subgroupMinSize === 'number') adapterInfo.subgroupMinSize = extra.subgroupMinSize;
  if (typeof extra.subgroupMaxSize === 'number') adapterInfo.subgroupMaxSize = extra.subgroupMaxSize;
  if (typeof extra.isFallbackAdapter === 'boolean') adapterInfo.isFallbackAdapter = extra.isFallbackAdapter;
  if (icdFile !== undefined) adapterInfo.icdFile = icdFile;

  const features = new Set<string>(device.features);
  let gpuRef: WebGpuGpu | undefined = gpu;
  let destroying: Promise<void> | undefined;
  return {
    get gpu(): WebGpuGpu {
      if (!gpuRef) throw new Error('WebGPU context destroyed');
      return gpuRef;
    },
    adapter,
    device,
    adapterInfo,
    features,
    limits: device.limits,
    hasTimestampQuery: features.has('timestamp-query'),
    hasSubgroups: features.has('subgroups'),
    lost: device.lost,
    destroy(): Promise<void> {
      destroying ??= (async () => {
        device.destroy();
        // dawn.node polls its instance (ProcessEvents) from callbacks it schedules on the event
        // loop while async work (mapAsync, onSubmittedWorkDone, the lost promise) is pending.
        // device.destroy() resolves `lost` from inside such a callback, and one more is already
        // scheduled. If the create() object (the instance's only owner) is dropped before that
        // callback has run, a GC or Node's exit-time cleanup frees the instance and the callback
        // then dereferences it: SIGSEGV or a glibc mutex assertion at process exit (reliably so
        // once any worker thread has existed, e.g. the wasm pool). So: wait for `lost`, then
        // one macrotask turn, and only then drop the reference (which lets Node exit).
        await device.lost;
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
        gpuRef = undefined;
      })();
      return destroying;
    },
  };
}
