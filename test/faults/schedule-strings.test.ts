// Schedule strings are input a user pastes: a tampered one must be refused with a typed
// one-line error without allocating gigabytes (`0*zzzzzzz` asked for 78 billion decisions and
// crashed Node), and a truncated one must be refused instead of replaying a different run.
import { describe, expect, it } from 'vitest';
import {
  MAX_DECISIONS, ScheduleFormatError, formatSchedule, parseSchedule, serialSchedule, decodeDecisions,
} from '../../src/race/index.js';
import { runCli } from './child.js';

const tampered = 'simt-sched/1:fine:random:mulberry32:1:-:0*zzzzzzz';

function refused(text: string): ScheduleFormatError {
  let err: unknown;
  try { parseSchedule(text); } catch (e) { err = e; }
  expect(err, text).toBeInstanceOf(ScheduleFormatError);
  expect((err as Error).message).not.toContain('\n');
  expect((err as Error).message.length).toBeLessThan(300);
  return err as ScheduleFormatError;
}

describe('schedule strings', () => {
  it('a tampered run length is refused before anything is expanded', () => {
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    expect(refused(tampered).message).toMatch(new RegExp(`more than ${MAX_DECISIONS} decisions`));
    expect(() => decodeDecisions('0*zzzzzzz')).toThrow(ScheduleFormatError);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(process.memoryUsage().rss - rss0).toBeLessThan(64 << 20);
  });

  it('malformed fields are refused', () => {
    for (const bad of [
      'simt-sched/1:fine:random:mulberry32:1:-:1!',        // parseInt would read '1'
      'simt-sched/1:fine:random:mulberry32:1:-:3*0',       // zero count
      'simt-sched/1:fine:random:mulberry32:1:-:3*',        // empty count
      'simt-sched/1:fine:random:mulberry32:1:-:.',         // empty runs
      'simt-sched/1:fine:random:mulberry32:-1:-:1',        // negative seed
      'simt-sched/1:fine:random:mulberry32:1.5:-:1',       // fractional seed
      'simt-sched/1:fine:lucky:mulberry32:1:-:1',          // unknown strategy
      'simt-sched/1:fine:pct:mulberry32:1:0:1',            // depth 0
      'simt-sched/1:serial:splitmix64:x',
      'simt-sched/1:serial:splitmix64:',
      'simt-sched/9:fine:random:-:-:-:1',
      `simt-sched/1:fine:random:-:-:-:${'z'.repeat(20)}`, // beyond 2^53
    ]) refused(bad);
  });

  it('every truncation of a schedule string is refused', () => {
    const decisions = [0, 0, 0, 5, 5, 40, 1, 1, 7, 300, 300, 2];
    for (const s of [
      formatSchedule({ mode: 'fine', strategy: 'pct', generator: 'mulberry32', seed: 7, depth: 3, decisions }),
      formatSchedule({ mode: 'fine', strategy: 'random', generator: 'mulberry32', seed: 123456, depth: null, decisions }),
      serialSchedule(1234567),
    ]) {
      expect(parseSchedule(s)).toBeTruthy();
      for (let k = s.length - 1; k > 0; k--) refused(s.slice(0, k));
    }
  });

  it('an edited decision is refused', () => {
    const s = formatSchedule({ mode: 'fine', strategy: 'random', generator: 'mulberry32', seed: 3, depth: null, decisions: [1, 2, 3, 4] });
    refused(s.replace(':1.2.3.4:', ':1.2.3.5:'));
    refused(s.replace(':1.2.3.4:', ':1.2.3:'));
  });

  it('complete format-1 strings still parse', () => {
    expect(parseSchedule('simt-sched/1:fine:pct:mulberry32:7:3:0*3.5*2.14.1')).toEqual(
      { mode: 'fine', strategy: 'pct', generator: 'mulberry32', seed: 7, depth: 3, decisions: [0, 0, 0, 5, 5, 40, 1] });
    expect(parseSchedule('simt-sched/1:serial:splitmix64:12345')).toEqual({ mode: 'serial', generator: 'splitmix64', seed: 12345 });
    expect(parseSchedule('simt-sched/1:fine:inorder:-:-:-:-')).toMatchObject({ decisions: [] });
  });

  it('simt explore --replay with a tampered schedule: one line, exit 2, no crash', async () => {
    const r = await runCli(['explore', 'lostUpdate', '--replay', tampered]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/--replay.*more than \d+ decisions/);
  });
});
