// The AssemblyScript parser, its AST and its printer, as the compiler uses them. The
// assemblyscript package is loaded lazily (it is large: Binaryen is most of it), once.

/* eslint-disable @typescript-eslint/no-explicit-any */

/** An AssemblyScript AST node. The compiler reads fields by name (see the AS sources, src/ast.ts). */
export interface AstNode {
  kind: number;
  range: { start: number; end: number; source: { text: string; normalizedPath: string; lineAt(pos: number): number; columnAt(): number } };
  [field: string]: any;
}

export type AssemblyScript = typeof import('assemblyscript');

let loaded: Promise<AssemblyScript> | undefined;

/** The assemblyscript module (compiler, parser, AST printer). */
export function loadAssemblyScript(): Promise<AssemblyScript> {
  loaded ??= import('assemblyscript');
  return loaded;
}

/** Node kinds used by the compiler (AssemblyScript's NodeKind; checked against it at load). */
export const NK = {
  NamedType: 1, Identifier: 7, Assertion: 8, Binary: 9, Call: 10, Comma: 12, ElementAccess: 13, False: 14,
  Literal: 17, New: 18, Null: 19, Parenthesized: 21, PropertyAccess: 22, Ternary: 23, This: 25, True: 26,
  UnaryPostfix: 28, UnaryPrefix: 29, Block: 31, Break: 32, Continue: 33, Do: 34, Empty: 35, Export: 36,
  Expression: 39, For: 40, ForOf: 41, If: 42, Import: 43, Return: 44, Switch: 45, Throw: 46, Try: 47,
  Variable: 48, Void: 49, While: 50, ClassDeclaration: 52, EnumDeclaration: 53, FunctionDeclaration: 56,
  ImportDeclaration: 57, InterfaceDeclaration: 58, NamespaceDeclaration: 60, TypeDeclaration: 61,
  VariableDeclaration: 62,
} as const;

/** Literal kinds (LiteralKind). */
export const LK = { Float: 0, Integer: 1, String: 2, Template: 3, RegExp: 4, Array: 5, Object: 6 } as const;

/** Checks that the kinds above match the loaded compiler's (a version change would break them). */
export function checkNodeKinds(as: AssemblyScript): void {
  const kinds = (as as any).NodeKind as Record<string, number>;
  for (const [name, value] of Object.entries(NK)) {
    if (kinds[name] !== value) throw new Error(`internal: assemblyscript's NodeKind.${name} is ${kinds[name]}, the compiler expects ${value}`);
  }
}

/** The source text of a node. */
export function textOf(n: AstNode): string {
  return n.range.source.text.substring(n.range.start, n.range.end);
}

/** 1-based line and column of a node in its source. */
export function lineCol(n: AstNode): { line: number; column: number } {
  const text = n.range.source.text;
  let line = 1, lastNl = -1;
  for (let i = 0; i < n.range.start; i++) if (text.charCodeAt(i) === 10) { line++; lastNl = i; }
  return { line, column: n.range.start - lastNl };
}

/** The operator of a binary, prefix or postfix expression, read from the source. */
export function operatorOf(n: AstNode): string {
  const text = n.range.source.text;
  if (n.kind === NK.Binary) return text.substring(n.left.range.end, n.right.range.start).replace(/\/\*.*?\*\//g, '').trim();
  if (n.kind === NK.UnaryPrefix) return text.substring(n.range.start, n.operand.range.start).trim();
  return text.substring(n.operand.range.end, n.range.end).trim();
}

/** Fields that hold types, names of declarations or back references: not walked. */
const SKIP_KEYS = new Set(['range', 'parent', 'type', 'returnType', 'typeArguments', 'toType', 'typeParameters', 'signature', 'decorators', 'isType']);

/** The expression inside any parentheses. */
export function unparen(e: AstNode): AstNode {
  while (e.kind === NK.Parenthesized) e = e.expression as AstNode;
  return e;
}

/** Every node's parent below root (expressions and statements). */
export function parentsOf(root: AstNode): Map<AstNode, AstNode> {
  const parent = new Map<AstNode, AstNode>();
  const link = (n: AstNode) => forEachChild(n, (c) => { parent.set(c, n); link(c); });
  link(root);
  return parent;
}

/** Calls fn on each direct child node of n (expressions and statements), in field order. */
export function forEachChild(n: AstNode, fn: (child: AstNode) => void): void {
  for (const key of Object.keys(n)) {
    if (SKIP_KEYS.has(key)) continue;
    const v = n[key];
    if (Array.isArray(v)) { for (const c of v) if (c && typeof c === 'object' && typeof c.kind === 'number') fn(c); }
    else if (v && typeof v === 'object' && typeof v.kind === 'number') fn(v);
  }
}

/** Calls fn on every node below n (expressions and statements), depth first, before children. */
export function walk(n: AstNode | null | undefined, fn: (node: AstNode) => boolean | void): void {
  if (!n || typeof n !== 'object' || typeof n.kind !== 'number') return;
  if (fn(n) === false) return;
  for (const key of Object.keys(n)) {
    if (SKIP_KEYS.has(key)) continue;
    const v = n[key];
    if (Array.isArray(v)) { for (const c of v) if (c && typeof c === 'object' && typeof c.kind === 'number') walk(c, fn); }
    else if (v && typeof v === 'object' && typeof v.kind === 'number') walk(v, fn);
  }
}
