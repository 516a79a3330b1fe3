/// <reference types="@webgpu/types" />
/**
 * WebGPU runtime for simt kernels: buffers, a pipeline cache and CUDA-style launches.
 *
 * ## Binding convention (every WGSL kernel follows it; docs/webgpu.md repeats it)
 *
 * For a kernel whose CUDA parameter list has k array parameters and some scalar parameters:
 *
 * - `@group(0) @binding(i)` for i in 0..k-1 is the i-th *array* parameter, in declaration order,
 *   as `var<storage, read_write>` (even when the kernel only reads it: one layout for all).
 *   16-bit columns are bound as `array<u32>` over the same bytes (two elements per word, element
 *   i in the low half of word i/2 when i is even) and unpacked in WGSL.
 * - `@group(0) @binding(k)` is a `var<uniform>` of a struct, conventionally named `Launch`:
 *     offset  0: gridDim: vec3u      the whole CUDA grid (not the per-dispatch slice)
 *     offset 12: blockOffset: u32    add to workgroup_id.x to get CUDA blockIdx.x
 *     offset 16: the scalar parameters, one 32-bit word each, in declaration order
 *                (`u32`, `i32` or `f32` fields; the host passes them bitcast into a Uint32Array)
 * - blockDim comes in as WGSL pipeline-overridable constants `BLOCK_X`, `BLOCK_Y`, `BLOCK_Z`
 *   (declare them `override BLOCK_X: u32 = 256;` ... and use `@workgroup_size(BLOCK_X, BLOCK_Y,
 *   BLOCK_Z)`); workgroup arrays may be sized by them (`array<f32, BLOCK_X>`). Every override
 *   the kernel declares among these three is set; the others must not be declared.
 * - CUDA `gridDim` (x, y, z) becomes the workgroup counts. When grid.x exceeds the device's
 *   maxComputeWorkgroupsPerDimension (65535 on most adapters), the launch is split into several
 *   dispatches of at most that many workgroups, in one compute pass; each gets its own Launch
 *   uniform with `blockOffset` set, so `blockIdx.x = workgroup_id.x + launch.blockOffset`.
 *   grid.y and grid.z must fit (CUDA limits them to 65535 too).
 *
 * ## Prelude
 *
 * `assembly/kernels/wgsl/cuda_atomics.wgsl` (CUDA atomicInc/atomicDec, f32 atomicMax/Min/Add by
 * CAS) and `wgsl/wide.wgsl` (64-bit storage words: f64BitsOfF32, ...) are prepended as plain text to every kernel source before compiling, so kernels call the
 * helpers without declaring them. Compiler messages are mapped back to the kernel's own lines.
 *
 * ## Launches
 *
 * Launches go into an open command buffer, the *batch*, which `flush()` submits: the caller
 * flushes when no launch follows at once (the webgpu device does when its stream has nothing
 * queued behind the launch, or at the end of the caller's synchronous code for launches it
 * encoded at once: dispatchNow), so a burst of launches in flight shares one command encoder, one
 * compute pass, one submit and at most one validation scope, while a lone launch is submitted at once
 * (at 1–7 µs per Dawn call from Node on an H100, the number of calls per launch is the cost: a
 * launch in a batch makes three — setBindGroup, dispatchWorkgroups, and setPipeline when the
 * kernel changes). Dispatches in one pass are ordered by WebGPU's usage scopes (each sees the
 * storage writes of the ones before it). Reads and writes through the runtime flush first, as
 * does finish() and a launch's completed(). The Launch uniform and the bind groups are kept per
 * pipeline and set of bound buffers (BindingCache): a relaunch with the same arrays and the
 * same words writes nothing; with other words it rewrites the uniform (queue.writeBuffer,
 * ordered after submitted launches; a launch of the open batch that reads that uniform is
 * flushed first) and creates nothing. A binding set that passed validation once is relaunched
 * without a validation scope (its commands are the same); an error there still fails the batch,
 * through the device's uncaptured-error event, which Dawn fires inside the failing call.
 *
 * A generated kernel's trap record (binding k + 1) is slot i of the runtime's record buffer for
 * the batch's i-th launch (a dynamic offset, so the bind groups stay the same); the flush copies
 * the batch's records into the callers' MAP_READ readbacks (`errorReadback` at
 * `errorReadbackOffset`, one copy per run of consecutive slots) and clears them, and the caller
 * maps the readback for many launches at once (trapReadbacks.ts). With `timing: true` and the
 * 'timestamp-query' feature, the launch gets a pass of its own bracketed by timestamps, and
 * `gpuTimeNs` resolves to the GPU time of that pass.
 */
import type { WebGpuBindGroup, WebGpuBindGroupLayout, WebGpuBuffer, WebGpuComputePipeline, WebGpuDeviceHandle } from './types.js';
import type { WebGpuContext } from './gpu.js';
import { loadWgsl } from './kernels.js';
import { TRAP_RECORD_BYTES } from './trapRecord.js';

export type Dim3 = { x: number; y?: number; z?: number };

export interface DispatchDescriptor {
  /** Kernel WGSL source (without the prelude). */
  wgsl: string;
  entryPoint: string;
  /** CUDA blockDim: set as the BLOCK_X/BLOCK_Y/BLOCK_Z overrides. */
  workgroupSize: [number, number, number] | readonly [number, number, number];
  /** CUDA gridDim. */
  grid: Dim3;
  /** The kernel's array parameters, in order: binding 0..k-1. */
  buffers: WebGpuBuffer[];
  /** The kernel's scalar parameters as 32-bit words, in order (after the 16-byte header). */
  scalars?: Uint32Array;
  /** Bracket the pass with timestamp queries (ignored without 'timestamp-query'). */
  timing?: boolean;
  label?: string;
  /** More pipeline-overridable constants (a generated kernel's `sx_dyn_len`, …). */
  constants?: Readonly<Record<string, number>>;
  /**
   * A generated kernel's trap record: with it, binding k + 1 is the launch's own record (a slot of
   * the runtime's record buffer, by dynamic offset), copied after the batch's passes into this
   * MAP_READ buffer at `errorReadbackOffset` (the caller maps it once the launch is submitted).
   */
  errorReadback?: WebGpuBuffer;
  /** Where in errorReadback the record goes (bytes, a multiple of trapRecordStride). */
  errorReadbackOffset?: number;
  /**
   * Bind the launch's trap record as for errorReadback, but copy it nowhere: a launch that cannot
   * trap (a proven launch of a kernel whose every trap site the proof covers) reads nothing back.
   */
  unreadTrapRecord?: boolean;
  /**
   * An entry point of the same shader dispatched once (one workgroup of one invocation) just
   * before the kernel, with its bindings: a generated kernel's ticket guard (src/compiler/wgslTicket.ts).
   * Skipped when one buffer is bound twice (an alias the guard cannot see through).
   */
  guardEntryPoint?: string;
  /**
   * Copies encoded just before the launch's pass (into its bindings) and just after it (out of
   * them): a store kernel's columns, which WebGPU cannot bind as separate arrays of one buffer.
   */
  copiesBefore?: readonly BufferCopy[];
  copiesAfter?: readonly BufferCopy[];
}

/** A copyBufferToBuffer (offsets and size multiples of 4). */
export interface BufferCopy { src: WebGpuBuffer; srcOffset: number; dst: WebGpuBuffer; dstOffset: number; size: number }

/** What a timed launch brackets its pass with: the query set, and the buffers its times go through to the host. */
interface LaunchTimer { querySet: GPUQuerySet; resolveBuf: WebGpuBuffer; readBuf: WebGpuBuffer }

/** A launch's commands failed WebGPU validation (seen after submit, with the launch's completion). */
export class LaunchValidationError extends Error {}

export interface DispatchResult {
  /** Number of dispatchWorkgroups calls the grid was split into. */
  dispatches: number;
  /** GPU time of the compute pass in ns, when timing was requested and is available (after the launch's batch is submitted). */
  gpuTimeNs?: Promise<number>;
  /** Resolves when the GPU has finished this launch (and everything before it); submits its batch if still open. */
  completed(): Promise<void>;
  /**
   * As completed(), but leaves the batch open for the launches behind it (it is submitted at the
   * next flush), and every launch of a batch shares one wait for the GPU.
   */
  finished(): Promise<void>;
  /** Rejects (LaunchValidationError) when the launch's commands failed WebGPU validation; completed() rejects with it too. */
  validated: Promise<void>;
  /** Resolves once the launch's command buffer was submitted (at the next flush()): only then may its readbacks be mapped. */
  submitted: Promise<void>;
}

export interface WebGpuRuntimeOptions {
  /**
   * WGSL text prepended to every kernel. Default: the cuda_atomics.wgsl prelude. `''` for none.
   */
  prelude?: string;
}

interface PipelineEntry {
  pipeline: WebGpuComputePipeline;
  layout: WebGpuBindGroupLayout;
  /** Uniforms and bind groups of earlier launches, by bound buffers and dispatch count. */
  bindings: Map<string, LaunchBindings>;
  /** The binding set the last cache hit found, with what it was found by. */
  last?: { bound: WebGpuBuffer[]; records: boolean; chunks: number; uniformBytes: number; key: string; bindings: LaunchBindings };
}

/** A pipeline being built, and once built the pipeline itself (for launches that encode without waiting). */
interface CachedPipeline { promise: Promise<PipelineEntry>; entry: PipelineEntry | undefined }

/** What a launch binds: the Launch uniform (one slice per dispatch) and one bind group per dispatch. */
interface LaunchBindings {
  uniform: WebGpuBuffer;
  groups: WebGpuBindGroup[];
  /** The words last written to the uniform (a relaunch with the same words writes nothing). */
  words?: Uint32Array;
  /**
   * A batch that dispatched these bind groups passed WebGPU's validation: a relaunch with them
   * (same pipeline, buffers and dispatch count) encodes the same commands, so it needs no
   * validation scope of its own (see Batch.scoped).
   */
  validated?: boolean;
}

/** Launches encoded and not yet submitted: one command buffer, at most one validation scope. */
interface Batch {
  enc: GPUCommandEncoder;
  /**
   * Whether a validation scope was pushed for the batch: the first launch whose commands have not
   * passed validation before pushes it (a pushErrorScope, and at the flush a popErrorScope whose
   * promise costs Dawn's event loop a round: 2–7 µs of an awaited launch). A batch of relaunches
   * alone has none; an error in it reaches the device's uncaptured-error event, which Dawn fires
   * inside the failing call, so the flush still sees it (uncapturedErrors).
   */
  scoped: boolean;
  /** The runtime's uncapturedErrors when the batch opened: more at its submit fail it. */
  errorsAtOpen: number;
  /** The compute pass the batch's launches share while none needs one of its own (timing) or a copy (snapshots). */
  pass: GPUComputePassEncoder | undefined;
  /** The pipeline last set in that pass (a relaunch of the same kernel does not set it again). */
  pipeline: WebGpuComputePipeline | undefined;
  launches: number;
  /** Where each trap record of the batch goes (record slot i is the i-th; none: not read back): copied and cleared at the flush. */
  records: { readback: WebGpuBuffer | undefined; offset: number }[];
  /** Uniforms the batch's launches read: rewriting one with other words must flush first. */
  uniforms: Set<LaunchBindings>;
  /** Run right after the submit (buffers the launches no longer need once submitted). */
  afterSubmit: (() => void)[];
  submitted: Promise<void>;
  markSubmitted(): void;
  validated: Promise<void>;
  settle(error: Error | undefined): void;
  /** One onSubmittedWorkDone for the batch once submitted, shared by its launches' finished(). */
  gpuDone?: Promise<void>;
}

/** No read-only binding aliases a writable one (the usual launch: nothing allocated for it). */
const NO_ALIASES: readonly number[] = [];
/** The usual launch copies no buffer and binds no dynamic offset: nothing allocated for either. */
const NO_SNAPSHOTS: WebGpuBuffer[] = [];
const NO_COPIES: readonly BufferCopy[] = [];
const NO_OFFSETS: number[] = [];

/** Launches per batch at most: a long burst is still submitted in steps, so the GPU starts early. */
const MAX_BATCH = 64;

/** Whether one buffer is bound twice (a launch's few arrays: a quadratic scan allocates nothing). */
function hasDuplicate(buffers: readonly WebGpuBuffer[]): boolean {
  for (let i = 1; i < buffers.length; i++) for (let j = 0; j < i; j++) if (buffers[i] === buffers[j]) return true;
  return false;
}

function sameWords(a: Uint32Array | undefined, b: Uint32Array): boolean {
  if (a === b) return true;
  if (!a || a.length !== b.length) return false;
  for (let i = 0; i < b.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Binding sets kept per pipeline: enough for a pipeline's usual arrays, bounded for one that sees many. */
const BINDINGS_PER_PIPELINE = 16;

const UNIFORM_HEADER_BYTES = 16;

/** The preludes every kernel gets: CUDA atomics, then the 64-bit storage helpers. */
export async function defaultPrelude(): Promise<string> {
  const parts = await Promise.all([loadWgsl('wgsl/cuda_atomics'), loadWgsl('wgsl/wide')]);
  return parts.map((p) => (p.endsWith('\n') ? p : p + '\n')).join('');
}

function checkGridDim(n: string, v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`bad grid.${n} = ${v}`);
}

function checkGrid(grid: Dim3, maxWg: number): void {
  const gx = grid.x, gy = grid.y ?? 1, gz = grid.z ?? 1;
  checkGridDim('x', gx);
  checkGridDim('y', gy);
  checkGridDim('z', gz);
  if (gy > maxWg || gz > maxWg) throw new RangeError(`grid (${gx}, ${gy}, ${gz}): y and z must be <= ${maxWg}`);
}

/** Ends the batch's open compute pass, if any: the next launch begins a new one. */
function endPass(batch: Batch): void {
  batch.pass?.end();
  batch.pass = undefined;
  batch.pipeline = undefined;
}

function roundUp(n: number, m: number): number {
  return Math.ceil(n / m) * m;
}

export class WebGpuRuntime {
  readonly ctx: WebGpuContext;
  readonly device: WebGpuDeviceHandle;
  readonly prelude: string;
  private readonly preludeLines: number;
  private readonly modules = new Map<string, Promise<GPUShaderModule>>();
  private readonly pipelines = new Map<string, Map<string, CachedPipeline>>();
  private readonly layouts = new Map<string, WebGpuBindGroupLayout>();
  private readonly declaredOverrides = new Map<string, Set<string>>();
  private readonly readOnlyBindings = new Map<string, Set<number>>();
  /** A small id per buffer: the key of a binding set (a freed array's buffer is never bound again). */
  private readonly bufferIds = new WeakMap<WebGpuBuffer, number>();
  private nextBufferId = 1;
  private batch: Batch | undefined;
  private trapRecords: WebGpuBuffer | undefined;
  /** The device's limits a launch reads, read once: each read of `device.limits` is a call into Dawn. */
  readonly maxWorkgroupsPerDimension: number;
  /** Bytes between two launches' trap records in the record buffer and in a readback: the storage offset alignment. */
  readonly trapRecordStride: number;
  private readonly uniformAlignment: number;
  /** By descriptor (a relaunch passes the same one): its built pipelines, and its Launch uniform's words. */
  private readonly readyPipelines = new WeakMap<DispatchDescriptor, { entry: PipelineEntry; guard: PipelineEntry | undefined }>();
  private readonly uniformWords = new WeakMap<DispatchDescriptor, Uint32Array>();
  /** Validation errors no scope caught (the device's uncapturederror events), and the last one's message. */
  private uncapturedErrors = 0;
  private lastUncapturedError = '';

  private constructor(ctx: WebGpuContext, prelude: string) {
    this.ctx = ctx;
    this.device = ctx.device;
    ctx.device.addEventListener('uncapturederror', (e: Event) => {
      this.uncapturedErrors++;
      this.lastUncapturedError = (e as GPUUncapturedErrorEvent).error?.message ?? String(e);
    });
    const limits = ctx.device.limits;
    this.maxWorkgroupsPerDimension = limits.maxComputeWorkgroupsPerDimension;
    this.trapRecordStride = roundUp(TRAP_RECORD_BYTES, limits.minStorageBufferOffsetAlignment);
    this.uniformAlignment = limits.minUniformBufferOffsetAlignment;
    this.prelude = prelude.length === 0 || prelude.endsWith('\n') ? prelude : prelude + '\n';
    this.preludeLines = this.prelude.length === 0 ? 0 : this.prelude.split('\n').length - 1;
  }

  static async create(ctx: WebGpuContext, options: WebGpuRuntimeOptions = {}): Promise<WebGpuRuntime> {
    const prelude = options.prelude ?? (await defaultPrelude());
    return new WebGpuRuntime(ctx, prelude);
  }

  /** Number of cached pipelines (for tests and diagnostics). */
  get pipelineCount(): number {
    let n = 0;
    for (const m of this.pipelines.values()) n += m.size;
    return n;
  }

  // ---------------------------------------------------------------------------------- buffers

  /**
   * A storage buffer of at least `byteLength` bytes (rounded up to 4; at least 4 so that empty
   * arrays can still be bound), zero-filled.
   */
  createBuffer(byteLength: number, label?: string): WebGpuBuffer {
    if (!Number.isInteger(byteLength) || byteLength < 0) throw new RangeError(`bad buffer size ${byteLength}`);
    const size = Math.max(4, roundUp(byteLength, 4));
    if (size > this.device.limits.maxStorageBufferBindingSize) {
      throw new RangeError(
        `buffer of ${byteLength} bytes exceeds maxStorageBufferBindingSize ${this.device.limits.maxStorageBufferBindingSize}`,
      );
    }
    return this.device.createBuffer({
      size,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
      ...(label === undefined ? {} : { label }),
    });
  }

  /**
   * Queues a write of `data` at byte `offset` (a multiple of 4). When data's length is not a
   * multiple of 4 the write is padded with zero bytes up to the next 4-byte boundary (WebGPU
   * copies whole words): those up-to-3 bytes past the end are overwritten with zeros.
   */
  write(buffer: WebGpuBuffer, offset: number, data: ArrayBufferView | ArrayBuffer): void {
    if (offset % 4 !== 0) throw new RangeError(`write offset ${offset} is not a multiple of 4`);
    const bytes =
      data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (bytes.byteLength === 0) return;
    let src = bytes;
    if (bytes.byteLength % 4 !== 0) {
      src = new Uint8Array(roundUp(bytes.byteLength, 4));
      src.set(bytes);
    }
    if (offset + src.byteLength > buffer.size) {
      throw new RangeError(`write of ${src.byteLength} bytes at ${offset} overflows buffer of ${buffer.size}`);
    }
    this.flush();   // after the launches encoded so far
    this.device.queue.writeBuffer(buffer, offset, src.buffer as ArrayBuffer, src.byteOffset, src.byteLength);
  }

  /** Reads `byteLength` bytes at `offset` through a MAP_READ staging buffer (after queued work). */
  async read(buffer: WebGpuBuffer, offset: number, byteLength: number): Promise<Uint8Array> {
    if (byteLength === 0) return new Uint8Array(0);
    const start = offset - (offset % 4);
    const end = roundUp(offset + byteLength, 4);
    if (end > buffer.size) throw new RangeError(`read of ${byteLength} bytes at ${offset} overflows buffer of ${buffer.size}`);
    this.flush();
    const staging = this.device.createBuffer({
      size: end - start,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      label: 'simt-read-staging',
    });
    try {
      const enc = this.device.createCommandEncoder();
      enc.copyBufferToBuffer(buffer, start, staging, 0, end - start);
      this.device.queue.submit([enc.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      const mapped = new Uint8Array(staging.getMappedRange());
      const out = mapped.slice(offset - start, offset - start + byteLength);
      staging.unmap();
      return out;
    } finally {
      staging.destroy();
    }
  }

  /** Resolves when all work submitted so far has finished. */
  finish(): Promise<void> {
    this.flush();
    return this.device.queue.onSubmittedWorkDone();
  }

  // -------------------------------------------------------------------------------- batches

  /** The trap record slots of one batch (binding k + 1 of a generated kernel, by dynamic offset). */
  private trapRecordBuffer(): WebGpuBuffer {
    this.trapRecords ??= this.device.createBuffer({
      size: MAX_BATCH * this.trapRecordStride, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, label: 'simt-trap-records',
    });
    return this.trapRecords;
  }

  /** The open batch, opened (a command encoder) if there is none. */
  private openBatch(): Batch {
    if (this.batch) return this.batch;
    const device = this.device;
    let markSubmitted!: () => void;
    const submitted = new Promise<void>((resolve) => { markSubmitted = resolve; });
    let settle!: (error: Error | undefined) => void;
    const validated = new Promise<void>((resolve, reject) => { settle = (e) => (e ? reject(e) : resolve()); });
    validated.catch(() => undefined); // observed by the launches; never an unhandled rejection
    this.batch = { scoped: false, errorsAtOpen: this.uncapturedErrors, enc: device.createCommandEncoder({ label: 'simt-launches' }), pass: undefined, pipeline: undefined, launches: 0, records: [], uniforms: new Set(), afterSubmit: [], submitted, markSubmitted, validated, settle };
    return this.batch;
  }

  /** Runs f once the launches encoded so far are submitted: now when none are waiting. */
  afterSubmit(f: () => void): void {
    if (this.batch) this.batch.afterSubmit.push(f);
    else f();
  }

  /**
   * Submits the launches encoded since the last flush (one command buffer), if any. Their
   * validation scope is popped beside it: a failure rejects every launch of the batch.
   */
  flush(): void {
    const b = this.batch;
    if (!b) return;
    this.batch = undefined;
    const device = this.device;
    let thrown: string | undefined;
    try {
      b.pass?.end();
      // Records nobody reads (launches that cannot trap) are never written: nothing to copy or clear.
      if (b.records.some((r) => r.readback !== undefined)) {
        // The records go to their readbacks, one copy per run of consecutive slots, and are
        // cleared for the next batch, which reuses the slots.
        const stride = this.trapRecordStride;
        for (let i = 0; i < b.records.length;) {
          const readback = b.records[i]!.readback;
          let j = i + 1;
          while (j < b.records.length && b.records[j]!.readback === readback && b.records[j]!.offset === b.records[i]!.offset + (j - i) * stride) j++;
          if (readback) b.enc.copyBufferToBuffer(this.trapRecords!, i * stride, readback, b.records[i]!.offset, (j - i) * stride);
          i = j;
        }
        b.enc.clearBuffer(this.trapRecords!, 0, b.records.length * stride);
      }
      device.queue.submit([b.enc.finish()]);
    } catch (e) {
      thrown = (e as Error).message ?? String(e);
      throw e;
    } finally {
      b.markSubmitted();
      for (const f of b.afterSubmit) f();
      // Errors outside a scope were counted during the calls that raised them (finish and submit included).
      const uncaptured = this.uncapturedErrors > b.errorsAtOpen ? this.lastUncapturedError : thrown;
      const settle = (message: string | undefined): void => {
        message ??= uncaptured;
        if (message !== undefined) return b.settle(new LaunchValidationError(`failed validation: ${message}`));
        for (const u of b.uniforms) u.validated = true;
        b.settle(undefined);
      };
      if (!b.scoped) settle(undefined);
      else {
        device.popErrorScope().then(
          (error) => settle(error?.message),
          (e: unknown) => b.settle(e instanceof Error ? e : new Error(String(e))),
        );
      }
    }
  }

  /** Pushes the batch's validation scope unless it has one: before encoding a launch not validated yet. */
  private scope(batch: Batch): void {
    if (batch.scoped) return;
    this.device.pushErrorScope('validation');
    batch.scoped = true;
  }

  // -------------------------------------------------------------------------------- pipelines

  /**
   * The bind-group layout of a kernel: its array bindings are 'storage' (read_write), except
   * those the WGSL declares `var<storage, read>`, which are 'read-only-storage' — on real GPUs
   * that lets the compiler use the read-only data path (CUDA's `const __restrict__` loads).
   */
  private layoutFor(nArrays: number, readOnly: ReadonlySet<number>, errorBinding: boolean): WebGpuBindGroupLayout {
    const key = `${nArrays}:${[...readOnly].sort((a, b) => a - b).join(',')}${errorBinding ? ':err' : ''}`;
    let layout = this.layouts.get(key);
    if (!layout) {
      const entries: GPUBindGroupLayoutEntry[] = [];
      for (let i = 0; i < nArrays; i++) {
        entries.push({ binding: i, visibility: GPUShaderStage.COMPUTE, buffer: { type: readOnly.has(i) ? 'read-only-storage' : 'storage' } });
      }
      entries.push({ binding: nArrays, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } });
      if (errorBinding) entries.push({ binding: nArrays + 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage', hasDynamicOffset: true } });
      layout = this.device.createBindGroupLayout({ entries, label: `simt-layout-${key}` });
      this.layouts.set(key, layout);
    }
    return layout;
  }

  /** Bindings the WGSL declares read-only (`@binding(i) var<storage, read>`); scanned once per source. */
  readOnlyBindingsOf(wgsl: string): ReadonlySet<number> {
    let out = this.readOnlyBindings.get(wgsl);
    if (!out) {
      out = new Set<number>();
      for (const m of wgsl.matchAll(/@binding\((\d+)\)\s*var\s*<\s*storage\s*,\s*read\s*>/g)) out.add(Number(m[1]));
      this.readOnlyBindings.set(wgsl, out);
    }
    return out;
  }

  private bufferId(b: WebGpuBuffer): number {
    let id = this.bufferIds.get(b);
    if (id === undefined) { id = this.nextBufferId++; this.bufferIds.set(b, id); }
    return id;
  }

  private module(wgsl: string): Promise<GPUShaderModule> {
    let p = this.modules.get(wgsl);
    if (!p) {
      p = this.compileModule(wgsl);
      this.modules.set(wgsl, p);
      p.catch(() => this.modules.delete(wgsl));
    }
    return p;
  }

  private async compileModule(wgsl: string): Promise<GPUShaderModule> {
    // WGSL's directives (`enable subgroups;`) must precede every declaration: they go above the prelude.
    const directives = /^(?:enable [\w, ]+;\n)+/.exec(wgsl)?.[0] ?? '';
    const directiveLines = directives.split('\n').length - 1;
    const code = directives + this.prelude + wgsl.slice(directives.length);
    this.device.pushErrorScope('validation');
    const module = this.device.createShaderModule({ code });
    const info = await module.getCompilationInfo();
    const error = await this.device.popErrorScope();
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length > 0 || error) {
      const lines = errors.map((m) => {
        // The code is the kernel's directives, the prelude, then the rest of the kernel.
        const inPrelude = m.lineNum > directiveLines && m.lineNum <= directiveLines + this.preludeLines;
        const where = inPrelude ? `prelude line ${m.lineNum - directiveLines}:${m.linePos}`
          : `kernel line ${m.lineNum <= directiveLines ? m.lineNum : m.lineNum - this.preludeLines}:${m.linePos}`;
        return `${where}: ${m.message}`;
      });
      if (lines.length === 0 && error) lines.push(error.message);
      throw new Error(`WGSL compilation failed:\n${lines.join('\n')}`);
    }
    return module;
  }

  private overridesOf(wgsl: string): Set<string> {
    let s = this.declaredOverrides.get(wgsl);
    if (!s) {
      s = new Set();
      for (const m of wgsl.matchAll(/\boverride\s+(BLOCK_[XYZ])\b/g)) s.add(m[1]!);
      this.declaredOverrides.set(wgsl, s);
    }
    return s;
  }

  /**
   * The compute pipeline for (source, entry point, workgroup size, number of arrays, constants,
   * trap record binding), cached: built on the first ask, `entry` set once it is.
   */
  private pipeline(
    wgsl: string,
    entryPoint: string,
    workgroupSize: readonly [number, number, number],
    nArrays: number,
    constants: Readonly<Record<string, number>> = {},
    errorBinding = false,
  ): CachedPipeline {
    const [bx, by, bz] = workgroupSize;
    let extra = '';
    for (const k in constants) extra += `${k}=${constants[k]},`;
    // Keyed by source first: the same source string is hashed once, not once per launch inside a longer key.
    let bySource = this.pipelines.get(wgsl);
    if (!bySource) { bySource = new Map(); this.pipelines.set(wgsl, bySource); }
    const key = `${entryPoint}\u0000${bx},${by},${bz}\u0000${nArrays}\u0000${extra}\u0000${errorBinding}`;
    let c = bySource.get(key);
    if (!c) {
      const promise = this.buildPipeline(wgsl, entryPoint, workgroupSize, nArrays, constants, errorBinding);
      const cached: CachedPipeline = { promise, entry: undefined };
      c = cached;
      bySource.set(key, cached);
      const cache = bySource;
      promise.then((entry) => { cached.entry = entry; }, () => cache.delete(key));
    }
    return c;
  }

  /** A launch's pipelines: its kernel's, and its ticket guard's where it has one (see DispatchDescriptor.guardEntryPoint). */
  private pipelinesOf(desc: DispatchDescriptor): { kernel: CachedPipeline; guard: CachedPipeline | undefined } {
    const records = desc.errorReadback !== undefined || desc.unreadTrapRecord === true;
    return {
      kernel: this.pipeline(desc.wgsl, desc.entryPoint, desc.workgroupSize, desc.buffers.length, desc.constants, records),
      guard: desc.guardEntryPoint && !hasDuplicate(desc.buffers)
        ? this.pipeline(desc.wgsl, desc.guardEntryPoint, [1, 1, 1], desc.buffers.length, desc.constants, records)
        : undefined,
    };
  }

  private async buildPipeline(
    wgsl: string,
    entryPoint: string,
    [bx, by, bz]: readonly [number, number, number],
    nArrays: number,
    extraConstants: Readonly<Record<string, number>>,
    errorBinding: boolean,
  ): Promise<PipelineEntry> {
    const lim = this.device.limits;
    if (bx < 1 || by < 1 || bz < 1 || !Number.isInteger(bx) || !Number.isInteger(by) || !Number.isInteger(bz)) {
      throw new RangeError(`bad block size (${bx}, ${by}, ${bz})`);
    }
    if (
      bx > lim.maxComputeWorkgroupSizeX ||
      by > lim.maxComputeWorkgroupSizeY ||
      bz > lim.maxComputeWorkgroupSizeZ ||
      bx * by * bz > lim.maxComputeInvocationsPerWorkgroup
    ) {
      throw new RangeError(
        `block (${bx}, ${by}, ${bz}) exceeds the adapter's workgroup limits ` +
          `(${lim.maxComputeWorkgroupSizeX}, ${lim.maxComputeWorkgroupSizeY}, ${lim.maxComputeWorkgroupSizeZ}; ` +
          `${lim.maxComputeInvocationsPerWorkgroup} invocations)`,
      );
    }
    const module = await this.module(wgsl);
    const declared = this.overridesOf(wgsl);
    const constants: Record<string, number> = {};
    if (declared.has('BLOCK_X')) constants.BLOCK_X = bx;
    if (declared.has('BLOCK_Y')) constants.BLOCK_Y = by;
    if (declared.has('BLOCK_Z')) constants.BLOCK_Z = bz;
    Object.assign(constants, extraConstants);
    const layout = this.layoutFor(nArrays, this.readOnlyBindingsOf(wgsl), errorBinding);
    try {
      const pipeline = await this.device.createComputePipelineAsync({
        label: `${entryPoint}<${bx},${by},${bz}>`,
        layout: this.device.createPipelineLayout({ bindGroupLayouts: [layout] }),
        compute: { module, entryPoint, constants },
      });
      return { pipeline, layout, bindings: new Map() };
    } catch (err) {
      throw new Error(`pipeline ${entryPoint}<${bx},${by},${bz}> failed: ${(err as Error).message ?? String(err)}`, {
        cause: err,
      });
    }
  }

  // -------------------------------------------------------------------------------- launches

  /** The key of a binding set: the bound buffers, the error buffer, the dispatch count and the uniform's size. */
  private bindingsKey(bound: readonly WebGpuBuffer[], records: boolean, chunks: number, uniformBytes: number): string {
    let key = '';
    for (const b of bound) key += `${this.bufferId(b)},`;
    return key + `${records ? 1 : 0}:${chunks}:${uniformBytes}`;
  }

  /** The uniform and bind groups an earlier launch of `entry` made for the same bindings, if kept. */
  private cachedBindings(entry: PipelineEntry, bound: readonly WebGpuBuffer[], records: boolean,
    chunks: number, uniformBytes: number): LaunchBindings | undefined {
    // A relaunch with the arrays of the kernel's last launch (the usual loop) builds no key.
    const last = entry.last;
    if (last && last.records === records && last.chunks === chunks && last.uniformBytes === uniformBytes &&
        last.bound.length === bound.length && last.bound.every((b, i) => b === bound[i]) && entry.bindings.get(last.key) === last.bindings) {
      return last.bindings;
    }
    const key = this.bindingsKey(bound, records, chunks, uniformBytes);
    const bindings = entry.bindings.get(key);
    if (bindings) entry.last = { bound: [...bound], records, chunks, uniformBytes, key, bindings };
    return bindings;
  }

  /**
   * A new uniform and bind groups for a launch binding `bound` (and a trap record slot when
   * `records`) with `chunks` dispatches, kept for later launches when `keep`.
   */
  private launchBindings(entry: PipelineEntry, bound: readonly WebGpuBuffer[], records: boolean,
    chunks: number, stride: number, uniformBytes: number, keep: boolean): LaunchBindings {
    const device = this.device;
    const uniform = device.createBuffer({ size: stride * chunks, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, label: 'simt-launch' });
    const groups: WebGpuBindGroup[] = [];
    for (let c = 0; c < chunks; c++) {
      const entries: GPUBindGroupEntry[] = bound.map((buffer, i) => ({ binding: i, resource: { buffer } }));
      entries.push({ binding: bound.length, resource: { buffer: uniform, offset: c * stride, size: uniformBytes } });
      if (records) entries.push({ binding: bound.length + 1, resource: { buffer: this.trapRecordBuffer(), offset: 0, size: TRAP_RECORD_BYTES } });
      groups.push(device.createBindGroup({ layout: entry.layout, entries }));
    }
    const made: LaunchBindings = { uniform, groups };
    if (keep) {
      if (entry.bindings.size >= BINDINGS_PER_PIPELINE) {
        // The oldest set goes. WebGPU defers a buffer's destruction past submitted work that uses
        // it; a launch of the open batch is not submitted yet, so its uniform goes after the submit.
        const [oldKey, old] = entry.bindings.entries().next().value as [string, LaunchBindings];
        entry.bindings.delete(oldKey);
        if (this.batch?.uniforms.has(old)) this.batch.afterSubmit.push(() => old.uniform.destroy());
        else old.uniform.destroy();
      }
      entry.bindings.set(this.bindingsKey(bound, records, chunks, uniformBytes), made);
    }
    return made;
  }

  /**
   * Timestamp query sets (and their resolve and read buffers) of finished launches, for the next
   * timed launch. A query set created for each launch added its own first use to the pass it
   * timed: measured on an H200 (the generated countModules, 16M digis), 0.0812 ms with one
   * query set reused, 0.0892 ms with a new one per launch.
   */
  private readonly timers: LaunchTimer[] = [];

  /** Timestamp query sets kept for reuse (for tests and diagnostics). */
  get timedLaunchSlots(): number { return this.timers.length; }

  private takeTimer(): LaunchTimer {
    return this.timers.pop() ?? {
      querySet: this.device.createQuerySet({ type: 'timestamp', count: 2 }),
      resolveBuf: this.device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC }),
      readBuf: this.device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }),
    };
  }

  /**
   * Launches a kernel: one command buffer, one compute pass, ceil(grid.x / maxWorkgroups)
   * dispatches. Resolves once submitted (pipeline compiled and cached on first use); use
   * `completed()` or a read to wait for the GPU.
   */
  async dispatch(desc: DispatchDescriptor): Promise<DispatchResult> {
    checkGrid(desc.grid, this.maxWorkgroupsPerDimension);
    const p = this.pipelinesOf(desc);
    const entry = await p.kernel.promise;
    const guard = p.guard ? await p.guard.promise : undefined;
    return this.encodeDispatch(desc, entry, guard);
  }

  /**
   * As dispatch(), without waiting: undefined when a pipeline it needs is not built yet (then
   * nothing is encoded; the build has begun, and dispatch() waits for it). A launch on an idle
   * stream encodes this way, so its commands reach the GPU without a round of promise callbacks.
   */
  dispatchNow(desc: DispatchDescriptor): DispatchResult | undefined {
    let ready = this.readyPipelines.get(desc);
    if (!ready) {
      checkGrid(desc.grid, this.maxWorkgroupsPerDimension);
      const p = this.pipelinesOf(desc);
      if (!p.kernel.entry || (p.guard && !p.guard.entry)) return undefined;
      ready = { entry: p.kernel.entry, guard: p.guard?.entry };
      this.readyPipelines.set(desc, ready);
    }
    return this.encodeDispatch(desc, ready.entry, ready.guard);
  }

  /** Encodes a launch whose pipelines (the kernel's, and its guard's if any) are built. */
  private encodeDispatch(desc: DispatchDescriptor, entry: PipelineEntry, guard: PipelineEntry | undefined): DispatchResult {
    const gx = desc.grid.x;
    const gy = desc.grid.y ?? 1;
    const gz = desc.grid.z ?? 1;
    const maxWg = this.maxWorkgroupsPerDimension;
    const records = desc.errorReadback !== undefined || desc.unreadTrapRecord === true;
    const device = this.device;
    if (gx === 0 || gy === 0 || gz === 0) {
      // Nothing to run: done once everything encoded before it is.
      const before = this.batch?.submitted ?? Promise.resolve();
      const completed = (): Promise<void> => before.then(() => device.queue.onSubmittedWorkDone());
      return { dispatches: 0, completed, finished: completed, validated: Promise.resolve(), submitted: before };
    }

    const scalars = desc.scalars ?? new Uint32Array(0);
    const chunks = Math.ceil(gx / maxWg);
    const uniformBytes = roundUp(UNIFORM_HEADER_BYTES + 4 * scalars.length, 16);
    const stride = roundUp(uniformBytes, this.uniformAlignment);
    // The uniform's words follow from the descriptor alone: a descriptor launched again (a relaunch) has them already.
    let words = this.uniformWords.get(desc);
    if (!words) {
      words = new Uint32Array((stride * chunks) / 4);
      for (let c = 0; c < chunks; c++) {
        const base = (c * stride) / 4;
        words[base] = gx;
        words[base + 1] = gy;
        words[base + 2] = gz;
        words[base + 3] = c * maxWg;
        words.set(scalars, base + 4);
      }
      this.uniformWords.set(desc, words);
    }

    const timing = desc.timing === true && this.ctx.hasTimestampQuery;
    const timer = timing ? this.takeTimer() : undefined;
    const querySet = timer?.querySet, resolveBuf = timer?.resolveBuf, readBuf = timer?.readBuf;

    // One array passed to a read-only binding and to a writable one (the scan's scanTileApply with
    // output = input): WebGPU forbids that aliasing in one dispatch, so the read-only binding
    // gets a copy of the buffer made just before the pass — the contents at launch, which is
    // what a kernel that never writes that parameter may read anyway.
    const given = desc.buffers;
    const readOnly = this.readOnlyBindingsOf(desc.wgsl);
    const aliased = readOnly.size === 0 || !hasDuplicate(given) ? NO_ALIASES : [...readOnly].filter((i) => given[i] !== undefined && given.some((o, j) => o === given[i] && !readOnly.has(j)));
    const bound = aliased.length > 0 ? [...given] : given;
    const snapshots: WebGpuBuffer[] = aliased.length > 0 ? [] : NO_SNAPSHOTS;
    // A snapshot is new each launch: its bindings are too (and are dropped after it).
    const keep = aliased.length === 0;
    const cached = keep ? this.cachedBindings(entry, bound, records, chunks, uniformBytes) : undefined;
    // The uniform is written on the queue before the batch is submitted: a launch of the open
    // batch that reads other words from it goes first.
    if (cached && !sameWords(cached.words, words) && this.batch?.uniforms.has(cached)) this.flush();
    if (this.batch && this.batch.launches >= MAX_BATCH) this.flush();
    const batch = this.openBatch();
    const enc = batch.enc;
    const copiesBefore = desc.copiesBefore ?? NO_COPIES, copiesAfter = desc.copiesAfter ?? NO_COPIES;
    // Only a relaunch of bind groups that passed validation, with no copy or query of its own, goes unscoped.
    if (cached?.validated !== true || querySet || copiesBefore.length > 0 || copiesAfter.length > 0) this.scope(batch);
    // Copies are not allowed in a pass, and timestamps bracket a pass of the launch's own.
    if (aliased.length > 0 || querySet || copiesBefore.length > 0) endPass(batch);
    for (const c of copiesBefore) enc.copyBufferToBuffer(c.src, c.srcOffset, c.dst, c.dstOffset, c.size);
    for (const i of aliased) {
      const b = bound[i]!;
      const copy = device.createBuffer({ size: b.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST, label: 'simt-alias-copy' });
      enc.copyBufferToBuffer(b, 0, copy, 0, b.size);
      bound[i] = copy;
      snapshots.push(copy);
    }
    const bindings = cached ?? this.launchBindings(entry, bound, records, chunks, stride, uniformBytes, keep);
    if (!sameWords(bindings.words, words)) {
      device.queue.writeBuffer(bindings.uniform, 0, words.buffer as ArrayBuffer, 0, words.byteLength);
      bindings.words = words;
    }
    batch.uniforms.add(bindings);
    batch.launches++;
    // The launch's trap record: slot i of the batch (dynamic offset), copied to its readback at the flush.
    let offsets = NO_OFFSETS;
    if (records) {
      offsets = [batch.records.length * this.trapRecordStride];
      batch.records.push({ readback: desc.errorReadback, offset: desc.errorReadbackOffset ?? 0 });
    }
    // Consecutive launches share one pass: WebGPU orders each dispatch's storage writes before the next's reads.
    const pass = querySet
      ? enc.beginComputePass({ timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } })
      : (batch.pass ??= enc.beginComputePass());
    if (guard) {
      // Same layout as the kernel's (one per binding shape): the first chunk's bind group serves.
      pass.setPipeline(guard.pipeline);
      pass.setBindGroup(0, bindings.groups[0]!, offsets);
      pass.dispatchWorkgroups(1);
    }
    if (querySet || guard || batch.pipeline !== entry.pipeline) pass.setPipeline(entry.pipeline);
    if (!querySet) batch.pipeline = entry.pipeline;
    for (let c = 0; c < chunks; c++) {
      pass.setBindGroup(0, bindings.groups[c]!, offsets);
      pass.dispatchWorkgroups(Math.min(maxWg, gx - c * maxWg), gy, gz);
    }
    if (querySet && resolveBuf && readBuf) {
      pass.end();
      enc.resolveQuerySet(querySet, 0, 2, resolveBuf, 0);
      enc.copyBufferToBuffer(resolveBuf, 0, readBuf, 0, 16);
    } else if (copiesAfter.length > 0) endPass(batch);
    for (const c of copiesAfter) enc.copyBufferToBuffer(c.src, c.srcOffset, c.dst, c.dstOffset, c.size);
    if (snapshots.length > 0) {
      // Deferred by WebGPU until the submitted work no longer needs them.
      batch.afterSubmit.push(() => { bindings.uniform.destroy(); for (const c of snapshots) c.destroy(); });
    }
    const submitted = batch.submitted, validated = batch.validated;
    const result: DispatchResult = {
      dispatches: chunks, validated, submitted,
      completed: async () => {
        if (this.batch === batch) this.flush();   // waiting for a launch submits it
        await submitted;
        await Promise.all([device.queue.onSubmittedWorkDone(), validated]);
      },
      finished: async () => {
        await submitted;
        await Promise.all([batch.gpuDone ??= device.queue.onSubmittedWorkDone(), validated]);
      },
    };
    if (timer) {
      const mb = timer.readBuf;
      result.gpuTimeNs = (async () => {
        let reusable = false;
        try {
          await submitted;
          await validated;
          await mb.mapAsync(GPUMapMode.READ);
          const t = new BigUint64Array(mb.getMappedRange());
          const ns = Number(t[1]! - t[0]!);
          mb.unmap();
          reusable = true;
          return ns;
        } finally {
          if (reusable) this.timers.push(timer);
          else { timer.readBuf.destroy(); timer.resolveBuf.destroy(); timer.querySet.destroy(); }
        }
      })();
    }
    return result;
  }
}
