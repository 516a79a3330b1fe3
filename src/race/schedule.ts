// Schedules you can hold: how a fine-grained run chooses the next emulated thread, and the
// string that records it.
//
// A *decision* is made at every scheduling point (a yield point of the running thread, a
// barrier, a thread's exit) where two or more threads are runnable: the gid (global linear
// thread index: blockLinear · threadsPerBlock + threadLinear) of the thread to run next. A
// run's decision list replays it exactly, whatever strategy or generator produced it, so the
// schedule string carries it:
//
//   simt-sched/2:fine:<strategy>:<generator>:<seed>:<depth>:<count>:<decisions>:<check>
//   simt-sched/2:serial:splitmix64:<seed>:<check>              (a phase-loop `serial` launch)
//   simt-sched/2:serial:inorder:0:<check>                      (blocks and threads in order)
//
// A race job's `serial` schedule is an order of racecheck's screen (screen.ts): its launches
// with the blocks and each phase's threads permuted as the serial backend permutes a launch of
// that seed, or (`inorder`) not permuted.
//
// <decisions> is run-length encoded: `g*n` (thread g chosen n times in a row, base 36), joined
// by '.', or '-' for none; <count> is how many decisions that is (decimal). <check> is the
// FNV-1a hash of everything before it (8 hex digits): a truncated or edited string does not
// parse. Fields that do not apply are '-'. Format 1 (`simt-sched/1:…`, without <count> and
// <check>) is still read.
//
// The `interval` strategy is barrier-interval order (what racecheck runs): a thread runs until
// it waits at a barrier or ends, and only there is a decision made (and recorded); its seed,
// when present, drew the decisions at random.

export type Strategy = 'inorder' | 'random' | 'pct' | 'exhaustive' | 'replay' | 'interval';

export interface Chooser {
  /** Picks the next thread among `runnable` (ascending gids, at least two). `current`: the thread at the scheduling point, or -1. */
  choose(runnable: readonly number[], current: number, step: number): number;
  /** True when the chooser always keeps a runnable current thread (lets the scheduler skip building the runnable list). */
  readonly keepsCurrent?: boolean;
  /** True when, at this step, the chooser would keep a runnable current thread if the runnable set has not grown (PCT between change points). */
  keepsCurrentAt?(step: number): boolean;
  /** True when it keeps a runnable current thread and otherwise takes the lowest runnable gid (no list needed). */
  readonly lowest?: boolean;
  /** Barrier-interval order: accesses are no scheduling points; decisions come only where a thread blocks or ends. */
  readonly coarse?: boolean;
  /** Decides from a membership test alone when it can (replay), else returns undefined and `choose` gets the list. */
  pick?(isRunnable: (gid: number) => boolean, current: number, step: number): number | undefined;
  /**
   * A replay's fast path: true (and the decision taken) when its next decision is `current`,
   * the running thread, at a point with at least two runnable threads. Most decisions of a
   * recorded in-order schedule are of this kind: the scheduler then skips the general choice.
   */
  takesCurrent?(current: number): boolean;
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
  readonly lowest = true;
  choose(runnable: readonly number[], current: number): number {
    return runnable.includes(current) ? current : runnable[0]!;
  }
}

/**
 * Barrier-interval order: each thread runs until it waits at a barrier or ends (no preemption
 * at accesses, so no context switch unless a thread blocks). Without a seed the next thread is
 * the lowest runnable one; with one, a random runnable one (another order of the intervals,
 * and of the atomics in them).
 */
export class IntervalChooser implements Chooser {
  readonly keepsCurrent = true;
  readonly coarse = true;
  readonly lowest: boolean;
  private readonly rng: Mulberry32 | undefined;
  constructor(readonly seed?: number) {
    this.lowest = seed === undefined;
    this.rng = seed === undefined ? undefined : new Mulberry32(seed);
  }
  choose(runnable: readonly number[], current: number): number {
    if (!this.rng) return runnable.includes(current) ? current : runnable[0]!;
    return runnable[this.rng.below(runnable.length)]!;
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
  readonly keepsCurrent: boolean;
  /**
   * `coarse`: the decisions were made in barrier-interval order (an `interval` schedule): they
   * are consulted only where a thread blocks or ends.
   */
  constructor(readonly decisions: readonly number[], readonly strict = true, readonly coarse = false) {
    this.keepsCurrent = coarse;
  }
  takesCurrent(current: number): boolean {
    if (this.k < this.decisions.length && this.decisions[this.k] === current) { this.k++; return true; }
    return false;
  }
  pick(isRunnable: (gid: number) => boolean, current: number): number | undefined {
    if (this.k < this.decisions.length) {
      const g = this.decisions[this.k]!;
      if (!isRunnable(g)) return undefined; // choose() says why (or, not strict, falls back)
      this.k++;
      return g;
    }
    if (current >= 0 && isRunnable(current)) { this.beyond++; return current; }
    return undefined;
  }
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
  /**
   * The next prefix in depth-first order, or undefined when the tree is exhausted. `fixed`: the
   * first decisions stay as they are (enumerate only the subtree below them: a shard's unit).
   */
  nextPrefix(fixed = 0): number[] | undefined {
    for (let k = this.points.length - 1; k >= fixed; k--) {
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

export interface SerialSchedule { mode: 'serial'; generator: 'splitmix64' | 'inorder'; seed: number }

export type Schedule = FineSchedule | SerialSchedule;

/** A schedule string that is not one: malformed, truncated, tampered with, or too long. */
export class ScheduleFormatError extends SyntaxError {
  override name = 'ScheduleFormatError';
}

/** The prefix of the schedule strings written now (with a decision count and a checksum). */
export const SCHEDULE_PREFIX = 'simt-sched/2';
/** The first format (no count, no checksum): still read, but a truncation cannot be noticed. */
export const SCHEDULE_PREFIX_V1 = 'simt-sched/1';
/** The most decisions a schedule string may hold (a decoded list is an array of this many numbers). */
export const MAX_DECISIONS = 1 << 24;

const STRATEGIES: readonly Strategy[] = ['inorder', 'random', 'pct', 'exhaustive', 'replay', 'interval'];
const DIGITS36 = /^[0-9a-z]+$/;

function excerpt(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

/** FNV-1a (32-bit) of the string's code units, as 8 hex digits: the checksum of a schedule string. */
function checksum(text: string): string {
  let h = 0x811c9dc5;
  for (let k = 0; k < text.length; k++) h = Math.imul(h ^ text.charCodeAt(k), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

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

function base36(s: string | undefined, what: string, part: string): number {
  const v = s !== undefined && DIGITS36.test(s) ? parseInt(s, 36) : NaN;
  if (!Number.isSafeInteger(v)) throw new ScheduleFormatError(`bad decision ${excerpt(part)}: ${what} is not a base-36 number`);
  return v;
}

/**
 * Decodes a run-length decision list. The counts are summed before anything is expanded, so a
 * tampered count (`0*zzzzzzz`: 78 billion decisions) is refused without allocating; at most
 * `max` decisions (MAX_DECISIONS) are accepted.
 */
export function decodeDecisions(s: string, max = MAX_DECISIONS): number[] {
  if (s === '-' || s === '') return [];
  const runs: [gid: number, count: number][] = [];
  let total = 0;
  for (const part of s.split('.')) {
    const star = part.indexOf('*');
    const gid = base36(star < 0 ? part : part.slice(0, star), 'the thread', part);
    const count = star < 0 ? 1 : base36(part.slice(star + 1), 'the count', part);
    if (count < 1) throw new ScheduleFormatError(`bad decision ${excerpt(part)}: a count must be at least 1`);
    total += count;
    if (total > max) throw new ScheduleFormatError(`the schedule holds more than ${max} decisions`);
    runs.push([gid, count]);
  }
  const out = new Array<number>(total);
  let k = 0;
  for (const [gid, count] of runs) for (let c = 0; c < count; c++) out[k++] = gid;
  return out;
}

export function formatSchedule(s: Schedule): string {
  const body = s.mode === 'serial'
    ? `${SCHEDULE_PREFIX}:serial:${s.generator}:${s.seed}`
    : (() => {
      const f = (v: string | number | null): string => (v === null ? '-' : String(v));
      return `${SCHEDULE_PREFIX}:fine:${s.strategy}:${f(s.generator)}:${f(s.seed)}:${f(s.depth)}:${s.decisions.length}:${encodeDecisions(s.decisions)}`;
    })();
  return `${body}:${checksum(body)}`;
}

/**
 * Parses a schedule string. Throws ScheduleFormatError — one line, quoting at most 60
 * characters of the text — for anything that is not a complete schedule: a wrong prefix or
 * field, a decision list longer than MAX_DECISIONS, and (format 2) a checksum or decision
 * count that does not match, which is how a truncated or edited string is caught.
 */
export function parseSchedule(text: string): Schedule {
  if (typeof text !== 'string') throw new ScheduleFormatError(`a schedule is a string, got ${typeof text}`);
  const t = text.trim();
  const parts = t.split(':');
  const v2 = parts[0] === SCHEDULE_PREFIX;
  if (!v2 && parts[0] !== SCHEDULE_PREFIX_V1) {
    throw new ScheduleFormatError(`not a simt schedule (expected '${SCHEDULE_PREFIX}:…'): ${excerpt(t)}`);
  }
  // Fields are checked one by one before the checksum, so the message names the bad token;
  // the checksum then catches an edit that left every field well-formed.
  const num = (v: string | undefined, what: string, min: number): number | null => {
    if (v === '-') return null;
    const n = v !== undefined && /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < min) throw new ScheduleFormatError(`bad ${what} ${excerpt(String(v))} in schedule ${excerpt(t)}`);
    return n;
  };
  const verify = (): void => {
    if (!v2) return;
    const check = parts[parts.length - 1]!;
    const body = t.slice(0, t.length - check.length - 1);
    if (!/^[0-9a-f]{8}$/.test(check)) throw new ScheduleFormatError(`schedule truncated: its last field ${excerpt(check)} is not the 8-hex-digit checksum: ${excerpt(t)}`);
    if (checksum(body) !== check) throw new ScheduleFormatError(`schedule altered: its checksum ${check} does not match its text (copy the whole string): ${excerpt(t)}`);
  };
  if (parts[1] === 'serial') {
    if (parts.length !== (v2 ? 5 : 4) || (parts[2] !== 'splitmix64' && parts[2] !== 'inorder')) throw new ScheduleFormatError(`bad serial schedule: ${excerpt(t)}`);
    const seed = num(parts[3], 'seed', 0);
    if (seed === null) throw new ScheduleFormatError(`bad serial schedule (no seed): ${excerpt(t)}`);
    if (parts[2] === 'inorder' && seed !== 0) throw new ScheduleFormatError(`bad serial schedule (an in-order one has seed 0): ${excerpt(t)}`);
    verify();
    return { mode: 'serial', generator: parts[2] as SerialSchedule['generator'], seed };
  }
  if (parts[1] !== 'fine') throw new ScheduleFormatError(`bad schedule mode ${excerpt(String(parts[1]))} (fine or serial) in schedule ${excerpt(t)}`);
  const fields = v2 ? 9 : 7;
  if (parts.length < fields) {
    throw new ScheduleFormatError(`schedule truncated: ${parts.length} of ${fields} ':'-separated fields, ending at ${excerpt(parts[parts.length - 1]!)}: ${excerpt(t)}`);
  }
  if (parts.length > fields) throw new ScheduleFormatError(`bad fine schedule: ${parts.length} ':'-separated fields, want ${fields}: ${excerpt(t)}`);
  const strategy = parts[2] as Strategy;
  if (!STRATEGIES.includes(strategy)) throw new ScheduleFormatError(`unknown strategy ${excerpt(parts[2]!)} in schedule ${excerpt(t)}`);
  const generator = parts[3]!;
  if (generator !== '-' && !/^[a-z][a-z0-9]*$/.test(generator)) throw new ScheduleFormatError(`bad generator ${excerpt(generator)} in schedule ${excerpt(t)}`);
  const seed = num(parts[4], 'seed', 0);
  const depth = num(parts[5], 'depth', 1);
  let decisions: number[];
  if (v2) {
    const count = num(parts[6], 'decision count', 0);
    if (count === null || count > MAX_DECISIONS) throw new ScheduleFormatError(`bad decision count ${excerpt(String(parts[6]))} (at most ${MAX_DECISIONS}) in schedule ${excerpt(t)}`);
    decisions = decodeDecisions(parts[7]!);
    if (decisions.length > count) throw new ScheduleFormatError(`schedule altered: ${count} decisions declared, ${decisions.length} present`);
    if (decisions.length < count) {
      const last = parts[7]!.split('.').pop()!;
      throw new ScheduleFormatError(`schedule truncated: ${count} decisions declared, ${decisions.length} present (the list ends at ${excerpt(last)})`);
    }
    verify();
  } else {
    decisions = decodeDecisions(parts[6]!);
  }
  return { mode: 'fine', strategy, generator: generator === '-' ? null : generator, seed, depth, decisions };
}

/** The schedule string of a `serial` launch (from its LaunchStats.seed): replay with `{ seed }`. */
export function serialSchedule(seed: number): string {
  return formatSchedule({ mode: 'serial', generator: 'splitmix64', seed });
}
