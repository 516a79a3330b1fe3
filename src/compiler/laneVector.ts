// A region's x4 form: four consecutive threads of a row in the lanes of wasm SIMD vectors (the
// block form's "SIMD thread loops"; PoCL and ISPC vectorise work-item loops the same way). The
// fast thread loop runs a region four threads at a time through it, and the threads left over
// (fewer than four at the end of a row) through the scalar region function.
//
// Within a region no thread waits for another, so running four threads statement by statement
// instead of one after the other changes nothing a race-free kernel can see. The translation:
//   - each value is *uniform* (the same in the four lanes: a scalar, printed as the scalar
//     form prints it), *affine* (lane k holds base + k: a scalar base; threadIdx.x and consts
//     computed from it) or *varying* (a v128: i32x4 for i32, u32 and bool — a lane of a bool is
//     0 or -1 —, f32x4 for f32);
//   - a[i] with an affine index is one v128 load or store (runtime/lanes.ts checks its first and
//     last element, and lane by lane in thread order when one is outside, so the trap names the
//     same thread as the scalar loop); with a varying index it is one access when the lanes
//     happen to be contiguous, else four;
//   - vector code always runs with its four lanes active: an `if` or loop whose condition
//     differs between the lanes runs the vector code where all four agree and, where they do not,
//     the scalar statement once per lane in thread order (its varying values taken out of and
//     put back into their lanes). A statement the translation does not cover (an atomic, a device
//     function call, an integer division, a narrow element type, …) runs per lane the same way.
// A region is left scalar when it returns, or when a value that differs between threads has a
// type other than i32, u32, f32 or bool.

import { type AstNode, NK, operatorOf, textOf, unparen, walk } from './ast.js';
import { matchConditionalAssign, matchMinMax, type MinMax } from './minmax.js';
import type { Decl, FunctionInfo } from './frontend.js';
import { ATOMICS } from './language.js';

/** The vector value types: a lane of i32x4 (i32, u32, bool masks) or f32x4 (f32). */
type VT = 'i32' | 'u32' | 'f32' | 'bool';
const VECTOR_TYPES = new Set<string>(['i32', 'u32', 'f32', 'bool']);
/** The lane type an 8- or 16-bit integer is loaded into. */
const NARROW: Record<string, VT | undefined> = { i8: 'i32', i16: 'i32', u8: 'u32', u16: 'u32' };

type Kind = 'u' | 'a' | 'v';

/** A construct the vector form does not cover: the statement holding it runs per lane. */
class Unsupported extends Error {}

/** What the x4 form needs from the compiler that printed the scalar region. */
export interface LaneRegionInput {
  fn: FunctionInfo;
  /** The x4 function's name and its parameter list (the scalar region function's). */
  name: string;
  params: string;
  parts: ({ node: AstNode } | { store: { slot: number; type: string; bytes: 1 | 8; node: AstNode } })[];
  /** Rematerialized consts, context values (in slots) and split values, as the scalar region declares them. */
  remat: Decl[];
  context: Decl[];
  split: Decl[];
  /** Context values the region assigns (stored back at its end). */
  assigned: Set<Decl>;
  /** Collective calls' results (`@SHFL:…` texts of the region's shuffles). */
  collectives: Map<AstNode, string>;
  unchecked: boolean;
  /** Accesses proven inside their arrays for the block (rangeProof.ts): unchecked here. */
  proven?: ReadonlySet<AstNode>;
  /** A variable's type, null when the compiler cannot infer it. */
  typeOf(d: Decl): string | null;
  valueType(e: AstNode): string | null;
  /** The scalar form's text of a statement and of an expression (region mode). */
  scalarStatement(n: AstNode): string;
  scalarExpression(n: AstNode): string;
  /** A site for a source construct (same numbering as the scalar printer's). */
  site(n: AstNode, what: string): number;
  mark(n: AstNode): string;
  moduleConst(name: string): boolean;
}

/** The x4 function of a region, or undefined when the region stays scalar. */
export function laneRegionFunction(input: LaneRegionInput): string | undefined {
  try {
    return new LaneWriter(input).write();
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

const ASSIGN_OPS = /^(=|\+=|-=|\*=|\/=|%=|&=|\|=|\^=|<<=|>>=|>>>=)$/;
const isAssign = (n: AstNode) => n.kind === NK.Binary && ASSIGN_OPS.test(operatorOf(n));
const isIncDec = (n: AstNode) => (n.kind === NK.UnaryPostfix || (n.kind === NK.UnaryPrefix && /^(\+\+|--)$/.test(operatorOf(n)))) && /^(\+\+|--)$/.test(operatorOf(n));
/** The comparison codes of runtime/lanes.ts's __affAll/__affAny (lane op uniform). */
const COMPARE_CODES: Record<string, number> = { '<': 0, '<=': 1, '>': 2, '>=': 3, '==': 4, '!=': 5 };
/** `u op a` is `a MIRRORED[op] u`. */
const MIRRORED: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };
/** An element read, possibly parenthesized or cast (`data[i]`, `<i32>a[j]`). */
const elementRead = (e: AstNode): boolean => {
  e = unparen(e);
  while (e.kind === NK.Assertion) e = unparen(e.expression);
  return e.kind === NK.ElementAccess;
};
/** `if (c) continue;` (or `{ continue; }`) without an else. */
const continueIf = (s: AstNode): boolean => s.kind === NK.If && !s.ifFalse &&
  (s.ifTrue.kind === NK.Continue || (s.ifTrue.kind === NK.Block && s.ifTrue.statements.length === 1 && s.ifTrue.statements[0].kind === NK.Continue));

class LaneWriter {
  private readonly fn: FunctionInfo;
  private readonly kinds = new Map<Decl, Kind>();
  private tmp = 0;

  constructor(private readonly x: LaneRegionInput) { this.fn = x.fn; }

  /** A context value, or a split one the region did not declare: its declaration in the region is an assignment. */
  private predeclared(d: Decl): boolean { return d.cls === 'context' || (this.x.split.includes(d) && !this.declaringAssignment.has(d)); }

  /**
   * Split values that the region assigns once, in a `v = e;` among its top-level statements
   * (transpose's `x = blockIdx.y * TILE + threadIdx.x;` after the barrier): that assignment
   * declares the region's value, which then gets a kind as a declared variable does (uniform,
   * affine or vector) instead of always a vector. The region writes a split value before
   * reading it, so nothing in the region reads the value from before that statement.
   */
  private readonly declaringAssignment = new Map<Decl, AstNode>();

  /** The value that `e` is the declaring assignment of (declaringAssignment), if it is one. */
  private declaredBy(e: AstNode): Decl | undefined {
    e = unparen(e);
    if (!isAssign(e) || unparen(e.left).kind !== NK.Identifier) return undefined;
    const d = this.fn.refs.get(unparen(e.left));
    return d && this.declaringAssignment.get(d) === e ? d : undefined;
  }

  private findDeclaringAssignments(): void {
    const count = new Map<Decl, number>();
    for (const p of this.x.parts) if ('node' in p) walk(p.node, (m) => {
      const target = isAssign(m) ? unparen(m.left) : isIncDec(m) ? unparen(m.operand) : undefined;
      const d = target?.kind === NK.Identifier ? this.fn.refs.get(target) : undefined;
      if (d) count.set(d, (count.get(d) ?? 0) + 1);
    });
    for (const p of this.x.parts) {
      if (!('node' in p) || p.node.kind !== NK.Expression) continue;
      const e = unparen(p.node.expression);
      if (!isAssign(e) || operatorOf(e) !== '=' || unparen(e.left).kind !== NK.Identifier) continue;
      const d = this.fn.refs.get(unparen(e.left));
      if (d && !d.array && this.x.split.includes(d) && count.get(d) === 1 && VECTOR_TYPES.has(this.x.typeOf(d) ?? '')) this.declaringAssignment.set(d, e);
    }
  }

  // --- which values differ between lanes -------------------------------------------------------

  private kindOfDecl(d: Decl): Kind {
    const k = this.kinds.get(d);
    if (k) return k;
    if (d.param === 'scalar' || d.cls === 'uniform') return 'u';
    if (d.cls === 'context' || d.cls === 'split') return 'v';
    throw new Unsupported();
  }

  private kindOf(e: AstNode): Kind {
    switch (e.kind) {
      case NK.Literal: case NK.True: case NK.False: return 'u';
      case NK.Parenthesized: return this.kindOf(e.expression);
      case NK.Identifier: {
        const d = this.fn.refs.get(e);
        if (d) { if (d.array) throw new Unsupported(); return this.kindOfDecl(d); }
        if (e.text === 'warpSize' || e.text === 'Infinity' || e.text === 'NaN' || this.x.moduleConst(e.text)) return 'u';
        throw new Unsupported();
      }
      case NK.PropertyAccess: {
        const o = e.expression as AstNode;
        if (o.kind === NK.Identifier && !this.fn.refs.has(o)) {
          if (o.text === 'threadIdx') return e.property.text === 'x' ? 'a' : 'u';
          if (['blockIdx', 'blockDim', 'gridDim'].includes(o.text)) return 'u';
          // i32.MAX_VALUE, f32.EPSILON, …
          if (['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64'].includes(o.text) && /^[A-Z_]+$/.test(e.property.text)) return 'u';
        }
        if (o.kind === NK.Identifier && this.fn.refs.get(o)?.array && e.property.text === 'length') return 'u';
        throw new Unsupported();
      }
      case NK.ElementAccess: {
        // (a __local__ array is each thread's own: its elements differ between lanes at any index)
        const d = e.expression.kind === NK.Identifier ? this.fn.refs.get(e.expression) : undefined;
        if (d?.array?.space === 'local') return 'v';
        return this.kindOf(e.elementExpression) === 'u' ? 'u' : 'v';
      }
      case NK.Assertion: {
        const k = this.kindOf(e.expression);
        return k === 'a' && this.typeText(e.toType) !== 'i32' ? 'v' : k;
      }
      case NK.Binary: {
        if (isAssign(e)) return 'v';
        const op = operatorOf(e);
        const l = this.kindOf(e.left), r = this.kindOf(e.right);
        if (l === 'u' && r === 'u') return 'u';
        if ((op === '+' || (op === '-' && r === 'u')) && ((l === 'a' && r === 'u') || (l === 'u' && r === 'a')) && this.ownType(e) === 'i32') return 'a';
        return 'v';
      }
      case NK.UnaryPrefix: {
        if (isIncDec(e)) return 'v';
        return this.kindOf(e.operand) === 'u' ? 'u' : 'v';
      }
      case NK.Ternary: return [e.condition, e.ifThen, e.ifElse].every((x) => this.kindOf(x) === 'u') ? 'u' : 'v';
      case NK.Call: {
        if (this.x.collectives.has(e)) return 'v';
        const c = e.expression as AstNode;
        const pure = (c.kind === NK.Identifier && !this.fn.refs.has(c) && ['min', 'max', 'abs', 'sqrt', 'floor', 'ceil', 'trunc', 'nearest', 'i32', 'u32', 'f32', 'bool'].includes(c.text)) ||
          (c.kind === NK.PropertyAccess && c.expression.kind === NK.Identifier && ['Math', 'Mathf'].includes(c.expression.text));
        if (pure) return (e.args as AstNode[]).every((a) => this.kindOf(a) === 'u') ? 'u' : 'v';
        return 'v';
      }
      default: return 'v';
    }
  }

  /**
   * Kinds of the region's own variables: uniform unless a value assigned to one differs between
   * lanes or is assigned under a condition that does (a fixpoint; kinds only grow).
   */
  private classify(): void {
    const own: Decl[] = [];
    for (const d of this.x.remat) own.push(d);
    for (const p of this.x.parts) if ('node' in p) walk(p.node, (n) => {
      if (n.kind === NK.VariableDeclaration) { const d = this.fn.declOf.get(n); if (d && !d.array && !this.predeclared(d)) own.push(d); }
    });
    this.findDeclaringAssignments();
    for (const d of this.declaringAssignment.keys()) own.push(d);
    for (const d of own) this.kinds.set(d, 'u');
    const rank = { u: 0, a: 1, v: 2 } as const;
    const raise = (d: Decl, k: Kind): boolean => {
      const cur = this.kinds.get(d);
      if (cur === undefined || rank[k] <= rank[cur]) return false;
      this.kinds.set(d, k); return true;
    };
    const assignments = (d: Decl) => { let n = 0; for (const p of this.x.parts) if ('node' in p) walk(p.node, (m) => { if ((isAssign(m) && m.left.kind === NK.Identifier && this.fn.refs.get(m.left) === d) || (isIncDec(m) && m.operand.kind === NK.Identifier && this.fn.refs.get(m.operand) === d)) n++; }); return n; };
    const reassigned = new Set(own.filter((d) => assignments(d) > 0));
    const steps = this.inductionSteps(own);
    for (let changed = true; changed;) {
      changed = false;
      for (const d of this.x.remat) changed = raise(d, this.kindOf(d.node!.initializer)) || changed;
      const visit = (n: AstNode | null | undefined, varying: boolean): void => {
        if (!n) return;
        switch (n.kind) {
          case NK.VariableDeclaration: {
            const d = this.fn.declOf.get(n);
            if (d && this.kinds.has(d)) {
              let k: Kind = n.initializer ? this.kindOf(n.initializer) : 'u';
              if (varying || (k === 'a' && reassigned.has(d) && !this.inductions.has(d))) k = 'v';
              changed = raise(d, k) || changed;
            }
            if (n.initializer) visit(n.initializer, varying);
            return;
          }
          case NK.If: { const v = varying || this.kindOf(n.condition) !== 'u'; visit(n.condition, varying); visit(n.ifTrue, v); visit(n.ifFalse, v); return; }
          // A loop runs per lane from where the lanes disagree: on its condition, or on a break
          // or continue under a condition that differs between them (then all of it is varying).
          case NK.While: case NK.Do: { const v = varying || this.kindOf(n.condition) !== 'u' || this.varyingJump(n.body); visit(n.condition, v); visit(n.body, v); return; }
          case NK.For: {
            visit(n.initializer, varying);
            const v = varying || (n.condition ? this.kindOf(n.condition) !== 'u' : false) || this.varyingJump(n.body);
            visit(n.condition, v); visit(n.incrementor, v); visit(n.body, v);
            return;
          }

          case NK.Ternary: { const v = varying || this.kindOf(n.condition) !== 'u'; visit(n.condition, varying); visit(n.ifThen, v); visit(n.ifElse, v); return; }
          case NK.Binary: {
            const op = operatorOf(n);
            const declared = this.declaredBy(n);
            if (declared) {
              const k = varying ? 'v' : this.kindOf(n.right);
              changed = raise(declared, k === 'a' && this.x.typeOf(declared) !== 'i32' ? 'v' : k) || changed;
            } else if (ASSIGN_OPS.test(op) && n.left.kind === NK.Identifier) {
              const d = this.fn.refs.get(n.left);
              // (an induction variable's step keeps it affine: a uniform step, all lanes running the loop)
              if (d && this.kinds.has(d)) changed = raise(d, steps.has(n) ? (this.kindOf(n.right) !== 'u' ? 'v' : 'u') : varying || this.kindOf(n.right) !== 'u' ? 'v' : 'u') || changed;
            }
            const v = varying || ((op === '&&' || op === '||') && this.kindOf(n.left) !== 'u');
            visit(n.left, varying); visit(n.right, v);
            return;
          }
          case NK.UnaryPostfix: case NK.UnaryPrefix: {
            if (isIncDec(n) && n.operand.kind === NK.Identifier) {
              const d = this.fn.refs.get(n.operand);
              if (d && this.kinds.has(d) && varying && !steps.has(n)) changed = raise(d, 'v') || changed;
            }
            visit(n.operand, varying);
            return;
          }
          default:
            for (const [key, child] of Object.entries(n)) {
              if (key === 'range' || key === 'parent' || key.endsWith('Type') || key === 'type' || key === 'typeArguments' || key === 'decorators') continue;
              if (Array.isArray(child)) for (const c of child) { if (c && typeof c === 'object' && typeof c.kind === 'number') visit(c, varying); }
              else if (child && typeof child === 'object' && typeof (child as AstNode).kind === 'number') visit(child as AstNode, varying);
            }
        }
      };
      for (const p of this.x.parts) if ('node' in p) visit(p.node, false);
      // A loop that assigns a variable in a body that may run per lane: the variable varies.
    }
    for (const [d, k] of this.kinds) if (k === 'v' && !VECTOR_TYPES.has(this.x.typeOf(d) ?? '')) throw new Unsupported();
  }

  /**
   * Induction variables: `let i = <affine>` followed, in the same statement list, by the one loop
   * that steps it — `i += u`, `i -= u`, `i++`, `i--` or `i = i + u` with u the same in every
   * lane, as the loop's incrementor or a statement of its body's top level — and mentioned
   * nowhere else (or declared by the `for` itself). Such a variable stays affine (one scalar): the
   * vector iterations run all four lanes, and from the first iteration the lanes disagree on
   * each lane finishes the loop with its own copy, which nothing reads after the loop. Returns
   * the step expressions; fills this.inductions.
   */
  private readonly inductions = new Set<Decl>();
  private inductionSteps(own: Decl[]): Set<AstNode> {
    const steps = new Set<AstNode>();
    const ownSet = new Set(own);
    const refsOf = (root: AstNode, d: Decl): AstNode[] => { const out: AstNode[] = []; walk(root, (x) => { if (x.kind === NK.Identifier && this.fn.refs.get(x) === d) out.push(x); }); return out; };
    const stepOf = (e: AstNode, d: Decl): boolean => {
      e = unparen(e);
      const isD = (x: AstNode) => unparen(x).kind === NK.Identifier && this.fn.refs.get(unparen(x)) === d;
      if (isIncDec(e)) return isD(e.operand);
      if (!isAssign(e) || !isD(e.left)) return false;
      const op = operatorOf(e);
      if (op === '+=' || op === '-=') return !refsOf(e.right, d).length;
      if (op === '=') { const r = unparen(e.right); return r.kind === NK.Binary && operatorOf(r) === '+' && isD(r.left) && !refsOf(r.right, d).length; }
      return false;
    };
    /** The loop's step statements of d, or undefined when d is assigned anywhere else in it. */
    const loopSteps = (loop: AstNode, d: Decl): AstNode[] | undefined => {
      const allowed: AstNode[] = [];
      if (loop.kind === NK.For && loop.incrementor) allowed.push(unparen(loop.incrementor));
      const body = loop.body as AstNode;
      // A step in the body is skipped by a continue (and a break ends the loop early) in some
      // lanes only: only a for's incrementor steps then.
      let jumps = false;
      walk(body, (x) => { if (x.kind === NK.For || x.kind === NK.While || x.kind === NK.Do) return false; if (x.kind === NK.Break || x.kind === NK.Continue) jumps = true; return undefined; });
      if (!jumps) for (const st of body.kind === NK.Block ? body.statements as AstNode[] : [body]) if (st.kind === NK.Expression) allowed.push(unparen(st.expression));
      const found: AstNode[] = [];
      let other = false;
      walk(loop, (x) => {
        const target = isAssign(x) ? unparen(x.left) : isIncDec(x) ? unparen(x.operand) : undefined;
        if (!target || target.kind !== NK.Identifier || this.fn.refs.get(target) !== d) return;
        if (allowed.includes(x) && stepOf(x, d)) found.push(x); else other = true;
      });
      return other ? undefined : found;
    };
    const consider = (d: Decl, loop: AstNode, outside: AstNode[]) => {
      if (!ownSet.has(d) || d.isConst || !d.node?.initializer) return;
      if (loop.kind !== NK.For && loop.kind !== NK.While) return;
      if (outside.some((n) => refsOf(n, d).length)) return;
      const found = loopSteps(loop, d);
      if (!found || found.length === 0) return;
      this.inductions.add(d);
      for (const x of found) steps.add(x);
    };
    const visitList = (list: AstNode[]) => {
      list.forEach((st, k) => {
        if (st.kind === NK.Variable) {
          for (const vd of st.declarations as AstNode[]) {
            const d = this.fn.declOf.get(vd);
            if (!d) continue;
            const refs = (n: AstNode) => refsOf(n, d).length;
            const later = list.slice(k + 1);
            const loops = later.filter((x) => (x.kind === NK.For || x.kind === NK.While) && refs(x));
            if (loops.length !== 1) continue;
            const others = [...(st.declarations as AstNode[]).filter((x) => x !== vd).map((x) => x.initializer).filter(Boolean), ...later.filter((x) => x !== loops[0])];
            consider(d, loops[0]!, others);
          }
        }
        if (st.kind === NK.For && st.initializer?.kind === NK.Variable) {
          for (const vd of st.initializer.declarations as AstNode[]) { const d = this.fn.declOf.get(vd); if (d) consider(d, st, []); }
        }
        for (const child of [st.ifTrue, st.ifFalse, st.body]) if (child) visitList(child.kind === NK.Block ? child.statements : [child]);
        if (st.kind === NK.Block) visitList(st.statements);
      });
    };
    visitList(this.x.parts.filter((p): p is { node: AstNode } => 'node' in p).map((p) => p.node));
    return steps;
  }

  /** Does a loop body break or continue under an `if` whose condition differs between the lanes? */
  private varyingJump(body: AstNode): boolean {
    let found = false;
    const visit = (n: AstNode | null | undefined, under: boolean): void => {
      if (!n || found) return;
      switch (n.kind) {
        case NK.Break: case NK.Continue: if (under) found = true; return;
        case NK.For: case NK.While: case NK.Do: return; // their own jumps
        case NK.If: { const v = under || this.kindOf(n.condition) !== 'u'; visit(n.ifTrue, v); visit(n.ifFalse, v); return; }
        case NK.Block: for (const st of n.statements as AstNode[]) visit(st, under); return;
        default: return;
      }
    };
    visit(body, false);
    return found;
  }

  // --- types ---------------------------------------------------------------------------------

  private typeText(t: AstNode | null | undefined): string | null {
    if (!t) return null;
    const s = t.range.source.text.substring(t.range.start, t.range.end).trim();
    return s;
  }

  /** An expression's own type, null for a bare literal (which takes its type from the other operand). */
  private ownType(e: AstNode): string | null {
    e = unparen(e);
    if (e.kind === NK.Literal) return null;
    if (e.kind === NK.UnaryPrefix && operatorOf(e) === '-' && unparen(e.operand).kind === NK.Literal) return null;
    if (e.kind === NK.Binary) {
      const op = operatorOf(e);
      if (/^(==|!=|===|!==|<|>|<=|>=|&&|\|\|)$/.test(op)) return 'bool';
      if (/^(<<|>>|>>>)$/.test(op)) return this.ownType(e.left);
      const l = this.ownType(e.left), r = this.ownType(e.right);
      if (l && r && l !== r) throw new Unsupported();
      return l ?? r;
    }
    if (e.kind === NK.Identifier) {
      const d = this.fn.refs.get(e);
      if (d && this.kinds.has(d) && this.kinds.get(d) !== 'u') return this.x.typeOf(d);
    }
    return this.x.valueType(e);
  }

  /**
   * ownType, with an 8- or 16-bit integer read as its i32/u32 lane where e is a load, a variable
   * or a constant (its value extended, as AssemblyScript extends it); the result of arithmetic
   * on narrow types (which AssemblyScript wraps to their width) keeps its narrow type: not a lane.
   */
  private ownLane(e: AstNode): string | null {
    const t = this.ownType(e);
    const u = unparen(e);
    if ((u.kind === NK.ElementAccess || u.kind === NK.Identifier) && t && NARROW[t]) return NARROW[t]!;
    return t;
  }

  private vt(t: string | null): VT {
    if (t === null || !VECTOR_TYPES.has(t)) throw new Unsupported();
    return t as VT;
  }

  // --- expressions -----------------------------------------------------------------------------

  private name(d: Decl): string {
    const k = this.kindOfDecl(d);
    return k === 'u' ? d.outName : k === 'a' ? `${d.outName}__a` : `${d.outName}__v`;
  }

  /** Lane 0's value of an affine expression (lane k holds it + k). */
  private affine(e: AstNode): string {
    switch (e.kind) {
      case NK.Parenthesized: return `(${this.affine(e.expression)})`;
      case NK.PropertyAccess: return '__tx0';
      case NK.Identifier: return this.name(this.fn.refs.get(e)!);
      case NK.Assertion: return `<i32>(${this.affine(e.expression)})`;
      case NK.Binary: {
        const op = operatorOf(e);
        const l = this.kindOf(e.left) === 'a' ? this.affine(e.left) : this.uniform(e.left);
        const r = this.kindOf(e.right) === 'a' ? this.affine(e.right) : this.uniform(e.right);
        return `(<i32>(${l}) ${op} <i32>(${r}))`;
      }
      default: throw new Unsupported();
    }
  }

  private uniform(e: AstNode): string { return this.x.scalarExpression(e); }

  private splat(t: VT, text: string): string {
    if (t === 'f32') return `f32x4.splat(<f32>(${text}))`;
    if (t === 'bool') return `i32x4.splat(-<i32>(${text}))`;
    return `i32x4.splat(<i32>(${text}))`;
  }

  /** e as a v128 of type `want` (its own type when it has one; a literal or uniform value is splat). */
  private vec(e: AstNode, want?: VT): { text: string; t: VT } {
    const k = this.kindOf(e);
    const own = this.ownLane(e);
    if (k === 'u') { const t = want ?? this.vt(own); return { text: this.splat(t, this.uniform(e)), t }; }
    const t = this.vt(own);
    if (want && want !== t) throw new Unsupported();
    if (k === 'a') return { text: `__lanes(${this.affine(e)})`, t };
    return { text: this.varying(e, t), t };
  }

  private varying(e: AstNode, t: VT): string {
    switch (e.kind) {
      case NK.Parenthesized: return this.varying(e.expression, t);
      case NK.Identifier: return this.name(this.fn.refs.get(e)!);
      case NK.ElementAccess: return this.load(e);
      case NK.Assertion: return this.cast(e, t);
      case NK.Binary: return this.binary(e, t);
      case NK.UnaryPrefix: {
        const op = operatorOf(e);
        const v = this.vec(e.operand, op === '!' ? 'bool' : t).text;
        if (op === '-') return t === 'f32' ? `f32x4.neg(${v})` : `i32x4.neg(${v})`;
        if (op === '+') return v;
        if ((op === '!' && t === 'bool') || (op === '~' && t !== 'f32' && t !== 'bool')) return `v128.not(${v})`;
        throw new Unsupported();
      }
      case NK.Ternary: {
        const mm = matchMinMax(e.condition, e.ifThen, e.ifElse);
        if (mm) return this.minMax(mm, t);
        const c = this.mask(e.condition);
        const then = this.speculable(e.ifThen) ? this.vec(e.ifThen, t).text : this.guarded(c, () => this.vec(e.ifThen, t).text, e.ifThen);
        const other = this.speculable(e.ifElse) ? this.vec(e.ifElse, t).text : this.guarded(`v128.not(${c})`, () => this.vec(e.ifElse, t).text, e.ifElse);
        return `v128.bitselect(${then}, ${other}, ${c})`;
      }
      case NK.Call: return this.call(e, t);
      default: throw new Unsupported();
    }
  }

  private minMax(mm: MinMax, t: VT): string {
    if (t !== 'f32') throw new Unsupported();
    return `f32x4.${mm.op === '__pmax' ? 'pmax' : 'pmin'}(${this.vec(mm.a, 'f32').text}, ${this.vec(mm.b, 'f32').text})`;
  }

  /** Lanes whose loads may run (a mask text), while the right side of `&&`/`||` or a ternary's arm is printed. */
  private guard: string | null = null;

  /**
   * An expression printed with its loads limited to the lanes of `mask` (each a masked load,
   * runtime/lanes.ts __ldm4): only loads may be in it — no calls, assignments, integer
   * divisions, or loads at an index the same in every lane (printed unguarded).
   */
  private guarded(mask: string, emit: () => string, e: AstNode): string {
    let ok = true;
    walk(e, (n) => {
      if (n.kind === NK.Call || isAssign(n) || isIncDec(n)) ok = false;
      if (n.kind === NK.Binary && (operatorOf(n) === '/' || operatorOf(n) === '%') && this.ownType(n) !== 'f32') ok = false;
      if (n.kind === NK.ElementAccess && this.kindOf(n.elementExpression) === 'u') ok = false;
    });
    if (!ok) throw new Unsupported();
    const saved = this.guard;
    this.guard = saved ? `v128.and(${saved}, ${mask})` : mask;
    try { return emit(); } finally { this.guard = saved; }
  }

  /** Evaluating it in a lane where the scalar form would not changes nothing and cannot trap. */
  private speculable(e: AstNode): boolean {
    let ok = true;
    walk(e, (n) => {
      if (n.kind === NK.ElementAccess || n.kind === NK.Call || isAssign(n) || isIncDec(n)) ok = false;
      if (n.kind === NK.Binary && (operatorOf(n) === '/' || operatorOf(n) === '%')) ok = false;
    });
    return ok;
  }

  /**
   * `affine op uniform` (either order, i32): whether all four lanes and whether any lane satisfy
   * it, as scalar tests on lane 0's value (runtime/lanes.ts, __affAll/__affAny) instead of a
   * lane mask and its __all4/__any4; undefined for any other condition.
   */
  private affineTest(cond: AstNode): { all: string; any: string } | undefined {
    const e = unparen(cond);
    if (e.kind !== NK.Binary) return undefined;
    const op = operatorOf(e);
    if (!(op in COMPARE_CODES)) return undefined;
    const l = this.kindOf(e.left), r = this.kindOf(e.right);
    if (!((l === 'a' && r === 'u') || (l === 'u' && r === 'a'))) return undefined;
    const lt = this.ownLane(e.left), rt = this.ownLane(e.right);
    if ((lt && rt && lt !== rt) || this.vt(lt ?? rt) !== 'i32') return undefined;
    const [a, u, code] = l === 'a' ? [e.left, e.right, COMPARE_CODES[op]!] : [e.right, e.left, COMPARE_CODES[MIRRORED[op]!]!];
    const args = `${code}, <i32>(${this.affine(a)}), <i32>(${this.uniform(u)})`;
    return { all: `__affAll(${args})`, any: `__affAny(${args})` };
  }

  /**
   * A varying condition's two tests, whether all four lanes and whether any lane satisfy it: an
   * affine test (no vector), else a lane mask `m` declared by `decl` and tested on its sign bits.
   */
  private laneTests(cond: AstNode, m: string): { decl: string; all: string; any: string } {
    const t = this.affineTest(cond);
    return t ? { decl: '', ...t } : { decl: `const ${m} = ${this.mask(cond)};`, all: `__all4(${m})`, any: `__any4(${m})` };
  }

  /** A condition as a lane mask (0 or -1 per lane). */
  private mask(e: AstNode): string {
    const t = this.ownType(e);
    if (t === 'bool') return this.vec(e, 'bool').text;
    if (t === 'i32' || t === 'u32') return `v128.not(i32x4.eq(${this.vec(e, t).text}, i32x4.splat(0)))`;
    throw new Unsupported();
  }

  private binary(e: AstNode, t: VT): string {
    const op = operatorOf(e);
    if (op === '&&' || op === '||') {
      const left = this.mask(e.left);
      if (this.speculable(e.right)) return `v128.${op === '&&' ? 'and' : 'or'}(${left}, ${this.mask(e.right)})`;
      // The right side reads memory: only the lanes that evaluate it (left true for &&, false for ||) load.
      const right = this.guarded(op === '&&' ? left : `v128.not(${left})`, () => this.mask(e.right), e.right);
      const both = `v128.${op === '&&' ? 'and' : 'or'}(${left}, ${right})`;
      // A left side that is `affine op uniform` (`j >= 0`, `j < 0`) is tested on lane 0's value:
      // where it lets every lane evaluate the right side, that side's loads need no lane mask (a
      // masked load tests its mask and its indices' contiguity before it can load a vector).
      const at = this.affineTest(e.left);
      if (!at) return both;
      const unmasked = this.mask(e.right);
      return op === '&&' ? `(${at.all} ? ${unmasked} : ${both})` : `(!${at.any} ? ${unmasked} : ${both})`;
    }
    if (/^(==|!=|<|>|<=|>=)$/.test(op)) {
      const lt = this.ownLane(e.left), rt = this.ownLane(e.right);
      if (lt && rt && lt !== rt) throw new Unsupported();
      const ot = this.vt(lt ?? rt);
      const l = this.vec(e.left, ot).text, r = this.vec(e.right, ot).text;
      const name = { '==': 'eq', '!=': 'ne', '<': 'lt', '>': 'gt', '<=': 'le', '>=': 'ge' }[op]!;
      if (ot === 'f32') return `f32x4.${name}(${l}, ${r})`;
      if (name === 'eq' || name === 'ne') return `i32x4.${name}(${l}, ${r})`;
      if (ot === 'bool') throw new Unsupported();
      return `i32x4.${name}_${ot === 'u32' ? 'u' : 's'}(${l}, ${r})`;
    }
    if (op === '<<' || op === '>>' || op === '>>>') {
      if (t === 'f32' || t === 'bool' || this.kindOf(e.right) !== 'u') throw new Unsupported();
      const l = this.vec(e.left, t).text;
      const fn = op === '<<' ? 'shl' : op === '>>>' || t === 'u32' ? 'shr_u' : 'shr_s';
      return `i32x4.${fn}(${l}, <i32>(${this.uniform(e.right)}))`;
    }
    const l = this.vec(e.left, t).text, r = this.vec(e.right, t).text;
    if (t === 'f32') {
      const name = { '+': 'add', '-': 'sub', '*': 'mul', '/': 'div' }[op];
      if (!name) throw new Unsupported();
      return `f32x4.${name}(${l}, ${r})`;
    }
    if (t === 'bool') {
      const name = { '&': 'and', '|': 'or', '^': 'xor' }[op];
      if (!name) throw new Unsupported();
      return `v128.${name}(${l}, ${r})`;
    }
    const name = { '+': 'i32x4.add', '-': 'i32x4.sub', '*': 'i32x4.mul', '&': 'v128.and', '|': 'v128.or', '^': 'v128.xor' }[op];
    if (!name) throw new Unsupported();
    return `${name}(${l}, ${r})`;
  }

  private cast(e: AstNode, t: VT): string {
    const to = this.vt(this.typeText(e.toType));
    const from = this.vt(this.ownLane(e.expression) ?? to);
    const v = this.vec(e.expression, from).text;
    if (from === to || ((from === 'i32' || from === 'u32') && (to === 'i32' || to === 'u32'))) return v;
    if (to === 'f32' && from === 'i32') return `f32x4.convert_i32x4_s(${v})`;
    if (to === 'f32' && from === 'u32') return `f32x4.convert_i32x4_u(${v})`;
    if ((to === 'i32' || to === 'u32') && from === 'bool') return `v128.and(${v}, i32x4.splat(1))`;
    void t;
    throw new Unsupported();
  }

  private call(e: AstNode, t: VT): string {
    const coll = this.x.collectives.get(e);
    if (coll !== undefined) return this.shuffle(e, coll, t);
    const c = e.expression as AstNode;
    const args = e.args as AstNode[];
    const name = c.kind === NK.Identifier ? c.text as string
      : c.kind === NK.PropertyAccess && c.expression.kind === NK.Identifier && c.expression.text === 'Mathf' ? c.property.text as string : '';
    if (!name || (c.kind === NK.Identifier && this.fn.refs.has(c))) throw new Unsupported();
    if (c.kind === NK.Identifier && e.typeArguments?.length) {
      if (this.typeText(e.typeArguments[0]) !== t) throw new Unsupported();
    }
    if (t === 'f32') {
      if ((name === 'sqrt' || name === 'abs' || name === 'floor' || name === 'ceil' || name === 'trunc' || name === 'nearest') && args.length === 1) return `f32x4.${name}(${this.vec(args[0]!, 'f32').text})`;
      if ((name === 'min' || name === 'max') && args.length === 2) return `f32x4.${name}(${this.vec(args[0]!, 'f32').text}, ${this.vec(args[1]!, 'f32').text})`;
    }
    if ((t === 'i32' || t === 'u32') && c.kind === NK.Identifier) {
      if (name === 'abs' && t === 'i32' && args.length === 1) return `i32x4.abs(${this.vec(args[0]!, t).text})`;
      if ((name === 'min' || name === 'max') && args.length === 2) return `i32x4.${name}_${t === 'u32' ? 'u' : 's'}(${this.vec(args[0]!, t).text}, ${this.vec(args[1]!, t).text})`;
    }
    throw new Unsupported();
  }

  /** A warp shuffle whose lane argument is uniform (`@SHFL:__shflDownU:f32:0:U`). */
  private shuffle(e: AstNode, text: string, t: VT): string {
    const [, helper, type, slot, arg] = text.split(':');
    if (arg !== 'U' || !helper || !/^__shfl(Up|Down|Xor)?U$/.test(helper) || type !== t || t === 'bool') throw new Unsupported();
    const args = e.args as AstNode[];
    const width = args[3] ? `<i32>(${this.uniform(args[3])})` : '32';
    if (args[3] && this.kindOf(args[3]) !== 'u') throw new Unsupported();
    return `${helper}4<${type}>(${slot}, <i32>(${this.uniform(args[2]!)}), __t0, ${width})`;
  }

  // --- array accesses ----------------------------------------------------------------------------

  private array(target: AstNode): Decl {
    const d = target.kind === NK.Identifier ? this.fn.refs.get(target) : undefined;
    if (!d?.array || d.array.space === 'local') throw new Unsupported();
    return d;
  }

  private ptrLen(d: Decl): string { return `${this.ptrOf(d)}, ${this.lenOf(d)}`; }

  private ptrOf(d: Decl): string { return d.array!.space === 'global' ? `__p_${d.outName}` : `(__smem + <usize>${d.array!.offset})`; }

  /** An array's length in elements. */
  private lenOf(d: Decl): string {
    const a = d.array!;
    if (a.space === 'global') return `__n_${d.outName}`;
    const bytes = ({ i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, f32: 4, i64: 8, u64: 8, f64: 8 } as Record<string, number>)[a.elem] ?? 4;
    return a.dynamic ? `<i32>(__ssize / ${bytes})` : String(a.count);
  }

  private what(d: Decl, rw: 'read' | 'write'): string { return `${rw} ${d.array!.space === 'shared' ? '__shared__ ' : ''}${d.name}[]`; }

  /** The lanes' type of an element type (narrow integers are loaded into i32 lanes). */
  private elemLane(elem: string): VT {
    if (elem === 'f32') return 'f32';
    if (elem === 'i32' || elem === 'i8' || elem === 'i16') return 'i32';
    if (elem === 'u32' || elem === 'u8' || elem === 'u16') return 'u32';
    throw new Unsupported();
  }

  private index(e: AstNode): { kind: Kind; text: string; unsigned: boolean } {
    const k = this.kindOf(e);
    const t = this.ownLane(e) ?? 'i32';
    if (t !== 'i32' && t !== 'u32') throw new Unsupported();
    if (k === 'a' && t === 'i32') return { kind: 'a', text: this.affine(e), unsigned: false };
    if (k === 'u') return { kind: 'u', text: this.uniform(e), unsigned: t === 'u32' };
    return { kind: 'v', text: this.vec(e, t).text, unsigned: t === 'u32' };
  }

  /** Does the access (an element access node) keep its bounds check? */
  private checked(access: AstNode): boolean { return !this.x.unchecked && !this.x.proven?.has(access); }

  private load(e: AstNode, site?: number): string {
    const d = this.array(e.expression);
    const elem = d.array!.elem;
    this.elemLane(elem);
    const ix = this.index(e.elementExpression);
    const s = site ?? this.x.site(e, this.what(d, 'read'));
    const chk = this.checked(e) ? 'true' : 'false';
    if (ix.kind === 'u') throw new Unsupported(); // a uniform load is a uniform value (kindOf)
    if (this.guard) {
      const iv = ix.kind === 'a' ? `__lanes(<i32>(${ix.text}))` : ix.text;
      return `__ldm4<${elem}>(${this.guard}, ${chk}, ${this.ptrLen(d)}, ${iv}, ${ix.unsigned}, ${d.array!.id}, ${s}, __t0)`;
    }
    if (ix.kind === 'a') return `__ld4<${elem}>(${chk}, ${this.ptrLen(d)}, <i32>(${ix.text}), ${d.array!.id}, ${s}, __t0)`;
    return `__ldv4<${elem}>(${chk}, ${this.ptrLen(d)}, ${ix.text}, ${ix.unsigned}, ${d.array!.id}, ${s}, __t0)`;
  }

  private store(target: AstNode, value: string): string {
    const d = this.array(target.expression);
    const elem = d.array!.elem;
    if (elem !== 'i32' && elem !== 'u32' && elem !== 'f32') throw new Unsupported();
    const ix = this.index(target.elementExpression);
    if (ix.kind === 'u') throw new Unsupported(); // four lanes storing to one element: per lane, in thread order
    const s = this.x.site(target, this.what(d, 'write'));
    const chk = this.checked(target) ? 'true' : 'false';
    if (ix.kind === 'a') return `__st4<${elem}>(${chk}, ${this.ptrLen(d)}, <i32>(${ix.text}), ${d.array!.id}, ${s}, __t0, ${value});`;
    return `__stv4<${elem}>(${chk}, ${this.ptrLen(d)}, ${ix.text}, ${ix.unsigned}, ${d.array!.id}, ${s}, __t0, ${value});`;
  }

  // --- statements -----------------------------------------------------------------------------

  /** A statement in vector form, or per lane when the vector form does not cover it. */
  private statement(s: AstNode, ind: string): string {
    try {
      return this.vectorStatement(s, ind);
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      return this.perLane(s, ind);
    }
  }

  private vectorStatement(s: AstNode, ind: string): string {
    const mark = `${ind}${this.x.mark(s)}\n`;
    switch (s.kind) {
      case NK.Empty: return '';
      case NK.Block: return `${ind}{\n${this.statementList(s.statements as AstNode[], ind + '  ')}\n${ind}}`;
      case NK.Variable: return mark + (s.declarations as AstNode[]).map((vd) => this.declaration(vd)).filter((x) => x).map((x) => ind + x).join('\n');
      case NK.Expression:
        try {
          return mark + ind + this.expressionStatement(s.expression);
        } catch (e) {
          if (!(e instanceof PerLaneAtomic)) throw e;
          return mark + this.atomicOfReads(s, ind);
        }
      case NK.If: return mark + this.ifStatement(s, ind);
      case NK.While: case NK.For: return mark + this.loop(s, ind);
      default: throw new Unsupported();
    }
  }

  private declaration(vd: AstNode): string {
    const d = this.fn.declOf.get(vd);
    if (!d) throw new Unsupported();
    if (d.array) return ''; // a __shared__ declaration: laid out by the compiler
    const init = vd.initializer as AstNode | null;
    if (this.predeclared(d)) return init ? `${this.name(d)} = ${this.vec(init, this.vt(this.x.typeOf(d))).text};` : '';
    const k = this.kindOfDecl(d);
    const t = this.x.typeOf(d);
    if (k === 'u') {
      if (!t) { if (!init) throw new Unsupported(); return `let ${d.outName} = ${this.uniform(init)};`; }
      return `let ${d.outName}: ${t} = ${init ? `<${t}>(${this.uniform(init)})` : `<${t}>0`};`;
    }
    if (k === 'a') return `${this.inductions.has(d) ? 'let' : 'const'} ${d.outName}__a: i32 = ${this.affine(init!)};`;
    return `let ${d.outName}__v: v128 = ${init ? this.vec(init, this.vt(t)).text : this.splat(this.vt(t), '0')};`;
  }

  private expressionStatement(e: AstNode): string {
    e = unparen(e);
    const declared = this.declaredBy(e);
    if (declared) {
      // (where the value has no vector form, perLane runs the statement)
      const k = this.kindOfDecl(declared), t = this.x.typeOf(declared)!;
      if (k === 'u') return `const ${declared.outName}: ${t} = <${t}>(${this.uniform(e.right)});`;
      if (k === 'a') return `const ${declared.outName}__a: i32 = ${this.affine(e.right)};`;
      return `const ${declared.outName}__v: v128 = ${this.vec(e.right, this.vt(t)).text};`;
    }
    if (isAssign(e)) {
      const op = operatorOf(e);
      const target = unparen(e.left);
      if (target.kind === NK.Identifier) {
        const d = this.fn.refs.get(target);
        if (!d || d.array) throw new Unsupported();
        if (this.kindOfDecl(d) === 'u') return `${this.x.scalarExpression(e)};`;
        if (this.kindOfDecl(d) === 'a') return `${this.name(d)} = ${this.affineStep(e)};`;
        const t = this.vt(this.x.typeOf(d));
        return `${this.name(d)} = ${this.compound(op, this.name(d), e.right, t)};`;
      }
      if (target.kind === NK.ElementAccess) {
        const d = this.array(target.expression);
        const t = this.elemLane(d.array!.elem);
        const old = op === '=' ? '' : this.load(target);
        return this.store(target, op === '=' ? this.vec(e.right, t).text : this.compound(op, old, e.right, t));
      }
      throw new Unsupported();
    }
    if (e.kind === NK.Call) return this.atomicStatement(e);
    if (isIncDec(e) && unparen(e.operand).kind === NK.Identifier) {
      const d = this.fn.refs.get(unparen(e.operand));
      if (!d || d.array) throw new Unsupported();
      if (this.kindOfDecl(d) === 'u') return `${this.x.scalarExpression(e)};`;
      if (this.kindOfDecl(d) === 'a') return `${this.name(d)} = ${this.affineStep(e)};`;
      const t = this.vt(this.x.typeOf(d));
      const one = this.splat(t, '1');
      const add = t === 'f32' ? (operatorOf(e) === '++' ? 'f32x4.add' : 'f32x4.sub') : (operatorOf(e) === '++' ? 'i32x4.add' : 'i32x4.sub');
      return `${this.name(d)} = ${add}(${this.name(d)}, ${one});`;
    }
    throw new Unsupported();
  }

  /**
   * An atomic whose result is not used (`atomicAdd(bins, data[i], 1);`): its index and operands
   * as vectors, then the four atomics one by one in thread order (shared memory: plain
   * read-modify-writes, as the scalar form).
   */
  private atomicStatement(e: AstNode): string {
    const c = e.expression as AstNode;
    if (c.kind !== NK.Identifier || this.fn.refs.has(c) || !(c.text in ATOMICS)) throw new Unsupported();
    const spec = ATOMICS[c.text as string]!;
    const args = e.args as AstNode[];
    if (args.length !== 2 + spec.operands) throw new Unsupported();
    // Operands that are only element reads (`atomicAdd(bins, data[i], 1)`) are cheaper read per
    // lane with the scalar statement than loaded as a vector and taken apart lane by lane: the
    // histogram on one worker 19.2 -> 16.4 ms.
    const operands = args.slice(1);
    if (operands.some((a) => this.kindOf(a) === 'v') && operands.every((a) => this.kindOf(a) !== 'v' || elementRead(a))) throw new PerLaneAtomic();
    const d = this.array(args[0]!);
    const elem = d.array!.elem;
    if (elem !== 'i32' && elem !== 'u32' && elem !== 'f32') throw new Unsupported();
    const ix = this.index(args[1]!);
    const opType = spec.u32only ? 'u32' : elem;
    const ops = args.slice(2).map((a) => ({ t: opType as VT, v: this.vec(a, opType as VT).text }));
    const site = this.x.site(e, `${c.text} on ${d.array!.space === 'shared' ? '__shared__ ' : ''}${d.name}[]`);
    const idx = ix.kind === 'v' ? `__i${this.tmp++}` : '';
    const opNames = ops.map(() => `__o${this.tmp++}`);
    const head = [idx ? `const ${idx} = ${ix.text};` : '', ...ops.map((o, k) => `const ${opNames[k]} = ${o.v};`)].filter((x) => x).join(' ');
    const lanes: string[] = [];
    for (let k = 0; k < 4; k++) {
      const i = ix.kind === 'u' ? `<i64>(${ix.text})` : ix.kind === 'a' ? `<i64>(<i32>(${ix.text}) + ${k})`
        : `<i64>(<${ix.unsigned ? 'u32' : 'i32'}>i32x4.extract_lane(${idx}, ${k}))`;
      const operands = ops.map((o, m) => (o.t === 'f32' ? `f32x4.extract_lane(${opNames[m]}, ${k})` : `<${opType}>i32x4.extract_lane(${opNames[m]}, ${k})`)).join(', ');
      lanes.push(`${spec.helper}<${elem}>(${d.array!.space === 'shared'}, ${this.ptrLen(d)}, ${i}, ${operands}, ${d.array!.id}, ${site}, __t0 + ${k});`);
    }
    return `{ ${head} ${lanes.join(' ')} }`;
  }

  /**
   * An atomic whose per-thread arguments are all element reads at affine indices
   * (`atomicAdd(bins, data[i], 1)`): where each read's four indices are inside its array (one
   * compare per read), the four atomics in thread order with those reads unchecked; otherwise
   * the statement per lane as written, which traps as the scalar loop does. (Checking each lane's
   * read on its own cost the histogram on one worker 7-11 %.)
   */
  private atomicOfReads(s: AstNode, ind: string): string {
    const e = unparen(s.expression);
    const spec = ATOMICS[(e.expression as AstNode).text as string]!;
    const args = e.args as AstNode[];
    const d = this.array(args[0]!);
    const elem = d.array!.elem;
    const perLane = this.perLane(s, ind + '  ');
    if (elem !== 'i32' && elem !== 'u32' && elem !== 'f32') return perLane;
    const opType = spec.u32only ? 'u32' : elem;
    const inside: string[] = [];
    const lanesOf = (a: AstNode, type: string): ((k: number) => string) | undefined => {
      if (this.kindOf(a) === 'u') { const u = this.uniform(a); return () => `<${type}>(${u})`; }
      const r = unparen(a);
      if (r.kind !== NK.ElementAccess) return undefined; // (a cast around the read: per lane as written)
      const arr = this.array(r.expression);
      const ix = this.index(r.elementExpression);
      if (ix.kind !== 'a' || arr.array!.space === 'local') return undefined;
      const site = this.x.site(r, this.what(arr, 'read'));
      if (this.checked(r)) inside.push(`__inside4(<i32>(${ix.text}), ${this.lenOf(arr)})`);
      return (k) => `<${type}>(__ldu<${arr.array!.elem}>(${this.ptrLen(arr)}, <i64>(<i32>(${ix.text}) + ${k}), ${arr.array!.id}, ${site}, __t0 + ${k}))`;
    };
    const index = lanesOf(args[1]!, 'i64');
    const ops = args.slice(2).map((a) => lanesOf(a, opType));
    if (!index || ops.some((o) => !o)) return perLane;
    const site = this.x.site(e, `${(e.expression as AstNode).text} on ${d.array!.space === 'shared' ? '__shared__ ' : ''}${d.name}[]`);
    const lanes: string[] = [];
    for (let k = 0; k < 4; k++) {
      lanes.push(`${ind}    ${spec.helper}<${elem}>(${d.array!.space === 'shared'}, ${this.ptrLen(d)}, ${index(k)}, ${ops.map((o) => o!(k)).join(', ')}, ${d.array!.id}, ${site}, __t0 + ${k});`);
    }
    const test = inside.length ? inside.join(' && ') : 'true';
    return `${ind}if (${test}) {\n${lanes.join('\n')}\n${ind}} else {\n${perLane}\n${ind}}`;
  }

  /** An induction variable's step (inductionSteps): its new lane-0 value. */
  private affineStep(e: AstNode): string {
    const d = this.fn.refs.get(unparen(isIncDec(e) ? e.operand : e.left))!;
    const base = this.name(d);
    if (isIncDec(e)) return `${base} ${operatorOf(e) === '++' ? '+' : '-'} 1`;
    const op = operatorOf(e);
    if (op === '+=' || op === '-=') { if (this.kindOf(e.right) !== 'u') throw new Unsupported(); return `${base} ${op[0]} <i32>(${this.uniform(e.right)})`; }
    const r = unparen(e.right);
    if (op !== '=' || r.kind !== NK.Binary || this.kindOf(r.right) !== 'u') throw new Unsupported();
    return `${base} + <i32>(${this.uniform(r.right)})`;
  }

  /** `old op= value` as a vector expression (`=`: the value). */
  private compound(op: string, old: string, value: AstNode, t: VT): string {
    if (op === '=') return this.vec(value, t).text;
    const v = this.vec(value, t).text;
    const bare = op.slice(0, -1);
    if (t === 'f32') {
      const name = { '+': 'add', '-': 'sub', '*': 'mul', '/': 'div' }[bare];
      if (!name) throw new Unsupported();
      return `f32x4.${name}(${old}, ${v})`;
    }
    const name = { '+': 'i32x4.add', '-': 'i32x4.sub', '*': 'i32x4.mul', '&': 'v128.and', '|': 'v128.or', '^': 'v128.xor' }[bare];
    if (!name || (t === 'bool' && !['&', '|', '^'].includes(bare))) throw new Unsupported();
    return `${name}(${old}, ${v})`;
  }

  private ifStatement(s: AstNode, ind: string): string {
    const m = matchConditionalAssign(s);
    let thenText: string, whole = s;
    if (m) {
      // `if ([guard &&] a < b) x = b`: a pmax/pmin (as the scalar form), under the guard if any.
      const t = unparen(m.target);
      let assign: string;
      if (t.kind === NK.Identifier) {
        const d = this.fn.refs.get(t);
        if (!d || d.array || this.kindOfDecl(d) !== 'v' || this.x.typeOf(d) !== 'f32') throw new Unsupported();
        assign = `${this.name(d)} = ${this.minMax(m.mm, 'f32')};`;
      } else {
        const d = this.array(t.expression);
        if (d.array!.space !== 'shared' || d.array!.elem !== 'f32') throw new Unsupported();
        assign = this.store(t, this.minMax(m.mm, 'f32'));
      }
      if (!m.guard) return `${ind}{ ${assign} }`;
      thenText = `${ind}  ${assign}`;
      return this.branch(m.guard, thenText, null, whole, ind);
    }
    thenText = this.statement(s.ifTrue, ind + '  ');
    const elseText = s.ifFalse ? this.statement(s.ifFalse, ind + '  ') : null;
    return this.branch(s.condition, thenText, elseText, whole, ind);
  }

  /** An if: scalar when its condition is uniform; else the vector branch all four lanes agree on, or per lane. */
  private branch(cond: AstNode, thenText: string, elseText: string | null, whole: AstNode, ind: string): string {
    if (this.kindOf(cond) === 'u') {
      return `${ind}if (${this.uniform(cond)}) {\n${thenText}\n${ind}}${elseText !== null ? ` else {\n${elseText}\n${ind}}` : ''}`;
    }
    const t = this.laneTests(cond, `__m${this.tmp++}`);
    return `${ind}{ ${t.decl}\n${ind}  if (${t.all}) {\n${thenText}\n${ind}  } else if (!${t.any}) {\n${elseText ?? ''}\n${ind}  } else {\n${this.perLane(whole, ind + '    ')}\n${ind}  }\n${ind}}`;
  }

  /**
   * A `for` loop stepping a counter that differs between the lanes (neither uniform nor
   * consecutive) by one, whose body accesses elements at indices that differ the same way.
   */
  private ownRuns(s: AstNode): boolean {
    if (s.kind !== NK.For || !s.incrementor || !s.condition) return false;
    const inc = unparen(s.incrementor);
    const counter = isIncDec(inc) && operatorOf(inc) === '++' ? inc.operand
      : inc.kind === NK.Binary && operatorOf(inc) === '+=' && unparen(inc.right).kind === NK.Literal && textOf(unparen(inc.right)).trim() === '1' ? inc.left : undefined;
    if (!counter || counter.kind !== NK.Identifier || this.kindOf(counter) !== 'v') return false;
    let found = false;
    walk(s.body, (x) => { if (x.kind === NK.ElementAccess && this.kindOf(x.elementExpression) === 'v') found = true; });
    return found;
  }

  private loop(s: AstNode, ind: string): string {
    // Jumps: only `if (c) continue;` among the body's own statements (each lane that continues
    // skips the rest of the body; see bodyStatements); a break or a return keeps the loop per lane.
    const stmts = s.body.kind === NK.Block ? s.body.statements as AstNode[] : [s.body as AstNode];
    const continueIfs = new Set(stmts.filter((x) => continueIf(x)));
    let jumps = false;
    walk(s.body, (n) => {
      if (n.kind === NK.Break || n.kind === NK.Return) jumps = true;
      if (n.kind === NK.Continue) jumps = true;
      if (continueIfs.has(n)) return false;
      if (n.kind === NK.For || n.kind === NK.While || n.kind === NK.Do) {
        walk(n, (x) => { if (x.kind === NK.Return) jumps = true; });
        return false; // their own breaks and continues
      }
      return undefined;
    });
    if (jumps) throw new Unsupported();
    // Lanes that each step through their own run of elements (`for (i = begin; i < end; i++)`
    // over each thread's chunk, `i` not consecutive across the lanes) with element accesses at
    // such indices: per lane, each streams through its own run; together they would gather and
    // scatter one element per lane at every step (a scan's per-thread runs took 16 % longer).
    if (this.ownRuns(s)) throw new Unsupported();
    const init = s.kind === NK.For && s.initializer ? this.statement(s.initializer.kind === NK.Variable ? s.initializer : { kind: NK.Expression, expression: s.initializer, range: s.initializer.range } as AstNode, ind + '  ') : '';
    const inc = s.kind === NK.For && s.incrementor ? ind + '    ' + this.expressionStatement(s.incrementor) : '';
    const body = continueIfs.size ? this.bodyStatements(stmts, ind + '    ') : this.statement(s.body, ind + '    ');
    const cond = s.condition as AstNode | null;
    if (!cond || this.kindOf(cond) === 'u') {
      return `${ind}{\n${init}\n${ind}  while (${cond ? this.uniform(cond) : 'true'}) {\n${body}\n${inc}\n${ind}  }\n${ind}}`;
    }
    // The lanes run the loop together while all four take another iteration; from the first
    // iteration they disagree on, each finishes it on its own (in thread order).
    const rest = this.perLaneText(cond, s.body, s.kind === NK.For ? s.incrementor : null, ind + '        ');
    const t = this.laneTests(cond, `__m${this.tmp++}`);
    return `${ind}{\n${init}\n${ind}  while (true) {\n${ind}    ${t.decl}\n${ind}    if (!${t.all}) {\n${ind}      if (${t.any}) {\n${rest}\n${ind}      }\n${ind}      break;\n${ind}    }\n${body}\n${inc}\n${ind}  }\n${ind}}`;
  }

  /**
   * A loop body with `if (c) continue;` statements: at each, the lanes where c holds skip the
   * rest of the body — the vector rest when no lane does, the rest per lane for those that go on
   * when some do (their scalar text in a `do … while (false)`, where a later `continue` ends it).
   */
  private bodyStatements(list: AstNode[], ind: string, from = 0): string {
    const out: string[] = [];
    for (let k = 0; k < list.length; k++) {
      const st = list[k]!;
      const d = k >= from ? this.affineEntry(list, k) : undefined;
      if (d) { out.push(this.affineEntryLoop(list.slice(k), d, ind, (l, i) => this.bodyStatements(l, i, 1))); break; }
      if (!continueIf(st)) { out.push(this.statement(st, ind)); continue; }
      const rest = list.slice(k + 1);
      const restVector = this.bodyStatements(rest, ind + '    ');
      out.push(`${ind}${this.x.mark(st)}`);
      if (this.kindOf(st.condition) === 'u') {
        out.push(`${ind}if (!(${this.uniform(st.condition)})) {\n${restVector}\n${ind}}`);
        break;
      }
      const m = `__m${this.tmp++}`;
      const text = `do {\n${rest.map((x) => this.x.scalarStatement(x)).join('\n')}\n} while (false);`;
      const restLanes = this.lanes(rest, text, new Set(), ind + '    ', m);
      // (the lanes that go on need the mask even where an affine test decided that some do)
      const t = this.laneTests(st.condition, m);
      const laneMask = t.decl ? '' : `${ind}    const ${m} = ${this.mask(st.condition)};\n`;
      out.push(`${ind}{ ${t.decl}\n${ind}  if (!${t.any}) {\n${restVector}\n${ind}  } else if (!${t.all}) {\n${laneMask}${restLanes}\n${ind}  }\n${ind}}`);
      break;
    }
    return out.join('\n');
  }

  /** A block's statements (no jumps among them: a loop's own `if (c) continue;` is bodyStatements'). */
  private statementList(list: AstNode[], ind: string, from = 0): string {
    const out: string[] = [];
    for (let k = 0; k < list.length; k++) {
      const d = k >= from ? this.affineEntry(list, k) : undefined;
      if (d) { out.push(this.affineEntryLoop(list.slice(k), d, ind, (l, i) => this.statementList(l, i, 1))); break; }
      out.push(this.statement(list[k]!, ind));
    }
    return out.filter((x) => x).join('\n');
  }

  /**
   * `let j = <affine>; … while (<c(j)>) <steps j>; <rest>` in one statement list: j, an i32
   * declared there whose initial value is affine (lane k's is lane 0's + k), which only that loop
   * assigns (so j varies: each lane stops where its own condition fails). Returns j where list[k]
   * is such a loop.
   */
  private affineEntry(list: AstNode[], k: number): Decl | undefined {
    const s = list[k]!;
    if (s.kind !== NK.While || this.kindOf(s.condition) === 'u') return undefined;
    // (its first test runs twice where a lane enters the loop: it may only read)
    let pure = true;
    walk(s.condition, (x) => { if (x.kind === NK.Call || isAssign(x) || isIncDec(x)) pure = false; });
    if (!pure) return undefined;
    const assigns = (n: AstNode, d: Decl): boolean => {
      let found = false;
      walk(n, (x) => {
        if (isAssign(x) && unparen(x.left).kind === NK.Identifier && this.fn.refs.get(unparen(x.left)) === d) found = true;
        if (isIncDec(x) && unparen(x.operand).kind === NK.Identifier && this.fn.refs.get(unparen(x.operand)) === d) found = true;
      });
      return found;
    };
    for (let p = 0; p < k; p++) {
      const v = list[p]!;
      if (v.kind !== NK.Variable || (v.declarations as AstNode[]).length !== 1) continue;
      const vd = (v.declarations as AstNode[])[0]!;
      const d = this.fn.declOf.get(vd);
      if (!d || d.array || this.predeclared(d) || this.kinds.get(d) !== 'v' || this.x.typeOf(d) !== 'i32') continue;
      if (!vd.initializer || this.kindOf(vd.initializer as AstNode) !== 'a') continue;
      let read = false;
      walk(s.condition, (x) => { if (x.kind === NK.Identifier && this.fn.refs.get(x) === d) read = true; });
      if (!read || list.some((x, i) => i !== k && assigns(x, d))) continue;
      return d;
    }
    return undefined;
  }

  /**
   * `list` = [the loop, …rest] with j from affineEntry: the loop's first test with j affine (its
   * value is still the declaration's: lane 0's + k) — where no lane enters the loop, the rest runs
   * with j affine (`j < 0` a test of lane 0's value, `a[j]` one vector load, as for threadIdx.x);
   * else the loop and the rest as before, j a vector. CMS countModules' backward scan over invalid
   * digits (`while (j >= 0 && id[j] == invalid) --j`) enters its loop for about 1 % of the lanes.
   */
  private affineEntryLoop(list: AstNode[], d: Decl, ind: string, rest: (list: AstNode[], ind: string) => string): string {
    const s = list[0]!;
    const asVector = rest(list, ind + '    ');
    this.kinds.set(d, 'a');
    let test: { decl: string; all: string; any: string }, asAffine: string;
    try {
      test = this.laneTests(s.condition, `__m${this.tmp++}`);
      asAffine = rest(list.slice(1), ind + '    ');
    } catch (e) {
      // (the affine form of some statement is not covered: the vector form as before; a region
      // the x4 form cannot run at all was already refused by the vector form's rest)
      if (e instanceof Unsupported && !(e instanceof RegionUnsupported)) return asVector;
      throw e;
    } finally {
      this.kinds.set(d, 'v');
    }
    return `${ind}{ const ${d.outName}__a: i32 = i32x4.extract_lane(${d.outName}__v, 0);\n${ind}  ${test.decl}\n${ind}  if (!${test.any}) {\n${asAffine}\n${ind}  } else {\n${asVector}\n${ind}  }\n${ind}}`;
  }

  // --- per lane --------------------------------------------------------------------------------

  /** The rest of a loop per lane, in the scalar form (`for (; cond; incrementor) body`, so a `continue` steps). */
  private perLaneText(cond: AstNode, body: AstNode, inc: AstNode | null, ind: string): string {
    const text = `for (; ${this.x.scalarExpression(cond)}; ${inc ? this.x.scalarExpression(inc) : ''}) {\n${this.x.scalarStatement(body)}\n}`;
    return this.lanes([cond, body, ...(inc ? [inc] : [])], text, new Set(), ind);
  }

  /** A statement in the scalar form, once per lane (thread order). */
  private perLane(s: AstNode, ind: string): string {
    // A declaration run per lane declares its variable in each lane's block: the vector (or
    // scalar, when the same in every lane) it lives in afterwards is declared before them.
    const declared = new Set<Decl>();
    const pre: string[] = [];
    const byAssignment = s.kind === NK.Expression ? this.declaredBy(s.expression) : undefined;
    if (byAssignment) {
      // A value declared by this assignment, run per lane: a vector declared before the lanes,
      // which put their values into it. Nothing would declare a uniform or affine one.
      if (this.kindOfDecl(byAssignment) !== 'v') throw new RegionUnsupported();
      pre.push(`${ind}let ${byAssignment.outName}__v: v128 = ${this.splat(this.vt(this.x.typeOf(byAssignment)), '0')};`);
    }
    if (s.kind === NK.Variable) {
      for (const vd of s.declarations as AstNode[]) {
        const d = this.fn.declOf.get(vd);
        if (!d || d.array || this.predeclared(d)) continue;
        declared.add(d);
        if (this.kindOfDecl(d) !== 'v') throw new Unsupported();
        pre.push(`${ind}let ${d.outName}__v: v128 = ${this.splat(this.vt(this.x.typeOf(d)), '0')};`);
      }
    }
    let ret = false;
    walk(s, (n) => { if (n.kind === NK.Return) ret = true; });
    if (ret) throw new RegionUnsupported();
    return [...pre, this.lanes([s], this.x.scalarStatement(s), declared, ind)].join('\n');
  }

  /**
   * `text` (the scalar form of `nodes`) four times, lane k with __t and __tx of thread t0 + k and
   * the varying variables it mentions taken out of lane k (and put back when it assigns them).
   */
  private lanes(nodes: AstNode[], text: string, declaredHere: Set<Decl>, ind: string, skipMask?: string): string {
    // Variables declared inside the text live in each lane's block (those it declares at its
    // top level are put into their lanes afterwards: declaredHere).
    const inside = new Set<Decl>();
    const assigned = new Set<Decl>();
    for (const n of nodes) walk(n, (x) => {
      if (x.kind !== NK.VariableDeclaration) return;
      const d = this.fn.declOf.get(x);
      if (d && !this.predeclared(d)) inside.add(d);
      else if (d) assigned.add(d);
    });
    const mentioned = new Set<Decl>([...declaredHere, ...assigned]);
    for (const n of nodes) walk(n, (x) => {
      if (x.kind === NK.Identifier) {
        const d = this.fn.refs.get(x);
        if (d && !d.array && !inside.has(d) && (this.kinds.has(d) || this.predeclared(d))) mentioned.add(d);
      }
      if (isAssign(x) && unparen(x.left).kind === NK.Identifier) { const d = this.fn.refs.get(unparen(x.left)); if (d) assigned.add(d); }
      if (isIncDec(x) && unparen(x.operand).kind === NK.Identifier) { const d = this.fn.refs.get(unparen(x.operand)); if (d) assigned.add(d); }
    });
    // Rematerialized consts a scalar statement reads are declared at the region's start.
    for (const d of this.x.remat) if (!inside.has(d)) mentioned.add(d);
    // A uniform variable the statement assigns gets the same value in every lane: lanes 0-2 run
    // on a copy of it (starting from its value before the statement), lane 3 on the variable.
    const before: string[] = [];
    const copies = new Map<Decl, string>();
    for (const d of assigned) {
      if (declaredHere.has(d) || !this.kinds.has(d) || this.kindOfDecl(d) !== 'u' || !mentioned.has(d)) continue;
      const t = this.x.typeOf(d);
      if (!t) throw new Unsupported();
      const copy = `__u${this.tmp++}`;
      before.push(`${ind}const ${copy}: ${t} = ${d.outName};`);
      copies.set(d, `let ${d.outName}: ${t} = ${copy};`);
    }
    const blocks: string[] = [...before];
    for (let k = 0; k < 4; k++) {
      const open: string[] = [`const __t = __t0 + ${k};`, `const __tx = __tx0 + ${k};`];
      const close: string[] = [];
      for (const d of mentioned) {
        if (declaredHere.has(d)) { close.push(this.putLane(d, k)); continue; }
        const kind = this.kindOfDecl(d);
        if (kind === 'u') { if (k < 3 && copies.has(d)) open.push(copies.get(d)!); continue; }
        // (an induction variable the lanes step on their own is not read after its loop: no write-back)
        if (kind === 'a') { open.push(`${assigned.has(d) ? 'let' : 'const'} ${d.outName}: i32 = ${d.outName}__a + ${k};`); continue; }
        open.push(`let ${d.outName}: ${this.x.typeOf(d)} = ${this.lane(d, k)};`);
        if (assigned.has(d)) close.push(this.putLane(d, k));
      }
      const when = skipMask ? `if (i32x4.extract_lane(${skipMask}, ${k}) == 0) ` : '';
      blocks.push(`${ind}${when}{ ${open.join(' ')}\n${text.split('\n').map((l) => `${ind}  ${l}`).join('\n')}\n${ind}  ${close.join(' ')}\n${ind}}`);
    }
    return blocks.join('\n');
  }

  private lane(d: Decl, k: number): string {
    const t = this.vt(this.x.typeOf(d));
    const v = `${d.outName}__v`;
    if (t === 'f32') return `f32x4.extract_lane(${v}, ${k})`;
    if (t === 'bool') return `i32x4.extract_lane(${v}, ${k}) != 0`;
    return `<${t}>i32x4.extract_lane(${v}, ${k})`;
  }

  private putLane(d: Decl, k: number): string {
    const t = this.vt(this.x.typeOf(d));
    const v = `${d.outName}__v`;
    if (t === 'f32') return `${v} = f32x4.replace_lane(${v}, ${k}, ${d.outName});`;
    if (t === 'bool') return `${v} = i32x4.replace_lane(${v}, ${k}, -<i32>(${d.outName}));`;
    return `${v} = i32x4.replace_lane(${v}, ${k}, <i32>(${d.outName}));`;
  }

  // --- the function -------------------------------------------------------------------------

  write(): string {
    this.classify();
    const lines: string[] = ['  const __t0 = __t, __tx0 = __tx;'];
    for (const d of this.x.remat) {
      const init = d.node!.initializer as AstNode;
      lines.push(`  ${this.x.mark(d.node!)}`, `  ${this.declarationOf(d, init)}`);
    }
    for (const d of this.x.context) {
      const t = this.vt(this.x.typeOf(d));
      if (t === 'bool') throw new RegionUnsupported();
      lines.push(`  let ${d.outName}__v: v128 = __ctxLoad4(${d.slot}, __t0);`);
    }
    for (const d of this.x.split) if (!this.declaringAssignment.has(d)) lines.push(`  let ${d.outName}__v: v128 = ${this.splat(this.vt(this.x.typeOf(d)), '0')};`);
    for (const p of this.x.parts) {
      if ('store' in p) {
        const st = p.store;
        lines.push(`  ${this.x.mark(st.node)}`);
        if (st.bytes === 1) lines.push(`  __predStore4(${st.slot}, __t0, ${this.mask(st.node)});`);
        else if (st.type === 'bool') throw new RegionUnsupported(); // (a bool's slot holds a byte per thread)
        else lines.push(`  __ctxStore4(${st.slot}, __t0, ${this.vec(st.node, this.vt(st.type)).text});`);
        continue;
      }
      lines.push(this.statement(p.node, '  '));
    }
    for (const d of this.x.context) if (this.x.assigned.has(d)) lines.push(`  __ctxStore4(${d.slot}, __t0, ${d.outName}__v);`);
    return `// @ts-ignore: decorator\n@inline function ${this.x.name}(${this.x.params}): void {\n${lines.filter((l) => l.trim()).join('\n')}\n}`;
  }

  private declarationOf(d: Decl, init: AstNode): string {
    const k = this.kindOfDecl(d);
    if (k === 'u') return `const ${d.outName} = ${this.x.scalarExpression(init)};`;
    if (k === 'a') return `const ${d.outName}__a: i32 = ${this.affine(init)};`;
    return `const ${d.outName}__v: v128 = ${this.vec(init, this.vt(this.x.typeOf(d))).text};`;
  }
}

/** A region the x4 form cannot run at all (it returns, or keeps a bool in a context slot). */
class RegionUnsupported extends Unsupported {}
/** An atomic whose per-thread arguments are element reads: atomicOfReads, else per lane. */
class PerLaneAtomic extends Unsupported {}

