// The browser's worker-death detection (src/pool/workerLife.ts): browsers fire no 'exit', so a
// ready worker's end is learnt from its life lock being granted to the host, a 'fatal' reply
// or an uncaught error — each reported once, none before 'ready' (spawn handles those).
// The real thing in Chromium: browser-worker-death.test.ts.
import { describe, expect, it } from 'vitest';
import { watchWorkerLife } from '../../src/pool/workerLife.js';

function watch() {
  const exits: [number, string][] = [];
  let readies = 0;
  const life = watchWorkerLife((code, detail) => exits.push([code, detail]), () => { readies++; });
  return { life, exits, readies: () => readies };
}

describe('watchWorkerLife', () => {
  it('reports nothing before the worker is ready (a start failure is the spawn\'s to report)', () => {
    const { life, exits, readies } = watch();
    life.message({ type: 'fatal', message: 'LinkError' });
    life.error(new Error('script failed to load'));
    life.released();
    expect(exits).toEqual([]);
    expect(readies()).toBe(0);
  });

  it('a lock granted after ready is the worker\'s end, reported once', () => {
    const { life, exits, readies } = watch();
    life.message({ type: 'ready', workerIndex: 1 });
    life.message({ type: 'ready', workerIndex: 1 });
    expect(readies()).toBe(1);
    life.released();
    life.released();
    life.error(new Error('late'));
    expect(exits).toEqual([[1, 'its thread ended (terminated)']]);
  });

  it('a fatal reply or an uncaught error after ready ends the worker too', () => {
    const a = watch();
    a.life.message({ type: 'ready', workerIndex: 0 });
    a.life.message({ type: 'fatal', message: 'RangeError: out of memory' });
    expect(a.exits).toEqual([[1, 'its launch loop ended: RangeError: out of memory']]);
    const b = watch();
    b.life.message({ type: 'ready', workerIndex: 0 });
    b.life.message({ other: true });
    b.life.message(null);
    expect(b.exits).toEqual([]);
    b.life.error(new Error('boom'));
    expect(b.exits).toEqual([[1, 'uncaught error: boom']]);
  });
});
