// The block level of a kernel with barriers or warp operations: statements every thread of the
// workgroup runs together (so barriers stay in uniform control flow), conditions and predicates
// made uniform through workgroup memory, warp shuffles and votes emulated in workgroup memory
// (or, in a kernel's subgroup form, subgroup builtins).

import { type AstNode, LK, NK, operatorOf, unparen } from './ast.js';
import type { Decl, FunctionInfo } from './frontend.js';
import { BARRIERS, BLOCK_PREDICATES, WARP_SHUFFLES, WARP_VOTES } from './language.js';
import { isWide, reprOf } from './wgslTypes.js';
import { TRAP_DIVERGENT, TRAP_DIVERGENT_WARP, shuffleFns, subgroupShuffleFns } from './wgslRuntime.js';
import { paren } from './wgslModel.js';
import { assignTarget, collectivesIn, hasCollective, listOf, uniformExpr } from './wgslUniformity.js';
import { StmtEmitter } from './wgslStmt.js';
import { constantTrips, halvingLoop } from './wgslUnroll.js';

/** Prints one function (the kernel's entry body or a device function) as WGSL. */
export class Emitter extends StmtEmitter {
  // --- the block level: barriers and warp operations ------------------------------------------

  /** Predicates of the warp-uniform ifs around the statement being printed (warpPredicatedIf). */
  private readonly preds: string[] = [];

  /** Whether this thread runs the block-level code here: it has not exited and its warp-uniform ifs hold. */
  private activeCond(): string {
    return [...(this.g.exitMode ? ['!sx_exited'] : []), ...this.preds].join(' && ') || 'true';
  }

  protected guard(ind: string, out: string[], lines: string[]): void {
    if (!lines.length) return;
    if (!this.g.exitMode && !this.preds.length) { for (const l of lines) out.push(ind + l); return; }
    out.push(`${ind}if (${this.activeCond()}) {`, ...lines.map((l) => `${ind}  ${l}`), `${ind}}`);
  }

  protected barrier(): string { return this.g.storageBarrier ? 'storageBarrier(); workgroupBarrier();' : 'workgroupBarrier();'; }

  protected isUniformStatement(s: AstNode): boolean {
    if (s.kind === NK.Variable) return (s.declarations as AstNode[]).every((vd) => { const d = this.fn.declOf.get(vd); return !!d && this.g.uniformVars.has(d); });
    if (s.kind === NK.Expression) { const a = assignTarget(this.fn, s.expression); return !!a && this.g.uniformVars.has(a.d); }
    return false;
  }

  protected blockList(stmts: AstNode[], ind: string, out: string[]): void {
    let group: AstNode[] = [];
    const flush = () => {
      if (!group.length) return;
      if (this.g.exitMode || this.preds.length) {
        const inner: string[] = [];
        this.stmtList(group, '', inner, true);
        this.guard(ind, out, inner);
      } else this.stmtList(group, ind, out, false);
      group = [];
    };
    for (let si = 0; si < stmts.length; si++) {
      const s = stmts[si]!;
      if (s.kind === NK.Empty) continue;
      if (s.kind === NK.Variable && (s.declarations as AstNode[]).every((vd) => this.fn.declOf.get(vd)?.array)) continue;
      if (this.isUniformStatement(s)) { flush(); this.stmt(s, ind, out); continue; }
      if (!hasCollective(this.fn, s)) { group.push(s); continue; }
      flush();
      switch (s.kind) {
        case NK.Block: out.push(`${ind}{`); this.blockList(s.statements, ind + '  ', out); out.push(`${ind}}`); break;
        case NK.If:
          if (!hasCollective(this.fn, s.ifTrue) && !(s.ifFalse && hasCollective(this.fn, s.ifFalse))) { this.collectiveStatement(s, [s.condition], ind, out); break; }
          if (this.isWarpUniformIf(s)) { this.warpPredicatedIf(s, ind, out); break; }
          out.push(`${ind}if (${this.blockCond(s.condition, s, ind, out)}) {`);
          this.blockList(listOf(s.ifTrue), ind + '  ', out);
          if (s.ifFalse) { out.push(`${ind}} else {`); this.blockList(listOf(s.ifFalse), ind + '  ', out); }
          out.push(`${ind}}`);
          break;
        case NK.While: case NK.Do: case NK.For: {
          // A block predicate in the condition (`while (__syncthreads_or(more))`): computed by the
          // whole block at each test, so the loop stays uniform. A warp operation there has no form.
          const predicated = !!s.condition && hasCollective(this.fn, s.condition);
          if (predicated && !isBlockPredicate(this.fn, s.condition)) {
            this.fail(s.condition, 'a loop condition with a warp operation, or with a block predicate and more, has no WGSL form yet: compute it in the loop body');
          }
          out.push(`${ind}{`);
          const i2 = ind + '  ', i3 = ind + '    ';
          // A constant trip count (`for (let m = 16; m > 0; m /= 2)`): the trips written out (wgslUnroll.ts).
          const isI32 = (d: Decl) => d.node ? reprOf(this.declType(d, d.node)) === 'i32' : false;
          const trips = constantTrips(this.fn, s, isI32);
          if (trips !== undefined) {
            this.blockList([s.initializer], i2, out);
            const step = { kind: NK.Expression, expression: s.incrementor, range: s.incrementor.range } as AstNode;
            for (let k = 0; k < trips; k++) {
              out.push(`${i2}{`);
              this.blockList(listOf(s.body), i3, out);
              out.push(`${i2}}`);
              this.blockList([step], i2, out);
            }
            out.push(`${ind}}`);
            break;
          }
          // A halving loop from the block size (`for (let s = blockDim.x / 2; s > 0; s >>= 1)`, a
          // reduction's tree): guarded copies, which fold once the pipeline fixes the block size.
          const halving = s.condition && uniformExpr(this.g, this.fn, s.condition, this.g.uniformVars)
            ? halvingLoop(this.fn, s, stmts[si - 1], isI32) : undefined;
          if (halving) {
            if (s.kind === NK.For) this.blockList([s.initializer], i2, out);
            const step = { kind: NK.Expression, expression: halving.step, range: halving.step.range } as AstNode;
            for (let k = 0; k < halving.copies; k++) {
              out.push(`${i2}if (${this.blockCond(s.condition, s, i2, out)}) {`);
              this.blockList([...halving.body, step], i3, out);
              out.push(`${i2}}`);
            }
            out.push(`${ind}}`);
            break;
          }
          if (s.kind === NK.For && s.initializer) this.blockList([s.initializer], i2, out);
          out.push(`${i2}loop {`);
          const test = (): string => (predicated ? this.predicatedCond(s.condition, i3, out) : this.blockCond(s.condition, s, i3, out));
          if (s.kind !== NK.Do && s.condition) out.push(`${i3}if (!${paren(test())}) { break; }`);
          this.blockList(listOf(s.body), i3, out);
          if (s.kind === NK.For && s.incrementor) this.blockList([{ kind: NK.Expression, expression: s.incrementor, range: s.incrementor.range } as AstNode], i3, out);
          if (s.kind === NK.Do) out.push(`${i3}if (!${paren(test())}) { break; }`);
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
  protected blockCond(e: AstNode, construct: AstNode, ind: string, out: string[]): string {
    if (uniformExpr(this.g, this.fn, e, this.g.uniformVars)) {
      const c = this.expr(e, 'bool');
      this.flushPre(ind, out);
      return c;
    }
    const site = this.g.site(construct, this.file, `condition of ${construct.kind === NK.If ? 'an if' : 'a loop'} with a barrier`, TRAP_DIVERGENT);
    const r = this.blockCount(e, ind, out, site);
    return `(${r}.x != 0u && ${r}.x == ${r}.y)`;
  }

  /**
   * A loop condition that is a block predicate (isBlockPredicate: perhaps negated): counted over
   * the block at each test, so its value, and the loop, are uniform.
   */
  protected predicatedCond(e: AstNode, ind: string, out: string[]): string {
    for (const c of collectivesIn(this.fn, e)) this.replace.set(c, this.blockPredicate(c, ind, out));
    const v = this.capture(() => this.expr(e, 'bool'));
    this.guard(ind, out, v.pre);
    return v.value;
  }

  /** __syncthreads_count / _or / _and at call c, counted over the block: its (uniform) value. */
  private blockPredicate(c: AstNode, ind: string, out: string[]): string {
    const r = this.blockCount((c.args as AstNode[])[0]!, ind, out);
    const name = c.expression.text as string;
    return name === '__syncthreads_count' ? `i32(${r}.x)` : name === '__syncthreads_or' ? `i32(${r}.x > 0u)` : `i32(${r}.x == ${r}.y)`;
  }

  /** Counts the live threads and those whose predicate holds (a vec2u, uniform): __syncthreads_count's machinery. */
  protected blockCount(pred: AstNode, ind: string, out: string[], divergenceSite?: number): string {
    this.g.workgroupVars.set('sx_bc', 'var<workgroup> sx_bc_true: atomic<u32>;\nvar<workgroup> sx_bc_live: atomic<u32>;\nvar<workgroup> sx_bc_out: vec2u;');
    const tmp = this.g.temp();
    this.topDecls.push(`var ${tmp}: vec2u;`);
    const p = this.capture(() => this.expr(pred, 'bool'));
    this.guard(ind, out, [...p.pre, `if (${p.value}) { atomicAdd(&sx_bc_true, 1u); }`, 'atomicAdd(&sx_bc_live, 1u);']);
    out.push(`${ind}${this.barrier()}`);
    const trap = divergenceSite === undefined ? '' : ` if (t != 0u && t != l) { sx_trapIf(true, ${TRAP_DIVERGENT}u, ${divergenceSite}u, 0u, 0u, ${divergenceSite}u); }`;
    out.push(`${ind}if (sx_lin == 0u) { let t = atomicLoad(&sx_bc_true); let l = atomicLoad(&sx_bc_live); sx_bc_out = vec2u(t, l); atomicStore(&sx_bc_true, 0u); atomicStore(&sx_bc_live, 0u);${trap} }`);
    out.push(`${ind}${tmp} = workgroupUniformLoad(&sx_bc_out);`);
    return tmp;
  }

  /** A statement holding collectives: each is computed by the whole block, then the statement runs with their results. */
  protected collectiveStatement(s: AstNode, heads: (AstNode | null)[], ind: string, out: string[]): void {
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
        this.replace.set(c, this.blockPredicate(c, ind, out));
        continue;
      }
      if (WARP_VOTES.has(name)) {
        this.g.usesWarpOps = true;
        const { bits, live } = this.warpBallot(this.predicate(args[1]!, ind, out), ind, out);
        const mask = () => this.expr(args[0]!, 'u32');
        this.replace.set(c, name === '__ballot_sync' ? `(${bits} & ${mask()})` : name === '__any_sync' ? `((${bits} & ${mask()}) != 0u)` : `((${bits} & ${mask()}) == (${mask()} & ${live}))`);
        continue;
      }
      // Shuffles: every lane's value through a workgroup array.
      const t = reprOf(this.ty(args[1]!));
      if (t === 'bool') this.fail(args[1]!, `${name} of a bool has no WGSL form: shuffle an i32`);
      if (isWide(t)) this.fail(args[1]!, `${name} of a 64-bit value has no WGSL form yet: shuffle its two 32-bit halves`);
      this.g.usesWarpOps = true;
      if (this.g.subgroups) { this.subgroupShuffle(c, name, t, args, ind, out); continue; }
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

  /** A per-thread bool: e where the thread is active (it has not exited, its warp-uniform ifs hold), false elsewhere. */
  private predicate(e: AstNode, ind: string, out: string[]): string {
    const p = this.g.temp();
    this.topDecls.push(`var ${p}: bool;`);
    const v = this.capture(() => this.expr(e, 'bool'));
    out.push(`${ind}${p} = false;`);
    this.guard(ind, out, [...v.pre, `${p} = ${v.value};`]);
    return p;
  }

  /**
   * Per warp, the bits of the active lanes whose `pred` holds and of all active lanes (exited
   * threads and those outside the warp-uniform ifs around count as neither): subgroupBallot in
   * a kernel's subgroup form, else per-warp atomicOr words between barriers.
   */
  private warpBallot(pred: string, ind: string, out: string[]): { bits: string; live: string } {
    const bits = this.g.temp(), live = this.g.temp();
    this.topDecls.push(`var ${bits}: u32;`, `var ${live}: u32;`);
    if (this.g.subgroups) {
      out.push(`${ind}${bits} = subgroupBallot(${pred}).x; ${live} = subgroupBallot(${this.activeCond()}).x;`);
      return { bits, live };
    }
    this.g.workgroupVars.set('sx_vote', 'var<workgroup> sx_ballot: array<atomic<u32>, 32>;\nvar<workgroup> sx_live: array<atomic<u32>, 32>;');
    out.push(`${ind}if ((sx_lin & 31u) == 0u) { atomicStore(&sx_ballot[sx_lin >> 5u], 0u); atomicStore(&sx_live[sx_lin >> 5u], 0u); }`, `${ind}workgroupBarrier();`);
    this.guard(ind, out, ['atomicOr(&sx_live[sx_lin >> 5u], 1u << (sx_lin & 31u));', `if (${pred}) { atomicOr(&sx_ballot[sx_lin >> 5u], 1u << (sx_lin & 31u)); }`]);
    out.push(`${ind}workgroupBarrier();`, `${ind}${bits} = atomicLoad(&sx_ballot[sx_lin >> 5u]); ${live} = atomicLoad(&sx_live[sx_lin >> 5u]);`, `${ind}workgroupBarrier();`);
    return { bits, live };
  }

  /**
   * A shuffle through subgroup builtins: the operands computed by the live threads, the shuffle
   * by all. A whole-warp xor, up or down by an offset WGSL sees as uniform is its own builtin;
   * the others go through subgroupShuffle with the partner lane computed as the emulation does.
   * (CUDA's offset is unsigned: a negative one keeps the lane's value, as one past the warp does.)
   */
  private subgroupShuffle(c: AstNode, name: string, t: 'i32' | 'u32' | 'f32', args: AstNode[], ind: string, out: string[]): void {
    const kind = { __shfl_sync: 'idx', __shfl_up_sync: 'up', __shfl_down_sync: 'down', __shfl_xor_sync: 'xor' }[name]!;
    const value = this.g.temp(), tmp = this.g.temp();
    this.topDecls.push(`var ${value}: ${t};`, `var ${tmp}: ${t};`);
    const v = this.capture(() => this.expr(args[1]!, t));
    const wholeWarp = !args[3] || (args[3].kind === NK.Literal && args[3].literalKind === LK.Integer && String(args[3].value) === '32');
    if (kind !== 'idx' && wholeWarp && uniformExpr(this.g, this.fn, args[2]!, this.g.uniformVars)) {
      this.guard(ind, out, [...v.pre, `${value} = ${v.value};`]);
      const d = this.capture(() => this.expr(args[2]!, 'i32'));
      const off = this.g.temp();
      const builtin = { xor: 'subgroupShuffleXor', up: 'subgroupShuffleUp', down: 'subgroupShuffleDown' }[kind]!;
      // The partner must be a thread of the block: always, when the block is whole warps (a
      // pipeline constant, so the test folds away; measured on an H100: 7 % of warpSums).
      const whole = 'sx_nthreads % 32u == 0u';
      const ok = kind === 'xor' ? `(${whole} || (sx_lin ^ u32(${off})) < sx_nthreads)`
        : kind === 'up' ? `(sx_lin & 31u) >= u32(${off})` : `(sx_lin & 31u) + u32(${off}) < 32u && (${whole} || sx_lin + u32(${off}) < sx_nthreads)`;
      out.push(`${ind}{`, ...d.pre.map((l) => `${ind}  ${l}`), `${ind}  let ${off} = ${d.value};`,
        `${ind}  ${tmp} = select(${value}, ${builtin}(${value}, u32(${off}) & 31u), ${off} >= 0i && ${off} < 32i && ${ok});`, `${ind}}`);
    } else {
      this.g.helpers.set(`sx_sg_fns_${t}`, subgroupShuffleFns(t));
      const lane = this.g.temp(), width = this.g.temp();
      this.topDecls.push(`var ${lane}: i32;`, `var ${width}: i32;`);
      const a = this.capture(() => this.expr(args[2]!, 'i32'));
      const w = this.capture(() => (args[3] ? this.expr(args[3], 'i32') : '32i'));
      this.guard(ind, out, [...v.pre, `${value} = ${v.value};`, ...a.pre, `${lane} = ${a.value};`, ...w.pre, `${width} = ${w.value};`]);
      out.push(`${ind}${tmp} = sx_sg_${kind}_${t}(${value}, ${lane}, ${width});`);
    }
    this.replace.set(c, tmp);
  }

  /**
   * An `if` around warp operations only (no barrier or block predicate) whose condition WGSL
   * cannot see as uniform: CUDA's block reductions (`if (warp == 0) v = warpSum(v);`) need it
   * to be the same within each warp only.
   */
  private isWarpUniformIf(s: AstNode): boolean {
    if (hasCollective(this.fn, s.condition) || uniformExpr(this.g, this.fn, s.condition, this.g.uniformVars)) return false;
    const calls = [...collectivesIn(this.fn, s.ifTrue), ...collectivesIn(this.fn, s.ifFalse)];
    return calls.every((c) => { const n = c.expression.text as string; return n in WARP_SHUFFLES || WARP_VOTES.has(n); });
  }

  /**
   * A warp-uniform if, as the block form runs it: every thread stores its condition; a warp whose
   * live lanes disagree traps as a divergent warp operation naming the first lane that differs
   * from the warp's first live lane (wasm's __warpUniform); then the whole block runs each
   * branch, its statements and its warp operations' operands guarded by the condition (or its
   * negation). Warp operations stay in uniform control flow; a lane's partner is in its warp,
   * so in the same branch.
   */
  private warpPredicatedIf(s: AstNode, ind: string, out: string[]): void {
    const p = this.predicate(s.condition, ind, out);
    const { bits, live } = this.warpBallot(p, ind, out);
    const site = this.g.site(s, this.file, 'condition of an if with warp operations', TRAP_DIVERGENT_WARP);
    out.push(`${ind}{`,
      `${ind}  let sx_first = select(0u, firstTrailingBit(${live}), ${live} != 0u);`,
      `${ind}  let sx_differ = select(${bits} & ${live}, ${live} & ~${bits}, ((${bits} >> sx_first) & 1u) != 0u);`,
      `${ind}  sx_trapIf(${live} != 0u && sx_differ != 0u && (sx_lin & 31u) == firstTrailingBit(sx_differ), ${TRAP_DIVERGENT_WARP}u, 0u, 0u, 0u, ${site}u);`,
      `${ind}}`);
    this.preds.push(p);
    this.blockList(listOf(s.ifTrue), ind, out);
    this.preds.pop();
    if (s.ifFalse) {
      this.preds.push(`!${p}`);
      this.blockList(listOf(s.ifFalse), ind, out);
      this.preds.pop();
    }
  }
}

/** `__syncthreads_or(p)` (or _and, _count), parenthesized or negated: a loop condition uniform over the block. */
function isBlockPredicate(fn: FunctionInfo, e: AstNode): boolean {
  e = unparen(e);
  if (e.kind === NK.UnaryPrefix && operatorOf(e) === '!') return isBlockPredicate(fn, e.operand);
  return e.kind === NK.Call && e.expression.kind === NK.Identifier && !fn.refs.has(e.expression) && BLOCK_PREDICATES.has(e.expression.text as string);
}
