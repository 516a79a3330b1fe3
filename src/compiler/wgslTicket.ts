// CUDA's atomicInc on a global counter, fast and exact in WGSL.
//
// WGSL has no atomicInc: the exact form is a compare-exchange loop, and on a GPU many threads
// bumping one counter through such a loop retry each other out (countModules on an H100: 9.4×
// CUDA's time). A plain atomicAdd "ticket" taken modulo (val + 1) gives the same values as CUDA's
// wrapping increment — every ticket differs from CUDA's value by a multiple of val + 1, and the
// thread whose ticket completes a cycle subtracts val + 1 (cudaAtomicIncFromBelow) — but only
// while the counter starts at or below val, every atomic on it is that same increment, and
// nothing else writes it during the launch.
//
// The compiler proves the part it can see: a *ticket site* is a global u32 array every atomic of
// whose (in the kernel's own body, not a device function) is atomicInc at one constant index with
// one launch-uniform bound (a scalar parameter or a constant). The rest is decided at run time,
// per launch: a one-thread guard dispatch before the kernel (entry point `sx_guard`, same
// bindings) looks at the counter and the bound and sets the site's bit in the trap record's spare
// word (sx_err[11]) only when the ticket form is exact — counter ≤ val < 2^31 (tickets never wrap
// u32) or val = 0xffffffff (the increment is then a plain wrapping add). The kernel takes the
// ticket when the bit is set and the compare-exchange loop otherwise, and a plain store to the
// counter's element during the launch clears the bit, so the increments after it (a barrier
// orders them, or they race, as in CUDA) take the exact loop.

import { type AstNode, NK } from './ast.js';
import type { FrontEndAnalysis, FunctionInfo } from './frontend.js';
import type { ArrRef, FnCtx } from './wgslModel.js';

/** One atomic call on a kernel array, as the usage scan saw it. */
export interface AtomicUse { op: string; index: AstNode; operands: AstNode[]; ctx: FnCtx }

/** A ticket site: the array's counter element, the bound as a launch-uniform WGSL expression, the site's bit in sx_err[11]. */
export interface TicketSite { index: number; bound: string; bit: number }

/** The trap record word holding the ticket sites' bits (the record's spare word). */
export const TICKET_WORD = 11;
/** Entry point of the guard dispatch. */
export const GUARD_ENTRY_POINT = 'sx_guard';

/** A launch-uniform bound: a kernel scalar parameter (by declaration) or a constant (by value); undefined otherwise. */
function boundOf(fe: FrontEndAnalysis, fn: FunctionInfo, e: AstNode): { key: string; text: string } | undefined {
  if (e.kind === NK.Identifier) {
    const d = fn.refs.get(e);
    if (d?.param === 'scalar') return { key: `p:${d.name}`, text: `launch.s_${d.name}` };
    if (d) return undefined;
  }
  const v = fe.constValue(e);
  if (v === undefined || !Number.isInteger(v) || v < 0 || v > 0xffffffff) return undefined;
  return { key: `c:${v}`, text: `${v}u` };
}

/** The ticket sites of a kernel's arrays (see the file's comment), by array. */
export function findTicketSites(fe: FrontEndAnalysis, fn: FunctionInfo, uses: ReadonlyMap<ArrRef, AtomicUse[]>): Map<ArrRef, TicketSite> {
  const sites = new Map<ArrRef, TicketSite>();
  for (const [r, list] of uses) {
    if (r.space !== 'storage' || r.elem !== 'u32' || list.length === 0 || sites.size >= 20) continue;
    let index: number | undefined, bound: { key: string; text: string } | undefined;
    const ok = list.every((u) => {
      if (u.op !== 'atomicInc' || !u.ctx.kernel || u.operands.length !== 1) return false;
      const i = fe.constValue(u.index);
      const b = boundOf(fe, fn, u.operands[0]!);
      if (i === undefined || !Number.isInteger(i) || i < 0 || i > 0x7fffffff || !b) return false;
      if (index === undefined) { index = i; bound = b; return true; }
      return i === index && b.key === bound!.key;
    });
    if (ok) sites.set(r, { index: index!, bound: bound!.text, bit: 1 << sites.size });
  }
  return sites;
}

/** The body of atomicInc on a ticket site: the ticket where this launch's guard found it exact, else the compare-exchange loop. */
export function ticketIncBody(s: TicketSite, p: string): string {
  return `  if ((atomicLoad(&sx_err[${TICKET_WORD}]) & ${s.bit}u) != 0u) { return cudaAtomicIncFromBelow(${p}, v); }\n  return cudaAtomicInc(${p}, v);`;
}

/** The statement a plain store of a ticket site's array adds: a store to the counter sends later increments to the exact loop. */
export function ticketStoreClear(s: TicketSite, i: string): string {
  return `if (${i} == ${s.index}u) { atomicAnd(&sx_err[${TICKET_WORD}], ${(~s.bit >>> 0)}u); }`;
}

/** The guard entry point: one invocation sets the bit of every site whose ticket form is exact for this launch. */
export function guardEntryPoint(sites: ReadonlyMap<ArrRef, TicketSite>, lengthOf: (r: ArrRef) => string): string {
  const checks = [...sites].map(([r, s]) => `  {
    let v = ${s.bound};
    if (v == 0xffffffffu || (v < 0x80000000u && ${s.index}u < ${lengthOf(r)} && atomicLoad(&${r.name}[${s.index}u]) <= v)) { bits = bits | ${s.bit}u; }
  }`);
  return `@compute @workgroup_size(1)
fn ${GUARD_ENTRY_POINT}() {
  var bits = 0u;
${checks.join('\n')}
  atomicStore(&sx_err[${TICKET_WORD}], bits);
}`;
}
