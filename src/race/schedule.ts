// Schedules you can hold: how a fine-grained run chooses the next emulated thread, and the
// string that records it.
//
// A *decision* is made at every scheduling point (a yield point of the running thread, a
// barrier, a thread's exit) where two or more threads are runnable: the gid (global linear
// thread index: blockLinear · threadsPerBlock + threadLinear) of the thread to run next. A
// run's decision list replays it exactly, whatever strategy or generator produced it, so the
// schedule string carries it:
//
//   simt-sched/1:fine:<strategy>:<generator>:<seed>:<depth>:<decisions>
//   simt-sched/1:serial:splitmix64:<seed>                      (a phase-loop `serial` launch)
//
// <decisions> is run-length encoded: `g*n` (thread g chosen n times in a row, base 36), joined
// by '.', or '-' for none. Fields that do not apply are '-'.

export type Strategy = 'inorder' | 'random' | 'pct' | 'exhaustive' | 'replay';

export interface Chooser {
  /** Picks the next thread among `runnable` (ascending gids, at least two). `current`: the thread at the scheduling point, or -1. */
  choose(runnable: readonly number[], current: number, step: number): number;
  /** True when the chooser always keeps a runnable current thread (lets the scheduler skip building the runnable list). */
  readonly keepsCurrent?: boolean;
  /** True when, at this step, the chooser would keep a runnable current thread if the runnable set has not grown (PCT between change points). */
  keepsCurrentAt?(step: number): boolean;
}

/** mulberry32: a small 32-bit generator; `simt-sched/1` strings name it. */
export class Mulberry32 {
  private s: number;
  constructor(seed: number) { this.s = (seed ^ Math.floor(seed / 2 ** 32)) >>> 0; }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  below(n: number): number { return Math.floor(this.next() * n); }
}

/** Runs the current thread until it blocks or ends, then the lowest runnable gid (a sequential, GPU-unlike reference). */
export class InOrderChooser implements Chooser {
  readonly keepsCurrent = true;
  choose(runnable: readonly number[], current: number): number {
    return runnable.includes(current) ? current : runnable[0]!;
  }
}

/** Uniformly random among the runnable threads at every scheduling point. */
export class RandomChooser implements Chooser {
  private readonly rng: Mulberry32;
  constructor(readonly seed: number) { this.rng = new Mulberry32(seed); }
  choose(runnable: readonly number[]): number { return runnable[this.rng.below(runnable.length)]!; }
}

/**
 * PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010): random distinct priorities,
 * always run the highest-priority runnable thread, and at d−1 random steps drawn from [1, k]
 * lower the running thread's priority below every initial one. Finds any bug of depth d with
 * probability ≥ 1/(n·k^(d−1)).
 */
export class PctChooser implements Chooser {
  private readonly rng: Mulberry32;
  private readonly prio = new Map<number, number>();
  private readonly changes = new Map<number, number>();
  constructor(readonly seed: number, readonly depth: number, readonly steps: number) {
    this.rng = new Mulberry32(seed);
    for (let i = 1; i < depth; i++) this.changes.set(1 + this.rng.below(Math.max(1, steps)), depth - i);
  }
  keepsCurrentAt(step: number): boolean { return !this.changes.has(step); }
  private priority(g: number): number {
    let p = this.prio.get(g);
    if (p === undefined) { p = this.depth + this.rng.next(); this.prio.set(g, p); }
    return p;
  }
  choose(runnable: readonly number[], current: number, step: number): number {
    const low = this.changes.get(step);
    if (low !== undefined && current >= 0) { this.priority(current); this.prio.set(current, low); }
    let best = runnable[0]!, bp = -1;
    for (const g of runnable) { const p = this.priority(g); if (p > bp) { bp = p; best = g; } }
    return best;
  }
}

/** Follows a decision list; past its end it behaves as InOrderChooser (and counts that). */
export class ReplayChooser implements Chooser {
  private k = 0;
  beyond = 0;
  constructor(readonly decisions: readonly number[], readonly strict = true) {}
  choose(runnable: readonly number[], current: number): number {
    if (this.k < this.decisions.length) {
      const g = this.decisions[this.k++]!;
      if (!runnable.includes(g)) {
        if (this.strict) throw new ScheduleMismatchError(`decision ${this.k - 1} picks thread ${g}, which is not runnable (runnable: ${runnable.slice(0, 16).join(',')}${runnable.length > 16 ? ',…' : ''})`);
        return runnable.includes(current) ? current : runnable[0]!;
      }
      return g;
    }
    this.beyond++;
    return runnable.includes(current) ? current : runnable[0]!;
  }
}

/** Depth-first enumeration: follows a prefix, then the in-order default, recording each point's alternatives. */
export class ExhaustiveChooser implements Chooser {
  /** Per decision point: the alternatives in the order tried (the in-order default first) and the one taken. */
  readonly points: { order: number[]; chosen: number }[] = [];
  constructor(readonly prefix: readonly number[]) {}
  choose(runnable: readonly number[], current: number): number {
    const k = this.points.length;
    const def = runnable.includes(current) ? current : runnable[0]!;
    const order = [def, ...runnable.filter((g) => g !== def)];
    const g = k < this.prefix.length ? this.prefix[k]! : def;
    this.points.push({ order, chosen: g });
    return g;
  }
  /** The next prefix in depth-first order, or undefined when the tree is exhausted. */
  nextPrefix(): number[] | undefined {
    for (let k = this.points.length - 1; k >= 0; k--) {
      const { order, chosen } = this.points[k]!;
      const at = order.indexOf(chosen);
      if (at + 1 < order.length) return [...this.points.slice(0, k).map((p) => p.chosen), order[at + 1]!];
    }
    return undefined;
  }
}

export class ScheduleMismatchError extends Error {
  override name = 'ScheduleMismatchError';
}

export interface FineSchedule {
  mode: 'fine';
  strategy: Strategy;
  generator: string | null;
  seed: number | null;
  depth: number | null;
  decisions: number[];
}

export interface SerialSchedule { mode: 'serial'; generator: 'splitmix64'; seed: number }

export type Schedule = FineSchedule | SerialSchedule;

export const SCHEDULE_PREFIX = 'simt-sched/1';

export function encodeDecisions(d: readonly number[]): string {
  if (d.length === 0) return '-';
  const parts: string[] = [];
  for (let k = 0; k < d.length;) {
    let n = 1;
    while (k + n < d.length && d[k + n] === d[k]) n++;
    parts.push(n === 1 ? d[k]!.toString(36) : `${d[k]!.toString(36)}*${n.toString(36)}`);
    k += n;
  }
  return parts.join('.');
}

export function decodeDecisions(s: string): number[] {
  if (s === '-' || s === '') return [];
  const out: number[] = [];
  for (const part of s.split('.')) {
    const [g, n] = part.split('*');
    const gid = parseInt(g!, 36);
    const count = n === undefined ? 1 : parseInt(n, 36);
    if (!Number.isInteger(gid) || gid < 0 || !Number.isInteger(count) || count < 1) throw new SyntaxError(`bad decision '${part}'`);
    for (let k = 0; k < count; k++) out.push(gid);
  }
  return out;
}

export function formatSchedule(s: Schedule): string {
  if (s.mode === 'serial') return `${SCHEDULE_PREFIX}:serial:${s.generator}:${s.seed}`;
  const f = (v: string | number | null): string => (v === null ? '-' : String(v));
  return `${SCHEDULE_PREFIX}:fine:${s.strategy}:${f(s.generator)}:${f(s.seed)}:${f(s.depth)}:${encodeDecisions(s.decisions)}`;
}

export function parseSchedule(text: string): Schedule {
  const parts = text.trim().split(':');
  if (parts[0] !== SCHEDULE_PREFIX) throw new SyntaxError(`not a simt schedule (expected '${SCHEDULE_PREFIX}:…'): ${text.slice(0, 40)}`);
  const num = (v: string | undefined): number | null => (v === undefined || v === '-' ? null : Number(v));
  if (parts[1] === 'serial') {
    const seed = num(parts[3]);
    if (parts[2] !== 'splitmix64' || seed === null || !Number.isSafeInteger(seed)) throw new SyntaxError(`bad serial schedule: ${text}`);
    return { mode: 'serial', generator: 'splitmix64', seed };
  }
  if (parts[1] !== 'fine' || parts.length !== 7) throw new SyntaxError(`bad fine schedule (want 7 ':'-separated fields): ${text.slice(0, 60)}`);
  return {
    mode: 'fine', strategy: parts[2] as Strategy, generator: parts[3] === '-' ? null : parts[3]!,
    seed: num(parts[4]), depth: num(parts[5]), decisions: decodeDecisions(parts[6]!),
  };
}

/** The schedule string of a `serial` launch (from its LaunchStats.seed): replay with `{ seed }`. */
export function serialSchedule(seed: number): string {
  return formatSchedule({ mode: 'serial', generator: 'splitmix64', seed });
}
