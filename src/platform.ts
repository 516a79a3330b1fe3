// The few things that differ between Node and browsers: where files come from and how a
// worker is started. Everything else in simt is the same code in both.

import { watchWorkerLife } from './pool/workerLife.js';

export const isNode = typeof process !== 'undefined' && !!process.versions?.node;

/** Where a page serves simt's run-time files; see `configureAssets` and docs/browser.md. */
export interface AssetLocations {
  /**
   * URL of the folder that holds the package's run-time files as in the package:
   * `build/kernels.wasm`, `build/kernels.data.bin`, `build/kernels.meta.json`,
   * `build/simt.simt.{json,wasm,fine.wasm}` (simt's own compiled kernels),
   * `assembly/kernels/*.wgsl` and `dist/src/` (the worker script and its imports). Relative URLs resolve against the page (document.baseURI).
   */
  baseUrl?: string | URL;
  /** URL of the pool's worker script (default: `dist/src/pool/worker.js` under baseUrl). */
  workerUrl?: string | URL;
}

let assets: { base?: URL; worker?: URL } = {};

function absolute(u: string | URL): URL {
  const g = globalThis as unknown as { document?: { baseURI?: string }; location?: { href?: string } };
  return new URL(u, g.document?.baseURI ?? g.location?.href ?? import.meta.url);
}

/**
 * Tells simt where its run-time files are served. Only needed when simt is bundled (Vite,
 * webpack, …): a bundle moves this module, so the default — the files beside this module, as
 * in the published package — no longer holds. Call it before the first `createDevice`.
 * `configureAssets({})` restores the defaults.
 */
export function configureAssets(locations: AssetLocations): void {
  const base = locations.baseUrl === undefined ? undefined : absolute(locations.baseUrl);
  if (base && !base.pathname.endsWith('/')) base.pathname += '/';
  assets = {
    ...(base ? { base } : {}),
    ...(locations.workerUrl !== undefined ? { worker: absolute(locations.workerUrl) }
      : base ? { worker: new URL('dist/src/pool/worker.js', base) } : {}),
  };
}

/** The configured package root URL, if `configureAssets` set one. */
export function configuredBaseUrl(): URL | undefined {
  return assets.base;
}

/** The package root (the folder holding package.json), found from this file in src/ or dist/src/. */
export async function packageRootUrl(): Promise<URL> {
  if (assets.base) return assets.base;
  const here = new URL('.', import.meta.url);
  // src/platform.ts → ../ ; dist/src/platform.js → ../../
  if (isNode) {
    const { existsSync } = await import('node:fs');
    const { fileURLToPath } = await import('node:url');
    for (const up of ['../', '../../', '../../../']) {
      const u = new URL(up, here);
      if (existsSync(fileURLToPath(new URL('package.json', u))) && existsSync(fileURLToPath(new URL('assembly/', u)))) return u;
      if (existsSync(fileURLToPath(new URL('build/kernels.wasm', u)))) return u;
    }
  }
  return new URL(here.pathname.includes('/dist/') ? '../../' : '../', here);
}

/** Reads a file of the package as bytes (fs in Node, fetch in browsers). */
export async function readPackageFile(relative: string): Promise<Uint8Array> {
  const url = new URL(relative, await packageRootUrl());
  if (isNode && url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    const { fileURLToPath } = await import('node:url');
    return new Uint8Array(await readFile(fileURLToPath(url)));
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`cannot load ${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** A started worker, whichever the platform. */
export interface WorkerHandle {
  post(message: unknown): void;
  onMessage(fn: (m: unknown) => void): void;
  onError(fn: (e: Error) => void): void;
  /**
   * Called when the worker's thread ends, for whatever reason (Node: its 'exit'), or — in
   * browsers, which do not say — when its launch loop is gone (src/pool/workerLife.ts).
   */
  onExit(fn: (code: number, detail?: string) => void): void;
  terminate(): Promise<void>;
  /** Lets the process exit while the worker lives (Node); a no-op in browsers. */
  unref(): void;
}

/**
 * Node: the built file of a module of src/ (`pool/worker.js`), for starting it as a worker or a
 * child process: beside this module when it runs from dist/, else under the package's dist/
 * (tests run src/ directly); undefined when neither exists.
 */
export async function builtScriptPath(relative: string): Promise<string | undefined> {
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  for (const u of [new URL(`./${relative}`, import.meta.url), new URL(`dist/src/${relative}`, await packageRootUrl())]) {
    if (u.protocol === 'file:' && existsSync(fileURLToPath(u))) return fileURLToPath(u);
  }
  return undefined;
}

/** The URL of the built worker script (dist/src/pool/worker.js). */
async function workerUrl(): Promise<URL> {
  if (assets.worker) return assets.worker;
  if (isNode) {
    const { pathToFileURL, fileURLToPath } = await import('node:url');
    const path = await builtScriptPath('pool/worker.js');
    if (!path) {
      throw new Error(`the worker script ${fileURLToPath(new URL('dist/src/pool/worker.js', await packageRootUrl()))} is missing: run \`npm run build\` first`);
    }
    return pathToFileURL(path);
  }
  return new URL('./pool/worker.js', import.meta.url);
}

export async function startWorker(name: string): Promise<WorkerHandle> {
  const url = await workerUrl();
  if (isNode) {
    const { Worker } = await import('node:worker_threads');
    // Workers inherit the parent's execArgv; drop flags that only make sense for the main
    // entry (e.g. `node --input-type=module -e …` would make every worker fail to start).
    // V8 flags (`--no-liftoff`, `--max-old-space-size`, …) are process-wide and a worker
    // refuses them: if Node rejects what is left, start the worker with none.
    const execArgv = process.execArgv.filter((a) => !a.startsWith('--input-type') && a !== '-e' && a !== '--eval');
    let w: InstanceType<typeof Worker>;
    try {
      w = new Worker(url, { name, execArgv });
    } catch (e) {
      if ((e as { code?: string }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw e;
      w = new Worker(url, { name, execArgv: [] });
    }
    return {
      // A process that forgets device.destroy() must still exit: workers never hold it open.
      // (Called after the message listeners are attached: attaching one refs the worker again.)
      unref: () => { w.unref(); },
      post: (m) => w.postMessage(m),
      onMessage: (fn) => { w.on('message', fn); },
      onError: (fn) => { w.on('error', fn); },
      onExit: (fn) => { w.on('exit', fn); },
      terminate: async () => { await w.terminate(); },
    };
  }
  const w = new Worker(url, { type: 'module', name });
  const exits: ((code: number, detail?: string) => void)[] = [];
  const errors: ((e: Error) => void)[] = [];
  // No 'exit' event in browsers: the worker holds a Web Lock for its life, and the host asks
  // for it once the worker is ready — granted means gone (src/pool/workerLife.ts).
  const locks = (globalThis as unknown as { navigator?: { locks?: LockManager } }).navigator?.locks;
  const lifeLock = locks ? `simt-${name}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}` : undefined;
  const life = watchWorkerLife((code, detail) => { for (const f of exits) f(code, detail); }, () => {
    if (lifeLock) void locks!.request(lifeLock, () => life.released());
  });
  w.addEventListener('message', (e) => life.message(e.data));
  // A module worker whose script (or one of its imports) fails to load gets a plain Event
  // with no message: say which script it was and the usual causes.
  const failed = (e: Error): void => {
    for (const f of errors) f(e);
    life.error(e);
  };
  w.addEventListener('error', (e) => {
    e.preventDefault();
    failed(new Error((e as ErrorEvent).message ||
      `the worker script ${url.href} failed to load or to start (missing file, wrong MIME type, ` +
      'or served without Cross-Origin-Embedder-Policy; see docs/browser.md)'));
  });
  w.addEventListener('messageerror', () => failed(new Error(`worker ${name} could not deserialize a message`)));
  let first = true;
  return {
    unref: () => undefined,
    post: (m) => {
      w.postMessage(first && lifeLock ? { ...(m as object), lifeLock } : m);
      first = false;
    },
    onMessage: (fn) => { w.addEventListener('message', (e) => fn(e.data)); },
    onError: (fn) => { errors.push(fn); },
    onExit: (fn) => { exits.push(fn); },
    terminate: async () => { w.terminate(); },
  };
}

let workerCountOverride: number | undefined;

/**
 * Sets the worker count `createDevice` uses when none is given (undefined: back to all cores).
 * `simt bench --workers N` uses it, so every device a benchmark opens has N workers.
 */
export function setDefaultWorkerCount(n: number | undefined): void {
  if (n !== undefined && (!Number.isInteger(n) || n < 1 || n > 256)) throw new RangeError(`default worker count must be an integer in [1, 256], got ${n}`);
  workerCountOverride = n;
}

export async function defaultWorkerCount(): Promise<number> {
  if (workerCountOverride !== undefined) return workerCountOverride;
  return coreCount();
}

/** The cores this process may run on (its CPU affinity in Node; the browser's hardwareConcurrency). */
export async function coreCount(): Promise<number> {
  if (isNode) {
    const os = await import('node:os');
    return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  }
  const nav = (globalThis as unknown as { navigator?: { hardwareConcurrency?: number } }).navigator;
  return Math.max(1, nav?.hardwareConcurrency ?? 1);
}

/**
 * Why this context cannot share memory with workers, or undefined when it can. Browsers give
 * pages SharedArrayBuffer (and so a shared WebAssembly.Memory that workers see) only when they
 * are cross-origin isolated: served with `Cross-Origin-Opener-Policy: same-origin` and
 * `Cross-Origin-Embedder-Policy: require-corp` (docs/browser.md).
 */
export function sharedMemoryProblem(): string | undefined {
  if (isNode) return undefined;
  const g = globalThis as unknown as { crossOriginIsolated?: boolean; SharedArrayBuffer?: unknown };
  if (g.crossOriginIsolated === false || typeof g.SharedArrayBuffer !== 'function') {
    return 'this page is not cross-origin isolated, so it has no SharedArrayBuffer: serve it with the headers ' +
      '`Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp` (docs/browser.md)';
  }
  return undefined;
}
