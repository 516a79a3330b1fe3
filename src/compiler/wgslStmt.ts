// Statements of the kernel language as WGSL, and the two functions a shader holds: the kernel's
// body (through the block level when it has barriers or warp operations) and device functions.
// In a kernel whose threads may return before a barrier, what follows a return runs only while
// the thread has not exited.

import { type AstNode, NK, operatorOf, walk } from './ast.js';
import type { Decl } from './frontend.js';
import { reprOf, wgslType, zero } from './wgslTypes.js';
import { isAssignOp, paren } from './wgslModel.js';
import { containsReturn, listOf } from './wgslUniformity.js';
import { ExprEmitter } from './wgslExpr.js';
import { matchConditionalAssign } from './minmax.js';
import { type StridedLoop, UNROLL, stridedLoop } from './wgslUnroll.js';

/** Per-thread statements; the block level (barriers, warp operations) is the subclass's. */
export abstract class StmtEmitter extends ExprEmitter {
  /** Printing a copy of an unrolled body (unrolledTrips): its own `continue` ends the copy. */
  private continueEndsCopy = false;
  /**
   * `if ([guard &&] x > m) m = x;` (and the other shapes of minmax.ts) on f32, m a local or an
   * element of a __shared__ or __local__ array: each operand read once and `m = select(…)`, the
   * comparison the if made (so NaN and signed zeros come out as written), without a branch. The
   * block form does the same with wasm's pmax/pmin. An element is stored even when it keeps its
   * value, so only arrays no other workgroup sees. Measured on an H100: see bench/RESULTS.md.
   */
  private conditionalMinMax(s: AstNode, ind: string, out: string[]): boolean {
    const m = matchConditionalAssign(s);
    if (!m || this.ty(m.mm.a) !== 'f32' || this.ty(m.mm.b) !== 'f32') return false;
    if (m.target.kind === NK.ElementAccess) {
      const r = this.arrayOf(m.target.expression);
      if (!r || r.space === 'storage') return false;
    } else if (!this.fn.refs.get(m.target) || this.fn.refs.get(m.target)!.array) return false;
    const body = listOf(s.ifTrue)[0]!;
    const assign = body.kind === NK.Expression ? body.expression as AstNode : undefined;
    if (!assign || assign.kind !== NK.Binary) return false;
    let inner: string;
    if (m.guard) {
      const g = this.expr(m.guard, 'bool');
      this.flushPre(ind, out);
      out.push(`${ind}if (${g}) {`);
    } else out.push(`${ind}{`);
    inner = ind + '  ';
    const a = this.g.temp(), b = this.g.temp();
    const av = this.expr(m.mm.a, 'f32');
    this.flushPre(inner, out);
    out.push(`${inner}let ${a} = ${av};`);
    const bv = this.expr(m.mm.b, 'f32');
    this.flushPre(inner, out);
    out.push(`${inner}let ${b} = ${bv};`);
    // pmax(a, b) = a < b ? b : a; pmin(a, b) = b < a ? b : a.
    this.replace.set(assign.right as AstNode, m.mm.op === '__pmax' ? `select(${a}, ${b}, ${a} < ${b})` : `select(${a}, ${b}, ${b} < ${a})`);
    const st = this.exprStatement(assign);
    this.flushPre(inner, out);
    out.push(`${inner}${st}`, `${ind}}`);
    return true;
  }

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
    // WGSL's parameters are constants: a parameter the function assigns comes in as p_x and is copied into the variable u_x.
    const assigned = new Set<Decl>();
    walk(fn.node.body, (n) => {
      const target = n.kind === NK.Binary && isAssignOp(operatorOf(n)) ? n.left : (n.kind === NK.UnaryPrefix || n.kind === NK.UnaryPostfix) && /^(\+\+|--)$/.test(operatorOf(n)) ? n.operand : undefined;
      const d = target?.kind === NK.Identifier ? fn.refs.get(target) : undefined;
      if (d?.param === 'scalar') assigned.add(d);
    });
    const params = fn.decls.filter((d) => d.param === 'scalar').map((d) => {
      const t = wgslType(this.g.typeOfText(d.typeText, fn.node, this.file));
      if (!assigned.has(d)) return `u_${d.outName}: ${t}`;
      this.topDecls.push(`var u_${d.outName}: ${t} = p_${d.outName};`);
      return `p_${d.outName}: ${t}`;
    });
    const ret = fn.returnType === 'void' ? '' : ` -> ${wgslType(this.g.typeOfText(fn.returnType, fn.node, this.file))}`;
    const out: string[] = [];
    this.stmtList((fn.node.body as AstNode).statements, '  ', out, false);
    return `fn ${name}(${params.join(', ')})${ret} {\n${this.topDecls.map((l) => '  ' + l).join('\n')}${this.topDecls.length ? '\n' : ''}${out.join('\n')}\n}`;
  }

  // --- statements ---------------------------------------------------------------------------

  /** Statements of one list; in a kernel whose threads may exit, what follows a return runs only while the thread lives. */
  protected stmtList(list: AstNode[], ind: string, out: string[], hoist: boolean): void {
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

  protected flushPre(ind: string, out: string[]): void {
    for (const l of this.pre) out.push(ind + l);
    this.pre = [];
  }

  protected stmt(s: AstNode, ind: string, out: string[], hoist = false): void {
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
            if (!this.hoisted.has(d)) { this.hoisted.add(d); this.topDecls.push(`var u_${d.outName}: ${wgslType(t)};`); }
            out.push(`${ind}u_${d.outName} = ${init ?? zero(wgslType(t))};`);
          } else {
            out.push(`${ind}${d.isConst && init !== undefined ? 'let' : 'var'} u_${d.outName}${d.isConst && init !== undefined ? '' : `: ${wgslType(t)}`}${init !== undefined ? ` = ${init}` : ''};`);
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
        if (this.conditionalMinMax(s, ind, out)) return;
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
        const strided = s.kind === NK.Do ? undefined : stridedLoop(this.fn, s, (d) => d.node ? reprOf(this.declType(d, d.node)) === 'i32' : false);
        // Only an i32 comparison and step: the unrolled trips compute the iterations left in i32.
        if (strided && this.opType(strided.counter, strided.end) === 'i32' && (this.litKind(strided.stride) === 'int' || this.ty(strided.stride) === 'i32')) {
          this.unrolledTrips(strided, i2, out);
        }
        out.push(`${i2}loop {`);
        if (s.kind !== NK.Do && s.condition) {
          const c = this.expr(s.condition, 'bool');
          this.flushPre(i3, out);
          out.push(`${i3}if (!${paren(c)}) { break; }`);
        }
        this.threadLoops++;
        const exits = this.continueEndsCopy;
        this.continueEndsCopy = false;
        this.stmtList(listOf(s.body), i3, out, false);
        this.continueEndsCopy = exits;
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
      case NK.Continue: out.push(`${ind}${this.continueEndsCopy ? 'break' : 'continue'};`); return;
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

  /**
   * The trips of a strided loop (wgslUnroll.ts) that have UNROLL iterations left, each as UNROLL
   * copies of the body; the loop as written runs the rest. A copy whose body may `continue` is
   * a one-trip loop of its own whose `break` is the body's `continue` (a `continuing { break
   * if true; }` instead gave wrong sums on SwiftShader).
   */
  private unrolledTrips(l: StridedLoop, ind: string, out: string[]): void {
    const end = this.expr(l.end, 'i32'), stride = this.expr(l.stride, 'i32');
    this.flushPre(ind, out);
    const e = this.g.temp(), st = this.g.temp(), i = `u_${l.decl.outName}`;
    const i2 = ind + '  ', i3 = ind + '    ', i4 = ind + '      ';
    // A step past 2^29 could overflow (UNROLL - 1) * step: such loops take the loop as written.
    out.push(`${ind}let ${e} = ${end};`, `${ind}let ${st} = ${stride};`, `${ind}if (${st} > 0i && ${st} <= 0x1fffffffi) {`, `${i2}loop {`,
      `${i3}if (!(${i} < ${e} && ${e} - ${i} > ${UNROLL - 1}i * ${st})) { break; }`);
    this.threadLoops++;
    for (let k = 0; k < UNROLL; k++) {
      if (l.continues) {
        out.push(`${i3}loop {`);
        this.continueEndsCopy = true;
        this.stmtList(l.body, i4, out, false);
        this.continueEndsCopy = false;
        out.push(`${i4}break;`, `${i3}}`);
      } else {
        out.push(`${i3}{`);
        this.stmtList(l.body, i4, out, false);
        out.push(`${i3}}`);
      }
      out.push(`${i3}${i} = ${i} + ${st};`);
    }
    this.threadLoops--;
    out.push(`${i2}}`, `${ind}}`);
  }

  protected abstract blockList(stmts: AstNode[], ind: string, out: string[]): void;
}
