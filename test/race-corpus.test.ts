import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RaceSession, corpus, racecheck } from '../src/race/index.js';
import { main } from '../src/cli/main.js';

let session: RaceSession;
beforeAll(async () => { session = await RaceSession.open(); });
afterAll(async () => { await session.close(); });

describe('the race corpus', () => {
  it('has at least 20 racy and 20 race-free kernels, including the seeds\' four', () => {
    expect(corpus.filter((j) => j.racy).length).toBeGreaterThanOrEqual(20);
    expect(corpus.filter((j) => !j.racy).length).toBeGreaterThanOrEqual(20);
    for (const name of ['countModules', 'petFillData', 'petIntraWarpScan', 'stsAtomicScatter']) {
      expect(corpus.find((j) => j.name === name)?.racy).toBe(true);
    }
    expect(new Set(corpus.map((j) => j.name)).size).toBe(corpus.length);
  });

  for (const job of corpus) {
    it(`${job.racy ? 'detects' : 'stays quiet on'} ${job.name}`, async () => {
      const r = await racecheck(job, job.inputs(), { session });
      if (job.racy) {
        expect(r.reports.length).toBeGreaterThan(0);
        expect(r.reports.some((x) => job.expect.includes(x.kind))).toBe(true);
      } else {
        expect(r.reports).toEqual([]);
      }
    });
  }

  it('simt racecheck --corpus --json prints one document: the summary and a record per kernel', async () => {
    const lines: string[] = [];
    const code = await main(['racecheck', '--corpus', '--json'], { out: (l) => lines.push(l), err: (l) => lines.push(l), tty: false });
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    const doc = JSON.parse(lines[0]!) as { detected: number; missed: number; falseAlarms: number; kernels: Record<string, unknown>[] };
    expect(doc.kernels.length).toBe(corpus.length);
    for (const rec of doc.kernels) {
      expect(typeof rec.name).toBe('string');
      expect(typeof rec.racy).toBe('boolean');
      expect(typeof rec.reports).toBe('number');
    }
    expect({ ...doc, kernels: undefined }).toEqual({ detected: corpus.filter((j) => j.racy).length, missed: 0, falseAlarms: 0, kernels: undefined });
  });
});
