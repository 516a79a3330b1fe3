// simt's kernel compiler: per-thread, CUDA-shaped AssemblyScript sources → a kernel module
// (block form for `wasm`/`serial`, fine-grained form for the race tools, metadata).
//
//   const mod = await compileKernels([{ path: 'histogram.ts', source }]);
//   const dev = await createDevice({ modules: [mod] });
//   await dev.launch(mod.kernels.histogram256, { grid, block: 256 }, [data, n, bins]);
//
// Modules are cached by a hash of the sources, the options and the compiler's version: in
// memory for the process, and on disk in Node (`cacheDir`, default node_modules/.cache/simt).

import { SimtError } from '../errors.js';
import { sha256Hex } from '../hash.js';
import { isNode, packageRootUrl, readPackageFile } from '../platform.js';
import { type KernelModule, KernelModuleError, type KernelModuleMeta, MODULE_FORMAT, makeKernelModule } from '../kernelModule.js';
import type { ParamSpec } from '../kernel.js';
import { checkNodeKinds, loadAssemblyScript } from './ast.js';
import { ascCompile, asyncify, dataSegmentCount, RUNTIME_FILES } from './backend.js';
import { CompileFailure, mapGeneratedLine, runFrontEnd } from './frontend.js';
import { generateWgsl } from './wgsl.js';
import { startOptimizerProcess } from './optimizerProcess.js';
import type { Diagnostic } from './diagnostic.js';

export type { Diagnostic } from './diagnostic.js';

/** A kernel source that does not compile: every problem with its file, line and column. */
export class KernelCompileError extends SimtError {
  constructor(readonly diagnostics: Diagnostic[]) {
    const first = diagnostics[0]!;
    super(`${first.file}:${first.line}:${first.column}: ${first.message}` +
      (diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more problem${diagnostics.length > 2 ? 's' : ''})` : ''));
  }

  /** Every diagnostic, one per line, as compilers print them. */
  format(): string {
    return this.diagnostics.map((d) => `${d.file}:${d.line}:${d.column}: error: ${d.message}`).join('\n');
  }
}

export interface KernelSource {
  /** A path naming the source in diagnostics (and in race reports). */
  path: string;
  source: string;
}

export interface CompileOptions {
  /** Drop the bounds checks of array accesses on `wasm`/`serial` (see docs/kernels.md for their cost). */
  unchecked?: boolean;
  /** Optimise (default true; false compiles faster, for quick edit–run loops). */
  optimize?: boolean;
  /** Node: where built modules are cached by content hash (false: no disk cache). */
  cacheDir?: string | false;
  /**
   * Node: run Binaryen's optimisation of the block form, and the asyncify of the fine-grained
   * form the race tools build from this module, in a child Node process (default true;
   * src/compiler/optimizerProcess.ts says why: a cold compile 1.9-2.3 s instead of 3.0-3.8 s on
   * two cores). The bytes are the same either way; false keeps the whole compile in this process.
   */
  optimizerProcess?: boolean;
  /** Receives the generated AssemblyScript of both forms (what `simt build --emit-as` writes). */
  onGenerated?: (generated: { block: string; fine: string }) => void;
}

/** Bumped whenever the generated code changes (a changed runtime is caught by its fingerprint). */
const COMPILER_VERSION = 'simt-compiler/44';
const memoryCache = new Map<string, Promise<KernelModule>>();

/** Compiles kernel sources into one module. Rejects with KernelCompileError (file:line:column). */
export async function compileKernels<K extends Record<string, Record<string, ParamSpec>> = Record<string, Record<string, ParamSpec>>>(
  sources: readonly KernelSource[], options: CompileOptions = {},
): Promise<KernelModule<K>> {
  if (!Array.isArray(sources) || sources.length === 0) throw new KernelCompileError([{ file: '(sources)', line: 1, column: 1, message: 'no kernel sources given' }]);
  for (const s of sources) {
    if (typeof s?.path !== 'string' || typeof s?.source !== 'string') throw new KernelCompileError([{ file: String(s?.path ?? '(source)'), line: 1, column: 1, message: 'a kernel source is { path: string, source: string }' }]);
  }
  const runtime = await runtimeFingerprint();
  const hash = await sha256Hex(JSON.stringify([COMPILER_VERSION, runtime, !!options.unchecked, options.optimize !== false, sources.map((s) => [s.path, s.source])]));
  let pending = memoryCache.get(hash);
  if (!pending) {
    pending = (async () => (await readDiskCache(hash, options)) ?? build(sources, options, hash))();
    memoryCache.set(hash, pending);
    pending.catch(() => memoryCache.delete(hash));
  }
  return pending as Promise<KernelModule<K>>;
}

/** Reads kernel files (Node) and compiles them: `compileKernelFiles(['kernels/histogram.ts'])`. */
export async function compileKernelFiles<K extends Record<string, Record<string, ParamSpec>> = Record<string, Record<string, ParamSpec>>>(
  paths: readonly string[], options: CompileOptions = {},
): Promise<KernelModule<K>> {
  const { readFile } = await import('node:fs/promises');
  const sources: KernelSource[] = [];
  for (const p of paths) {
    let source: string;
    try { source = await readFile(p, 'utf8'); } catch (e) {
      throw new KernelCompileError([{ file: p, line: 1, column: 1, message: `cannot read the kernel source: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }]);
    }
    sources.push({ path: p, source });
  }
  return compileKernels<K>(sources, options);
}

async function build(sources: readonly KernelSource[], options: CompileOptions, hash: string): Promise<KernelModule> {
  const t0 = performance.now();
  const optimize = options.optimize !== false;
  const outOfProcess = optimize && options.optimizerProcess !== false;
  // First, so that the child loads Binaryen while this process loads AssemblyScript and runs asc.
  if (outOfProcess) startOptimizerProcess();
  const as = await loadAssemblyScript();
  checkNodeKinds(as);
  let fe;
  try {
    fe = runFrontEnd(as, sources.map((s) => ({ path: s.path, text: s.source })), { unchecked: options.unchecked });
  } catch (e) {
    if (e instanceof CompileFailure) throw new KernelCompileError(e.diagnostics);
    throw e;
  }
  if (options.onGenerated) options.onGenerated({ block: fe.blockSource, fine: fe.fineSource });
  const sourceOf = (file: string): string | undefined => sources.find((s) => s.path === file)?.source;
  // The block form only: the fine-grained and screen forms are built when the race tools first
  // need them (buildFine, buildScreen) or the module is written to files, so a compile for
  // `wasm` alone pays for neither (the fine form and its asyncify pass cost about as much again).
  const block = await ascCompile(fe.blockSource, 'block', optimize, (l, t) => mapGeneratedLine(fe.blockSource, l, t, sourceOf), outOfProcess);
  // Each problem once: the block form may hold a statement twice (a grid-stride loop as written
  // and strip-mined); the generated code each quotes differs.
  const seen = new Set<string>();
  const diags = block.diagnostics.filter((d) => {
    const key = `${d.file}:${d.line}:${d.column}: ${d.message.replace(/ \(in: .*\)$/s, '')}`;
    return !seen.has(key) && !!seen.add(key);
  });
  if (diags.length) throw new KernelCompileError(diags);
  if (dataSegmentCount(block.binary) > 0) {
    throw new KernelCompileError([{ file: sources[0]!.path, line: 1, column: 1, message: 'the block form has static data (string literals or constant arrays): kernel modules may not carry static data yet' }]);
  }
  const meta: KernelModuleMeta = {
    format: MODULE_FORMAT, hash, sources: sources.map((s) => s.path), unchecked: !!options.unchecked,
    kernels: fe.kernels, sites: fe.sites, arrays: fe.arrays,
    wgsl: generateWgsl(fe.analysis, fe.kernels, { unchecked: options.unchecked }),
    compileMs: Math.round(performance.now() - t0),
  };
  const module = makeKernelModule(meta, block.binary, undefined, undefined, { fine: fe.fineSource, screen: fe.screenSource });
  fineOptions.set(module.id, { optimize, sourceOf, outOfProcess: options.optimizerProcess !== false });
  await writeDiskCache(module, options);
  return module;
}

/** How this process compiled a module (buildFine maps the fine form's problems to its sources). */
const fineOptions = new Map<string, { optimize: boolean; sourceOf: (file: string) => string | undefined; outOfProcess: boolean }>();

/**
 * A module's fine-grained form (the race tools' `explore`, `replay` and detector): the one it
 * carries, or built from its fine source once per module (and kept in the disk cache beside
 * the module in Node). Throws a KernelCompileError when the form does not build, and a
 * KernelModuleError for a module that has neither.
 */
export function buildFine(module: KernelModule, options: Pick<CompileOptions, 'cacheDir'> = {}): Promise<Uint8Array> {
  if (module.fineWasm) return Promise.resolve(module.fineWasm);
  const source = module.fineSource;
  if (source === undefined) return Promise.reject(new KernelModuleError(`kernel module ${module.meta?.sources?.join(', ') ?? module.id} has no fine-grained form: rebuild it with this version of simt`));
  return builtOnce(module, 'fine', options, async () => {
    const o = fineOptions.get(module.id) ?? { optimize: true, sourceOf: () => undefined, outOfProcess: true };
    // Its asyncify runs there: started now, it loads Binaryen while asc runs here.
    if (o.outOfProcess) startOptimizerProcess();
    const r = await ascCompile(source, 'fine', o.optimize, (l, t) => mapGeneratedLine(source, l, t, o.sourceOf));
    if (r.diagnostics.length > 0) throw new KernelCompileError(r.diagnostics);
    if (dataSegmentCount(r.binary) > 0) {
      throw new KernelCompileError([{ file: module.meta.sources[0] ?? '(module)', line: 1, column: 1, message: 'the fine-grained form has static data (string literals or constant arrays): kernel modules may not carry static data yet' }]);
    }
    return asyncify(r.binary, o.outOfProcess);
  }) as Promise<Uint8Array>;
}

/**
 * A module's race screen form (the block form recording its accesses; src/race/screen.ts):
 * the one it carries, or built from its screen source once per module (and kept in the disk
 * cache beside the module in Node). Undefined when the module has neither (built before the
 * screen, or loaded from files written without it), or the form does not build: the race
 * tools then run the fine-grained detector alone.
 */
export function buildScreen(module: KernelModule, options: Pick<CompileOptions, 'cacheDir'> = {}): Promise<Uint8Array | undefined> {
  if (module.screenWasm) return Promise.resolve(module.screenWasm);
  const source = module.screenSource;
  if (source === undefined) return Promise.resolve(undefined);
  return builtOnce(module, 'screen', options, async () => {
    const r = await ascCompile(source, 'screen', true, () => undefined);
    return r.diagnostics.length > 0 || dataSegmentCount(r.binary) > 0 ? undefined : r.binary;
  });
}

const built = new Map<string, Promise<Uint8Array | undefined>>();

/**
 * A form of a module built once per process (a failed build is tried again next time), read
 * from the disk cache beside the module when it was built before (a cache directory exists
 * only in Node: cacheDirOf), else built and written there.
 */
function builtOnce(module: KernelModule, form: 'fine' | 'screen', options: Pick<CompileOptions, 'cacheDir'>,
  build: () => Promise<Uint8Array | undefined>): Promise<Uint8Array | undefined> {
  const key = `${module.id}.simt.${form}.wasm`;
  let p = built.get(key);
  if (!p) {
    p = (async () => {
      const dir = await cacheDirOf(options);
      const file = dir ? (await import('node:path')).join(dir, key) : undefined;
      if (file) {
        const cached = await (await import('node:fs/promises')).readFile(file).then((b) => new Uint8Array(b), () => undefined);
        if (cached) return cached;
      }
      const bytes = await build();
      if (file && bytes) await writeCacheFile(dir!, file, bytes);
      return bytes;
    })();
    built.set(key, p);
    p.catch(() => built.delete(key));
  }
  return p;
}

/** Writes a cache file under a temporary name, then renames it (a reader never sees half of one); failures only cost a rebuild. */
async function writeCacheFile(dir: string, file: string, data: Uint8Array): Promise<void> {
  try {
    const { mkdir, writeFile, rename } = await import('node:fs/promises');
    await mkdir(dir, { recursive: true });
    await writeFile(`${file}.tmp-${process.pid}`, data);
    await rename(`${file}.tmp-${process.pid}`, file);
  } catch {
    // A cache that cannot be written only costs the next run the form's compile.
  }
}

// --- caching ----------------------------------------------------------------------------------

let fingerprint: Promise<string> | undefined;

/**
 * A hash of the runtime sources and, in Node, of the built compiler (dist/src/compiler): a
 * changed runtime or compiler invalidates cached modules, so a disk cache shared by checkouts or
 * kept across an upgrade never serves another compiler's output. (COMPILER_VERSION still marks
 * generated-code changes for browsers, which keep only an in-memory cache.)
 */
function runtimeFingerprint(): Promise<string> {
  fingerprint ??= (async () => {
    const parts: string[] = [];
    for (const f of RUNTIME_FILES) {
      parts.push(new TextDecoder().decode(await readPackageFile(`assembly/${f}`)));
    }
    // The built compiler (dist/src/compiler/*.js), whichever copy is running (the package's, or
    // its TypeScript source under a test runner): the same compiler gives the same key.
    const root = await packageRootUrl();
    if (isNode && root.protocol === 'file:') {
      const { readdir, readFile } = await import('node:fs/promises');
      const { fileURLToPath } = await import('node:url');
      const dir = fileURLToPath(new URL('dist/src/compiler/', root));
      const files = await readdir(dir).catch(() => [] as string[]);
      for (const f of files.filter((n) => n.endsWith('.js')).sort()) parts.push(f, await readFile(`${dir}/${f}`, 'utf8'));
    }
    return sha256Hex(parts.join('\0'));
  })();
  return fingerprint;
}

async function cacheDirOf(options: CompileOptions): Promise<string | undefined> {
  if (!isNode || options.cacheDir === false) return undefined;
  if (typeof options.cacheDir === 'string') return options.cacheDir;
  const { existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const nm = join(process.cwd(), 'node_modules');
  return existsSync(nm) ? join(nm, '.cache', 'simt') : join(tmpdir(), 'simt-cache');
}

async function readDiskCache(hash: string, options: CompileOptions): Promise<KernelModule | undefined> {
  const dir = await cacheDirOf(options);
  if (!dir) return undefined;
  try {
    const { readFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const meta = JSON.parse(await readFile(join(dir, `${hash}.simt.json`), 'utf8')) as KernelModuleMeta;
    if (meta.hash !== hash) return undefined;
    const wasm = new Uint8Array(await readFile(join(dir, `${hash}.simt.wasm`)));
    // Without its fine or screen form yet, the module keeps the form's source: buildFine and
    // buildScreen make them on demand.
    const optional = (name: string) => readFile(join(dir, name)).then((b) => new Uint8Array(b), () => undefined);
    const source = (name: string) => readFile(join(dir, name), 'utf8').catch(() => undefined);
    const fine = await optional(`${hash}.simt.fine.wasm`), screen = await optional(`${hash}.simt.screen.wasm`);
    const fineSource = fine ? undefined : await source(`${hash}.simt.fine.ts`);
    if (!fine && fineSource === undefined) return undefined;
    return makeKernelModule(meta, wasm, fine, screen, { fine: fineSource, screen: screen ? undefined : await source(`${hash}.simt.screen.ts`) });
  } catch {
    return undefined;
  }
}

async function writeDiskCache(module: KernelModule, options: CompileOptions): Promise<void> {
  const dir = await cacheDirOf(options);
  if (!dir) return;
  try {
    const { mkdir, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    await mkdir(dir, { recursive: true });   // a fresh project's node_modules has no .cache yet
    // The forms' sources first: a reader that finds the module's json finds them too.
    if (module.fineSource !== undefined) await writeFile(join(dir, `${module.id}.simt.fine.ts`), module.fineSource);
    if (module.screenSource !== undefined) await writeFile(join(dir, `${module.id}.simt.screen.ts`), module.screenSource);
    await writeModuleFiles(module, dir, module.id, { screen: false, fine: false });
  } catch {
    // A cache that cannot be written only costs the next compile its time.
  }
}

/**
 * Writes a module as `<base>.simt.json`, `<base>.simt.wasm`, `<base>.simt.fine.wasm` and
 * `<base>.simt.screen.wasm` (the race screen's form, when it built) in
 * `dir` (each written to a temporary name and renamed, so a reader never sees half a module).
 */
export async function writeModuleFiles(module: KernelModule, dir: string, base: string, o: { screen?: boolean; fine?: boolean } = {}): Promise<string> {
  const { mkdir, writeFile, rename } = await import('node:fs/promises');
  const { join } = await import('node:path');
  await mkdir(dir, { recursive: true });
  const tmp = `.tmp-${process.pid}-${Date.now()}`;
  // A module written to files carries its fine-grained form and its screen (built now if they
  // were not yet); the compile cache (o.fine / o.screen false) keeps what it has.
  const fine = o.fine === false ? module.fineWasm : await buildFine(module);
  const screen = o.screen === false ? undefined : await buildScreen(module);
  const files: [string, Uint8Array | string][] = [
    [`${base}.simt.wasm`, module.wasm], ...(fine ? [[`${base}.simt.fine.wasm`, fine] as [string, Uint8Array]] : []),
    ...(screen ? [[`${base}.simt.screen.wasm`, screen] as [string, Uint8Array]] : []),
    [`${base}.simt.json`, JSON.stringify(module.meta, null, 2) + '\n'],
  ];
  for (const [name, data] of files) await writeFile(join(dir, name + tmp), data);
  for (const [name] of files) await rename(join(dir, name + tmp), join(dir, name));
  // No screen: none of an earlier build may be taken for this module's.
  if (o.screen !== false && !screen) await (await import('node:fs/promises')).rm(join(dir, `${base}.simt.screen.wasm`), { force: true });
  return join(dir, `${base}.simt.json`);
}

export { loadKernelModule, KernelModuleError } from '../kernelModule.js';
export type { KernelModule, KernelModuleMeta } from '../kernelModule.js';
