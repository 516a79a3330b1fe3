// The comparison rules a user job declares per output (`defineJob({ …, compare: { bins: 'exact' } })`):
// short forms of crossCheck's Comparison, checked when the job is defined so that a typo is an
// error naming the job and the output, not a silent exact comparison.
import type { Comparison } from './types.js';

/** 'exact', 'multiset' (order-free), 'sortedSet' (order-free, no repeats) or `{ ulp: N }` (floats N units in the last place apart). */
export type OutputRule = 'exact' | 'multiset' | 'sortedSet' | { readonly ulp: number };

/** The largest ULP bound a rule may declare: 2^31 units apart is no comparison at all. */
export const MAX_ULPS = 2 ** 31;

/** The Comparison an OutputRule stands for; `fail` gets a one-line problem (the caller names job and output). */
export function toComparison(rule: unknown, fail: (problem: string) => never): Comparison {
  if (rule === 'exact' || rule === 'multiset' || rule === 'sortedSet') return { kind: rule };
  if (rule && typeof rule === 'object' && !Array.isArray(rule)) {
    const keys = Object.keys(rule);
    const ulps = (rule as { ulp?: unknown }).ulp;
    if (keys.length === 1 && keys[0] === 'ulp') {
      if (typeof ulps !== 'number' || !Number.isInteger(ulps) || ulps < 0 || ulps > MAX_ULPS) {
        return fail(`{ ulp: N } takes an integer N from 0 to ${MAX_ULPS}, got ${JSON.stringify(ulps) ?? String(ulps)}`);
      }
      return { kind: 'ulp', ulps };
    }
  }
  const shown = typeof rule === 'string' ? `'${rule}'` : JSON.stringify(rule) ?? String(rule);
  return fail(`unknown comparison rule ${shown} (use 'exact', 'multiset', 'sortedSet' or { ulp: N })`);
}
