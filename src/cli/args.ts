// Typed option values for the commands: numbers, seeds and strings read from the parsed options
// (src/cli/options.ts parses argv against each command's declared options). Errors name the flag
// as the user spelled it.
export interface ParsedArgs {
  positionals: string[];
  options: Record<string, string | true>;
  /** Option name → how it was typed (`--device-seed` for `schedule-seed`), for messages. */
  spelled?: Record<string, string>;
}

const SPELLED = Symbol('spelled');

/** Attaches how each option was typed to the options object, so the helpers below name it so. */
export function withSpelling(args: ParsedArgs): ParsedArgs {
  Object.defineProperty(args.options, SPELLED, { value: args.spelled ?? {}, enumerable: false });
  return args;
}

/** The flag as the user typed it (`--name` when unknown). */
export function flagName(o: ParsedArgs['options'], name: string): string {
  return (o as { [SPELLED]?: Record<string, string> })[SPELLED]?.[name] ?? `--${name}`;
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
  if (v === true || v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`${flagName(o, name)} needs a number, got ${String(v)}`);
  const min = range.min ?? -Number.MAX_SAFE_INTEGER;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flagName(o, name)} must be an integer in [${bound(min)}, ${bound(max)}], got ${v}`);
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
  if (v === true || v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`${flagName(o, name)} needs a number, got ${String(v)}`);
  if (n < (range.min ?? -Infinity) || n > (range.max ?? Infinity)) {
    throw new UsageError(`${flagName(o, name)} must be a number in [${range.min ?? '-∞'}, ${range.max ?? '∞'}], got ${v}`);
  }
  return n;
}

/** A seed option (`--seed`, `--device-seed`, `--schedule-seed`): an integer in [0, 2^53), or undefined when absent. */
export function seedOption(o: ParsedArgs['options'], name: string): number | undefined {
  const v = o[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v === true || v.trim() === '' || !Number.isSafeInteger(n) || n < 0) {
    throw new UsageError(`${flagName(o, name)} must be an integer in [0, 2^53), got ${v === true ? 'no value' : v}`);
  }
  return n;
}

export function stringOption(o: ParsedArgs['options'], name: string): string | undefined {
  const v = o[name];
  if (v === true) throw new UsageError(`${flagName(o, name)} needs a value`);
  return v;
}

/** `--workers N`: an integer in [1, 256], or undefined (all cores) when absent. */
export function workersOption(o: ParsedArgs['options']): number | undefined {
  return o['workers'] === undefined ? undefined : intOption(o, 'workers', 1, { min: 1, max: 256 });
}

/** A choice among `choices` (`--backend wasm|serial`), `fallback` when absent. */
export function choiceOption<T extends string>(o: ParsedArgs['options'], name: string, choices: readonly T[], fallback: T): T {
  const v = stringOption(o, name) ?? fallback;
  if (!choices.includes(v as T)) throw new UsageError(`${flagName(o, name)} must be one of ${choices.join(', ')}, got ${v}`);
  return v as T;
}

/** The input file: `--input FILE` or the first positional argument (not both). */
export function inputOption(args: ParsedArgs): string | undefined {
  const flag = stringOption(args.options, 'input');
  if (flag !== undefined && args.positionals.length > 0) {
    throw new UsageError(`give the input once: ${flagName(args.options, 'input')} ${flag} or ${args.positionals[0]}, not both`);
  }
  return flag ?? args.positionals[0];
}
