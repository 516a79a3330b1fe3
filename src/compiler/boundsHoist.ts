// Bounds checks hoisted out of grid-stride loops by loop versioning. A checked access costs a
// compare and a branch per element: measured 30-40 % of countModules and VecMax on one core. In
//
//   for (let i = INIT; i < BOUND; i += STEP) … A[i] …        (or: while (i < BOUND) { …; i += STEP; })
//
// where i is changed only by its increment and BOUND, STEP are loop-invariant, every A[i] is in
// bounds when INIT >= 0 (i at the loop's entry), STEP > 0, BOUND <= A.length and BOUND + STEP
// does not overflow i32 (so i never wraps). The printer emits the loop twice: behind those
// conditions with A[i] unchecked, and as written (checked) otherwise; an out-of-bounds kernel
// still traps, in the checked copy.

import { NK, operatorOf, walk, type AstNode } from './ast.js';

/** What the printer needs to version one loop. */
export interface HoistPlan {
  /** The induction variable's identifier node (any occurrence: for its declaration). */
  variable: AstNode;
  /** The loop's first i: the for initializer's value, or null for a while loop (i as it stands). */
  init: AstNode | null;
  bound: AstNode;
  /** The increment (null: ++/--, i.e. 1). */
  step: AstNode | null;
  /** The accesses A[i] made unchecked in the fast copy, with the array identifier of each. */
  accesses: { node: AstNode; array: AstNode }[];
}

export interface HoistContext {
  /** The declaration an identifier refers to (undefined: a global name or a builtin). */
  declOf(id: AstNode): object | undefined;
  /** The declaration a `let x = …` declares. */
  declared(variableDeclaration: AstNode): object | undefined;
  /** Whether an identifier names an array (parameter or __shared__). */
  isArray(id: AstNode): boolean;
  /** Whether the declaration's type is i32. */
  isI32(decl: object): boolean;
}

const unparen = (e: AstNode): AstNode => { while (e.kind === NK.Parenthesized) e = e.expression as AstNode; return e; };
const isAssignOp = (op: string): boolean => /=$/.test(op) && !/^(==|!=|===|!==|<=|>=)$/.test(op);

/** Declarations assigned (or declared) anywhere in n. */
function assigned(n: AstNode | null, c: HoistContext): Set<object> {
  const out = new Set<object>();
  walk(n, (x) => {
    if (x.kind === NK.Binary && isAssignOp(operatorOf(x)) && unparen(x.left).kind === NK.Identifier) { const d = c.declOf(unparen(x.left)); if (d) out.add(d); }
    if ((x.kind === NK.UnaryPostfix || x.kind === NK.UnaryPrefix) && /^(\+\+|--)$/.test(operatorOf(x)) && unparen(x.operand).kind === NK.Identifier) {
      const d = c.declOf(unparen(x.operand)); if (d) out.add(d);
    }
  });
  return out;
}

/** Loop-invariant and side-effect free: no calls, element reads, assignments or names changed in the loop. */
function invariant(e: AstNode, changed: Set<object>, c: HoistContext): boolean {
  let ok = true;
  walk(e, (x) => {
    if (x.kind === NK.Call || x.kind === NK.ElementAccess || x.kind === NK.UnaryPostfix || x.kind === NK.Comma) ok = false;
    if (x.kind === NK.UnaryPrefix && /^(\+\+|--)$/.test(operatorOf(x))) ok = false;
    if (x.kind === NK.Binary && isAssignOp(operatorOf(x))) ok = false;
    if (x.kind === NK.Identifier) { const d = c.declOf(x); if (d && (changed.has(d) || c.isArray(x))) ok = false; }
  });
  return ok;
}

/** `i += STEP`, `i++`, `++i` on decl d: the step (null for 1), or undefined if it is none of those. */
function incrementOf(e: AstNode, d: object, c: HoistContext): AstNode | null | undefined {
  e = unparen(e);
  if ((e.kind === NK.UnaryPostfix || e.kind === NK.UnaryPrefix) && operatorOf(e) === '++' && unparen(e.operand).kind === NK.Identifier && c.declOf(unparen(e.operand)) === d) return null;
  if (e.kind === NK.Binary && operatorOf(e) === '+=' && unparen(e.left).kind === NK.Identifier && c.declOf(unparen(e.left)) === d) return e.right as AstNode;
  return undefined;
}

/** The plan for a `for` or `while` loop, or undefined when it is not a grid-stride loop as above. */
export function hoistPlan(loop: AstNode, c: HoistContext): HoistPlan | undefined {
  let variable: AstNode, init: AstNode | null, step: AstNode | null | undefined, body: AstNode;
  const cond = loop.condition ? unparen(loop.condition as AstNode) : undefined;
  if (!cond || cond.kind !== NK.Binary || operatorOf(cond) !== '<' || unparen(cond.left).kind !== NK.Identifier) return undefined;
  variable = unparen(cond.left);
  const d = c.declOf(variable);
  if (!d || !c.isI32(d)) return undefined;
  const bound = cond.right as AstNode;
  let changedBy: AstNode[];
  if (loop.kind === NK.For) {
    const decls = loop.initializer?.kind === NK.Variable ? (loop.initializer.declarations as AstNode[]) : [];
    if (decls.length !== 1 || !decls[0]!.initializer || c.declared(decls[0]!) !== d) return undefined;
    init = decls[0]!.initializer as AstNode;
    if (!loop.incrementor) return undefined;
    step = incrementOf(loop.incrementor as AstNode, d, c);
    body = loop.body as AstNode;
    changedBy = [body];
  } else if (loop.kind === NK.While) {
    // while (i < BOUND) { …; i += STEP; }: the increment is the body's last statement.
    init = null;
    const stmts = loop.body?.kind === NK.Block ? (loop.body.statements as AstNode[]) : [];
    const last = stmts[stmts.length - 1];
    if (!last || last.kind !== NK.Expression) return undefined;
    step = incrementOf(last.expression as AstNode, d, c);
    body = loop.body as AstNode;
    changedBy = stmts.slice(0, -1);
  } else return undefined;
  if (step === undefined) return undefined;
  const changed = new Set<object>();
  for (const n of changedBy) for (const x of assigned(n, c)) changed.add(x);
  if (changed.has(d)) return undefined; // i changed other than by its increment
  changed.add(d); // (by the increment itself: BOUND and STEP may not mention i)
  if (!invariant(bound, changed, c) || (step && !invariant(step, changed, c)) || (init && !invariant(init, new Set(), c))) return undefined;
  const accesses: { node: AstNode; array: AstNode }[] = [];
  walk(body, (x) => {
    if (x.kind === NK.ElementAccess && x.expression.kind === NK.Identifier && c.isArray(x.expression)) {
      const ix = unparen(x.elementExpression as AstNode);
      if (ix.kind === NK.Identifier && c.declOf(ix) === d) accesses.push({ node: x, array: x.expression as AstNode });
    }
    // A nested function or loop that redeclares i cannot occur (names are unique per scope).
  });
  return accesses.length ? { variable, init, bound, step, accesses } : undefined;
}
