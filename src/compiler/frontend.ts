// The front end of simt's kernel compiler: reads a per-thread, CUDA-shaped AssemblyScript
// source and writes the AssemblyScript of its two executable forms.
//
// - The block form (fast and seeded): loop fission at every barrier (MCUDA; PoCL's
//   "work-item loops"). The kernel body is cut into *regions* — the stretches between
//   collective operations — and each region becomes a loop over the block's threads. Values a
//   thread computes in one region and uses in another live in per-thread *context slots*;
//   values that are the same for every thread of the block (*uniform*: computed from
//   blockIdx, blockDim, gridDim, parameters and other uniform values) stay block-level locals,
//   so loops and ifs that contain barriers run once per block with a uniform condition (CUDA
//   requires it; a block where it differs traps as a divergent barrier). Warp shuffles and
//   votes split regions as barriers do (CuPBoP's "hierarchical collapsing"): the region before
//   stores each lane's operand, the region after reads its partner's.
// - The fine-grained form: the source as written, one call per thread, every access, atomic,
//   barrier and warp operation a scheduling point with its source site (asyncify, for the race
//   tools).
//
// Both forms go through the same rewrite of array accesses: a typed-array parameter becomes a
// (pointer, length) pair and `a[i]` a bounds-checked load naming the array and the site.

import { type AstNode, type AssemblyScript, NK, LK, textOf, lineCol, operatorOf, unparen, walk } from './ast.js';
import { matchConditionalAssign, matchMinMax, type MinMax } from './minmax.js';
import { laneRegionFunction } from './laneVector.js';
import { applyFolds, blockRangeProof, type NodeFactory, type RangeProof } from './rangeProof.js';
import { constantTrips } from './wgslUnroll.js';
import { warpChainAt, type ChainStep } from './warpChain.js';
import { collectiveFunctions, inlineCollectiveCalls, originOf, type InlineFunction, type Origin } from './inline.js';
import { inlineAccessorCalls } from './inlineAccessors.js';
import {
  ATOMICS, BARRIERS, BLOCK_PREDICATES, CONVERSION_TYPES, ELEMENT_TYPES, FENCES, INDEX_VARIABLES, PURE_CALLS, SCALAR_TYPES,
  SHARED_DECLS, LOCAL_DECL, TYPED_ARRAY_NAMES, WARP_SHUFFLES, WARP_VOTES, isCollective, isLanguageName, isRawMemoryCall,
} from './language.js';
import type { DType } from '../dtypes.js';

/** A problem in a kernel source, at its file, line and column. */
export interface Diagnostic { file: string; line: number; column: number; message: string }

export class CompileFailure extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => `${d.file}:${d.line}:${d.column}: ${d.message}`).join('\n'));
  }
}

/** A source location the generated code can name (accesses, atomics, barriers, warp operations). */
export interface Site { file: string; line: number; column: number; what: string }

export interface KernelParamInfo { name: string; kind: 'array' | 'scalar'; dtype: string }

export interface KernelInfo {
  name: string;
  file: string;
  line: number;
  params: KernelParamInfo[];
  /** Bytes of the kernel's static `__shared__` arrays (the dynamic part comes after them). */
  staticSharedBytes: number;
  /** Regions (thread loops) of the block form: 1 for a kernel without collectives. */
  regions: number;
  /** Context slots used (values live across barriers, collective buffers). */
  slots: number;
  /** The `__shared__` arrays' layout (count null: the dynamic `extern __shared__` array), for race reports. */
  shared: SharedArrayInfo[];
  /** Bytes of the kernel's `__local__` arrays per thread (0: none). */
  localBytes: number;
}

export interface SharedArrayInfo { name: string; dtype: string; offset: number; count: number | null }

export interface FrontEndResult {
  /** AssemblyScript of the block form: kernels `<name>` (seeded), `__fast_<name>`, `__blocks_<name>`. */
  blockSource: string;
  /** AssemblyScript of the fine-grained form: `tk_<name>`. */
  fineSource: string;
  /** AssemblyScript of the race screen's form (the block form as written, recording its accesses; runtime/checked.ts). */
  screenSource: string;
  kernels: KernelInfo[];
  sites: Site[];
  /** Array names by id (for trap messages): `kernel.array`. */
  arrays: string[];
  /** What the front end resolved, for the other back ends (src/compiler/wgsl.ts). */
  analysis: FrontEndAnalysis;
}

/** The front end's scopes, constants and types, read by back ends that print their own language. */
export interface FrontEndAnalysis {
  /** Every function (kernels and device functions), in source order, with resolved scopes. */
  functions: readonly FunctionInfo[];
  moduleConst(name: string): { typeText: string | null; init: AstNode | null } | undefined;
  constValue(e: AstNode | null): number | undefined;
  valueType(fn: FunctionInfo, e: AstNode | null): string | null;
  declType(fn: FunctionInfo, d: Decl): string | null;
  /** A kernel's range proof, as the block form's proven copy uses it (none in unchecked builds). */
  rangeProof(fn: FunctionInfo): RangeProof | undefined;
  /** A node's place in the user's sources (through the origins of inlined device functions). */
  where(node: AstNode, file: string): { file: string; line: number; column: number };
}

export interface FrontEndOptions {
  /** Drop the bounds checks of array accesses (fast form only). */
  unchecked?: boolean;
}

/** Register slots of the runtime (assembly/runtime/scratch.ts REGISTER_SLOTS). */
export const CONTEXT_SLOTS = 32;

/** A kernel source; `origins` map stretches of a rewritten one (inlined device functions) back to their lines. */
interface SourceFile { path: string; text: string; origins?: Origin[] }

/** One declared variable of a function (a `let`/`const`, a parameter). */
export interface Decl {
  id: number;
  name: string;
  outName: string;
  node: AstNode | null;           // VariableDeclaration (null for parameters)
  isConst: boolean;
  typeText: string | null;        // annotation, or inferred (lazily)
  param?: 'scalar' | 'array';
  array?: ArrayInfo;              // arrays: parameters and __shared__ declarations
  /** local: one region; split: several, each writing it before reading it (a local in each, no slot). */
  cls?: 'uniform' | 'context' | 'remat' | 'local' | 'split';
  slot?: number;
  regions: Set<number>;
}

export interface ArrayInfo {
  name: string;
  elem: DType;
  space: 'global' | 'shared' | 'local';
  id: number;
  /**
   * Shared: byte offset in the block's static shared memory; dynamic arrays start after the
   * static ones. Local: byte offset in the thread's local bytes.
   */
  offset: number;
  /** Local: the kernel's local bytes per thread, and its static shared bytes (where the fine form keeps them). */
  threadBytes?: number;
  staticShared?: number;
  count: number;
  dynamic: boolean;
}

export interface FunctionInfo {
  node: AstNode;
  name: string;
  exported: boolean;
  file: string;
  decls: Decl[];
  refs: Map<AstNode, Decl>;       // identifier node → its declaration
  declOf: Map<AstNode, Decl>;     // VariableDeclaration node → Decl
  returnType: string;
}

const SCALARS = new Set<string>(SCALAR_TYPES);

const privatizedCache = new WeakMap<FunctionInfo, Decl | null>();

/**
 * The first array parameter of 32-bit integers that a kernel only ever names as the array of
 * an `atomicAdd(a, i, v);` statement (its result unused; no read, store, other atomic, `.length`
 * or device-function argument): its block form adds into a per-worker copy of it
 * (runtime/compiled.ts, __privBegin), since nothing in the kernel can see the difference.
 */
function privatizedArray(fn: FunctionInfo): Decl | undefined {
  const cached = privatizedCache.get(fn);
  if (cached !== undefined) return cached ?? undefined;
  const allowed = new Set<AstNode>();
  walk(fn.node, (n) => {
    if (n.kind !== NK.Expression) return;
    const e = unparen(n.expression);
    if (e.kind === NK.Call && e.expression.kind === NK.Identifier && e.expression.text === 'atomicAdd' && !fn.refs.has(e.expression) &&
      (e.args as AstNode[]).length === 3 && unparen(e.args[0]).kind === NK.Identifier) allowed.add(unparen(e.args[0]));
  });
  const candidates = new Set(fn.decls.filter((d) => d.param === 'array' && d.array && d.array.space !== 'shared' && (d.array.elem === 'u32' || d.array.elem === 'i32')));
  walk(fn.node, (n) => {
    if (n.kind !== NK.Identifier) return;
    const d = fn.refs.get(n);
    if (d && candidates.has(d) && !allowed.has(n)) candidates.delete(d);
  });
  const found = [...candidates].find((d) => [...allowed].some((n) => fn.refs.get(n) === d));
  privatizedCache.set(fn, found ?? null);
  return found;
}

/** Rounds of inlining (a device function with barriers calling another is inlined in the next round). */
const INLINE_ROUNDS = 8;
/** Rounds that may write accessors into kernels (an accessor's expression may call another). */
const ACCESSOR_ROUNDS = 3;

export function runFrontEnd(as: AssemblyScript, files: SourceFile[], options: FrontEndOptions = {}): FrontEndResult {
  let current = files;
  // Accessors first (their calls can sit in any expression), then the collective functions; each
  // kind counts its own rounds, so that accessors leave the collectives all of theirs.
  let accessorRounds = 0;
  for (let round = 0; ; ) {
    const fe = new FrontEnd(as, options);
    for (const f of current) fe.addFile(f);
    const accessors = accessorRounds < ACCESSOR_ROUNDS ? fe.inlineAccessors() : undefined;
    if (accessors) { accessorRounds++; current = accessors; continue; }
    const inlined = fe.inlineCollectives();
    if (!inlined) return fe.finish();
    if (round++ === INLINE_ROUNDS) {
      throw new CompileFailure([{ file: files[0]!.path, line: 1, column: 1, message: `device functions with barriers call each other more than ${INLINE_ROUNDS} deep (recursion?)` }]);
    }
    current = inlined;
  }
}

class FrontEnd {
  private readonly diags: Diagnostic[] = [];
  readonly sites: Site[] = [];
  readonly arrays: string[] = [];
  private readonly functions: FunctionInfo[] = [];
  private readonly functionsByName = new Map<string, FunctionInfo>();
  private readonly topLevel: { node: AstNode; file: string }[] = [];
  private readonly moduleConsts = new Map<string, { typeText: string | null; init: AstNode | null }>();
  private readonly kernels: KernelInfo[] = [];
  /** Each kernel's range proof (rangeProof.ts), for the WGSL form too (wgslProof.ts). */
  private readonly rangeProofs = new Map<FunctionInfo, RangeProof>();
  private readonly files: SourceFile[] = [];
  private nextDecl = 1;

  constructor(private readonly as: AssemblyScript, private readonly options: FrontEndOptions) {}

  error(node: AstNode | null, file: string, message: string): void {
    const w = node ? this.where(node, file) : { file, line: 1, column: 1 };
    this.diags.push({ ...w, message });
  }

  /**
   * While the race screen's form is printed: its sites are never shown (anything the screen
   * finds is explained by the fine-grained detector, at the fine form's sites), so they are not
   * kept in the module's metadata; its accesses carry site -1.
   */
  private siteless = false;

  site(node: AstNode, file: string, what: string): number {
    if (this.siteless) return -1;
    this.sites.push({ ...this.where(node, file), what });
    return this.sites.length - 1;
  }

  /** A node's file:line:column in the user's sources (through the origins of inlined code). */
  where(node: AstNode, file: string): { file: string; line: number; column: number } {
    const o = originOf(this.files.find((f) => f.path === file)?.origins, node.range.start);
    if (o) return { file: o.file, line: o.line, column: o.column };
    const lc = lineCol(node);
    return { file, line: lc.line, column: lc.column };
  }

  /**
   * The `// @line` comment put above the generated code of a node (see mapGeneratedLine): where
   * the node starts in the user's sources and, outside inlined code, where it ends.
   */
  marker(node: AstNode, file: string): string {
    const o = originOf(this.files.find((f) => f.path === file)?.origins, node.range.start);
    if (o) return lineMarker({ file: o.file, line: o.line, column: o.column });
    const end = lineCol({ range: { ...node.range, start: node.range.end } } as AstNode);
    return lineMarker({ file, ...lineCol(node), end });
  }

  addFile(f: SourceFile): void {
    this.files.push(f);
    const as = this.as;
    const program = as.newProgram(as.newOptions());
    const parser = new as.Parser(program.diagnostics);
    parser.parseFile(f.text, f.path.replace(/\.ts$/, '') + '.ts', true);
    const bad = program.diagnostics.filter((d: { category: number }) => d.category === 3 /* error */);
    for (const d of bad as { message: string; range: AstNode['range'] | null }[]) {
      const pos = d.range ? lineCol({ range: d.range } as AstNode) : { line: 1, column: 1 };
      this.diags.push({ file: f.path, line: pos.line, column: pos.column, message: d.message });
    }
    if (bad.length) return;
    const source = parser.sources.find((s: { normalizedPath: string; sourceKind: number }) => s.sourceKind === 1 /* user entry */ || s.normalizedPath.startsWith(f.path.replace(/\.ts$/, '')));
    if (!source) throw new Error(`internal: the parser lost ${f.path}`);
    for (const st of source.statements as AstNode[]) {
      if (st.kind === NK.Import) {
        // `import { threadIdx, … } from "simt/kernel"`: the language's names are built in.
        const path = st.path?.value as string | undefined;
        if (path && /^simt(\/kernel)?$/.test(path)) {
          for (const d of (st.declarations ?? []) as AstNode[]) {
            if (!isLanguageName(d.foreignName.text)) this.error(d, f.path, `'${d.foreignName.text}' is not part of the kernel language`);
          }
          continue;
        }
        this.error(st, f.path, 'kernel sources are self-contained: only `import … from "simt/kernel"` is allowed');
        continue;
      }
      this.checkRawMemory(st, f.path);
      if (st.kind === NK.FunctionDeclaration) {
        const exported = (st.flags & 2) !== 0;
        const info = this.declareFunction(st, f.path, exported);
        if (info) { this.functions.push(info); this.functionsByName.set(info.name, info); }
        continue;
      }
      if (st.kind === NK.Variable) {
        for (const d of st.declarations as AstNode[]) {
          if ((d.flags & 8) === 0) this.error(d, f.path, `module-level '${d.name.text}' must be a const: kernels keep no global state (each worker would see its own copy)`);
          if (!this.declareModuleName(d.name, f.path)) continue;
          this.moduleConsts.set(d.name.text, { typeText: d.type ? textOf(d.type) : null, init: d.initializer });
        }
        this.topLevel.push({ node: st, file: f.path });
        continue;
      }
      if (st.kind === NK.ClassDeclaration) { this.error(st, f.path, 'classes are not supported in kernel sources (no managed allocation)'); continue; }
      this.topLevel.push({ node: st, file: f.path });
    }
  }

  /**
   * Memory reached without an array (raw loads and stores, bulk memory, wasm atomics, `new`)
   * is a compile error: it would bypass the bounds checks, the race tools and memcheck, and
   * could touch any byte of the device (or be misaligned). See isRawMemoryCall.
   */
  private checkRawMemory(st: AstNode, file: string): void {
    walk(st, (n) => {
      if (n.kind === NK.New) {
        this.error(n, file, `'${textOf(n).split('(')[0]}' allocates memory: kernels create no objects (use locals, or a __shared__ array)`);
        return false;
      }
      if (n.kind !== NK.Call) return undefined;
      const callee = textOf(n.expression).replace(/\s+/g, '');
      if (isRawMemoryCall(callee)) {
        this.error(n, file, `'${callee}' reaches memory without an array: kernels read and write memory only through their array parameters and __shared__ arrays`);
        return false;
      }
      if (callee.startsWith('__') && !isLanguageName(callee)) {
        this.error(n, file, `'${callee}' is simt's runtime, not part of the kernel language (names starting with '__' are reserved)`);
        return false;
      }
      return undefined;
    });
  }

  /** Where each module-level const was declared first. */
  private readonly moduleNames = new Map<string, string>();

  /**
   * Registers a module-level const; a second declaration is a compile error at its own line
   * naming the first: a module's sources are compiled as one AssemblyScript module, one scope.
   * (Functions are not registered: a device function inlined into every caller is never
   * emitted, so one may share a kernel's name.)
   */
  private declareModuleName(name: AstNode, file: string): boolean {
    const first = this.moduleNames.get(name.text);
    if (first !== undefined) {
      this.error(name, file, `'${name.text}' is declared again (first at ${first}): the sources of one module share one scope, so declare it once`);
      return false;
    }
    const w = this.where(name, file);
    this.moduleNames.set(name.text, `${w.file}:${w.line}`);
    return true;
  }

  private declareFunction(st: AstNode, file: string, exported: boolean): FunctionInfo | undefined {
    const name = st.name.text as string;
    if (name.startsWith('__')) { this.error(st, file, `names starting with '__' are reserved for simt: rename '${name}'`); return undefined; }
    if (st.typeParameters?.length) { this.error(st, file, `generic device functions are not supported yet: '${name}'`); return undefined; }
    if (!st.body) { this.error(st, file, `'${name}' has no body`); return undefined; }
    const returnType = st.signature.returnType ? textOf(st.signature.returnType) : 'void';
    if (exported && returnType !== 'void') this.error(st.signature.returnType ?? st, file, `kernel '${name}' must return void (as a __global__ function does)`);
    const info: FunctionInfo = { node: st, name, exported, file, decls: [], refs: new Map(), declOf: new Map(), returnType };
    const scope = new Map<string, Decl>();
    for (const p of st.signature.parameters as AstNode[]) {
      const pname = p.name.text as string;
      const typeText = textOf(p.type).replace(/\s+/g, '');
      const elem = typeText.endsWith('[]') ? typeText.slice(0, -2) : TYPED_ARRAY_NAMES[typeText];
      const d: Decl = { id: this.nextDecl++, name: pname, outName: pname, node: null, isConst: true, typeText, regions: new Set() };
      if (elem !== undefined) {
        if (!(ELEMENT_TYPES as readonly string[]).includes(elem)) { this.error(p, file, `parameter '${pname}': unknown element type '${elem}'`); continue; }
        d.param = 'array';
        d.array = { name: pname, elem: elem as DType, space: 'global', id: this.arrays.length, offset: 0, count: 0, dynamic: false };
        this.arrays.push(`${name}.${pname}`);
      } else if (SCALARS.has(typeText) || (!exported && (CONVERSION_TYPES.has(typeText)))) {
        d.param = 'scalar';
      } else {
        this.error(p, file, `parameter '${pname}': type '${typeText}' is not a kernel parameter type (use ${[...SCALARS].join(', ')}, or an array such as f32[])`);
        continue;
      }
      info.decls.push(d);
      scope.set(pname, d);
    }
    splitDeclarations(st.body);
    this.resolveScopes(info, st.body, [scope]);
    return info;
  }

  /** Resolves every identifier of a function body to its declaration (block scoping, as AS does). */
  private resolveScopes(info: FunctionInfo, body: AstNode, outer: Map<string, Decl>[]): void {
    const lookup = (stack: Map<string, Decl>[], name: string): Decl | undefined => {
      for (let k = stack.length - 1; k >= 0; k--) { const d = stack[k]!.get(name); if (d) return d; }
      return undefined;
    };
    const expr = (e: AstNode | null, stack: Map<string, Decl>[]): void => {
      walk(e, (n) => {
        if (n.kind === NK.PropertyAccess) { expr(n.expression, stack); return false; }
        if (n.kind === NK.Identifier) { const d = lookup(stack, n.text); if (d) info.refs.set(n, d); }
        return undefined;
      });
    };
    const declare = (vd: AstNode, stack: Map<string, Decl>[]): void => {
      const name = vd.name.text as string;
      const isConst = (vd.flags & 8) !== 0;
      const d: Decl = { id: this.nextDecl++, name, outName: name, node: vd, isConst, typeText: vd.type ? textOf(vd.type).replace(/\s+/g, '') : null, regions: new Set() };
      const init = vd.initializer as AstNode | null;
      if (init && init.kind === NK.Call && init.expression.kind === NK.Identifier && SHARED_DECLS.has(init.expression.text)) {
        d.array = this.sharedArray(info, vd, init);
        if (!isConst) this.error(vd, info.file, `'${name}': a __shared__ array is declared with const`);
      }
      if (init && init.kind === NK.Call && init.expression.kind === NK.Identifier && init.expression.text === LOCAL_DECL) {
        d.array = this.localArray(info, vd, init);
        if (!isConst) this.error(vd, info.file, `'${name}': a __local__ array is declared with const`);
      }
      info.decls.push(d);
      info.declOf.set(vd, d);
      stack[stack.length - 1]!.set(name, d);
    };
    const stmt = (s: AstNode | null, stack: Map<string, Decl>[]): void => {
      if (!s) return;
      switch (s.kind) {
        case NK.Block: { const inner = [...stack, new Map()]; for (const c of s.statements) stmt(c, inner); return; }
        case NK.Variable: for (const vd of s.declarations) { expr(vd.initializer, stack); declare(vd, stack); } return;
        case NK.For: {
          const inner = [...stack, new Map()];
          stmt(s.initializer, inner); expr(s.condition, inner); expr(s.incrementor, inner); stmt(s.body, inner);
          return;
        }
        case NK.If: expr(s.condition, stack); stmt(s.ifTrue, [...stack, new Map()]); stmt(s.ifFalse, [...stack, new Map()]); return;
        case NK.While: expr(s.condition, stack); stmt(s.body, [...stack, new Map()]); return;
        case NK.Do: stmt(s.body, [...stack, new Map()]); expr(s.condition, stack); return;
        case NK.Expression: expr(s.expression, stack); return;
        case NK.Return: expr(s.value, stack); return;
        case NK.Break: case NK.Continue: case NK.Empty: return;
        case NK.Switch: case NK.Try: case NK.Throw: case NK.ForOf:
          this.error(s, info.file, `${['switch', 'try', 'throw', 'for…of'][[NK.Switch, NK.Try, NK.Throw, NK.ForOf].indexOf(s.kind as 45)]} is not supported in kernels yet`);
          return;
        default: this.error(s, info.file, 'statement not supported in kernels');
      }
    };
    stmt(body, outer);
    // Names declared more than once get distinct output names (regions predeclare them side by side).
    const count = new Map<string, number>();
    for (const d of info.decls) count.set(d.name, (count.get(d.name) ?? 0) + 1);
    for (const d of info.decls) if (d.node && count.get(d.name)! > 1) d.outName = `${d.name}__${d.id}`;
  }

  private sharedArray(info: FunctionInfo, vd: AstNode, call: AstNode): ArrayInfo | undefined {
    const kind = call.expression.text as string;
    const targ = call.typeArguments?.[0] ? textOf(call.typeArguments[0]) : undefined;
    if (!targ || !(ELEMENT_TYPES as readonly string[]).includes(targ)) {
      this.error(call, info.file, `${kind} needs an element type: ${kind}<f32>(${kind === '__shared__' ? 'n' : ''})`);
      return undefined;
    }
    const elem = targ as DType;
    const id = this.arrays.length;
    this.arrays.push(`${info.name}.${vd.name.text}`);
    if (kind === '__extern_shared__') {
      if (call.args.length) this.error(call, info.file, '__extern_shared__<T>() takes no size: it is the launch\'s sharedBytes');
      return { name: vd.name.text, elem, space: 'shared', id, offset: 0, count: 0, dynamic: true };
    }
    const n = call.args.length === 1 ? this.constValue(call.args[0]) : undefined;
    if (n === undefined || !Number.isInteger(n) || n <= 0) {
      this.error(call, info.file, `the size of a __shared__ array must be a positive compile-time constant: ${textOf(call)}`);
      return undefined;
    }
    return { name: vd.name.text, elem, space: 'shared', id, offset: 0, count: n, dynamic: false };
  }

  private localArray(info: FunctionInfo, vd: AstNode, call: AstNode): ArrayInfo | undefined {
    const targ = call.typeArguments?.[0] ? textOf(call.typeArguments[0]) : undefined;
    if (!targ || !(ELEMENT_TYPES as readonly string[]).includes(targ)) {
      this.error(call, info.file, `__local__ needs an element type: __local__<f32>(n)`);
      return undefined;
    }
    if (!info.exported) {
      this.error(call, info.file, `'${vd.name.text}': declare __local__ arrays in the kernel (device function '${info.name}' cannot have its own yet)`);
      return undefined;
    }
    const n = call.args.length === 1 ? this.constValue(call.args[0]) : undefined;
    if (n === undefined || !Number.isInteger(n) || n <= 0) {
      this.error(call, info.file, `the size of a __local__ array must be a positive compile-time constant: ${textOf(call)}`);
      return undefined;
    }
    const id = this.arrays.length;
    this.arrays.push(`${info.name}.${vd.name.text}`);
    return { name: vd.name.text, elem: targ as DType, space: 'local', id, offset: 0, count: n, dynamic: false };
  }

  /** Evaluates an integer constant expression (literals, module consts, + - * / % << >> & |). */
  constValue(e: AstNode | null, depth = 0): number | undefined {
    if (!e || depth > 20) return undefined;
    switch (e.kind) {
      case NK.Literal: return e.literalKind === LK.Integer ? Number(BigInt.asIntN(64, e.value)) : undefined;
      case NK.Parenthesized: return this.constValue(e.expression, depth + 1);
      case NK.Identifier: { const c = this.moduleConsts.get(e.text); return c ? this.constValue(c.init, depth + 1) : undefined; }
      case NK.Assertion: return this.constValue(e.expression, depth + 1);
      case NK.Binary: {
        const a = this.constValue(e.left, depth + 1), b = this.constValue(e.right, depth + 1);
        if (a === undefined || b === undefined) return undefined;
        switch (operatorOf(e)) {
          case '+': return a + b; case '-': return a - b; case '*': return a * b;
          case '/': return b ? Math.trunc(a / b) : undefined; case '%': return b ? a % b : undefined;
          case '<<': return a << b; case '>>': return a >> b; case '&': return a & b; case '|': return a | b;
          default: return undefined;
        }
      }
      default: return undefined;
    }
  }

  finish(): FrontEndResult {
    if (this.diags.length) throw new CompileFailure(this.diags);
    const kernels = this.functions.filter((f) => f.exported);
    if (kernels.length === 0 && this.diags.length === 0) {
      this.diags.push({ file: this.topLevel[0]?.file ?? '(sources)', line: 1, column: 1, message: 'no kernel: export at least one function' });
    }
    // Device functions with collectives or __shared__ arrays were inlined into the kernels
    // (inline.ts); they are not compiled on their own.
    const inlinedAway = collectiveFunctions(this.inlineView());
    const deviceFunctions = this.functions.filter((f) => !f.exported && !inlinedAway.has(f.name));
    if (this.diags.length) throw new CompileFailure(this.diags);
    const blockParts: string[] = [];
    const fineParts: string[] = [];
    const screenParts: string[] = [];
    const usesThreadGlobals = deviceFunctions.some((f) => this.mentionsThreadIdx(f.node.body));
    // Device functions learn their thread (for a trap's message) from a global the thread loops
    // set; kernels without them pass the thread to each access, and their loops store nothing.
    const deviceFunctionNames: ReadonlySet<string> = new Set(deviceFunctions.map((f) => f.name));
    for (const t of this.topLevel) {
      const text = `${this.marker(t.node, t.file)}\n${printStatement(this.as, t.node)}`;
      blockParts.push(text);
      fineParts.push(text);
      screenParts.push(text);
    }
    for (const f of deviceFunctions) {
      try {
        const device = new FunctionPrinter(this, f, 'device').printDeviceFunction();
        blockParts.push(device);
        screenParts.push(device);
        fineParts.push(new FunctionPrinter(this, f, 'fine').printDeviceFunction());
      } catch (e) {
        if (!(e instanceof KernelDiagnostic)) throw e;
        this.error(e.node, f.file, e.message);
      }
    }
    for (const f of kernels) {
      try {
        const reset = () => { for (const d of f.decls) { d.cls = undefined; d.slot = undefined; d.regions = new Set(); } };
        const interchanged = new KernelCompiler(this, f, usesThreadGlobals, deviceFunctionNames, true).interchangedForm();
        reset();
        // The copy for blocks whose accesses are proven inside their arrays (rangeProof.ts).
        let proven: { proof: string[]; fast: string } | undefined;
        const proof = this.unchecked ? undefined : blockRangeProof({
          fn: f, declType: (d) => declType(this, f, d), moduleConst: (name) => this.moduleConst(name), valueType: (e) => valueType(this, f, e), length: arrayLength,
        });
        if (proof) {
          this.rangeProofs.set(f, proof);
          // The proven copy sees the bounds guards the proof folded as their values.
          const restore = applyFolds(f.node.body, proof.folds, (this.as as unknown as { Node: NodeFactory }).Node);
          try {
            const provenInterchanged = interchanged
              ? new KernelCompiler(this, f, usesThreadGlobals, deviceFunctionNames, true, false, proof.proven).interchangedForm() : undefined;
            reset();
            proven = { proof: proof.body, fast: new KernelCompiler(this, f, usesThreadGlobals, deviceFunctionNames, false, false, proof.proven).provenFast(provenInterchanged) };
            reset();
          } finally {
            restore();
          }
        }
        const out = new KernelCompiler(this, f, usesThreadGlobals, deviceFunctionNames).compile(interchanged, proven);
        blockParts.push(out.block);
        fineParts.push(new FunctionPrinter(this, f, 'fine').printFineKernel());
        this.kernels.push(out.info);
        for (const d of f.decls) { d.cls = undefined; d.slot = undefined; d.regions = new Set(); }
        this.siteless = true;
        try {
          screenParts.push(new KernelCompiler(this, f, usesThreadGlobals, deviceFunctionNames, false, true).compile(undefined).block);
        } finally {
          this.siteless = false;
        }
      } catch (e) {
        if (!(e instanceof KernelDiagnostic)) throw e;
        this.error(e.node, f.file, e.message);
      }
    }
    if (this.diags.length) throw new CompileFailure(this.diags);
    return {
      blockSource: BLOCK_PRELUDE(usesThreadGlobals) + blockParts.join('\n\n') + '\n',
      fineSource: FINE_PRELUDE + fineParts.join('\n\n') + '\n',
      screenSource: SCREEN_PRELUDE(usesThreadGlobals) + screenParts.join('\n\n') + '\n',
      kernels: this.kernels,
      sites: this.sites,
      arrays: this.arrays,
      analysis: {
        functions: this.functions,
        moduleConst: (name) => this.moduleConst(name),
        constValue: (e) => this.constValue(e),
        where: (node, file) => this.where(node, file),
        valueType: (fn, e) => valueType(this, fn, e),
        declType: (fn, d) => declType(this, fn, d),
        rangeProof: (fn) => this.rangeProofs.get(fn),
      },
    };
  }

  /** The functions as the inliner sees them. */
  private inlineView(): InlineFunction[] {
    return this.functions.map((f) => ({
      node: f.node, name: f.name, exported: f.exported, file: f.file, returnType: f.returnType,
      params: f.decls.filter((d) => d.param).map((d) => ({ decl: d, name: d.name, array: d.param === 'array', typeText: d.typeText })),
      refs: f.refs, declOf: f.declOf, isArray: (d: object) => !!(d as Decl).array, isLocal: (d: object) => (d as Decl).array?.space === 'local',
      elemOf: (d: object) => (d as Decl).array?.elem, typeOf: (e: AstNode) => valueType(this, f, e),
    }));
  }

  /** Sources with accessor device functions written into the kernels (inlineAccessors.ts), or undefined if none are. */
  inlineAccessors(): SourceFile[] | undefined {
    if (this.diags.length) return undefined; // finish() reports them
    const view = this.inlineView();
    return inlineAccessorCalls(this.as, this.files, view, collectiveFunctions(view));
  }

  /** Sources with collective device functions inlined into the kernels, or undefined if none are called. */
  inlineCollectives(): SourceFile[] | undefined {
    if (this.diags.length) return undefined; // finish() reports them
    const r = inlineCollectiveCalls(this.as, this.files, this.inlineView());
    if (!r) return undefined;
    if ('problems' in r) {
      for (const p of r.problems) this.error(p.node, p.file, p.message);
      return undefined;
    }
    return r.files;
  }

  private mentionsThreadIdx(n: AstNode): boolean {
    let found = false;
    walk(n, (x) => { if (x.kind === NK.PropertyAccess && x.expression.kind === NK.Identifier && x.expression.text === 'threadIdx') found = true; });
    return found;
  }

  fn(name: string): FunctionInfo | undefined { return this.functionsByName.get(name); }
  get asModule(): AssemblyScript { return this.as; }
  moduleConst(name: string): { typeText: string | null; init: AstNode | null } | undefined { return this.moduleConsts.get(name); }
  get unchecked(): boolean { return !!this.options.unchecked; }
}

/**
 * `const t = threadIdx.x, n = blockDim.x;` becomes one statement per declarator, each with the
 * whole statement's source range: the compiler places each variable by itself (a block-uniform
 * one at block level, a thread's in its region), which one statement holding both cannot be.
 * (A `for` initializer keeps its list: it is one statement of the loop.)
 */
function splitDeclarations(body: AstNode | null): void {
  walk(body, (n) => {
    if (n.kind !== NK.Block) return undefined;
    const out: AstNode[] = [];
    for (const st of n.statements as AstNode[]) {
      if (st.kind === NK.Variable && st.declarations.length > 1) {
        for (const vd of st.declarations as AstNode[]) out.push(Object.assign(Object.create(Object.getPrototypeOf(st)), st, { declarations: [vd] }));
      } else out.push(st);
    }
    n.statements = out;
    return undefined;
  });
}

/** A kernel-level problem: thrown to the FrontEnd, which turns it into a diagnostic. */
class KernelDiagnostic extends Error {
  constructor(readonly node: AstNode, message: string) { super(message); }
}

const BLOCK_PRELUDE = (threadGlobals: boolean): string => `// GENERATED by simt's kernel compiler from the kernel sources: the block form.
import { blockIdx, blockDim, gridDim, blockThreads, sharedMem, sharedSize, beginPhase, threadAt, __block } from "./runtime/index";
import { __ld, __st, __ldu, __stu, __atomicAdd, __atomicAddP, __privBegin, __privFlush, __atomicSub, __atomicExch, __atomicMin, __atomicMax, __atomicInc, __atomicDec,
  __atomicCAS, __atomicAnd, __atomicOr, __atomicXor, __ctx, __ctxAt, __exit, __exited, __clearExits, __uniform, __predCount, __liveCount,
  __ballots, __ballotOf, __activeLanes, __shfl, __shflUp, __shflDown, __shflXor, __shflU, __shflUpU, __shflDownU, __shflXorU, __pred, __warpUniform, __setThread, __thread, __pmax, __pmin, __fence, __localMem } from "./runtime/compiled";
import { __lanes, __all4, __any4, __affAll, __affAny, __ld4, __ldv4, __ldm4, __inside4, __st4, __stv4, __ctxLoad4, __ctxStore4, __predStore4, __shflU4, __shflUpU4, __shflDownU4, __shflXorU4 } from "./runtime/lanes";
export { __launch, __block, __currentBlock, __setScratch, __scratchBytes } from "./runtime/index";
export { __trapKind, __trapArray, __trapIndex, __trapLength, __trapSite, __trapThread, __trapClear, __privFlush } from "./runtime/compiled";
${threadGlobals ? 'namespace threadIdx { export let x: i32 = 0; export let y: i32 = 0; export let z: i32 = 0; }\n' : ''}const warpSize: i32 = 32;

`;

/** The race screen's form: the block form's prelude with the accessors of runtime/checked.ts. */
const SCREEN_PRELUDE = (threadGlobals: boolean): string => BLOCK_PRELUDE(threadGlobals)
  .replace('the block form.', 'the race screen\'s form (the block form recording its accesses).')
  .split('"./runtime/compiled"').join('"./runtime/checked"')
  .replace('__fence, __localMem }', '__fence, __localMem, __screenBarrier, __screenFlush }')
  .replace('export { __launch, __block,', 'export { __launch } from "./runtime/checked";\nexport { __block,');

const FINE_PRELUDE = `// GENERATED by simt's kernel compiler from the kernel sources: the fine-grained form.
import { threadIdx, blockIdx, blockDim, gridDim, __sharedBase, __dynamicSharedBytes, __localBase, __ld, __st, __ldu, __stu, __ldl, __stl,
  __atomicAdd, __atomicSub, __atomicExch, __atomicMin, __atomicMax, __atomicInc, __atomicDec, __atomicCAS, __atomicAnd,
  __atomicOr, __atomicXor, __syncthreads, __syncwarp, __syncthreads_count, __syncthreads_or, __syncthreads_and,
  __shfl_sync, __shfl_up_sync, __shfl_down_sync, __shfl_xor_sync, __ballot_sync, __any_sync, __all_sync, __activemask,
  __threadfence, __threadfence_block, __threadfence_system } from "./threads/compiled";
export { __setLaunch, __setThread, __setDynamicShared } from "./threads/compiled";
const warpSize: i32 = 32;

`;

function printStatement(as: AssemblyScript, n: AstNode): string {
  const b = new (as as unknown as { ASTBuilder: new () => { sb: string[]; visitNodeAndTerminate(n: AstNode): void; finish(): string } }).ASTBuilder();
  b.visitNodeAndTerminate(n);
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// Printing: AssemblyScript's own AST printer, with simt's rewrites.

type PrintMode = 'region' | 'block' | 'device' | 'fine';

/** The locals (per block) that stand for blockIdx, blockDim and gridDim in a kernel's own code: `__bix` … */
const INDEX_LOCAL: Record<string, string> = { blockIdx: '__bi', blockDim: '__bd', gridDim: '__gd' };
/** Their declarations at the top of a kernel function, and the parameters/arguments of its region functions. */
const INDEX_LOCALS_DECL = '  const __bix = blockIdx.x, __biy = blockIdx.y, __biz = blockIdx.z, __bdx = blockDim.x, __bdy = blockDim.y, __bdz = blockDim.z;\n' +
  '  const __gdx = gridDim.x, __gdy = gridDim.y, __gdz = gridDim.z; const __smem = sharedMem(); const __ssize = sharedSize();';
const INDEX_PARAMS = '__bix: i32, __biy: i32, __biz: i32, __bdx: i32, __bdy: i32, __bdz: i32, __gdx: i32, __gdy: i32, __gdz: i32, __smem: usize, __ssize: i32, __lmem: usize';
/** The proof function's index values as i64 (rangeProof.ts), and the dynamic shared size. */
const PROOF_LOCALS_DECL = '  const __bix = <i64>blockIdx.x, __biy = <i64>blockIdx.y, __biz = <i64>blockIdx.z, __bdx = <i64>blockDim.x, __bdy = <i64>blockDim.y, __bdz = <i64>blockDim.z;\n' +
  '  const __gdx = <i64>gridDim.x, __gdy = <i64>gridDim.y, __gdz = <i64>gridDim.z; const __ssize = sharedSize();';
const INDEX_ARGS = '__bix, __biy, __biz, __bdx, __bdy, __bdz, __gdx, __gdy, __gdz, __smem, __ssize, __lmem';

interface PrintContext {
  mode: PrintMode;
  /** Replacement text of collective calls (region after the split). */
  replace?: Map<AstNode, string>;
  /** Code run before a region's `return` (stores of context values, the exit flag). */
  onReturn?: () => string;
  /** Accesses proven inside their arrays for the block (rangeProof.ts): printed unchecked. */
  proven?: ReadonlySet<AstNode>;
}

/** Builds a printer class over AssemblyScript's ASTBuilder (which is loaded lazily). */
function makePrinter(as: AssemblyScript, fe: FrontEnd, fn: FunctionInfo, ctx: PrintContext) {
  const Base = (as as unknown as { ASTBuilder: new () => object }).ASTBuilder as unknown as new () => BuilderBase;
  interface BuilderBase {
    sb: string[]; indentLevel: number;
    visitNode(n: AstNode): void; visitNodeAndTerminate(n: AstNode): void; finish(): string;
    visitIdentifierExpression(n: AstNode): void; visitPropertyAccessExpression(n: AstNode): void;
    visitElementAccessExpression(n: AstNode): void; visitBinaryExpression(n: AstNode): void;
    visitCallExpression(n: AstNode): void; visitFloatLiteralExpression(n: AstNode): void;
    visitIntegerLiteralExpression(n: AstNode): void; visitReturnStatement(n: AstNode): void;
    visitVariableStatement(n: AstNode): void; visitVariableDeclaration(n: AstNode): void;
    visitUnaryPostfixExpression(n: AstNode): void; visitUnaryPrefixExpression(n: AstNode): void;
    visitTernaryExpression(n: AstNode): void; visitIfStatement(n: AstNode): void;
    visitBlockStatement(n: AstNode): void;
  }
  const checked = !fe.unchecked || ctx.mode === 'fine';
  // In a kernel's own code (its regions and block-level statements) the index variables and the
  // shared-memory base are locals the kernel function read once per block: a global read in a
  // thread loop is a load per thread that V8 does not hoist.
  const localIndex = ctx.mode === 'region' || ctx.mode === 'block';
  // The thread a trap names: a region knows it (__t); block-level code runs once for the block
  // (thread 0); a device function reads the global its kernel's thread loop set.
  const threadArg = ctx.mode === 'region' ? ', __t' : ctx.mode === 'block' ? ', 0' : ctx.mode === 'device' ? ', __thread' : '';
  const fail = (n: AstNode, msg: string): never => { throw new KernelDiagnostic(n, msg); };
  const arrayOf = (n: AstNode): Decl | undefined => {
    if (n.kind !== NK.Identifier) return undefined;
    const d = fn.refs.get(n);
    return d?.array ? d : undefined;
  };
  class Printer extends Base {
    text(n: AstNode): string { const saved = this.sb; this.sb = []; this.visitNode(n); const t = this.sb.join(''); this.sb = saved; return t; }
    /** The load and store helpers of an array: a local array is private, no scheduling point in the fine form. */
    ld(d: Decl, node: AstNode): string { return ctx.mode === 'fine' && d.array!.space === 'local' ? '__ldl' : checked && !ctx.proven?.has(node) ? '__ld' : '__ldu'; }
    st(d: Decl, node: AstNode): string { return ctx.mode === 'fine' && d.array!.space === 'local' ? '__stl' : checked && !ctx.proven?.has(node) ? '__st' : '__stu'; }
    /**
     * The store of `a[i] op= v` and `a[i]++`: the load of a[i] that computes the value has checked
     * the same index (a pure one) just before, so the block form stores without a second check
     * (in the trap's place nothing changes: the load traps first). The fine form keeps both.
     */
    rmwStore(d: Decl, node: AstNode): string { return ctx.mode === 'fine' ? this.st(d, node) : '__stu'; }
    ptr(d: Decl, node?: AstNode): string {
      const a = d.array!;
      if (a.space === 'global') return `__p_${d.outName}`;
      if (a.space === 'local') {
        // Thread t's local bytes: in the block form t·threadBytes past the block's local area
        // (the end of the worker's register area); in the fine form after the block's shared bytes.
        if (ctx.mode === 'region') return `(__lmem + <usize>(__t * ${a.threadBytes} + ${a.offset}))`;
        if (ctx.mode === 'fine') return `(__localBase(${a.staticShared}, ${a.threadBytes}) + <usize>${a.offset})`;
        return fail(node ?? fn.node, `'${d.name}' is a __local__ array: only a thread's own code reads and writes it`);
      }
      const base = ctx.mode === 'fine' ? '__sharedBase()' : localIndex ? '__smem' : 'sharedMem()';
      return `(${base} + <usize>${a.offset})`;
    }
    len(d: Decl): string {
      if (localIndex) return arrayLength(d);
      const a = d.array!;
      if (a.space === 'global') return `__n_${d.outName}`;
      if (!a.dynamic) return String(a.count);
      const bytes = ctx.mode === 'fine' ? '__dynamicSharedBytes()' : 'sharedSize()';
      return `<i32>(${bytes} / ${elemBytes(a.elem)})`;
    }
    access(d: Decl, index: AstNode, node: AstNode, what: string): string {
      const site = fe.site(node, fn.file, `${what} ${d.array!.space === 'shared' ? '__shared__ ' : d.array!.space === 'local' ? '__local__ ' : ''}${d.name}[]`);
      // A proven access's index and every value on the way to it lie in i32 (the range proof
      // checks each): computed in i32 it is the same, and the address needs no i64 detour.
      const ix = checked && ctx.proven?.has(node) ? `<i64>(<i32>(${this.text(index)}))` : `<i64>(${this.text(index)})`;
      return `${this.ptr(d, node)}, ${this.len(d)}, ${ix}, ${d.array!.id}, ${site}${threadArg}`;
    }
    override visitIdentifierExpression(n: AstNode): void {
      const r = ctx.replace?.get(n);
      if (r !== undefined) { this.sb.push(r); return; }
      const d = fn.refs.get(n);
      if (d?.array) fail(n, `array '${d.name}' used as a value: index it, pass it to a device function or an atomic, or read ${d.name}.length`);
      if (d) { this.sb.push(d.outName); return; }
      this.sb.push(n.text);
    }
    override visitPropertyAccessExpression(n: AstNode): void {
      const obj = n.expression as AstNode;
      const prop = n.property.text as string;
      if (obj.kind === NK.Identifier) {
        const d = arrayOf(obj);
        if (d) { if (prop !== 'length') fail(n, `'${d.name}.${prop}': arrays have only .length`); this.sb.push(`(${this.len(d)})`); return; }
        if (obj.text === 'threadIdx' && !fn.refs.has(obj)) {
          if (!'xyz'.includes(prop) || prop.length !== 1) fail(n, `threadIdx.${prop}: use x, y or z`);
          this.sb.push(ctx.mode === 'region' ? `__t${prop}` : `threadIdx.${prop}`);
          return;
        }
        if (INDEX_VARIABLES.has(obj.text) && !fn.refs.has(obj)) {
          if (!'xyz'.includes(prop) || prop.length !== 1) fail(n, `${obj.text}.${prop}: use x, y or z`);
          this.sb.push(localIndex ? `${INDEX_LOCAL[obj.text as string]}${prop}` : `${obj.text}.${prop}`);
          return;
        }
      }
      super.visitPropertyAccessExpression(n);
    }
    override visitElementAccessExpression(n: AstNode): void {
      const d = arrayOf(n.expression);
      if (!d) { super.visitElementAccessExpression(n); return; }
      this.sb.push(`${this.ld(d, n)}<${d.array!.elem}>(${this.access(d, n.elementExpression, n, 'read')})`);
    }
    override visitBinaryExpression(n: AstNode): void {
      const op = operatorOf(n);
      const left = n.left as AstNode;
      if (left.kind === NK.ElementAccess && arrayOf(left.expression) && /^(=|\+=|-=|\*=|\/=|%=|&=|\|=|\^=|<<=|>>=|>>>=)$/.test(op)) {
        const d = arrayOf(left.expression)!;
        const elem = d.array!.elem;
        let value = this.text(n.right);
        if (op !== '=') {
          if (!isPureIndex(left.elementExpression)) fail(n, `'${textOf(n)}': a compound assignment to an array element needs an index without side effects`);
          value = `${this.ld(d, left)}<${elem}>(${this.access(d, left.elementExpression, left, 'read')}) ${op.slice(0, -1)} (${value})`;
        }
        this.sb.push(`${op === '=' ? this.st(d, left) : this.rmwStore(d, left)}<${elem}>(${this.access(d, left.elementExpression, left, 'write')}, <${elem}>(${value}))`);
        return;
      }
      super.visitBinaryExpression(n);
    }
    private incDec(n: AstNode): boolean {
      const operand = n.operand as AstNode;
      if (operand.kind !== NK.ElementAccess || !arrayOf(operand.expression)) return false;
      const d = arrayOf(operand.expression)!;
      const op = operatorOf(n);
      if (!isPureIndex(operand.elementExpression)) fail(n, `'${textOf(n)}': ${op} on an array element needs an index without side effects`);
      const elem = d.array!.elem;
      const old = `${this.ld(d, operand)}<${elem}>(${this.access(d, operand.elementExpression, operand, 'read')})`;
      this.sb.push(`${this.rmwStore(d, operand)}<${elem}>(${this.access(d, operand.elementExpression, operand, 'write')}, <${elem}>(${old} ${op[0]} 1))`);
      return true;
    }
    override visitUnaryPostfixExpression(n: AstNode): void { if (!this.incDec(n)) super.visitUnaryPostfixExpression(n); }
    override visitUnaryPrefixExpression(n: AstNode): void {
      const op = operatorOf(n);
      if ((op === '++' || op === '--') && this.incDec(n)) return;
      super.visitUnaryPrefixExpression(n);
    }
    override visitFloatLiteralExpression(n: AstNode): void { this.sb.push(textOf(n)); }
    override visitIntegerLiteralExpression(n: AstNode): void { this.sb.push(textOf(n)); }
    override visitCallExpression(n: AstNode): void {
      const r = ctx.replace?.get(n);
      if (r !== undefined) { this.sb.push(r); return; }
      const callee = n.expression as AstNode;
      if (callee.kind !== NK.Identifier || fn.refs.has(callee)) { super.visitCallExpression(n); return; }
      const name = callee.text as string;
      const args = n.args as AstNode[];
      if (name in ATOMICS) { this.sb.push(this.atomic(n, name, args)); return; }
      if (SHARED_DECLS.has(name)) fail(n, `${name} declares a shared array: write \`const s = ${name}<T>(…)\` at the kernel's top level`);
      if (isCollective(name)) {
        if (ctx.mode !== 'fine') fail(n, `${name} here is not supported: call it as a statement of the kernel, or in an expression statement, declaration or condition at the kernel's level (not nested in another warp operation or device function)`);
        this.sb.push(this.fineCollective(n, name, args));
        return;
      }
      if (name === '__activemask') {
        // The fine form's is a meeting of the warp (the host then knows which lanes exited): it has a site.
        this.sb.push(ctx.mode === 'region' ? `__activeLanes(__t, ${EXIT_SLOT_EXPR})` : ctx.mode === 'fine' ? `__activemask(${fe.site(n, fn.file, name)})` : '__activemask()');
        return;
      }
      if (FENCES.has(name)) {
        if (args.length) fail(n, `${name}() takes no arguments`);
        // The block form: a sequentially consistent atomic of the worker (runtime/compiled.ts).
        // The fine form: a scheduling point the race detector sees, with its site.
        this.sb.push(ctx.mode === 'fine' ? `${name}(${fe.site(n, fn.file, name)})` : '__fence()');
        return;
      }
      const target = fe.fn(name);
      if (target) {
        if (target.exported) fail(n, `'${name}' is a kernel: kernels cannot call kernels (use a non-exported device function)`);
        const params = target.decls.filter((d) => d.param);
        if (args.length !== params.length) fail(n, `'${name}' takes ${params.length} arguments, got ${args.length}`);
        const out = args.map((a, k) => {
          const p = params[k]!;
          if (p.param === 'array') {
            const d = arrayOf(a);
            if (!d) fail(a, `argument ${k + 1} of '${name}' must be an array (parameter '${p.name}: ${p.typeText}')`);
            if (d!.array!.elem !== p.array!.elem) fail(a, `argument ${k + 1} of '${name}': ${d!.array!.elem}[] passed for ${p.array!.elem}[]`);
            if (d!.array!.space === 'local') fail(a, `argument ${k + 1} of '${name}': passing a __local__ array to a device function is not supported yet (index it in the kernel)`);
            return `${this.ptr(d!)}, ${this.len(d!)}`;
          }
          return this.text(a);
        });
        this.sb.push(`${name}(${out.join(', ')})`);
        return;
      }
      super.visitCallExpression(n);
    }
    atomic(n: AstNode, name: string, args: AstNode[]): string {
      const spec = ATOMICS[name]!;
      const d = args[0] ? arrayOf(args[0]) : undefined;
      if (!d || args.length !== 2 + spec.operands) {
        return fail(n, `${name}(array, index, ${spec.operands === 2 ? 'compare, value' : 'value'}): the first argument must be an array parameter or __shared__ array`);
      }
      const elem = d.array!.elem;
      if (d.array!.space === 'local') fail(n, `${name} on '${d.name}', a __local__ array: it is private to its thread (use plain arithmetic)`);
      if (spec.u32only && elem !== 'u32') fail(n, `${name} works on u32 arrays (CUDA: unsigned int*), '${d.name}' is ${elem}[]`);
      if (spec.integerOnly && (elem === 'f32' || elem === 'f64')) fail(n, `${name} needs an integer array, '${d.name}' is ${elem}[]`);
      if (['i8', 'u8', 'i16', 'u16'].includes(elem)) fail(n, `${name} on ${elem}[]: CUDA atomics are 32 or 64 bits wide`);
      const site = fe.site(n, fn.file, `${name} on ${d.array!.space === 'shared' ? '__shared__ ' : ''}${d.name}[]`);
      const operands = args.slice(2).map((a) => `<${spec.u32only ? 'u32' : elem}>(${this.text(a)})`).join(', ');
      const shared = d.array!.space === 'shared' ? 'true' : 'false';
      const helper = spec.helper === '__atomicAdd' && (ctx.mode === 'region' || ctx.mode === 'block') && privatizedArray(fn) === d ? '__atomicAddP' : spec.helper;
      return `${helper}<${elem}>(${shared}, ${this.ptr(d)}, ${this.len(d)}, <i64>(${this.text(args[1]!)}), ${operands}, ${d.array!.id}, ${site}${threadArg})`;
    }
    fineCollective(n: AstNode, name: string, args: AstNode[]): string {
      const site = fe.site(n, fn.file, name);
      if (BARRIERS.has(name)) return `${name}(${site})`;
      if (BLOCK_PREDICATES.has(name)) return `${name}((${this.text(args[0]!)}) ? true : false, ${site})`;
      if (WARP_VOTES.has(name)) return `${name}(<u32>(${this.text(args[0]!)}), (${this.text(args[1]!)}) ? true : false, ${site})`;
      const t = valueType(fe, fn, args[1]!) ?? fail(args[1]!, `cannot infer the type of the value of ${name}: write a cast, e.g. <f32>(…)`);
      const width = args[3] ? this.text(args[3]) : '32';
      return `${name}<${t}>(<u32>(${this.text(args[0]!)}), <${t}>(${this.text(args[1]!)}), <i32>(${this.text(args[2]!)}), <i32>(${width}), ${site})`;
    }
    /** A float min/max (see minmax.ts) as `__pmax<T>(a, b)`, or undefined when the operands are not one float type. */
    minMaxText(mm: MinMax): string | undefined {
      if (ctx.mode === 'fine') return undefined; // the race tools see the kernel's own accesses
      const t = valueType(fe, fn, mm.a);
      if ((t !== 'f32' && t !== 'f64') || valueType(fe, fn, mm.b) !== t) return undefined;
      return `${mm.op}<${t}>(${this.text(mm.a)}, ${this.text(mm.b)})`;
    }
    override visitTernaryExpression(n: AstNode): void {
      const mm = matchMinMax(n.condition, n.ifThen, n.ifElse);
      const text = mm && this.minMaxText(mm);
      if (text) this.sb.push(text); else super.visitTernaryExpression(n);
    }
    override visitIfStatement(n: AstNode): void {
      const m = matchConditionalAssign(n);
      // An element target is stored unconditionally (with the value it already holds when the
      // condition is false): only for __shared__ and __local__ arrays, which no other block or worker sees.
      const target = m && (m.target.kind === NK.Identifier ? (fn.refs.get(m.target) && !fn.refs.get(m.target)!.array ? m.target : undefined)
        : ['shared', 'local'].includes(arrayOf(m.target.expression)?.array!.space ?? '') ? m.target : undefined);
      const value = m && target && this.minMaxText(m.mm);
      if (!m || !value) { super.visitIfStatement(n); return; }
      let assign: string;
      if (m.target.kind === NK.Identifier) assign = `${this.text(m.target)} = ${value};`;
      else {
        const d = arrayOf(m.target.expression)!;
        assign = `${this.st(d, m.target)}<${d.array!.elem}>(${this.access(d, m.target.elementExpression, m.target, 'write')}, <${d.array!.elem}>(${value}));`;
      }
      this.sb.push(m.guard ? `if (${this.text(m.guard)}) { ${assign} }` : `{ ${assign} }`);
    }
    /** AssemblyScript's block printer, with each statement's `// @line` above it (for compile errors). */
    override visitBlockStatement(n: AstNode): void {
      const statements = n.statements as AstNode[];
      if (statements.length === 0) { this.sb.push('{}'); return; }
      this.sb.push('{\n');
      const ind = '  '.repeat(++this.indentLevel);
      for (const st of statements) {
        this.sb.push(`${ind}${fe.marker(st, fn.file)}\n${ind}`);
        this.visitNodeAndTerminate(st);
      }
      this.sb.push('  '.repeat(--this.indentLevel), '}');
    }
    override visitReturnStatement(n: AstNode): void {
      if (ctx.mode === 'region') {
        if (n.value) fail(n, 'a kernel returns no value');
        this.sb.push(`{ ${ctx.onReturn ? ctx.onReturn() : ''}return; }`);
        return;
      }
      super.visitReturnStatement(n);
    }
    override visitVariableStatement(n: AstNode): void {
      const kept = (n.declarations as AstNode[]).filter((vd) => !fn.declOf.get(vd)?.array);
      if (kept.length === 0) return;
      // In a region, a value that lives across barriers was declared at the region's start:
      // its declaration here becomes an assignment.
      const asAssign = kept.filter((vd) => { const c = fn.declOf.get(vd)?.cls; return ctx.mode === 'region' && (c === 'context' || c === 'uniform'); });
      if (asAssign.length === kept.length) {
        const parts = kept.filter((vd) => vd.initializer).map((vd) => `${fn.declOf.get(vd)!.outName} = ${this.text(vd.initializer)}`);
        this.sb.push(parts.length ? parts.join(', ') : '');
        return;
      }
      if (asAssign.length) fail(n, 'declare values that live across a barrier in their own statement');
      const isConst = (kept[0]!.flags & 8) !== 0;
      this.sb.push(isConst ? 'const ' : 'let ');
      kept.forEach((vd, k) => { if (k) this.sb.push(', '); this.visitVariableDeclaration(vd); });
    }
    override visitVariableDeclaration(n: AstNode): void {
      const d = fn.declOf.get(n);
      this.sb.push(d ? d.outName : n.name.text);
      if (n.type) { this.sb.push(': '); this.sb.push(textOf(n.type)); }
      if (n.initializer) { this.sb.push(' = '); this.visitNode(n.initializer); }
    }
  }
  return new Printer() as unknown as { text(n: AstNode): string; sb: string[]; indentLevel: number; visitNodeAndTerminate(n: AstNode): void; finish(): string };
}

const EXIT_SLOT_EXPR = '__EXIT_SLOT__';


/** An array's length in elements (i32) in a kernel's own code in the block form (its regions, its block-level statements, its proof). */
/** An array's length (elements) as the block form names it: `__n_<param>`, a shared array's count or share of the dynamic bytes. */
export function arrayLength(d: Decl): string {
  const a = d.array!;
  if (a.space === 'global') return `__n_${d.outName}`;
  return a.dynamic ? `<i32>(__ssize / ${elemBytes(a.elem)})` : String(a.count);
}

function elemBytes(t: string): number {
  return ({ i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, f32: 4, i64: 8, u64: 8, f64: 8 } as Record<string, number>)[t] ?? 4;
}

/** An index expression that can be evaluated twice (a[i] += v reads and writes a[i]). */
function isPureIndex(e: AstNode): boolean {
  let pure = true;
  walk(e, (n) => {
    if (n.kind === NK.Call || n.kind === NK.UnaryPostfix) pure = false;
    if (n.kind === NK.UnaryPrefix && /^(\+\+|--)$/.test(operatorOf(n))) pure = false;
    if (n.kind === NK.Binary && /=$/.test(operatorOf(n)) && !/^(==|!=|===|!==|<=|>=)$/.test(operatorOf(n))) pure = false;
  });
  return pure;
}


// ---------------------------------------------------------------------------------------------
// Type inference: enough of AssemblyScript's rules to type the values that cross regions.

function valueType(fe: FrontEnd, fn: FunctionInfo, e: AstNode | null, depth = 0): string | null {
  if (!e || depth > 40) return null;
  const rec = (x: AstNode | null) => valueType(fe, fn, x, depth + 1);
  switch (e.kind) {
    case NK.Literal:
      if (e.literalKind === LK.Integer) { const v = BigInt.asIntN(64, e.value); return v >= -(2n ** 31n) && v < 2n ** 31n ? 'i32' : 'i64'; }
      if (e.literalKind === LK.Float) return 'f64';
      return null;
    case NK.True: case NK.False: return 'bool';
    case NK.Parenthesized: return rec(e.expression);
    case NK.Assertion: return e.toType ? textOf(e.toType) : null;
    case NK.Identifier: {
      const d = fn.refs.get(e);
      if (d) return declType(fe, fn, d, depth + 1);
      if (e.text === 'warpSize') return 'i32';
      const c = fe.moduleConst(e.text);
      if (c) return c.typeText ?? rec(c.init);
      return null;
    }
    case NK.PropertyAccess:
      if (e.expression.kind === NK.Identifier && (INDEX_VARIABLES.has(e.expression.text) || fn.refs.get(e.expression)?.array)) return 'i32';
      return null;
    case NK.ElementAccess: {
      const d = e.expression.kind === NK.Identifier ? fn.refs.get(e.expression) : undefined;
      return d?.array ? d.array.elem : null;
    }
    case NK.Call: {
      const c = e.expression as AstNode;
      if (c.kind === NK.PropertyAccess && c.expression.kind === NK.Identifier) {
        if (c.expression.text === 'Math') return 'f64';
        if (c.expression.text === 'Mathf') return 'f32';
        return null;
      }
      if (c.kind !== NK.Identifier) return null;
      const name = c.text as string;
      if (CONVERSION_TYPES.has(name)) return name;
      if (['load', 'reinterpret', 'changetype'].includes(name) && e.typeArguments?.[0]) return textOf(e.typeArguments[0]);
      if (['min', 'max', 'abs', 'sqrt', 'floor', 'ceil', 'trunc', 'nearest', 'copysign', 'clz', 'ctz', 'popcnt', 'rotl', 'rotr'].includes(name)) return rec(e.args[0]);
      if (name in ATOMICS) {
        if (ATOMICS[name]!.u32only) return 'u32';
        const d = e.args[0]?.kind === NK.Identifier ? fn.refs.get(e.args[0]) : undefined;
        return d?.array?.elem ?? null;
      }
      if (name in WARP_SHUFFLES) return rec(e.args[1]);
      if (name === '__ballot_sync' || name === '__activemask') return 'u32';
      if (name === '__any_sync' || name === '__all_sync') return 'bool';
      if (BLOCK_PREDICATES.has(name)) return 'i32';
      const f = fe.fn(name);
      return f ? f.returnType : null;
    }
    case NK.Binary: {
      const op = operatorOf(e);
      if (/^(==|!=|===|!==|<|>|<=|>=)$/.test(op)) return 'bool';
      if (/^(<<|>>|>>>)=?$/.test(op)) return rec(e.left);
      return rec(e.left) ?? rec(e.right);
    }
    case NK.UnaryPrefix: return operatorOf(e) === '!' ? 'bool' : rec(e.operand);
    case NK.UnaryPostfix: return rec(e.operand);
    case NK.Ternary: return rec(e.ifThen) ?? rec(e.ifElse);
    default: return null;
  }
}

function declType(fe: FrontEnd, fn: FunctionInfo, d: Decl, depth = 0): string | null {
  if (d.typeText) return d.param === 'array' ? null : d.typeText;
  if (!d.node?.initializer || depth > 40) return null;
  const t = valueType(fe, fn, d.node.initializer, depth + 1);
  if (t) d.typeText = t;
  return t;
}

// ---------------------------------------------------------------------------------------------
// The fine-grained form and device functions: one function per thread, printed as written.

class FunctionPrinter {
  constructor(private readonly fe: FrontEnd, private readonly fn: FunctionInfo, private readonly mode: 'device' | 'fine') {}

  private params(): string {
    return this.fn.decls.filter((d) => d.param).map((d) => (d.param === 'array' ? `__p_${d.outName}: usize, __n_${d.outName}: i32` : `${d.outName}: ${d.typeText}`)).join(', ');
  }

  private body(): string {
    const p = makePrinter(this.fe.asModule, this.fe, this.fn, { mode: this.mode });
    p.indentLevel = 0;
    p.visitNodeAndTerminate(this.fn.node.body);
    return p.finish();
  }

  printDeviceFunction(): string {
    const f = this.fn;
    const mark = this.fe.marker(f.node, f.file) + '\n';
    const deco = (f.node.decorators as AstNode[] | null)?.some((d) => textOf(d).includes('inline')) ? '// @ts-ignore: decorator\n@inline ' : '';
    return `${mark}${deco}function ${f.name}(${this.params()}): ${f.returnType} ${this.body()}`;
  }

  printFineKernel(): string {
    return `${this.fe.marker(this.fn.node, this.fn.file)}\nexport function tk_${this.fn.name}(${this.params()}): void ${this.body()}`;
  }
}

// ---------------------------------------------------------------------------------------------
// The block form: regions, uniform control flow, context slots.

/** A region: statements that run per thread between two collectives. */
interface Region {
  id: number;
  /** Statements (printed with `replace`) and raw stores (operands of the collective that follows). */
  parts: ({ node: AstNode } | { store: { slot: number; type: string; bytes: 1 | 8; node: AstNode; asPredicate: boolean } })[];
  replace: Map<AstNode, string>;
  /** A uniform upper bound on threadIdx.x from the region's guard (narrows the x loop). */
  guard?: { op: '<' | '<=' | '=='; bound: AstNode; loop?: true } | { op: '<'; text: string };
  /** Printed around the region's statements (an interchanged grid-stride loop's step; see gridStrideLoop). */
  wrap?: { open: string; close: string };
  /** The x bound of an interchanged grid-stride step (`end - base`): its threads past the end skip it. */
  strideBound?: string;
  /** Inside `if`s whose condition is the same per warp: the threads whose predicate slot is false (or true) skip it. */
  preds?: { slot: number; negate: boolean }[];
  /** The region has an x4 form (four threads in SIMD lanes; laneVector.ts) for the fast thread loop. */
  x4?: boolean;
  /** The x4 form's function text (for warpChain.ts). */
  x4Text?: string;
}

type Item =
  | { k: 'region'; r: Region }
  | { k: 'ustmt'; node: AstNode }
  | { k: 'code'; text: string }
  | { k: 'if'; cond: Cond; then: Item[]; else: Item[] }
  | { k: 'loop'; cond: Cond | null; body: Item[]; update: Item[]; condFirst: boolean; trips?: number };

type Cond = { uniform: AstNode } | { text: string } | { items: Item[]; slot: number; site: number; node: AstNode };

/**
 * Iterations per thread in one step of an interchanged grid-stride loop (see gridStrideLoop):
 * enough to keep its values in registers between steps, few enough that the elements a step
 * touches (steps × the block's threads) stay in a core's L1 cache while it runs.
 */
const STRIDE_STEPS = 'max(2, 4096 / (__bdx * __bdy * __bdz))';

/** A kernel's block form with its grid-stride loops interchanged, and the test that picks it at a block's start. */
interface InterchangedForm { regionFns: string[]; prologue: string[]; seeded: string; fast: string; when: string }

class KernelCompiler {
  private readonly regions: Region[] = [];
  private uniform = new Set<Decl>();
  private slotsUsed = 0;
  private exitSlot = -1;
  private readonly uniformTemps: { name: string; type: string }[] = [];
  private readonly fixedSlots = { cond: -1, pred: -1, ballot: -1 };
  /**
   * The slots of shuffle operands, two sets used in turn: the region after one warp operation
   * reads its partners' values while it stores the operands of the next one (`v += shfl(v, 1);
   * v += shfl(v, 2);`), so the two must not share a slot (threads of the region run in any order).
   */
  private readonly collectiveSlots: [number[], number[]] = [[], []];
  private collectiveSet = 0;
  private hasReturn = false;
  /** Variables declared in an interchanged grid-stride loop: local to each region that prints the loop. */
  private readonly loopLocals = new Set<Decl>();

  /** Region functions' name tag: '' for the kernel as written, '_gs' for its interchanged form. */
  private readonly tag: string;
  /** Launch-time tests of the interchanged grid-stride loops (one per loop; see gridStrideLoop). */
  private readonly strideTests: string[] = [];

  /** `interchange`: build the form whose grid-stride loops run as block-level steps. */
  /**
   * `screen`: the race screen's form (assembly/runtime/checked.ts): the kernel as written (no
   * interchanged loops, so its threads run in the race tools' interval order) with a
   * `__screenBarrier` where each __syncthreads, __syncwarp, shuffle and vote stands.
   * `proven`: the copy run by blocks whose range proof holds (rangeProof.ts): those accesses
   * unchecked, its region functions tagged `_u`.
   */
  constructor(private readonly fe: FrontEnd, private readonly fn: FunctionInfo, private readonly threadGlobals: boolean,
    private readonly deviceFunctions: ReadonlySet<string>, private readonly interchange = false, private readonly screen = false,
    private readonly proven?: ReadonlySet<AstNode>) {
    this.tag = (interchange ? '_gs' : '') + (proven ? '_u' : '');
  }

  /** The module has device functions that are not inlined: its thread loops tell them their thread. */
  private get hasDeviceFunctions(): boolean { return this.deviceFunctions.size > 0; }

  /**
   * Does the region call a device function (which reads its thread from the globals the scalar
   * loop sets), in its statements, its collectives' operands or the consts it rematerializes?
   */
  private callsDeviceFunction(r: Region, remat: Decl[]): boolean {
    let found = false;
    const nodes = [...r.parts.map((p) => ('node' in p ? p.node : p.store.node)), ...remat.map((d) => d.node?.initializer as AstNode | null)];
    for (const n of nodes) {
      walk(n, (x) => {
        if (x.kind === NK.Call && x.expression.kind === NK.Identifier && !this.fn.refs.has(x.expression) && this.deviceFunctions.has(x.expression.text)) found = true;
      });
    }
    return found;
  }

  private fail(n: AstNode, msg: string): never { throw new KernelDiagnostic(n, msg); }

  /** The `// @line` of a node of this kernel (of the kernel itself for null). */
  private mark(n: AstNode | null): string { return this.fe.marker(n ?? this.fn.node, this.fn.file); }

  private newSlot(n: AstNode): number {
    if (this.slotsUsed >= CONTEXT_SLOTS) this.fail(n, `too many values live across barriers in '${this.fn.name}' (more than ${CONTEXT_SLOTS} context slots)`);
    return this.slotsUsed++;
  }

  private hasCollective(n: AstNode | null): boolean {
    let found = false;
    walk(n, (x) => {
      if (x.kind === NK.Call && x.expression.kind === NK.Identifier && !this.fn.refs.has(x.expression) && isCollective(x.expression.text)) found = true;
    });
    return found;
  }

  private collectivesIn(n: AstNode | null): AstNode[] {
    const out: AstNode[] = [];
    walk(n, (x) => {
      if (x.kind === NK.Call && x.expression.kind === NK.Identifier && !this.fn.refs.has(x.expression) && isCollective(x.expression.text)) {
        out.push(x);
        for (const a of x.args as AstNode[]) if (this.hasCollective(a)) this.fail(a, `nested warp operations: compute the inner ${x.expression.text} operand in its own statement`);
        return false;
      }
      return undefined;
    });
    return out;
  }

  /**
   * The kernel's block form as parts: region functions, the block-level prologue (uniform
   * variables), and the block's code in the seeded and fast thread orders.
   */
  private form(): { regionFns: string[]; prologue: string[]; seeded: string; fast: string } {
    const fn = this.fn;
    walk(fn.node.body, (x) => { if (x.kind === NK.Return) this.hasReturn = true; });
    this.checkParametersUnassigned();
    this.layoutShared();
    this.findUniform();
    if (this.hasReturn) this.exitSlot = this.newSlot(fn.node);
    const items = this.blockList((fn.node.body as AstNode).statements);
    this.regions.forEach((r, k) => { r.id = k; });
    this.classify();
    const regionFns = this.regions.map((r) => this.regionFunction(r));
    const uniformDecls = [...this.uniform].map((d) => `${this.mark(d.node)}\nlet ${d.outName}: ${this.typeOf(d)} = <${this.typeOf(d)}>0;`)
      .concat(this.uniformTemps.map((u) => `let ${u.name}: ${u.type} = <${u.type}>0;`));
    const prologue = [...uniformDecls, ...(this.exitSlot >= 0 ? [`__clearExits(${this.exitSlot});`] : [])];
    return { regionFns, prologue, seeded: this.itemsText(items, 'seeded', '  '), fast: this.itemsText(items, 'fast', '  ') };
  }

  /**
   * The kernel's form with its grid-stride loops interchanged (see gridStrideLoop), and the
   * launch-time test choosing it; undefined when the kernel has no such loop.
   */
  interchangedForm(): InterchangedForm | undefined {
    const f = this.form();
    if (this.strideTests.length === 0) return undefined;
    return { ...f, when: this.strideTests.join(' || ') };
  }

  /**
   * The proven copy's functions (this compiler built with `proven`): its region functions and
   * `__fast_<kernel>_u`, the fast form with the proven accesses unchecked.
   */
  provenFast(interchanged?: InterchangedForm): string {
    const plain = this.form();
    return [...(interchanged?.regionFns ?? []), ...plain.regionFns, this.mark(null),
      `function __fast_${this.fn.name}_u(${this.paramList()}): void {`, INDEX_LOCALS_DECL, this.localMemDecl(), ...this.body(plain, interchanged, 'fast'), '}'].join('\n');
  }

  /** The block's __local__ arrays: threadBytes per thread at the end of the worker's register area. */
  private localMemDecl(): string {
    // (0 without any: a constant the optimiser folds, so such kernels compile as before.)
    return `  const __lmem: usize = ${this.localBytes ? `__localMem(${this.localBytes})` : '0'};`;
  }

  /** A kernel function's body: the plain form, or both forms in one function, chosen per block. */
  private body(plain: { prologue: string[]; seeded: string; fast: string }, interchanged: InterchangedForm | undefined, form: 'seeded' | 'fast'): string[] {
    const indent = (lines: string[], ind: string) => lines.map((l) => l.split('\n').map((x) => ind + x).join('\n'));
    const plainBody = [...indent(plain.prologue, '  '), plain[form]];
    if (!interchanged) return plainBody;
    // Each in its own scope (they declare the same names).
    return [`  if (${interchanged.when}) {`, ...indent(interchanged.prologue, '    '), ...indent([interchanged[form]], '  '), '  } else {',
      ...indent(plainBody, '  '), '  }'];
  }

  /**
   * The kernel's block form. `proven`: the range proof's statements and the proven copy
   * (provenFast), run by each block whose proof holds.
   */
  compile(interchanged?: InterchangedForm, proven?: { proof: string[]; fast: string }): { block: string; info: KernelInfo } {
    const fn = this.fn;
    const plain = this.form();
    const params = this.paramList();
    const args = this.argList();
    const name = fn.name;
    const body = (form: 'seeded' | 'fast'): string[] => this.body(plain, interchanged, form);
    const doc = `// kernel ${name} (${fn.file}:${lineCol(fn.node).line}): ${this.regions.length} region(s), ${this.slotsUsed} context slot(s)` +
      (interchanged ? '; grid-stride loops interchanged when each thread has many iterations' : '');
    const mark = this.mark(null);
    const localMem = this.localMemDecl();
    const block = [
      doc,
      ...(interchanged?.regionFns ?? []),
      ...plain.regionFns,
      // The screen's entries hand its access count to the host after each block or chunk
      // (__screenFlush): once per access would cost a store to device memory each.
      ...(this.screen
        ? [mark, `export function ${name}(${params}): void { __seeded_${name}(${args}); __screenFlush(); }`,
          mark, `function __seeded_${name}(${params}): void {`]
        : [mark, `export function ${name}(${params}): void {`]),
      INDEX_LOCALS_DECL, localMem, ...body('seeded'), '}',
      mark, `export function __fast_${name}(${params}): void {`, INDEX_LOCALS_DECL, localMem, ...body('fast'), '}',
      ...(proven ? [`// the proven copy of ${name}: its blocks' accesses shown inside their arrays by __proof_${name}`, proven.fast,
        `// end of the proven copy of ${name}`, mark, `// Are the proven accesses of the block about to run inside their arrays? (rangeProof.ts)`,
        `function __proof_${name}(${params}): bool {`, PROOF_LOCALS_DECL, ...proven.proof.map((l) => `  ${l}`), '  return true;', '}'] : []),
      // The pool's entry: a chunk of consecutive blocks. Its own names start with '__', which
      // kernel sources cannot use, so no parameter of the kernel is shadowed.
      mark, `export function __blocks_${name}(__first: f64, __count: i32${params ? ', ' + params : ''}): void {`,
      ...this.privatizeBegin(fn),
      proven
        ? `  for (let __k = 0; __k < __count; __k++) { __block(__first + <f64>__k); if (__proof_${name}(${args})) __fast_${name}_u(${args}); else __fast_${name}(${args}); }`
        : `  for (let __k = 0; __k < __count; __k++) { __block(__first + <f64>__k); __fast_${name}(${args}); }`,
      ...(privatizedArray(fn) ? ['  __privFlush();'] : []),
      ...(this.screen ? ['  __screenFlush();'] : []),
      '}',
    ].join('\n');
    const staticShared = this.staticSharedBytes;
    return {
      block,
      info: {
        name, file: fn.file, line: lineCol(fn.node).line,
        params: fn.decls.filter((d) => d.param).map((d) => ({ name: d.name, kind: d.param!, dtype: d.param === 'array' ? d.array!.elem : d.typeText! })),
        staticSharedBytes: staticShared, regions: this.regions.length, slots: this.slotsUsed, localBytes: this.localBytes,
        shared: fn.decls.filter((d) => d.array?.space === 'shared').map((d) => ({
          name: d.name, dtype: d.array!.elem, offset: d.array!.offset, count: d.array!.dynamic ? null : d.array!.count,
        })),
      },
    };
  }

  private staticSharedBytes = 0;

  /**
   * The chunk's start of privatising the kernel's privatized array (privatizedArray): unless
   * another array argument overlaps it (the same memory passed twice: reads of it would miss
   * the copy's adds), where its copy fits past the launch's shared memory.
   */
  private privatizeBegin(fn: FunctionInfo): string[] {
    const a = privatizedArray(fn);
    if (!a) return [];
    const end = (d: Decl) => `__p_${d.outName} + (<usize>__n_${d.outName} << ${Math.log2(elemBytes(d.array!.elem))})`;
    const apart = fn.decls.filter((d) => d.param === 'array' && d !== a)
      .map((d) => `(${end(d)} <= __p_${a.outName} || ${end(a)} <= __p_${d.outName})`);
    return [`  if (${apart.length ? apart.join(' && ') : 'true'}) __privBegin(__p_${a.outName}, __n_${a.outName}, ${this.staticSharedBytes} + sharedSize());`];
  }

  private layoutShared(): void {
    let off = 0;
    const dynamic: Decl[] = [];
    for (const d of this.fn.decls) {
      if (!d.array || d.array.space !== 'shared') continue;
      if (d.array.dynamic) { dynamic.push(d); continue; }
      off = Math.ceil(off / 16) * 16;
      d.array.offset = off;
      off += d.array.count * elemBytes(d.array.elem);
    }
    this.staticSharedBytes = Math.ceil(off / 16) * 16;
    for (const d of dynamic) d.array!.offset = this.staticSharedBytes;
    // __local__ arrays: each thread's bytes, every array aligned to 8.
    const locals = this.fn.decls.filter((d) => d.array?.space === 'local');
    let loc = 0;
    for (const d of locals) {
      loc = Math.ceil(loc / 8) * 8;
      d.array!.offset = loc;
      loc += d.array!.count * elemBytes(d.array!.elem);
    }
    this.localBytes = Math.ceil(loc / 8) * 8;
    for (const d of locals) { d.array!.threadBytes = this.localBytes; d.array!.staticShared = this.staticSharedBytes; }
  }

  private localBytes = 0;

  private paramList(): string {
    return this.fn.decls.filter((d) => d.param).map((d) => (d.param === 'array' ? `__p_${d.outName}: usize, __n_${d.outName}: i32` : `${d.outName}: ${d.typeText}`)).join(', ');
  }

  private argList(): string {
    return this.fn.decls.filter((d) => d.param).map((d) => (d.param === 'array' ? `__p_${d.outName}, __n_${d.outName}` : d.outName)).join(', ');
  }

  private typeOf(d: Decl): string {
    const t = declType(this.fe, this.fn, d);
    if (!t) this.fail(d.node ?? this.fn.node, `cannot infer the type of '${d.name}', which lives across a barrier: declare it (let ${d.name}: f32 = …)`);
    return t!;
  }

  // --- uniform values ---------------------------------------------------------------------------

  /** Is e the same for every thread of the block (given the uniform variables so far)? */
  private isUniform(e: AstNode | null): boolean {
    if (!e) return true;
    let ok = true;
    walk(e, (n) => {
      if (!ok) return false;
      switch (n.kind) {
        case NK.Literal: case NK.True: case NK.False: case NK.Parenthesized: case NK.Ternary: case NK.Assertion: return undefined;
        case NK.Binary: if (/=$/.test(operatorOf(n)) && !/^(==|!=|===|!==|<=|>=)$/.test(operatorOf(n))) ok = false; return undefined;
        case NK.UnaryPrefix: if (/^(\+\+|--)$/.test(operatorOf(n))) ok = false; return undefined;
        case NK.Identifier: {
          const d = this.fn.refs.get(n);
          if (d) ok = d.param === 'scalar' || this.uniform.has(d);
          else ok = n.text === 'warpSize' || !!this.fe.moduleConst(n.text);
          return false;
        }
        case NK.PropertyAccess: {
          const o = n.expression as AstNode;
          if (o.kind === NK.Identifier && ['blockIdx', 'blockDim', 'gridDim'].includes(o.text) && !this.fn.refs.has(o)) return false;
          if (o.kind === NK.Identifier && this.fn.refs.get(o)?.array && n.property.text === 'length') return false;
          ok = false; return false;
        }
        case NK.Call: {
          const c = n.expression as AstNode;
          const pure = (c.kind === NK.Identifier && PURE_CALLS.has(c.text) && !this.fn.refs.has(c)) ||
            (c.kind === NK.PropertyAccess && c.expression.kind === NK.Identifier && ['Math', 'Mathf'].includes(c.expression.text));
          if (!pure) ok = false;
          for (const a of n.args as AstNode[]) if (!this.isUniform(a)) ok = false;
          return false;
        }
        default: ok = false; return false;
      }
    });
    return ok;
  }

  /** Variables assigned only at block level with uniform values (a fixpoint from all candidates). */
  private findUniform(): void {
    const candidates = new Map<Decl, AstNode[]>(); // decl → its uniform-position right-hand sides
    const rejected = new Set<Decl>();
    const fn = this.fn;
    const assignTarget = (e: AstNode): { d: Decl; rhs: AstNode | null } | undefined => {
      if (e.kind === NK.Binary && /=$/.test(operatorOf(e)) && !/^(==|!=|===|!==|<=|>=)$/.test(operatorOf(e)) && e.left.kind === NK.Identifier) {
        const d = fn.refs.get(e.left); if (d) return { d, rhs: e.right };
      }
      if ((e.kind === NK.UnaryPostfix || e.kind === NK.UnaryPrefix) && /^(\+\+|--)$/.test(operatorOf(e)) && e.operand.kind === NK.Identifier) {
        const d = fn.refs.get(e.operand); if (d) return { d, rhs: null };
      }
      return undefined;
    };
    // Every assignment anywhere rejects its variable unless it sits at a uniform position.
    const uniformAssignments = new Set<AstNode>();
    const visitList = (stmts: AstNode[]) => {
      for (const s of stmts) {
        if (s.kind === NK.Variable) {
          for (const vd of s.declarations as AstNode[]) {
            const d = fn.declOf.get(vd);
            if (d && !d.array && vd.initializer && !this.hasCollective(vd.initializer)) candidates.set(d, [...(candidates.get(d) ?? []), vd.initializer]);
          }
        } else if (s.kind === NK.Expression) {
          const a = assignTarget(s.expression);
          if (a && !this.hasCollective(s.expression)) { uniformAssignments.add(s.expression); if (a.rhs) candidates.set(a.d, [...(candidates.get(a.d) ?? []), a.rhs]); }
        } else if (this.hasCollective(s)) {
          // A block-level construct: its body lists are uniform positions too.
          if (s.kind === NK.Block) visitList(s.statements);
          else if (s.kind === NK.If) { visitList(listOf(s.ifTrue)); if (s.ifFalse) visitList(listOf(s.ifFalse)); }
          else if (s.kind === NK.While || s.kind === NK.Do) visitList(listOf(s.body));
          else if (s.kind === NK.For) {
            if (s.initializer) visitList([s.initializer]);
            if (s.incrementor) visitList([{ kind: NK.Expression, expression: s.incrementor, range: s.incrementor.range } as AstNode]);
            visitList(listOf(s.body));
            if (s.incrementor) { const a = assignTarget(s.incrementor); if (a) uniformAssignments.add(s.incrementor); }
          }
        }
      }
    };
    visitList((fn.node.body as AstNode).statements);
    walk(fn.node.body, (n) => {
      const a = assignTarget(n);
      if (a && !uniformAssignments.has(n)) rejected.add(a.d);
      return undefined;
    });
    for (const d of fn.decls) if (d.node && !d.array && !candidates.has(d)) rejected.add(d);
    this.uniform = new Set([...candidates.keys()].filter((d) => !rejected.has(d)));
    for (;;) {
      let changed = false;
      for (const d of [...this.uniform]) {
        if (!candidates.get(d)!.every((rhs) => this.isUniform(rhs))) { this.uniform.delete(d); changed = true; }
      }
      if (!changed) break;
    }
    for (const d of this.uniform) { d.cls = 'uniform'; this.typeOf(d); }
  }

  /** A statement that only declares or assigns uniform variables (runs once, at block level). */
  private isUniformStatement(s: AstNode): boolean {
    if (s.kind === NK.Variable) return (s.declarations as AstNode[]).every((vd) => { const d = this.fn.declOf.get(vd); return !!d && this.uniform.has(d); });
    if (s.kind === NK.Expression) {
      const e = s.expression as AstNode;
      const target = e.kind === NK.Binary ? e.left : e.operand;
      if (!target || target.kind !== NK.Identifier) return false;
      const isAssign = (e.kind === NK.Binary && /=$/.test(operatorOf(e)) && !/^(==|!=|===|!==|<=|>=)$/.test(operatorOf(e))) ||
        ((e.kind === NK.UnaryPostfix || e.kind === NK.UnaryPrefix) && /^(\+\+|--)$/.test(operatorOf(e)));
      const d = this.fn.refs.get(target);
      return isAssign && !!d && this.uniform.has(d);
    }
    return false;
  }

  // --- partition --------------------------------------------------------------------------------

  private current: Region | null = null;

  /** The warp-uniform `if`s the statements being cut are under (see warpPredicatedIf). */
  private readonly predStack: { slot: number; negate: boolean }[] = [];

  private region(): Region {
    if (!this.current) {
      this.current = { id: this.regions.length, parts: [], replace: new Map(), ...(this.predStack.length ? { preds: [...this.predStack] } : {}) };
      this.regions.push(this.current);
    }
    return this.current;
  }

  private cut(items: Item[]): void {
    const r = this.current;
    if (!r) return;
    this.current = null;
    // A region with nothing to run (between two barriers) is dropped: one barrier is as good as two.
    if (r.parts.length === 0) { this.regions.splice(this.regions.indexOf(r), 1); return; }
    items.push({ k: 'region', r });
  }

  private blockList(stmts: AstNode[]): Item[] {
    const items: Item[] = [];
    for (const s of stmts) this.blockStatement(s, items);
    this.cut(items);
    return items;
  }

  private blockStatement(s: AstNode, items: Item[]): void {
    if (s.kind === NK.Empty) return;
    if (this.isUniformStatement(s)) { this.cut(items); items.push({ k: 'ustmt', node: s }); return; }
    if (!this.hasCollective(s)) {
      if (!this.gridStrideLoop(s, items)) this.region().parts.push({ node: s });
      return;
    }
    switch (s.kind) {
      case NK.Expression: case NK.Variable: case NK.Return:
        this.headCollectives(s, s.kind === NK.Variable ? (s.declarations as AstNode[]).map((d) => d.initializer) : [s.kind === NK.Expression ? s.expression : s.value], items);
        return;
      case NK.Block: for (const c of s.statements) this.blockStatement(c, items); return;
      case NK.If: {
        if (!this.hasCollective(s.ifTrue) && !(s.ifFalse && this.hasCollective(s.ifFalse))) { this.headCollectives(s, [s.condition], items); return; }
        if (this.threadDependent(s.condition) && !this.hasCollective(s.condition) && this.onlyWarpCollectives(s)) { this.warpPredicatedIf(s, items); return; }
        const cond = this.cond(s.condition, s);
        this.cut(items);
        items.push({ k: 'if', cond, then: this.blockList(listOf(s.ifTrue)), else: s.ifFalse ? this.blockList(listOf(s.ifFalse)) : [] });
        return;
      }
      case NK.While: case NK.Do: case NK.For: {
        this.checkNoJumps(s);
        if (s.kind === NK.For && s.initializer) this.blockStatement(s.initializer, items);
        this.cut(items);
        const cond = s.condition ? this.cond(s.condition, s) : null;
        const body = this.blockList(listOf(s.body));
        const update: Item[] = [];
        if (s.kind === NK.For && s.incrementor) {
          this.blockStatement({ kind: NK.Expression, expression: s.incrementor, range: s.incrementor.range } as AstNode, update);
          this.cut(update);
        }
        // A constant trip count (`for (let offset = 16; offset > 0; offset /= 2)`, the warp
        // reduction): the trips written out, so each thread loop sees its counter as a constant
        // (shuffleSum on one worker 18.0-19.8 -> 16.4-16.7 ms; wgslUnroll.ts does the same for WGSL).
        const trips = constantTrips(this.fn, s, (d) => this.typeOf(d) === 'i32');
        items.push({ k: 'loop', cond, body, update, condFirst: s.kind !== NK.Do, trips });
        return;
      }
      default:
        this.fail(s, 'this statement cannot contain a barrier or warp operation');
    }
  }

  /**
   * A grid-stride loop, `for (let i = U + threadIdx.x; i < N; i += S) body` (or the same as
   * `let i = U + threadIdx.x; while (i < N) { …; i += S; }`), with U, N and S known at the
   * block's start. Run per thread, each thread walks memory with a stride of S: with many
   * iterations per thread the block's loops no longer stream through memory. The interchanged
   * form (this compiler with `interchange`) strip-mines it: a block-level loop over
   * `base = U, U + K·S, …` whose step runs, for every thread, the K iterations
   * `i = base + threadIdx.x, + S, …` below min(N, base + threadIdx.x + K·S) (K = STRIDE_STEPS), so a step
   * touches K·blockDim elements that stay in cache while the block's threads pass over them,
   * as a GPU's warps stream through memory. Legal because the body holds no barrier: CUDA
   * allows any order of a block's threads between barriers. Values the body carries from step
   * to step live in context slots, as across a barrier. The launch picks this form when a loop
   * has more than K iterations per thread (with fewer, it is the loop as written).
   * Returns false (nothing emitted) when s is not such a loop or this is the form as written.
   */
  private gridStrideLoop(s: AstNode, items: Item[]): boolean {
    if (!this.interchange) return false;
    const m = this.matchGridStride(s);
    if (!m) return false;
    const u = m.start ? this.blockStartText(m.start) : '0', n = this.blockStartText(m.end), st = this.blockStartText(m.stride);
    if (u === undefined || n === undefined || st === undefined) return false;
    if (m.declStmt) {
      const r = this.current!;
      r.parts.splice(r.parts.findIndex((p) => 'node' in p && p.node === m.declStmt), 1);
    }
    walk(s, (x) => { if (x.kind === NK.VariableDeclaration) { const d = this.fn.declOf.get(x); if (d) this.loopLocals.add(d); } });
    this.loopLocals.add(m.decl);
    this.cut(items);
    const temp = () => { const name = `__u${this.uniformTemps.length}`; this.uniformTemps.push({ name, type: 'i32' }); return name; };
    const base = temp(), end = temp(), stride = temp(), steps = temp(), stepEnd = temp();
    this.strideTests.push(`<i64>(${n}) - <i64>(${u}) > <i64>(${st}) * <i64>(${STRIDE_STEPS})`);
    items.push({ k: 'code', text: `${base} = <i32>(${u}); ${end} = <i32>(${n}); ${stride} = <i32>(${st}); ${steps} = ${STRIDE_STEPS};` });
    // One step: every thread runs `steps` iterations (or fewer at the end).
    const step: Item[] = [{ k: 'code', text: `${stepEnd} = <i32>min<i64>(<i64>${end}, <i64>${base} + <i64>${stride} * <i64>${steps});` }];
    const body = this.region();
    const i = m.decl.outName;
    // A thread's iterations in this step are its next `steps` ones, i = base + tx + j·stride for
    // j < steps: the bound is the thread's own (base + tx + steps·stride), not the step's end.
    // With a stride below blockDim.x, the step's end cut short the threads whose tx ≥ stride
    // and the next step started past the iterations they had left.
    body.wrap = {
      open: `{ const __iEnd = <i32>min<i64>(<i64>${end}, <i64>${stepEnd} + <i64>__tx); for (let ${i}: i32 = ${base} + __tx; ${i} < __iEnd; ${i} += ${stride}) {`,
      close: '}}',
    };
    body.strideBound = `${end} - ${base}`;
    for (const b of m.body) body.parts.push({ node: b });
    this.cut(step);
    items.push({ k: 'loop', cond: { text: `${base} < ${end}` }, body: step, update: [{ k: 'code', text: `${base} = ${stepEnd};` }], condFirst: true });
    return true;
  }

  /**
   * e as code at the block's start, before any of its statements ran: parameters the kernel
   * never assigns, block indices and module constants as they are, constants of the kernel (`const stride =
   * blockDim.x * gridDim.x`, or a `let` never assigned again) by their initializers; undefined
   * when e needs anything else.
   */
  private blockStartText(e: AstNode, depth = 0): string | undefined {
    if (depth > 8 || !this.isUniform(e)) return undefined;
    const replace = new Map<AstNode, string>();
    let ok = true;
    walk(e, (x) => {
      if (x.kind !== NK.Identifier) return undefined;
      const d = this.fn.refs.get(x);
      if (!d) return undefined;
      if (d.param === 'scalar') { if (this.assignedAnywhere(d)) ok = false; return undefined; }
      const init = !d.array && this.neverReassigned(d) ? d.node!.initializer : null;
      const t = init ? this.blockStartText(init, depth + 1) : undefined;
      if (t === undefined) ok = false;
      else replace.set(x, `(${t})`);
      return undefined;
    });
    return ok ? this.fix(this.printer('block', replace).text(e)) : undefined;
  }

  /** The parts of a grid-stride loop (see gridStrideLoop), or undefined. */
  private matchGridStride(s: AstNode): { decl: Decl; declStmt?: AstNode; start: AstNode | null; end: AstNode; stride: AstNode; body: AstNode[] } | undefined {
    const fn = this.fn;
    let decl: Decl | undefined, declStmt: AstNode | undefined, init: AstNode | null = null, stride: AstNode | undefined, body: AstNode[];
    const strideOf = (e: AstNode | null): AstNode | undefined => {
      if (!e || e.kind !== NK.Binary || operatorOf(e) !== '+=' || e.left.kind !== NK.Identifier || fn.refs.get(e.left) !== decl) return undefined;
      return e.right;
    };
    if (s.kind === NK.For) {
      const v = s.initializer as AstNode | null;
      if (!v || v.kind !== NK.Variable || (v.declarations as AstNode[]).length !== 1) return undefined;
      const vd = (v.declarations as AstNode[])[0]!;
      decl = fn.declOf.get(vd);
      init = vd.initializer;
      stride = strideOf(s.incrementor);
      body = listOf(s.body);
    } else if (s.kind === NK.While) {
      const c = unparen(s.condition);
      if (c.kind !== NK.Binary || c.left.kind !== NK.Identifier) return undefined;
      decl = fn.refs.get(c.left);
      const vd = decl?.node;
      if (!decl || !vd || vd.kind !== NK.VariableDeclaration) return undefined;
      init = vd.initializer;
      const stmts = listOf(s.body);
      const last = stmts[stmts.length - 1];
      if (!last || last.kind !== NK.Expression) return undefined;
      stride = strideOf(last.expression);
      body = stmts.slice(0, -1);
      // Every use of i is in the loop: its declaration moves to where the loop runs.
      const { start, end } = s.range;
      let outside = false;
      walk(fn.node.body, (x) => { if (x.kind === NK.Identifier && fn.refs.get(x) === decl && (x.range.start < start || x.range.end > end)) outside = true; });
      if (outside) return undefined;
      declStmt = this.current?.parts.map((p) => ('node' in p ? p.node : null)).find((n) => n?.kind === NK.Variable && (n.declarations as AstNode[]).length === 1 && (n.declarations as AstNode[])[0] === vd) ?? undefined;
      if (!declStmt) return undefined;
    } else return undefined;
    if (!decl || !init || !stride || decl.array || declType(this.fe, fn, decl) !== 'i32') return undefined;
    const c = unparen(s.condition);
    if (c.kind !== NK.Binary || operatorOf(c) !== '<' || c.left.kind !== NK.Identifier || fn.refs.get(c.left) !== decl) return undefined;
    const end = c.right as AstNode;
    const start = this.threadXOffset(init);
    if (start === undefined) return undefined;
    for (const e of [end, stride, start]) if (e && (!this.isUniform(e) || valueType(this.fe, fn, e) !== 'i32')) return undefined;
    // The body may not move i, nor leave the loop early (`continue` is a step's end; `return` an exit).
    let ok = true;
    const scan = (n: AstNode | null, depth: number): void => walk(n, (x) => {
      if (x !== n && (x.kind === NK.For || x.kind === NK.While || x.kind === NK.Do)) { scan(x, depth + 1); return false; }
      if (x.kind === NK.Break && depth === 0) ok = false;
      if (x.kind === NK.Continue && (depth === 0 && s.kind === NK.While)) ok = false;
      const target = assignedName(x);
      if (target && fn.refs.get(target) === decl) ok = false;
      return undefined;
    });
    for (const b of body) scan(b, 0);
    if (!ok) return undefined;
    return { decl, declStmt, start, end, stride, body };
  }

  /**
   * The launch's arguments are the same for every thread and the block code reads them as
   * such (and WGSL keeps them in a uniform buffer): a kernel may not assign its parameters.
   * Without this check such a kernel crashed the AssemblyScript compiler.
   */
  private checkParametersUnassigned(): void {
    for (const d of this.fn.decls) {
      if (d.param !== 'scalar' || !this.assignedAnywhere(d)) continue;
      let at: AstNode = this.fn.node;
      walk(this.fn.node.body, (x) => {
        const target = assignedName(x);
        if (at === this.fn.node && target && this.fn.refs.get(target) === d) at = x;
        return undefined;
      });
      this.fail(at, `'${d.name}' is a kernel parameter, which is the same for every thread and read-only here: copy it into a local first (let ${d.name}Left = ${d.name};)`);
    }
  }

  /** A `const`, or a `let` assigned only by its initializer (`let stride = blockDim.x * gridDim.x`). */
  private neverReassigned(d: Decl): boolean {
    if (d.param || !d.node?.initializer) return false;
    return d.isConst || !this.assignedAnywhere(d);
  }

  /** Does any statement of the kernel assign d (`=`, `+=`, `++`, …)? */
  private assignedAnywhere(d: Decl): boolean {
    let assigned = false;
    walk(this.fn.node.body, (x) => {
      const target = assignedName(x);
      if (target && this.fn.refs.get(target) === d) assigned = true;
      return undefined;
    });
    return assigned;
  }

  /** U of `U + threadIdx.x` (or `threadIdx.x + U`, or `threadIdx.x`: null), through constants naming it; undefined otherwise. */
  private threadXOffset(e: AstNode): AstNode | null | undefined {
    e = unparen(e);
    if (e.kind === NK.Identifier) {
      const d = this.fn.refs.get(e);
      return d && this.neverReassigned(d) ? this.threadXOffset(d.node!.initializer) : undefined;
    }
    if (this.isThreadXAccess(e)) return null;
    if (e.kind !== NK.Binary || operatorOf(e) !== '+') return undefined;
    if (this.isThreadXAccess(unparen(e.right)) && this.isUniform(e.left)) return e.left;
    if (this.isThreadXAccess(unparen(e.left)) && this.isUniform(e.right)) return e.right;
    return undefined;
  }

  private isThreadXAccess(e: AstNode): boolean {
    return e.kind === NK.PropertyAccess && e.expression.kind === NK.Identifier && e.expression.text === 'threadIdx' && e.property.text === 'x' && !this.fn.refs.has(e.expression);
  }

  private checkNoJumps(loop: AstNode): void {
    const inner = (n: AstNode | null, depth: number): void => {
      walk(n, (x) => {
        if (x !== n && (x.kind === NK.For || x.kind === NK.While || x.kind === NK.Do)) { inner(x.body, depth + 1); return false; }
        if ((x.kind === NK.Break || x.kind === NK.Continue) && depth === 0) {
          this.fail(x, `${x.kind === NK.Break ? 'break' : 'continue'} in a loop that contains a barrier or warp operation: every thread of the block must run the same iterations (use the loop condition)`);
        }
        return undefined;
      });
    };
    inner(loop.body, 0);
  }

  private tainted: Set<Decl> | undefined;

  /** Does e depend on threadIdx (directly, or through values computed from it)? */
  private threadDependent(e: AstNode | null): boolean {
    if (!this.tainted) {
      const t = new Set<Decl>();
      const mentions = (x: AstNode | null): boolean => {
        let hit = false;
        walk(x, (n) => {
          if (n.kind === NK.PropertyAccess && n.expression.kind === NK.Identifier && n.expression.text === 'threadIdx' && !this.fn.refs.has(n.expression)) hit = true;
          if (n.kind === NK.Identifier) { const d = this.fn.refs.get(n); if (d && t.has(d)) hit = true; }
          if (n.kind === NK.Call && n.expression.kind === NK.Identifier && n.expression.text === '__activemask') hit = true;
        });
        return hit;
      };
      for (let changed = true; changed;) {
        changed = false;
        walk(this.fn.node.body, (n) => {
          let d: Decl | undefined, rhs: AstNode | null = null;
          if (n.kind === NK.VariableDeclaration) { d = this.fn.declOf.get(n); rhs = n.initializer; }
          else if (n.kind === NK.Binary && /=$/.test(operatorOf(n)) && !/^(==|!=|===|!==|<=|>=)$/.test(operatorOf(n)) && n.left.kind === NK.Identifier) { d = this.fn.refs.get(n.left); rhs = n.right; }
          if (d && !t.has(d) && mentions(rhs)) { t.add(d); changed = true; }
        });
      }
      this.tainted = t;
      this.mentionsThread = mentions;
    }
    return this.mentionsThread!(e);
  }

  private mentionsThread: ((e: AstNode | null) => boolean) | undefined;

  /** A condition of a block-level if/loop: uniform as written, or evaluated per thread and checked. */
  /** Are the collectives under this statement all warp-level (shuffles, votes, __syncwarp)? */
  private onlyWarpCollectives(s: AstNode): boolean {
    return this.collectivesUnder(s).every((c) => { const n = c.expression.text as string; return n === '__syncwarp' || n in WARP_SHUFFLES || WARP_VOTES.has(n); });
  }

  private collectivesUnder(n: AstNode | null): AstNode[] {
    const out: AstNode[] = [];
    walk(n, (x) => { if (x.kind === NK.Call && x.expression.kind === NK.Identifier && !this.fn.refs.has(x.expression) && isCollective(x.expression.text)) out.push(x); });
    return out;
  }

  /**
   * `if (warp == 0) v = warpSum(v);`: warp operations under a condition that differs between
   * threads but not within a warp (CUDA requires the lanes a warp operation names to reach it).
   * Each thread stores the condition; a block-level check traps if it differs inside a warp; the
   * branches' regions then run for the threads whose predicate holds (the then branch) or not
   * (the else branch), one branch after the other — a legal order, as no block barrier is inside.
   */
  private warpPredicatedIf(s: AstNode, items: Item[]): void {
    const slot = this.newSlot(s);
    this.region().parts.push({ store: { slot, type: 'u8', bytes: 1, node: s.condition, asPredicate: true } });
    this.cut(items);
    const site = this.fe.site(s, this.fn.file, 'condition of an if with warp operations');
    items.push({ k: 'code', text: `__warpUniform(${slot}, ${EXIT_SLOT_EXPR}, ${site});` });
    for (const [branch, negate] of [[s.ifTrue, false], [s.ifFalse, true]] as const) {
      if (!branch) continue;
      this.predStack.push({ slot, negate });
      items.push(...this.blockList(listOf(branch)));
      this.cut(items);
      this.predStack.pop();
    }
  }

  private cond(e: AstNode, construct: AstNode): Cond {
    if (!this.hasCollective(e) && this.isUniform(e)) return { uniform: e };
    if (this.threadDependent(e)) {
      this.fail(e, `a barrier or warp operation under thread-dependent control flow: \`${textOf(e)}\` depends on threadIdx, ` +
        'but CUDA requires every thread of the block to reach the same __syncthreads (move the barrier out of the condition; ' +
        'a warp operation may stand under an if whose condition is the same within each warp, not in such a loop)');
    }
    if (this.fixedSlots.cond < 0) this.fixedSlots.cond = this.newSlot(e);
    const condItems: Item[] = [];
    const saved = this.current; this.current = null;
    const r = this.headCollectives(null, [e], condItems);
    r.parts.push({ store: { slot: this.fixedSlots.cond, type: 'u8', bytes: 1, node: e, asPredicate: true } });
    this.cut(condItems);
    this.current = saved;
    const site = this.fe.site(construct, this.fn.file, `condition of ${construct.kind === NK.If ? 'an if' : 'a loop'} with a barrier`);
    return { items: condItems, slot: this.fixedSlots.cond, site, node: e };
  }

  /**
   * A statement whose expressions hold collectives: the region before it stores each lane's
   * operands; the collective is computed (block or warp level); the statement then runs in the
   * next region with each collective replaced by its result. Returns that next region.
   */
  private headCollectives(s: AstNode | null, exprs: (AstNode | null)[], items: Item[]): Region {
    const calls = exprs.flatMap((e) => this.collectivesIn(e));
    if (calls.length === 0) { const r = this.region(); if (s) r.parts.push({ node: s }); return r; }
    const before = this.region();
    const after: { call: AstNode; text: string }[] = [];
    const code: string[] = [];
    const slots = this.collectiveSlots[this.collectiveSet]!;
    this.collectiveSet ^= 1;
    calls.forEach((c, k) => {
      const name = c.expression.text as string;
      const args = c.args as AstNode[];
      if (BARRIERS.has(name)) {
        if (s && s.kind === NK.Expression && s.expression === c) return; // a barrier statement: the cut below is the barrier
        this.fail(c, `${name}() must be a statement of its own`);
      }
      if (BLOCK_PREDICATES.has(name)) {
        if (args.length !== 1) this.fail(c, `${name}(predicate)`);
        if (this.fixedSlots.pred < 0) this.fixedSlots.pred = this.newSlot(c);
        before.parts.push({ store: { slot: this.fixedSlots.pred, type: 'u8', bytes: 1, node: args[0]!, asPredicate: true } });
        const tmp = `__u${this.uniformTemps.length}`;
        this.uniformTemps.push({ name: tmp, type: 'i32' });
        const count = `__predCount(${this.fixedSlots.pred}, ${EXIT_SLOT_EXPR})`;
        code.push(`${tmp} = ${name === '__syncthreads_count' ? count : name === '__syncthreads_or' ? `<i32>(${count} > 0)` : `<i32>(${count} == __liveCount(${EXIT_SLOT_EXPR}))`};`);
        after.push({ call: c, text: tmp });
        return;
      }
      if (WARP_VOTES.has(name)) {
        if (args.length !== 2) this.fail(c, `${name}(mask, predicate)`);
        if (this.fixedSlots.pred < 0) this.fixedSlots.pred = this.newSlot(c);
        if (k > 0) this.fail(c, 'one warp vote per statement');
        if (this.fixedSlots.ballot < 0) this.fixedSlots.ballot = this.newSlot(c);
        before.parts.push({ store: { slot: this.fixedSlots.pred, type: 'u8', bytes: 1, node: args[1]!, asPredicate: true } });
        code.push(`__ballots(${this.fixedSlots.pred}, ${this.fixedSlots.ballot}, ${EXIT_SLOT_EXPR});`);
        after.push({ call: c, text: `@VOTE:${name}:${this.fixedSlots.ballot}` });
        return;
      }
      // Shuffles: each lane's value and lane argument, then the partner's value.
      if (args.length < 3 || args.length > 4) this.fail(c, `${name}(mask, value, ${name === '__shfl_sync' ? 'srcLane' : name === '__shfl_xor_sync' ? 'laneMask' : 'delta'}[, width])`);
      const t = valueType(this.fe, this.fn, args[1]!) ?? this.fail(args[1]!, `cannot infer the type of the value of ${name}: write a cast, e.g. <f32>(…)`);
      while (slots.length < 2 * (k + 1)) slots.push(this.newSlot(c));
      const vs = slots[2 * k]!, as_ = slots[2 * k + 1]!;
      before.parts.push({ store: { slot: vs, type: t, bytes: 8, node: args[1]!, asPredicate: false } });
      // A uniform lane argument (the usual `offset` of a reduction) is passed as a value.
      if (this.isUniform(args[2]!)) after.push({ call: c, text: `@SHFL:${WARP_SHUFFLES[name]}U:${t}:${vs}:U` });
      else {
        before.parts.push({ store: { slot: as_, type: 'i32', bytes: 8, node: args[2]!, asPredicate: false } });
        after.push({ call: c, text: `@SHFL:${WARP_SHUFFLES[name]}:${t}:${vs}:${as_}` });
      }
    });
    this.cut(items);
    if (this.screen) {
      // A __syncthreads is a new barrier interval; at any collective a thread that exited
      // before it is a finding (the detector reports divergence of barriers and warp operations).
      const block = calls.some((c) => c.expression.text === '__syncthreads' || BLOCK_PREDICATES.has(c.expression.text));
      items.push({ k: 'code', text: `__screenBarrier(${EXIT_SLOT_EXPR}, __bdx * __bdy * __bdz, ${block ? 1 : 0});` });
    }
    for (const c of code) items.push({ k: 'code', text: c });
    const next = this.region();
    for (const a of after) next.replace.set(a.call, a.text);
    if (s && !(s.kind === NK.Expression && calls.length === 1 && BARRIERS.has(calls[0]!.expression.text) && s.expression === calls[0])) next.parts.push({ node: s });
    return next;
  }

  // --- classification of per-thread values ----------------------------------------------------

  private classify(): void {
    // Which regions mention each declaration (block-level items mention only uniform values).
    for (const r of this.regions) {
      for (const p of r.parts) {
        const node = 'node' in p ? p.node : p.store.node;
        walk(node, (n) => { if (n.kind === NK.Identifier) { const d = this.fn.refs.get(n); if (d) d.regions.add(r.id); } });
        if ('node' in p) walk(p.node, (n) => { if (n.kind === NK.VariableDeclaration) { const d = this.fn.declOf.get(n); if (d) d.regions.add(r.id); } });
      }
      for (const call of r.replace.keys()) walk(call, (n) => { if (n.kind === NK.Identifier) { const d = this.fn.refs.get(n); if (d) d.regions.add(r.id); } });
    }
    for (const d of this.fn.decls) {
      if (d.param || d.array || d.cls === 'uniform') continue;
      if (this.loopLocals.has(d)) { d.cls = 'local'; continue; }
      if (d.isConst && d.node?.initializer && this.isRematerializable(d.node.initializer, new Set([d]))) { d.cls = 'remat'; continue; }
      if (d.regions.size <= 1) d.cls = 'local';
      else if ([...d.regions].every((id) => this.writesBeforeReading(d, this.regions[id]!))) { d.cls = 'split'; this.typeOf(d); }
      else { d.cls = 'context'; d.slot = this.newSlot(d.node!); this.typeOf(d); }
    }
    for (const r of this.regions) r.guard = this.guardOf(r);
  }

  /**
   * Does region r assign d before any read of it, in its top-level statements (so no value of d
   * flows into r from another region)? Like CUDA's transpose reusing `x` and `y` after the
   * barrier: such a variable needs no context slot.
   */
  private writesBeforeReading(d: Decl, r: Region): boolean {
    const mentions = (n: AstNode | null): boolean => {
      let hit = false;
      walk(n, (x) => { if (x.kind === NK.Identifier && this.fn.refs.get(x) === d) hit = true; });
      return hit;
    };
    for (const p of r.parts) {
      if ('store' in p) { if (mentions(p.store.node)) return false; continue; }
      const n = p.node;
      if (n.kind === NK.Variable && (n.declarations as AstNode[]).some((vd) => this.fn.declOf.get(vd) === d)) return true;
      if (n.kind === NK.Expression && n.expression.kind === NK.Binary && operatorOf(n.expression) === '='
        && n.expression.left.kind === NK.Identifier && this.fn.refs.get(n.expression.left) === d) return !mentions(n.expression.right);
      if (mentions(n)) return false;
    }
    return true;
  }

  private isRematerializable(e: AstNode, seen: Set<Decl>): boolean {
    let ok = true;
    walk(e, (n) => {
      if (!ok) return false;
      if (n.kind === NK.PropertyAccess && n.expression.kind === NK.Identifier && n.expression.text === 'threadIdx' && !this.fn.refs.has(n.expression)) return false;
      if (n.kind === NK.Identifier) {
        const d = this.fn.refs.get(n);
        if (d && !d.param && !this.uniform.has(d)) {
          if (seen.has(d) || !d.isConst || !d.node?.initializer) ok = false;
          else { seen.add(d); ok = this.isRematerializable(d.node.initializer, seen); }
        }
        return false;
      }
      if (n.kind === NK.Call || n.kind === NK.ElementAccess) { ok = this.isUniform(n); return false; }
      if (n.kind === NK.Binary && /=$/.test(operatorOf(n)) && !/^(==|!=|===|!==|<=|>=)$/.test(operatorOf(n))) ok = false;
      if ((n.kind === NK.UnaryPrefix || n.kind === NK.UnaryPostfix) && /^(\+\+|--)$/.test(operatorOf(n))) ok = false;
      return undefined;
    });
    return ok;
  }

  /**
   * `if (threadIdx.x < E) …`, or `for (let i = threadIdx.x; i < E; …) …` (a shared array's
   * initialisation or merge, `i += blockDim.x`), as a region's only statement: the x loop can
   * stop at E, since a thread past it does nothing (the histogram's zeroing and merge run 256 of
   * its 1024 threads).
   */
  private guardOf(r: Region): Region['guard'] {
    if (r.strideBound) return { op: '<', text: r.strideBound };
    // (a `__shared__` declaration beside the statement is laid out by the compiler: it runs nothing)
    const parts = r.parts.filter((p) => !('node' in p) || !(p.node.kind === NK.Variable &&
      (p.node.declarations as AstNode[]).every((vd) => this.fn.declOf.get(vd)?.array?.space === 'shared')));
    if (parts.length === 1 && 'node' in parts[0]! && parts[0].node.kind === NK.For) return this.forGuard(parts[0].node);
    if (r.parts.length !== 1 || !('node' in r.parts[0]!)) return undefined;
    const s = r.parts[0].node;
    if (s.kind !== NK.If || s.ifFalse) return undefined;
    let c = s.condition as AstNode;
    while (c.kind === NK.Binary && operatorOf(c) === '&&') c = c.left;
    while (c.kind === NK.Parenthesized) c = c.expression;
    if (c.kind !== NK.Binary) return undefined;
    const op = operatorOf(c);
    if (op !== '<' && op !== '<=' && op !== '==') return undefined;
    if (!this.isThreadX(c.left) || !this.isUniform(c.right)) return undefined;
    return { op, bound: c.right };
  }

  /** `for (let i = threadIdx.x; i < E (or <= E); …)`: the loop's first test fails for threads past E. */
  private forGuard(s: AstNode): Region['guard'] {
    const init = s.initializer as AstNode | null;
    if (!init || init.kind !== NK.Variable || (init.declarations as AstNode[]).length !== 1 || !s.condition) return undefined;
    const vd = (init.declarations as AstNode[])[0]!;
    const d = this.fn.declOf.get(vd);
    if (!d || !vd.initializer || !this.isThreadX(vd.initializer as AstNode)) return undefined;
    const c = unparen(s.condition as AstNode);
    if (c.kind !== NK.Binary) return undefined;
    const op = operatorOf(c);
    if (op !== '<' && op !== '<=') return undefined;
    const left = unparen(c.left as AstNode);
    if (left.kind !== NK.Identifier || this.fn.refs.get(left) !== d || !this.isUniform(c.right)) return undefined;
    return { op, bound: c.right, loop: true };
  }

  private isThreadX(e: AstNode): boolean {
    e = unparen(e);
    if (e.kind === NK.PropertyAccess) return e.expression.kind === NK.Identifier && e.expression.text === 'threadIdx' && e.property.text === 'x' && !this.fn.refs.has(e.expression);
    if (e.kind === NK.Identifier) {
      const d = this.fn.refs.get(e);
      return !!d && d.cls === 'remat' && !!d.node?.initializer && this.isThreadX(d.node.initializer);
    }
    return false;
  }

  // --- printing ---------------------------------------------------------------------------------

  private printer(mode: PrintMode, replace?: Map<AstNode, string>, onReturn?: () => string) {
    return makePrinter(this.fe.asModule, this.fe, this.fn, { mode, replace, onReturn, proven: this.proven });
  }

  private exprText(e: AstNode, mode: PrintMode = 'block'): string { return this.fix(this.printer(mode).text(e)); }

  private fix(s: string): string { return s.split(EXIT_SLOT_EXPR).join(String(this.exitSlot)); }

  private regionFunction(r: Region): string {
    const fn = this.fn;
    const mentioned = new Set<Decl>();
    const scan = (n: AstNode) => walk(n, (x) => { if (x.kind === NK.Identifier) { const d = fn.refs.get(x); if (d) mentioned.add(d); } });
    for (const p of r.parts) scan('node' in p ? p.node : p.store.node);
    for (const call of r.replace.keys()) scan(call);
    // Values defined by the region's own statements (declarations).
    const declared = new Set<Decl>();
    for (const p of r.parts) if ('node' in p) walk(p.node, (x) => { if (x.kind === NK.VariableDeclaration) { const d = fn.declOf.get(x); if (d) declared.add(d); } });
    for (const d of declared) mentioned.add(d);
    // Rematerialized constants the region needs (and those they need), in declaration order.
    const remat = new Set<Decl>();
    const needRemat = (d: Decl) => {
      if (d.cls !== 'remat' || declared.has(d) || remat.has(d)) return;
      walk(d.node!.initializer, (x) => { if (x.kind === NK.Identifier) { const e = fn.refs.get(x); if (e) { if (e.cls === 'remat') needRemat(e); else if (e.cls === 'uniform') mentioned.add(e); } } });
      remat.add(d);
    };
    for (const d of [...mentioned]) needRemat(d);
    const context = fn.decls.filter((d) => d.cls === 'context' && mentioned.has(d));
    const split = fn.decls.filter((d) => d.cls === 'split' && mentioned.has(d) && !declared.has(d));
    const uniforms = fn.decls.filter((d) => d.cls === 'uniform' && mentioned.has(d));
    const assigned = new Set<Decl>();
    for (const p of r.parts) {
      if (!('node' in p)) continue;
      walk(p.node, (x) => {
        if (x.kind === NK.VariableDeclaration) { const d = fn.declOf.get(x); if (d) assigned.add(d); }
        if (x.kind === NK.Binary && /=$/.test(operatorOf(x)) && !/^(==|!=|===|!==|<=|>=)$/.test(operatorOf(x)) && x.left.kind === NK.Identifier) { const d = fn.refs.get(x.left); if (d) assigned.add(d); }
        if ((x.kind === NK.UnaryPostfix || x.kind === NK.UnaryPrefix) && x.operand.kind === NK.Identifier) { const d = fn.refs.get(x.operand); if (d) assigned.add(d); }
      });
    }
    for (const d of uniforms) if (assigned.has(d)) this.fail(d.node ?? fn.node, `internal: uniform '${d.name}' assigned in a region`);
    const storeBack = context.filter((d) => assigned.has(d)).map((d) => `store<${this.typeOf(d)}>(__ctxAt<${this.typeOf(d)}>(${d.slot}, __t), ${d.outName}); `).join('');
    const onReturn = () => `${storeBack}${this.exitSlot >= 0 ? `__exit(${this.exitSlot}, __t); ` : ''}`;
    const lines: string[] = [];
    for (const d of fn.decls) if (remat.has(d)) lines.push(`  ${this.mark(d.node)}`, `  const ${d.outName} = ${this.exprText(d.node!.initializer, 'region')};`);
    for (const d of context) lines.push(`  ${this.mark(d.node)}`, `  let ${d.outName}: ${this.typeOf(d)} = load<${this.typeOf(d)}>(__ctxAt<${this.typeOf(d)}>(${d.slot}, __t));`);
    for (const d of split) lines.push(`  ${this.mark(d.node)}`, `  let ${d.outName}: ${this.typeOf(d)} = <${this.typeOf(d)}>0;`);
    const replace = new Map<AstNode, string>();
    for (const [call, text] of r.replace) replace.set(call, this.collectiveResult(call, text));
    if (r.wrap) lines.push(`  ${r.wrap.open}`);
    for (const p of r.parts) {
      if ('store' in p) {
        const st = p.store;
        const v = this.fix(this.printer('region', replace, onReturn).text(st.node));
        lines.push(`  ${this.mark(st.node)}`);
        lines.push(st.bytes === 1
          ? `  store<u8>(__ctx(${st.slot}, 0) + <usize>__t, (${v}) ? 1 : 0);`
          : `  store<${st.type}>(__ctxAt<${st.type}>(${st.slot}, __t), <${st.type}>(${v}));`);
        continue;
      }
      const pr = this.printer('region', replace, onReturn);
      pr.indentLevel = 1;
      lines.push(`  ${this.mark(p.node)}`);
      pr.visitNodeAndTerminate(p.node);
      lines.push('  ' + this.fix(pr.finish()).trimEnd());
    }
    if (r.wrap) lines.push(`  ${r.wrap.close}`);
    if (storeBack) lines.push(`  ${storeBack}`);
    const params = ['__t: i32', '__tx: i32', '__ty: i32', '__tz: i32', INDEX_PARAMS, this.paramList(), ...uniforms.map((d) => `${d.outName}: ${this.typeOf(d)}`), ...this.uniformTemps.map((u) => `${u.name}: ${u.type}`)]
      .filter((x) => x).join(', ');
    (r as Region & { uniformArgs?: string }).uniformArgs = [...uniforms.map((d) => d.outName), ...this.uniformTemps.map((u) => u.name)].join(', ');
    const scalar = `${this.mark(null)}\n// region ${r.id} of ${fn.name}${this.tag}\n// @ts-ignore: decorator\n@inline function __${fn.name}${this.tag}_r${r.id}(${params}): void {\n${lines.join('\n')}\n}`;
    const x4 = this.laneForm(r, params, { remat: fn.decls.filter((d) => remat.has(d)), context, split, assigned, replace, onReturn });
    return x4 ? `${scalar}\n${this.mark(null)}\n// region ${r.id} of ${fn.name}${this.tag}, four threads at a time\n${x4}` : scalar;
  }

  /**
   * The region's x4 form (laneVector.ts), for the fast thread loop of a kernel whose threads need
   * no per-thread bookkeeping there (no exits or warp predicates, and no call of a device
   * function: those read their thread from the globals the scalar loop sets); undefined when the
   * region stays scalar.
   */
  private laneForm(r: Region, params: string, w: { remat: Decl[]; context: Decl[]; split: Decl[]; assigned: Set<Decl>; replace: Map<AstNode, string>; onReturn: () => string }): string | undefined {
    if (this.screen || r.wrap || r.preds?.length || this.exitSlot >= 0 || this.callsDeviceFunction(r, w.remat)) return undefined;
    const fn = this.fn;
    const text = laneRegionFunction({
      fn, name: `__${fn.name}${this.tag}_r${r.id}_x4`, params, parts: r.parts, remat: w.remat, context: w.context, split: w.split,
      assigned: w.assigned, collectives: r.replace, unchecked: !!this.fe.unchecked, proven: this.proven,
      typeOf: (d) => declType(this.fe, fn, d),
      valueType: (e) => valueType(this.fe, fn, e),
      scalarStatement: (n) => { const pr = this.printer('region', w.replace, w.onReturn); pr.visitNodeAndTerminate(n); return this.fix(pr.finish()).trim(); },
      scalarExpression: (n) => this.fix(this.printer('region', w.replace, w.onReturn).text(n)),
      site: (n, what) => this.fe.site(n, fn.file, what),
      mark: (n) => this.mark(n),
      moduleConst: (name) => !!this.fe.moduleConst(name),
    });
    if (text) { r.x4 = true; r.x4Text = text; }
    return text;
  }

  private collectiveResult(call: AstNode, text: string): string {
    const args = call.args as AstNode[];
    if (text.startsWith('@SHFL:')) {
      const [, helper, t, vs, as_] = text.split(':');
      const width = args[3] ? `<i32>(${this.exprText(args[3], 'region')})` : '32';
      const arg = as_ === 'U' ? `<i32>(${this.exprText(args[2]!, 'region')})` : as_;
      return `${helper}<${t}>(${vs}, ${arg}, __t, ${width})`;
    }
    if (text.startsWith('@VOTE:')) {
      const [, name, slot] = text.split(':');
      const mask = `<u32>(${this.exprText(args[0]!, 'region')})`;
      const bits = `(__ballotOf(${slot}, __t) & ${mask})`;
      if (name === '__ballot_sync') return bits;
      if (name === '__any_sync') return `(${bits} != 0)`;
      return `(${bits} == (${mask} & __activeLanes(__t, ${this.exitSlot})))`;
    }
    return text;
  }

  private itemsText(items: Item[], form: 'fast' | 'seeded', ind: string, chains = true): string {
    const out: string[] = [];
    items = writtenOut(items);
    // In the fast form, a run of shuffle regions runs a warp at a time in registers (warpChain.ts)
    // where the block's rows are whole warps; the passes below stay for other shapes. A run can
    // start only before the last region with a shuffle in its x4 form.
    const lastShuffle = form === 'fast' && chains && !this.screen
      ? items.findLastIndex((x) => x.k === 'region' && !!x.r.x4Text?.includes('__shfl')) : -1;
    for (let i = 0; i < items.length; i++) {
      const it = items[i]!;
      const chain = i <= lastShuffle ? warpChainAt(this.chainSteps(items, i), this.integerUniforms(), ind + '  ') : undefined;
      if (chain) {
        out.push(`${ind}if ((__bdx & 31) == 0) {`, chain.text, `${ind}} else {`,
          this.itemsText(items.slice(i, i + chain.length), form, ind + '  ', false), `${ind}}`);
        i += chain.length - 1;
        continue;
      }
      switch (it.k) {
        case 'region': {
          const copies = this.slotCopies(it.r);
          out.push(copies ? copies.map((c) => `${ind}memory.copy(__ctx(${c.to}, 0), __ctx(${c.from}, 0), <usize>(__bdx * __bdy * __bdz) * sizeof<${c.type}>());`).join('\n')
            : this.threadLoop(it.r, form, ind));
          break;
        }
        case 'ustmt': out.push(ind + this.mark(it.node), ind + this.uniformStatementText(it.node)); break;
        case 'code': out.push(ind + this.fix(it.text)); break;
        case 'if': {
          const c = this.condText(it.cond, form, ind);
          out.push(c.pre, `${ind}if (${c.expr}) {`, this.itemsText(it.then, form, ind + '  '), `${ind}} else {`, this.itemsText(it.else, form, ind + '  '), `${ind}}`);
          break;
        }
        case 'loop': {
          out.push(`${ind}while (true) {`);
          const cond = it.cond ? this.condText(it.cond, form, ind + '  ') : null;
          if (cond && it.condFirst) out.push(cond.pre, `${ind}  if (!(${cond.expr})) break;`);
          out.push(this.itemsText(it.body, form, ind + '  '));
          if (cond && !it.condFirst) out.push(cond.pre, `${ind}  if (!(${cond.expr})) break;`);
          out.push(this.itemsText(it.update, form, ind + '  '));
          out.push(`${ind}}`);
          break;
        }
      }
    }
    return out.filter((l) => l.trim()).join('\n');
  }

  /**
   * A uniform statement as the block prints it (a uniform declaration is predeclared at the top,
   * assigned here); printed once per statement (a print registers the sites of its accesses).
   */
  private uniformStatementText(node: AstNode): string {
    let text = this.uniformTexts.get(node);
    if (text !== undefined) return text;
    if (node.kind === NK.Variable) {
      text = this.fix((node.declarations as AstNode[]).filter((vd) => vd.initializer)
        .map((vd) => `${this.fn.declOf.get(vd)!.outName} = ${this.exprText(vd.initializer)};`).join(' '));
    } else {
      const pr = this.printer('block');
      pr.visitNodeAndTerminate(node);
      text = this.fix(pr.finish().trim());
    }
    this.uniformTexts.set(node, text);
    return text;
  }
  private readonly uniformTexts = new Map<AstNode, string>();

  /** The printed names of the kernel's block-level (uniform) variables of type i32. */
  private integerUniforms(): ReadonlySet<string> {
    return new Set([...this.uniform].filter((d) => this.typeOf(d) === 'i32').map((d) => d.outName));
  }

  /** The block-level steps from items[i] on that a warp chain may take (it stops at the first other one). */
  private chainSteps(items: Item[], i: number): ChainStep[] {
    const steps: ChainStep[] = [];
    for (const it of items.slice(i)) {
      if (it.k === 'ustmt') {
        const text = this.uniformStatementText(it.node);
        steps.push({ k: 'ustmt', lines: [this.mark(it.node), text], text });
      } else if (it.k === 'region' && (!it.r.guard || ('loop' in it.r.guard && it.r.guard.loop))) {
        // (a loop's guard only skips threads that do nothing: run for all, the region is the same)
        const copies = this.slotCopies(it.r);
        if (copies) steps.push({ k: 'copy', copies });
        else if (it.r.x4Text) steps.push({ k: 'region', x4: it.r.x4Text });
        else break;
      } else break;
    }
    return steps;
  }

  private condText(c: Cond, form: 'fast' | 'seeded', ind: string): { pre: string; expr: string } {
    if ('uniform' in c) return { pre: ind + this.mark(c.uniform), expr: this.exprText(c.uniform) };
    if ('text' in c) return { pre: '', expr: c.text };
    return { pre: this.itemsText(c.items, form, ind), expr: `__uniform(${c.slot}, ${this.exitSlot}, ${c.site})` };
  }

  /**
   * A region that only hands context values to a shuffle (`__shfl_down_sync(m, sum, …)` with
   * `sum` live across the split) copies one slot into another for every thread: one bulk copy
   * of the block's slots instead of a thread loop. Exited threads' slots are copied too; no
   * live lane reads them (CUDA leaves a shuffle from an exited lane undefined).
   */
  private slotCopies(r: Region): { from: number; to: number; type: string }[] | undefined {
    if (r.parts.length === 0 || r.replace.size > 0 || r.guard) return undefined;
    const copies: { from: number; to: number; type: string }[] = [];
    for (const p of r.parts) {
      if (!('store' in p) || p.store.bytes !== 8 || p.store.node.kind !== NK.Identifier) return undefined;
      const d = this.fn.refs.get(p.store.node);
      if (!d || d.cls !== 'context' || d.slot === undefined || this.typeOf(d) !== p.store.type) return undefined;
      copies.push({ from: d.slot, to: p.store.slot, type: p.store.type });
    }
    return copies;
  }

  private threadLoop(r: Region, form: 'fast' | 'seeded', ind: string): string {
    const uargs = (r as Region & { uniformArgs?: string }).uniformArgs ?? '';
    const args = ['__t', '__tx', '__ty', '__tz', INDEX_ARGS, this.argList(), uargs].filter((x) => x).join(', ');
    const preds = (r.preds ?? []).map((p) => `${p.negate ? '' : '!'}__pred(${p.slot}, __t)`);
    const skip = (this.exitSlot >= 0 ? `if (__exited(${this.exitSlot}, __t)) continue; ` : '') + (preds.length ? `if (${preds.join(' || ')}) continue; ` : '');
    const globals = this.threadGlobals ? 'threadIdx.x = __tx; threadIdx.y = __ty; threadIdx.z = __tz; ' : '';
    const setThread = this.hasDeviceFunctions ? '__setThread(__t); ' : '';
    const body = `${skip}${setThread}${globals}__${this.fn.name}${this.tag}_r${r.id}(${args});`;
    if (form === 'seeded') {
      return `${ind}{ const __n = beginPhase();\n${ind}  for (let __k = 0; __k < __n; __k++) {\n${ind}    const __t = threadAt(__k); const __tx = __t % __bdx; const __ty = (__t / __bdx) % __bdy; const __tz = __t / (__bdx * __bdy);\n${ind}    ${body}\n${ind}  }\n${ind}}`;
    }
    let lo = '0', hi = '__bdx';
    let mark = '';
    if (r.guard) {
      if ('bound' in r.guard) mark = `${ind}${this.mark(r.guard.bound)}\n`;
      const b = 'text' in r.guard ? r.guard.text : `<i32>(${this.exprText(r.guard.bound)})`;
      if (r.guard.op === '<') hi = `min(${b}, __bdx)`;
      else if (r.guard.op === '<=') hi = `min(${b} + 1, __bdx)`;
      else { lo = `max(${b}, 0)`; hi = `min(${b} + 1, __bdx)`; }
    }
    // Four threads at a time through the region's x4 form, the rest of the row one by one
    // (laneForm gives one only to regions whose loop skips no thread and sets no thread state).
    const x4 = r.x4
      ? `${ind}    let __tx = __xlo;\n${ind}    for (; __tx + 4 <= __xhi; __tx += 4) { const __t = __row + __tx; __${this.fn.name}${this.tag}_r${r.id}_x4(${args}); }\n${ind}    for (; __tx < __xhi; __tx++) { const __t = __row + __tx; ${body} }`
      : `${ind}    for (let __tx = __xlo; __tx < __xhi; __tx++) { const __t = __row + __tx; ${body} }`;
    return `${mark}${ind}{ const __xlo = ${lo}; const __xhi = ${hi};\n${ind}  for (let __tz = 0; __tz < __bdz; __tz++) for (let __ty = 0; __ty < __bdy; __ty++) {\n${ind}    const __row = (__tz * __bdy + __ty) * __bdx;\n${x4}\n${ind}  }\n${ind}}`;
  }
}

/** The items with each loop of a known, small trip count written out (its body and update once per trip). */
function writtenOut(items: Item[]): Item[] {
  if (!items.some((it) => it.k === 'loop' && it.trips !== undefined)) return items;
  return items.flatMap((it) => (it.k === 'loop' && it.trips !== undefined
    ? Array.from({ length: it.trips }, () => [...writtenOut(it.body), ...writtenOut(it.update)]).flat()
    : [it]));
}

/** Where a stretch of generated code comes from in the user's sources; `end` where it is known. */
interface SourceSpan { file: string; line: number; column: number; end?: { line: number; column: number } }

/** A comment naming where the generated code below it comes from: `// @line 12:5-12:30 k.ts`. */
function lineMarker(w: SourceSpan): string {
  return `// @line ${w.line}:${w.column}${w.end ? `-${w.end.line}:${w.end.column}` : ''} ${w.file}`;
}

const MARKER = /\/\/ @line (\d+):(\d+)(?:-(\d+):(\d+))? (.*)$/;

/**
 * The user's file, line and column of a place in generated source: the nearest `// @line`
 * above it (every statement printed from the user's code has one). Given the generated text at
 * the place (`token`) and the user's sources, the place is narrowed to where that text occurs
 * in the statement, when it occurs there exactly once (a name in a statement written over
 * several lines); otherwise it is the statement's start.
 */
export function mapGeneratedLine(generated: string, line: number, token?: string, sourceOf?: (file: string) => string | undefined):
  { file: string; line: number; column: number } | undefined {
  const lines = generated.split('\n');
  for (let k = Math.min(line, lines.length) - 1; k >= 0; k--) {
    const m = MARKER.exec(lines[k]!);
    if (!m) continue;
    const at = { file: m[5]!, line: Number(m[1]), column: Number(m[2]) };
    const text = token && m[3] ? sourceOf?.(at.file) : undefined;
    if (!text) return at;
    const start = offsetOf(text, at.line, at.column), end = offsetOf(text, Number(m[3]), Number(m[4]));
    const found = occurrences(text.slice(start, end), token!);
    return found.length === 1 ? positionOf(text, start + found[0]!, at.file) : at;
  }
  return undefined;
}

function offsetOf(text: string, line: number, column: number): number {
  let at = 0;
  for (let l = 1; l < line && at >= 0; l++) at = text.indexOf('\n', at) + 1 || -1;
  return at < 0 ? text.length : at + column - 1;
}

function positionOf(text: string, offset: number, file: string): { file: string; line: number; column: number } {
  const before = text.slice(0, offset);
  return { file, line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/** Where `token` occurs in `text` (a name only as a whole word). */
function occurrences(text: string, token: string): number[] {
  const t = token.trim();
  if (!t) return [];
  const word = /^[A-Za-z_$][\w$]*$/.test(t);
  const out: number[] = [];
  for (let i = text.indexOf(t); i >= 0; i = text.indexOf(t, i + 1)) {
    if (word && (/[\w$]/.test(text[i - 1] ?? '') || /[\w$]/.test(text[i + t.length] ?? ''))) continue;
    out.push(i);
  }
  return out;
}

function listOf(s: AstNode): AstNode[] { return s.kind === NK.Block ? s.statements : [s]; }

/** The plain name an assignment (`x = …`, `x += …`) or an increment (`++x`, `x--`) writes; undefined for anything else. */
function assignedName(x: AstNode): AstNode | undefined {
  const op = x.kind === NK.Binary || x.kind === NK.UnaryPostfix || x.kind === NK.UnaryPrefix ? operatorOf(x) : '';
  const target = x.kind === NK.Binary ? (/=$/.test(op) && !/^(==|!=|===|!==|<=|>=)$/.test(op) ? x.left : undefined)
    : /^(\+\+|--)$/.test(op) ? x.operand : undefined;
  return target?.kind === NK.Identifier ? target : undefined;
}
