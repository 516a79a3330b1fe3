// The optimizer process (Node): Binaryen's -O3 of the block and screen forms, and asyncify of
// the fine-grained form, run in a child Node process started with `--liftoff-only` (on two
// cores); the rest of a compile runs in the caller's.
//
// Why: in a fresh process V8 compiles Binaryen's 10 MB of wasm lazily, function by function on
// the main thread as the optimizer first calls them, and tiers the hot ones up on background
// threads. On this project's two-core machine that made the first -O3 of a small kernel take
// 1.3-2.0 s, against 0.4-0.6 s for the next ones, and a cold compile 3.0-3.8 s. The child is
// started when a compile starts, so it loads Binaryen while this process loads AssemblyScript
// and runs asc; with --liftoff-only V8 compiles all of Binaryen up front with its baseline
// compiler, in the background, and never tiers up, and the child's first -O3 takes 0.6-0.8 s:
// a cold compile 1.9-2.3 s (bench/RESULTS.md, "Compile time"; v8FlagsFor: the flag on
// machines with many cores). A library may not set V8 flags for its host's process, but it may
// for its own child.
//
// The child serves later compiles too, and goes away after IDLE_MS without work, or with this
// process (it exits when its IPC channel closes). It never keeps this process alive: the
// channel is referenced only while a request is in flight. Anything wrong with it (no
// child_process, a spawn that fails, a child that dies, an error inside it) makes the caller
// optimise in its own process (optimizeO3), which gives the same bytes or the same error.

import { builtScriptPath, isNode } from '../platform.js';
import type { OptimizeJob, OptimizeReply, OptimizeRequest } from './optimizerChild.js';

type ChildProcess = import('node:child_process').ChildProcess;

/** How long an idle optimizer process is kept for the next compile. */
const IDLE_MS = 30_000;
/** Optimizer processes that may fail (exit before answering, crash) before none is started again. */
const MAX_FAILURES = 2;
/** A child not ready by then (loading Binaryen takes 0.4-0.7 s) is killed: no compile waits on it. */
const READY_TIMEOUT_MS = 20_000;

/** One optimizer process: its requests in flight, answered by id. */
class OptimizerChild {
  readonly ready: Promise<boolean>;
  private readonly waiting = new Map<number, (b: Uint8Array | undefined) => void>();
  private nextId = 0;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private alive = true;

  constructor(readonly proc: ChildProcess) {
    let started: (ok: boolean) => void;
    this.ready = new Promise<boolean>((resolve) => { started = resolve; });
    let isReady = false;
    const startup = setTimeout(() => { if (!isReady) proc.kill(); }, READY_TIMEOUT_MS);
    startup.unref?.();
    proc.on('message', (m: OptimizeReply) => {
      if (m.id === -1) { isReady = true; clearTimeout(startup); started(true); return; }
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      w(m.binary ? new Uint8Array(m.binary) : undefined);
      this.idleIfDone();
    });
    const exited = () => {
      if (!this.alive) return;
      this.alive = false;
      clearTimeout(startup);
      started(false);
      // Stopped by us (a disconnect ends it with 0) is no failure; anything else is.
      if (!isReady || proc.signalCode !== null || (proc.exitCode ?? 0) !== 0) failures++;
      if (current === this) current = undefined;
      if (this.idleTimer) clearTimeout(this.idleTimer);
      for (const w of this.waiting.values()) w(undefined);
      this.waiting.clear();
    };
    proc.once('exit', exited);
    proc.once('error', exited);
    this.hold(false);
  }

  /** The optimised bytes, or undefined when this process cannot give them. */
  async optimize(binary: Uint8Array, job: OptimizeJob): Promise<Uint8Array | undefined> {
    if (this.idleTimer) { clearTimeout(this.idleTimer); this.idleTimer = undefined; }
    const id = this.nextId++;
    const reply = new Promise<Uint8Array | undefined>((resolve) => this.waiting.set(id, resolve));
    // Referenced while a request waits: the caller's process must not exit under its compile.
    this.hold(true);
    if (!(await this.ready) || !this.alive || !this.proc.connected) { this.waiting.delete(id); this.idleIfDone(); return undefined; }
    try {
      this.proc.send({ id, job, binary } satisfies OptimizeRequest);
    } catch {
      this.waiting.delete(id);
      this.idleIfDone();
      return undefined;
    }
    return reply;
  }

  stop(): void {
    if (this.proc.connected) this.proc.disconnect();
  }

  /** No request in flight: let the caller's process exit, and stop the child after IDLE_MS. */
  private idleIfDone(): void {
    if (this.waiting.size > 0 || !this.alive) return;
    this.hold(false);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => { if (this.waiting.size === 0) { if (current === this) current = undefined; this.stop(); } }, IDLE_MS);
    this.idleTimer.unref?.();
  }

  private hold(on: boolean): void {
    const channel = this.proc.channel as { ref?: () => void; unref?: () => void } | null | undefined;
    if (on) { this.proc.ref(); channel?.ref?.(); } else { this.proc.unref(); channel?.unref?.(); }
  }
}

let current: OptimizerChild | undefined;
let starting: Promise<OptimizerChild | undefined> | undefined;
let failures = 0;

/**
 * Starts the optimizer process if none runs (a compile calls this first, so that the child
 * loads Binaryen while the compile runs its front end and asc). Never throws.
 */
export function startOptimizerProcess(): void {
  void running();
}

/**
 * `job` (-O3 of a block or screen form, asyncify of a fine form) done by the optimizer process,
 * or undefined when there is none (not Node, turned off, failed): the caller then does it in its
 * own process.
 */
export async function optimizeOutOfProcess(binary: Uint8Array, job: OptimizeJob = 'O3'): Promise<Uint8Array | undefined> {
  const c = await running();
  return c ? c.optimize(binary, job) : undefined;
}

/** Stops the optimizer process now (tests; a later compile starts a new one). */
export function stopOptimizerProcess(): void {
  const c = current;
  current = undefined;
  c?.stop();
}

/** The optimizer process's pid once it is ready, undefined when none runs (tests). */
export async function optimizerProcessId(): Promise<number | undefined> {
  const c = current;
  return c && (await c.ready) && c.proc.connected ? c.proc.pid : undefined;
}

function running(): Promise<OptimizerChild | undefined> {
  if (current) return Promise.resolve(current);
  starting ??= spawn().then((c) => { starting = undefined; current = c; return c; });
  return starting;
}

/**
 * The child's V8 flag, by the cores this process may use. On two cores, --liftoff-only: nothing
 * left to compile once Binaryen is loaded, nothing competing with the compile. On many cores,
 * --no-wasm-lazy-compilation: Binaryen is compiled up front on the idle cores and its hot code
 * still tiers up. Measured on a 16-core Xeon (bench/RESULTS.md, "Compile time"): cold 1.3-1.8 s
 * against 1.5-1.8 s with --liftoff-only there, warm 0.50-0.66 s against 0.58-0.68 s; on two of
 * its cores --no-wasm-lazy-compilation was the slower (cold 2.3-2.9 s against 1.9-2.3 s).
 */
export function v8FlagsFor(cores: number): string {
  return cores >= 8 ? '--no-wasm-lazy-compilation' : '--liftoff-only';
}

async function spawn(): Promise<OptimizerChild | undefined> {
  if (!isNode || failures >= MAX_FAILURES || process.env['SIMT_OPTIMIZER_PROCESS'] === '0') return undefined;
  // Electron and other embedders: process.execPath is not a plain Node.
  if (process.release?.name !== 'node' || process.versions['electron']) return undefined;
  try {
    const script = await builtScriptPath('compiler/optimizerChild.js');
    if (!script) return undefined;
    const { fork } = await import('node:child_process');
    const { availableParallelism } = await import('node:os');
    return new OptimizerChild(fork(script, [], {
      execArgv: [v8FlagsFor(availableParallelism())], serialization: 'advanced', stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    }));
  } catch {
    failures++;
    return undefined;
  }
}
