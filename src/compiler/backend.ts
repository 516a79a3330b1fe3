// The back end of simt's kernel compiler: AssemblyScript (asc) over an in-memory file system
// holding the generated sources and simt's device runtime, then Binaryen: -O3 for the block and
// screen forms (wasmOptimizer.ts; in the optimizer process when there is one,
// optimizerProcess.ts), asyncify for the fine-grained form (so the race tools can suspend a
// thread at any scheduling point). Both the compiler and Binaryen are loaded lazily, once.

import { readPackageFile } from '../platform.js';
import type { Diagnostic } from './frontend.js';
import { optimizeOutOfProcess } from './optimizerProcess.js';
import { asyncifyForRaceTools, optimizeO3 } from './wasmOptimizer.js';

/** The runtime sources compiled into every kernel module, by their virtual path. */
export const RUNTIME_FILES: readonly string[] = [
  'runtime/index.ts', 'runtime/dims.ts', 'runtime/scratch.ts', 'runtime/schedule.ts', 'runtime/atomics.ts',
  'runtime/warp.ts', 'runtime/block.ts', 'runtime/launch.ts', 'runtime/compiled.ts', 'runtime/checked.ts', 'runtime/lanes.ts',
  'threads/compiled.ts',
];

let runtime: Promise<Map<string, string>> | undefined;

function runtimeSources(): Promise<Map<string, string>> {
  runtime ??= (async () => {
    const files = new Map<string, string>();
    const dec = new TextDecoder();
    for (const f of RUNTIME_FILES) files.set(f, dec.decode(await readPackageFile(`assembly/${f}`)));
    return files;
  })();
  return runtime;
}

/** The same options as the package's own kernels module (asconfig.json). */
const BLOCK_FLAGS = [
  '--enable', 'simd,threads', '--importMemory', '--sharedMemory', '--initialMemory', '4', '--maximumMemory', '65536',
  '--runtime', 'stub', '--memoryBase', '65536', '--noAssert', '--use', 'abort=', '--exportStart', '__start',
];
const FINE_FLAGS = [
  '--enable', 'simd,threads', '--importMemory', '--sharedMemory', '--initialMemory', '1', '--maximumMemory', '65536',
  '--runtime', 'stub', '--noAssert', '--use', 'abort=',
];

export interface AscResult { binary: Uint8Array; diagnostics: Diagnostic[] }

/** Where a place in a generated file came from (for compiler errors): its line and the generated text there. */
export type LineMap = (generatedLine: number, token: string) => { file: string; line: number; column: number } | undefined;

/**
 * Compiles one generated entry source against the runtime. Errors come back as diagnostics,
 * mapped to the user's files where the generated line can be traced. `outOfProcess`: the
 * block or screen form's -O3 may run in the optimizer process.
 */
export async function ascCompile(entry: string, form: 'block' | 'fine' | 'screen', optimize: boolean, mapLine: LineMap, outOfProcess = true): Promise<AscResult> {
  const asc = (await import('assemblyscript/asc')).default;
  const files = await runtimeSources();
  const entryPath = 'simt_kernels/entry.ts';
  const outputs = new Map<string, Uint8Array>();
  const diagnostics: Diagnostic[] = [];
  const stderr: string[] = [];
  // An optimised block or screen form is compiled by asc unoptimised and optimised by Binaryen
  // (binaryenO3); the fine form keeps asc's -O3, which its asyncify pass was tuned against.
  const binaryenOptimizes = optimize && form !== 'fine';
  const argv = [entryPath, '--outFile', 'out.wasm', ...(form === 'fine' ? FINE_FLAGS : BLOCK_FLAGS), ...(binaryenOptimizes ? ['-O0'] : optimize ? ['-O3'] : ['-O1'])];
  const { error } = await asc.main(argv, {
    readFile: (name: string) => {
      const n = name.replace(/\\/g, '/').replace(/^\.\//, '');
      if (n === entryPath) return entry;
      const m = /^simt_kernels\/(.*)$/.exec(n);
      if (m && files.has(m[1]!)) return files.get(m[1]!)!;
      return null;
    },
    writeFile: (name: string, contents: Uint8Array | string) => { outputs.set(name, typeof contents === 'string' ? new TextEncoder().encode(contents) : contents); },
    listFiles: () => [],
    stdout: { write: () => true } as never,
    stderr: { write: (s: string | Uint8Array) => { stderr.push(typeof s === 'string' ? s : new TextDecoder().decode(s)); return true; } } as never,
    reportDiagnostic: (d: { category: number; message: string; range: { start: number; end: number; source: { normalizedPath: string } | null } | null }) => {
      if (d.category !== 3) return; // errors only (AS: 0 pedantic, 1 info, 2 warning, 3 error)
      let file = d.range?.source?.normalizedPath ?? '(generated)';
      let line = 1, column = 1;
      const m = /^simt_kernels\/(.*)$/.exec(file);
      const text = file.startsWith('simt_kernels/entry') ? entry : m ? files.get(m[1]!) : undefined;
      if (d.range && text !== undefined) {
        let nl = -1;
        for (let i = 0; i < d.range.start; i++) if (text.charCodeAt(i) === 10) { line++; nl = i; }
        column = d.range.start - nl;
        if (file.startsWith('simt_kernels/entry')) {
          const src = mapLine(line, text.slice(d.range.start, d.range.end));
          const gen = text.split('\n')[line - 1]?.trim() ?? '';
          if (src) ({ file, line, column } = src);
          diagnostics.push({ file, line, column, message: `${d.message} (in: ${gen.length > 120 ? gen.slice(0, 117) + '…' : gen})` });
          return;
        }
      }
      diagnostics.push({ file, line, column, message: d.message });
    },
  } as never);
  let binary = outputs.get('out.wasm');
  if (diagnostics.length === 0 && (error || !binary)) {
    diagnostics.push({ file: '(compiler)', line: 1, column: 1, message: (error?.message ?? 'no output') + (stderr.length ? `: ${stderr.join('').trim().slice(0, 2000)}` : '') });
  }
  if (binary && binaryenOptimizes && diagnostics.length === 0) binary = await binaryenO3(binary, outOfProcess);
  return { binary: binary ?? new Uint8Array(0), diagnostics };
}

/**
 * Binaryen's -O3 (wasmOptimizer.ts): in the optimizer process when there is one
 * (optimizerProcess.ts says why), else here.
 */
async function binaryenO3(binary: Uint8Array, outOfProcess: boolean): Promise<Uint8Array> {
  const optimized = outOfProcess ? await optimizeOutOfProcess(binary, 'O3') : undefined;
  return optimized ?? optimizeO3((await import('binaryen')).default, binary);
}

/**
 * Asyncify of the fine-grained form (wasmOptimizer.ts): in the optimizer process when there is
 * one (a fresh process spent 1.4-1.7 s on it, the optimizer process 0.1-0.2 s), else here.
 */
export async function asyncify(binary: Uint8Array, outOfProcess = true): Promise<Uint8Array> {
  const done = outOfProcess ? await optimizeOutOfProcess(binary, 'asyncify') : undefined;
  return done ?? asyncifyForRaceTools((await import('binaryen')).default, binary);
}

/** Number of data segments of a wasm binary (the data section's count, id 11). */
export function dataSegmentCount(bytes: Uint8Array): number {
  let at = 8;
  const leb = (): number => { let r = 0, shift = 0, b: number; do { b = bytes[at++]!; r |= (b & 0x7f) << shift; shift += 7; } while (b & 0x80); return r >>> 0; };
  while (at < bytes.length) {
    const id = bytes[at++]!;
    const size = leb();
    if (id === 11) return leb();
    at += size;
  }
  return 0;
}
