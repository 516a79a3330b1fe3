// Branch-free float min/max. CUDA kernels reduce with `if (x > m) m = x;` or `m = x > m ? x : m`;
// a C compiler turns that into `maxss`, but V8 lowers a float `select` on x64 to a branch, and on
// data in random order every other one mispredicts (measured: vecMax's per-thread loop 4.5 ns per
// element, against 1 ns for a sum). Wasm's `f32x4.pmax(a, b)` is exactly `a < b ? b : a`
// (`maxps`), so the compiler rewrites those two shapes, for float operands without side effects,
// into `__pmax`/`__pmin` on lane 0: the same result for every input, NaN and signed zeros
// included, since pmax/pmin are defined by that very comparison.

import { NK, operatorOf, textOf, unparen, walk, type AstNode } from './ast.js';

/** `cond ? x : y` as one pmax/pmin of (a, b), evaluated in that order. */
export interface MinMax { op: '__pmax' | '__pmin'; a: AstNode; b: AstNode }

/** Structural equality of two side-effect-free expressions (their source text, spaces ignored). */
function same(x: AstNode, y: AstNode): boolean {
  return textOf(x).replace(/\s+/g, '') === textOf(y).replace(/\s+/g, '');
}

/** No assignments, increments or calls: evaluating it twice, once or not at all is the same. */
export function isPure(e: AstNode): boolean {
  let pure = true;
  walk(e, (n) => {
    if (n.kind === NK.Call || n.kind === NK.UnaryPostfix || n.kind === NK.Comma) pure = false;
    if (n.kind === NK.UnaryPrefix && /^(\+\+|--)$/.test(operatorOf(n))) pure = false;
    if (n.kind === NK.Binary && /=$/.test(operatorOf(n)) && !/^(==|!=|===|!==|<=|>=)$/.test(operatorOf(n))) pure = false;
  });
  return pure;
}

/**
 * `cond ? x : y` where cond is a strict `<`/`>` between x and y: with cond read as `p < q`,
 * `p < q ? q : p` is pmax(p, q) and `p < q ? p : q` is pmin(q, p). Non-strict comparisons differ
 * from pmax/pmin on signed zeros and are left alone.
 */
export function matchMinMax(cond: AstNode, x: AstNode, y: AstNode): MinMax | undefined {
  const c = unparen(cond);
  if (c.kind !== NK.Binary) return undefined;
  const op = operatorOf(c);
  if (op !== '<' && op !== '>') return undefined;
  const p = unparen(op === '<' ? c.left : c.right);
  const q = unparen(op === '<' ? c.right : c.left);
  if (![p, q, x, y].every(isPure)) return undefined;
  if (same(x, q) && same(y, p)) return { op: '__pmax', a: p, b: q };
  if (same(x, p) && same(y, q)) return { op: '__pmin', a: q, b: p };
  return undefined;
}

/**
 * `if ([guard &&] cond) target = value;` (no else): the assignment as `target = cond ? value :
 * target`, with the guard (if any) kept as the if's condition.
 */
export function matchConditionalAssign(ifNode: AstNode): { guard: AstNode | null; target: AstNode; mm: MinMax } | undefined {
  if (ifNode.ifFalse) return undefined;
  let body = ifNode.ifTrue as AstNode;
  if (body.kind === NK.Block) {
    if ((body.statements as AstNode[]).length !== 1) return undefined;
    body = body.statements[0] as AstNode;
  }
  if (body.kind !== NK.Expression) return undefined;
  const assign = unparen(body.expression as AstNode);
  if (assign.kind !== NK.Binary || operatorOf(assign) !== '=') return undefined;
  const target = assign.left as AstNode;
  if (target.kind !== NK.Identifier && target.kind !== NK.ElementAccess) return undefined;
  let cond = unparen(ifNode.condition as AstNode);
  let guard: AstNode | null = null;
  if (cond.kind === NK.Binary && operatorOf(cond) === '&&') { guard = cond.left as AstNode; cond = unparen(cond.right as AstNode); }
  const mm = matchMinMax(cond, assign.right as AstNode, target);
  return mm ? { guard, target, mm } : undefined;
}
