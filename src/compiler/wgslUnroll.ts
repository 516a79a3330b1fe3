// Strided loops unrolled in the generated WGSL. A GPU hides memory latency with loads in flight;
// a grid-stride loop as written has one load per iteration and a loop-carried branch, and the
// GPU's compiler does not unroll a loop whose trip count it cannot see. CUDA's compiler does
// (4x), so the same kernel through Tint reached only 0.7x of CUDA's bandwidth. Measured on an H100
// through Dawn (16M f32, vecMax): 0.0593 -> 0.0350 ms at grid 1024 x 256, against CUDA's 0.038.
//
// The loop `for (let i = I; i < E; i += S) body` (or `while (i < E) { body; i += S; }`), with E
// and S the same on every iteration, runs as UNROLL copies of body per trip while at least UNROLL
// iterations are left, then the loop as written for the rest: the same iterations in the same
// order, so every result is the same.

import { type AstNode, LK, NK, operatorOf, unparen, walk } from './ast.js';
import type { Decl, FunctionInfo } from './frontend.js';
import { isAssignOp } from './wgslModel.js';
import { listOf } from './wgslUniformity.js';

/** Copies of the body per trip of an unrolled loop. */
export const UNROLL = 4;

/** A loop the emitter unrolls: its counter, bound, step and body. */
export interface StridedLoop {
  decl: Decl;
  /** The counter as the condition names it (`i` of `i < E`). */
  counter: AstNode;
  end: AstNode;
  stride: AstNode;
  /** The body without the `i += S` of a while loop. */
  body: AstNode[];
  /** A `continue` leaves the body's copy (a for loop's body may continue; a while loop's may not). */
  continues: boolean;
}

/** The name an assignment or increment writes, if it is a plain name. */
function assigned(x: AstNode): AstNode | undefined {
  if (x.kind === NK.Binary && isAssignOp(operatorOf(x)) && x.left.kind === NK.Identifier) return x.left;
  if ((x.kind === NK.UnaryPrefix || x.kind === NK.UnaryPostfix) && /^(\+\+|--)$/.test(operatorOf(x)) && x.operand.kind === NK.Identifier) return x.operand;
  return undefined;
}

/**
 * e is the same on every iteration of any loop: literals, kernel parameters (read-only), names
 * declared outside the function (module constants, threadIdx, blockDim, …) and locals the
 * function never assigns after their declaration; no calls and no element reads.
 */
function invariant(fn: FunctionInfo, e: AstNode): boolean {
  let ok = true;
  walk(e, (x) => {
    if (x.kind === NK.Call || x.kind === NK.ElementAccess) ok = false;
    if (x.kind === NK.Identifier) {
      const d = fn.refs.get(x);
      if (d && !d.param && (d.array || !d.node?.initializer || assignedInFunction(fn, d))) ok = false;
    }
    return ok ? undefined : false;
  });
  return ok;
}

function assignedInFunction(fn: FunctionInfo, d: Decl): boolean {
  let found = false;
  walk(fn.node.body, (x) => { const t = assigned(x); if (t && fn.refs.get(t) === d) found = true; });
  return found;
}

/** s as a StridedLoop, or undefined when it is not one (or unrolling it could change what it does). */
export function stridedLoop(fn: FunctionInfo, s: AstNode, isI32: (d: Decl) => boolean): StridedLoop | undefined {
  let decl: Decl | undefined, stride: AstNode | undefined, body: AstNode[];
  const strideOf = (e: AstNode | null): AstNode | undefined =>
    e && e.kind === NK.Binary && operatorOf(e) === '+=' && e.left.kind === NK.Identifier && fn.refs.get(e.left) === decl ? e.right : undefined;
  if (!s.condition) return undefined;
  const c = unparen(s.condition);
  if (c.kind !== NK.Binary || operatorOf(c) !== '<' || c.left.kind !== NK.Identifier) return undefined;
  decl = fn.refs.get(c.left);
  if (!decl || decl.array || decl.param || !isI32(decl)) return undefined;
  if (s.kind === NK.For) {
    stride = strideOf(s.incrementor);
    body = listOf(s.body);
  } else if (s.kind === NK.While) {
    const stmts = listOf(s.body);
    const last = stmts[stmts.length - 1];
    if (!last || last.kind !== NK.Expression) return undefined;
    stride = strideOf(last.expression);
    body = stmts.slice(0, -1);
  } else return undefined;
  if (!stride || !invariant(fn, c.right) || !invariant(fn, stride)) return undefined;
  // A body with a loop of its own (countModules' scan back over invalid ids) gains little from
  // copies, whose loads wait on the inner loop anyway, and the copies' registers cost every
  // thread, the one-trip threads too: measured on an H200 (the generated countModules, 16M
  // digis, unchecked), 0.0862 → 0.0804 ms at one digi per thread (grid 65,536 × 256), 0.0713
  // → 0.0747 ms at 64 (grid 1,024). CUDA's compiler does not unroll such a loop either.
  if (body.some((b) => containsLoop(b))) return undefined;
  // The body may not move i, leave the loop (break, return) or, in a while loop, skip the step.
  const jumps = bodyJumps(fn, body, decl);
  if (jumps.leaves || (jumps.continues && s.kind === NK.While)) return undefined;
  return { decl, counter: c.left as AstNode, end: c.right as AstNode, stride, body, continues: jumps.continues };
}

function containsLoop(n: AstNode): boolean {
  let found = false;
  walk(n, (x) => { if (x.kind === NK.For || x.kind === NK.While || x.kind === NK.Do) found = true; return found ? false : undefined; });
  return found;
}

/**
 * How a loop's body may leave its trip: `leaves` when it returns, breaks out of this loop or
 * assigns the counter `decl`; `continues` when it continues this loop (jumps of nested loops
 * are theirs).
 */
function bodyJumps(fn: FunctionInfo, body: AstNode[], decl: Decl): { leaves: boolean; continues: boolean } {
  let leaves = false, continues = false;
  const scan = (n: AstNode, depth: number): void => walk(n, (x) => {
    if (x !== n && (x.kind === NK.For || x.kind === NK.While || x.kind === NK.Do)) { scan(x, depth + 1); return false; }
    if (x.kind === NK.Return || (x.kind === NK.Break && depth === 0)) leaves = true;
    if (x.kind === NK.Continue && depth === 0) continues = true;
    const t = assigned(x);
    if (t && fn.refs.get(t) === decl) leaves = true;
    return undefined;
  });
  for (const b of body) scan(b, 0);
  return { leaves, continues };
}

/**
 * Loops with a constant trip count, unrolled whole: `for (let m = 16; m > 0; m /= 2)` — the
 * warp-reduction loop — around warp shuffles and barriers. Tint and the GPU's compiler keep
 * such a loop (its step is a division), and each trip pays a branch and keeps the shuffles
 * apart: measured on an H100 (bench/kernels/warpSums.ts, 16M i32), 0.118 ms as a loop against
 * 0.094 ms with the five trips written out (0.137 → 0.099 ms through workgroup memory). The
 * copies run the same trips in the same order. The block form (frontend.ts) writes the same
 * loops out for `wasm` and `serial`.
 */
export const MAX_FULL_UNROLL = 8;

/**
 * The trip count of a `for` loop whose counter starts at an integer literal, is compared with
 * one and stepped by one (`/=`, `*=`, `>>=`, `<<=`, `+=`, `-=`, `++`, `--`), with a body that
 * neither moves the counter nor leaves the loop early; undefined when it is not such a loop or
 * runs more than MAX_FULL_UNROLL trips.
 */
export function constantTrips(fn: FunctionInfo, s: AstNode, isI32: (d: Decl) => boolean): number | undefined {
  if (s.kind !== NK.For || !s.initializer || !s.condition || !s.incrementor) return undefined;
  const init = s.initializer;
  if (init.kind !== NK.Variable || init.declarations.length !== 1) return undefined;
  const vd = init.declarations[0] as AstNode;
  const decl = fn.declOf.get(vd);
  const start = intLiteral(vd.initializer);
  if (!decl || start === undefined || !isI32(decl)) return undefined;
  const c = unparen(s.condition);
  if (c.kind !== NK.Binary || unparen(c.left).kind !== NK.Identifier || fn.refs.get(unparen(c.left)) !== decl) return undefined;
  const bound = intLiteral(c.right);
  const test = { '<': (m: number) => m < bound!, '<=': (m: number) => m <= bound!, '>': (m: number) => m > bound!, '>=': (m: number) => m >= bound!, '!=': (m: number) => m !== bound! }[operatorOf(c)];
  if (bound === undefined || !test) return undefined;
  const step = stepOf(fn, decl, s.incrementor);
  if (!step) return undefined;
  const jumps = bodyJumps(fn, listOf(s.body), decl);
  if (jumps.leaves || jumps.continues) return undefined;
  let m = start, trips = 0;
  while (test(m)) {
    if (++trips > MAX_FULL_UNROLL) return undefined;
    m = step(m);
  }
  return trips;
}

/** An i32 integer literal's value (a leading minus included). */
function intLiteral(e: AstNode | null): number | undefined {
  if (!e) return undefined;
  e = unparen(e);
  if (e.kind === NK.UnaryPrefix && operatorOf(e) === '-') { const v = intLiteral(e.operand); return v === undefined ? undefined : -v; }
  if (e.kind !== NK.Literal || e.literalKind !== LK.Integer) return undefined;
  const v = Number(e.value);
  return Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff ? v : undefined;
}

/** The counter's step as i32 arithmetic (WGSL's: a division truncates, shifts by the low 5 bits). */
function stepOf(fn: FunctionInfo, decl: Decl, x: AstNode): ((m: number) => number) | undefined {
  if ((x.kind === NK.UnaryPrefix || x.kind === NK.UnaryPostfix) && x.operand.kind === NK.Identifier && fn.refs.get(x.operand) === decl) {
    return operatorOf(x) === '++' ? (m) => (m + 1) | 0 : operatorOf(x) === '--' ? (m) => (m - 1) | 0 : undefined;
  }
  if (x.kind !== NK.Binary || x.left.kind !== NK.Identifier || fn.refs.get(x.left) !== decl) return undefined;
  const k = intLiteral(x.right);
  if (k === undefined) return undefined;
  switch (operatorOf(x)) {
    case '+=': return (m) => (m + k) | 0;
    case '-=': return (m) => (m - k) | 0;
    case '*=': return (m) => Math.imul(m, k);
    case '/=': return k === 0 ? undefined : (m) => Math.trunc(m / k) | 0;
    case '>>=': return (m) => m >> (k & 31);
    case '<<=': return (m) => m << (k & 31);
    default: return undefined;
  }
}

/**
 * Halving loops around barriers, the tree of a block reduction: `let s = blockDim.x / 2; while
 * (s != 0) { …; __syncthreads(); s /= 2; }` (or the `for` form). The trip count depends on the
 * block size, a pipeline constant the GPU's compiler sees, yet it keeps the loop: a loop with a
 * barrier is not unrolled, and every trip pays a branch around the barrier. Written out as
 * guarded copies (`if (s != 0) { …; s /= 2; }`), each guard folds once the pipeline fixes the
 * block size, and the tree becomes straight-line code. Measured on an H200 through Dawn (16M f32,
 * the generated vecMax, block 256): 0.150 → 0.103 ms at grid 65,536 and 0.072 → 0.051 ms at
 * 16,384, against CUDA's 0.091 and 0.047 ms.
 *
 * The copies are as many as the loop's trips from the largest start the counter can have
 * (blockDim.x ≤ 1024, blockDim.z ≤ 64, literals; `/` and `>>` by literals): a false guard leaves
 * the counter as it is, so every later guard is false too, and the copies run the trips the loop
 * would, in the same order.
 */
export const MAX_HALVING_COPIES = 11;

/** A halving loop written out: its counter, the guarded copies, the body and the step. */
export interface HalvingLoop {
  decl: Decl;
  copies: number;
  /** The body without the step of a while loop. */
  body: AstNode[];
  /** The counter's step, as an expression (`s /= 2`). */
  step: AstNode;
}

/** The largest block dimension a launch may have (dims.ts): the bound of `blockDim.x` etc. */
const BLOCK_DIM_MAX: Record<string, number> = { x: 1024, y: 1024, z: 64 };

/**
 * s as a HalvingLoop: a `for` or `while` whose condition is `c != 0`, `c > 0` or `c >= 1` on an
 * i32 local c that starts at a value bounded in [0, hi] (the `for` loop's initializer, or the
 * declaration right before the `while` loop, `prev`), steps by `c /= k` or `c >>= k` (k ≥ 2 or
 * ≥ 1: the counter shrinks), and whose body neither moves c nor leaves the loop.
 */
export function halvingLoop(fn: FunctionInfo, s: AstNode, prev: AstNode | undefined, isI32: (d: Decl) => boolean): HalvingLoop | undefined {
  if ((s.kind !== NK.For && s.kind !== NK.While) || !s.condition) return undefined;
  const c = unparen(s.condition);
  if (c.kind !== NK.Binary || unparen(c.left).kind !== NK.Identifier) return undefined;
  const decl = fn.refs.get(unparen(c.left));
  if (!decl || decl.array || decl.param || !isI32(decl)) return undefined;
  const bound = intLiteral(c.right), op = operatorOf(c);
  const test = op === '!=' && bound === 0 ? (m: number) => m !== 0 : op === '>' && bound === 0 ? (m: number) => m > 0 : op === '>=' && bound === 1 ? (m: number) => m >= 1 : undefined;
  if (!test) return undefined;
  let step: AstNode | null, body: AstNode[], init: AstNode | undefined;
  if (s.kind === NK.For) {
    step = s.incrementor;
    body = listOf(s.body);
    init = s.initializer ?? undefined;
  } else {
    const stmts = listOf(s.body);
    const last = stmts[stmts.length - 1];
    if (!last || last.kind !== NK.Expression) return undefined;
    step = last.expression;
    body = stmts.slice(0, -1);
    init = prev;
  }
  if (!step || !init || init.kind !== NK.Variable || init.declarations.length !== 1) return undefined;
  const vd = init.declarations[0] as AstNode;
  if (fn.declOf.get(vd) !== decl) return undefined;
  const next = halvingStep(fn, decl, step);
  const start = vd.initializer ? startRange(fn, vd.initializer) : undefined;
  if (!next || !start || start[0] < 0) return undefined;
  const jumps = bodyJumps(fn, body, decl);
  if (jumps.leaves || jumps.continues) return undefined;
  // Halving is monotone on [0, hi]: the largest start runs the most trips.
  let m = start[1], copies = 0;
  while (test(m)) {
    if (++copies > MAX_HALVING_COPIES) return undefined;
    m = next(m);
  }
  return copies > 0 ? { decl, copies, body, step } : undefined;
}

/** `c /= k` (k ≥ 2), `c >>= k` (1 ≤ k ≤ 31), or the same as `c = c / k`, `c = c >> k`. */
function halvingStep(fn: FunctionInfo, decl: Decl, x: AstNode): ((m: number) => number) | undefined {
  x = unparen(x);
  if (x.kind !== NK.Binary || x.left.kind !== NK.Identifier || fn.refs.get(x.left) !== decl) return undefined;
  let op = operatorOf(x), k: number | undefined;
  if (op === '=') {
    const r = unparen(x.right);
    if (r.kind !== NK.Binary || unparen(r.left).kind !== NK.Identifier || fn.refs.get(unparen(r.left)) !== decl) return undefined;
    op = `${operatorOf(r)}=`;
    k = intLiteral(r.right);
  } else k = intLiteral(x.right);
  if (k === undefined) return undefined;
  if (op === '/=' && k >= 2) return (m) => Math.trunc(m / k!);
  if (op === '>>=' && k >= 1 && k <= 31) return (m) => m >> k!;
  return undefined;
}

/** [lo, hi] of a start value made of integer literals and blockDim, divided or shifted right by literals. */
function startRange(fn: FunctionInfo, e: AstNode): [number, number] | undefined {
  e = unparen(e);
  const lit = intLiteral(e);
  if (lit !== undefined) return [lit, lit];
  if (e.kind === NK.PropertyAccess && e.expression.kind === NK.Identifier && e.expression.text === 'blockDim' && !fn.refs.has(e.expression)) {
    const hi = BLOCK_DIM_MAX[e.property.text as string];
    return hi === undefined ? undefined : [1, hi];
  }
  if (e.kind !== NK.Binary) return undefined;
  const k = intLiteral(e.right), r = startRange(fn, e.left);
  if (k === undefined || !r || r[0] < 0) return undefined;
  switch (operatorOf(e)) {
    case '/': return k > 0 ? [Math.trunc(r[0] / k), Math.trunc(r[1] / k)] : undefined;
    case '>>': return k >= 0 && k <= 31 ? [r[0] >> k, r[1] >> k] : undefined;
    default: return undefined;
  }
}
