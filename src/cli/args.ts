// A small argument parser: `--name value`, `--flag`, `--name=value`, positionals.
export interface ParsedArgs { positionals: string[]; options: Record<string, string | true> }

/** Options that never take a value: `--verbose file.npy` leaves file.npy a positional. */
const FLAGS = new Set(['help', 'verbose', 'json', 'list', 'quick', 'corpus', 'until-differs', 'no-charge-cut']);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const options: Record<string, string | true> = {};
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k]!;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) { options[a.slice(2, eq)] = a.slice(eq + 1); continue; }
      const next = argv[k + 1];
      if (!FLAGS.has(a.slice(2)) && next !== undefined && !next.startsWith('--')) { options[a.slice(2)] = next; k++; } else options[a.slice(2)] = true;
    } else positionals.push(a);
  }
  return { positionals, options };
}

export class UsageError extends Error {}

/**
 * An integer option (`--name 12`, `1e6` too), `fallback` when absent. Anything else — a word,
 * a fraction, a value outside [min, max] — is a UsageError naming the flag.
 */
export function intOption(o: ParsedArgs['options'], name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
  const v = o[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v === true || v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} needs a number, got ${String(v)}`);
  const min = range.min ?? -Number.MAX_SAFE_INTEGER;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer in [${bound(min)}, ${bound(max)}], got ${v}`);
  }
  return n;
}

function bound(x: number): string {
  return x === Number.MAX_SAFE_INTEGER ? '2^53-1' : x === -Number.MAX_SAFE_INTEGER ? '-(2^53-1)' : String(x);
}

/** A number option (fractions allowed), `fallback` when absent; outside [min, max] a UsageError. */
export function numberOption(o: ParsedArgs['options'], name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
  const v = o[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v === true || v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} needs a number, got ${String(v)}`);
  if (n < (range.min ?? -Infinity) || n > (range.max ?? Infinity)) {
    throw new UsageError(`--${name} must be a number in [${range.min ?? '-∞'}, ${range.max ?? '∞'}], got ${v}`);
  }
  return n;
}

/** A seed option (`--seed`, `--device-seed`, `--schedule-seed`): an integer in [0, 2^53), or undefined when absent. */
export function seedOption(o: ParsedArgs['options'], name: string): number | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v === true || v.trim() === '' || !Number.isSafeInteger(n) || n < 0) {
    throw new UsageError(`--${name} must be an integer in [0, 2^53), got ${v === true ? 'no value' : v}`);
  }
  return n;
}

export function stringOption(o: ParsedArgs['options'], name: string): string | undefined {
  const v = o[name];
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}
