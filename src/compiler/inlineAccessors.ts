// Accessor device functions — a single `return expression;`, CUDA's `__device__ float
// energyOf(const Single *s, int i) { return s[i].energy; }` — are written into the kernels that
// call them, source to source, before the front end reads the kernels: each call becomes its
// function's expression with the arguments in place of the parameters.
//
// Why: the range proof (rangeProof.ts) follows a kernel's own accesses, not a device function's,
// so `data[4 * i + 1]` inside energyOf stayed checked on every call however well the kernel
// bounds i. Written into the kernel, the access is the kernel's own and is proven like any other.
//
// Only where that changes nothing a kernel can observe: an array argument must name an array;
// a scalar argument may not call, assign or step anything; one the expression does not read
// exactly once, unconditionally, may not read memory or divide either (a read repeated, skipped
// or made conditional could trap, or see another value under a concurrent write, where the
// call's one read did not). An argument must have its parameter's type already (an array, its
// element type; a literal is typed by the parameter): the copy converts it explicitly
// (`<i32>(arg)`) and the result to the function's type, which must not accept what the call
// would have refused. A name the
// expression takes from the module must not be one of the calling kernel's own. The copy stays
// on the call's line, and names the device function's line (an origin) for the sites and
// diagnostics inside it. Calls in device functions, and calls these rules refuse, stay calls.

import { LK, NK, lineCol, operatorOf, textOf, walk, type AstNode, type AssemblyScript } from './ast.js';
import { applyEdits, renamingPrinter, type Edit, type InlineFunction, type InlineSource, type Origin } from './inline.js';

// Markers around an argument in the printed copy (control characters no source holds): its index.
const MARK_OPEN = '\u0001';
const MARK_SEP = '\u0002';
const MARK_CLOSE = '\u0003';

/** Rewritten sources, or undefined when no kernel calls an accessor these rules accept. */
export function inlineAccessorCalls(as: AssemblyScript, files: InlineSource[], functions: InlineFunction[], skip: ReadonlySet<string>): InlineSource[] | undefined {
  const userNames = new Set(functions.map((f) => f.name));
  // By shape first: a device function whose body is one `return expression;`.
  const shaped = new Map<string, AstNode>();
  for (const f of functions) {
    if (f.exported || skip.has(f.name) || f.returnType === 'void') continue;
    const body = f.node.body as AstNode | null;
    const stmts = (body?.statements ?? []) as AstNode[];
    if (stmts.length === 1 && stmts[0]!.kind === NK.Return && stmts[0]!.value) shaped.set(f.name, stmts[0]!.value as AstNode);
  }
  const accessors = new Map<string, { f: InlineFunction; value: AstNode; uses: Map<object, number>; conditional: boolean }>();
  for (const f of functions) {
    const value = shaped.get(f.name);
    // Its expression may call other accessors (written in, in turn, in the next round), not itself.
    const callable = new Set([...PURE_BUILTINS].filter((b) => !userNames.has(b)).concat([...shaped.keys()].filter((g) => g !== f.name)));
    if (!value || !sideEffectFree(value, false, callable)) continue;
    if (!SCALAR_RESULTS.has(f.returnType)) continue;
    const uses = new Map<object, number>();
    let conditional = false;
    walk(value, (n) => {
      if (n.kind === NK.Identifier) { const d = f.refs.get(n); if (d) uses.set(d, (uses.get(d) ?? 0) + 1); }
      if (n.kind === NK.Ternary || (n.kind === NK.Binary && /^(&&|\|\|)$/.test(operatorOf(n)))) conditional = true;
    });
    accessors.set(f.name, { f, value, uses, conditional });
  }
  if (accessors.size === 0) return undefined;
  const pureBuiltins = new Set([...PURE_BUILTINS].filter((b) => !userNames.has(b)));
  const Printer = renamingPrinter(as);
  const edits = new Map<string, Edit[]>();
  for (const k of functions.filter((x) => x.exported)) {
    const own = new Set<string>();
    for (const d of k.declOf.values()) own.add((d as { name: string }).name);
    for (const p of k.params) own.add(p.name);
    walk(k.node.body, (call) => {
      if (call.kind !== NK.Call || call.expression.kind !== NK.Identifier || k.refs.has(call.expression)) return undefined;
      const a = accessors.get(call.expression.text as string);
      const args = call.args as AstNode[];
      if (!a || args.length !== a.f.params.length) return undefined;
      const replace = new Map<object, string>();
      for (let i = 0; i < args.length; i++) {
        const p = a.f.params[i]!, arg = args[i]!;
        if (p.array) {
          // An array of the parameter's element type: another would be a type error of the call.
          const d = arg.kind === NK.Identifier ? k.refs.get(arg) : undefined;
          if (!d || !k.isArray(d) || k.elemOf(d) === undefined || k.elemOf(d) !== a.f.elemOf(p.decl)) return undefined;
          replace.set(p.decl, arg.text as string);
        } else {
          // A value of the parameter's type (or a literal, typed by it): the conversion the copy
          // writes must not accept what the call would have refused.
          const wide = /^([iu](32|64)|f(32|64))$/.test(p.typeText ?? '');
          const literal = wide && arg.kind === NK.Literal && (arg.literalKind === LK.Integer || (arg.literalKind === LK.Float && /^f(32|64)$/.test(p.typeText!)));
          if (!literal && k.typeOf(arg) !== p.typeText) return undefined;
          // Evaluated exactly once where the call evaluated it, or else it may not read memory or
          // divide: a read or a division the copy repeats, skips or makes conditional could
          // trap (or see another value) where the call did not.
          const once = a.uses.get(p.decl) === 1 && !a.conditional;
          if (!p.typeText || !sideEffectFree(arg, !once, pureBuiltins)) return undefined;
          replace.set(p.decl, `(<${p.typeText}>(${MARK_OPEN}${i}${MARK_SEP}${textOf(arg)}${MARK_CLOSE}))`);
        }
      }
      // A module name the expression uses must mean the same in the kernel.
      let shadowed = false;
      walk(a.value, (n) => { if (n.kind === NK.Identifier && !a.f.refs.has(n) && own.has(n.text as string)) shadowed = true; });
      if (shadowed) return undefined;
      const pr = new Printer(a.f, replace);
      pr.visitNode(a.value);
      // The expression names the device function's line; each argument in it, its own.
      const marked = `(<${a.f.returnType}>(${pr.finish().replace(/\s*\n\s*/g, ' ').trim()}))`;
      const at = lineCol(a.value);
      const origins: Origin[] = [];
      let text = '';
      for (const piece of marked.split(MARK_OPEN)) {
        const close = piece.indexOf(MARK_CLOSE);
        if (close < 0) { text += piece; continue; }
        const [i, rest] = [Number(piece.slice(0, piece.indexOf(MARK_SEP))), piece.slice(close + 1)];
        const argText = piece.slice(piece.indexOf(MARK_SEP) + 1, close);
        const where = lineCol(args[i]!);
        origins.push({ start: text.length, end: text.length + argText.length, file: k.file, line: where.line, column: where.column });
        text += argText + rest;
      }
      origins.unshift({ start: 0, end: text.length, file: a.f.file, line: at.line, column: at.column });
      (edits.get(k.file) ?? edits.set(k.file, []).get(k.file)!).push({ start: call.range.start, end: call.range.end, text, origins });
      return false; // (its arguments hold no calls: nothing nested to rewrite)
    });
  }
  if (edits.size === 0) return undefined;
  return files.map((f) => applyEdits(f, edits.get(f.path) ?? []));
}

/** No call (but of `callable`), assignment or step (`++`, `--`) in e; `strict`: no element read and no division either. */
function sideEffectFree(e: AstNode, strict: boolean, callable: ReadonlySet<string>): boolean {
  let ok = true;
  walk(e, (n) => {
    const callee = n.kind === NK.Call && n.expression.kind === NK.Identifier ? n.expression.text as string : undefined;
    if (n.kind === NK.Call && !(callee && callable.has(callee))) ok = false;
    else if (n.kind === NK.Binary && /^(=|[-+*/%&|^]=|<<=|>>>?=|\*\*=)$/.test(operatorOf(n))) ok = false;
    else if ((n.kind === NK.UnaryPrefix || n.kind === NK.UnaryPostfix) && /^(\+\+|--)$/.test(operatorOf(n))) ok = false;
    else if (strict && (n.kind === NK.ElementAccess || (n.kind === NK.Binary && /^[/%]$/.test(operatorOf(n))))) ok = false;
    return ok ? undefined : false;
  });
  return ok;
}

/** The result types an accessor may have (its copy converts to it). */
const SCALAR_RESULTS: ReadonlySet<string> = new Set(['i32', 'u32', 'f32', 'f64', 'i64', 'u64', 'bool', 'i8', 'u8', 'i16', 'u16', 'isize', 'usize']);

/** Builtins without side effects an accessor's expression may call (its reads are element accesses). */
const PURE_BUILTINS: ReadonlySet<string> = new Set(['reinterpret', 'min', 'max', 'abs', 'select', 'i32', 'u32', 'f32', 'f64', 'i64', 'u64', 'bool', 'i8', 'u8', 'i16', 'u16']);
