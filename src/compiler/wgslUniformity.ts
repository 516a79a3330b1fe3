// Which statements and values WGSL's uniformity analysis will accept as the same for every
// invocation of a workgroup: barriers and warp operations may only run in uniform control flow,
// so the back end needs to know which kernel variables stay uniform and where the collectives are.

import { type AstNode, NK, operatorOf, walk } from './ast.js';
import type { Decl, FrontEndAnalysis, FunctionInfo } from './frontend.js';
import { PURE_CALLS, isCollective } from './language.js';
import { isAssignOp } from './wgslModel.js';

/** What the analysis needs of the kernel being generated. */
export interface UniformityScope { readonly fe: FrontEndAnalysis; readonly hasCollectives: boolean }

export function hasCollective(fn: FunctionInfo, n: AstNode | null): boolean {
  let found = false;
  walk(n, (x) => {
    if (x.kind === NK.Call && x.expression.kind === NK.Identifier && !fn.refs.has(x.expression) && isCollective(x.expression.text)) found = true;
  });
  return found;
}

export function collectivesIn(fn: FunctionInfo, n: AstNode | null): AstNode[] {
  const out: AstNode[] = [];
  walk(n, (x) => {
    if (x.kind === NK.Call && x.expression.kind === NK.Identifier && !fn.refs.has(x.expression) && isCollective(x.expression.text)) { out.push(x); return false; }
    return undefined;
  });
  return out;
}

export function containsReturn(n: AstNode | null): boolean {
  let found = false;
  walk(n, (x) => { if (x.kind === NK.Return) found = true; });
  return found;
}

export function listOf(s: AstNode): AstNode[] { return s.kind === NK.Block ? s.statements : [s]; }

export function assignTarget(fn: FunctionInfo, e: AstNode): { d: Decl; rhs: AstNode | null } | undefined {
  if (e.kind === NK.Binary && isAssignOp(operatorOf(e)) && e.left.kind === NK.Identifier) { const d = fn.refs.get(e.left); if (d) return { d, rhs: e.right }; }
  if ((e.kind === NK.UnaryPostfix || e.kind === NK.UnaryPrefix) && /^(\+\+|--)$/.test(operatorOf(e)) && e.operand.kind === NK.Identifier) {
    const d = fn.refs.get(e.operand); if (d) return { d, rhs: null };
  }
  return undefined;
}

/**
 * Variables that WGSL's uniformity analysis sees as uniform: assigned only by statements at the
 * block level (outside any per-thread code), from uniform values (the front end's rule).
 */
export function findUniformVars(gen: UniformityScope, fn: FunctionInfo): Set<Decl> {
  const candidates = new Map<Decl, AstNode[]>();
  const rejected = new Set<Decl>();
  const uniformAssignments = new Set<AstNode>();
  const visit = (stmts: AstNode[]) => {
    for (const s of stmts) {
      if (s.kind === NK.Variable) {
        for (const vd of s.declarations as AstNode[]) {
          const d = fn.declOf.get(vd);
          if (d && !d.array && vd.initializer && !hasCollective(fn, vd.initializer)) candidates.set(d, [...(candidates.get(d) ?? []), vd.initializer]);
        }
      } else if (s.kind === NK.Expression) {
        const a = assignTarget(fn, s.expression);
        if (a && !hasCollective(fn, s.expression)) { uniformAssignments.add(s.expression); if (a.rhs) candidates.set(a.d, [...(candidates.get(a.d) ?? []), a.rhs]); }
      } else if (hasCollective(fn, s)) {
        if (s.kind === NK.Block) visit(s.statements);
        else if (s.kind === NK.If) { visit(listOf(s.ifTrue)); if (s.ifFalse) visit(listOf(s.ifFalse)); }
        else if (s.kind === NK.While || s.kind === NK.Do) visit(listOf(s.body));
        else if (s.kind === NK.For) {
          if (s.initializer) visit([s.initializer]);
          if (s.incrementor) { const a = assignTarget(fn, s.incrementor); if (a) uniformAssignments.add(s.incrementor); }
          visit(listOf(s.body));
        }
      }
    }
  };
  if (gen.hasCollectives) visit((fn.node.body as AstNode).statements);
  walk(fn.node.body, (n) => { const a = assignTarget(fn, n); if (a && !uniformAssignments.has(n)) rejected.add(a.d); });
  let uniform = new Set([...candidates.keys()].filter((d) => !rejected.has(d)));
  const isUniform = (e: AstNode | null): boolean => uniformExpr(gen, fn, e, uniform);
  for (let changed = true; changed;) {
    changed = false;
    for (const d of [...uniform]) if (!candidates.get(d)!.every(isUniform)) { uniform.delete(d); changed = true; }
  }
  uniform = new Set(uniform);
  return uniform;
}

/** Is e the same for every thread of the block, as WGSL's uniformity analysis will see it? */
export function uniformExpr(gen: UniformityScope, fn: FunctionInfo, e: AstNode | null, uniform: Set<Decl>): boolean {
  if (!e) return true;
  let ok = true;
  walk(e, (n) => {
    if (!ok) return false;
    switch (n.kind) {
      case NK.Literal: case NK.True: case NK.False: case NK.Parenthesized: case NK.Ternary: case NK.Assertion: return undefined;
      case NK.Binary: if (isAssignOp(operatorOf(n))) ok = false; return undefined;
      case NK.UnaryPrefix: if (/^(\+\+|--)$/.test(operatorOf(n))) ok = false; return undefined;
      case NK.Identifier: {
        const d = fn.refs.get(n);
        if (d) ok = d.param === 'scalar' || uniform.has(d);
        else ok = n.text === 'warpSize' || !!gen.fe.moduleConst(n.text);
        return false;
      }
      case NK.PropertyAccess: {
        const o = n.expression as AstNode;
        if (o.kind === NK.Identifier && ['blockIdx', 'blockDim', 'gridDim'].includes(o.text) && !fn.refs.has(o)) return false;
        if (o.kind === NK.Identifier && fn.refs.get(o)?.array && n.property.text === 'length') return false;
        if (o.kind === NK.Identifier && o.text === 'Mathf') return false;
        ok = false; return false;
      }
      case NK.Call: {
        const c = n.expression as AstNode;
        const pure = (c.kind === NK.Identifier && PURE_CALLS.has(c.text) && !fn.refs.has(c)) ||
          (c.kind === NK.PropertyAccess && c.expression.kind === NK.Identifier && c.expression.text === 'Mathf');
        if (!pure) ok = false;
        for (const a of n.args as AstNode[]) if (!uniformExpr(gen, fn, a, uniform)) ok = false;
        return false;
      }
      default: ok = false; return false;
    }
  });
  return ok;
}
