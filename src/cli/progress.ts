// A minimal step progress bar on stderr, drawn only when stderr is a terminal.
export interface Progress { step(label: string): void; done(): void }

export function progressBar(total: number, enabled = !!process.stderr.isTTY): Progress {
  let k = 0;
  const draw = (label: string): void => {
    if (!enabled) return;
    const width = 24;
    const filled = Math.round((k / total) * width);
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${k}/${total} ${label.padEnd(28)}`);
  };
  return {
    step(label) { draw(label); k = Math.min(total, k + 1); },
    done() { draw('done'); if (enabled) process.stderr.write('\n'); },
  };
}
