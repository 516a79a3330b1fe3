// Outcome classes: how two runs' outputs differ. A difference that only reorders values (every
// differing output holds the same multiset of values — countModules' moduleStart filled in the
// order of its atomicInc) is one class, "same set, different order", not one outcome per order.

import type { Outputs } from './job.js';

export type OutcomeClass = 'reference' | 'same-set' | 'differs';

/** A key equal for outputs that hold the same values per buffer, in any order. */
export function setKey(o: Outputs): string {
  const parts: string[] = [];
  for (const name of Object.keys(o).sort()) {
    const v = Array.from(o[name]!, (x) => String(x)).sort();
    parts.push(`${name}=${v.join(',')}`);
  }
  return parts.join(';');
}

/** 'reference' when equal, 'same-set' when every buffer holds the same values in another order, else 'differs'. */
export function classify(o: Outputs, referenceKey: string, referenceSetKey: string, key: string): OutcomeClass {
  if (key === referenceKey) return 'reference';
  return setKey(o) === referenceSetKey ? 'same-set' : 'differs';
}

/** Outcomes grouped by class: all reorderings of the reference's values are one. */
export interface OutcomeGroup { class: OutcomeClass; outcomes: number; runs: number; schedule: string }

/** The classes of outcomes sorted by count (most first), each with the schedule of its most frequent outcome. */
export function outcomeClasses(sorted: readonly { class: OutcomeClass; count: number; schedule: string }[]): OutcomeGroup[] {
  const classes: OutcomeGroup[] = [];
  for (const c of ['reference', 'same-set', 'differs'] as const) {
    const of = sorted.filter((x) => x.class === c);
    if (of.length) classes.push({ class: c, outcomes: of.length, runs: of.reduce((a, x) => a + x.count, 0), schedule: of[0]!.schedule });
  }
  return classes;
}
