// One kernel's WGSL shader: finds the kernel's arrays and how they are used (through device
// functions too, each specialized per bound array since WGSL cannot pass storage arrays), then
// assembles bindings, the Launch uniform, the trap record, workgroup memory, helpers and the
// entry point around the body the emitter prints.

import { type AstNode, NK, operatorOf, walk } from './ast.js';
import type { Decl, FrontEndAnalysis, FunctionInfo } from './frontend.js';
import type { ModuleWgslKernel } from '../kernelModule.js';
import { ATOMICS } from './language.js';
import { type WType, NoWgslType, elemBytes, reprOf, wtypeOf, isSmall, isWide } from './wgslTypes.js';
import { GLOBALS, trapFns } from './wgslRuntime.js';
import { WIDE64, WIDE_PREFIX } from './wgslWide.js';
import { ArrayHelpers, storageElem, workgroupElem } from './wgslArrays.js';
import { Emitter } from './wgslBlock.js';
import { type ArrRef, type FnCtx, type Specialization, NoWgsl, isAssignOp } from './wgslModel.js';
import { containsReturn, findUniformVars, hasCollective } from './wgslUniformity.js';
import { type AtomicUse, GUARD_ENTRY_POINT, findTicketSites, guardEntryPoint } from './wgslTicket.js';

/** Loop statements: a write inside one may be repeated by the same thread. */
const LOOPS = new Set<number>([NK.For, NK.While, NK.Do]);

/**
 * A storage array through which the threads of a block may communicate across a barrier: one
 * that is written and also read, or written at two sites, or at one site more than once per
 * thread. Only then must __syncthreads order storage memory (storageBarrier()).
 */
function needsStorageBarrier(r: ArrRef): boolean {
  return r.space === 'storage' && r.written && (r.loadSites > 0 || r.storeSites > 1 || r.storeRepeats);
}

/** Entry point of every generated shader. */
export const WGSL_ENTRY_POINT = 'main';

/** One kernel's shader: which arrays it uses how, its device functions, its bindings and entry point. */
export class KernelGen extends ArrayHelpers {
  readonly sites: NonNullable<ModuleWgslKernel['sites']> = [];
  /** The sites whose check the launch proof folds away (accesses of launchProven). */
  readonly provenSites = new Set<number>();
  readonly consts = new Map<string, string>();
  readonly workgroupVars = new Map<string, string>();
  readonly specs = new Map<string, Specialization>();
  readonly kernelArrays = new Map<Decl, ArrRef>();
  uniformVars = new Set<Decl>();
  exitMode = false;
  hasCollectives = false;
  /**
   * Whether __syncthreads must also order storage (global) memory: CUDA's barrier makes a
   * thread's global writes visible to the block, but WGSL's workgroupBarrier() orders only
   * workgroup memory, so storageBarrier() joins it where threads may communicate through a
   * storage array (needsStorageBarrier, above). It is left out where they cannot (measured on
   * vecMax: 21 % of a launch on SwiftShader; on an H100 within the noise).
   */
  storageBarrier = false;
  /** Set when the kernel has a warp shuffle or vote (then it also gets a subgroup form). */
  usesWarpOps = false;
  private tempCount = 0;
  /** Every atomic call on each kernel array (through device functions too): what findTicketSites looks at. */
  private readonly atomicUses = new Map<ArrRef, AtomicUse[]>();

  /** subgroups: warp operations as subgroup builtins (`enable subgroups;`) instead of the workgroup-memory emulation. */
  /**
   * subgroups: warp operations as subgroup builtins (`enable subgroups;`) instead of the
   * workgroup-memory emulation. launchProven: the accesses the kernel's launch proof covers
   * (wgslProof.ts), checked only where the pipeline's `sx_proven` is false.
   */
  constructor(readonly fe: FrontEndAnalysis, readonly fn: FunctionInfo, checked: boolean, readonly subgroups = false, readonly launchProven: ReadonlySet<AstNode> = new Set()) { super(checked); }

  fail(node: AstNode, message: string, file = this.fn.file): never { throw new NoWgsl(node, file, message); }

  temp(): string { return `sx_t${this.tempCount++}`; }

  /** What each site's trap record says besides the site: kind | signed << 7 | array << 8 (sx_siteCode). */
  private readonly siteCodes: number[] = [];

  /** A new trap site at node: `what` for its messages, `code` = kind | signed << 7 | array id << 8. */
  site(node: AstNode, file: string, what: string, code: number): number {
    this.sites.push({ ...this.fe.where(node, file), what });
    this.siteCodes.push(code);
    return this.sites.length - 1;
  }

  generate(): ModuleWgslKernel {
    const fn = this.fn;
    // Kernel-level arrays: parameters, then __shared__ declarations.
    for (const d of fn.decls) {
      if (!d.array) continue;
      const a = d.array;
      this.kernelArrays.set(d, {
        decl: d, name: a.space === 'global' ? `a_${d.name}` : a.space === 'local' ? `l_${d.outName}` : `w_${d.outName}`, elem: a.elem,
        space: a.space === 'global' ? 'storage' : a.space === 'local' ? 'private' : 'workgroup',
        id: a.id, written: false, atomic: false, loadSites: 0, storeSites: 0, storeRepeats: false, dynamic: a.dynamic, count: a.count,
      });
    }
    const dyn = [...this.kernelArrays.values()].filter((r) => r.dynamic);
    if (dyn.length > 1) this.fail(dyn[1]!.decl.node!, 'more than one __extern_shared__ array: WGSL cannot alias one workgroup memory with several names (use one and index it)');
    for (const d of fn.decls) {
      if (d.param === 'scalar') {
        const t = this.typeOfText(d.typeText, fn.node);
        if (isSmall(t) || t === 'bool') this.fail(fn.node, `scalar parameter '${d.name}: ${d.typeText}' has no WGSL form`);
      }
    }
    const kctx: FnCtx = { fn, kernel: true, arrays: this.kernelArrays };
    this.scanUsage(kctx, [fn.name]);
    this.tickets = findTicketSites(this.fe, fn, this.atomicUses);
    this.hasCollectives = hasCollective(fn, fn.node.body);
    this.exitMode = this.hasCollectives && containsReturn(fn.node.body);
    this.storageBarrier = [...this.kernelArrays.values()].some(needsStorageBarrier);
    this.uniformVars = findUniformVars(this, fn);
    const em = new Emitter(this, kctx);
    const body = em.kernelBody();
    const specTexts: string[] = [];
    for (const s of [...this.specs.values()]) specTexts.push(new Emitter(this, s.ctx).deviceFunction(s.name));
    return {
      source: this.assemble(body, em, specTexts),
      ...(dyn.length ? { dynamicSharedElemBytes: elemBytes(dyn[0]!.elem) } : {}),
      sites: this.sites,
      ...(this.tickets.size ? { guardEntryPoint: GUARD_ENTRY_POINT } : {}),
    };
  }

  /**
   * Whether a launch that passes the launch proof cannot trap: every trap site is an access the
   * proof covers (no divergent barrier, atomic or unproven access can record one), and no
   * ticket guard keeps its state in the trap record.
   */
  get trapFreeWhenProven(): boolean {
    return this.provenSites.size > 0 && this.sites.every((_, i) => this.provenSites.has(i)) && this.tickets.size === 0;
  }

  typeOfText(t: string | null, node: AstNode, file = this.fn.file): WType {
    try { return wtypeOf(t); } catch (e) {
      if (e instanceof NoWgslType) this.fail(node, e.message, file);
      throw e;
    }
  }

  /** Which arrays are read, written and atomically accessed (through device functions too); which device functions are needed. */
  private scanUsage(ctx: FnCtx, stack: string[]): void {
    const arrayOf = (n: AstNode): ArrRef | undefined => (n?.kind === NK.Identifier ? ctx.arrays.get(ctx.fn.refs.get(n)!) : undefined);
    const storeTargets = new Set<AstNode>();   // `a[i]` of a plain `a[i] = v`: written, not read
    const store = (r: ArrRef, inLoop: boolean): void => { r.written = true; r.storeSites++; if (inLoop || !ctx.kernel) r.storeRepeats = true; };
    const visit = (n: AstNode, inLoop: boolean): void => walk(n, (c) => {
      if (c !== n && LOOPS.has(c.kind)) { visit(c, true); return false; }
      if (c.kind === NK.ElementAccess) {
        const r = arrayOf(c.expression);
        if (r && !storeTargets.has(c)) r.loadSites++;
      }
      if (c.kind === NK.Binary && isAssignOp(operatorOf(c)) && c.left.kind === NK.ElementAccess) {
        const r = arrayOf(c.left.expression);
        if (r) { store(r, inLoop); if (operatorOf(c) === '=') storeTargets.add(c.left); }
      }
      if ((c.kind === NK.UnaryPrefix || c.kind === NK.UnaryPostfix) && /^(\+\+|--)$/.test(operatorOf(c)) && c.operand.kind === NK.ElementAccess) {
        const r = arrayOf(c.operand.expression); if (r) store(r, inLoop);
      }
      if (c.kind === NK.Call && c.expression.kind === NK.Identifier && !ctx.fn.refs.has(c.expression)) {
        const name = c.expression.text as string;
        if (name in ATOMICS) {
          const r = arrayOf(c.args[0]);
          if (r) {
            r.atomic = true; r.loadSites++; store(r, inLoop);
            const uses = this.atomicUses.get(r) ?? [];
            uses.push({ op: name, index: c.args[1], operands: c.args.slice(2), ctx });
            this.atomicUses.set(r, uses);
          }
        }
        const target = this.fe.functions.find((f) => f.name === name && !f.exported);
        if (target) this.specialize(ctx, target, c, stack);
      }
      return undefined;
    });
    visit(ctx.fn.node.body, false);
  }

  /** The device function `target` with the caller's arrays bound to its array parameters (WGSL cannot pass storage arrays). */
  specialize(ctx: FnCtx, target: FunctionInfo, call: AstNode, stack: string[]): Specialization {
    if (stack.includes(target.name)) this.fail(call, `recursive call of '${target.name}': WGSL has no recursion`, ctx.fn.file);
    const params = target.decls.filter((d) => d.param);
    const arrays = new Map<Decl, ArrRef>();
    const parts: string[] = [];
    (call.args as AstNode[]).forEach((a, k) => {
      const p = params[k];
      if (p?.param !== 'array') return;
      const r = a.kind === NK.Identifier ? ctx.arrays.get(ctx.fn.refs.get(a)!) : undefined;
      if (!r) this.fail(a, `argument ${k + 1} of '${target.name}' must be an array`, ctx.fn.file);
      arrays.set(p, r!);
      parts.push(r!.name);
    });
    for (const d of target.decls) if (d.array && d.array.space === 'shared') this.fail(d.node ?? target.node, `__shared__ in device function '${target.name}' has no WGSL form: declare it in the kernel and pass it`, target.file);
    const name = `f_${target.name}${parts.length ? '_' + parts.join('_') : ''}`;
    let s = this.specs.get(name);
    if (!s) {
      s = { name, ctx: { fn: target, kernel: false, arrays } };
      this.specs.set(name, s);
      this.scanUsage(s.ctx, [...stack, target.name]);
    }
    return s;
  }

  private assemble(body: string, em: Emitter, specTexts: string[]): string {
    const fn = this.fn;
    const lines: string[] = [...(this.subgroups ? ['enable subgroups;'] : []), `// GENERATED by simt's kernel compiler from ${fn.file}: kernel ${fn.name}${this.subgroups ? ' (warp operations as subgroup builtins)' : ''}.`, 'override BLOCK_X: u32 = 1u;', 'override BLOCK_Y: u32 = 1u;', 'override BLOCK_Z: u32 = 1u;'];
    // Set per launch by the runtime where the launch proof holds (src/launchProof.ts).
    if (this.launchProven.size) lines.push('override sx_proven: bool = false;');
    if ([...this.kernelArrays.values()].some((r) => r.dynamic)) lines.push('override sx_dyn_len: u32 = 0u;', 'override sx_dyn_count: u32 = 1u;');
    lines.push(GLOBALS);
    if (this.subgroups) lines.push('var<private> sx_sgid: u32;');
    // Bindings: the array parameters in order, the Launch uniform, the trap record.
    const params = fn.decls.filter((d) => d.param);
    const arrays = params.filter((d) => d.param === 'array');
    arrays.forEach((d, i) => {
      const r = this.kernelArrays.get(d)!;
      const access = r.written || r.atomic ? 'read_write' : 'read';
      lines.push(`@group(0) @binding(${i}) var<storage, ${access}> ${r.name}: array<${storageElem(r)}>;`);
    });
    const fields = ['  gridDim: vec3u,', '  blockOffset: u32,'];
    // A 64-bit scalar is two words (lo, hi) where the host packs it, without the 8-byte alignment a vec2u field would take.
    for (const d of params) {
      if (d.param !== 'scalar') continue;
      const t = this.typeOfText(d.typeText, fn.node);
      if (isWide(t)) fields.push(`  s_${d.name}_lo: u32,`, `  s_${d.name}_hi: u32,`);
      else fields.push(`  s_${d.name}: ${reprOf(t)},`);
    }
    for (const d of arrays) fields.push(`  n_${d.name}: u32,`);
    lines.push(`struct Launch {\n${fields.join('\n')}\n}`, `@group(0) @binding(${arrays.length}) var<uniform> launch: Launch;`);
    lines.push(`@group(0) @binding(${arrays.length + 1}) var<storage, read_write> sx_err: array<atomic<u32>, 12>;`);
    for (const r of this.kernelArrays.values()) {
      if (r.space === 'workgroup') lines.push(`var<workgroup> ${r.name}: array<${workgroupElem(r)}, ${r.dynamic ? 'sx_dyn_count' : r.count}>;`);
      // A __local__ array: WGSL's private address space is one per invocation, as CUDA's local memory is one per thread.
      if (r.space === 'private') lines.push(`var<private> ${r.name}: array<${workgroupElem(r)}, ${r.count}>;`);
    }
    // The trap record names the array's length: sx_trapLen(array id).
    const lengths = [...this.kernelArrays.values()].map((r) => `    case ${r.id}u: { return ${this.lengthOf(r)}; }`);
    const lengthFn = `  switch what {\n${lengths.join('\n')}${lengths.length ? '\n' : ''}    default: { return 0u; }\n  }`;
    const codes = this.siteCodes.map((c, i) => `    case ${i}u: { return ${c >>> 0}u; }`);
    const codeFn = `  switch site {\n${codes.join('\n')}${codes.length ? '\n' : ''}    default: { return 0u; }\n  }`;
    lines.push(...this.workgroupVars.values(), ...this.consts.values(), trapFns(lengthFn, codeFn), ...this.helpers.values(), ...specTexts);
    // The kernel's body is a function of its own, so that every way out of it (a `return`
    // included) passes through the entry point's sx_flush of the trap record.
    lines.push(`fn sx_main(sx_l: vec3u, sx_li: u32, sx_w: vec3u) {
  sx_tid = vec3<i32>(sx_l);
  sx_lin = sx_li;
  let sx_bid = vec3<i32>(i32(sx_w.x + launch.blockOffset), i32(sx_w.y), i32(sx_w.z));
  sx_gbid = sx_bid;
  sx_inf = bitcast<f32>(0x7f800000u | (sx_li & 0u));
  sx_nan = bitcast<f32>(0x7fc00000u | (sx_li & 0u));
${this.exitMode ? '  var sx_exited = false;\n' : ''}${em.topDecls.map((l) => '  ' + l).join('\n')}
${body}
}
@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn ${WGSL_ENTRY_POINT}(@builtin(local_invocation_id) sx_l: vec3u, @builtin(local_invocation_index) sx_li: u32, @builtin(workgroup_id) sx_w: vec3u${this.subgroups ? ', @builtin(subgroup_invocation_id) sx_sgi: u32' : ''}) {
${this.subgroups ? '  sx_sgid = sx_sgi;\n' : ''}  sx_main(sx_l, sx_li, sx_w);
  sx_flush();
}`);
    if (this.tickets.size) lines.push(guardEntryPoint(this.tickets, (r) => this.lengthOf(r)));
    // The 64-bit functions, where the shader computes with 64-bit values.
    const text = lines.join('\n') + '\n';
    return text.includes(WIDE_PREFIX) ? text + WIDE64 : text;
  }
}
