// "Did you mean …?": the closest known name to a mistyped one, by edit distance.

/** Levenshtein distance (insert, delete, substitute; each 1). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The way names are compared: case, '-' and '_' do not count (`count-modules` is `countModules`). */
export function nameKey(s: string): string {
  return s.toLowerCase().replace(/[-_]/g, '');
}

/**
 * The known name closest to `typed`, or undefined when none is close: within a third of its
 * length (at least 2 edits), or one that starts with what was typed.
 */
export function suggest(typed: string, known: readonly string[]): string | undefined {
  const t = nameKey(typed);
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(t, nameKey(k));
    if (d < bestD) { bestD = d; best = k; }
  }
  if (best !== undefined && bestD <= Math.max(2, Math.floor(t.length / 3))) return best;
  if (t.length >= 3) return known.find((k) => nameKey(k).startsWith(t));
  return undefined;
}

/**
 * Resolves a name among `known`, ignoring case, '-' and '_'; an unknown one is undefined and
 * `hint` says the closest known name.
 */
export function resolveName(typed: string, known: readonly string[]): { name?: string; hint: string } {
  const name = known.find((k) => nameKey(k) === nameKey(typed));
  if (name) return { name, hint: '' };
  const near = suggest(typed, known);
  return { hint: near ? `did you mean ${near}?` : '' };
}
