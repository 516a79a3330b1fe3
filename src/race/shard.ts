// Sharding an exploration: shard i of n takes a deterministic share of the schedule space, so
// n machines (a CI matrix's jobs) explore one kernel and `mergeOutcomeFiles` (merge.ts) adds
// their outcome files up to the result of the unsharded run.
//
// Shards count from 1 — `--shard 1/4` … `4/4`, as GitLab's CI_NODE_INDEX and the --shard of
// Jest, Vitest and Playwright do; a 0-based CI index (CircleCI, Buildkite) needs + 1.
//
// - random, pct: schedule k (0 ≤ k < schedules; it runs seed + k) belongs to shard (k mod n) + 1.
// - exhaustive: the depth-first tree of decisions is cut into subtrees ("units") along the
//   in-order path (the first leaf: every decision the default one). With its first D branching
//   points, the units are, in depth-first order: the subtree below the D-th point on that path,
//   then, from the D-th point back to the first, the subtree of each other choice there. D is
//   the fewest points that give at least n units (D = 0 for one shard: the whole tree). Unit u
//   belongs to shard (u mod n) + 1. Every leaf lies in exactly one unit, so the shards are
//   disjoint and, once each has enumerated its units, together cover the whole tree.

import { SimtError, pinErrorNames } from '../errors.js';

/** Shard `index` of `count`, counted from 1. */
export interface Shard { index: number; count: number }

/** A shard that is not one (`--shard 3/2`, `0/0`, `a/b`): the message names the value. */
export class ShardError extends SimtError {}
pinErrorNames({ ShardError });

function shardProblem(index: number, count: number): string | undefined {
  if (!Number.isSafeInteger(count) || count < 1) return `the shard count must be an integer ≥ 1, got ${count}`;
  if (!Number.isSafeInteger(index)) return `the shard index must be an integer, got ${index}`;
  if (index === 0) return 'shards count from 1 (1/n … n/n); a 0-based CI index needs + 1';
  if (index < 1 || index > count) return `the shard index must be in 1..${count}, got ${index}`;
  return undefined;
}

/** Checks a shard given to explore() (ShardError when it is not one). */
export function checkShard(s: Shard): Shard {
  const problem = s && typeof s === 'object' ? shardProblem(s.index, s.count) : 'a shard is { index, count }';
  if (problem) throw new ShardError(`shard ${JSON.stringify(s)}: ${problem}`);
  return { index: s.index, count: s.count };
}

/** Parses `i/n` (shard i of n, counted from 1); anything else is a ShardError naming it. */
export function parseShard(text: string): Shard {
  const m = /^(\d{1,15})\/(\d{1,15})$/.exec(text.trim());
  if (!m) throw new ShardError(`shard ${JSON.stringify(text)}: want i/n, shard i of n counted from 1 (1/4 … 4/4)`);
  const index = Number(m[1]), count = Number(m[2]);
  const problem = shardProblem(index, count);
  if (problem) throw new ShardError(`shard ${text.trim()}: ${problem}`);
  return { index, count };
}

/** True when schedule (or exhaustive unit) k belongs to the shard; every k does without one. */
export function owns(shard: Shard | undefined, k: number): boolean {
  return !shard || k % shard.count === shard.index - 1;
}

/** How many of the schedules 0..n-1 the shard runs. */
export function shareOf(shard: Shard | undefined, n: number): number {
  return shard ? Math.max(0, Math.ceil((n - shard.index + 1) / shard.count)) : n;
}

/**
 * The exhaustive units (see the file comment) as decision prefixes, in depth-first order. `path`:
 * the branching points of the first leaf, each with its alternatives (the default first).
 */
export function exhaustiveUnits(path: readonly { order: readonly number[]; chosen: number }[], count: number): number[][] {
  const defaults = path.map((p) => p.chosen);
  let depth = 0;
  for (let units = 1; units < count && depth < path.length;) units += path[depth++]!.order.length - 1;
  const out = [defaults.slice(0, depth)];
  for (let d = depth - 1; d >= 0; d--) for (const alt of path[d]!.order.slice(1)) out.push([...defaults.slice(0, d), alt]);
  return out;
}
