// Bounds checks proven per block: the block form runs a second, unchecked copy of a kernel for
// every block whose accesses the block's index ranges show to be inside their arrays.
//
// A checked access costs more than its compare: the transpose ran in 0.69 of its time with no
// checks at all, and most of its blocks cannot go out of bounds. Like a JIT's range-check
// elimination by loop predication, the compiler takes every array access whose index is an
// integer expression of the thread and block indices, the launch's dimensions, scalar
// parameters, array lengths, constants and local variables defined from those (all their
// assignments, flow-insensitively, and `for` loops' counters), and writes a function that
// evaluates, for the block about to run, an interval that holds each such index for every thread
// of the block. The intervals are computed in i64 from the block's actual values, so no
// arithmetic wraps there; each step also checks that the kernel's own 32-bit arithmetic could
// not have wrapped (else the proof fails). If every index is inside, the block runs the copy
// with those accesses unchecked; otherwise (an edge block, a launch with short arrays) it runs
// the checked form, which traps exactly as before. Accesses whose index the analysis cannot
// follow (a value read from memory, a shuffle, a float) stay checked in both copies.

import { type AstNode, NK, LK, operatorOf, walk } from './ast.js';
import type { Decl, FunctionInfo } from './frontend.js';
import { INDEX_VARIABLES } from './language.js';

export interface RangeProofInput {
  fn: FunctionInfo;
  /** A variable's type (null when it cannot be inferred). */
  declType(d: Decl): string | null;
  moduleConst(name: string): { typeText: string | null; init: AstNode | null } | undefined;
  /** An array's length (elements, i32) as the block form's kernel function writes it. */
  length(d: Decl): string;
}

export interface RangeProof {
  /** The array accesses (element access nodes) the proof covers: unchecked in the proven copy. */
  proven: Set<AstNode>;
  /** The proof function's body statements (after its index locals): `return false` where a check fails. */
  body: string[];
}

/** An interval of i64 values (AS expressions), and whether each of its leaves is a 32-bit signed value. */
interface Iv { lo: string; hi: string; signed: boolean }

class Unprovable extends Error {}

const I32_MIN = '-2147483648', I32_MAX = '2147483647';
const INT_TYPES: Record<string, 'i32' | 'u32'> = { i32: 'i32', isize: 'i32', u32: 'u32', usize: 'u32' };

function unparen(e: AstNode): AstNode { while (e.kind === NK.Parenthesized) e = e.expression; return e; }

function isAssignOp(op: string): boolean { return /=$/.test(op) && !/^(==|!=|===|!==|<=|>=)$/.test(op); }

/** A `for` loop's counter: `for (let j = init; j < bound; j += step)` with j assigned nowhere else. */
interface Counter { init: AstNode; bound: AstNode; inclusive: boolean; step: AstNode | null; incrementor: AstNode }

class ProofWriter {
  private readonly lines: string[] = [];
  private temps = 0;
  private readonly declIv = new Map<Decl, Iv | null>();
  private readonly visiting = new Set<Decl>();
  /** Every definition of each local: initializers and plain assignments' right sides (null: no initializer, 0). */
  private readonly defs = new Map<Decl, (AstNode | null)[]>();
  /** Variables with a compound assignment, ++ or -- (other than their counter's step). */
  private readonly stepped = new Set<Decl>();
  private readonly counters = new Map<Decl, Counter>();

  constructor(private readonly x: RangeProofInput) {
    this.collectDefinitions();
  }

  private collectDefinitions(): void {
    const { fn } = this.x;
    const add = (d: Decl, e: AstNode | null) => this.defs.set(d, [...(this.defs.get(d) ?? []), e]);
    const counterSteps = new Set<AstNode>();
    walk(fn.node.body, (n) => {
      if (n.kind === NK.For) { const c = this.counterOf(n); if (c) { this.counters.set(c.d, c.c); counterSteps.add(c.c.incrementor); } }
      return undefined;
    });
    walk(fn.node.body, (n) => {
      if (n.kind === NK.VariableDeclaration) {
        const d = fn.declOf.get(n);
        if (d && !d.array) add(d, n.initializer ?? null);
      } else if (n.kind === NK.Binary && isAssignOp(operatorOf(n)) && n.left.kind === NK.Identifier) {
        const d = fn.refs.get(n.left);
        if (d && !counterSteps.has(n)) { if (operatorOf(n) === '=') add(d, n.right); else this.stepped.add(d); }
      } else if ((n.kind === NK.UnaryPostfix || n.kind === NK.UnaryPrefix) && /^(\+\+|--)$/.test(operatorOf(n)) && n.operand.kind === NK.Identifier) {
        const d = fn.refs.get(n.operand);
        if (d && !counterSteps.has(n)) this.stepped.add(d);
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

  /** The interval of an integer expression (throws Unprovable). */
  iv(e: AstNode, depth = 0): Iv {
    if (depth > 60) throw new Unprovable();
    const rec = (n: AstNode) => this.iv(n, depth + 1);
    const { fn } = this.x;
    switch (e.kind) {
      case NK.Parenthesized: return rec(e.expression);
      case NK.Literal: {
        if (e.literalKind !== LK.Integer) throw new Unprovable();
        const v = BigInt.asIntN(64, e.value);
        if (v < -(2n ** 31n) || v >= 2n ** 31n) throw new Unprovable();
        return this.exact(`<i64>${v}`);
      }
      case NK.Identifier: {
        const d = fn.refs.get(e);
        if (d) return this.declInterval(d);
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
      case NK.Assertion: {
        const t = e.toType ? INT_TYPES[(e.toType.name?.identifier?.text ?? '') as string] : undefined;
        if (!t || !e.expression) throw new Unprovable();
        const v = rec(e.expression);
        return this.inRange({ ...v, signed: v.signed && t === 'i32' });
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
          const a = rec(args[0]!), b = rec(args[1]!);
          return this.temp(`${c.text}(${a.lo}, ${b.lo})`, `${c.text}(${a.hi}, ${b.hi})`, a.signed && b.signed);
        }
        const t = INT_TYPES[c.text as string];
        if (t && args.length === 1) { const v = rec(args[0]!); return this.inRange({ ...v, signed: v.signed && t === 'i32' }); }
        throw new Unprovable();
      }
      case NK.Binary: return this.binary(e, depth);
      default: throw new Unprovable();
    }
  }

  private binary(e: AstNode, depth: number): Iv {
    const op = operatorOf(e);
    const a = this.iv(e.left, depth + 1);
    const constant = (n: AstNode): number | undefined => {
      const u = unparen(n);
      if (u.kind === NK.Literal && u.literalKind === LK.Integer) return Number(BigInt.asIntN(64, u.value));
      return undefined;
    };
    const signed = (b: Iv) => a.signed && b.signed;
    switch (op) {
      case '+': { const b = this.iv(e.right, depth + 1); if (a.lo === a.hi && b.lo === b.hi) return this.inRange(this.temp(`${a.lo} + ${b.lo}`, `${a.lo} + ${b.lo}`, signed(b)));
        return this.inRange(this.temp(`${a.lo} + ${b.lo}`, `${a.hi} + ${b.hi}`, signed(b))); }
      case '-': { const b = this.iv(e.right, depth + 1); if (a.lo === a.hi && b.lo === b.hi) return this.inRange(this.temp(`${a.lo} - ${b.lo}`, `${a.lo} - ${b.lo}`, signed(b)));
        return this.inRange(this.temp(`${a.lo} - ${b.hi}`, `${a.hi} - ${b.lo}`, signed(b))); }
      case '*': {
        const b = this.iv(e.right, depth + 1);
        if (a.lo === a.hi && b.lo === b.hi) return this.inRange(this.temp(`${a.lo} * ${b.lo}`, `${a.lo} * ${b.lo}`, signed(b)));
        // Both factors are inside 32 bits (every node is checked so), so the products fit in i64.
        const p = [`${a.lo} * ${b.lo}`, `${a.lo} * ${b.hi}`, `${a.hi} * ${b.lo}`, `${a.hi} * ${b.hi}`];
        return this.inRange(this.temp(`min(min(${p[0]}, ${p[1]}), min(${p[2]}, ${p[3]}))`, `max(max(${p[0]}, ${p[1]}), max(${p[2]}, ${p[3]}))`, signed(b)));
      }
      case '/': case '%': {
        const b = this.iv(e.right, depth + 1);
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
        if (constant(e.right) === undefined) this.iv(e.right, depth + 1); // (its type must be followed too)
        return this.temp('<i64>0', `${a.lo} >= 0 ? min(${a.hi}, <i64>${c}) : <i64>${c}`, a.signed);
      }
      default: throw new Unprovable();
    }
  }

  private declInterval(d: Decl): Iv {
    if (this.declIv.has(d)) { const v = this.declIv.get(d); if (!v) throw new Unprovable(); return v; }
    if (this.visiting.has(d)) throw new Unprovable(); // defined from itself
    this.visiting.add(d);
    try {
      const v = this.declIntervalOf(d);
      this.declIv.set(d, v);
      return v;
    } catch (err) {
      this.declIv.set(d, null);
      throw err;
    } finally {
      this.visiting.delete(d);
    }
  }

  private declIntervalOf(d: Decl): Iv {
    const t = this.x.declType(d);
    const type = t ? INT_TYPES[t] : undefined;
    if (!type || d.array) throw new Unprovable();
    if (d.param === 'scalar') return this.inRange(this.exact(`<i64>${d.outName}`, type === 'i32'));
    if (d.param) throw new Unprovable();
    const defs = this.defs.get(d) ?? [];
    if (this.stepped.has(d)) throw new Unprovable();
    const counter = this.counters.get(d);
    if (counter) {
      if (defs.length !== 1) throw new Unprovable(); // assigned in the loop's body too
      return this.counterInterval(counter, type);
    }
    if (defs.length === 0) throw new Unprovable();
    let lo = '', hi = '', signed = type === 'i32';
    for (const e of defs) {
      const v = e ? this.iv(e) : this.exact('<i64>0');
      signed = signed && v.signed;
      lo = lo ? `min(${lo}, ${v.lo})` : v.lo;
      hi = hi ? `max(${hi}, ${v.hi})` : v.hi;
    }
    return this.inRange(this.temp(lo, hi, signed));
  }

  /**
   * A counter's values inside its loop: from its start to the last value below the bound (exact
   * when start, bound and step are the block's constants), given a non-negative step and a
   * bound far enough from the type's end that the step past it does not wrap.
   */
  private counterInterval(c: Counter, type: 'i32' | 'u32'): Iv {
    const init = this.iv(c.init), bound = this.iv(c.bound);
    const step = c.step ? this.iv(c.step) : this.exact('<i64>1');
    const signed = type === 'i32' && init.signed && bound.signed && step.signed;
    const last = c.inclusive ? bound.hi : `${bound.hi} - 1`;
    this.require(`${step.lo} >= 0 && ${last} + ${step.hi} <= ${type === 'i32' ? I32_MAX : '4294967295'}`);
    const exact = init.lo === init.hi && bound.lo === bound.hi && step.lo === step.hi;
    const hi = exact
      ? `${last} >= ${init.lo} && ${step.lo} > 0 ? ${init.lo} + (${last} - ${init.lo}) / ${step.lo} * ${step.lo} : ${init.lo}`
      : `max(${last}, ${init.hi})`;
    return this.inRange(this.temp(init.lo, hi, signed));
  }

  /** Tries one access: its proof lines, or nothing when its index cannot be followed. */
  access(array: Decl, index: AstNode): boolean {
    const mark = this.lines.length, temps = this.temps;
    const saved = new Map(this.declIv);
    try {
      const v = this.iv(index);
      this.require(`${v.lo} >= 0 && ${v.hi} < <i64>(${this.x.length(array)})`);
      return true;
    } catch (err) {
      if (!(err instanceof Unprovable)) throw err;
      this.lines.length = mark;
      this.temps = temps;
      this.declIv.clear();
      for (const [k, v] of saved) this.declIv.set(k, v);
      return false;
    }
  }

  get body(): string[] { return this.lines; }
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

/** The kernel's block-level range proof, or undefined when no access can be proven. */
export function blockRangeProof(x: RangeProofInput): RangeProof | undefined {
  const w = new ProofWriter(x);
  const proven = new Set<AstNode>();
  for (const a of arrayAccesses(x.fn)) if (w.access(a.array, a.node.elementExpression)) proven.add(a.node);
  if (proven.size === 0) return undefined;
  return { proven, body: w.body };
}
