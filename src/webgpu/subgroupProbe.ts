// Whether a device's subgroups are CUDA's warps, so that a kernel's warp operations can run as
// subgroup builtins (the compiler's `subgroups` form of a kernel) instead of the workgroup-memory
// emulation. WebGPU promises neither a subgroup size nor how invocations are grouped, so this is
// measured once per device: a shader records, in workgroups of several shapes, each invocation's
// subgroup size, its subgroup invocation id and the local index of its subgroup's lane 0. The
// answer is yes only when every invocation has 32 lanes, lane = local index mod 32, and its
// subgroup is the 32 consecutive local indices of its warp (SwiftShader: 4 lanes, so no).

import type { WebGpuBuffer, WebGpuDeviceHandle } from './types.js';

export interface SubgroupWarps {
  /** True when warp operations may run as subgroup builtins on this device. */
  ok: boolean;
  /** Why not (or what was checked), for docs and error messages. */
  reason: string;
}

const PROBE_WGSL = `enable subgroups;
override BX: u32 = 1u;
override BY: u32 = 1u;
override BZ: u32 = 1u;
@group(0) @binding(0) var<storage, read_write> result: array<atomic<u32>, 3>;
@compute @workgroup_size(BX, BY, BZ)
fn main(@builtin(local_invocation_index) li: u32, @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
  let first = subgroupShuffle(li, 0u);
  if (size != 32u || lane != (li & 31u) || first != (li & ~31u)) { atomicAdd(&result[0], 1u); }
  atomicMax(&result[1], size);
  atomicMin(&result[2], size);
}
`;

/** The verdict for subgroups of min to max lanes when that range leaves out CUDA's 32. */
function wrongWidth(min: number, max: number): SubgroupWarps {
  return { ok: false, reason: `subgroups of ${min === max ? min : `${min} to ${max}`} lanes (CUDA's warps have 32)` };
}

/** The adapter's reported subgroup sizes, when they already rule out 32 lanes (SwiftShader: 4): no probe needed. */
export function subgroupSizeRulesOut(min: number | undefined, max: number | undefined): SubgroupWarps | undefined {
  return min === undefined || max === undefined || (min <= 32 && max >= 32) ? undefined : wrongWidth(min, max);
}

/** Workgroup shapes checked: a full-size 1-D block, one with a partial last warp, and a 3-D one. */
function probeShapes(maxThreads: number): [number, number, number][] {
  return [[Math.min(1024, maxThreads), 1, 1], [80, 1, 1], [8, 4, 3]];
}

/** Runs the probe on `device` (which must have the 'subgroups' feature). Never throws: a failure is a `false` with its reason. */
export async function probeSubgroupWarps(device: WebGpuDeviceHandle, maxThreads: number): Promise<SubgroupWarps> {
  let result: WebGpuBuffer | undefined, readback: WebGpuBuffer | undefined;
  let scoped = true;
  device.pushErrorScope('validation');
  try {
    const module = device.createShaderModule({ code: PROBE_WGSL, label: 'simt subgroup probe' });
    result = device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    readback = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(result, 0, Uint32Array.from([0, 0, 0xffffffff, 0]));
    const encoder = device.createCommandEncoder();
    for (const [x, y, z] of probeShapes(maxThreads)) {
      const pipeline = await device.createComputePipelineAsync({
        layout: 'auto', compute: { module, entryPoint: 'main', constants: { BX: x, BY: y, BZ: z } },
      });
      const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: result } }] });
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(3);
      pass.end();
    }
    encoder.copyBufferToBuffer(result, 0, readback, 0, 16);
    device.queue.submit([encoder.finish()]);
    scoped = false;
    const error = await device.popErrorScope();
    if (error) return { ok: false, reason: `the subgroup probe did not compile: ${error.message}` };
    await readback.mapAsync(GPUMapMode.READ);
    const [bad, maxSize, minSize] = new Uint32Array(readback.getMappedRange().slice(0));
    readback.unmap();
    if (minSize !== 32 || maxSize !== 32) return wrongWidth(minSize!, maxSize!);
    if (bad !== 0) return { ok: false, reason: `${bad} invocations were not in the subgroup of their warp (lane ≠ thread index mod 32)` };
    return { ok: true, reason: 'subgroups of 32 lanes laid out as CUDA\'s warps' };
  } catch (e) {
    return { ok: false, reason: `the subgroup probe failed: ${(e as Error).message}` };
  } finally {
    if (scoped) await device.popErrorScope().catch(() => undefined);
    result?.destroy();
    readback?.destroy();
  }
}
