// The comparison rules of crossCheck.
import type { Comparison, Difference, OutputReport, OutputValue } from './types.js';

type Scalar = number | bigint;

function toArray(v: OutputValue): ArrayLike<Scalar> {
  return typeof v === 'number' || typeof v === 'bigint' ? [v] : (v as ArrayLike<Scalar>);
}

const same = (a: Scalar | undefined, b: Scalar | undefined): boolean =>
  a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b));

function sorted(a: ArrayLike<Scalar>): Scalar[] {
  return Array.from(a).sort((x, y) => {
    if (typeof x === 'number' && Number.isNaN(x)) return 1;
    if (typeof y === 'number' && Number.isNaN(y)) return -1;
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

const f64 = new Float64Array(1);
const i64 = new BigInt64Array(f64.buffer);
const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);

/** Ordered integer of a float's bits (monotonic in value; ±0 both map to 0). */
function ordered(x: number, single: boolean): bigint {
  let b: bigint;
  if (single) { f32[0] = x; b = BigInt(i32[0]!); return b < 0n ? -(b & 0x7fffffffn) : b; }
  f64[0] = x; b = i64[0]!;
  return b < 0n ? -(b & 0x7fffffffffffffffn) : b;
}

/** Units in the last place between a and b (f32 or f64 grid); 0 for NaN vs NaN, Infinity for NaN vs a number. */
export function ulpDistance(a: number, b: number, single: boolean): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
  const d = ordered(a, single) - ordered(b, single);
  return Number(d < 0n ? -d : d);
}

export function describeRule(c: Comparison): string {
  switch (c.kind) {
    case 'exact': return 'exact';
    case 'sortedSet': return 'sorted set';
    case 'multiset': return 'multiset';
    case 'ulp': return `within ${c.ulps} ULP`;
    case 'withinBound': return `within bound (${c.why})`;
  }
}

/** Compares one output of the reference backend (`ref`) and another (`other`). */
export function compareOutput(output: string, backend: OutputReport['backend'], rule: Comparison,
  refValue: OutputValue, otherValue: OutputValue, examples: number): OutputReport {
  let a = toArray(refValue);
  let b = toArray(otherValue);
  let note: string | undefined;
  if (rule.kind === 'sortedSet' || rule.kind === 'multiset') {
    a = sorted(a);
    b = sorted(b);
  }
  const n = Math.max(a.length, b.length);
  const first: Difference[] = [];
  let differences = 0;
  let worst: number | undefined;
  const single = rule.kind === 'ulp' && (refValue instanceof Float32Array || otherValue instanceof Float32Array);
  for (let i = 0; i < n; i++) {
    const x = i < a.length ? a[i] : undefined;
    const y = i < b.length ? b[i] : undefined;
    let ok: boolean;
    if (x === undefined || y === undefined) ok = false;
    else if (rule.kind === 'ulp') {
      const d = ulpDistance(Number(x), Number(y), single);
      worst = Math.max(worst ?? 0, d);
      ok = d <= rule.ulps;
    } else if (rule.kind === 'withinBound') {
      const bound = rule.bound(i);
      const err = Math.abs(Number(x) - Number(y));
      ok = same(x, y) || err <= bound;
      if (!same(x, y)) worst = Math.max(worst ?? 0, bound > 0 ? err / bound : Infinity);
    } else ok = same(x, y);
    if (!ok) {
      differences++;
      if (first.length < examples) first.push({ index: i, values: [x, y] });
    }
  }
  if (rule.kind === 'sortedSet') {
    for (const [name, s] of [['reference', a], [backend, b]] as const) {
      let dups = 0;
      for (let i = 1; i < s.length; i++) if (same(s[i - 1], s[i])) dups++;
      if (dups > 0) {
        differences += dups;
        note = `${note ? note + '; ' : ''}${name} holds ${dups} repeated value(s), not a set`;
      }
    }
  }
  const r: OutputReport = {
    output, backend, rule: describeRule(rule), equal: differences === 0, lengths: [a.length, b.length], differences, first,
  };
  if (worst !== undefined) r.worst = worst;
  if (a.length !== b.length) note = `${note ? note + '; ' : ''}lengths differ: ${a.length} vs ${b.length}`;
  if (note) r.note = note;
  return r;
}
