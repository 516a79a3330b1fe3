// Declared command-line options: each command lists its options once, and that list drives the
// parser (unknown flags are an error with a suggestion, deprecated spellings map to the current
// one with a note), `--help` (every option with its default) and docs/cli.md.
import { UsageError, type ParsedArgs } from './args.js';
import { suggest } from './suggest.js';

export interface OptionSpec {
  /** The option's name without `--` (`out`, `schedule-seed`). */
  name: string;
  /** What the value is (`N`, `DIR`, `wasm|serial`); absent for a flag that takes no value. */
  value?: string;
  /** The default as help shows it (absent: none, or the flag is off). */
  default?: string;
  /** One line: what it does. */
  description: string;
  /** A one-letter form (`o` for `-o`). */
  short?: string;
  /** Old spellings, accepted for one more release with a deprecation note on stderr. */
  deprecated?: string[];
}

/** Options every command takes. */
export const COMMON_OPTIONS: readonly OptionSpec[] = [
  { name: 'help', short: 'h', description: 'show this help and exit' },
  { name: 'verbose', description: 'on an error, also print its stack' },
];

/** The shared spellings of the convention (docs/cli.md), so every command says them alike. */
export const opt = {
  json: (what = 'the result as one JSON document on stdout'): OptionSpec => ({ name: 'json', description: what }),
  quiet: (): OptionSpec => ({ name: 'quiet', short: 'q', description: 'no progress bars or notes on stderr (errors still print)' }),
  workers: (what = 'workers of the wasm pool'): OptionSpec => ({ name: 'workers', value: 'N', default: 'all cores', description: what }),
  seed: (what = 'seed of the generated input'): OptionSpec => ({ name: 'seed', value: 'S', default: '1', description: what }),
  scheduleSeed: (): OptionSpec => ({
    name: 'schedule-seed', value: 'S', default: 'random', deprecated: ['device-seed'],
    description: 'schedule seed of the device (serial backend: replays the same block and thread order)',
  }),
  backend: (choices = 'wasm|serial', fallback = 'wasm'): OptionSpec => ({ name: 'backend', value: choices, default: fallback, description: 'where the kernels run' }),
  input: (value: string, what: string): OptionSpec => ({ name: 'input', short: 'i', value, description: `${what} (or give it as the first positional argument)` }),
};

export interface ParseResult extends ParsedArgs {
  /** Deprecation notes for old spellings that were used. */
  notes: string[];
}

/**
 * Parses `argv` against the declared options: `--name value`, `--name=value`, `-x value`,
 * `--flag`, positionals, and `--` (everything after it is positional). Options are keyed by
 * their current name; `spelled` keeps what the user typed (error messages name that).
 */
export function parseOptions(argv: readonly string[], specs: readonly OptionSpec[]): ParseResult {
  const byName = new Map<string, { spec: OptionSpec; deprecated: boolean }>();
  for (const spec of specs) {
    byName.set(spec.name, { spec, deprecated: false });
    for (const d of spec.deprecated ?? []) byName.set(d, { spec, deprecated: true });
  }
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]));
  const positionals: string[] = [];
  const options: Record<string, string | true> = {};
  const spelled: Record<string, string> = {};
  const notes: string[] = [];
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k]!;
    if (a === '--') { positionals.push(...argv.slice(k + 1)); break; }
    let key: string;
    let inline: string | undefined;
    let found: { spec: OptionSpec; deprecated: boolean } | undefined;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      key = eq > 0 ? a.slice(2, eq) : a.slice(2);
      inline = eq > 0 ? a.slice(eq + 1) : undefined;
      found = byName.get(key);
      if (!found) {
        const names = [...byName.entries()].filter(([, v]) => !v.deprecated).map(([n]) => n);
        const near = suggest(key, names);
        throw new UsageError(`unknown option --${key}${near ? ` (did you mean --${near}?)` : ''}`);
      }
    } else if (/^-[a-zA-Z]$/.test(a)) {
      const spec = byShort.get(a.slice(1));
      if (!spec) throw new UsageError(`unknown option ${a}`);
      key = a.slice(1);
      found = { spec, deprecated: false };
    } else {
      positionals.push(a);
      continue;
    }
    const { spec, deprecated } = found;
    const shown = a.startsWith('--') ? `--${key}` : `-${key}`;
    if (deprecated) notes.push(`${shown} is deprecated and will be removed in the next release: use --${spec.name}`);
    if (spec.value === undefined) {
      if (inline !== undefined) throw new UsageError(`${shown} takes no value, got ${shown}=${inline}`);
      options[spec.name] = true;
    } else {
      let v = inline;
      if (v === undefined) {
        const next = argv[k + 1];
        // A value may start with '-' (a negative number, which the option then rejects by name),
        // but not with '--': `--out --json` forgot the value.
        if (next === undefined || next.startsWith('--')) throw new UsageError(`${shown} needs a value (${spec.value})`);
        v = next;
        k++;
      }
      options[spec.name] = v;
    }
    spelled[spec.name] = shown;
  }
  return { positionals, options, spelled, notes };
}

/** `--help` of a command: usage, summary, every option with its value, default and aliases, examples. */
export function formatHelp(c: { name: string; summary: string; usage: string; options: readonly OptionSpec[]; examples: readonly string[]; details?: string }): string {
  const lines = [`usage: ${c.usage}`, '', `${c.summary}.`];
  if (c.details) lines.push('', c.details);
  lines.push('', 'options:');
  const heads = c.options.map((o) => `${o.short ? `-${o.short}, ` : '    '}--${o.name}${o.value ? ` ${o.value}` : ''}`);
  const width = Math.min(34, Math.max(...heads.map((h) => h.length)) + 2);
  c.options.forEach((o, k) => {
    const extra = [o.default !== undefined ? `default: ${o.default}` : '', o.deprecated?.length ? `old spelling: ${o.deprecated.map((d) => `--${d}`).join(', ')} (deprecated)` : '']
      .filter(Boolean).join('; ');
    const head = heads[k]!;
    const text = `${o.description}${extra ? ` [${extra}]` : ''}`;
    lines.push(head.length + 2 > width ? `  ${head}\n  ${' '.repeat(width)}${text}` : `  ${head.padEnd(width)}${text}`);
  });
  lines.push('', c.examples.length > 1 ? 'examples:' : 'example:');
  for (const e of c.examples) lines.push(`  ${e}`);
  return lines.join('\n');
}
