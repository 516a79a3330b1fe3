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
// - `__syncthreads()`: `storageBarrier(); workgroupBarrier();` (only the second when the kernel
//   writes no storage array). Block predicates and block-level conditions that WGSL's uniformity
//   analysis cannot prove uniform go through workgroup counters and `workgroupUniformLoad`;
//   threads that disagree are a divergent barrier, as on wasm.
// - warp shuffles and votes: a workgroup-memory emulation (the lanes' values in a workgroup
//   array between two barriers), correct for any subgroup size.
// - `return` before a later barrier: the thread sets `sx_exited` and skips its remaining work,
//   but still reaches the barriers (CUDA's exited threads no longer count).
// - bounds checks: an index outside its array records the first trap of the launch in the
//   `sx_err` buffer (kind, array, index, length, site, thread, block) and is clamped (a read)
//   or dropped (a write); the host turns the record into the KernelError wasm would throw.
// Anything else — 64-bit types, recursion, constructs without a WGSL form — is a diagnostic with
// file and line in the module's metadata (`meta.wgsl[kernel].diagnostics`); the kernel still
// builds for wasm and serial.

import { type AstNode, NK, LK, textOf, lineCol, operatorOf, walk } from './ast.js';
import type { Decl, FrontEndAnalysis, FunctionInfo, KernelInfo } from './frontend.js';
import type { ModuleWgslKernel } from '../kernelModule.js';
import {
  ATOMICS, BARRIERS, BLOCK_PREDICATES, CONVERSION_TYPES, INDEX_VARIABLES, PURE_CALLS, SHARED_DECLS, WARP_SHUFFLES, WARP_VOTES, isCollective,
} from './language.js';
import { type WType, NoWgslType, commonType, convert, elemBytes, floatLiteral, intLiteral, reprOf, wtypeOf, zero, bitsOf, isSmall } from './wgslTypes.js';
import { ACTIVE_LANES_FN, GLOBALS, TRAP_DIVERGENT, TRAP_FN, TRAP_OUT_OF_BOUNDS, casFn, shuffleFns } from './wgslRuntime.js';

/** Entry point of every generated shader. */
export const WGSL_ENTRY_POINT = 'main';

export interface WgslOptions { unchecked?: boolean }

/** One WGSL shader per kernel (or diagnostics), keyed by kernel name. */
export function generateWgsl(analysis: FrontEndAnalysis, kernels: readonly KernelInfo[], options: WgslOptions = {}): Record<string, ModuleWgslKernel> {
  const out: Record<string, ModuleWgslKernel> = {};
  for (const k of kernels) {
    const fn = analysis.functions.find((f) => f.exported && f.name === k.name);
    if (!fn) continue;
    try {
      out[k.name] = new KernelGen(analysis, fn, !options.unchecked).generate();
    } catch (e) {
      if (!(e instanceof NoWgsl)) throw e;
      const lc = lineCol(e.node);
      out[k.name] = { diagnostics: [{ file: e.file, line: lc.line, column: lc.column, message: e.message }] };
    }
  }
  return out;
}

/** A construct without a WGSL form, at a node. */
class NoWgsl extends Error {
  constructor(readonly node: AstNode, readonly file: string, message: string) { super(message); }
}

/** A kernel-level array (a parameter or a `__shared__` array) and how the kernel uses it. */
interface ArrRef {
  decl: Decl;
  name: string;                 // the WGSL variable
  elem: string;                 // the element dtype
  space: 'storage' | 'workgroup';
  id: number;                   // array id (meta.arrays)
  read: boolean;
  written: boolean;
  atomic: boolean;
  dynamic: boolean;
  count: number;
}

interface FnCtx {
  fn: FunctionInfo;
  kernel: boolean;
  arrays: Map<Decl, ArrRef>;
}

interface Specialization { name: string; ctx: FnCtx }

const ASSIGN_OPS = /^(=|\+=|-=|\*=|\/=|%=|&=|\|=|\^=|<<=|>>=|>>>=)$/;
const isAssignOp = (op: string): boolean => ASSIGN_OPS.test(op);

const MATHF: Record<string, string> = {
  abs: 'abs', ceil: 'ceil', floor: 'floor', trunc: 'trunc', sqrt: 'sqrt', sin: 'sin', cos: 'cos', tan: 'tan', asin: 'asin',
  acos: 'acos', atan: 'atan', atan2: 'atan2', sinh: 'sinh', cosh: 'cosh', tanh: 'tanh', asinh: 'asinh', acosh: 'acosh',
  atanh: 'atanh', exp: 'exp', log: 'log', log2: 'log2', pow: 'pow', min: 'min', max: 'max', sign: 'sign',
};
const MATHF_CONSTANTS: Record<string, number> = { PI: Math.PI, E: Math.E, LN2: Math.LN2, LN10: Math.LN10, LOG2E: Math.LOG2E, LOG10E: Math.LOG10E, SQRT2: Math.SQRT2, SQRT1_2: Math.SQRT1_2 };

class KernelGen {
  readonly sites: NonNullable<ModuleWgslKernel['sites']> = [];
  readonly helpers = new Map<string, string>();
  readonly consts = new Map<string, string>();
  readonly workgroupVars = new Map<string, string>();
  readonly specs = new Map<string, Specialization>();
  readonly kernelArrays = new Map<Decl, ArrRef>();
  uniformVars = new Set<Decl>();
  exitMode = false;
  hasCollectives = false;
  writesStorage = false;
  private tempCount = 0;

  constructor(readonly fe: FrontEndAnalysis, readonly fn: FunctionInfo, readonly checked: boolean) {}

  fail(node: AstNode, message: string, file = this.fn.file): never { throw new NoWgsl(node, file, message); }

  temp(): string { return `sx_t${this.tempCount++}`; }

  site(node: AstNode, file: string, what: string): number {
    const lc = lineCol(node);
    this.sites.push({ file, line: lc.line, column: lc.column, what });
    return this.sites.length - 1;
  }

  generate(): ModuleWgslKernel {
    const fn = this.fn;
    // Kernel-level arrays: parameters, then __shared__ declarations.
    for (const d of fn.decls) {
      if (!d.array) continue;
      const a = d.array;
      if (['f64', 'i64', 'u64'].includes(a.elem)) this.fail(d.node ?? fn.node, `${d.name}: ${a.elem}[] has no WGSL form (WGSL has no 64-bit types)`);
      this.kernelArrays.set(d, {
        decl: d, name: a.space === 'global' ? `a_${d.name}` : `w_${d.outName}`, elem: a.elem, space: a.space === 'global' ? 'storage' : 'workgroup',
        id: a.id, read: false, written: false, atomic: false, dynamic: a.dynamic, count: a.count,
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
    this.hasCollectives = hasCollective(fn, fn.node.body);
    this.exitMode = this.hasCollectives && containsReturn(fn.node.body);
    this.writesStorage = [...this.kernelArrays.values()].some((r) => r.space === 'storage' && (r.written || r.atomic));
    this.uniformVars = findUniformVars(this, fn);
    const em = new Emitter(this, kctx);
    const body = em.kernelBody();
    const specTexts: string[] = [];
    for (const s of [...this.specs.values()]) specTexts.push(new Emitter(this, s.ctx).deviceFunction(s.name));
    return {
      source: this.assemble(body, em, specTexts),
      ...(dyn.length ? { dynamicSharedElemBytes: elemBytes(dyn[0]!.elem) } : {}),
      sites: this.sites,
    };
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
    walk(ctx.fn.node.body, (n) => {
      if (n.kind === NK.ElementAccess) { const r = arrayOf(n.expression); if (r) r.read = true; }
      if (n.kind === NK.Binary && isAssignOp(operatorOf(n)) && n.left.kind === NK.ElementAccess) {
        const r = arrayOf(n.left.expression); if (r) r.written = true;
      }
      if ((n.kind === NK.UnaryPrefix || n.kind === NK.UnaryPostfix) && /^(\+\+|--)$/.test(operatorOf(n)) && n.operand.kind === NK.ElementAccess) {
        const r = arrayOf(n.operand.expression); if (r) r.written = true;
      }
      if (n.kind === NK.Call && n.expression.kind === NK.Identifier && !ctx.fn.refs.has(n.expression)) {
        const name = n.expression.text as string;
        if (name in ATOMICS) { const r = arrayOf(n.args[0]); if (r) { r.atomic = true; r.written = true; } }
        const target = this.fe.functions.find((f) => f.name === name && !f.exported);
        if (target) this.specialize(ctx, target, n, stack);
      }
      return undefined;
    });
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
    const lines: string[] = [`// GENERATED by simt's kernel compiler from ${fn.file}: kernel ${fn.name}.`, 'override BLOCK_X: u32 = 1u;', 'override BLOCK_Y: u32 = 1u;', 'override BLOCK_Z: u32 = 1u;'];
    if ([...this.kernelArrays.values()].some((r) => r.dynamic)) lines.push('override sx_dyn_len: u32 = 0u;', 'override sx_dyn_count: u32 = 1u;');
    lines.push(GLOBALS);
    // Bindings: the array parameters in order, the Launch uniform, the trap record.
    const params = fn.decls.filter((d) => d.param);
    const arrays = params.filter((d) => d.param === 'array');
    arrays.forEach((d, i) => {
      const r = this.kernelArrays.get(d)!;
      const access = r.written || r.atomic ? 'read_write' : 'read';
      lines.push(`@group(0) @binding(${i}) var<storage, ${access}> ${r.name}: array<${storageElem(r)}>;`);
    });
    const fields = ['  gridDim: vec3u,', '  blockOffset: u32,'];
    for (const d of params) if (d.param === 'scalar') fields.push(`  s_${d.name}: ${reprOf(this.typeOfText(d.typeText, fn.node))},`);
    for (const d of arrays) fields.push(`  n_${d.name}: u32,`);
    lines.push(`struct Launch {\n${fields.join('\n')}\n}`, `@group(0) @binding(${arrays.length}) var<uniform> launch: Launch;`);
    lines.push(`@group(0) @binding(${arrays.length + 1}) var<storage, read_write> sx_err: array<atomic<u32>, 12>;`);
    for (const r of this.kernelArrays.values()) {
      if (r.space !== 'workgroup') continue;
      lines.push(`var<workgroup> ${r.name}: array<${workgroupElem(r)}, ${r.dynamic ? 'sx_dyn_count' : r.count}>;`);
    }
    lines.push(...this.workgroupVars.values(), ...this.consts.values(), TRAP_FN, ...this.helpers.values(), ...specTexts);
    lines.push(`@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn ${WGSL_ENTRY_POINT}(@builtin(local_invocation_id) sx_l: vec3u, @builtin(local_invocation_index) sx_li: u32, @builtin(workgroup_id) sx_w: vec3u) {
  sx_tid = vec3<i32>(sx_l);
  sx_lin = sx_li;
  let sx_bid = vec3<i32>(i32(sx_w.x + launch.blockOffset), i32(sx_w.y), i32(sx_w.z));
  sx_gbid = sx_bid;
  sx_inf = bitcast<f32>(0x7f800000u | (sx_li & 0u));
  sx_nan = bitcast<f32>(0x7fc00000u | (sx_li & 0u));
${this.exitMode ? '  var sx_exited = false;\n' : ''}${em.topDecls.map((l) => '  ' + l).join('\n')}
${body}
}`);
    return lines.join('\n') + '\n';
  }

  /** The length of an array as a u32 expression. */
  lengthOf(r: ArrRef): string {
    if (r.space === 'storage') return `launch.n_${r.decl.name}`;
    return r.dynamic ? 'sx_dyn_len' : `${r.count}u`;
  }

  /** A checked index (u32) helper for r: records the trap and clamps to 0. */
  indexHelper(r: ArrRef): string {
    const name = `sx_ix_${r.name}`;
    if (!this.helpers.has(name)) {
      this.helpers.set(name, `fn ${name}(i: u32, sg: u32, site: u32) -> u32 {
  let n = ${this.lengthOf(r)};
  if (i >= n) { sx_trap(${TRAP_OUT_OF_BOUNDS}u, ${r.id}u, i, sg, n, site); return 0u; }
  return i;
}`);
    }
    return name;
  }

  /** The element at u32 index `i` of r (i in bounds), as its WType representation. */
  loadText(r: ArrRef, i: string): string {
    const t = wtypeOf(r.elem);
    if (r.space === 'storage' && isSmall(t)) {
      const name = `sx_get_${r.name}`;
      if (!this.helpers.has(name)) {
        const b = bitsOf(t), per = 32 / b, shift = per === 4 ? 2 : 1;
        const word = r.atomic || r.written ? `atomicLoad(&${r.name}[i >> ${shift}u])` : `${r.name}[i >> ${shift}u]`;
        const sh = `((i & ${per - 1}u) * ${b}u)`;
        const body = reprOf(t) === 'u32' ? `return (w >> ${sh}) & ${2 ** b - 1}u;` : `return bitcast<i32>(w << (${32 - b}u - ${sh})) >> ${32 - b}u;`;
        this.helpers.set(name, `fn ${name}(i: u32) -> ${reprOf(t)} {\n  let w = ${word};\n  ${body}\n}`);
      }
      return `${name}(${i})`;
    }
    if (r.atomic) return r.elem === 'f32' ? `bitcast<f32>(atomicLoad(&${r.name}[${i}]))` : `atomicLoad(&${r.name}[${i}])`;
    return `${r.name}[${i}]`;
  }

  /** A statement storing v (the element's representation) at u32 index i of r. */
  storeText(r: ArrRef, i: string, v: string): string {
    const t = wtypeOf(r.elem);
    if (r.space === 'storage' && isSmall(t)) {
      // Another thread may write the word's other halves or bytes at the same time: compare-exchange.
      const name = `sx_put_${r.name}`;
      if (!this.helpers.has(name)) {
        const b = bitsOf(t), per = 32 / b, shift = per === 4 ? 2 : 1;
        this.helpers.set(name, `fn ${name}(i: u32, v: ${reprOf(t)}) {
  let p = &${r.name}[i >> ${shift}u];
  let sh = (i & ${per - 1}u) * ${b}u;
  let m = ${2 ** b - 1}u << sh;
  var old = atomicLoad(p);
  loop {
    let r = atomicCompareExchangeWeak(p, old, (old & ~m) | ((u32(v) << sh) & m));
    if (r.exchanged) { return; }
    old = r.old_value;
  }
}`);
      }
      return `${name}(${i}, ${v});`;
    }
    if (r.atomic) return `atomicStore(&${r.name}[${i}], ${r.elem === 'f32' ? `bitcast<u32>(${v})` : v});`;
    return `${r.name}[${i}] = ${v};`;
  }

  /** A checked store helper for r. */
  storeHelper(r: ArrRef): string {
    const name = `sx_st_${r.name}`;
    if (!this.helpers.has(name)) {
      const rt = reprOf(wtypeOf(r.elem));
      this.helpers.set(name, `fn ${name}(i: u32, sg: u32, site: u32, v: ${rt}) {
  let n = ${this.lengthOf(r)};
  if (i >= n) { sx_trap(${TRAP_OUT_OF_BOUNDS}u, ${r.id}u, i, sg, n, site); return; }
  ${this.storeText(r, 'i', 'v')}
}`);
    }
    return name;
  }

  /** The helper performing CUDA atomic `op` on r (checked: a trap returns 0 and changes nothing). */
  atomicHelper(r: ArrRef, op: string): string {
    const name = `sx_${op}_${r.name}`;
    if (this.helpers.has(name)) return name;
    const t = r.elem as 'i32' | 'u32' | 'f32';
    const wg = r.space === 'workgroup' ? 'Wg' : '';
    const p = `&${r.name}[i]`;
    const word = t === 'f32' ? 'u32' : t;
    let expr: string;
    switch (op) {
      case 'atomicAdd': expr = t === 'f32' ? `cudaAtomicAddF32${wg}(${p}, v)` : `atomicAdd(${p}, v)`; break;
      case 'atomicSub': expr = `atomicSub(${p}, v)`; break;
      case 'atomicExch': expr = t === 'f32' ? `bitcast<f32>(atomicExchange(${p}, bitcast<u32>(v)))` : `atomicExchange(${p}, v)`; break;
      case 'atomicMin': expr = t === 'f32' ? `cudaAtomicMinF32${wg}(${p}, v)` : `atomicMin(${p}, v)`; break;
      case 'atomicMax': expr = t === 'f32' ? `cudaAtomicMaxF32${wg}(${p}, v)` : `atomicMax(${p}, v)`; break;
      case 'atomicInc': expr = `cudaAtomicInc${wg}(${p}, v)`; break;
      case 'atomicDec': expr = `cudaAtomicDec${wg}(${p}, v)`; break;
      case 'atomicAnd': expr = `atomicAnd(${p}, v)`; break;
      case 'atomicOr': expr = `atomicOr(${p}, v)`; break;
      case 'atomicXor': expr = `atomicXor(${p}, v)`; break;
      case 'atomicCAS': {
        const cas = `sx_cas_${r.space}_${word}`;
        if (!this.helpers.has(cas)) this.helpers.set(cas, casFn(cas, r.space === 'storage' ? `ptr<storage, atomic<${word}>, read_write>` : `ptr<workgroup, atomic<${word}>>`, word));
        expr = `${cas}(${p}, c, v)`;
        break;
      }
      default: throw new Error(`internal: atomic ${op}`);
    }
    const operand = op === 'atomicInc' || op === 'atomicDec' ? 'u32' : t;
    const args = op === 'atomicCAS' ? `c: ${t}, v: ${t}` : `v: ${operand}`;
    const check = this.checked ? `  let n = ${this.lengthOf(r)};\n  if (i >= n) { sx_trap(${TRAP_OUT_OF_BOUNDS}u, ${r.id}u, i, sg, n, site); return ${zero(reprOf(t))}; }\n` : '';
    this.helpers.set(name, `fn ${name}(i: u32, sg: u32, site: u32, ${args}) -> ${t} {\n${check}  return ${expr};\n}`);
    return name;
  }
}

function storageElem(r: ArrRef): string {
  if (isSmall(wtypeOf(r.elem))) return r.written ? 'atomic<u32>' : 'u32';
  if (r.atomic) return `atomic<${r.elem === 'f32' ? 'u32' : r.elem}>`;
  return r.elem;
}

function workgroupElem(r: ArrRef): string {
  const t = reprOf(wtypeOf(r.elem));
  if (r.atomic) return `atomic<${t === 'f32' ? 'u32' : t}>`;
  return t;
}

function hasCollective(fn: FunctionInfo, n: AstNode | null): boolean {
  let found = false;
  walk(n, (x) => {
    if (x.kind === NK.Call && x.expression.kind === NK.Identifier && !fn.refs.has(x.expression) && isCollective(x.expression.text)) found = true;
  });
  return found;
}

function collectivesIn(fn: FunctionInfo, n: AstNode | null): AstNode[] {
  const out: AstNode[] = [];
  walk(n, (x) => {
    if (x.kind === NK.Call && x.expression.kind === NK.Identifier && !fn.refs.has(x.expression) && isCollective(x.expression.text)) { out.push(x); return false; }
    return undefined;
  });
  return out;
}

function containsReturn(n: AstNode | null): boolean {
  let found = false;
  walk(n, (x) => { if (x.kind === NK.Return) found = true; });
  return found;
}

function listOf(s: AstNode): AstNode[] { return s.kind === NK.Block ? s.statements : [s]; }

function assignTarget(fn: FunctionInfo, e: AstNode): { d: Decl; rhs: AstNode | null } | undefined {
  if (e.kind === NK.Binary && isAssignOp(operatorOf(e)) && e.left.kind === NK.Identifier) { const d = fn.refs.get(e.left); if (d) return { d, rhs: e.right }; }
  if ((e.kind === NK.UnaryPostfix || e.kind === NK.UnaryPrefix) && /^(\+\+|--)$/.test(operatorOf(e)) && e.operand.kind === NK.Identifier) {
    const d = fn.refs.get(e.operand); if (d) return { d, rhs: null };
  }
  return undefined;
}

/**
 * Variables that WGSL's uniformity analysis sees as uniform: assigned only by statements at the
 * block level (outside any per-thread code), from uniform values (the front end's rule).
 */
function findUniformVars(gen: KernelGen, fn: FunctionInfo): Set<Decl> {
  const candidates = new Map<Decl, AstNode[]>();
  const rejected = new Set<Decl>();
  const uniformAssignments = new Set<AstNode>();
  const visit = (stmts: AstNode[]) => {
    for (const s of stmts) {
      if (s.kind === NK.Variable) {
        for (const vd of s.declarations as AstNode[]) {
          const d = fn.declOf.get(vd);
          if (d && !d.array && vd.initializer && !hasCollective(fn, vd.initializer)) candidates.set(d, [...(candidates.get(d) ?? []), vd.initializer]);
        }
      } else if (s.kind === NK.Expression) {
        const a = assignTarget(fn, s.expression);
        if (a && !hasCollective(fn, s.expression)) { uniformAssignments.add(s.expression); if (a.rhs) candidates.set(a.d, [...(candidates.get(a.d) ?? []), a.rhs]); }
      } else if (hasCollective(fn, s)) {
        if (s.kind === NK.Block) visit(s.statements);
        else if (s.kind === NK.If) { visit(listOf(s.ifTrue)); if (s.ifFalse) visit(listOf(s.ifFalse)); }
        else if (s.kind === NK.While || s.kind === NK.Do) visit(listOf(s.body));
        else if (s.kind === NK.For) {
          if (s.initializer) visit([s.initializer]);
          if (s.incrementor) { const a = assignTarget(fn, s.incrementor); if (a) uniformAssignments.add(s.incrementor); }
          visit(listOf(s.body));
        }
      }
    }
  };
  if (gen.hasCollectives) visit((fn.node.body as AstNode).statements);
  walk(fn.node.body, (n) => { const a = assignTarget(fn, n); if (a && !uniformAssignments.has(n)) rejected.add(a.d); });
  let uniform = new Set([...candidates.keys()].filter((d) => !rejected.has(d)));
  const isUniform = (e: AstNode | null): boolean => uniformExpr(gen, fn, e, uniform);
  for (let changed = true; changed;) {
    changed = false;
    for (const d of [...uniform]) if (!candidates.get(d)!.every(isUniform)) { uniform.delete(d); changed = true; }
  }
  uniform = new Set(uniform);
  return uniform;
}

/** Is e the same for every thread of the block, as WGSL's uniformity analysis will see it? */
function uniformExpr(gen: KernelGen, fn: FunctionInfo, e: AstNode | null, uniform: Set<Decl>): boolean {
  if (!e) return true;
  let ok = true;
  walk(e, (n) => {
    if (!ok) return false;
    switch (n.kind) {
      case NK.Literal: case NK.True: case NK.False: case NK.Parenthesized: case NK.Ternary: case NK.Assertion: return undefined;
      case NK.Binary: if (isAssignOp(operatorOf(n))) ok = false; return undefined;
      case NK.UnaryPrefix: if (/^(\+\+|--)$/.test(operatorOf(n))) ok = false; return undefined;
      case NK.Identifier: {
        const d = fn.refs.get(n);
        if (d) ok = d.param === 'scalar' || uniform.has(d);
        else ok = n.text === 'warpSize' || !!gen.fe.moduleConst(n.text);
        return false;
      }
      case NK.PropertyAccess: {
        const o = n.expression as AstNode;
        if (o.kind === NK.Identifier && ['blockIdx', 'blockDim', 'gridDim'].includes(o.text) && !fn.refs.has(o)) return false;
        if (o.kind === NK.Identifier && fn.refs.get(o)?.array && n.property.text === 'length') return false;
        if (o.kind === NK.Identifier && o.text === 'Mathf') return false;
        ok = false; return false;
      }
      case NK.Call: {
        const c = n.expression as AstNode;
        const pure = (c.kind === NK.Identifier && PURE_CALLS.has(c.text) && !fn.refs.has(c)) ||
          (c.kind === NK.PropertyAccess && c.expression.kind === NK.Identifier && c.expression.text === 'Mathf');
        if (!pure) ok = false;
        for (const a of n.args as AstNode[]) if (!uniformExpr(gen, fn, a, uniform)) ok = false;
        return false;
      }
      default: ok = false; return false;
    }
  });
  return ok;
}

/** Prints one function (the kernel's entry body or a device function) as WGSL. */
class Emitter {
  /** Declarations at the top of the function: hoisted locals and the collectives' results. */
  readonly topDecls: string[] = [];
  private pre: string[] = [];
  private readonly replace = new Map<AstNode, string>();
  private readonly hoisted = new Set<Decl>();
  private threadLoops = 0;
  private readonly fn: FunctionInfo;
  private readonly file: string;

  constructor(private readonly g: KernelGen, private readonly ctx: FnCtx) {
    this.fn = ctx.fn;
    this.file = ctx.fn.file;
  }

  private fail(n: AstNode, msg: string): never { return this.g.fail(n, msg, this.file); }

  // --- functions ----------------------------------------------------------------------------

  kernelBody(): string {
    const out: string[] = [];
    const stmts = (this.fn.node.body as AstNode).statements as AstNode[];
    if (this.g.hasCollectives) this.blockList(stmts, '  ', out);
    else this.stmtList(stmts, '  ', out, false);
    return out.join('\n');
  }

  deviceFunction(name: string): string {
    const fn = this.fn;
    const params = fn.decls.filter((d) => d.param === 'scalar').map((d) => `u_${d.outName}: ${reprOf(this.g.typeOfText(d.typeText, fn.node, this.file))}`);
    const ret = fn.returnType === 'void' ? '' : ` -> ${reprOf(this.g.typeOfText(fn.returnType, fn.node, this.file))}`;
    const out: string[] = [];
    this.stmtList((fn.node.body as AstNode).statements, '  ', out, false);
    return `fn ${name}(${params.join(', ')})${ret} {\n${this.topDecls.map((l) => '  ' + l).join('\n')}${this.topDecls.length ? '\n' : ''}${out.join('\n')}\n}`;
  }

  // --- types --------------------------------------------------------------------------------

  private declType(d: Decl, node: AstNode): WType {
    if (d.param === 'array') this.fail(node, `array '${d.name}' used as a value`);
    return this.g.typeOfText(d.param ? d.typeText : this.g.fe.declType(this.fn, d), d.node ?? node, this.file);
  }

  private litKind(e: AstNode): 'int' | 'float' | null {
    switch (e.kind) {
      case NK.Literal: return e.literalKind === LK.Integer ? 'int' : e.literalKind === LK.Float ? 'float' : null;
      case NK.Parenthesized: return this.litKind(e.expression);
      case NK.UnaryPrefix: return operatorOf(e) === '-' || operatorOf(e) === '+' ? this.litKind(e.operand) : null;
      case NK.Identifier: return !this.fn.refs.has(e) && (e.text === 'Infinity' || e.text === 'NaN') ? 'float' : null;
      default: return null;
    }
  }

  /** The value of a literal (with its signs). */
  private litValue(e: AstNode): bigint | number {
    switch (e.kind) {
      case NK.Literal: return e.literalKind === LK.Integer ? BigInt.asIntN(64, e.value) : Number(e.value);
      case NK.Parenthesized: return this.litValue(e.expression);
      case NK.UnaryPrefix: { const v = this.litValue(e.operand); return operatorOf(e) === '-' ? -v : v; }
      default: return e.text === 'NaN' ? NaN : Infinity;
    }
  }

  /** The type two operands compute in: a literal takes the other operand's type. */
  private opType(a: AstNode, b: AstNode): WType {
    const la = this.litKind(a), lb = this.litKind(b);
    const adopt = (lit: 'int' | 'float', t: WType): WType => (lit === 'float' && t !== 'f32' ? 'f32' : t === 'bool' ? 'i32' : t);
    if (la && !lb) return adopt(la, this.ty(b));
    if (lb && !la) return adopt(lb, this.ty(a));
    return commonType(this.ty(a), this.ty(b));
  }

  ty(e: AstNode): WType {
    switch (e.kind) {
      case NK.Literal:
        if (e.literalKind === LK.Integer) return 'i32';
        if (e.literalKind === LK.Float) return 'f32';
        return this.fail(e, 'string and array literals have no WGSL form');
      case NK.True: case NK.False: return 'bool';
      case NK.Parenthesized: return this.ty(e.expression);
      case NK.Assertion: return this.g.typeOfText(e.toType ? textOf(e.toType) : null, e, this.file);
      case NK.Identifier: {
        const d = this.fn.refs.get(e);
        if (d) return this.declType(d, e);
        if (e.text === 'warpSize') return 'i32';
        if (e.text === 'Infinity' || e.text === 'NaN') return 'f32';
        const c = this.g.fe.moduleConst(e.text);
        if (c) return this.g.typeOfText(c.typeText ?? this.g.fe.valueType(this.fn, c.init), e, this.file);
        return this.fail(e, `'${e.text}' has no WGSL form`);
      }
      case NK.PropertyAccess: {
        const o = e.expression as AstNode;
        if (o.kind === NK.Identifier && o.text === 'Mathf' && !this.fn.refs.has(o)) return 'f32';
        if (o.kind === NK.Identifier && o.text === 'Math' && !this.fn.refs.has(o)) return this.fail(e, 'Math works in f64, which has no WGSL form: use Mathf (f32)');
        return 'i32';
      }
      case NK.ElementAccess: return this.g.typeOfText(this.arrayOf(e.expression)?.elem ?? null, e, this.file);
      case NK.Call: return this.callType(e);
      case NK.Binary: {
        const op = operatorOf(e);
        if (/^(==|!=|===|!==|<|>|<=|>=|&&|\|\|)$/.test(op)) return 'bool';
        if (isAssignOp(op)) return this.ty(e.left);
        if (/^(<<|>>|>>>)$/.test(op)) { const t = this.ty(e.left); return t === 'bool' ? 'i32' : reprOf(t) as WType; }
        const t = this.opType(e.left, e.right);
        return isSmall(t) ? reprOf(t) : t;
      }
      case NK.UnaryPrefix: {
        const op = operatorOf(e);
        if (op === '!') return 'bool';
        const t = this.ty(e.operand);
        return op === '++' || op === '--' ? t : isSmall(t) || t === 'bool' ? (t === 'bool' ? 'i32' : reprOf(t)) : t;
      }
      case NK.UnaryPostfix: return this.ty(e.operand);
      case NK.Ternary: return this.opType(e.ifThen, e.ifElse);
      default: return this.fail(e, 'this expression has no WGSL form');
    }
  }

  private callType(e: AstNode): WType {
    const c = e.expression as AstNode;
    const args = e.args as AstNode[];
    if (c.kind === NK.PropertyAccess && c.expression.kind === NK.Identifier) {
      if (c.expression.text === 'Mathf') return 'f32';
      if (c.expression.text === 'Math') return this.fail(e, `Math.${c.property.text} works in f64, which has no WGSL form: use Mathf.${c.property.text} (f32)`);
    }
    if (c.kind !== NK.Identifier || this.fn.refs.has(c)) return this.fail(e, 'this call has no WGSL form');
    const name = c.text as string;
    if (CONVERSION_TYPES.has(name)) return this.g.typeOfText(name === 'isize' ? 'i32' : name === 'usize' ? 'u32' : name, e, this.file);
    if (['min', 'max'].includes(name)) return this.opType(args[0]!, args[1]!);
    if (['abs', 'sqrt', 'floor', 'ceil', 'trunc', 'nearest', 'copysign', 'clz', 'ctz', 'popcnt', 'rotl', 'rotr'].includes(name)) return reprOf(this.ty(args[0]!));
    if (name in ATOMICS) return ATOMICS[name]!.u32only ? 'u32' : this.g.typeOfText(this.arrayOf(args[0]!)?.elem ?? null, e, this.file);
    if (name in WARP_SHUFFLES) return reprOf(this.ty(args[1]!));
    if (name === '__ballot_sync' || name === '__activemask') return 'u32';
    if (name === '__any_sync' || name === '__all_sync') return 'bool';
    if (BLOCK_PREDICATES.has(name)) return 'i32';
    const f = this.g.fe.functions.find((x) => x.name === name && !x.exported);
    if (f) return f.returnType === 'void' ? 'i32' : this.g.typeOfText(f.returnType, e, this.file);
    return this.fail(e, `'${name}' has no WGSL form`);
  }

  private arrayOf(n: AstNode): ArrRef | undefined {
    if (n?.kind !== NK.Identifier) return undefined;
    const d = this.fn.refs.get(n);
    return d ? this.ctx.arrays.get(d) : undefined;
  }

  // --- expressions --------------------------------------------------------------------------

  /** e as WGSL, converted to `want` when given. */
  expr(e: AstNode, want?: WType): string {
    const lit = this.litKind(e);
    if (lit && want) {
      const v = this.litValue(e);
      if (typeof v === 'bigint') return intLiteral(v, want);
      return reprOf(want) === 'f32' ? floatLiteral(v) : convert(floatLiteral(v), 'f32', want);
    }
    const t = this.ty(e);
    const s = this.raw(e, t);
    return want ? convert(s, t, want) : s;
  }

  private capture<T>(f: () => T): { value: T; pre: string[] } {
    const saved = this.pre;
    this.pre = [];
    try { const value = f(); return { value, pre: this.pre }; } finally { this.pre = saved; }
  }

  private raw(e: AstNode, t: WType): string {
    switch (e.kind) {
      case NK.Literal: case NK.UnaryPrefix: case NK.Parenthesized: case NK.Identifier:
        if (this.litKind(e)) return this.expr(e, t);
        break;
      default: break;
    }
    switch (e.kind) {
      case NK.True: return 'true';
      case NK.False: return 'false';
      case NK.Parenthesized: return `(${this.expr(e.expression, t)})`;
      case NK.Assertion: return this.expr(e.expression, t);
      case NK.Identifier: return this.identifier(e);
      case NK.PropertyAccess: return this.property(e);
      case NK.ElementAccess: return this.elementRead(e);
      case NK.Call: return this.call(e);
      case NK.Binary: return this.binary(e, t);
      case NK.UnaryPrefix: return this.prefix(e, t);
      case NK.UnaryPostfix: {
        const op = operatorOf(e);
        const tmp = this.g.temp();
        this.pre.push(`let ${tmp} = ${this.expr(e.operand, t)};`);
        this.pre.push(this.incDecStatement(e.operand, op));
        return tmp;
      }
      case NK.Ternary: {
        const c = this.expr(e.condition, 'bool');
        const a = this.capture(() => this.expr(e.ifThen, t));
        const b = this.capture(() => this.expr(e.ifElse, t));
        if (!a.pre.length && !b.pre.length && this.speculatable(e.ifThen) && this.speculatable(e.ifElse)) return `select(${b.value}, ${a.value}, ${c})`;
        const tmp = this.g.temp();
        this.pre.push(`var ${tmp}: ${reprOf(t)};`, `if (${c}) {`, ...a.pre.map((l) => '  ' + l), `  ${tmp} = ${a.value};`, '} else {', ...b.pre.map((l) => '  ' + l), `  ${tmp} = ${b.value};`, '}');
        return tmp;
      }
      default: return this.fail(e, 'this expression has no WGSL form');
    }
  }

  /** Can e be evaluated when its value is not needed (select evaluates both sides)? No checked reads, no side effects. */
  private speculatable(e: AstNode): boolean {
    let ok = true;
    walk(e, (n) => {
      if (n.kind === NK.ElementAccess && (this.g.checked || this.arrayOf(n.expression)?.atomic)) ok = false;
      if (n.kind === NK.Call) {
        const c = n.expression;
        const pure = (c.kind === NK.Identifier && PURE_CALLS.has(c.text) && !this.fn.refs.has(c)) || (c.kind === NK.PropertyAccess && c.expression.text === 'Mathf');
        if (!pure) ok = false;
      }
      if (n.kind === NK.Binary && isAssignOp(operatorOf(n))) ok = false;
      if ((n.kind === NK.UnaryPrefix || n.kind === NK.UnaryPostfix) && /^(\+\+|--)$/.test(operatorOf(n))) ok = false;
    });
    return ok;
  }

  private identifier(e: AstNode): string {
    const d = this.fn.refs.get(e);
    if (d) {
      if (d.array) this.fail(e, `array '${d.name}' used as a value`);
      if (d.param === 'scalar' && this.ctx.kernel) return `launch.s_${d.name}`;
      return `u_${d.outName}`;
    }
    if (e.text === 'warpSize') return '32i';
    const c = this.g.fe.moduleConst(e.text);
    if (c) return this.moduleConst(e, e.text, c);
    return this.fail(e, `'${e.text}' has no WGSL form`);
  }

  private moduleConst(e: AstNode, name: string, c: { typeText: string | null; init: AstNode | null }): string {
    const id = `c_${name}`;
    if (!this.g.consts.has(id)) {
      const t = this.g.typeOfText(c.typeText ?? this.g.fe.valueType(this.fn, c.init), e, this.file);
      this.g.consts.set(id, '');   // reserves the name (a constant referring to itself fails below)
      const v = this.g.fe.constValue(c.init);
      let text: string;
      if (v !== undefined && reprOf(t) !== 'f32') text = intLiteral(BigInt(v), t);
      else if (c.init) text = this.expr(c.init, t);
      else return this.fail(e, `constant '${name}' has no value`);
      // Inf and NaN come from runtime values: such a constant is a private variable set at entry.
      if (/sx_(inf|nan)/.test(text)) return `(${text})`;
      this.g.consts.set(id, `const ${id}: ${reprOf(t)} = ${text};`);
    }
    return id;
  }

  private property(e: AstNode): string {
    const o = e.expression as AstNode;
    const prop = e.property.text as string;
    if (o.kind === NK.Identifier) {
      const r = this.arrayOf(o);
      if (r) return `i32(${this.g.lengthOf(r)})`;
      if (!this.fn.refs.has(o) && INDEX_VARIABLES.has(o.text) && /^[xyz]$/.test(prop)) {
        switch (o.text) {
          case 'threadIdx': return `sx_tid.${prop}`;
          case 'blockIdx': return this.ctx.kernel ? `sx_bid.${prop}` : `sx_gbid.${prop}`;
          case 'blockDim': return `i32(BLOCK_${prop.toUpperCase()})`;
          default: return `i32(launch.gridDim.${prop})`;
        }
      }
      if (o.text === 'Mathf' && prop in MATHF_CONSTANTS) return floatLiteral(MATHF_CONSTANTS[prop]!);
    }
    return this.fail(e, `'${textOf(e)}' has no WGSL form`);
  }

  /** An index as (u32 bits, signedness) for the checks and the access. */
  private index(e: AstNode): { i: string; sg: string } {
    const t = this.ty(e);
    if (t === 'f32') this.fail(e, 'a float index');
    const r = reprOf(t);
    if (r === 'u32') return { i: this.expr(e, 'u32'), sg: '0u' };
    return { i: `u32(${this.expr(e, 'i32')})`, sg: '1u' };
  }

  private elementRead(e: AstNode): string {
    const r = this.arrayOf(e.expression);
    if (!r) return this.fail(e, `'${textOf(e.expression)}' is not an array`);
    const { i, sg } = this.index(e.elementExpression);
    if (!this.g.checked) return this.g.loadText(r, i);
    const site = this.g.site(e, this.file, `read ${r.space === 'workgroup' ? '__shared__ ' : ''}${r.decl.name}[]`);
    return this.g.loadText(r, `${this.g.indexHelper(r)}(${i}, ${sg}, ${site}u)`);
  }

  /** The statement storing `value` (already of the element's representation) at e = a[i]. */
  private elementStore(e: AstNode, value: () => string): string {
    const r = this.arrayOf(e.expression)!;
    const { i, sg } = this.index(e.elementExpression);
    const v = value();
    if (!this.g.checked) return this.g.storeText(r, i, v);
    const site = this.g.site(e, this.file, `write ${r.space === 'workgroup' ? '__shared__ ' : ''}${r.decl.name}[]`);
    return `${this.g.storeHelper(r)}(${i}, ${sg}, ${site}u, ${v});`;
  }

  private binary(e: AstNode, t: WType): string {
    const op = operatorOf(e);
    if (isAssignOp(op)) return this.fail(e, 'an assignment used as a value has no WGSL form: write it as a statement of its own');
    if (op === '&&' || op === '||') {
      const l = this.expr(e.left, 'bool');
      const r = this.capture(() => this.expr(e.right, 'bool'));
      if (!r.pre.length) return `(${l} ${op} ${r.value})`;
      const tmp = this.g.temp();
      this.pre.push(`var ${tmp}: bool = ${l};`, `if (${op === '&&' ? '' : '!'}${tmp}) {`, ...r.pre.map((x) => '  ' + x), `  ${tmp} = ${r.value};`, '}');
      return tmp;
    }
    if (op === ',') return this.fail(e, 'the comma operator has no WGSL form');
    if (/^(<<|>>|>>>)$/.test(op)) {
      const l = this.expr(e.left, t);
      const r = this.expr(e.right, 'u32');
      if (op === '>>>' && t === 'i32') return `i32(u32(${l}) >> ${r})`;
      return `(${l} ${op === '>>>' ? '>>' : op} ${r})`;
    }
    const ct = this.opType(e.left, e.right);
    const wop = op === '===' ? '==' : op === '!==' ? '!=' : op;
    if (wop === '**') {
      if (ct !== 'f32') this.fail(e, '** on integers has no WGSL form');
      return `pow(${this.expr(e.left, 'f32')}, ${this.expr(e.right, 'f32')})`;
    }
    const rt = reprOf(ct);
    if (rt === 'bool' && /^[+\-*/%]$/.test(wop)) return `(${this.expr(e.left, 'i32')} ${wop} ${this.expr(e.right, 'i32')})`;
    return `(${this.expr(e.left, ct)} ${wop} ${this.expr(e.right, ct)})`;
  }

  private prefix(e: AstNode, t: WType): string {
    const op = operatorOf(e);
    if (op === '!') return `!(${this.expr(e.operand, 'bool')})`;
    if (op === '++' || op === '--') {
      this.pre.push(this.incDecStatement(e.operand, op));
      return this.expr(e.operand, t);
    }
    const v = this.expr(e.operand, t);
    if (op === '+') return v;
    if (op === '-') return reprOf(t) === 'u32' ? `(0u - ${v})` : `(-${v})`;
    if (op === '~') return `(~${v})`;
    return this.fail(e, `operator ${op} has no WGSL form`);
  }

  private call(e: AstNode): string {
    const r = this.replace.get(e);
    if (r !== undefined) return r;
    const c = e.expression as AstNode;
    const args = e.args as AstNode[];
    if (c.kind === NK.PropertyAccess && c.expression.kind === NK.Identifier && c.expression.text === 'Mathf') {
      const name = c.property.text as string;
      const a = args.map((x) => this.expr(x, 'f32'));
      if (name in MATHF) return `${MATHF[name]}(${a.join(', ')})`;
      switch (name) {
        case 'round': return `floor(${a[0]} + 0.5f)`;
        case 'fround': return a[0]!;
        case 'log10': return `(log(${a[0]}) * 0.4342944819032518f)`;
        case 'exp2': return `exp2(${a[0]})`;
        case 'expm1': return `(exp(${a[0]}) - 1.0f)`;
        case 'log1p': return `log(1.0f + ${a[0]})`;
        case 'hypot': return `length(vec2f(${a[0]}, ${a[1]}))`;
        case 'cbrt': return `(sign(${a[0]}) * pow(abs(${a[0]}), 1.0f / 3.0f))`;
        default: return this.fail(e, `Mathf.${name} has no WGSL form`);
      }
    }
    if (c.kind !== NK.Identifier || this.fn.refs.has(c)) return this.fail(e, 'this call has no WGSL form');
    const name = c.text as string;
    if (name in ATOMICS) return this.atomic(e, name, args);
    if (CONVERSION_TYPES.has(name)) {
      const to = this.g.typeOfText(name === 'isize' ? 'i32' : name === 'usize' ? 'u32' : name, e, this.file);
      return this.expr(args[0]!, to);
    }
    switch (name) {
      case 'min': case 'max': { const t = this.opType(args[0]!, args[1]!); return `${name}(${this.expr(args[0]!, reprOf(t))}, ${this.expr(args[1]!, reprOf(t))})`; }
      case 'abs': case 'sqrt': case 'floor': case 'ceil': case 'trunc': return `${name}(${this.expr(args[0]!, reprOf(this.ty(args[0]!)))})`;
      case 'nearest': return `round(${this.expr(args[0]!, 'f32')})`;
      case 'copysign': return `bitcast<f32>((bitcast<u32>(${this.expr(args[0]!, 'f32')}) & 0x7fffffffu) | (bitcast<u32>(${this.expr(args[1]!, 'f32')}) & 0x80000000u))`;
      case 'clz': return `countLeadingZeros(${this.expr(args[0]!, reprOf(this.ty(args[0]!)))})`;
      case 'ctz': return `countTrailingZeros(${this.expr(args[0]!, reprOf(this.ty(args[0]!)))})`;
      case 'popcnt': return `countOneBits(${this.expr(args[0]!, reprOf(this.ty(args[0]!)))})`;
      case 'rotl': case 'rotr': {
        const t = reprOf(this.ty(args[0]!));
        const x = `u32(${this.expr(args[0]!, t)})`, k = `(${this.expr(args[1]!, 'u32')} & 31u)`;
        const v = name === 'rotl' ? `((${x} << ${k}) | (${x} >> ((32u - ${k}) & 31u)))` : `((${x} >> ${k}) | (${x} << ((32u - ${k}) & 31u)))`;
        return t === 'i32' ? `i32(${v})` : v;
      }
      case '__activemask':
        if (this.g.exitMode) return this.fail(e, '__activemask() in a kernel whose threads may return early has no WGSL form yet');
        this.g.helpers.set('sx_activeLanes', ACTIVE_LANES_FN);
        return 'sx_activeLanes()';
      default: break;
    }
    if (isCollective(name)) return this.fail(e, `${name} here has no WGSL form: call it as a statement of the kernel (not in a device function or nested expression)`);
    if (SHARED_DECLS.has(name)) return this.fail(e, `${name} must initialise a const at the kernel's top level`);
    const target = this.g.fe.functions.find((f) => f.name === name && !f.exported);
    if (!target) return this.fail(e, `'${name}' has no WGSL form`);
    const spec = this.g.specialize(this.ctx, target, e, []);
    const params = target.decls.filter((d) => d.param);
    const out: string[] = [];
    args.forEach((a, k) => {
      const p = params[k]!;
      if (p.param === 'scalar') out.push(this.expr(a, this.g.typeOfText(p.typeText, a, this.file)));
    });
    return `${spec.name}(${out.join(', ')})`;
  }

  private atomic(e: AstNode, name: string, args: AstNode[]): string {
    const r = this.arrayOf(args[0]!)!;
    const elem = wtypeOf(r.elem);
    const { i, sg } = this.index(args[1]!);
    const operand = ATOMICS[name]!.u32only ? 'u32' : elem;
    const ops = args.slice(2).map((a) => this.expr(a, operand));
    const site = this.g.checked ? this.g.site(e, this.file, `${name} on ${r.space === 'workgroup' ? '__shared__ ' : ''}${r.decl.name}[]`) : 0;
    return `${this.g.atomicHelper(r, name)}(${i}, ${sg}, ${site}u, ${ops.join(', ')})`;
  }

  // --- statements ---------------------------------------------------------------------------

  /** Statements of one list; in a kernel whose threads may exit, what follows a return runs only while the thread lives. */
  private stmtList(list: AstNode[], ind: string, out: string[], hoist: boolean): void {
    let closes = 0;
    list.forEach((s, k) => {
      this.stmt(s, ind, out, hoist);
      if (this.g.exitMode && this.ctx.kernel && containsReturn(s) && k < list.length - 1) {
        if (this.threadLoops > 0) out.push(`${ind}if (sx_exited) { break; }`);
        else { out.push(`${ind}if (!sx_exited) {`); ind += '  '; closes++; }
      }
    });
    for (; closes > 0; closes--) { ind = ind.slice(2); out.push(`${ind}}`); }
  }

  private flushPre(ind: string, out: string[]): void {
    for (const l of this.pre) out.push(ind + l);
    this.pre = [];
  }

  private stmt(s: AstNode, ind: string, out: string[], hoist = false): void {
    switch (s.kind) {
      case NK.Empty: return;
      case NK.Block:
        out.push(`${ind}{`);
        this.stmtList(s.statements, ind + '  ', out, false);
        out.push(`${ind}}`);
        return;
      case NK.Variable: {
        for (const vd of s.declarations as AstNode[]) {
          const d = this.fn.declOf.get(vd)!;
          if (d.array) continue;
          const t = this.declType(d, vd);
          const init = vd.initializer ? this.expr(vd.initializer, t) : undefined;
          this.flushPre(ind, out);
          if (hoist || this.hoisted.has(d)) {
            if (!this.hoisted.has(d)) { this.hoisted.add(d); this.topDecls.push(`var u_${d.outName}: ${reprOf(t)};`); }
            out.push(`${ind}u_${d.outName} = ${init ?? zero(reprOf(t))};`);
          } else {
            out.push(`${ind}${d.isConst && init !== undefined ? 'let' : 'var'} u_${d.outName}${d.isConst && init !== undefined ? '' : `: ${reprOf(t)}`}${init !== undefined ? ` = ${init}` : ''};`);
          }
        }
        return;
      }
      case NK.Expression: {
        const text = this.exprStatement(s.expression);
        this.flushPre(ind, out);
        if (text) out.push(ind + text);
        return;
      }
      case NK.If: {
        const c = this.expr(s.condition, 'bool');
        this.flushPre(ind, out);
        out.push(`${ind}if (${c}) {`);
        this.stmtList(listOf(s.ifTrue), ind + '  ', out, false);
        if (s.ifFalse) {
          out.push(`${ind}} else {`);
          this.stmtList(listOf(s.ifFalse), ind + '  ', out, false);
        }
        out.push(`${ind}}`);
        return;
      }
      case NK.While: case NK.Do: case NK.For: {
        out.push(`${ind}{`);
        const i2 = ind + '  ', i3 = ind + '    ';
        if (s.kind === NK.For && s.initializer) this.stmt(s.initializer, i2, out);
        out.push(`${i2}loop {`);
        if (s.kind !== NK.Do && s.condition) {
          const c = this.expr(s.condition, 'bool');
          this.flushPre(i3, out);
          out.push(`${i3}if (!${paren(c)}) { break; }`);
        }
        this.threadLoops++;
        this.stmtList(listOf(s.body), i3, out, false);
        this.threadLoops--;
        const cont: string[] = [];
        if (s.kind === NK.For && s.incrementor) {
          const t = this.exprStatement(s.incrementor);
          this.flushPre(i3 + '  ', cont);
          if (t) cont.push(i3 + '  ' + t);
        }
        if (s.kind === NK.Do) {
          const c = this.expr(s.condition, 'bool');
          this.flushPre(i3 + '  ', cont);
          cont.push(`${i3}  break if !${paren(c)};`);
        }
        if (cont.length) out.push(`${i3}continuing {`, ...cont, `${i3}}`);
        out.push(`${i2}}`, `${ind}}`);
        return;
      }
      case NK.Break: out.push(`${ind}break;`); return;
      case NK.Continue: out.push(`${ind}continue;`); return;
      case NK.Return: {
        if (!this.ctx.kernel) {
          if (!s.value) { out.push(`${ind}return;`); return; }
          const v = this.expr(s.value, this.g.typeOfText(this.fn.returnType, s, this.file));
          this.flushPre(ind, out);
          out.push(`${ind}return ${v};`);
          return;
        }
        if (s.value) this.fail(s, 'a kernel returns no value');
        if (this.g.exitMode) out.push(`${ind}sx_exited = true;${this.threadLoops > 0 ? ' break;' : ''}`);
        else out.push(`${ind}return;`);
        return;
      }
      default: this.fail(s, 'this statement has no WGSL form');
    }
  }

  /** An expression statement as one WGSL statement (assignments, increments, calls). Pre-statements go to this.pre. */
  private exprStatement(e: AstNode): string {
    if (e.kind === NK.Binary && isAssignOp(operatorOf(e))) return this.assignment(e);
    if ((e.kind === NK.UnaryPostfix || e.kind === NK.UnaryPrefix) && /^(\+\+|--)$/.test(operatorOf(e))) return this.incDecStatement(e.operand, operatorOf(e));
    if (e.kind === NK.Parenthesized) return this.exprStatement(e.expression);
    if (e.kind === NK.Call) {
      const c = e.expression as AstNode;
      if (c.kind === NK.Identifier && !this.fn.refs.has(c) && BARRIERS.has(c.text)) return this.fail(e, `${c.text} here has no WGSL form`);
      const text = this.expr(e);
      return this.replace.has(e) ? '' : `${/^[a-zA-Z_][\w]*\(/.test(text) ? '' : '_ = '}${text};`;
    }
    return `_ = ${this.expr(e)};`;
  }

  private assignment(e: AstNode): string {
    const op = operatorOf(e);
    const left = e.left as AstNode;
    const binop = op.slice(0, -1);
    if (left.kind === NK.ElementAccess) {
      const r = this.arrayOf(left.expression);
      if (!r) return this.fail(e, `'${textOf(left.expression)}' is not an array`);
      const et = wtypeOf(r.elem);
      return this.elementStore(left, () => (op === '=' ? this.expr(e.right, et) : convert(this.compound(left, binop, e.right, e), this.compoundType(left, binop, e.right), et)));
    }
    if (left.kind !== NK.Identifier || !this.fn.refs.get(left)) return this.fail(e, `assignment to '${textOf(left)}' has no WGSL form`);
    const d = this.fn.refs.get(left)!;
    if (d.param === 'scalar' && this.ctx.kernel) return this.fail(e, `assignment to the parameter '${d.name}' has no WGSL form (parameters are uniform values): copy it into a local`);
    const t = this.declType(d, left);
    const v = op === '=' ? this.expr(e.right, t) : convert(this.compound(left, binop, e.right, e), this.compoundType(left, binop, e.right), t);
    return `${this.identifier(left)} = ${v};`;
  }

  private compoundType(left: AstNode, op: string, right: AstNode): WType {
    if (/^(<<|>>|>>>)$/.test(op)) { const t = this.ty(left); return reprOf(t); }
    const t = this.opType(left, right);
    return isSmall(t) ? reprOf(t) : t;
  }

  /** `left op right` (the value of a compound assignment) in compoundType. */
  private compound(left: AstNode, op: string, right: AstNode, node: AstNode): string {
    const t = this.compoundType(left, op, right);
    if (op === '**') return `pow(${this.expr(left, 'f32')}, ${this.expr(right, 'f32')})`;
    if (/^(<<|>>|>>>)$/.test(op)) {
      const l = this.expr(left, t), r = this.expr(right, 'u32');
      return op === '>>>' && t === 'i32' ? `i32(u32(${l}) >> ${r})` : `(${l} ${op === '>>>' ? '>>' : op} ${r})`;
    }
    if (!/^[+\-*/%&|^]$/.test(op)) return this.fail(node, `operator ${op}= has no WGSL form`);
    return `(${this.expr(left, t)} ${op} ${this.expr(right, t)})`;
  }

  private incDecStatement(target: AstNode, op: string): string {
    const one = { kind: NK.Literal, literalKind: LK.Integer, value: 1n, range: target.range } as unknown as AstNode;
    const fake = { kind: NK.Binary, left: target, right: one, range: target.range } as unknown as AstNode;
    const binop = op[0]!;
    if (target.kind === NK.ElementAccess) {
      const r = this.arrayOf(target.expression)!;
      const et = wtypeOf(r.elem);
      return this.elementStore(target, () => convert(this.compound(target, binop, one, fake), this.compoundType(target, binop, one), et));
    }
    if (target.kind !== NK.Identifier || !this.fn.refs.get(target)) return this.fail(target, `${op} on '${textOf(target)}' has no WGSL form`);
    const d = this.fn.refs.get(target)!;
    const t = this.declType(d, target);
    return `${this.identifier(target)} = ${convert(this.compound(target, binop, one, fake), this.compoundType(target, binop, one), t)};`;
  }

  // --- the block level: barriers and warp operations ------------------------------------------

  private guard(ind: string, out: string[], lines: string[]): void {
    if (!lines.length) return;
    if (!this.g.exitMode) { for (const l of lines) out.push(ind + l); return; }
    out.push(`${ind}if (!sx_exited) {`, ...lines.map((l) => `${ind}  ${l}`), `${ind}}`);
  }

  private barrier(): string { return this.g.writesStorage ? 'storageBarrier(); workgroupBarrier();' : 'workgroupBarrier();'; }

  private isUniformStatement(s: AstNode): boolean {
    if (s.kind === NK.Variable) return (s.declarations as AstNode[]).every((vd) => { const d = this.fn.declOf.get(vd); return !!d && this.g.uniformVars.has(d); });
    if (s.kind === NK.Expression) { const a = assignTarget(this.fn, s.expression); return !!a && this.g.uniformVars.has(a.d); }
    return false;
  }

  private blockList(stmts: AstNode[], ind: string, out: string[]): void {
    let group: AstNode[] = [];
    const flush = () => {
      if (!group.length) return;
      if (this.g.exitMode) {
        const inner: string[] = [];
        this.stmtList(group, '', inner, true);
        this.guard(ind, out, inner);
      } else this.stmtList(group, ind, out, false);
      group = [];
    };
    for (const s of stmts) {
      if (s.kind === NK.Empty) continue;
      if (s.kind === NK.Variable && (s.declarations as AstNode[]).every((vd) => this.fn.declOf.get(vd)?.array)) continue;
      if (this.isUniformStatement(s)) { flush(); this.stmt(s, ind, out); continue; }
      if (!hasCollective(this.fn, s)) { group.push(s); continue; }
      flush();
      switch (s.kind) {
        case NK.Block: out.push(`${ind}{`); this.blockList(s.statements, ind + '  ', out); out.push(`${ind}}`); break;
        case NK.If:
          if (!hasCollective(this.fn, s.ifTrue) && !(s.ifFalse && hasCollective(this.fn, s.ifFalse))) { this.collectiveStatement(s, [s.condition], ind, out); break; }
          out.push(`${ind}if (${this.blockCond(s.condition, s, ind, out)}) {`);
          this.blockList(listOf(s.ifTrue), ind + '  ', out);
          if (s.ifFalse) { out.push(`${ind}} else {`); this.blockList(listOf(s.ifFalse), ind + '  ', out); }
          out.push(`${ind}}`);
          break;
        case NK.While: case NK.Do: case NK.For: {
          if (s.condition && hasCollective(this.fn, s.condition)) this.fail(s.condition, 'a warp operation or block predicate in a loop condition has no WGSL form yet: compute it in the loop body');
          out.push(`${ind}{`);
          const i2 = ind + '  ', i3 = ind + '    ';
          if (s.kind === NK.For && s.initializer) this.blockList([s.initializer], i2, out);
          out.push(`${i2}loop {`);
          if (s.kind !== NK.Do && s.condition) out.push(`${i3}if (!${paren(this.blockCond(s.condition, s, i3, out))}) { break; }`);
          this.blockList(listOf(s.body), i3, out);
          if (s.kind === NK.For && s.incrementor) this.blockList([{ kind: NK.Expression, expression: s.incrementor, range: s.incrementor.range } as AstNode], i3, out);
          if (s.kind === NK.Do) out.push(`${i3}if (!${paren(this.blockCond(s.condition, s, i3, out))}) { break; }`);
          out.push(`${i2}}`, `${ind}}`);
          break;
        }
        case NK.Expression: this.collectiveStatement(s, [s.expression], ind, out); break;
        case NK.Variable: this.collectiveStatement(s, (s.declarations as AstNode[]).map((d) => d.initializer), ind, out); break;
        default: this.fail(s, 'this statement cannot contain a barrier or warp operation');
      }
    }
    flush();
  }

  /** A block-level condition: as written when WGSL sees it uniform, else counted over the block (divergence traps). */
  private blockCond(e: AstNode, construct: AstNode, ind: string, out: string[]): string {
    if (uniformExpr(this.g, this.fn, e, this.g.uniformVars)) {
      const c = this.expr(e, 'bool');
      this.flushPre(ind, out);
      return c;
    }
    const site = this.g.site(construct, this.file, `condition of a ${construct.kind === NK.If ? 'if' : 'loop'} with a barrier`);
    const r = this.blockCount(e, ind, out, site);
    return `(${r}.x != 0u && ${r}.x == ${r}.y)`;
  }

  /** Counts the live threads and those whose predicate holds (a vec2u, uniform): __syncthreads_count's machinery. */
  private blockCount(pred: AstNode, ind: string, out: string[], divergenceSite?: number): string {
    this.g.workgroupVars.set('sx_bc', 'var<workgroup> sx_bc_true: atomic<u32>;\nvar<workgroup> sx_bc_live: atomic<u32>;\nvar<workgroup> sx_bc_out: vec2u;');
    const tmp = this.g.temp();
    this.topDecls.push(`var ${tmp}: vec2u;`);
    const p = this.capture(() => this.expr(pred, 'bool'));
    this.guard(ind, out, [...p.pre, `if (${p.value}) { atomicAdd(&sx_bc_true, 1u); }`, 'atomicAdd(&sx_bc_live, 1u);']);
    out.push(`${ind}${this.barrier()}`);
    const trap = divergenceSite === undefined ? '' : ` if (t != 0u && t != l) { sx_trap(${TRAP_DIVERGENT}u, ${divergenceSite}u, 0u, 0u, 0u, ${divergenceSite}u); }`;
    out.push(`${ind}if (sx_lin == 0u) { let t = atomicLoad(&sx_bc_true); let l = atomicLoad(&sx_bc_live); sx_bc_out = vec2u(t, l); atomicStore(&sx_bc_true, 0u); atomicStore(&sx_bc_live, 0u);${trap} }`);
    out.push(`${ind}${tmp} = workgroupUniformLoad(&sx_bc_out);`);
    return tmp;
  }

  /** A statement holding collectives: each is computed by the whole block, then the statement runs with their results. */
  private collectiveStatement(s: AstNode, heads: (AstNode | null)[], ind: string, out: string[]): void {
    const calls = heads.flatMap((h) => collectivesIn(this.fn, h));
    for (const c of calls) {
      const name = c.expression.text as string;
      const args = c.args as AstNode[];
      if (BARRIERS.has(name)) {
        if (!(s.kind === NK.Expression && s.expression === c)) this.fail(c, `${name}() must be a statement of its own`);
        out.push(`${ind}${this.barrier()}`);
        return;
      }
      if (BLOCK_PREDICATES.has(name)) {
        const r = this.blockCount(args[0]!, ind, out);
        this.replace.set(c, name === '__syncthreads_count' ? `i32(${r}.x)` : name === '__syncthreads_or' ? `i32(${r}.x > 0u)` : `i32(${r}.x == ${r}.y)`);
        continue;
      }
      if (WARP_VOTES.has(name)) {
        this.g.workgroupVars.set('sx_vote', 'var<workgroup> sx_ballot: array<atomic<u32>, 32>;\nvar<workgroup> sx_live: array<atomic<u32>, 32>;');
        const bits = this.g.temp(), live = this.g.temp();
        this.topDecls.push(`var ${bits}: u32;`, `var ${live}: u32;`);
        const p = this.capture(() => this.expr(args[1]!, 'bool'));
        out.push(`${ind}if ((sx_lin & 31u) == 0u) { atomicStore(&sx_ballot[sx_lin >> 5u], 0u); atomicStore(&sx_live[sx_lin >> 5u], 0u); }`, `${ind}workgroupBarrier();`);
        this.guard(ind, out, [...p.pre, 'atomicOr(&sx_live[sx_lin >> 5u], 1u << (sx_lin & 31u));', `if (${p.value}) { atomicOr(&sx_ballot[sx_lin >> 5u], 1u << (sx_lin & 31u)); }`]);
        out.push(`${ind}workgroupBarrier();`, `${ind}${bits} = atomicLoad(&sx_ballot[sx_lin >> 5u]); ${live} = atomicLoad(&sx_live[sx_lin >> 5u]);`, `${ind}workgroupBarrier();`);
        const mask = () => this.expr(args[0]!, 'u32');
        this.replace.set(c, name === '__ballot_sync' ? `(${bits} & ${mask()})` : name === '__any_sync' ? `((${bits} & ${mask()}) != 0u)` : `((${bits} & ${mask()}) == (${mask()} & ${live}))`);
        continue;
      }
      // Shuffles: every lane's value through a workgroup array.
      const t = reprOf(this.ty(args[1]!));
      if (t === 'bool') this.fail(args[1]!, `${name} of a bool has no WGSL form: shuffle an i32`);
      this.g.workgroupVars.set(`sx_shfl_${t}`, `var<workgroup> sx_shfl_${t}: array<${t}, sx_nthreads>;`);
      this.g.helpers.set(`sx_shfl_fns_${t}`, shuffleFns(t));
      const v = this.capture(() => this.expr(args[1]!, t));
      this.guard(ind, out, [...v.pre, `sx_shfl_${t}[sx_lin] = ${v.value};`]);
      out.push(`${ind}workgroupBarrier();`);
      const tmp = this.g.temp();
      this.topDecls.push(`var ${tmp}: ${t};`);
      const kind = { __shfl_sync: 'idx', __shfl_up_sync: 'up', __shfl_down_sync: 'down', __shfl_xor_sync: 'xor' }[name]!;
      const a = this.capture(() => `sx_shfl_${kind}_${t}(${this.expr(args[2]!, 'i32')}, ${args[3] ? this.expr(args[3], 'i32') : '32i'})`);
      this.guard(ind, out, [...a.pre, `${tmp} = ${a.value};`]);
      out.push(`${ind}workgroupBarrier();`);
      this.replace.set(c, tmp);
    }
    const lines: string[] = [];
    if (s.kind === NK.If) {
      // Only the condition held collectives: the if itself is per-thread code.
      this.stmtList([s], '', lines, false);
    } else this.stmtList([s], '', lines, this.g.exitMode);
    this.guard(ind, out, lines);
  }
}

function paren(s: string): string { return /^[\w.]+$/.test(s) ? s : `(${s})`; }
