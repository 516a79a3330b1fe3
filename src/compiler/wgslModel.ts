// The shapes the WGSL back end's parts share: the error that turns into a diagnostic, a kernel
// array and how the kernel uses it, a function being printed (the kernel or a device function
// specialized for the arrays bound to it), and the operator and Mathf tables.

import { type AstNode } from './ast.js';
import type { Decl, FunctionInfo } from './frontend.js';

/** A construct without a WGSL form, at a node. */
export class NoWgsl extends Error {
  constructor(readonly node: AstNode, readonly file: string, message: string) { super(message); }
}

/** A kernel-level array (a parameter, a `__shared__` or a `__local__` array) and how the kernel uses it. */
export interface ArrRef {
  decl: Decl;
  name: string;                 // the WGSL variable
  elem: string;                 // the element dtype
  /** private: a `__local__` array, one per invocation (WGSL's private address space). */
  space: 'storage' | 'workgroup' | 'private';
  id: number;                   // array id (meta.arrays)
  written: boolean;
  atomic: boolean;
  /** Sites that read an element (atomics included; a plain `a[i] = v` target is not a read). */
  loadSites: number;
  /** Sites that write an element (atomics included). */
  storeSites: number;
  /** A write site inside a loop or a device function (one site may then write more than once per thread). */
  storeRepeats: boolean;
  dynamic: boolean;
  count: number;
}

export interface FnCtx {
  fn: FunctionInfo;
  kernel: boolean;
  arrays: Map<Decl, ArrRef>;
}

export interface Specialization { name: string; ctx: FnCtx }

const ASSIGN_OPS = /^(=|\+=|-=|\*=|\/=|%=|&=|\|=|\^=|<<=|>>=|>>>=)$/;
export const isAssignOp = (op: string): boolean => ASSIGN_OPS.test(op);

export const MATHF: Record<string, string> = {
  abs: 'abs', ceil: 'ceil', floor: 'floor', trunc: 'trunc', sqrt: 'sqrt', sin: 'sin', cos: 'cos', tan: 'tan', asin: 'asin',
  acos: 'acos', atan: 'atan', atan2: 'atan2', sinh: 'sinh', cosh: 'cosh', tanh: 'tanh', asinh: 'asinh', acosh: 'acosh',
  atanh: 'atanh', exp: 'exp', log: 'log', log2: 'log2', pow: 'pow', min: 'min', max: 'max', sign: 'sign',
};
/** Math's functions the WGSL back end computes in f64 exactly as wasm does (src/compiler/wgslWide.ts): the wasm instructions. */
export const MATH_F64: ReadonlySet<string> = new Set(['abs', 'ceil', 'floor', 'trunc', 'sqrt', 'min', 'max', 'fround']);
export const MATHF_CONSTANTS: Record<string, number> = { PI: Math.PI, E: Math.E, LN2: Math.LN2, LN10: Math.LN10, LOG2E: Math.LOG2E, LOG10E: Math.LOG10E, SQRT2: Math.SQRT2, SQRT1_2: Math.SQRT1_2 };

/** s in parentheses unless it is a name or a member access. */
export function paren(s: string): string { return /^[\w.]+$/.test(s) ? s : `(${s})`; }
