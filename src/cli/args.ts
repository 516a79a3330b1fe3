// A small argument parser: `--name value`, `--flag`, `--name=value`, positionals.
export interface ParsedArgs { positionals: string[]; options: Record<string, string | true> }

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const options: Record<string, string | true> = {};
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k]!;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) { options[a.slice(2, eq)] = a.slice(eq + 1); continue; }
      const next = argv[k + 1];
      if (next !== undefined && !next.startsWith('--')) { options[a.slice(2)] = next; k++; } else options[a.slice(2)] = true;
    } else positionals.push(a);
  }
  return { positionals, options };
}

export class UsageError extends Error {}

export function intOption(o: ParsedArgs['options'], name: string, fallback: number): number {
  const v = o[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v === true || !Number.isFinite(n)) throw new UsageError(`--${name} needs a number, got ${String(v)}`);
  return n;
}

export function stringOption(o: ParsedArgs['options'], name: string): string | undefined {
  const v = o[name];
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}
