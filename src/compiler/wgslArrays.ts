// How a shader touches its arrays: length, checked index, load, store and CUDA's atomics per
// array, as helper functions (docs/webgpu.md: 8/16-bit arrays are the host's bytes in u32 words,
// an atomic array is array<atomic<T>>, f32 atomics work on the bits).

import { reprOf, wgslType, wtypeOf, zero, bitsOf, isSmall, isWide } from './wgslTypes.js';
import { TRAP_OUT_OF_BOUNDS, casFn } from './wgslRuntime.js';
import type { ArrRef } from './wgslModel.js';
import { type TicketSite, ticketIncBody, ticketStoreClear } from './wgslTicket.js';

/**
 * The helper functions of one shader that read, write and update its arrays: bounds-checked
 * indices, 8/16-bit elements packed in u32 words, atomics. Each is emitted once per array and
 * operation, on first use (KernelGen, which extends this, assembles them into the shader).
 */
export class ArrayHelpers {
  readonly helpers = new Map<string, string>();
  /** Global counters whose atomicInc may take the ticket form (wgslTicket.ts), by array. */
  tickets = new Map<ArrRef, TicketSite>();

  constructor(readonly checked: boolean) {}

  /** The length of an array as a u32 expression. */
  lengthOf(r: ArrRef): string {
    if (r.space === 'storage') return `launch.n_${r.decl.name}`;
    return r.dynamic ? 'sx_dyn_len' : `${r.count}u`;
  }

  /**
   * The out-of-bounds test of an index into r. `threadX`: the index is threadIdx.x into a
   * workgroup array, in bounds for every thread when BLOCK_X ≤ its length — both constants of
   * the pipeline, so the GPU's compiler folds the test away where that holds (vecMax's
   * `cache[threadIdx.x]`).
   */
  private outOfBounds(r: ArrRef, threadX: boolean, proven: boolean): string {
    const test = threadX && r.space === 'workgroup' ? 'BLOCK_X > n && i >= n' : 'i >= n';
    return proven ? `!sx_proven && ${test}` : test;
  }

  /** The helper's name: per array, `_tx` for threadIdx.x into a workgroup array, `_p` for an access the launch proof covers. */
  private helperName(kind: string, r: ArrRef, threadX: boolean, proven: boolean): string {
    return `sx_${kind}_${r.name}${threadX && r.space === 'workgroup' ? '_tx' : ''}${proven ? '_p' : ''}`;
  }

  /**
   * A checked index (u32) helper for r: notes the trap and clamps to 0, without a branch
   * (wgslRuntime.ts, trapFns). `proven`: an access the launch proof covers, whose check folds
   * away in a pipeline with `sx_proven` set.
   */
  indexHelper(r: ArrRef, threadX = false, proven = false): string {
    const name = this.helperName('ix', r, threadX, proven);
    if (!this.helpers.has(name)) {
      this.helpers.set(name, `fn ${name}(i: u32, sg: u32, site: u32) -> u32 {
  let n = ${this.lengthOf(r)};
  let bad = ${this.outOfBounds(r, threadX, proven)};
  sx_trapIf(bad, ${TRAP_OUT_OF_BOUNDS}u, ${r.id}u, i, sg, site);
  return select(i, 0u, bad);
}`);
    }
    return name;
  }

  /** The element at u32 index `i` of r (i in bounds), as its WType representation. */
  loadText(r: ArrRef, i: string): string {
    const t = wtypeOf(r.elem);
    if (r.space === 'storage' && isSmall(t)) {
      const name = `sx_get_${r.name}`;
      if (!this.helpers.has(name)) {
        const b = bitsOf(t), per = 32 / b, shift = per === 4 ? 2 : 1;
        const word = r.atomic || r.written ? `atomicLoad(&${r.name}[i >> ${shift}u])` : `${r.name}[i >> ${shift}u]`;
        const sh = `((i & ${per - 1}u) * ${b}u)`;
        const body = reprOf(t) === 'u32' ? `return (w >> ${sh}) & ${2 ** b - 1}u;` : `return bitcast<i32>(w << (${32 - b}u - ${sh})) >> ${32 - b}u;`;
        this.helpers.set(name, `fn ${name}(i: u32) -> ${reprOf(t)} {\n  let w = ${word};\n  ${body}\n}`);
      }
      return `${name}(${i})`;
    }
    if (r.atomic) return r.elem === 'f32' ? `bitcast<f32>(atomicLoad(&${r.name}[${i}]))` : `atomicLoad(&${r.name}[${i}])`;
    return `${r.name}[${i}]`;
  }

  /** A statement storing v (the element's representation) at u32 index i of r. */
  storeText(r: ArrRef, i: string, v: string): string {
    const t = wtypeOf(r.elem);
    if (r.space === 'storage' && isSmall(t)) {
      // Another thread may write the word's other halves or bytes at the same time: compare-exchange.
      const name = `sx_put_${r.name}`;
      if (!this.helpers.has(name)) {
        const b = bitsOf(t), per = 32 / b, shift = per === 4 ? 2 : 1;
        this.helpers.set(name, `fn ${name}(i: u32, v: ${reprOf(t)}) {
  let p = &${r.name}[i >> ${shift}u];
  let sh = (i & ${per - 1}u) * ${b}u;
  let m = ${2 ** b - 1}u << sh;
  var old = atomicLoad(p);
  loop {
    let r = atomicCompareExchangeWeak(p, old, (old & ~m) | ((u32(v) << sh) & m));
    if (r.exchanged) { return; }
    old = r.old_value;
  }
}`);
      }
      return `${name}(${i}, ${v});`;
    }
    const ticket = this.tickets.get(r);
    if (ticket) {
      // A store to a ticket counter's array: one that hits the counter sends later increments to the exact loop.
      const name = `sx_put_${r.name}`;
      if (!this.helpers.has(name)) this.helpers.set(name, `fn ${name}(i: u32, v: u32) {\n  ${ticketStoreClear(ticket, 'i')}\n  atomicStore(&${r.name}[i], v);\n}`);
      return `${name}(${i}, ${v});`;
    }
    if (r.atomic) return `atomicStore(&${r.name}[${i}], ${r.elem === 'f32' ? `bitcast<u32>(${v})` : v});`;
    return `${r.name}[${i}] = ${v};`;
  }

  /** A checked store helper for r (`proven` as for indexHelper). */
  storeHelper(r: ArrRef, threadX = false, proven = false): string {
    const name = this.helperName('st', r, threadX, proven);
    if (!this.helpers.has(name)) {
      const rt = wgslType(wtypeOf(r.elem));
      this.helpers.set(name, `fn ${name}(i: u32, sg: u32, site: u32, v: ${rt}) {
  let n = ${this.lengthOf(r)};
  let bad = ${this.outOfBounds(r, threadX, proven)};
  sx_trapIf(bad, ${TRAP_OUT_OF_BOUNDS}u, ${r.id}u, i, sg, site);
  if (!bad) { ${this.storeText(r, 'i', 'v')} }
}`);
    }
    return name;
  }

  /** The helper performing CUDA atomic `op` on r (checked: a trap returns 0 and changes nothing). */
  atomicHelper(r: ArrRef, op: string): string {
    const name = `sx_${op}_${r.name}`;
    if (this.helpers.has(name)) return name;
    const t = r.elem as 'i32' | 'u32' | 'f32';
    const wg = r.space === 'workgroup' ? 'Wg' : '';
    const p = `&${r.name}[i]`;
    const word = t === 'f32' ? 'u32' : t;
    let expr: string;
    switch (op) {
      case 'atomicAdd': expr = t === 'f32' ? `cudaAtomicAddF32${wg}(${p}, v)` : `atomicAdd(${p}, v)`; break;
      case 'atomicSub': expr = `atomicSub(${p}, v)`; break;
      case 'atomicExch': expr = t === 'f32' ? `bitcast<f32>(atomicExchange(${p}, bitcast<u32>(v)))` : `atomicExchange(${p}, v)`; break;
      case 'atomicMin': expr = t === 'f32' ? `cudaAtomicMinF32${wg}(${p}, v)` : `atomicMin(${p}, v)`; break;
      case 'atomicMax': expr = t === 'f32' ? `cudaAtomicMaxF32${wg}(${p}, v)` : `atomicMax(${p}, v)`; break;
      case 'atomicInc': expr = `cudaAtomicInc${wg}(${p}, v)`; break;
      case 'atomicDec': expr = `cudaAtomicDec${wg}(${p}, v)`; break;
      case 'atomicAnd': expr = `atomicAnd(${p}, v)`; break;
      case 'atomicOr': expr = `atomicOr(${p}, v)`; break;
      case 'atomicXor': expr = `atomicXor(${p}, v)`; break;
      case 'atomicCAS': {
        const cas = `sx_cas_${r.space}_${word}`;
        if (!this.helpers.has(cas)) this.helpers.set(cas, casFn(cas, r.space === 'storage' ? `ptr<storage, atomic<${word}>, read_write>` : `ptr<workgroup, atomic<${word}>>`, word));
        expr = `${cas}(${p}, c, v)`;
        break;
      }
      default: throw new Error(`internal: atomic ${op}`);
    }
    const operand = op === 'atomicInc' || op === 'atomicDec' ? 'u32' : t;
    const args = op === 'atomicCAS' ? `c: ${t}, v: ${t}` : `v: ${operand}`;
    const check = this.checked ? `  let n = ${this.lengthOf(r)};\n  if (i >= n) { sx_trapIf(true, ${TRAP_OUT_OF_BOUNDS}u, ${r.id}u, i, sg, site); return ${zero(reprOf(t))}; }\n` : '';
    const ticket = op === 'atomicInc' ? this.tickets.get(r) : undefined;
    const body = ticket ? ticketIncBody(ticket, p) : `  return ${expr};`;
    this.helpers.set(name, `fn ${name}(i: u32, sg: u32, site: u32, ${args}) -> ${t} {\n${check}${body}\n}`);
    return name;
  }
}

/** The element type of a storage binding. */
export function storageElem(r: ArrRef): string {
  if (isSmall(wtypeOf(r.elem))) return r.written ? 'atomic<u32>' : 'u32';
  if (r.atomic) return `atomic<${r.elem === 'f32' ? 'u32' : r.elem}>`;
  return isWide(wtypeOf(r.elem)) ? 'vec2u' : r.elem;
}

/** The element type of a workgroup array. */
export function workgroupElem(r: ArrRef): string {
  const t = wgslType(wtypeOf(r.elem));
  if (r.atomic) return `atomic<${t === 'f32' ? 'u32' : t}>`;
  return t;
}
