// Device functions that hold barriers, warp operations or __shared__ arrays (CUDA's block
// reduce and scan helpers: `__device__ unsigned intraBlockScan(unsigned v) { __shared__ …;
// __syncthreads(); … }`) are inlined into the kernels that call them, source to source, before
// the front end cuts the kernel at its barriers: a barrier must stand in the kernel's own
// statement list for the block form's loop fission.
//
// The call must be a statement of its own, `x = f(…)` or `const x = f(…)`; f may return only at
// its end. Each inlined copy's locals get fresh names; array parameters become the caller's
// arrays; a __shared__ array of f is one allocation per block for every call, as in CUDA
// (hoisted to the kernel's top). The copy is printed on the call's line, so the kernel's line
// numbers stay as written, and each inlined statement carries its origin (file:line:column in
// the device function), so sites and diagnostics inside it name the device function's lines.
// Calls nested in inlined bodies are inlined in the next round.

import { NK, lineCol, operatorOf, textOf, walk, type AstNode, type AssemblyScript } from './ast.js';
import { isCollective, SHARED_DECLS } from './language.js';

/** What the inliner needs of the front end's view of one function. */
export interface InlineFunction {
  node: AstNode;
  name: string;
  exported: boolean;
  file: string;
  returnType: string;
  params: { decl: object; name: string; array: boolean; typeText: string | null }[];
  /** identifier node → declaration; VariableDeclaration node → declaration. */
  refs: Map<AstNode, object>;
  declOf: Map<AstNode, object>;
  isArray(decl: object): boolean;
  /** A `__local__` array (per thread): a device function it is passed to is inlined. */
  isLocal(decl: object): boolean;
  /** An array's element type (undefined for a scalar). */
  elemOf(decl: object): string | undefined;
  /** An expression's type as the front end infers it (null when it cannot). */
  typeOf(e: AstNode): string | null;
}

export interface InlineProblem { node: AstNode; file: string; message: string }

/**
 * Where a stretch of a rewritten source came from: an inlined statement of a device function
 * (its file, line and column). Offsets are into the rewritten text; segments nest, the
 * innermost wins (a statement inlined in a later round lies inside the one it replaced).
 */
export interface Origin { start: number; end: number; file: string; line: number; column: number }

export interface InlineSource { path: string; text: string; origins?: Origin[] }

/** Rewritten sources, or problems, or undefined when no kernel calls such a function. */
export type InlineResult = { files: InlineSource[] } | { problems: InlineProblem[] } | undefined;

/** The source location of an offset of a rewritten file: its innermost origin, if any. */
export function originOf(origins: readonly Origin[] | undefined, offset: number): Origin | undefined {
  let best: Origin | undefined;
  for (const o of origins ?? []) if (o.start <= offset && offset < o.end && (!best || o.end - o.start < best.end - best.start)) best = o;
  return best;
}

export interface Edit { start: number; end: number; text: string; origins: Origin[] }

/** Applies edits (non-overlapping) to a text and its origins; new origins are relative to their edit's text. */
export function applyEdits(src: InlineSource, edits: Edit[]): InlineSource {
  let text = src.text;
  let origins = (src.origins ?? []).map((o) => ({ ...o }));
  for (const e of [...edits].sort((a, b) => b.start - a.start)) {
    const delta = e.text.length - (e.end - e.start);
    text = text.slice(0, e.start) + e.text + text.slice(e.end);
    for (const o of origins) {
      if (o.start >= e.end) { o.start += delta; o.end += delta; } else if (o.start <= e.start && o.end >= e.end) o.end += delta;
    }
    origins = origins.concat(e.origins.map((o) => ({ ...o, start: o.start + e.start, end: o.end + e.start })));
  }
  return { path: src.path, text, origins };
}

/** Device functions inlined into kernels: f (or one it calls) holds a barrier, a warp operation or a __shared__ array, or f is given a __local__ array. */
export function collectiveFunctions(functions: InlineFunction[]): Set<string> {
  const byName = new Map(functions.map((f) => [f.name, f]));
  // A device function that receives a __local__ array is inlined too: the array is the calling
  // thread's, which only the kernel's own code can address.
  const takesLocal = new Set<string>();
  for (const f of functions) {
    walk(f.node.body, (n) => {
      if (n.kind !== NK.Call || n.expression.kind !== NK.Identifier || f.refs.has(n.expression)) return;
      const g = byName.get(n.expression.text as string);
      if (!g || g.exported) return;
      for (const a of n.args as AstNode[]) {
        const d = a.kind === NK.Identifier ? f.refs.get(a) : undefined;
        if (d && f.isLocal(d)) takesLocal.add(g.name);
      }
    });
  }
  const memo = new Map<string, boolean>();
  const needs = (f: InlineFunction, seen: Set<string>): boolean => {
    const m = memo.get(f.name);
    if (m !== undefined) return m;
    if (seen.has(f.name)) return false; // recursion: reported by AS/the front end, not here
    seen.add(f.name);
    let hit = false;
    walk(f.node.body, (n) => {
      if (n.kind !== NK.Call || n.expression.kind !== NK.Identifier || f.refs.has(n.expression)) return;
      const name = n.expression.text as string;
      const g = byName.get(name);
      if (isCollective(name) || SHARED_DECLS.has(name) || (g && !g.exported && needs(g, seen))) hit = true;
    });
    if (takesLocal.has(f.name)) hit = true;
    memo.set(f.name, hit);
    return hit;
  };
  return new Set(functions.filter((f) => !f.exported && needs(f, new Set())).map((f) => f.name));
}

/** The calls of `targets` in statement s's own expressions (not in nested statements). */
function callsIn(s: AstNode, fn: InlineFunction, targets: Set<string>): AstNode[] {
  const out: AstNode[] = [];
  const exprs: (AstNode | null)[] = s.kind === NK.Expression ? [s.expression] : s.kind === NK.Variable ? (s.declarations as AstNode[]).map((d) => d.initializer)
    : s.kind === NK.Return ? [s.value] : s.kind === NK.If || s.kind === NK.While || s.kind === NK.Do ? [s.condition]
      : s.kind === NK.For ? [s.condition, s.incrementor, ...(s.initializer?.kind === NK.Variable ? (s.initializer.declarations as AstNode[]).map((d) => d.initializer) : [s.initializer?.expression ?? null])] : [];
  for (const e of exprs) walk(e, (n) => { if (n.kind === NK.Call && n.expression.kind === NK.Identifier && !fn.refs.has(n.expression) && targets.has(n.expression.text)) out.push(n); });
  return out;
}

function nested(s: AstNode): AstNode[] {
  switch (s.kind) {
    case NK.Block: return s.statements as AstNode[];
    case NK.If: return [s.ifTrue, s.ifFalse].filter(Boolean) as AstNode[];
    case NK.While: case NK.Do: return [s.body as AstNode];
    case NK.For: return [s.body as AstNode]; // (its initializer is one of the for's own expressions)
    default: return [];
  }
}

export function inlineCollectiveCalls(as: AssemblyScript, files: InlineSource[], functions: InlineFunction[]): InlineResult {
  const targets = collectiveFunctions(functions);
  if (targets.size === 0) return undefined;
  const byName = new Map(functions.map((f) => [f.name, f]));
  const problems: InlineProblem[] = [];
  const edits = new Map<string, Edit[]>();
  let copy = 0;
  for (const k of functions.filter((f) => f.exported)) {
    const hoisted = new Map<string, string>(); // shared array's new name → its declaration
    const visit = (s: AstNode | null): void => {
      if (!s) return;
      const calls = callsIn(s, k, targets);
      if (calls.length) {
        const form = statementForm(s, calls);
        if (typeof form === 'string') { problems.push({ node: calls[0]!, file: k.file, message: form }); return; }
        const f = byName.get(form.call.expression.text as string)!;
        const body = inlineBody(as, k, f, form, ++copy, hoisted, problems);
        // The statement's own `;` goes too: `if (c) v = f(v); else …` must stay one if.
        const text = s.range.source.text as string;
        let end = s.range.end;
        while (end < text.length && (text[end] === ' ' || text[end] === '\t')) end++;
        if (text[end] !== ';') end = s.range.end; else end++;
        if (body !== undefined) (edits.get(k.file) ?? edits.set(k.file, []).get(k.file)!).push({ start: s.range.start, end, text: body.text, origins: body.origins });
        return;
      }
      for (const c of nested(s)) visit(c);
    };
    for (const s of (k.node.body.statements as AstNode[])) visit(s);
    if (hoisted.size) {
      const at = (k.node.body as AstNode).range.start + 1; // after the body's `{`
      (edits.get(k.file) ?? edits.set(k.file, []).get(k.file)!).push({ start: at, end: at, text: ' ' + [...hoisted.values()].join(' '), origins: [] });
    }
  }
  if (problems.length) return { problems };
  if (edits.size === 0) return undefined;
  return { files: files.map((f) => applyEdits(f, edits.get(f.path) ?? [])) };
}

type Form = { call: AstNode; kind: 'bare' } | { call: AstNode; kind: 'assign'; target: string } | { call: AstNode; kind: 'declare'; keyword: string; name: string; type: string | null };

function statementForm(s: AstNode, calls: AstNode[]): Form | string {
  const name = calls[0]!.expression.text as string;
  const how = `'${name}' is inlined into the kernel (it holds barriers, warp operations or __shared__ memory, or is given a __local__ array): call it as a statement of its own, \`x = ${name}(…)\` or \`const x = ${name}(…)\``;
  if (calls.length > 1) return how;
  const call = calls[0]!;
  if (s.kind === NK.Expression) {
    if (s.expression === call) return { call, kind: 'bare' };
    const e = s.expression as AstNode;
    if (e.kind === NK.Binary && operatorOf(e) === '=' && e.right === call) return { call, kind: 'assign', target: textOf(e.left) };
  }
  if (s.kind === NK.Variable && (s.declarations as AstNode[]).length === 1 && s.declarations[0].initializer === call) {
    const d = s.declarations[0] as AstNode;
    return { call, kind: 'declare', keyword: (d.flags & 8) !== 0 ? 'const' : 'let', name: d.name.text as string, type: d.type ? textOf(d.type) : null };
  }
  return how;
}

/** f's body for one call, on one line, with its result stored as the form says. */
function inlineBody(as: AssemblyScript, k: InlineFunction, f: InlineFunction, form: Form, n: number, hoisted: Map<string, string>, problems: InlineProblem[]): { text: string; origins: Origin[] } | undefined {
  const args = form.call.args as AstNode[];
  if (args.length !== f.params.length) { problems.push({ node: form.call, file: k.file, message: `'${f.name}' takes ${f.params.length} arguments, got ${args.length}` }); return undefined; }
  const rename = new Map<object, string>();
  const prologue: string[] = [];
  f.params.forEach((p, i) => {
    const a = args[i]!;
    if (p.array) {
      const d = a.kind === NK.Identifier ? k.refs.get(a) : undefined;
      if (!d || !k.isArray(d)) { problems.push({ node: a, file: k.file, message: `argument ${i + 1} of '${f.name}' must be an array (parameter '${p.name}')` }); return; }
      rename.set(p.decl, a.text as string);
    } else {
      const local = `i${n}_${p.name}`;
      rename.set(p.decl, local);
      prologue.push(`let ${local}${p.typeText ? `: ${p.typeText}` : ''} = (${textOf(a)});`);
    }
  });
  const stmts = f.node.body.statements as AstNode[];
  walk(f.node.body, (x) => {
    if (x.kind === NK.Return && x !== stmts[stmts.length - 1]) problems.push({ node: x, file: f.file, message: `'${f.name}' is inlined into kernels (it holds barriers, warp operations or __shared__ memory, or is given a __local__ array): it may return only at its end` });
  });
  // Locals get fresh names; __shared__ arrays one name per function (one allocation per block).
  for (const [vd, d] of f.declOf) {
    const init = vd.initializer as AstNode | null;
    if (init?.kind === NK.Call && init.expression.kind === NK.Identifier && SHARED_DECLS.has(init.expression.text)) rename.set(d, `s_${f.name}_${vd.name.text}`);
    else rename.set(d, `i${n}_${vd.name.text}_${[...f.declOf.values()].indexOf(d)}`);
  }
  const Printer = printerClass(as);
  const pr = new Printer(f, rename, form, hoisted);
  // Each statement of f keeps its own origin (file:line:column) for sites and diagnostics.
  let text = '';
  if (form.kind === 'declare') {
    const type = form.type ?? (f.returnType !== 'void' ? f.returnType : null);
    if (!type) { problems.push({ node: form.call, file: k.file, message: `'${f.name}' returns no value` }); return undefined; }
    text = `let ${form.name}: ${type} = <${type}>0; `;
  }
  text += `{ ${prologue.join(' ')} `;
  const origins: Origin[] = [];
  for (const s of stmts) {
    pr.sb = [];
    pr.visitNodeAndTerminate(s);
    const marked = nestedOrigins(pr.finish().replace(/\s*\n\s*/g, ' ').trim(), f.file);
    const piece = marked.text;
    if (!piece || piece === ';') continue;
    const lc = lineCol(s);
    origins.push({ start: text.length, end: text.length + piece.length, file: f.file, line: lc.line, column: lc.column });
    for (const o of marked.origins) origins.push({ ...o, start: o.start + text.length, end: o.end + text.length });
    text += piece + ' ';
  }
  text += '}';
  return { text, origins };
}

interface Builder {
  sb: string[]; indentLevel: number;
  visitNode(n: AstNode): void; visitNodeAndTerminate(n: AstNode): void; finish(): string;
  visitIdentifierExpression(n: AstNode): void; visitVariableDeclaration(n: AstNode): void;
  visitVariableStatement(n: AstNode): void; visitReturnStatement(n: AstNode): void; visitTypeNode(n: AstNode): void;
  visitBlockStatement(n: AstNode): void;
}

let cached: { as: AssemblyScript; cls: ReturnType<typeof makeClass> } | undefined;
// Markers around a nested statement in the printed text (control characters no source holds).
const MARK_OPEN = '\u0001';
const MARK_SEP = '\u0002';
const MARK_CLOSE = '\u0003';

/** Strips the statement markers from printed text; each marked statement becomes an origin (offsets in the stripped text). */
function nestedOrigins(marked: string, file: string): { text: string; origins: Origin[] } {
  const origins: Origin[] = [];
  const open: { start: number; line: number; column: number }[] = [];
  let text = '';
  for (let k = 0; k < marked.length; k++) {
    const c = marked[k]!;
    if (c === MARK_OPEN) {
      const sep = marked.indexOf(MARK_SEP, k);
      const [line, column] = marked.slice(k + 1, sep).split(':').map(Number) as [number, number];
      open.push({ start: text.length, line, column });
      k = sep;
    } else if (c === MARK_CLOSE) {
      const o = open.pop()!;
      origins.push({ start: o.start, end: text.length, file, line: o.line, column: o.column });
    } else text += c;
  }
  return { text, origins };
}

function printerClass(as: AssemblyScript) {
  if (cached?.as !== as) cached = { as, cls: makeClass(as) };
  return cached.cls;
}

let renaming: { as: AssemblyScript; cls: ReturnType<typeof makeRenamingClass> } | undefined;

/** AssemblyScript's printer (ASTBuilder) that prints f's variables under the names `rename` gives them (text: a name or an expression). */
export function renamingPrinter(as: AssemblyScript) {
  if (renaming?.as !== as) renaming = { as, cls: makeRenamingClass(as) };
  return renaming.cls;
}

function makeRenamingClass(as: AssemblyScript) {
  const Base = (as as unknown as { ASTBuilder: new () => object }).ASTBuilder as unknown as new () => Builder;
  return class RenamingPrinter extends Base {
    constructor(readonly f: InlineFunction, readonly rename: Map<object, string>) { super(); }
    override visitIdentifierExpression(n: AstNode): void {
      const d = this.f.refs.get(n);
      this.sb.push(d && this.rename.has(d) ? this.rename.get(d)! : (n.text as string));
    }
  };
}

function makeClass(as: AssemblyScript) {
  return class InlinePrinter extends renamingPrinter(as) {
    constructor(f: InlineFunction, rename: Map<object, string>, private readonly form: Form, private readonly hoisted: Map<string, string>) { super(f, rename); }
    override visitVariableStatement(n: AstNode): void {
      const decls = n.declarations as AstNode[];
      const shared = decls.filter((vd) => { const i = vd.initializer as AstNode | null; return i?.kind === NK.Call && i.expression.kind === NK.Identifier && SHARED_DECLS.has(i.expression.text); });
      for (const vd of shared) {
        const name = this.rename.get(this.f.declOf.get(vd)!)!;
        if (!this.hoisted.has(name)) this.hoisted.set(name, `const ${name} = ${textOf(vd.initializer as AstNode)};`);
      }
      if (shared.length === decls.length) { this.sb.push(';'); return; }
      if (shared.length) throw new Error('internal: a __shared__ declaration shares its statement'); // the front end requires one per statement
      super.visitVariableStatement(n);
    }
    override visitVariableDeclaration(n: AstNode): void {
      const d = this.f.declOf.get(n);
      this.sb.push(d ? this.rename.get(d)! : (n.name.text as string));
      if (n.type) { this.sb.push(': '); this.visitTypeNode(n.type); }
      if (n.initializer) { this.sb.push(' = '); this.visitNode(n.initializer); }
    }
    /**
     * A nested block's statements, each between markers holding its line and column
     * (inlineBody turns them into origins): a site inside a loop of an inlined device function
     * names its own statement, not the loop's first line.
     */
    override visitBlockStatement(n: AstNode): void {
      this.sb.push('{\n');
      for (const st of n.statements as AstNode[]) {
        const lc = lineCol(st);
        this.sb.push(`${MARK_OPEN}${lc.line}:${lc.column}${MARK_SEP}`);
        this.visitNodeAndTerminate(st);
        this.sb.push(MARK_CLOSE);
      }
      this.sb.push('}');
    }
    override visitReturnStatement(n: AstNode): void {
      if (!n.value) { this.sb.push(';'); return; }
      const v = (): string => { const saved = this.sb; this.sb = []; this.visitNode(n.value); const t = this.sb.join(''); this.sb = saved; return t; };
      const form = this.form;
      if (form.kind === 'bare') this.sb.push(`${v()}`);
      else if (form.kind === 'assign') this.sb.push(`${form.target} = (${v()})`);
      else this.sb.push(`${form.name} = (${v()})`);
    }
  };
}
