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
  | { k: 'name'; n: string }
  | { k: 'call'; f: 'min' | 'max'; a: Expr; b: Expr }
  | { k: 'cast'; t: 'i64' | 'i32'; e: Expr }
  | { k: 'neg'; e: Expr }
  | { k: 'bin'; op: string; l: Expr; r: Expr }
  | { k: 'cond'; c: Expr; t: Expr; f: Expr };

type Stmt = { k: 'const'; decls: [string, Expr][] } | { k: 'require'; c: Expr };

/** A proof the host can evaluate: compileLaunchProof's result. */
export interface LaunchProof {
  /** Whether every block of this launch passes the proof (false also when the host cannot tell). */
  holds(v: LaunchValues): boolean;
}

class NotProven extends Error {}

/** The names the block form's proof prelude defines (`__bix` … `__ssize`). */
const LAUNCH_NAMES = ['__bix', '__biy', '__biz', '__bdx', '__bdy', '__bdz', '__gdx', '__gdy', '__gdz', '__ssize'];

/**
 * Parses a proof; throws an Error naming the problem when a statement is not in the proof's
 * syntax or names something the launch does not give (the compiler then stores no proof).
 */
export function compileLaunchProof(meta: LaunchProofMeta): LaunchProof {
  const known = new Set([...LAUNCH_NAMES, ...Object.keys(meta.scalars), ...Object.keys(meta.lengths)]);
  const stmts = meta.lines.map((line) => parseStatement(line, known));
  return {
    holds(v: LaunchValues): boolean {
      if (v.grid.x * v.grid.y * v.grid.z === 0) return false;
      const env = new Map<string, Iv>();
      const exact = (x: number): Iv => [x, x];
      env.set('__bix', [0, v.grid.x - 1]); env.set('__biy', [0, v.grid.y - 1]); env.set('__biz', [0, v.grid.z - 1]);
      env.set('__bdx', exact(v.block.x)); env.set('__bdy', exact(v.block.y)); env.set('__bdz', exact(v.block.z));
      env.set('__gdx', exact(v.grid.x)); env.set('__gdy', exact(v.grid.y)); env.set('__gdz', exact(v.grid.z));
      env.set('__ssize', exact(v.sharedBytes));
      for (const [n, k] of Object.entries(meta.scalars)) env.set(n, exact(v.params[k]!));
      for (const [n, k] of Object.entries(meta.lengths)) env.set(n, exact(v.params[k]!));
      try {
        for (const s of stmts) {
          if (s.k === 'const') for (const [n, e] of s.decls) env.set(n, evaluate(e, env));
          else if (test(s.c, env) !== true) return false;
        }
        return true;
      } catch (e) {
        if (e instanceof NotProven) return false;
        throw e;
      }
    },
  };
}

// --- evaluation: intervals of safe integers -------------------------------------------------

/** [lo, hi] of a value over every block of the launch. */
type Iv = [number, number];

function safe(x: number): number {
  if (!Number.isSafeInteger(x)) throw new NotProven();
  return x;
}

function hull(...xs: number[]): Iv { return [safe(Math.min(...xs)), safe(Math.max(...xs))]; }

function evaluate(e: Expr, env: Map<string, Iv>): Iv {
  switch (e.k) {
    case 'num': return [e.v, e.v];
    case 'name': { const v = env.get(e.n); if (!v) throw new NotProven(); return v; }
    case 'neg': { const [lo, hi] = evaluate(e.e, env); return [safe(-hi), safe(-lo)]; }
    case 'cast': {
      const v = evaluate(e.e, env);
      if (e.t === 'i64' || (v[0] >= -0x80000000 && v[1] <= 0x7fffffff)) return v;
      if (v[0] !== v[1]) throw new NotProven(); // wraps for some blocks only: not an interval any more
      return [Number(BigInt.asIntN(32, BigInt(v[0]))), Number(BigInt.asIntN(32, BigInt(v[0])))];
    }
    case 'call': {
      const a = evaluate(e.a, env), b = evaluate(e.b, env);
      const f = e.f === 'min' ? Math.min : Math.max;
      return [f(a[0], b[0]), f(a[1], b[1])];
    }
    case 'cond': {
      const c = test(e.c, env);
      if (c === true) return evaluate(e.t, env);
      if (c === false) return evaluate(e.f, env);
      const a = evaluate(e.t, env), b = evaluate(e.f, env);
      return [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
    }
    case 'bin': return binary(e.op, evaluate(e.l, env), evaluate(e.r, env));
  }
}

function binary(op: string, a: Iv, b: Iv): Iv {
  switch (op) {
    case '+': return [safe(a[0] + b[0]), safe(a[1] + b[1])];
    case '-': return [safe(a[0] - b[1]), safe(a[1] - b[0])];
    case '*': return hull(a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]);
    case '/':
      // Non-negative by positive: truncation is monotonic in both (the proof requires this before dividing).
      if (a[0] < 0 || b[0] < 1) throw new NotProven();
      return [Math.trunc(a[0] / b[1]), Math.trunc(a[1] / b[0])];
    case '%':
      if (a[0] < 0 || b[0] < 1) throw new NotProven();
      return a[0] === a[1] && b[0] === b[1] ? [a[0] % b[0], a[0] % b[0]] : [0, Math.min(a[1], b[1] - 1)];
    case '<<': case '>>': case '>>>': {
      if (b[0] !== b[1] || b[0] < 0 || b[0] > 31) throw new NotProven();
      if (op === '>>>' && a[0] < 0) throw new NotProven();
      const p = 2 ** b[0];
      return op === '<<' ? [safe(a[0] * p), safe(a[1] * p)] : [Math.floor(a[0] / p), Math.floor(a[1] / p)];
    }
    default: throw new NotProven();
  }
}

/** A condition for every block: true, false, or undefined where the blocks may differ (or the host cannot tell). */
function test(e: Expr, env: Map<string, Iv>): boolean | undefined {
  if (e.k === 'bin' && (e.op === '&&' || e.op === '||')) {
    const a = test(e.l, env), b = test(e.r, env);
    if (e.op === '&&') return a === false || b === false ? false : a === true && b === true ? true : undefined;
    return a === true || b === true ? true : a === false && b === false ? false : undefined;
  }
  if (e.k !== 'bin') throw new NotProven();
  const a = evaluate(e.l, env), b = evaluate(e.r, env);
  switch (e.op) {
    case '>=': return a[0] >= b[1] ? true : a[1] < b[0] ? false : undefined;
    case '>': return a[0] > b[1] ? true : a[1] <= b[0] ? false : undefined;
    case '<=': return a[1] <= b[0] ? true : a[0] > b[1] ? false : undefined;
    case '<': return a[1] < b[0] ? true : a[0] >= b[1] ? false : undefined;
    case '==': return a[0] === a[1] && b[0] === b[1] ? a[0] === b[0] : a[1] < b[0] || a[0] > b[1] ? false : undefined;
    case '!=': { const eq = a[0] === a[1] && b[0] === b[1] ? a[0] === b[0] : a[1] < b[0] || a[0] > b[1] ? false : undefined; return eq === undefined ? undefined : !eq; }
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
  constructor(private readonly t: string[], private readonly line: string, private readonly known: Set<string>) {}

  private fail(what: string): never { throw new Error(`launch proof: ${what} in: ${this.line}`); }
  private peek(k = 0): string | undefined { return this.t[this.i + k]; }
  private next(): string { const x = this.t[this.i++]; if (x === undefined) this.fail('unexpected end'); return x; }
  private eat(x: string): void { if (this.next() !== x) this.fail(`expected '${x}'`); }
  done(): void { if (this.i !== this.t.length) this.fail(`unexpected '${this.peek()}'`); }

  statement(): Stmt {
    if (this.peek() === 'const') {
      this.next();
      const decls: [string, Expr][] = [];
      for (;;) {
        const name = this.next();
        if (!/^__(lo|hi|v)\d+$/.test(name)) this.fail(`a temporary's name expected, got '${name}'`);
        this.eat(':'); this.eat('i64'); this.eat('=');
        decls.push([name, this.expr(0)]);
        this.known.add(name);
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
      if (!this.known.has(x)) this.fail(`unknown name '${x}'`);
      return { k: 'name', n: x };
    }
    return this.fail(`unexpected '${x ?? 'end'}'`);
  }
}

function parseStatement(line: string, known: Set<string>): Stmt {
  const p = new Parser(tokenize(line), line, known);
  const s = p.statement();
  p.done();
  return s;
}
