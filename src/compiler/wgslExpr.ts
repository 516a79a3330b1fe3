// Expressions of the kernel language as WGSL: identifiers, array elements through the checked
// helpers, operators with the conversions WGSL requires, calls (Mathf, conversions, atomics,
// device functions), assignments and increments.

import { type AstNode, NK, LK, textOf, operatorOf, unparen, walk } from './ast.js';
import { ATOMICS, BARRIERS, CONVERSION_TYPES, INDEX_VARIABLES, PURE_CALLS, SHARED_DECLS, isCollective } from './language.js';
import { type WType, convert, f64Literal, floatLiteral, intLiteral, isWide, reprOf, wgslType, wtypeOf, isSmall } from './wgslTypes.js';
import { ACTIVE_LANES_FN, TRAP_DIVIDE_BY_ZERO, TRAP_DIVIDE_OVERFLOW, TRAP_OUT_OF_BOUNDS, TRAP_UNREACHABLE, divisionFn } from './wgslRuntime.js';
import { type ArrRef, MATHF, MATHF_CONSTANTS, isAssignOp } from './wgslModel.js';
import { TypedEmitter } from './wgslTyping.js';

/** Expressions and assignments as WGSL; what must run first (a post-increment's copy, a ternary's branches) goes to `pre`. */
export class ExprEmitter extends TypedEmitter {
  // --- expressions --------------------------------------------------------------------------

  /** e as WGSL, converted to `want` when given. */
  expr(e: AstNode, want?: WType): string {
    // A node the emitter has already printed (a collective's result, a select built for a conditional assignment).
    const done = e.kind !== NK.Call ? this.replace.get(e) : undefined;
    if (done !== undefined) return done;
    const lit = this.litKind(e);
    if (lit && want) {
      const v = this.litValue(e);
      if (want === 'f64') return f64Literal(Number(v));
      if (typeof v === 'bigint') return intLiteral(v, want);
      if (isWide(want)) return convert(f64Literal(v), 'f64', want);
      return reprOf(want) === 'f32' ? floatLiteral(v) : convert(floatLiteral(v), 'f32', want);
    }
    const t = this.ty(e);
    const s = this.raw(e, t);
    return want ? convert(s, t, want) : s;
  }

  protected capture<T>(f: () => T): { value: T; pre: string[] } {
    const saved = this.pre;
    this.pre = [];
    try { const value = f(); return { value, pre: this.pre }; } finally { this.pre = saved; }
  }

  protected raw(e: AstNode, t: WType): string {
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
        this.pre.push(`var ${tmp}: ${wgslType(t)};`, `if (${c}) {`, ...a.pre.map((l) => '  ' + l), `  ${tmp} = ${a.value};`, '} else {', ...b.pre.map((l) => '  ' + l), `  ${tmp} = ${b.value};`, '}');
        return tmp;
      }
      default: return this.fail(e, 'this expression has no WGSL form');
    }
  }

  /** Can e be evaluated when its value is not needed (select evaluates both sides)? No checked reads, no side effects. */
  protected speculatable(e: AstNode): boolean {
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

  protected identifier(e: AstNode): string {
    const d = this.fn.refs.get(e);
    if (d) {
      if (d.array) this.fail(e, `array '${d.name}' used as a value`);
      if (d.param === 'scalar' && this.ctx.kernel) return isWide(this.declType(d, e)) ? `vec2u(launch.s_${d.name}_lo, launch.s_${d.name}_hi)` : `launch.s_${d.name}`;
      return `u_${d.outName}`;
    }
    if (e.text === 'warpSize') return '32i';
    const c = this.g.fe.moduleConst(e.text);
    if (c) return this.moduleConst(e, e.text, c);
    return this.fail(e, `'${e.text}' has no WGSL form`);
  }

  protected moduleConst(e: AstNode, name: string, c: { typeText: string | null; init: AstNode | null }): string {
    const id = `c_${name}`;
    if (!this.g.consts.has(id)) {
      const t = this.g.typeOfText(c.typeText ?? this.g.fe.valueType(this.fn, c.init), e, this.file);
      this.g.consts.set(id, '');   // reserves the name (a constant referring to itself fails below)
      const v = this.g.fe.constValue(c.init);
      let text: string;
      if (v !== undefined && t === 'f64') text = f64Literal(v);
      else if (v !== undefined && reprOf(t) !== 'f32') text = intLiteral(BigInt(v), t);
      else if (c.init) text = this.expr(c.init, t);
      else return this.fail(e, `constant '${name}' has no value`);
      // Inf and NaN come from runtime values: such a constant is a private variable set at entry.
      if (/sx_(inf|nan)/.test(text)) return `(${text})`;
      this.g.consts.set(id, `const ${id}: ${wgslType(t)} = ${text};`);
    }
    return id;
  }

  protected property(e: AstNode): string {
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
      if (o.text === 'Math' && !this.fn.refs.has(o) && prop in MATHF_CONSTANTS) return f64Literal(MATHF_CONSTANTS[prop]!);
    }
    return this.fail(e, `'${textOf(e)}' has no WGSL form`);
  }

  /** An index as (u32 bits, signedness) for the checks and the access. */
  protected index(e: AstNode): { i: string; sg: string } {
    const t = this.ty(e);
    if (t === 'f32' || t === 'f64') this.fail(e, 'a float index');
    if (isWide(t)) this.fail(e, 'a 64-bit index has no WGSL form: convert it to i32');
    const r = reprOf(t);
    if (r === 'u32') return { i: this.expr(e, 'u32'), sg: '0u' };
    return { i: `u32(${this.expr(e, 'i32')})`, sg: '1u' };
  }

  /** Whether index e is threadIdx.x itself, or a constant initialised with it (`const t = threadIdx.x`). */
  protected isThreadX(e: AstNode): boolean {
    e = unparen(e);
    if (e.kind === NK.Identifier) {
      const d = this.fn.refs.get(e);
      return !!d && d.isConst && !d.param && !d.array && !!d.node?.initializer && this.isThreadX(d.node.initializer);
    }
    return e.kind === NK.PropertyAccess && e.expression.kind === NK.Identifier && e.expression.text === 'threadIdx' && !this.fn.refs.has(e.expression) && e.property.text === 'x';
  }

  protected elementRead(e: AstNode): string {
    const r = this.arrayOf(e.expression);
    if (!r) return this.fail(e, `'${textOf(e.expression)}' is not an array`);
    const { i, sg } = this.index(e.elementExpression);
    if (!this.g.checked) return this.g.loadText(r, i);
    const site = this.g.site(e, this.file, `read ${r.space === 'workgroup' ? '__shared__ ' : r.space === 'private' ? '__local__ ' : ''}${r.decl.name}[]`, boundsCode(r, sg));
    const proven = this.g.launchProven.has(e);
    if (proven) this.g.provenSites.add(site);
    return this.g.loadText(r, `${this.g.indexHelper(r, this.isThreadX(e.elementExpression), proven)}(${i}, ${sg}, ${site}u)`);
  }

  /** The statement storing `value` (already of the element's representation) at e = a[i]. */
  protected elementStore(e: AstNode, value: () => string): string {
    const r = this.arrayOf(e.expression)!;
    const { i, sg } = this.index(e.elementExpression);
    const v = value();
    if (!this.g.checked) return this.g.storeText(r, i, v);
    const site = this.g.site(e, this.file, `write ${r.space === 'workgroup' ? '__shared__ ' : r.space === 'private' ? '__local__ ' : ''}${r.decl.name}[]`, boundsCode(r, sg));
    const proven = this.g.launchProven.has(e);
    if (proven) this.g.provenSites.add(site);
    return `${this.g.storeHelper(r, this.isThreadX(e.elementExpression), proven)}(${i}, ${sg}, ${site}u, ${v});`;
  }

  protected binary(e: AstNode, t: WType): string {
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
    if (/^(<<|>>|>>>)$/.test(op)) return this.shift(op, this.expr(e.left, t), this.expr(e.right, 'u32'), t);
    const ct = this.opType(e.left, e.right);
    const wop = op === '===' ? '==' : op === '!==' ? '!=' : op;
    if (wop === '**') {
      if (ct !== 'f32') this.fail(e, ct === 'f64' ? '** on f64 has no WGSL form' : '** on integers has no WGSL form');
      return `pow(${this.expr(e.left, 'f32')}, ${this.expr(e.right, 'f32')})`;
    }
    const rt = reprOf(ct);
    if (rt === 'bool' && /^[+\-*/%]$/.test(wop)) return `(${this.expr(e.left, 'i32')} ${wop} ${this.expr(e.right, 'i32')})`;
    if ((wop === '/' || wop === '%') && ct !== 'f32' && ct !== 'f64') return this.intDivision(e, wop, this.expr(e.left, ct), this.expr(e.right, ct), ct, e.right);
    if (isWide(ct)) return this.wideBinary(e, wop, this.expr(e.left, ct), this.expr(e.right, ct), ct);
    return `(${this.expr(e.left, ct)} ${wop} ${this.expr(e.right, ct)})`;
  }

  /**
   * Integer `/` or `%` in type t: where wasm traps (a zero divisor; the most negative value
   * divided by -1) the checked shader notes the same trap (divisionFn), so the launch fails with
   * wasm's message instead of WGSL's quiet result. Unchecked builds divide as WGSL does.
   */
  protected intDivision(node: AstNode, op: '/' | '%', l: string, r: string, t: WType, divisor: AstNode): string {
    // 64-bit division has no WGSL form yet: with a long division per operation, SwiftShader built a
    // shader with one signed i64 division in 0.4 s, with a division and a remainder in 5–7 s, and
    // with two divisions not within 100 s, so the back end does not offer it.
    if (isWide(t)) return this.fail(node, `operator ${op} on ${t} has no WGSL form yet`);
    const rt = reprOf(t) as 'i32' | 'u32';
    // A divisor that cannot be zero (nor -1) cannot trap: a positive constant, a launch dimension.
    const safe = this.positiveDivisor(divisor);
    if (!this.g.checked || safe) return `(${l} ${op} ${r})`;
    const name = `sx_${op === '/' ? 'div' : 'rem'}_${rt}`;
    if (!this.g.helpers.has(name)) this.g.helpers.set(name, divisionFn(name, op, rt));
    const zs = this.g.site(node, this.file, `integer ${op === '/' ? 'division' : 'remainder'}`, TRAP_DIVIDE_BY_ZERO);
    const os = op === '/' && rt === 'i32' ? this.g.site(node, this.file, 'integer division', TRAP_DIVIDE_OVERFLOW) : undefined;
    return `${name}(${l}, ${r}, ${zs}u${os === undefined ? '' : `, ${os}u`})`;
  }

  /** Whether e is a positive integer constant, blockDim or gridDim's component, or warpSize (through consts initialised with one). */
  protected positiveDivisor(e: AstNode): boolean {
    e = unparen(e);
    if (this.litKind(e) === 'int') { const v = this.litValue(e); return typeof v === 'bigint' && v > 0n; }
    if (e.kind === NK.PropertyAccess && e.expression.kind === NK.Identifier && !this.fn.refs.has(e.expression)) {
      return (e.expression.text === 'blockDim' || e.expression.text === 'gridDim') && /^[xyz]$/.test(e.property.text);
    }
    if (e.kind === NK.Identifier) {
      const d = this.fn.refs.get(e);
      if (d) return d.isConst && !d.param && !d.array && !!d.node?.initializer && this.positiveDivisor(d.node.initializer);
      if (e.text === 'warpSize') return true;
      const v = this.g.fe.constValue(this.g.fe.moduleConst(e.text)?.init ?? null);
      return typeof v === 'number' && Number.isInteger(v) && v > 0;
    }
    return false;
  }

  /** `l op r` for a shift of a value of type t (the count already a u32: wasm takes it mod the width). */
  protected shift(op: string, l: string, r: string, t: WType): string {
    if (isWide(t)) return `${op === '<<' ? 'sx64_shl' : op === '>>>' || t === 'u64' ? 'sx64_shru' : 'sx64_shrs'}(${l}, ${r})`;
    if (op === '>>>' && t === 'i32') return `i32(u32(${l}) >> ${r})`;
    return `(${l} ${op === '>>>' ? '>>' : op} ${r})`;
  }

  /** A binary operator on two 64-bit values of type t (wgslWide.ts). */
  protected wideBinary(node: AstNode, op: string, l: string, r: string, t: 'i64' | 'u64' | 'f64'): string {
    if (t === 'f64') {
      switch (op) {
        case '+': return `sx64_fadd(${l}, ${r})`;
        case '-': return `sx64_fsub(${l}, ${r})`;
        case '*': return `sx64_fmul(${l}, ${r})`;
        case '/': return `sx64_fdiv(${l}, ${r})`;
        case '==': return `sx64_feq(${l}, ${r})`;
        case '!=': return `!sx64_feq(${l}, ${r})`;
        case '<': return `sx64_flt(${l}, ${r})`;
        case '<=': return `sx64_fle(${l}, ${r})`;
        case '>': return `sx64_flt(${r}, ${l})`;
        case '>=': return `sx64_fle(${r}, ${l})`;
        default: return this.fail(node, `operator ${op} on f64 has no WGSL form`);
      }
    }
    const lt = t === 'i64' ? 'sx64_lts' : 'sx64_ltu';
    switch (op) {
      case '+': return `sx64_add(${l}, ${r})`;
      case '-': return `sx64_sub(${l}, ${r})`;
      case '*': return `sx64_mul(${l}, ${r})`;
      case '&': case '|': case '^': return `(${l} ${op} ${r})`;
      case '==': return `sx64_eq(${l}, ${r})`;
      case '!=': return `!sx64_eq(${l}, ${r})`;
      case '<': return `${lt}(${l}, ${r})`;
      case '>': return `${lt}(${r}, ${l})`;
      case '<=': return `!${lt}(${r}, ${l})`;
      case '>=': return `!${lt}(${l}, ${r})`;
      default: return this.fail(node, `operator ${op} on ${t} has no WGSL form yet`);
    }
  }

  protected prefix(e: AstNode, t: WType): string {
    const op = operatorOf(e);
    if (op === '!') return `!(${this.expr(e.operand, 'bool')})`;
    if (op === '++' || op === '--') {
      this.pre.push(this.incDecStatement(e.operand, op));
      return this.expr(e.operand, t);
    }
    const v = this.expr(e.operand, t);
    if (op === '+') return v;
    if (op === '-' && isWide(t)) return t === 'f64' ? `sx64_fneg(${v})` : `sx64_neg(${v})`;
    if (op === '~' && t === 'f64') return this.fail(e, 'operator ~ on f64 has no WGSL form');
    if (op === '-') return reprOf(t) === 'u32' ? `(0u - ${v})` : `(-${v})`;
    if (op === '~') return `(~${v})`;
    return this.fail(e, `operator ${op} has no WGSL form`);
  }

  protected call(e: AstNode): string {
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
    if (c.kind === NK.PropertyAccess && c.expression.kind === NK.Identifier && c.expression.text === 'Math' && !this.fn.refs.has(c.expression)) {
      // Math's functions that are wasm instructions on f64, with their exact results.
      const name = c.property.text as string;
      if (name === 'fround') return `sx64_fromF32(sx64_toF32(${this.expr(args[0]!, 'f64')}))`;
      return this.wideBuiltin(e, name, args, 'f64');
    }
    if (c.kind !== NK.Identifier || this.fn.refs.has(c)) return this.fail(e, 'this call has no WGSL form');
    const name = c.text as string;
    if (name in ATOMICS) return this.atomic(e, name, args);
    if (name === 'reinterpret') return this.reinterpret(e, args[0]!);
    if (WIDE_BUILTINS.has(name) && args.length > 0 && isWide(TWO_OPERANDS.has(name) && args.length > 1 ? this.opType(args[0]!, args[1]!) : this.ty(args[0]!))) return this.wideBuiltin(e, name, args);
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
      case '__threadfence': case '__threadfence_block': case '__threadfence_system':
        // WGSL's atomics are relaxed and it has no fence; storageBarrier() is a workgroup-wide
        // control barrier that every invocation must reach (not in a thread's own branch, where
        // CUDA's fences stand) and orders nothing between workgroups.
        return this.fail(e, `${name}() has no WGSL form: WGSL has no memory fence (its atomics are relaxed, and storageBarrier() is a workgroup barrier that orders nothing between workgroups); run this kernel on wasm or serial`);
      case 'unreachable':
        return this.fail(e, 'unreachable() must be a statement of its own');
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

  /** reinterpret<T>(x): the same bits as another type of the same width. */
  protected reinterpret(e: AstNode, arg: AstNode): string {
    const to = this.ty(e), from = this.ty(arg);
    if (isWide(to) !== isWide(from) || isSmall(to) || isSmall(from) || to === 'bool' || from === 'bool') {
      return this.fail(e, `reinterpret<${to}> of a ${from} has no WGSL form (the widths differ)`);
    }
    const v = this.expr(arg, from);
    return isWide(to) || to === from ? v : `bitcast<${to}>(${v})`;
  }

  /** min, max, abs and the other builtins on a 64-bit value (wgslWide.ts). */
  protected wideBuiltin(e: AstNode, name: string, args: AstNode[], as?: 'f64'): string {
    const t = as ?? (name === 'min' || name === 'max' || name === 'copysign' ? this.opType(args[0]!, args[1]!) : this.ty(args[0]!)) as 'i64' | 'u64' | 'f64';
    const a = this.expr(args[0]!, t);
    const b = (): string => this.expr(args[1]!, t);
    if (t === 'f64') {
      switch (name) {
        case 'min': return `sx64_fmin(${a}, ${b()})`;
        case 'max': return `sx64_fmax(${a}, ${b()})`;
        case 'abs': return `sx64_fabs(${a})`;
        case 'copysign': return `sx64_copysign(${a}, ${b()})`;
        case 'floor': return `sx64_ffloor(${a})`;
        case 'ceil': return `sx64_fceil(${a})`;
        case 'trunc': return `sx64_ftrunc(${a})`;
        case 'sqrt': return `sx64_fsqrt(${a})`;
        case 'nearest': return `sx64_fnearest(${a})`;
        default: return this.fail(e, `${name} of an f64 has no WGSL form yet`);
      }
    }
    const lt = t === 'i64' ? 'sx64_lts' : 'sx64_ltu';
    switch (name) {
      case 'min': { const tmp = this.g.temp(), tb = this.g.temp(); this.pre.push(`let ${tmp} = ${a};`, `let ${tb} = ${b()};`); return `select(${tb}, ${tmp}, ${lt}(${tmp}, ${tb}))`; }
      case 'max': { const tmp = this.g.temp(), tb = this.g.temp(); this.pre.push(`let ${tmp} = ${a};`, `let ${tb} = ${b()};`); return `select(${tb}, ${tmp}, ${lt}(${tb}, ${tmp}))`; }
      case 'abs': if (t === 'u64') return a; { const tmp = this.g.temp(); this.pre.push(`let ${tmp} = ${a};`); return `select(${tmp}, sx64_neg(${tmp}), sx64_lts(${tmp}, vec2u(0u, 0u)))`; }
      default: return this.fail(e, `${name} of a ${t} has no WGSL form yet`);
    }
  }

  protected atomic(e: AstNode, name: string, args: AstNode[]): string {
    const r = this.arrayOf(args[0]!)!;
    const elem = wtypeOf(r.elem);
    if (isWide(elem)) this.fail(e, `${name} on a ${elem}[] has no WGSL form (WGSL's atomics are 32-bit)`);
    const { i, sg } = this.index(args[1]!);
    const operand = ATOMICS[name]!.u32only ? 'u32' : elem;
    const ops = args.slice(2).map((a) => this.expr(a, operand));
    const site = this.g.checked ? this.g.site(e, this.file, `${name} on ${r.space === 'workgroup' ? '__shared__ ' : r.space === 'private' ? '__local__ ' : ''}${r.decl.name}[]`, boundsCode(r, sg)) : 0;
    return `${this.g.atomicHelper(r, name)}(${i}, ${sg}, ${site}u, ${ops.join(', ')})`;
  }

  // --- assignments --------------------------------------------------------------------------

  /** An expression statement as one WGSL statement (assignments, increments, calls). Pre-statements go to this.pre. */
  protected exprStatement(e: AstNode): string {
    if (e.kind === NK.Binary && isAssignOp(operatorOf(e))) return this.assignment(e);
    if ((e.kind === NK.UnaryPostfix || e.kind === NK.UnaryPrefix) && /^(\+\+|--)$/.test(operatorOf(e))) return this.incDecStatement(e.operand, operatorOf(e));
    if (e.kind === NK.Parenthesized) return this.exprStatement(e.expression);
    if (e.kind === NK.Call) {
      const c = e.expression as AstNode;
      if (c.kind === NK.Identifier && !this.fn.refs.has(c) && BARRIERS.has(c.text)) return this.fail(e, `${c.text} here has no WGSL form`);
      if (c.kind === NK.Identifier && !this.fn.refs.has(c) && c.text === 'unreachable' && (e.args as AstNode[]).length === 0) {
        // The launch fails with the trap, as wasm's `unreachable` fails it. WGSL cannot stop one
        // invocation where the others may still meet a barrier, so this one notes the trap (its
        // first, as a bounds check does) and runs on: its later accesses stay checked or proven.
        const site = this.g.site(e, this.file, 'unreachable()', TRAP_UNREACHABLE);
        return `sx_trapIf(true, ${TRAP_UNREACHABLE}u, 0u, 0u, 0u, ${site}u);`;
      }
      const text = this.expr(e);
      return this.replace.has(e) ? '' : `${/^[a-zA-Z_][\w]*\(/.test(text) ? '' : '_ = '}${text};`;
    }
    return `_ = ${this.expr(e)};`;
  }

  protected assignment(e: AstNode): string {
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

  protected compoundType(left: AstNode, op: string, right: AstNode): WType {
    if (/^(<<|>>|>>>)$/.test(op)) { const t = this.ty(left); return reprOf(t); }
    const t = this.opType(left, right);
    return isSmall(t) ? reprOf(t) : t;
  }

  /** `left op right` (the value of a compound assignment) in compoundType. */
  protected compound(left: AstNode, op: string, right: AstNode, node: AstNode): string {
    const t = this.compoundType(left, op, right);
    if (op === '**') return `pow(${this.expr(left, 'f32')}, ${this.expr(right, 'f32')})`;
    if (/^(<<|>>|>>>)$/.test(op)) return this.shift(op, this.expr(left, t), this.expr(right, 'u32'), t);
    if (!/^[+\-*/%&|^]$/.test(op)) return this.fail(node, `operator ${op}= has no WGSL form`);
    if ((op === '/' || op === '%') && t !== 'f32' && t !== 'f64' && t !== 'bool') return this.intDivision(node, op, this.expr(left, t), this.expr(right, t), t, right);
    if (isWide(t)) return this.wideBinary(node, op, this.expr(left, t), this.expr(right, t), t);
    return `(${this.expr(left, t)} ${op} ${this.expr(right, t)})`;
  }

  protected incDecStatement(target: AstNode, op: string): string {
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
}

/** The builtins that take a 64-bit value (wideBuiltin); min, max and copysign take two. */
const WIDE_BUILTINS: ReadonlySet<string> = new Set(['min', 'max', 'abs', 'sqrt', 'floor', 'ceil', 'trunc', 'nearest', 'copysign', 'clz', 'ctz', 'popcnt', 'rotl', 'rotr']);
const TWO_OPERANDS: ReadonlySet<string> = new Set(['min', 'max', 'copysign']);

/** What a bounds check's trap record says besides its site: out of bounds, the index's signedness, the array (sx_siteCode). */
function boundsCode(r: ArrRef, sg: string): number {
  return TRAP_OUT_OF_BOUNDS | (sg === '1u' ? 1 << 7 : 0) | (r.id << 8);
}
