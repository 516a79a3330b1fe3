// Hand-checked reports: every field names the right threads, buffers, offsets and source lines
// (of the corpus's kernels, kernels/race/*.ts).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RaceSession, findJob, racecheck, type RaceReport } from '../src/race/index.js';
import { main } from '../src/cli/main.js';

let session: RaceSession;
beforeAll(async () => { session = await RaceSession.open(); });
afterAll(async () => { await session.close(); });

const lineOf = (file: string, marker: string): number => readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(marker)) + 1;
const lineAt = (location: string | undefined): number => Number((location ?? '').split(':')[1]);
const check = async (name: string): Promise<RaceReport[]> => (await racecheck(findJob(name)!, undefined, { session, schedules: 1 })).reports;

describe('race reports', () => {
  it('a cross-block publish: the flag and the data, block 0 writes, block 1 reads', async () => {
    const reps = await check('crossBlockPublish');
    expect(reps.map((r) => r.buffer).sort()).toEqual(['data', 'flag']);
    for (const r of reps) {
      expect(r).toMatchObject({
        kind: 'data-race', kernel: 'crossBlockPublish', space: 'global', offset: 0, index: 0, conflict: 'write-read',
        first: { block: [0, 0, 0], thread: [0, 0, 0], access: 'write', size: 4 },
        second: { block: [1, 0, 0], thread: [0, 0, 0], access: 'read', size: 4 },
      });
    }
  });

  it('the seed\'s intraWarpScan: lane 0 writes scanTile[32], lane 1 reads it as scanTile[index - 1]', async () => {
    const reps = await check('petIntraWarpScan');
    expect(reps[0]).toMatchObject({
      kind: 'warp-sync-hazard', kernel: 'petWarpScan', space: 'shared', buffer: 'scanTile', offset: 128, index: 32,
      first: { thread: [0, 0, 0], access: 'write' }, second: { thread: [1, 0, 0], access: 'read' },
    });
    expect(reps.every((r) => r.kind === 'warp-sync-hazard')).toBe(true);
    // Both accesses of every hazard are intraWarpScan's (inlined device functions name their own
    // lines: simt's own warp scan, kernels/primitives/blockScan.ts).
    const SCANS = 'kernels/primitives/blockScan.ts';
    const [lo, hi] = [lineOf(SCANS, 'function intraWarpScan('), lineOf(SCANS, 'function intraBlockScan(')];
    for (const r of reps) {
      for (const l of [r.first!.location, r.second!.location]) {
        expect(l!.startsWith(`${SCANS}:`), l).toBe(true);
        expect(lineAt(l) > lo && lineAt(l) < hi, l).toBe(true);
      }
    }
  });

  it('the seed\'s FillDataKernel: thread 38 (first past arrayLength = 150 with 4 per thread) misses barriers #1–#6', async () => {
    const reps = await check('petFillData');
    const div = reps.filter((r) => r.kind === 'barrier-divergence');
    // One report per barrier the exited threads miss: FillData's 3, intraBlockScan's 3.
    expect(div.map((r) => r.barrier)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(div[0]).toMatchObject({ barrier: 1, first: { block: [0, 0, 0], thread: [0, 0, 0] }, second: { thread: [38, 0, 0] } });
    expect(div[0]!.message).toContain('exited without reaching it');
  });

  it('each barrier the returned threads miss names its source line', async () => {
    const SEEDS = 'kernels/race/seeds.ts';
    const div = (await check('petFillData')).filter((r) => r.kind === 'barrier-divergence');
    const fill = lineOf(SEEDS, 'export function petFillData(');
    const lines = div.map((r) => lineAt(r.first!.location));
    // FillData's own three barriers, and intraBlockScan's three (inlined at their own lines).
    expect(div.filter((r) => r.first!.location!.startsWith(`${SEEDS}:`) && lineAt(r.first!.location) > fill)).toHaveLength(3);
    const SCANS = 'kernels/primitives/blockScan.ts';
    const inScan = div.map((r) => r.first!.location!).filter((l) => l.startsWith(`${SCANS}:`)).map(lineAt);
    expect(inScan.filter((l) => l > lineOf(SCANS, 'function intraBlockScan(') && l < lineOf(SCANS, 'export function blockScanProbe('))).toHaveLength(3);
    expect(div[0]!.message).toContain(`(${SEEDS}:${lines[0]}:`);
  });

  it('out of bounds: out[6] of the 6-element out, by thread 6, at its line; the thread stops there', async () => {
    const RACY = 'kernels/race/racy.ts';
    const reps = await check('oobWrite');
    // One report per source line: the first thread and index that went out of bounds there.
    expect(reps.map((r) => [r.kind, r.buffer, r.index, r.first!.thread[0], (r.first as { access: string }).access]))
      .toEqual([['out-of-bounds', 'out', 6, 6, 'write']]);
    expect(lineAt(reps[0]!.first!.location)).toBe(lineOf(RACY, 'out[i] = i;'));
    const reads = await check('oobRead');
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({ buffer: 'input', index: 8, first: { thread: [7, 0, 0], access: 'read' } });
    expect(lineAt(reads[0]!.first!.location)).toBe(lineOf(RACY, 'out[i] = input[i + 1];'));
  });

  it('an atomic against a plain read is a race; two atomics are not', async () => {
    const reps = await check('atomicVsPlain');
    expect(reps[0]).toMatchObject({ buffer: 'counter', conflict: 'atomic-read', first: { thread: [0, 0, 0], access: 'atomic' } });
    expect(await check('atomicCounter')).toEqual([]);
  });

  it('a lost update across blocks is a data-race, within a warp a warp-sync hazard (lanes\' stores in one instruction: a data-race)', async () => {
    const reps = await check('lostUpdate');
    expect(reps.find((r) => r.kind === 'warp-sync-hazard')).toMatchObject({ buffer: 'counter', hazard: 'RAW', first: { block: [0, 0, 0] }, second: { block: [0, 0, 0] } });
    expect(reps.find((r) => r.kind === 'data-race' && r.first!.block[0] !== r.second!.block[0]))
      .toMatchObject({ buffer: 'counter', first: { block: [0, 0, 0] }, second: { block: [1, 0, 0] } });
    const lanes = reps.find((r) => r.kind === 'data-race' && r.hazard === 'WAW')!;
    expect(lanes).toMatchObject({ buffer: 'counter', first: { block: [0, 0, 0] }, second: { block: [0, 0, 0] } });
    expect(lanes.message).toContain('in one instruction');
    for (const r of reps) expect(lineAt(r.first!.location)).toBe(lineOf('kernels/race/racy.ts', 'counter[0] += 1;'));
  });

  it('the benign moduleStart order is reported as atomic-order output (a note), with two replayable schedules', async () => {
    const r = await racecheck(findJob('countModules')!, undefined, { session });
    expect(r.reports).toHaveLength(1);
    expect(r.reports[0]).toMatchObject({ kind: 'atomic-order-output', severity: 'note', buffer: 'moduleStart' });
    // Every order was clean on racecheck's screen: its schedules are the screen's orders.
    expect(r.reports[0]!.schedules).toEqual([expect.stringMatching(/^simt-sched\/2:serial:inorder:0:/), expect.stringMatching(/^simt-sched\/2:serial:splitmix64:\d+:/)]);
  });

  it('simt racecheck countModules: the atomic-order note with replay commands, no hazard, exit 0', async () => {
    const lines: string[] = [];
    const code = await main(['racecheck', 'countModules'], { out: (l) => lines.push(l), err: (l) => lines.push(l), tty: false });
    expect(code).toBe(0);
    const text = lines.join('\n');
    expect(text).toMatch(/^========= Note: Atomic-order output of countModules: output 'moduleStart'\[\d+\] is \d+ under one schedule and \d+ under another; no race: .*same set of values, different order/m);
    expect(text).toMatch(/^=========     replay: simt explore countModules --replay simt-sched\/2:serial:inorder:0:/m);
    // The printed command replays that order: its moduleStart differs from the other one's.
    const shown = [...text.matchAll(/--replay (simt-sched\/2:serial:\S+)/g)].map((m) => m[1]!);
    expect(shown).toHaveLength(2);
    const outs: string[] = [];
    for (const sched of shown) {
      const out: string[] = [];
      expect(await main(['explore', 'countModules', '--replay', sched], { out: (l) => out.push(l), err: (l) => out.push(l), tty: false })).toBe(0);
      outs.push(out.join('\n').match(/moduleStart=\[[^\]]*\]/)![0]);
    }
    expect(outs[0]).not.toBe(outs[1]);
    expect(lines.at(-1)).toBe('========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)');
  });

  it('a hazard hit by many thread pairs is one report with a count; its type, severity and both sites', async () => {
    const reps = await check('histogramPlain');
    const race = reps.find((r) => r.kind === 'data-race' && r.hazard === 'RAW')!;
    expect(race).toMatchObject({ severity: 'error', hazard: 'RAW', atomic: false, buffer: 'hist' });
    expect(race.count).toBeGreaterThan(1);
    expect(new Set(reps.map((r) => `${r.kind}:${r.hazard}:${r.buffer}`)).size).toBe(reps.length);
  });

  it('simt racecheck <job> prints the reports and exits 1', async () => {
    const lines: string[] = [];
    const code = await main(['racecheck', 'oobWrite'], { out: (l) => lines.push(l), err: (l) => lines.push(l), tty: false });
    expect(code).toBe(1);
    expect(lines.join('\n')).toContain(`index 6 is out of bounds of 'out' (length 6) in thread (6, 0, 0) at kernels/race/racy.ts:${lineOf('kernels/race/racy.ts', 'out[i] = i;')}:`);
  });
});
