// A kernel's range proof (src/compiler/rangeProof.ts) evaluated once for a whole launch, on the
// host: the webgpu backend's answer to the block form's proven copy. The block form runs the
// proof per block, inside wasm; a GPU launch cannot, so the host evaluates the same statements
// with blockIdx as the interval of every block of the grid (interval arithmetic: each value the
// proof names becomes the hull of its values over the blocks), and where every check holds for
// all of them the launch runs the shader's proven form, whose proven accesses are unchecked
// (src/compiler/wgslArrays.ts: `sx_proven`). The interval over blocks is looser than the
// per-block one (the proof's values lose their correlation through blockIdx), so a launch the
// host cannot prove runs checked, as before: never the other way round.
//
// The proof is text in the block form's syntax (i64 arithmetic, `<i64>` casts, min/max, ?:);
// it is parsed here, never run as code, so a module's metadata cannot inject any.

/** What the compiler stores with a kernel's WGSL: the proof's statements and what its names stand for. */
export interface LaunchProofMeta {
  /** The proof's statements (`const __lo1: i64 = …;`, `if (!(…)) return false;`). */
  lines: string[];
  /** Scalar parameters the proof reads, by the name it uses → the parameter's index. */
  scalars: Record<string, number>;
  /** Array lengths (elements) the proof reads, by the name it uses → the array parameter's index. */
  lengths: Record<string, number>;
}

/** A launch's values: the grid and block, dynamic shared bytes, and every parameter's value (arrays: their length). */
export interface LaunchValues {
  grid: { x: number; y: number; z: number };
  block: { x: number; y: number; z: number };
  sharedBytes: number;
  /** By parameter index: a scalar's value, an array's length in elements. */
  params: readonly number[];
}

type Expr =
  | { k: 'num'; v: number }
  | { k: 'name'; n: string; slot: number }
  | { k: 'call'; f: 'min' | 'max'; a: Expr; b: Expr }
  | { k: 'cast'; t: 'i64' | 'i32'; e: Expr }
  | { k: 'neg'; e: Expr }
  | { k: 'bin'; op: string; l: Expr; r: Expr }
  | { k: 'cond'; c: Expr; t: Expr; f: Expr };

type Stmt = { k: 'const'; decls: [number, Expr][] } | { k: 'require'; c: Expr };

/** A proof the host can evaluate: compileLaunchProof's result. */
export interface LaunchProof {
  /** Whether every block of this launch passes the proof (false also when the host cannot tell). */
  holds(v: LaunchValues): boolean;
}

class NotProven extends Error {}

/** The names the block form's proof prelude defines (`__bix` … `__ssize`): slots 0–9. */
const LAUNCH_NAMES = ['__bix', '__biy', '__biz', '__bdx', '__bdy', '__bdz', '__gdx', '__gdy', '__gdz', '__ssize'];

/**
 * Parses a proof; throws an Error naming the problem when a statement is not in the proof's
 * syntax or names something the launch does not give (the compiler then stores no proof).
 * Evaluating it costs the host a launch's worth of microseconds, so the last launch's values
 * and answer are kept: a launch like the one before is answered at once.
 */
export function compileLaunchProof(meta: LaunchProofMeta): LaunchProof {
  // Every name gets a slot of the environment (lo at 2·slot, hi at 2·slot + 1).
  const slots = new Map<string, number>();
  for (const n of [...LAUNCH_NAMES, ...Object.keys(meta.scalars), ...Object.keys(meta.lengths)]) if (!slots.has(n)) slots.set(n, slots.size);
  const inputs = [...Object.entries(meta.scalars), ...Object.entries(meta.lengths)].map(([n, k]) => [slots.get(n)!, k] as const);
  const stmts = meta.lines.map((line) => parseStatement(line, slots));
  const env = new Float64Array(2 * slots.size);
  let last: { key: number[]; result: boolean } | undefined;
  const evaluateAll = (v: LaunchValues): boolean => {
    const set = (slot: number, lo: number, hi: number) => { env[2 * slot] = lo; env[2 * slot + 1] = hi; };
    set(0, 0, v.grid.x - 1); set(1, 0, v.grid.y - 1); set(2, 0, v.grid.z - 1);
    set(3, v.block.x, v.block.x); set(4, v.block.y, v.block.y); set(5, v.block.z, v.block.z);
    set(6, v.grid.x, v.grid.x); set(7, v.grid.y, v.grid.y); set(8, v.grid.z, v.grid.z);
    set(9, v.sharedBytes, v.sharedBytes);
    for (const [slot, k] of inputs) { const x = v.params[k]!; if (!Number.isSafeInteger(x)) return false; set(slot, x, x); }
    try {
      for (const s of stmts) {
        if (s.k === 'const') for (const [slot, e] of s.decls) { evaluate(e, env); set(slot, LO, HI); }
        else if (test(s.c, env) !== true) return false;
      }
      return true;
    } catch (e) {
      if (e instanceof NotProven) return false;
      throw e;
    }
  };
  return {
    holds(v: LaunchValues): boolean {
      if (v.grid.x * v.grid.y * v.grid.z === 0) return false;
      const key = [v.grid.x, v.grid.y, v.grid.z, v.block.x, v.block.y, v.block.z, v.sharedBytes, ...v.params];
      if (last && last.key.length === key.length && last.key.every((x, i) => x === key[i])) return last.result;
      const result = evaluateAll(v);
      last = { key, result };
      return result;
    },
  };
}

// --- evaluation: intervals of safe integers -------------------------------------------------
// An expression's interval over every block of the launch comes back in LO and HI (no
// allocation per operation: the proof is evaluated on every launch that differs from the last).

let LO = 0, HI = 0;

function safe(x: number): number {
  if (!Number.isSafeInteger(x)) throw new NotProven();
  return x;
}

function evaluate(e: Expr, env: Float64Array): void {
  switch (e.k) {
    case 'num': LO = HI = e.v; return;
    case 'name': LO = env[2 * e.slot]!; HI = env[2 * e.slot + 1]!; return;
    case 'neg': { evaluate(e.e, env); const lo = LO; LO = safe(-HI); HI = safe(-lo); return; }
    case 'cast':
      evaluate(e.e, env);
      if (e.t === 'i64' || (LO >= -0x80000000 && HI <= 0x7fffffff)) return;
      if (LO !== HI) throw new NotProven(); // wraps for some blocks only: not an interval any more
      LO = HI = Number(BigInt.asIntN(32, BigInt(LO)));
      return;
    case 'call': {
      evaluate(e.a, env); const alo = LO, ahi = HI;
      evaluate(e.b, env);
      if (e.f === 'min') { LO = Math.min(alo, LO); HI = Math.min(ahi, HI); } else { LO = Math.max(alo, LO); HI = Math.max(ahi, HI); }
      return;
    }
    case 'cond': {
      const c = test(e.c, env);
      if (c === true) { evaluate(e.t, env); return; }
      if (c === false) { evaluate(e.f, env); return; }
      evaluate(e.t, env); const tlo = LO, thi = HI;
      evaluate(e.f, env); LO = Math.min(tlo, LO); HI = Math.max(thi, HI);
      return;
    }
    case 'bin': {
      evaluate(e.l, env); const alo = LO, ahi = HI;
      evaluate(e.r, env);
      binary(e.op, alo, ahi, LO, HI);
      return;
    }
  }
}

function binary(op: string, alo: number, ahi: number, blo: number, bhi: number): void {
  switch (op) {
    case '+': LO = safe(alo + blo); HI = safe(ahi + bhi); return;
    case '-': LO = safe(alo - bhi); HI = safe(ahi - blo); return;
    case '*': {
      const p = alo * blo, q = alo * bhi, r = ahi * blo, s = ahi * bhi;
      LO = safe(Math.min(p, q, r, s)); HI = safe(Math.max(p, q, r, s));
      return;
    }
    case '/':
      // Non-negative by positive: truncation is monotonic in both (the proof requires this before dividing).
      if (alo < 0 || blo < 1) throw new NotProven();
      LO = Math.trunc(alo / bhi); HI = Math.trunc(ahi / blo);
      return;
    case '%':
      if (alo < 0 || blo < 1) throw new NotProven();
      if (alo === ahi && blo === bhi) { LO = HI = alo % blo; return; }
      LO = 0; HI = Math.min(ahi, bhi - 1);
      return;
    case '<<': case '>>': case '>>>': {
      if (blo !== bhi || blo < 0 || blo > 31) throw new NotProven();
      if (op === '>>>' && alo < 0) throw new NotProven();
      const p = 2 ** blo;
      if (op === '<<') { LO = safe(alo * p); HI = safe(ahi * p); } else { LO = Math.floor(alo / p); HI = Math.floor(ahi / p); }
      return;
    }
    default: throw new NotProven();
  }
}

/** A condition for every block: true, false, or undefined where the blocks may differ (or the host cannot tell). */
function test(e: Expr, env: Float64Array): boolean | undefined {
  if (e.k === 'bin' && (e.op === '&&' || e.op === '||')) {
    const a = test(e.l, env), b = test(e.r, env);
    if (e.op === '&&') return a === false || b === false ? false : a === true && b === true ? true : undefined;
    return a === true || b === true ? true : a === false && b === false ? false : undefined;
  }
  if (e.k !== 'bin') throw new NotProven();
  evaluate(e.l, env); const alo = LO, ahi = HI;
  evaluate(e.r, env); const blo = LO, bhi = HI;
  switch (e.op) {
    case '>=': return alo >= bhi ? true : ahi < blo ? false : undefined;
    case '>': return alo > bhi ? true : ahi <= blo ? false : undefined;
    case '<=': return ahi <= blo ? true : alo > bhi ? false : undefined;
    case '<': return ahi < blo ? true : alo >= bhi ? false : undefined;
    case '==': case '!=': {
      const eq = alo === ahi && blo === bhi ? alo === blo : ahi < blo || alo > bhi ? false : undefined;
      return eq === undefined || e.op === '==' ? eq : !eq;
    }
    default: throw new NotProven();
  }
}

// --- parsing: the proof's statements ------------------------------------------------------------

const TOKEN = /\s*(>>>|>>|<<|>=|<=|==|!=|&&|\|\||[A-Za-z_$][\w$]*|\d+|[-+*/%<>()?:,;=!])/y;

function tokenize(line: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < line.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(line);
    if (!m) {
      if (/^\s*$/.test(line.slice(at))) break;
      throw new Error(`launch proof: unexpected '${line.slice(at, at + 12)}' in: ${line}`);
    }
    out.push(m[1]!);
  }
  return out;
}

const BINARY: Record<string, number> = {
  '||': 2, '&&': 3, '==': 7, '!=': 7, '<': 8, '>': 8, '<=': 8, '>=': 8, '<<': 9, '>>': 9, '>>>': 9, '+': 10, '-': 10, '*': 11, '/': 11, '%': 11,
};

class Parser {
  private i = 0;
  constructor(private readonly t: string[], private readonly line: string, private readonly slots: Map<string, number>) {}

  private fail(what: string): never { throw new Error(`launch proof: ${what} in: ${this.line}`); }
  private peek(k = 0): string | undefined { return this.t[this.i + k]; }
  private next(): string { const x = this.t[this.i++]; if (x === undefined) this.fail('unexpected end'); return x; }
  private eat(x: string): void { if (this.next() !== x) this.fail(`expected '${x}'`); }
  done(): void { if (this.i !== this.t.length) this.fail(`unexpected '${this.peek()}'`); }

  statement(): Stmt {
    if (this.peek() === 'const') {
      this.next();
      const decls: [number, Expr][] = [];
      for (;;) {
        const name = this.next();
        if (!/^__(lo|hi|v)\d+$/.test(name)) this.fail(`a temporary's name expected, got '${name}'`);
        this.eat(':'); this.eat('i64'); this.eat('=');
        const value = this.expr(0);
        if (!this.slots.has(name)) this.slots.set(name, this.slots.size);
        decls.push([this.slots.get(name)!, value]);
        if (this.peek() === ',') { this.next(); continue; }
        this.eat(';');
        return { k: 'const', decls };
      }
    }
    this.eat('if'); this.eat('('); this.eat('!'); this.eat('(');
    const c = this.expr(0);
    this.eat(')'); this.eat(')'); this.eat('return'); this.eat('false'); this.eat(';');
    return { k: 'require', c };
  }

  expr(min: number): Expr {
    let left = this.unary();
    for (;;) {
      const op = this.peek();
      if (op === '?' && min <= 1) {
        this.next();
        const t = this.expr(1);
        this.eat(':');
        const f = this.expr(1);
        left = { k: 'cond', c: left, t, f };
        continue;
      }
      const p = op === undefined ? undefined : BINARY[op];
      if (p === undefined || p < min) return left;
      this.next();
      left = { k: 'bin', op: op!, l: left, r: this.expr(p + 1) };
    }
  }

  private unary(): Expr {
    const x = this.peek();
    if (x === '-') { this.next(); return { k: 'neg', e: this.unary() }; }
    if (x === '<' && (this.peek(1) === 'i64' || this.peek(1) === 'i32') && this.peek(2) === '>') {
      this.next(); const t = this.next() as 'i64' | 'i32'; this.next();
      return { k: 'cast', t, e: this.unary() };
    }
    if (x === '(') { this.next(); const e = this.expr(0); this.eat(')'); return e; }
    if (x !== undefined && /^\d+$/.test(x)) { this.next(); const v = Number(x); if (!Number.isSafeInteger(v)) this.fail(`literal ${x} too large`); return { k: 'num', v }; }
    if (x === 'min' || x === 'max') {
      this.next(); this.eat('(');
      const a = this.expr(0); this.eat(',');
      const b = this.expr(0); this.eat(')');
      return { k: 'call', f: x, a, b };
    }
    if (x !== undefined && /^[A-Za-z_$]/.test(x)) {
      this.next();
      const slot = this.slots.get(x);
      if (slot === undefined) this.fail(`unknown name '${x}'`);
      return { k: 'name', n: x, slot };
    }
    return this.fail(`unexpected '${x ?? 'end'}'`);
  }
}

function parseStatement(line: string, slots: Map<string, number>): Stmt {
  const p = new Parser(tokenize(line), line, slots);
  const s = p.statement();
  p.done();
  return s;
}
