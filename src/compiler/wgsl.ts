// The WGSL back end of simt's kernel compiler: from the front end's analysis of a per-thread
// kernel source (scopes, declarations, types), one WGSL compute shader per kernel, run by the
// `webgpu` backend. The block form's machinery (regions, context slots) is not needed: a GPU
// runs the threads of a block as the invocations of a workgroup.
//
// What each construct becomes (docs/webgpu.md, "Kernels compiled to WGSL", says the same):
// - array parameters: `@binding(i) var<storage, read>` (never written) or `read_write`, in
//   parameter order; `array<atomic<T>>` when any atomic touches them (every access then is an
//   atomicLoad/atomicStore; f32 lives as its bits in atomic<u32>). 8/16-bit arrays are the
//   host's bytes in u32 words (read by shift and mask, written by a compare-exchange loop).
// - scalar parameters and the arrays' lengths: fields of the `Launch` uniform after the
//   runtime's header (gridDim, blockOffset: grids above 65535 blocks are split into dispatches).
// - `__shared__` arrays: `var<workgroup>` arrays; `__extern_shared__`: a workgroup array whose
//   length is the pipeline-overridable constant `sx_dyn_len` (the launch's sharedBytes / element
//   size; the pipeline is built per size).
// - `__syncthreads()`: `workgroupBarrier()`, joined by `storageBarrier()` where threads may talk
//   through a storage array (wgslKernel.ts, needsStorageBarrier). Block predicates and block-level conditions that WGSL's uniformity
//   analysis cannot prove uniform go through workgroup counters and `workgroupUniformLoad`;
//   threads that disagree are a divergent barrier, as on wasm.
// - warp shuffles and votes: a workgroup-memory emulation (the lanes' values in a workgroup
//   array between two barriers), correct for any subgroup size; and a second form of the kernel
//   (`subgroups`) with subgroupShuffle and subgroupBallot, which a device runs where its
//   subgroups are 32 lanes laid out as CUDA's warps (src/webgpu/subgroupProbe.ts).
// - `return` before a later barrier: the thread sets `sx_exited` and skips its remaining work,
//   but still reaches the barriers (CUDA's exited threads no longer count).
// - bounds checks, without a branch: an index outside its array notes the invocation's first
//   trap in private variables and is clamped (a read) or dropped (a write); the entry point
//   flushes the note into the `sx_err` buffer (kind, array, index, length, site, thread, block)
//   when the body ends, and the host turns the record into the KernelError wasm would throw.
// - strided loops (`for (…; i < E; i += S)`, E and S unchanged): four copies of the body per
//   trip while four iterations are left, then the loop as written (wgslUnroll.ts); a loop around
//   warp operations or barriers with a constant trip count up to 8 is written out whole.
// Anything else — 64-bit types, recursion, constructs without a WGSL form — is a diagnostic with
// file and line in the module's metadata (`meta.wgsl[kernel].diagnostics`); the kernel still
// builds for wasm and serial.
//
// The parts: wgslKernel.ts (a kernel's arrays, device functions and the shader around its body),
// wgslArrays.ts (array access helpers), wgslUniformity.ts (what stays uniform), wgslUnroll.ts
// (which loops are unrolled), the emitter in
// layers wgslTyping.ts → wgslExpr.ts → wgslStmt.ts → wgslBlock.ts, wgslModel.ts (shared shapes),
// and wgslTypes.ts / wgslRuntime.ts (types, the runtime prelude).

import type { FrontEndAnalysis, KernelInfo } from './frontend.js';
import type { ModuleWgslKernel } from '../kernelModule.js';
import { KernelGen } from './wgslKernel.js';
import { NoWgsl } from './wgslModel.js';
import { wgslLaunchProof } from './wgslProof.js';

export { WGSL_ENTRY_POINT } from './wgslKernel.js';

export interface WgslOptions { unchecked?: boolean }

/** One WGSL shader per kernel (or diagnostics), keyed by kernel name. */
export function generateWgsl(analysis: FrontEndAnalysis, kernels: readonly KernelInfo[], options: WgslOptions = {}): Record<string, ModuleWgslKernel> {
  const out: Record<string, ModuleWgslKernel> = {};
  for (const k of kernels) {
    const fn = analysis.functions.find((f) => f.exported && f.name === k.name);
    if (!fn) continue;
    try {
      // The accesses a launch can prove inside their arrays (wgslProof.ts): checked unless it does.
      const proof = options.unchecked ? undefined : wgslLaunchProof(analysis, fn);
      const gen = new KernelGen(analysis, fn, !options.unchecked, false, proof?.proven);
      out[k.name] = gen.generate();
      if (proof) out[k.name]!.launchProof = proof.meta;
      let trapFree = proof !== undefined && gen.trapFreeWhenProven;
      // A kernel with warp operations also gets its subgroup form, which a device whose
      // subgroups are its warps (32 lanes, laid out as CUDA's) runs instead.
      if (gen.usesWarpOps) {
        const sgGen = new KernelGen(analysis, fn, !options.unchecked, true, proof?.proven);
        const sg = sgGen.generate();
        out[k.name]!.subgroups = { source: sg.source!, sites: sg.sites! };
        trapFree &&= sgGen.trapFreeWhenProven;
      }
      if (trapFree) out[k.name]!.trapFreeWhenProven = true;
    } catch (e) {
      if (!(e instanceof NoWgsl)) throw e;
      out[k.name] = { diagnostics: [{ ...analysis.where(e.node, e.file), message: e.message }] };
    }
  }
  return out;
}
