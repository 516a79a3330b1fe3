// Progress on stderr, drawn only when stderr is a terminal (and not --quiet). Each draw
// rewrites the whole line (carriage return, clear to end of line), so a shorter label or count
// never leaves characters of a longer one behind; done() always shows the bar full.
export interface Progress {
  /** Starts step `label` (the bar shows the steps finished before it). */
  step(label: string): void;
  /** Shows `done` of `total` units of a stage (a stage with its own count). */
  update(stage: string, done: number, total: number): void;
  /** Shows the bar full and ends the line. Idempotent. */
  done(): void;
}

const WIDTH = 24;

/** Whether progress should be drawn: stderr is a terminal and the user did not ask for --quiet. */
export function progressEnabled(options: Record<string, unknown>): boolean {
  return !!process.stderr.isTTY && !options['quiet'];
}

export function progressBar(total: number, enabled = !!process.stderr.isTTY, write: (s: string) => void = (s) => process.stderr.write(s)): Progress {
  let k = 0;
  let drawn = false;
  let finished = false;
  const draw = (label: string, done: number, of: number): void => {
    if (!enabled || finished) return;
    const f = of > 0 ? Math.min(1, done / of) : 1;
    const filled = Math.round(f * WIDTH);
    write(`\r\x1b[2K[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${done}/${of} ${label}`);
    drawn = true;
  };
  return {
    step(label) { draw(label, k, total); k = Math.min(total, k + 1); },
    update(stage, done, of) { draw(stage, done, of); },
    done() {
      if (finished) return;
      draw('done', total, total);
      finished = true;
      if (drawn) write('\n');
    },
  };
}
