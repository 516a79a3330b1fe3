// The quick start's job (`npm start` runs `simt demo`): every result must match its reference.
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';

describe('simt demo', () => {
  it('checks vecMax, vecSum and countModules against their references and prints throughput', async () => {
    const lines: string[] = [];
    const code = await main(['demo', '--n', '300001', '--digis', '200003', '--json'], { out: (l) => lines.push(l), err: (l) => lines.push(l), tty: false });
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    const doc = JSON.parse(lines[0]!) as { ok: boolean; workers: number; results: { name: string; ok: boolean; size: number; ms: number }[] };
    expect(doc.ok).toBe(true);
    const records = doc.results;
    expect(records.map((r) => r.name)).toEqual(['vecMax', 'vecSum', 'countModules']);
    for (const r of records) {
      expect(r.ok).toBe(true);
      expect(r.ms).toBeGreaterThan(0);
    }
    expect(records[0]!.size).toBe(300001);
    expect(records[2]!.size).toBe(200003);
  });

  it('rejects a bad option with a usage error', async () => {
    const err: string[] = [];
    const code = await main(['demo', '--n', 'lots'], { out: () => undefined, err: (l) => err.push(l), tty: false });
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/--n needs a number/);
  });
});
