// Warp-resident shuffle chains for the fast block form.
//
// A warp-shuffle reduction (`for (o = 16; o > 0; o /= 2) v += __shfl_down_sync(m, v, o)`) splits
// the block into one region per shuffle: each region is a pass over the block's threads that
// loads `v` from its context slot, reads the partner lanes' slot, adds and stores `v` back. Five
// such passes cost more than the loads that produced `v` (a sum over 16M floats spent half its
// time in them). No barrier stands between the regions, so CUDA allows any interleaving of the
// warps there; in particular each warp may run the whole chain before the next warp starts. Run
// that way, a warp's 32 values are eight v128 locals for the whole chain, and a shuffle whose lane
// argument is a compile-time constant is a lane permutation of those registers
// (`i8x16.shuffle`), not a pass over memory.
//
// This module turns such a run of block-level steps into that form: the x4 text of each shuffle
// region (laneVector.ts) is written out once for each of a warp's eight four-lane groups with its
// context slots renamed to registers, and the uniform statements between the regions (the loop
// variable's updates of a written-out loop) are evaluated here to find each shuffle's constant
// lane argument. Anything else (a shuffle whose lane argument is not constant, a vote, a region
// touching a context slot through another helper) leaves the run to the ordinary passes.

/** One block-level step of a candidate chain, in program order. */
export type ChainStep =
  /** A uniform statement (`offset /= 2;`): its printed lines and the statement text alone. */
  | { k: 'ustmt'; lines: string[]; text: string }
  /** A region that only copies context slots into others (a shuffle's operand). */
  | { k: 'copy'; copies: { from: number; to: number; type: string }[] }
  /** A region with an x4 form (its function text). */
  | { k: 'region'; x4: string };

/** Lanes per warp, and four-lane groups per warp. */
const WARP = 32;
const GROUPS = WARP / 4;

/** Names a region body may not use in a chain: they read or write per-thread state in memory. */
const FORBIDDEN = /__ctx|__shfl|__pred|__ballot|__activeLanes|__uniform|__exit|__warpUniform|__liveCount|__predCount|__thread|__setThread|\breturn\b|beginPhase|threadAt/;

// --- constant evaluation of uniform statements and lane arguments ---------------------------------

type Env = Map<string, number>;

/**
 * The value of a printed integer expression whose identifiers are in `env`, or undefined when it
 * is not such an expression or leaves the 32-bit range (the operators the printer emits; `<i32>`
 * and `<u32>` casts of in-range values are the value itself).
 */
export function evalConstant(text: string, env: Env): number | undefined {
  const toks = text.replace(/<(i32|u32)>/g, ' ').match(/0x[0-9a-fA-F]+|\d+|[A-Za-z_$][\w$]*|>>>|<<|>>|\S/g) ?? [];
  let p = 0;
  const ok = (v: number | undefined): number | undefined => (v !== undefined && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 ? v : undefined);
  const binary = (level: number): number | undefined => {
    const ops = LEVELS[level];
    if (!ops) return unary();
    let a = binary(level + 1);
    while (a !== undefined && p < toks.length && ops.includes(toks[p]!)) {
      const op = toks[p++]!;
      const b = binary(level + 1);
      if (b === undefined) return undefined;
      a = ok(apply(op, a, b));
    }
    return a;
  };
  const unary = (): number | undefined => {
    const t = toks[p++];
    if (t === undefined) return undefined;
    if (t === '-') { const v = unary(); return v === undefined ? undefined : ok(-v); }
    if (t === '~') { const v = unary(); return v === undefined ? undefined : ~v; }
    if (t === '(') { const v = binary(0); return toks[p++] === ')' ? v : undefined; }
    if (/^(0x[0-9a-fA-F]+|\d+)$/.test(t)) return ok(Number(t));
    return env.get(t);
  };
  const v = binary(0);
  return p === toks.length ? v : undefined;
}

const LEVELS: string[][] = [['|'], ['^'], ['&'], ['<<', '>>', '>>>'], ['+', '-'], ['*', '/', '%']];

function apply(op: string, a: number, b: number): number | undefined {
  switch (op) {
    case '|': return a | b;
    case '^': return a ^ b;
    case '&': return a & b;
    case '<<': return a << b;
    case '>>': return a >> b;
    case '>>>': return (a >>> b) | 0;
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return b === 0 ? undefined : Math.trunc(a / b);
    case '%': return b === 0 ? undefined : a % b;
  }
  return undefined;
}

/**
 * Applies a uniform statement's assignments (`x = e;`, `x op= e;`, `x++;`) to `env`; false when
 * one of them is not a constant assignment of an `i32` variable (of `integers`; the evaluation
 * follows i32 arithmetic only) — the chain stops before it.
 */
function applyStatement(text: string, env: Env, assigned: Set<string>, integers: ReadonlySet<string>): boolean {
  const parts = text.split(';').map((s) => s.trim()).filter((s) => s);
  if (parts.length === 0) return false;
  for (const s of parts) {
    let m = /^([A-Za-z_$][\w$]*)\s*(\+\+|--)$/.exec(s) ?? /^(?:\+\+|--)\s*([A-Za-z_$][\w$]*)$/.exec(s);
    if (m) {
      if (!integers.has(m[1]!)) return false;
      const v = env.get(m[1]!);
      if (v === undefined) return false;
      env.set(m[1]!, v + (s.includes('++') ? 1 : -1));
      assigned.add(m[1]!);
      continue;
    }
    m = /^([A-Za-z_$][\w$]*)\s*(=|\+=|-=|\*=|\/=|%=|<<=|>>=|>>>=|&=|\|=|\^=)\s*(.+)$/.exec(s);
    if (!m) return false;
    const [, name, op, rhs] = m as unknown as [string, string, string, string];
    if (!integers.has(name)) return false;
    const r = evalConstant(rhs, env);
    if (r === undefined) return false;
    let v: number | undefined = r;
    if (op !== '=') {
      const old = env.get(name);
      v = old === undefined ? undefined : apply(op.slice(0, -1), old, r);
      if (v === undefined || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) return false;
    }
    env.set(name, v);
    assigned.add(name);
  }
  return true;
}

// --- the x4 text of a region, once per four-lane group ---------------------------------------------

/** The calls rewritten in a region body, with their argument lists split at top-level commas. */
const CALL = /__(ctxLoad4|ctxStore4|shfl(?:Up|Down|Xor)?U4)(?:<\w+>)?\(/g;

function splitArgs(text: string, open: number): { args: string[]; end: number } | undefined {
  const args: string[] = [];
  let depth = 0, start = open + 1;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) { args.push(text.slice(start, i).trim()); return { args, end: i + 1 }; }
    } else if (c === ',' && depth === 1) { args.push(text.slice(start, i).trim()); start = i + 1; }
  }
  return undefined;
}

/** The lane of its warp that lane `lane` reads in a shuffle (compiled.ts's scalar rules, full warps). */
function sourceLane(kind: string, arg: number, lane: number, width: number): number {
  switch (kind) {
    case 'shflU4': return (lane & ~(width - 1)) + (arg & (width - 1));
    case 'shflUpU4': return arg >= 0 && (lane & (width - 1)) >= arg ? lane - arg : lane;
    case 'shflDownU4': return arg >= 0 && (lane & (width - 1)) + arg < width ? lane + arg : lane;
    default: {
      const src = lane ^ arg;
      const segmentEnd = (lane & ~(width - 1)) + width;
      return src >= segmentEnd || src < 0 || src >= WARP ? lane : src;
    }
  }
}

/** Group k's four values of a shuffle, from the snapshot registers `__x<slot>_<group>`. */
function registerShuffle(slot: string, kind: string, arg: number, width: number, k: number): string | undefined {
  const src = [0, 1, 2, 3].map((j) => sourceLane(kind, arg, 4 * k + j, width));
  const groups = [...new Set(src.map((s) => s >> 2))];
  // Four consecutive lanes read from at most two groups under every kind, width (1 … 32) and
  // lane argument (checked exhaustively for arguments −70 … 70); anything else is not a chain.
  if (groups.length > 2 || src.some((s) => s < 0 || s >= WARP)) return undefined;
  const a = groups[0]!, b = groups[1] ?? a;
  const idx = src.map((s) => ((s >> 2) === a ? s & 3 : 4 + (s & 3)));
  if (idx.every((x, j) => x === j)) return `__x${slot}_${a}`;
  return `v128.shuffle<i32>(__x${slot}_${a}, __x${slot}_${b}, ${idx.join(', ')})`;
}

interface GroupText { text: string; reads: Set<number>; writes: Set<number>; sources: Set<number> }

/** A region's x4 body for group k with its slots in registers; undefined when it cannot be. */
function groupBody(body: string, k: number, env: Env): GroupText | undefined {
  const reads = new Set<number>(), writes = new Set<number>(), sources = new Set<number>();
  let failed = false;
  const rewrite = (text: string): string => {
    let out = '', last = 0;
    CALL.lastIndex = 0;
    const calls: { start: number; end: number; name: string; args: string[] }[] = [];
    for (let m = CALL.exec(text); m; m = CALL.exec(text)) {
      const open = m.index + m[0].length - 1;
      const s = splitArgs(text, open);
      if (!s) { failed = true; return text; }
      calls.push({ start: m.index, end: s.end, name: m[1]!, args: s.args });
      CALL.lastIndex = s.end;
    }
    for (const c of calls) {
      out += text.slice(last, c.start);
      last = c.end;
      const slot = Number(c.args[0]);
      if (!Number.isInteger(slot)) { failed = true; continue; }
      if (c.name === 'ctxLoad4') {
        if (c.args.length !== 2 || c.args[1] !== '__t0') failed = true;
        reads.add(slot);
        out += `__w${slot}_${k}`;
      } else if (c.name === 'ctxStore4') {
        if (c.args.length !== 3 || c.args[1] !== '__t0') failed = true;
        writes.add(slot);
        out += `__w${slot}_${k} = ${rewrite(c.args[2]!)}`;
      } else {
        const arg = evalConstant(c.args[1]!, env), width = evalConstant(c.args[3]!, env);
        if (c.args.length !== 4 || c.args[2] !== '__t0' || arg === undefined || width === undefined || width < 1 || width > WARP) { failed = true; continue; }
        const v = registerShuffle(String(slot), c.name, arg, width, k);
        if (!v) { failed = true; continue; }
        sources.add(slot);
        out += v;
      }
    }
    return out + text.slice(last);
  };
  const text = rewrite(body);
  if (failed || FORBIDDEN.test(text)) return undefined;
  return { text, reads, writes, sources };
}

/** The body of an x4 region function (between its braces). */
function functionBody(x4: string): string | undefined {
  const open = x4.indexOf('): void {\n');
  const close = x4.lastIndexOf('\n}');
  return open < 0 || close < open ? undefined : x4.slice(open + '): void {\n'.length, close);
}

// --- the chain ---------------------------------------------------------------------------------------

/** A chain found at the start of `steps`: how many steps it takes and its warp loop. */
export interface WarpChain { length: number; text: string }

/**
 * The longest chain at the start of `steps` that holds a shuffle, written as a loop over the
 * block's warps (for blocks whose x extent is a multiple of 32, which the caller tests), or
 * undefined. `integers`: the block-level variables of type i32 (the uniform statements may
 * assign only those); `ind` is the indentation of the loop.
 */
export function warpChainAt(steps: ChainStep[], integers: ReadonlySet<string>, ind: string): WarpChain | undefined {
  const env: Env = new Map();
  const assigned = new Set<string>();
  const texts: string[] = [];
  const seen: string[] = []; // region bodies so far (a later uniform statement must not change what they read)
  const loaded = new Set<number>(), written = new Set<number>();
  const read = (slot: number) => { if (!written.has(slot)) loaded.add(slot); };
  let best: WarpChain | undefined;
  let shuffles = 0;
  const in2 = ind + '    ';
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    if (s.k === 'ustmt') {
      const names = new Set<string>();
      const trial = new Map(env);
      if (!applyStatement(s.text, trial, names, integers)) break;
      // A variable the chain assigns must not be read earlier in it before that: each warp
      // runs the statement again, so a later warp would read the value of an earlier one.
      if ([...names].some((n) => !assigned.has(n) && seen.some((b) => new RegExp(`\\b${n.replace(/\$/g, '\\$')}\\b`).test(b)))) break;
      for (const [n, v] of trial) env.set(n, v);
      for (const n of names) assigned.add(n);
      texts.push(...s.lines.map((l) => in2 + l));
    } else if (s.k === 'copy') {
      if (s.copies.some((c) => !/^(i32|u32|f32)$/.test(c.type))) break;
      for (const c of s.copies) read(c.from);
      for (const c of s.copies) written.add(c.to);
      texts.push(s.copies.map((c) => `${in2}${Array.from({ length: GROUPS }, (_, k) => `__w${c.to}_${k} = __w${c.from}_${k};`).join(' ')}`).join('\n'));
    } else {
      const body = functionBody(s.x4);
      if (!body) break;
      const groups: GroupText[] = [];
      for (let k = 0; k < GROUPS; k++) {
        const g = groupBody(body, k, env);
        if (!g) break;
        groups.push(g);
      }
      if (groups.length < GROUPS || groups[0]!.sources.size === 0) break;
      const g0 = groups[0]!;
      for (const slot of g0.sources) read(slot);
      for (const slot of g0.reads) read(slot);
      for (const slot of g0.writes) written.add(slot);
      const snapshot = [...g0.sources].map((slot) => `${in2}  const ${Array.from({ length: GROUPS }, (_, k) => `__x${slot}_${k} = __w${slot}_${k}`).join(', ')};`);
      const lanes = groups.map((g, k) => `${in2}  { const __t = __w + ${4 * k}, __tx = __wx + ${4 * k}, __ty = __wy, __tz = __wz;\n` +
        g.text.split('\n').map((l) => `${in2}  ${l}`).join('\n') + `\n${in2}  }`);
      texts.push(`${in2}{\n${[...snapshot, ...lanes].join('\n')}\n${in2}}`);
      seen.push(body);
      shuffles++;
    }
    if (shuffles > 0 && s.k !== 'copy') best = { length: i + 1, text: '' };
    if (best && best.length === i + 1) best.text = chainText(texts, loaded, written, ind);
  }
  return best;
}

function chainText(steps: string[], loaded: Set<number>, written: Set<number>, ind: string): string {
  const slots = [...new Set([...loaded, ...written])].sort((a, b) => a - b);
  const regs = slots.map((s) => `${ind}    let ${Array.from({ length: GROUPS }, (_, k) => `__w${s}_${k}: v128 = ${loaded.has(s) ? `__ctxLoad4(${s}, __w + ${4 * k})` : 'i32x4.splat(0)'}`).join(', ')};`);
  const back = [...written].sort((a, b) => a - b).map((s) => `${ind}    ${Array.from({ length: GROUPS }, (_, k) => `__ctxStore4(${s}, __w + ${4 * k}, __w${s}_${k});`).join(' ')}`);
  return [
    `${ind}// a warp at a time, its values in registers (warpChain.ts)`,
    `${ind}{ const __nt = __bdx * __bdy * __bdz;`,
    `${ind}  for (let __w = 0; __w < __nt; __w += ${WARP}) {`,
    `${ind}    const __wx = __w % __bdx, __wy = (__w / __bdx) % __bdy, __wz = __w / (__bdx * __bdy);`,
    ...regs, ...steps, ...back,
    `${ind}  }`,
    `${ind}}`,
  ].join('\n');
}
