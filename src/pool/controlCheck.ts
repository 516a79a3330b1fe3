// After a launch: did a kernel write into the control page? The memory layout makes an overrun
// past the end of the heap trap (layout.ts, GUARD_BYTES), but a wild pointer or an index that
// jumps the guard can still reach low memory, and the control page is the first thing there
// (a wrap from the top lands on word 0, the generation). Overwritten protocol words make a
// launch end early with blocks that never ran, or hang, or wake the workers into a launch the
// host never published. So the host keeps a copy of what it wrote and compares after each
// launch: a few hundred words, well under a microsecond.

import { CTL } from '../layout.js';

const LINE = 128 / 4;
/** The launch description: lines 8–11 (dims, seed, chunking, argument slots and tags). */
const FIRST = 8 * LINE;
const END = 12 * LINE;
const CLOSED = 0xffffffffn;

export class ControlPageCheck {
  private readonly copy = new Int32Array(END - FIRST);
  private gen = 0;
  private genTag = 0n;

  constructor(private readonly i32: Int32Array, private readonly i64: BigInt64Array, private readonly workers: number) {}

  /** Called when a launch is published: what the workers must find there until it ends. */
  record(gen: number, genTag: bigint): void {
    this.gen = gen;
    this.genTag = genTag;
    this.copy.set(this.i32.subarray(FIRST, END));
  }

  /** The first protocol word found overwritten, or undefined when the page is as the host left it. */
  problem(): string | undefined {
    const i32 = this.i32;
    if (Atomics.load(i32, CTL.GEN) !== this.gen) return 'the generation word';
    const claim = Atomics.load(this.i64, CTL.CLAIM_BYTE / 8);
    const next = claim & 0xffffffffn;
    const total = i32[CTL.TOTAL_CHUNKS]!;
    if ((claim & ~0xffffffffn) !== this.genTag || (next !== CLOSED && next > BigInt(total))) return 'the claim word';
    for (let k = 0; k < this.copy.length; k++) {
      if (i32[FIRST + k] !== this.copy[k]) return `the launch description (word ${FIRST + k})`;
    }
    const done = Atomics.load(i32, CTL.CHUNKS_DONE);
    if (done < 0 || done > total) return 'the chunks-done count';
    const inFlight = Atomics.load(i32, CTL.IN_FLIGHT);
    if (inFlight < 0 || inFlight > this.workers) return 'the in-flight count';
    const error = Atomics.load(i32, CTL.ERROR);
    if (error !== 0 && error !== 1) return 'the error word';
    if (error === 1) {
      const len = i32[CTL.ERROR_MSG_LEN]!;
      const worker = i32[CTL.ERROR_WORKER]!;
      if (len < 0 || len > CTL.ERROR_MSG_MAX || worker < 0 || worker >= this.workers) return 'the error record';
    }
    return undefined;
  }
}
