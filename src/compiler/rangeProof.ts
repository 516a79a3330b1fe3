// Bounds checks proven per block: the block form runs a second, unchecked copy of a kernel for
// every block whose accesses the block's index ranges show to be inside their arrays.
//
// A checked access costs more than its compare: the transpose ran in 0.69 of its time with no
// checks at all, and most of its blocks cannot go out of bounds. Like a JIT's range-check
// elimination by loop predication, the compiler takes every array access whose index is an
// integer expression of the thread and block indices, the launch's dimensions, scalar
// parameters, array lengths, constants, 8/16-bit elements, 32-bit elements held in a local
// where the kernel's own guards bound them (`const c = channel[i]; if (c >= n) continue;`),
// clamps of values it cannot follow (`min(chunkEnd(g), n)`: bounded on the clamped side), and
// local variables defined from those (the hull of all their assignments; `for` loops' counters;
// variables stepping one way, bounded on the other side by the conditions that hold where they
// are read), and writes a function that
// evaluates, for the block about to run, an interval that holds each such index for every thread
// of the block. The intervals are computed in i64 from the block's actual values, so no
// arithmetic wraps there; each step also checks that the kernel's own 32-bit arithmetic could
// not have wrapped (else the proof fails). If every index is inside, the block runs the copy
// with those accesses unchecked, and with the bounds guards the proof also settles for the block
// (`x < width`) replaced by their values; otherwise (an edge block, a launch with short arrays)
// it runs the checked form, which traps exactly as before. Accesses whose index the analysis
// cannot follow (an unguarded value read from 32-bit memory, a shuffle, a float) stay checked
// in both copies. All or nothing per block: an access whose interval is computable but loose (a relation
// between two variables the intervals lose) sends every block to the checked form — the guards
// recover the common ones (`cacheIndex < ib && cache[cacheIndex + ib]`).

import { type AstNode, NK, LK, operatorOf, parentsOf, unparen, walk } from './ast.js';
import { isAssignOp } from './wgslModel.js';
import type { Decl, FunctionInfo } from './frontend.js';
import { INDEX_VARIABLES } from './language.js';

export interface RangeProofInput {
  fn: FunctionInfo;
  /** A variable's type (null when it cannot be inferred). */
  declType(d: Decl): string | null;
  moduleConst(name: string): { typeText: string | null; init: AstNode | null } | undefined;
  /** An expression's type as the compiler infers it (null when it cannot). */
  valueType(e: AstNode): string | null;
  /** An array's length (elements, i32) as the block form's kernel function writes it. */
  length(d: Decl): string;
}

export interface RangeProof {
  /** The array accesses (element access nodes) the proof covers: unchecked in the proven copy. */
  proven: Set<AstNode>;
  /** The proof function's body statements (after its index locals): `return false` where a check fails. */
  body: string[];
  /**
   * Bounds guards the proof also shows to be constant for the whole block (`x < width` in an
   * interior block): the proven copy is compiled with each replaced by its value (applyFolds).
   */
  folds: Fold[];
}

/** AssemblyScript's node constructors (its printer dispatches on the node classes). */
export interface NodeFactory {
  createTrueExpression(range: AstNode['range']): AstNode;
  createFalseExpression(range: AstNode['range']): AstNode;
  createParenthesizedExpression(expression: AstNode, range: AstNode['range']): AstNode;
}

/** A comparison of an `if` condition and the value it has for every thread of a proven block. */
export interface Fold { node: AstNode; value: boolean }

/**
 * An interval of i64 values (AS expressions); whether each of its leaves is a 32-bit signed
 * value; `small`: an 8/16-bit array element, whose arithmetic AssemblyScript wraps at its width
 * (only an index by itself or a conversion to 32 bits may use it).
 */
interface Iv { lo: string; hi: string; signed: boolean; small?: true }

/**
 * An integer's bounds where it may have only one (null: none): a clamp of a value the analysis
 * cannot follow — `min(chunkEnd(g), n)`, `max(x[i], 0)` — is bounded on its clamped side only.
 * `literal`: a literal ≥ 0, the same value signed or not.
 */
interface Half { lo: string | null; hi: string | null; signed: boolean; literal?: true }

/** A variable's values anywhere in the kernel: an end is null where only a guard bounds it (see useAt). */
interface VarRange {
  lo: string | null; hi: string | null; signed: boolean;
  /**
   * A value read from a 32-bit array (`const c = channel[i]`): the type's whole range, usable
   * only where guards bound its open ends (`if (c >= n) continue;` — what makes the value a
   * valid index is the kernel's own test, not where it came from).
   */
  memory?: true;
}

class Unprovable extends Error {}

const I32_MIN = '-2147483648', I32_MAX = '2147483647';
const INT_TYPES: Record<string, 'i32' | 'u32'> = { i32: 'i32', isize: 'i32', u32: 'u32', usize: 'u32' };
const SMALL_RANGES: Record<string, [number, number]> = { u8: [0, 255], i8: [-128, 127], u16: [0, 65535], i16: [-32768, 32767] };
const LOOPS: ReadonlySet<number> = new Set([NK.While, NK.For, NK.Do]);
type Rel = '<' | '<=' | '>' | '>=';
/** `a op b` is `b MIRROR[op] a`. */
const MIRROR: Record<string, Rel> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
/** `!(a op b)` is `a NEGATE[op] b`. */
const NEGATE: Record<string, Rel> = { '<': '>=', '<=': '>', '>': '<=', '>=': '<' };
const JUMPS: ReadonlySet<number> = new Set([NK.Return, NK.Continue, NK.Break]);

function contains(outer: AstNode, inner: AstNode): boolean {
  return outer.range.source === inner.range.source && outer.range.start <= inner.range.start && inner.range.end <= outer.range.end;
}

/** A `for` loop's counter: `for (let j = init; j < bound; j += step)` with j assigned nowhere else. */
interface Counter { init: AstNode; bound: AstNode; inclusive: boolean; step: AstNode | null; incrementor: AstNode }

/**
 * One assignment of a variable: `set` (a declaration's initializer, null without one: 0; `=`),
 * `inc`/`dec` (`+=`, `-=`, `++`, `--`: by `value`, or 1), `shrink` (`/=` by a positive constant,
 * `>>=`: towards 0), `other` (anything else: the variable cannot be followed).
 */
interface Assignment { node: AstNode; kind: 'set' | 'inc' | 'dec' | 'shrink' | 'other'; value: AstNode | null }

/** A condition known to hold (truth) or to fail at a point, and the code run between its test and the point. */
interface Guard { cond: AstNode; truth: boolean; scope: AstNode[]; whole?: true }

class ProofWriter {
  private readonly lines: string[] = [];
  private temps = 0;
  private readonly declRanges = new Map<Decl, VarRange | null>();
  private readonly visiting = new Set<Decl>();
  private readonly assignments = new Map<Decl, Assignment[]>();
  private readonly counters = new Map<Decl, Counter>();
  private readonly parent: Map<AstNode, AstNode>;

  constructor(private readonly x: RangeProofInput) {
    const body = x.fn.node.body as AstNode;
    this.parent = parentsOf(body);
    this.collectAssignments(body);
  }

  private collectAssignments(body: AstNode): void {
    const { fn } = this.x;
    const add = (d: Decl, a: Assignment) => this.assignments.set(d, [...(this.assignments.get(d) ?? []), a]);
    const constant = (e: AstNode): number | undefined => { const u = unparen(e); return u.kind === NK.Literal && u.literalKind === LK.Integer ? Number(BigInt.asIntN(64, u.value)) : undefined; };
    walk(body, (n) => {
      if (n.kind === NK.For) { const c = this.counterOf(n); if (c) this.counters.set(c.d, c.c); }
      if (n.kind === NK.VariableDeclaration) {
        const d = fn.declOf.get(n);
        if (d && !d.array) add(d, { node: n, kind: 'set', value: n.initializer ?? null });
      } else if (n.kind === NK.Binary && isAssignOp(operatorOf(n)) && n.left.kind === NK.Identifier) {
        const d = fn.refs.get(n.left);
        if (!d) return undefined;
        const op = operatorOf(n);
        const c = constant(n.right);
        const kind = op === '=' ? 'set' : op === '+=' ? 'inc' : op === '-=' ? 'dec'
          : (op === '/=' && c !== undefined && c >= 1) || (op === '>>=' && c !== undefined && c >= 0 && c <= 31) ? 'shrink' : 'other';
        add(d, { node: n, kind, value: n.right });
      } else if ((n.kind === NK.UnaryPostfix || n.kind === NK.UnaryPrefix) && /^(\+\+|--)$/.test(operatorOf(n)) && n.operand.kind === NK.Identifier) {
        const d = fn.refs.get(n.operand);
        if (d) add(d, { node: n, kind: operatorOf(n) === '++' ? 'inc' : 'dec', value: null });
      }
      return undefined;
    });
  }

  /** The loop's counter, if the loop has the counted shape. */
  private counterOf(loop: AstNode): { d: Decl; c: Counter } | undefined {
    const { fn } = this.x;
    const init = loop.initializer as AstNode | null;
    if (!init || init.kind !== NK.Variable || init.declarations.length !== 1) return undefined;
    const vd = init.declarations[0] as AstNode;
    const d = fn.declOf.get(vd);
    if (!d || !vd.initializer || !loop.condition || !loop.incrementor) return undefined;
    const cond = unparen(loop.condition);
    if (cond.kind !== NK.Binary) return undefined;
    const op = operatorOf(cond);
    const isD = (e: AstNode) => { const u = unparen(e); return u.kind === NK.Identifier && fn.refs.get(u) === d; };
    let bound: AstNode, inclusive: boolean;
    if ((op === '<' || op === '<=') && isD(cond.left)) { bound = cond.right; inclusive = op === '<='; }
    else if ((op === '>' || op === '>=') && isD(cond.right)) { bound = cond.left; inclusive = op === '>='; }
    else return undefined;
    const inc = unparen(loop.incrementor);
    let step: AstNode | null;
    if ((inc.kind === NK.UnaryPostfix || inc.kind === NK.UnaryPrefix) && operatorOf(inc) === '++' && isD(inc.operand)) step = null;
    else if (inc.kind === NK.Binary && operatorOf(inc) === '+=' && isD(inc.left)) step = inc.right;
    else return undefined;
    return { d, c: { init: vd.initializer, bound, inclusive, step, incrementor: inc } };
  }

  private temp(lo: string, hi: string, signed: boolean): Iv {
    const k = this.temps++;
    if (lo === hi) { this.lines.push(`const __v${k}: i64 = ${lo};`); return { lo: `__v${k}`, hi: `__v${k}`, signed }; }
    this.lines.push(`const __lo${k}: i64 = ${lo}, __hi${k}: i64 = ${hi};`);
    return { lo: `__lo${k}`, hi: `__hi${k}`, signed };
  }

  private require(cond: string): void { this.lines.push(`if (!(${cond})) return false;`); }

  /** The kernel's 32-bit arithmetic did not wrap: inside i32 (signed leaves only) or inside both i32 and u32. */
  private inRange(v: Iv): Iv {
    this.require(`${v.lo} >= ${v.signed ? I32_MIN : '0'} && ${v.hi} <= ${I32_MAX}`);
    return v;
  }

  private exact(text: string, signed = true): Iv { return { lo: text, hi: text, signed }; }

  /** fn's result, or undefined (and nothing written) when it finds something it cannot follow. */
  private attempt<T>(fn: () => T): T | undefined {
    const mark = this.lines.length, temps = this.temps;
    const saved = new Map(this.declRanges);
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof Unprovable)) throw err;
      this.lines.length = mark;
      this.temps = temps;
      this.declRanges.clear();
      for (const [k, v] of saved) this.declRanges.set(k, v);
      return undefined;
    }
  }

  /** A 32-bit operand of arithmetic (an 8/16-bit element would wrap at its own width). */
  private operand(e: AstNode, depth: number): Iv {
    const v = this.iv(e, depth + 1);
    if (v.small) throw new Unprovable();
    return v;
  }

  /**
   * An integer expression's bounds where it may have only one (Half): min/max of a value the
   * analysis cannot follow — a device function's result, an element read — keep the other
   * argument's bound on their side. Any other integer it cannot follow has no bounds (a u32's
   * lower one, 0, aside); an expression it can follow, its interval.
   */
  private half(e: AstNode, depth: number): Half {
    if (depth > 60) throw new Unprovable();
    const u = unparen(e);
    const { fn } = this.x;
    const c = u.kind === NK.Call ? u.expression as AstNode : undefined;
    const args = (u.kind === NK.Call ? u.args : []) as AstNode[];
    if (c?.kind === NK.Identifier && !fn.refs.has(c) && (c.text === 'min' || c.text === 'max') && args.length === 2) {
      const a = this.half(args[0]!, depth + 1), b = this.half(args[1]!, depth + 1);
      // AssemblyScript compares both as one type: the bounds mean the same either way only then.
      if (a.signed !== b.signed && !a.literal && !b.literal) throw new Unprovable();
      const signed = a.literal ? b.signed : b.literal ? a.signed : a.signed;
      const f = c.text;
      const both = (x: string | null, y: string | null) => (x === null || y === null ? null : `${f}(${x}, ${y})`);
      const either = (x: string | null, y: string | null) => (x === null ? y : y === null ? x : `${f}(${x}, ${y})`);
      return f === 'min' ? { lo: both(a.lo, b.lo), hi: either(a.hi, b.hi), signed } : { lo: either(a.lo, b.lo), hi: both(a.hi, b.hi), signed };
    }
    const v = this.attempt(() => this.operand(u, depth));
    if (v) {
      const literal = u.kind === NK.Literal && u.literalKind === LK.Integer && BigInt.asIntN(64, u.value) >= 0n;
      return literal ? { lo: v.lo, hi: v.hi, signed: v.signed, literal: true } : { lo: v.lo, hi: v.hi, signed: v.signed };
    }
    if (u.kind === NK.Identifier) { const d = fn.refs.get(u); if (d && !d.array) return this.halfAt(d, u); }
    const t = INT_TYPES[this.x.valueType(u) ?? ''];
    if (!t) throw new Unprovable();
    return t === 'u32' ? { lo: '<i64>0', hi: null, signed: false } : { lo: null, hi: null, signed: true };
  }

  /** A variable's bounds where `at` reads it, as useAt's but with an end left open where nothing bounds it. */
  private halfAt(d: Decl, at: AstNode): Half {
    const r = this.declRange(d);
    const g = this.guardBounds(d, at);
    // A value from memory has its type's range: bounds only in the type's own sense (u32 ≥ 0).
    let lo = r.memory && r.signed ? null : r.lo, hi = r.memory ? null : r.hi;
    for (const b of g.lo) lo = lo === null ? b : `max(${lo}, ${b})`;
    for (const b of g.hi) hi = hi === null ? b : `min(${hi}, ${b})`;
    return { lo, hi, signed: r.signed };
  }

  /** The interval of an integer expression (throws Unprovable). */
  iv(e: AstNode, depth = 0): Iv {
    if (depth > 60) throw new Unprovable();
    const rec = (n: AstNode) => this.operand(n, depth);
    const { fn } = this.x;
    switch (e.kind) {
      case NK.Parenthesized: return this.iv(e.expression, depth + 1);
      case NK.Literal: {
        if (e.literalKind !== LK.Integer) throw new Unprovable();
        const v = BigInt.asIntN(64, e.value);
        if (v < -(2n ** 31n) || v >= 2n ** 31n) throw new Unprovable();
        return this.exact(`<i64>${v}`);
      }
      case NK.Identifier: {
        const d = fn.refs.get(e);
        if (d) return this.useAt(d, e);
        if (e.text === 'warpSize') return this.exact('<i64>32');
        const c = this.x.moduleConst(e.text);
        if (c?.init && (c.typeText === null || c.typeText in INT_TYPES)) {
          const v = rec(c.init);
          return c.typeText && INT_TYPES[c.typeText] === 'u32' ? this.inRange({ ...v, signed: false }) : v;
        }
        throw new Unprovable();
      }
      case NK.PropertyAccess: {
        const o = e.expression as AstNode;
        const p = e.property.text as string;
        if (o.kind !== NK.Identifier) throw new Unprovable();
        const d = fn.refs.get(o);
        if (d?.array && p === 'length') return this.exact(`<i64>(${this.x.length(d)})`);
        if (d || !INDEX_VARIABLES.has(o.text) || !['x', 'y', 'z'].includes(p)) throw new Unprovable();
        if (o.text === 'threadIdx') return { lo: '<i64>0', hi: `(__bd${p} - 1)`, signed: true };
        return this.exact(`${o.text === 'blockIdx' ? '__bi' : o.text === 'blockDim' ? '__bd' : '__gd'}${p}`);
      }
      case NK.ElementAccess: {
        // An element of an 8/16-bit array: its type's range, whatever the element (its own index is an access of its own).
        const d = e.expression.kind === NK.Identifier ? fn.refs.get(e.expression) : undefined;
        const r = d?.array ? SMALL_RANGES[d.array.elem] : undefined;
        if (!r) throw new Unprovable();
        return { lo: `<i64>${r[0]}`, hi: `<i64>${r[1]}`, signed: true, small: true };
      }
      case NK.Assertion: {
        const t = e.toType ? INT_TYPES[(e.toType.name?.identifier?.text ?? '') as string] : undefined;
        if (!t || !e.expression) throw new Unprovable();
        const v = this.iv(e.expression, depth + 1);
        return this.inRange({ lo: v.lo, hi: v.hi, signed: v.signed && t === 'i32' });
      }
      case NK.UnaryPrefix: {
        const op = operatorOf(e);
        const v = rec(e.operand);
        if (op === '+') return v;
        if (op === '-') return this.inRange(this.temp(`-${v.hi}`, `-${v.lo}`, v.signed));
        throw new Unprovable();
      }
      case NK.Ternary: {
        const a = rec(e.ifThen), b = rec(e.ifElse);
        return this.temp(`min(${a.lo}, ${b.lo})`, `max(${a.hi}, ${b.hi})`, a.signed && b.signed);
      }
      case NK.Call: {
        const c = e.expression as AstNode;
        if (c.kind !== NK.Identifier || fn.refs.has(c)) throw new Unprovable();
        const args = e.args as AstNode[];
        if ((c.text === 'min' || c.text === 'max') && args.length === 2) {
          const both = this.attempt(() => {
            const a = rec(args[0]!), b = rec(args[1]!);
            return this.temp(`${c.text}(${a.lo}, ${b.lo})`, `${c.text}(${a.hi}, ${b.hi})`, a.signed && b.signed);
          });
          if (both) return both;
          // A value clamped on both sides, whatever it was: `min(max(x[i], 0), n - 1)`.
          const h = this.half(e, depth);
          if (h.lo === null || h.hi === null) throw new Unprovable();
          return this.temp(h.lo, h.hi, h.signed);
        }
        const t = INT_TYPES[c.text as string];
        if (t && args.length === 1) { const v = this.iv(args[0]!, depth + 1); return this.inRange({ lo: v.lo, hi: v.hi, signed: v.signed && t === 'i32' }); }
        throw new Unprovable();
      }
      case NK.Binary: return this.binary(e, depth);
      default: throw new Unprovable();
    }
  }

  private binary(e: AstNode, depth: number): Iv {
    const op = operatorOf(e);
    const a = this.operand(e.left, depth);
    const constant = (n: AstNode): number | undefined => {
      const u = unparen(n);
      if (u.kind === NK.Literal && u.literalKind === LK.Integer) return Number(BigInt.asIntN(64, u.value));
      return undefined;
    };
    const signed = (b: Iv) => a.signed && b.signed;
    const both = (b: Iv) => a.lo === a.hi && b.lo === b.hi;
    switch (op) {
      case '+': {
        const b = this.operand(e.right, depth);
        if (both(b)) return this.inRange(this.temp(`${a.lo} + ${b.lo}`, `${a.lo} + ${b.lo}`, signed(b)));
        return this.inRange(this.temp(`${a.lo} + ${b.lo}`, `${a.hi} + ${b.hi}`, signed(b)));
      }
      case '-': {
        const b = this.operand(e.right, depth);
        if (both(b)) return this.inRange(this.temp(`${a.lo} - ${b.lo}`, `${a.lo} - ${b.lo}`, signed(b)));
        return this.inRange(this.temp(`${a.lo} - ${b.hi}`, `${a.hi} - ${b.lo}`, signed(b)));
      }
      case '*': {
        const b = this.operand(e.right, depth);
        if (both(b)) return this.inRange(this.temp(`${a.lo} * ${b.lo}`, `${a.lo} * ${b.lo}`, signed(b)));
        // Both factors are inside 32 bits (every node is checked so), so the products fit in i64.
        const p = [`${a.lo} * ${b.lo}`, `${a.lo} * ${b.hi}`, `${a.hi} * ${b.lo}`, `${a.hi} * ${b.hi}`];
        return this.inRange(this.temp(`min(min(${p[0]}, ${p[1]}), min(${p[2]}, ${p[3]}))`, `max(max(${p[0]}, ${p[1]}), max(${p[2]}, ${p[3]}))`, signed(b)));
      }
      case '/': case '%': {
        const b = this.operand(e.right, depth);
        // Non-negative by positive: truncation is floor, monotonic in both.
        this.require(`${a.lo} >= 0 && ${b.lo} >= 1`);
        return op === '/'
          ? this.temp(`${a.lo} / ${b.hi}`, `${a.hi} / ${b.lo}`, signed(b))
          : this.temp('<i64>0', `min(${a.hi}, ${b.hi} - 1)`, signed(b));
      }
      case '<<': case '>>': case '>>>': {
        const c = constant(e.right);
        if (c === undefined || c < 0 || c > 31) throw new Unprovable();
        if (op === '<<') return this.inRange(this.temp(`${a.lo} << ${c}`, `${a.hi} << ${c}`, a.signed));
        if (op === '>>>' || !a.signed) this.require(`${a.lo} >= 0`);
        return this.temp(`${a.lo} >> ${c}`, `${a.hi} >> ${c}`, a.signed);
      }
      case '&': {
        const c = constant(e.right) ?? constant(e.left);
        if (c === undefined || c < 0 || c > 2 ** 31 - 1) throw new Unprovable();
        if (constant(e.right) === undefined) this.operand(e.right, depth); // (its type must be followed too)
        return this.temp('<i64>0', `${a.lo} >= 0 ? min(${a.hi}, <i64>${c}) : <i64>${c}`, a.signed);
      }
      default: throw new Unprovable();
    }
  }

  /** A variable's value where `at` reads it: its range anywhere, narrowed by the guards that hold there. */
  private useAt(d: Decl, at: AstNode): Iv {
    const r = this.declRange(d);
    if (r.lo !== null && r.lo === r.hi) return { lo: r.lo, hi: r.hi, signed: r.signed };
    const g = this.guardBounds(d, at);
    // Unguarded, a value from memory stays unprovable (checked in both copies) rather than a
    // loose interval, which would send every block to the checked form.
    if (r.memory && (g.hi.length === 0 || (r.signed && g.lo.length === 0))) throw new Unprovable();
    let lo = r.lo, hi = r.hi;
    for (const b of g.lo) lo = lo === null ? b : `max(${lo}, ${b})`;
    for (const b of g.hi) hi = hi === null ? b : `min(${hi}, ${b})`;
    if (lo === null || hi === null) throw new Unprovable();
    if (g.lo.length === 0 && g.hi.length === 0) return { lo, hi, signed: r.signed };
    return this.temp(lo, hi, r.signed);
  }

  private declRange(d: Decl): VarRange {
    if (this.declRanges.has(d)) { const v = this.declRanges.get(d); if (!v) throw new Unprovable(); return v; }
    if (this.visiting.has(d)) throw new Unprovable(); // defined from itself
    this.visiting.add(d);
    try {
      const v = this.declRangeOf(d);
      this.declRanges.set(d, v);
      return v;
    } catch (err) {
      this.declRanges.set(d, null);
      throw err;
    } finally {
      this.visiting.delete(d);
    }
  }

  /**
   * A variable's values: a parameter's; a counter's (counterInterval); the hull of its
   * assignments' values; or, where it only ever steps one way, from that hull onwards (each
   * step taken under a guard that keeps it from wrapping) — the other end then comes from the
   * guards where it is read.
   */
  private declRangeOf(d: Decl): VarRange {
    const t = this.x.declType(d);
    const type = t ? INT_TYPES[t] : undefined;
    if (!type || d.array) throw new Unprovable();
    if (d.param === 'scalar') { const v = this.inRange(this.exact(`<i64>${d.outName}`, type === 'i32')); return v; }
    if (d.param) throw new Unprovable();
    const all = this.assignments.get(d) ?? [];
    const counter = this.counters.get(d);
    if (counter) {
      if (all.length !== 2) throw new Unprovable(); // assigned in the loop's body too
      return this.counterInterval(d, counter, type);
    }
    const sets = all.filter((a) => a.kind === 'set');
    const steps = all.filter((a) => a.kind !== 'set');
    if (sets.length === 0 || steps.some((a) => a.kind === 'other')) throw new Unprovable();
    if (sets.length === 1 && steps.length === 0 && sets[0]!.value && this.readOf(sets[0]!.value) === type) {
      return type === 'u32'
        ? { lo: '<i64>0', hi: '<i64>4294967295', signed: false, memory: true }
        : { lo: `<i64>${I32_MIN}`, hi: `<i64>${I32_MAX}`, signed: true, memory: true };
    }
    // The hull of the assignments; an end stays open (null) where one of them is a clamp bounded
    // only on the other side (`min(chunkEnd(g), n)`): then only guards where it is read close it.
    let lo: string | null | undefined, hi: string | null | undefined, signed = type === 'i32';
    for (const a of sets) {
      const v: Half = a.value ? this.half(a.value, 0) : this.exact('<i64>0');
      signed = signed && v.signed;
      lo = lo === undefined ? v.lo : lo === null || v.lo === null ? null : `min(${lo}, ${v.lo})`;
      hi = hi === undefined ? v.hi : hi === null || v.hi === null ? null : `max(${hi}, ${v.hi})`;
    }
    if (lo === undefined || hi === undefined) throw new Unprovable();
    if (lo === null || hi === null) {
      if (steps.length > 0) {
        // Stepping one way from a start bounded on that side: `let pos = max(begin(g), 0); … pos++`.
        const up = steps.every((a) => a.kind === 'inc');
        if (!(up ? lo !== null : hi !== null && steps.every((a) => a.kind === 'dec'))) throw new Unprovable();
        const start = up ? lo! : hi!;
        this.stepsCannotWrap(d, steps, up, type, signed);
        return up ? { lo: start, hi: null, signed: true } : { lo: null, hi: start, signed: true };
      }
      return { lo, hi, signed };
    }
    const hull = this.inRange(this.temp(lo, hi, signed));
    if (steps.length === 0) return hull;
    const kinds = new Set(steps.map((a) => a.kind));
    if (kinds.size !== 1) throw new Unprovable();
    if (kinds.has('shrink')) return this.inRange(this.temp(`min(${hull.lo}, <i64>0)`, `max(${hull.hi}, <i64>0)`, hull.signed));
    const up = kinds.has('inc');
    this.stepsCannotWrap(d, steps, up, type, hull.signed);
    return up ? { lo: hull.lo, hi: null, signed: true } : { lo: null, hi: hull.hi, signed: true };
  }

  /** Each step of a variable stepping one way sits under a guard that keeps it from wrapping (else Unprovable). */
  private stepsCannotWrap(d: Decl, steps: Assignment[], up: boolean, type: 'i32' | 'u32', signed: boolean): void {
    if (type !== 'i32' || !signed) throw new Unprovable();
    for (const a of steps) {
      const step = a.value ? this.operand(a.value, 0) : this.exact('<i64>1');
      const g = this.guardBounds(d, a.node);
      const bounds = up ? g.hi : g.lo;
      if (bounds.length === 0) throw new Unprovable(); // nothing keeps it from wrapping
      const b = bounds.reduce((x, y) => (up ? `min(${x}, ${y})` : `max(${x}, ${y})`));
      this.require(up ? `${step.lo} >= 0 && ${b} + ${step.hi} <= ${I32_MAX}` : `${step.lo} >= 0 && ${b} - ${step.hi} >= ${I32_MIN}`);
    }
  }

  /** The element type of a 32-bit integer array that `e` reads one element of, else undefined. */
  private readOf(e: AstNode): 'i32' | 'u32' | undefined {
    const u = unparen(e);
    if (u.kind !== NK.ElementAccess || u.expression.kind !== NK.Identifier) return undefined;
    const d = this.x.fn.refs.get(u.expression);
    return d?.array ? INT_TYPES[d.array.elem] : undefined;
  }

  /**
   * A counter's values inside its loop: from its start to the last value below the bound (exact
   * when start, bound and step are the block's constants), given a non-negative step and a
   * bound far enough from the type's end that the step past it does not wrap.
   */
  private counterInterval(d: Decl, c: Counter, type: 'i32' | 'u32'): Iv {
    // Only the start's lower end and the bound's upper end matter: `for (let i = max(begin(g), 0);
    // i < end; i++)` with end = min(chunkEnd(g), n) runs over [0, n) whatever the helpers return.
    const init = this.half(c.init, 0), bound = this.half(c.bound, 0);
    if (init.lo === null || bound.hi === null) throw new Unprovable();
    const step = c.step ? this.operand(c.step, 0) : this.exact('<i64>1');
    const signed = type === 'i32' && init.signed && bound.signed && step.signed;
    const last = c.inclusive ? bound.hi : `${bound.hi} - 1`;
    this.require(`${step.lo} >= 0 && ${last} + ${step.hi} <= ${type === 'i32' ? I32_MAX : '4294967295'}`);
    const exact = init.lo === init.hi && bound.lo !== null && bound.lo === bound.hi && step.lo === step.hi;
    let hi: string;
    if (exact) hi = `${last} >= ${init.lo} && ${step.lo} > 0 ? ${init.lo} + (${last} - ${init.lo}) / ${step.lo} * ${step.lo} : ${init.lo}`;
    else if (init.hi !== null) hi = `max(${last}, ${init.hi})`;
    else {
      // The counter is read only where the loop's condition held (it is assigned nowhere else),
      // so it is at most the last value below the bound — unless the bound reads the counter
      // itself, at a start past it.
      if (this.reads(c.bound, d)) throw new Unprovable();
      hi = last;
    }
    return this.inRange(this.temp(init.lo, hi, signed));
  }

  /** Does e read d? */
  private reads(e: AstNode, d: Decl): boolean {
    let found = false;
    walk(e, (n) => {
      if (n.kind === NK.Identifier && this.x.fn.refs.get(n) === d) found = true;
      return found ? false : undefined;
    });
    return found;
  }

  // --- guards ----------------------------------------------------------------------------------

  /** The conditions that hold where `at` runs, from its enclosing ifs, loops, && / || / ?: and earlier `if (…) return;`. */
  private guardsAt(at: AstNode): Guard[] {
    const out: Guard[] = [];
    let c = at;
    for (let p = this.parent.get(c); p; c = p, p = this.parent.get(p)) {
      switch (p.kind) {
        case NK.If:
          if (c === p.ifTrue) out.push({ cond: p.condition, truth: true, scope: [c] });
          else if (c === p.ifFalse) out.push({ cond: p.condition, truth: false, scope: [c] });
          break;
        case NK.While:
          if (c === p.body) out.push({ cond: p.condition, truth: true, scope: [c] });
          break;
        case NK.For:
          if (!p.condition) break;
          if (c === p.body) out.push({ cond: p.condition, truth: true, scope: [c] });
          else if (c === p.incrementor && p.body) out.push({ cond: p.condition, truth: true, scope: [p.body], whole: true });
          break;
        case NK.Binary: {
          const op = operatorOf(p);
          if (c === p.right && (op === '&&' || op === '||')) out.push({ cond: p.left, truth: op === '&&', scope: [c] });
          break;
        }
        case NK.Ternary:
          if (c === p.ifThen) out.push({ cond: p.condition, truth: true, scope: [c] });
          else if (c === p.ifElse) out.push({ cond: p.condition, truth: false, scope: [c] });
          break;
        case NK.Block: {
          // `if (cond) return;` (or continue, break) earlier in the block: cond fails from there on.
          const list = p.statements as AstNode[];
          const k = list.indexOf(c);
          for (let m = 0; m < k; m++) {
            const s = list[m]!;
            if (s.kind !== NK.If || s.ifFalse || !isJump(s.ifTrue)) continue;
            out.push({ cond: s.condition, truth: false, scope: list.slice(m + 1, k + 1) });
          }
          break;
        }
        default: break;
      }
    }
    return out;
  }

  /**
   * Is the guard still about d's value at `at`? Not if d is assigned between its test and `at`:
   * in the code it covers before `at` (or, `whole`, anywhere in it), or in a loop within it
   * around `at` (a later iteration runs that assignment before `at`), or in the condition.
   */
  private guardHolds(d: Decl, at: AstNode, g: Guard): boolean {
    const all = this.assignments.get(d) ?? [];
    const loops: AstNode[] = [];
    for (let n: AstNode | undefined = at; n && !g.scope.includes(n); n = this.parent.get(n)) {
      const p = this.parent.get(n);
      if (p && LOOPS.has(p.kind) && g.scope.some((s) => contains(s, p))) loops.push(p);
    }
    for (const s of g.scope) if (LOOPS.has(s.kind) && contains(s, at)) loops.push(s);
    for (const a of all) {
      if (contains(g.cond, a.node)) return false;
      if (!g.scope.some((s) => contains(s, a.node))) continue;
      // (A step read at its own point assigns after the read; in a loop, before the next one.)
      if (g.whole || (a.node !== at && a.node.range.start < at.range.end)) return false;
      if (loops.some((l) => contains(l, a.node))) return false;
    }
    return true;
  }

  /** The bounds on d that the guards holding at `at` give (i64 expressions; lo: d ≥ each, hi: d ≤ each). */
  private guardBounds(d: Decl, at: AstNode): { lo: string[]; hi: string[] } {
    const out = { lo: [] as string[], hi: [] as string[] };
    const type = INT_TYPES[this.x.declType(d) ?? ''];
    if (!type || this.guardDepth > 8) return out;
    this.guardDepth++;
    try {
      this.collectGuardBounds(d, at, out, type === 'i32');
    } finally {
      this.guardDepth--;
    }
    return out;
  }

  /** (Bounds whose own bounds come from guards: a few levels, then no more.) */
  private guardDepth = 0;

  /**
   * The guards' bounds on d. The comparison must mean what the i64 interval says: both sides
   * signed for an i32 d; for a u32 d (compared unsigned) an unsigned bound or a literal ≥ 0.
   */
  private collectGuardBounds(d: Decl, at: AstNode, out: { lo: string[]; hi: string[] }, signed: boolean): void {
    for (const g of this.guardsAt(at)) {
      if (!this.guardHolds(d, at, g)) continue;
      for (const atom of this.atoms(d, g.cond, g.truth)) {
        // (Only the bound's end on the guard's side counts: `i < end` with end = min(chunkEnd(g), n).)
        const b = this.attempt(() => this.half(atom.bound, 0));
        if (!b) continue;
        if (signed ? !b.signed : b.signed && !b.literal) continue;
        if (atom.op === '<' && b.hi !== null) out.hi.push(`${b.hi} - 1`);
        else if (atom.op === '<=' && b.hi !== null) out.hi.push(b.hi);
        else if (atom.op === '>' && b.lo !== null) out.lo.push(`${b.lo} + 1`);
        else if (atom.op === '>=' && b.lo !== null) out.lo.push(b.lo);
      }
    }
  }

  /** Comparisons of d with a bound that `cond` being `truth` implies (through &&, ||, !). */
  private atoms(d: Decl, cond: AstNode, truth: boolean): { op: '<' | '<=' | '>' | '>='; bound: AstNode }[] {
    const e = unparen(cond);
    if (e.kind === NK.UnaryPrefix && operatorOf(e) === '!') return this.atoms(d, e.operand, !truth);
    if (e.kind !== NK.Binary) return [];
    const op = operatorOf(e);
    if (op === '&&') return truth ? [...this.atoms(d, e.left, true), ...this.atoms(d, e.right, true)] : [];
    if (op === '||') return truth ? [] : [...this.atoms(d, e.left, false), ...this.atoms(d, e.right, false)];
    if (!['<', '<=', '>', '>='].includes(op)) return [];
    const isD = (n: AstNode) => { const u = unparen(n); return u.kind === NK.Identifier && this.x.fn.refs.get(u) === d; };
    let rel: Rel, bound: AstNode;
    if (isD(e.left) && !isD(e.right)) { rel = op as Rel; bound = e.right; }
    else if (isD(e.right) && !isD(e.left)) { rel = MIRROR[op]!; bound = e.left; }
    else return [];
    return [{ op: truth ? rel : NEGATE[rel]!, bound }];
  }

  /**
   * Tries to show that a comparison has `value` for every thread of the block: true when it
   * added the proof lines that check it, false (and no lines) when its sides cannot be followed.
   * (Both sides inside [0, 2^31) where either is unsigned, so that the comparison means the same
   * in i32 and u32.)
   */
  fold(cmp: AstNode, value: boolean): boolean {
    const op = operatorOf(cmp);
    const rel = value ? op : NEGATE[op]!;
    return this.attempt(() => {
      const a = this.operand(cmp.left, 0), b = this.operand(cmp.right, 0);
      if (!a.signed || !b.signed) this.require(`${a.lo} >= 0 && ${b.lo} >= 0`);
      this.require(rel === '<' ? `${a.hi} < ${b.lo}` : rel === '<=' ? `${a.hi} <= ${b.lo}` : rel === '>' ? `${a.lo} > ${b.hi}` : `${a.lo} >= ${b.hi}`);
      return true;
    }) ?? false;
  }

  /** Does e depend on blockIdx, directly or through the values of the variables it reads? */
  dependsOnBlock(e: AstNode, seen = new Set<Decl>()): boolean {
    let found = false;
    walk(e, (n) => {
      if (found) return false;
      if (n.kind === NK.PropertyAccess && n.expression.kind === NK.Identifier && n.expression.text === 'blockIdx' && !this.x.fn.refs.has(n.expression)) found = true;
      if (n.kind === NK.Identifier) {
        const d = this.x.fn.refs.get(n);
        if (d && !d.param && !seen.has(d)) {
          seen.add(d);
          for (const a of this.assignments.get(d) ?? []) if (a.value && this.dependsOnBlock(a.value, seen)) found = true;
        }
      }
      return undefined;
    });
    return found;
  }

  /** Is e the same for every block and thread: parameters, lengths, launch dimensions, constants only? */
  launchUniform(e: AstNode): boolean {
    let ok = true;
    walk(e, (n) => {
      if (n.kind === NK.Identifier) {
        const d = this.x.fn.refs.get(n);
        if (d ? !(d.param === 'scalar' || d.array) : !(n.text === 'warpSize' || this.x.moduleConst(n.text) || n.text === 'blockDim' || n.text === 'gridDim')) ok = false;
      }
      if (n.kind === NK.PropertyAccess && n.expression.kind === NK.Identifier && ['threadIdx', 'blockIdx'].includes(n.expression.text) && !this.x.fn.refs.has(n.expression)) ok = false;
      if (n.kind === NK.Call || n.kind === NK.ElementAccess) ok = false;
      return undefined;
    });
    return ok;
  }

  /** Tries one access: its proof lines, or nothing when its index cannot be followed. */
  access(array: Decl, index: AstNode): boolean {
    return this.attempt(() => {
      const v = this.iv(index);
      this.require(`${v.lo} >= 0 && ${v.hi} < <i64>(${this.x.length(array)})`);
      return true;
    }) ?? false;
  }

  get body(): string[] { return this.lines; }
}

/** A statement that leaves the code after it: return, continue, break (or a block of just one). */
function isJump(s: AstNode | null): boolean {
  if (!s) return false;
  if (s.kind === NK.Block) return s.statements.length === 1 && isJump(s.statements[0]);
  return JUMPS.has(s.kind);
}

/** The element accesses of a kernel's own body: reads, stores and read-modify-writes of its arrays. */
function arrayAccesses(fn: FunctionInfo): { node: AstNode; array: Decl }[] {
  const out: { node: AstNode; array: Decl }[] = [];
  walk(fn.node.body, (n) => {
    if (n.kind !== NK.ElementAccess || n.expression.kind !== NK.Identifier) return undefined;
    const d = fn.refs.get(n.expression);
    if (d?.array) out.push({ node: n, array: d });
    return undefined;
  });
  return out;
}

/**
 * The bounds guards of a kernel's `if`s: comparisons of an index that depends on blockIdx with a
 * bound the same for the whole launch (a parameter, a length, a constant), in an `if`'s
 * condition or its top-level && / || chain — each with the value an interior block gives it
 * (true in an &&, false in an || or an early exit's `if (…) return;`). A guard that holds for
 * only some threads of a typical block (`threadIdx.x < 16`) is not one: folding it would send
 * every block to the checked copy.
 */
function boundsGuards(fn: FunctionInfo, w: ProofWriter): Fold[] {
  const out: Fold[] = [];
  const atoms = (e: AstNode, op: string, into: AstNode[]) => {
    const u = unparen(e);
    if (u.kind === NK.Binary && operatorOf(u) === op) { atoms(u.left, op, into); atoms(u.right, op, into); } else into.push(u);
  };
  walk(fn.node.body, (n) => {
    if (n.kind !== NK.If) return undefined;
    const cond = unparen(n.condition);
    const exits = !n.ifFalse && isJump(n.ifTrue);
    const list: AstNode[] = [];
    const top = cond.kind === NK.Binary ? operatorOf(cond) : '';
    if (top === '&&' || top === '||') atoms(cond, top, list); else list.push(cond);
    const value = top === '&&' ? true : top === '||' ? false : !exits;
    for (const a of list) {
      if (a.kind !== NK.Binary || !['<', '<=', '>', '>='].includes(operatorOf(a))) continue;
      const [l, r] = [a.left as AstNode, a.right as AstNode];
      if ((w.dependsOnBlock(l) && w.launchUniform(r)) || (w.dependsOnBlock(r) && w.launchUniform(l))) out.push({ node: a, value });
    }
    return undefined;
  });
  return out;
}

/** The kernel's block-level range proof, or undefined when no access can be proven. */
export function blockRangeProof(x: RangeProofInput): RangeProof | undefined {
  const w = new ProofWriter(x);
  const proven = new Set<AstNode>();
  for (const a of arrayAccesses(x.fn)) if (w.access(a.array, a.node.elementExpression)) proven.add(a.node);
  if (proven.size === 0) return undefined;
  const folds = boundsGuards(x.fn, w).filter((f) => w.fold(f.node, f.value));
  return { proven, body: w.body, folds };
}

/**
 * Compiles the folds into the kernel's AST for the proven copy: each folded comparison becomes
 * its value, an && / || it decides becomes that value, one it no longer decides its other side.
 * Replacements keep the replaced node's source range (the compiler reads operators from the
 * text between operands). Returns the function that puts the AST back.
 */
export function applyFolds(body: AstNode, folds: Fold[], make: NodeFactory): () => void {
  const parentOf = parentsOf(body);
  const undo: (() => void)[] = [];
  const replace = (old: AstNode, by: AstNode) => {
    const p = parentOf.get(old);
    if (!p) return;
    for (const key of Object.keys(p)) {
      if (p[key] === old) { p[key] = by; undo.push(() => { p[key] = old; }); parentOf.set(by, p); return; }
    }
  };
  const constant = (value: boolean, at: AstNode): AstNode => (value ? make.createTrueExpression(at.range) : make.createFalseExpression(at.range));
  for (const f of folds) {
    // Up through parentheses and the && / || the value decides (false in an &&, true in an ||),
    // then: the top one becomes the value, or, under an && / || it does not decide, that
    // operator becomes its other side.
    let node: AstNode = f.node;
    let p = parentOf.get(node);
    while (p && (p.kind === NK.Parenthesized || (p.kind === NK.Binary && (operatorOf(p) === '&&') !== f.value && ['&&', '||'].includes(operatorOf(p))))) {
      node = p;
      p = parentOf.get(node);
    }
    if (p?.kind === NK.Binary && (operatorOf(p) === '&&' || operatorOf(p) === '||')) {
      const other = p.left === node ? p.right : p.left;
      const wrapper = make.createParenthesizedExpression(other, p.range);
      replace(p, wrapper);
      parentOf.set(other, wrapper);
    } else {
      replace(node, constant(f.value, node));
    }
  }
  return () => { for (const u of undo.reverse()) u(); };
}
