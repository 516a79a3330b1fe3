// The first layer of the emitter that prints a function as WGSL: its state (the function, its
// arrays, the statements an expression needs before it) and the WGSL type of every expression.

import { type AstNode, NK, LK, textOf, operatorOf } from './ast.js';
import type { Decl, FunctionInfo } from './frontend.js';
import { ATOMICS, BLOCK_PREDICATES, CONVERSION_TYPES, FENCES, WARP_SHUFFLES } from './language.js';
import { type WType, commonType, reprOf, isSmall } from './wgslTypes.js';
import type { KernelGen } from './wgslKernel.js';
import { type ArrRef, type FnCtx, MATH_F64, MATHF_CONSTANTS, isAssignOp } from './wgslModel.js';

/** The WGSL type of an expression, as the kernel language types it (literals adopt the other operand's type). */
export class TypedEmitter {
  /** Declarations at the top of the function: hoisted locals and the collectives' results. */
  readonly topDecls: string[] = [];
  protected pre: string[] = [];
  protected readonly replace = new Map<AstNode, string>();
  protected readonly hoisted = new Set<Decl>();
  protected threadLoops = 0;
  protected readonly fn: FunctionInfo;
  protected readonly file: string;

  constructor(protected readonly g: KernelGen, protected readonly ctx: FnCtx) {
    this.fn = ctx.fn;
    this.file = ctx.fn.file;
  }

  protected fail(n: AstNode, msg: string): never { return this.g.fail(n, msg, this.file); }

  // --- types --------------------------------------------------------------------------------

  protected declType(d: Decl, node: AstNode): WType {
    if (d.param === 'array') this.fail(node, `array '${d.name}' used as a value`);
    return this.g.typeOfText(d.param ? d.typeText : this.g.fe.declType(this.fn, d), d.node ?? node, this.file);
  }

  protected litKind(e: AstNode): 'int' | 'float' | null {
    switch (e.kind) {
      case NK.Literal: return e.literalKind === LK.Integer ? 'int' : e.literalKind === LK.Float ? 'float' : null;
      case NK.Parenthesized: return this.litKind(e.expression);
      case NK.UnaryPrefix: return operatorOf(e) === '-' || operatorOf(e) === '+' ? this.litKind(e.operand) : null;
      case NK.Identifier: return !this.fn.refs.has(e) && (e.text === 'Infinity' || e.text === 'NaN') ? 'float' : null;
      default: return null;
    }
  }

  /** The value of a literal (with its signs). */
  protected litValue(e: AstNode): bigint | number {
    switch (e.kind) {
      case NK.Literal: return e.literalKind === LK.Integer ? BigInt.asIntN(64, e.value) : Number(e.value);
      case NK.Parenthesized: return this.litValue(e.expression);
      case NK.UnaryPrefix: { const v = this.litValue(e.operand); return operatorOf(e) === '-' ? -v : v; }
      default: return e.text === 'NaN' ? NaN : Infinity;
    }
  }

  /** The type two operands compute in: a literal takes the other operand's type. */
  protected opType(a: AstNode, b: AstNode): WType {
    const la = this.litKind(a), lb = this.litKind(b);
    // A float literal beside an f32 is an f32, beside anything else an f64 (AssemblyScript's default float).
    const adopt = (lit: 'int' | 'float', t: WType): WType => (lit === 'float' && t !== 'f32' && t !== 'f64' ? this.floatDefault(t) : t === 'bool' ? 'i32' : t);
    if (la && !lb) return adopt(la, this.ty(b));
    if (lb && !la) return adopt(lb, this.ty(a));
    return commonType(this.ty(a), this.ty(b));
  }

  /** The type of a float literal beside a non-float operand of type t: f64 beside a 64-bit integer, else f32 (the 32-bit kernels' form). */
  private floatDefault(t: WType): WType { return t === 'i64' || t === 'u64' ? 'f64' : 'f32'; }

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
        if (o.kind === NK.Identifier && o.text === 'Math' && !this.fn.refs.has(o)) {
          if (e.property.text in MATHF_CONSTANTS) return 'f64';
          return this.fail(e, `Math.${e.property.text} has no WGSL form`);
        }
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

  protected callType(e: AstNode): WType {
    const c = e.expression as AstNode;
    const args = e.args as AstNode[];
    if (c.kind === NK.PropertyAccess && c.expression.kind === NK.Identifier) {
      if (c.expression.text === 'Mathf') return 'f32';
      if (c.expression.text === 'Math') {
        if (MATH_F64.has(c.property.text)) return 'f64';
        return this.fail(e, `Math.${c.property.text} has no WGSL form: WGSL computes f64 in software (+ - * /, sqrt, comparisons, conversions, Math.${[...MATH_F64].join('/')}), not Math's other functions; use Mathf.${c.property.text} (f32)`);
      }
    }
    if (c.kind !== NK.Identifier || this.fn.refs.has(c)) return this.fail(e, 'this call has no WGSL form');
    const name = c.text as string;
    if (name === 'reinterpret') {
      const to = e.typeArguments?.[0];
      if (!to || args.length !== 1) return this.fail(e, 'reinterpret<T>(x) takes one type argument and one value');
      return this.g.typeOfText(textOf(to), e, this.file);
    }
    if (CONVERSION_TYPES.has(name)) return this.g.typeOfText(name === 'isize' ? 'i32' : name === 'usize' ? 'u32' : name, e, this.file);
    if (['min', 'max'].includes(name)) return this.opType(args[0]!, args[1]!);
    if (['abs', 'sqrt', 'floor', 'ceil', 'trunc', 'nearest', 'copysign', 'clz', 'ctz', 'popcnt', 'rotl', 'rotr'].includes(name)) return reprOf(this.ty(args[0]!));
    if (name in ATOMICS) return ATOMICS[name]!.u32only ? 'u32' : this.g.typeOfText(this.arrayOf(args[0]!)?.elem ?? null, e, this.file);
    if (name in WARP_SHUFFLES) return reprOf(this.ty(args[1]!));
    if (name === '__ballot_sync' || name === '__activemask') return 'u32';
    if (name === '__any_sync' || name === '__all_sync') return 'bool';
    if (BLOCK_PREDICATES.has(name)) return 'i32';
    if (FENCES.has(name)) return 'i32'; // void, as a void device function; its translation says why it has no WGSL form
    const f = this.g.fe.functions.find((x) => x.name === name && !x.exported);
    if (f) return f.returnType === 'void' ? 'i32' : this.g.typeOfText(f.returnType, e, this.file);
    return this.fail(e, `'${name}' has no WGSL form`);
  }

  protected arrayOf(n: AstNode): ArrRef | undefined {
    if (n?.kind !== NK.Identifier) return undefined;
    const d = this.fn.refs.get(n);
    return d ? this.ctx.arrays.get(d) : undefined;
  }
}
