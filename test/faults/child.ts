// Runs a script (or the CLI) in a fresh Node process: the faults that only show in a process
// with nothing else keeping it alive, or in what a user sees on stdout/stderr and the exit code.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built package entry (dist/): `npm run build` first. */
export const entry = fileURLToPath(new URL('../../dist/src/index.js', import.meta.url));
export const cli = fileURLToPath(new URL('../../bin/simt.js', import.meta.url));

export interface ChildResult { code: number | null; signal: string | null; stdout: string; stderr: string; ms: number }

function run(args: string[], timeoutMs: number, cwd?: string): Promise<ChildResult> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, args, { timeout: timeoutMs, maxBuffer: 16 << 20, cwd }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: unknown; signal?: string | null }) | null;
      resolve({
        code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
        signal: e?.signal ?? null, stdout, stderr, ms: Date.now() - t0,
      });
    });
  });
}

/** Runs an ES module script given as text; `ENTRY` in it is replaced by the package entry. */
export function runScript(code: string, timeoutMs = 30_000): Promise<ChildResult> {
  return run(['--input-type=module', '-e', code.replaceAll('ENTRY', JSON.stringify(entry))], timeoutMs);
}

/** Runs `simt <args>`. */
export function runCli(args: string[], timeoutMs = 60_000, cwd?: string): Promise<ChildResult> {
  return run([cli, ...args], timeoutMs, cwd);
}
