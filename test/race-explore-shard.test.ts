// Exploration at scale: `explore(…, { shard })` splits the schedule space deterministically,
// and `mergeOutcomeFiles` adds the shards' outcome files up. For random, pct and exhaustive on
// racy corpus jobs: the shards run disjoint schedules whose union is the unsharded run's, and
// the merge gives its outcomes with the same counts; files that are not shards of one
// exploration are refused with one-line typed errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ExhaustiveChooser, OutcomeFileError, RaceSession, ShardError, checkShard, explore, findJob, mergeOutcomeFiles,
  outcomeFile, outputKey, parseShard, plainOutputs, readOutcomeFile, replay,
  type ExploreOptions, type ExploreResult, type OutcomeFile, type RaceJob,
} from '../src/race/index.js';
import { exhaustiveUnits } from '../src/race/shard.js';

let session: RaceSession;
beforeAll(async () => { session = await RaceSession.open(); });
afterAll(async () => { await session.close(); });

/** Explores and records every run's schedule by its index (stopWhen sees each run). */
async function exploreRuns<I>(job: RaceJob<I>, o: ExploreOptions): Promise<{ res: ExploreResult; runs: Map<number, string>; file: OutcomeFile }> {
  const runs = new Map<number, string>();
  const inputs = job.inputs();
  const res = await explore(job, inputs, { ...o, session, stopWhen: (r) => { runs.set(r.index, r.schedule); return false; } });
  // Through JSON and back, as a file written by `simt explore … --json` and read by merge.
  const file = readOutcomeFile(JSON.parse(JSON.stringify(await outcomeFile(job, inputs, res))), `shard-${o.shard?.index ?? 0}.json`);
  return { res, runs, file };
}

const counts = (outcomes: readonly { count: number; outputs: Record<string, ArrayLike<number | bigint | string>> }[]): Map<string, number> =>
  new Map(outcomes.map((o) => [JSON.stringify(Object.entries(o.outputs).map(([k, v]) => [k, Array.from(v, String)])), o.count]));

describe('explore --shard: disjoint shards whose union is the unsharded run', () => {
  for (const [strategy, name, schedules] of [['random', 'lostUpdate', 60], ['pct', 'lostUpdate', 60], ['random', 'histogramPlain', 30]] as const) {
    it(`${strategy} on ${name}: shard i of n runs schedules k ≡ i−1 (mod n), the same ones the unsharded run runs`, async () => {
      const job = findJob(name)!;
      const all = await exploreRuns(job, { strategy, schedules, depth: 2, seed: 7 });
      expect(all.res.runs).toBe(schedules);
      expect(new Set(all.res.outcomes.map((o) => o.key)).size).toBeGreaterThan(1); // racy: the test can tell outcomes apart
      for (const n of [1, 3, 4]) {
        const shards = [];
        for (let i = 1; i <= n; i++) shards.push(await exploreRuns(job, { strategy, schedules, depth: 2, seed: 7, shard: { index: i, count: n } }));
        const seen = new Map<number, string>();
        shards.forEach((s, i) => {
          for (const [k, sched] of s.runs) {
            expect(k % n, `shard ${i + 1}/${n} ran schedule ${k}`).toBe(i);
            expect(seen.has(k)).toBe(false);
            seen.set(k, sched);
          }
        });
        expect(seen).toEqual(all.runs); // same schedules, each the same string
        const merged = mergeOutcomeFiles(shards.map((s) => ({ file: `shard-${s.file.shard!.index}.json`, doc: s.file })));
        expect(merged.runs).toBe(all.res.runs);
        expect(counts(merged.outcomes)).toEqual(counts(all.res.outcomes));
        expect(merged.classes.map((c) => [c.class, c.outcomes, c.runs])).toEqual(all.res.classes.map((c) => [c.class, c.outcomes, c.runs]));
        expect(merged.merged).toEqual({ count: n, shards: Array.from({ length: n }, (_, k) => k + 1), missing: [] });
      }
    }, 120_000);
  }

  it('exhaustive on crossBlockPublish: the shards enumerate disjoint subtrees that together are the whole tree', async () => {
    const job = findJob('crossBlockPublish')!;
    const all = await exploreRuns(job, { strategy: 'exhaustive', schedules: 100_000 });
    expect(all.res.exhausted).toBe(true);
    expect(all.res.outcomes.length).toBe(2);
    const leaves = new Set(all.runs.values());
    expect(leaves.size).toBe(all.res.runs);
    for (const n of [2, 3, 5, 16]) {
      const shards = [];
      for (let i = 1; i <= n; i++) shards.push(await exploreRuns(job, { strategy: 'exhaustive', schedules: 100_000, shard: { index: i, count: n } }));
      const union = new Set<string>();
      for (const s of shards) {
        expect(s.res.exhausted).toBe(true);
        for (const sched of s.runs.values()) {
          expect(union.has(sched), `a leaf in two shards of ${n}`).toBe(false);
          union.add(sched);
        }
      }
      expect(union).toEqual(leaves);
      expect(shards.filter((s) => s.res.runs > 0).length).toBeGreaterThan(1); // the work is split, not all in one shard
      const merged = mergeOutcomeFiles(shards.map((s) => ({ file: `shard-${s.file.shard!.index}.json`, doc: s.file })));
      expect(merged.runs).toBe(all.res.runs);
      expect(merged.exhausted).toBe(true);
      expect(counts(merged.outcomes)).toEqual(counts(all.res.outcomes));
    }
  }, 120_000);

  it('exhaustive: schedules bounds each shard; a shard stopped by it is not exhausted, nor is the merge', async () => {
    const job = findJob('crossBlockPublish')!;
    const shards = [];
    for (let i = 1; i <= 3; i++) shards.push(await exploreRuns(job, { strategy: 'exhaustive', schedules: 50, shard: { index: i, count: 3 } }));
    for (const s of shards) expect(s.res.runs).toBeLessThanOrEqual(50);
    expect(shards.some((s) => s.res.exhausted === false)).toBe(true);
    expect(mergeOutcomeFiles(shards.map((s, i) => ({ file: `${i}`, doc: s.file }))).exhausted).toBe(false);
  }, 60_000);

  it('the units of the exhaustive split: the fewest points on the in-order path that give at least n, in depth-first order', () => {
    const path = [{ order: [0, 1, 2], chosen: 0 }, { order: [1, 2], chosen: 1 }, { order: [2, 3, 4], chosen: 2 }];
    expect(exhaustiveUnits(path, 1)).toEqual([[]]);
    expect(exhaustiveUnits(path, 3)).toEqual([[0], [1], [2]]);
    expect(exhaustiveUnits(path, 4)).toEqual([[0, 1], [0, 2], [1], [2]]);
    expect(exhaustiveUnits(path, 100)).toEqual([[0, 1, 2], [0, 1, 3], [0, 1, 4], [0, 2], [1], [2]]);
    // A unit's enumeration never leaves it: the next prefix keeps the unit's decisions.
    const ch = new ExhaustiveChooser([0, 2]);
    ch.choose([0, 1, 2], -1); ch.choose([1, 2], 0); ch.choose([2, 3], 2);
    expect(ch.nextPrefix(2)).toEqual([0, 2, 3]);
    const last = new ExhaustiveChooser([0, 2]);
    last.choose([0, 1, 2], -1); last.choose([1, 2], 0);
    expect(last.nextPrefix(2)).toBeUndefined();
    expect(last.nextPrefix(0)).toEqual([1]);
  });

  it('a found run names its schedule number; merged, the earliest one', async () => {
    const job = findJob('lostUpdate')!;
    const all = await explore(job, undefined, { strategy: 'random', schedules: 40, untilDiffers: true, session });
    expect(all.found).toBeDefined();
    const files = [];
    for (let i = 1; i <= 4; i++) {
      const res = await explore(job, undefined, { strategy: 'random', schedules: 40, untilDiffers: true, shard: { index: i, count: 4 }, session });
      if (res.found) expect(res.found.index % 4).toBe(i - 1);
      files.push({ file: `${i}`, doc: await outcomeFile(job, job.inputs(), res) });
    }
    const merged = mergeOutcomeFiles(files);
    expect(merged.found).toEqual({ index: all.found!.index, schedule: all.found!.schedule });
    const again = await replay(job, merged.found!.schedule, undefined, { session });
    expect(outputKey(again.outputs)).toBe(outputKey(all.found!.outputs));
  }, 60_000);
});

describe('mergeOutcomeFiles', () => {
  let files: { file: string; doc: OutcomeFile }[];
  beforeAll(async () => {
    const job = findJob('histogramPlain')!;
    files = [];
    for (let i = 1; i <= 3; i++) {
      const res = await explore(job, undefined, { schedules: 12, shard: { index: i, count: 3 }, session });
      files.push({ file: `shard-${i}.json`, doc: await outcomeFile(job, job.inputs(), res) });
    }
  }, 60_000);
  const copy = (d: OutcomeFile): OutcomeFile => JSON.parse(JSON.stringify(d)) as OutcomeFile;
  const refused = (f: () => unknown, re: RegExp): void => {
    let err: unknown;
    try { f(); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(OutcomeFileError);
    expect((err as Error).message).not.toContain('\n');
    expect((err as Error).message).toMatch(re);
  };

  it('does not depend on the order of the files; every merged schedule replays its outcome', async () => {
    const a = mergeOutcomeFiles(files);
    const b = mergeOutcomeFiles([files[2]!, files[0]!, files[1]!]);
    expect(b).toEqual(a);
    expect(a.runs).toBe(12);
    expect(a.outcomes.reduce((s, o) => s + o.count, 0)).toBe(12);
    const job = findJob('histogramPlain')!;
    for (const o of a.outcomes.slice(0, 3)) {
      const again = await replay(job, o.schedule, undefined, { session });
      expect(plainOutputs(again.outputs)).toEqual(o.outputs);
    }
  }, 60_000);

  it('a merge of some shards merges again with the rest; missing shards are listed', () => {
    const partial = mergeOutcomeFiles([files[0]!, files[2]!]);
    expect(partial.merged).toEqual({ count: 3, shards: [1, 3], missing: [2] });
    const whole = mergeOutcomeFiles([{ file: 'partial.json', doc: readOutcomeFile(copy(partial), 'partial.json') }, files[1]!]);
    expect(whole.merged!.missing).toEqual([]);
    expect(counts(whole.outcomes)).toEqual(counts(mergeOutcomeFiles(files).outcomes));
    expect(whole.runs).toBe(12);
    refused(() => mergeOutcomeFiles([{ file: 'partial.json', doc: partial }, files[0]!]), /^shard-1\.json: shard 1\/3 is given twice \(also in partial\.json\)$/);
  });

  it('refuses shards of another exploration, naming the file and what differs', async () => {
    const other = (patch: Partial<OutcomeFile>): { file: string; doc: OutcomeFile } => ({ file: 'other.json', doc: { ...copy(files[1]!.doc), ...patch } });
    refused(() => mergeOutcomeFiles([files[0]!, other({ job: 'lostUpdate' })]), /^other\.json: not a shard of the exploration in shard-1\.json: job "lostUpdate", there "histogramPlain"$/);
    refused(() => mergeOutcomeFiles([files[0]!, other({ moduleHash: '0'.repeat(32) })]), /: moduleHash "0+", there "[0-9a-f]{32}"$/);
    refused(() => mergeOutcomeFiles([files[0]!, other({ strategy: 'pct' })]), /: strategy "pct", there "random"$/);
    refused(() => mergeOutcomeFiles([files[0]!, other({ seed: 2 })]), /: seed 2, there 1$/);
    refused(() => mergeOutcomeFiles([files[0]!, other({ schedules: 13 })]), /: schedules 13, there 12$/);
    refused(() => mergeOutcomeFiles([files[0]!, other({ shard: { index: 2, count: 4 } })]), /: split into 4 shard\(s\), there into 3$/);
    refused(() => mergeOutcomeFiles([files[0]!, files[0]!]), /^shard-1\.json: shard 1\/3 is given twice \(also in shard-1\.json\)$/);
    refused(() => mergeOutcomeFiles([]), /no outcome files/);
    // Other inputs: the same job on other data.
    const job = findJob('histogramPlain')!;
    const inputs = job.inputs() as Record<string, number[]>;
    inputs.input = inputs.input!.map((v) => (v + 1) % 4);
    const res = await explore(job, inputs, { schedules: 12, shard: { index: 2, count: 3 }, session });
    const changed = await outcomeFile(job, inputs, res);
    expect(changed.moduleHash).toBe(files[0]!.doc.moduleHash);
    refused(() => mergeOutcomeFiles([files[0]!, { file: 'data.json', doc: changed }]), /^data\.json: not a shard of the exploration in shard-1\.json: inputsHash "[0-9a-f]{32}", there "[0-9a-f]{32}"$/);
  }, 60_000);

  it('readOutcomeFile refuses what is not an outcome file, and schedules that are not whole', () => {
    refused(() => readOutcomeFile([], 'a.json'), /^a\.json: not an explore outcome file/);
    refused(() => readOutcomeFile({ job: 'x' }, 'a.json'), /^a\.json: not an explore outcome file \(no "format": "simt-explore\/1"/);
    refused(() => readOutcomeFile({ ...copy(files[0]!.doc), runs: 99 }, 'a.json'), /^a\.json: bad outcome file: its outcomes count \d+ runs, "runs" says 99$/);
    refused(() => readOutcomeFile({ ...copy(files[0]!.doc), job: undefined }, 'a.json'), /^a\.json: bad outcome file: field "job" is missing$/);
    refused(() => readOutcomeFile({ ...copy(files[0]!.doc), exhausted: 'yes' }, 'a.json'), /^a\.json: bad outcome file: field "exhausted" is "yes"$/);
    refused(() => readOutcomeFile({ ...copy(files[0]!.doc), shard: { index: 4, count: 3 } }, 'a.json'), /^a\.json: bad outcome file: shard \{"index":4,"count":3\}: the shard index must be in 1\.\.3, got 4$/);
    const cut = copy(files[0]!.doc);
    const s = cut.outcomes[0]!.schedule;
    cut.outcomes[0]!.schedule = s.slice(0, s.lastIndexOf(':') - 3);
    refused(() => readOutcomeFile(cut, 'a.json'), /^a\.json: outcome 1's schedule: schedule truncated: /);
    const edited = copy(files[0]!.doc);
    edited.reference.schedule = edited.reference.schedule.replace(':inorder:', ':lucky:');
    refused(() => readOutcomeFile(edited, 'a.json'), /^a\.json: the reference's schedule: unknown strategy "lucky"/);
  });
});

describe('shards: bad values are one-line ShardErrors', () => {
  it('parseShard takes i/n counted from 1 and names what is wrong', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1/1 ')).toEqual({ index: 1, count: 1 });
    for (const [text, re] of [
      ['3/2', /^shard 3\/2: the shard index must be in 1\.\.2, got 3$/],
      ['0/0', /^shard 0\/0: the shard count must be an integer ≥ 1, got 0$/],
      ['0/4', /^shard 0\/4: shards count from 1 \(1\/n … n\/n\); a 0-based CI index needs \+ 1$/],
      ['a/b', /^shard "a\/b": want i\/n, shard i of n counted from 1/],
      ['1/', /^shard "1\/": want i\/n/],
      ['-1/2', /^shard "-1\/2": want i\/n/],
      ['1.5/2', /^shard "1\.5\/2": want i\/n/],
    ] as const) {
      expect(() => parseShard(text)).toThrow(ShardError);
      expect(() => parseShard(text)).toThrow(re);
    }
  });

  it('explore() refuses a bad shard before it runs anything', async () => {
    expect(checkShard({ index: 1, count: 2 })).toEqual({ index: 1, count: 2 });
    for (const shard of [{ index: 0, count: 2 }, { index: 3, count: 2 }, { index: 1, count: 0 }, { index: 1.5, count: 2 }]) {
      await expect(explore(findJob('lostUpdate')!, undefined, { shard, session })).rejects.toThrow(ShardError);
    }
  });

  it('outputs keep 64-bit integers and non-finite numbers through JSON', () => {
    expect(plainOutputs({ a: new Float32Array([NaN, 1.5, -Infinity]), b: new BigInt64Array([-(2n ** 63n), 5n]) }))
      .toEqual({ a: ['NaN', 1.5, '-Infinity'], b: ['-9223372036854775808', '5'] });
  });
});
