// `simt explore … --shard i/n --json > shard-i.json` on the jobs of a CI matrix, then
// `simt explore merge shard-*.json`, as a user runs them: the merged result is the unsharded
// run's (outcomes, counts, runs), its replay strings are whole and replay; bad shards and files
// that are not shards of one exploration are one-line errors. Needs `npm run build` (bin/).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { runCli } from './faults/child.js';

interface Doc {
  format: string; job: string; strategy: string; runs: number; exhausted?: boolean; moduleHash: string; inputsHash: string;
  shard: { index: number; count: number } | null; merged?: { count: number; shards: number[]; missing: number[] };
  outcomes: { count: number; class: string; schedule: string; outputs: Record<string, number[]> }[];
}

async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), tty: false });
  return { code, out, err };
}

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'simt-shard-')); });
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

/** `simt <args> --json > <name>`: the file's path and its document. */
async function toFile(name: string, args: string[]): Promise<{ path: string; doc: Doc }> {
  const r = await cli([...args, '--json']);
  expect(r.code, r.err.join('\n')).toBe(0);
  expect(r.out).toHaveLength(1);
  const path = join(dir, name);
  writeFileSync(path, `${r.out[0]}\n`);
  return { path, doc: JSON.parse(r.out[0]!) as Doc };
}

const byOutput = (d: Doc): Record<string, number> => Object.fromEntries(d.outcomes.map((o) => [JSON.stringify(o.outputs), o.count]));

describe('simt explore --shard i/n and simt explore merge', () => {
  for (const [job, strategy, schedules, n] of [['lostUpdate', 'random', 48, 3], ['lostUpdate', 'pct', 48, 4], ['crossBlockPublish', 'exhaustive', 5000, 3]] as const) {
    it(`${strategy} on ${job}: the merge of ${n} shards is the unsharded run`, async () => {
      const common = ['explore', job, '--strategy', strategy, '--schedules', String(schedules), '--depth', '2', '--seed', '3'];
      const whole = await toFile(`${strategy}-all.json`, common);
      const shards = [];
      for (let i = 1; i <= n; i++) shards.push(await toFile(`${strategy}-${i}.json`, [...common, '--shard', `${i}/${n}`]));
      for (const [i, s] of shards.entries()) {
        expect(s.doc.format).toBe('simt-explore/1');
        expect(s.doc.shard).toEqual({ index: i + 1, count: n });
        expect(s.doc.moduleHash).toMatch(/^[0-9a-f]{32}$/);
        expect([s.doc.moduleHash, s.doc.inputsHash]).toEqual([whole.doc.moduleHash, whole.doc.inputsHash]);
      }
      expect(shards.reduce((a, s) => a + s.doc.runs, 0)).toBe(whole.doc.runs);
      if (strategy !== 'exhaustive') expect(shards.map((s) => s.doc.runs)).toEqual(Array.from({ length: n }, (_, i) => Math.ceil((schedules - i) / n)));
      // Given in any order.
      const merged = await cli(['explore', 'merge', ...shards.map((s) => s.path).reverse(), '--json']);
      expect(merged.code, merged.err.join('\n')).toBe(0);
      expect(merged.err).toEqual([]);
      const doc = JSON.parse(merged.out[0]!) as Doc;
      expect(doc.runs).toBe(whole.doc.runs);
      expect(byOutput(doc)).toEqual(byOutput(whole.doc));
      expect(doc.exhausted).toBe(whole.doc.exhausted);
      expect(doc.merged).toEqual({ count: n, shards: Array.from({ length: n }, (_, i) => i + 1), missing: [] });
      // The readable form: the header, and replay strings printed whole that replay their outcome.
      const text = await cli(['explore', 'merge', ...shards.map((s) => s.path)]);
      expect(text.out[0]).toMatch(new RegExp(`^${job}: ${whole.doc.runs} ${strategy} schedules \\(shards ${doc.merged!.shards.join(',')} of ${n} merged\\), ${doc.outcomes.length} distinct outcome\\(s\\)${strategy === 'exhaustive' ? ' \\(every interleaving enumerated\\)' : ''} in \\d+ ms$`));
      const replays = text.out.filter((l) => l.includes('replay: ')).map((l) => l.slice(l.indexOf('replay: ') + 8));
      expect(replays.length).toBeGreaterThan(0);
      for (const s of replays.slice(0, 2)) {
        expect(s).not.toContain('…');
        const again = await cli(['explore', job, '--replay', s, '--json']);
        expect(again.code).toBe(0);
        expect((JSON.parse(again.out[0]!) as { outputs: unknown }).outputs).toEqual(doc.outcomes.find((o) => o.schedule === s)!.outputs);
      }
    }, 120_000);
  }

  it('in its own process: missing shards are a warning on stderr, the document alone on stdout, exit 0', async () => {
    const common = ['explore', 'lostUpdate', '--schedules', '20'];
    const a = await toFile('w-1.json', [...common, '--shard', '1/4']);
    const c = await toFile('w-3.json', [...common, '--shard', '3/4']);
    const r = await runCli(['explore', 'merge', a.path, c.path, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('simt explore merge: warning: shard(s) 2, 4 of 4 missing: the result covers 2 of 4 shards\n');
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.merged).toEqual({ count: 4, shards: [1, 3], missing: [2, 4] });
    expect(doc.runs).toBe(a.doc.runs + c.doc.runs);
    const text = await cli(['explore', 'merge', a.path, c.path]);
    expect(text.out[0]).toMatch(/^lostUpdate: 10 random schedules \(shards 1,3 of 4 merged; 2,4 missing\), /);
  }, 60_000);
});

describe('bad shards and files: one line, exit 2 (usage) or 1 (the files)', () => {
  let one: string, two: string, pct: string, other: string, replayDoc: string, notJson: string;
  beforeAll(async () => {
    one = (await toFile('r-1.json', ['explore', 'lostUpdate', '--schedules', '10', '--shard', '1/2'])).path;
    two = (await toFile('r-2.json', ['explore', 'lostUpdate', '--schedules', '10', '--shard', '2/2'])).path;
    pct = (await toFile('p-2.json', ['explore', 'lostUpdate', '--schedules', '10', '--shard', '2/2', '--strategy', 'pct'])).path;
    other = (await toFile('o-2.json', ['explore', 'histogramPlain', '--schedules', '10', '--shard', '2/2'])).path;
    const rp = await cli(['explore', 'lostUpdate', '--schedules', '1', '--json']);
    const schedule = (JSON.parse(rp.out[0]!) as Doc).outcomes[0]!.schedule;
    replayDoc = (await toFile('replay.json', ['explore', 'lostUpdate', '--replay', schedule])).path;
    notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{"format": "simt-explore/1", ');
  }, 60_000);

  it.each([
    ['--shard 3/2', ['explore', 'lostUpdate', '--shard', '3/2'], 2, /^simt explore: --shard: shard 3\/2: the shard index must be in 1\.\.2, got 3 \(simt explore --help shows the options\)$/],
    ['--shard 0/0', ['explore', 'lostUpdate', '--shard', '0/0'], 2, /^simt explore: --shard: shard 0\/0: the shard count must be an integer ≥ 1, got 0 /],
    ['--shard a/b', ['explore', 'lostUpdate', '--shard', 'a/b'], 2, /^simt explore: --shard: shard "a\/b": want i\/n, shard i of n counted from 1/],
    ['--shard 0/4 (0-based)', ['explore', 'lostUpdate', '--shard', '0/4'], 2, /^simt explore: --shard: shard 0\/4: shards count from 1 \(1\/n … n\/n\); a 0-based CI index needs \+ 1 /],
    ['merge with no files', ['explore', 'merge'], 2, /^simt explore: merge needs outcome files: simt explore merge shard-1\.json/],
    ['merge with an explore option', ['explore', 'merge', '<one>', '--schedules', '5'], 2, /^simt explore: --schedules does not apply to merge/],
    ['a missing file', ['explore', 'merge', '<one>', '<dir>/nope.json'], 1, /^simt explore: InputFileError: \S+nope\.json: no such file or directory$/],
    ['a file that is not JSON', ['explore', 'merge', '<one>', '<notJson>'], 1, /^simt explore: InputFileError: \S+not\.json: not valid JSON: /],
    ['a file that is not an outcome file', ['explore', 'merge', '<one>', '<replay>'], 1, /^simt explore: OutcomeFileError: \S+replay\.json: not an explore outcome file \(no "format": "simt-explore\/1"; simt explore … --json writes one\)$/],
    ['the same shard twice', ['explore', 'merge', '<one>', '<two>', '<one>'], 1, /^simt explore: OutcomeFileError: \S+r-1\.json: shard 1\/2 is given twice \(also in \S+r-1\.json\)$/],
    ['another job', ['explore', 'merge', '<one>', '<other>'], 1, /^simt explore: OutcomeFileError: \S+o-2\.json: not a shard of the exploration in \S+r-1\.json: job "histogramPlain", there "lostUpdate"$/],
    ['another strategy', ['explore', 'merge', '<one>', '<pct>'], 1, /^simt explore: OutcomeFileError: \S+p-2\.json: not a shard of the exploration in \S+r-1\.json: strategy "pct", there "random"$/],
  ])('%s', async (_what, args, code, re) => {
    const sub: Record<string, string> = { '<one>': one, '<two>': two, '<pct>': pct, '<other>': other, '<replay>': replayDoc, '<notJson>': notJson };
    const r = await cli(args.map((a) => sub[a] ?? a.replace('<dir>', dir)));
    expect(r.code).toBe(code);
    expect(r.out).toEqual([]);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(re);
  });

  it('--shard with a valid schedule and --replay: give one of them', async () => {
    const rp = await cli(['explore', 'lostUpdate', '--schedules', '1', '--json']);
    const schedule = (JSON.parse(rp.out[0]!) as Doc).outcomes[0]!.schedule;
    const r = await cli(['explore', 'lostUpdate', '--shard', '1/2', '--replay', schedule]);
    expect(r.code).toBe(2);
    expect(r.err).toEqual(['simt explore: --shard splits an exploration; --replay runs one schedule: give one of them (simt explore --help shows the options)']);
  });
});
