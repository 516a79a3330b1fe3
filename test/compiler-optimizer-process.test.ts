// The optimizer process (src/compiler/optimizerProcess.ts): Binaryen's -O3 of the block form and
// asyncify of the fine form in a child Node process give the same bytes as in this process; the
// child survives bad input, the compile falls back when it dies, and it never keeps the caller's
// process alive.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import binaryen from 'binaryen';
import { buildFine, compileKernels } from '../src/compiler/index.js';
import { ascCompile } from '../src/compiler/backend.js';
import { optimizeOutOfProcess, optimizerProcessId, stopOptimizerProcess, v8FlagsFor } from '../src/compiler/optimizerProcess.js';
import { asyncifyForRaceTools, optimizeO3 } from '../src/compiler/wasmOptimizer.js';

const root = fileURLToPath(new URL('..', import.meta.url));

afterAll(() => { stopOptimizerProcess(); });

/** The block form of a kernel file as asc writes it before any optimisation (-O1 of asc). */
async function unoptimised(file: string): Promise<Uint8Array> {
  let block = '';
  await compileKernels([{ path: file, source: readFileSync(`${root}/${file}`, 'utf8') + `\n// ${file} unoptimised` }],
    { cacheDir: false, optimize: false, onGenerated: (g) => { block = g.block; } });
  const r = await ascCompile(block, 'block', false, () => undefined, false);
  expect(r.diagnostics).toEqual([]);
  return r.binary;
}

/** Whether a process with this pid exists. */
function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

describe('the optimizer process', () => {
  it.each(['examples/kernels/histogram.ts', 'examples/kernels/transpose.ts', 'kernels/reduce/vecMax.ts'])(
    '%s: the same bytes from the child process as from this one', async (file) => {
      const input = await unoptimised(file);
      const outside = await optimizeOutOfProcess(input);
      const pid = await optimizerProcessId();
      expect(pid).toBeTypeOf('number');
      expect(pid).not.toBe(process.pid);
      expect(outside).toBeInstanceOf(Uint8Array);
      const inside = optimizeO3(binaryen, input);
      expect(outside!.length).toBeLessThan(input.length);
      expect(Buffer.from(outside!).equals(Buffer.from(inside))).toBe(true);
    });

  it.each(['examples/kernels/histogram.ts', 'examples/kernels/shuffleSum.ts'])(
    '%s: the fine-grained form asyncified in the child, to the same bytes as here, whatever ran before', async (file) => {
      let fine = '';
      const source = readFileSync(`${root}/${file}`, 'utf8') + `\n// ${file} fine`;
      const mod = await compileKernels([{ path: file, source }], { cacheDir: false, onGenerated: (g) => { fine = g.fine; } });
      const asc = await ascCompile(fine, 'fine', true, () => undefined, false);
      expect(asc.diagnostics).toEqual([]);
      stopOptimizerProcess(); // asyncify is a new child's first job: Binaryen's options as it starts
      const outside = await optimizeOutOfProcess(asc.binary, 'asyncify');
      expect(outside).toBeInstanceOf(Uint8Array);
      // Binaryen's options are global: a -O3 here first must not change what asyncify gives.
      optimizeO3(binaryen, await unoptimised('kernels/reduce/vecMax.ts'));
      const inside = asyncifyForRaceTools(binaryen, asc.binary);
      expect(Buffer.from(outside!).equals(Buffer.from(inside))).toBe(true);
      expect(outside!.length).toBeGreaterThan(asc.binary.length); // the unwind and rewind code
      expect(Buffer.from(await buildFine(mod, { cacheDir: false })).equals(Buffer.from(inside))).toBe(true);
    });

  it('the child runs Liftoff only on few cores, and compiles Binaryen eagerly on many', () => {
    expect([1, 2, 4].map(v8FlagsFor)).toEqual(['--liftoff-only', '--liftoff-only', '--liftoff-only']);
    expect([8, 16, 64].map(v8FlagsFor)).toEqual(['--no-wasm-lazy-compilation', '--no-wasm-lazy-compilation', '--no-wasm-lazy-compilation']);
  });

  it('bytes that are not wasm: no answer (the caller optimises here and reports), and the child stays up', async () => {
    await optimizeOutOfProcess(await unoptimised('kernels/reduce/vecMax.ts'));
    const pid = await optimizerProcessId();
    expect(await optimizeOutOfProcess(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 99, 99]))).toBeUndefined();
    expect(await optimizerProcessId()).toBe(pid);
    expect(() => optimizeO3(binaryen, new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 99, 99]))).toThrow();
  });

  it('a child killed during a request: the request gets no answer, the next one a new child', async () => {
    const input = await unoptimised('examples/kernels/histogram.ts');
    await optimizeOutOfProcess(input);
    const pid = (await optimizerProcessId())!;
    const pending = optimizeOutOfProcess(input);
    process.kill(pid, 'SIGKILL');
    expect(await pending).toBeUndefined();
    const again = await optimizeOutOfProcess(input);
    const pid2 = await optimizerProcessId();
    expect(pid2).toBeTypeOf('number');
    expect(pid2).not.toBe(pid);
    expect(Buffer.from(again!).equals(Buffer.from(optimizeO3(binaryen, input)))).toBe(true);
  });

  it('a compile whose child dies still gives the module, optimised in this process', async () => {
    const source = readFileSync(`${root}/examples/kernels/transpose.ts`, 'utf8');
    const reference = await compileKernels([{ path: 'transpose.ts', source: source + '\n// in this process' }], { cacheDir: false, optimizerProcess: false });
    await optimizeOutOfProcess(new Uint8Array(0)); // a ready child
    const pid = (await optimizerProcessId())!;
    const building = compileKernels([{ path: 'transpose.ts', source: source + '\n// child killed' }], { cacheDir: false });
    process.kill(pid, 'SIGKILL');
    const mod = await building;
    expect(Buffer.from(mod.wasm).equals(Buffer.from(reference.wasm))).toBe(true);
    expect(await optimizerProcessId()).not.toBe(pid);
  });

  it('turned off (optimizerProcess: false): no child is started', async () => {
    stopOptimizerProcess();
    const source = readFileSync(`${root}/kernels/reduce/vecMax.ts`, 'utf8');
    const mod = await compileKernels([{ path: 'vecMax.ts', source: source + '\n// turned off' }], { cacheDir: false, optimizerProcess: false });
    expect(mod.meta.kernels.map((k) => k.name)).toContain('vecMax');
    expect(await optimizerProcessId()).toBeUndefined();
  });

  it('a program that compiles and returns exits by itself, and its child goes with it', () => {
    const script = `const { compileKernels } = await import(${JSON.stringify(`${root}/dist/src/compiler/index.js`)});` +
      `const { optimizerProcessId } = await import(${JSON.stringify(`${root}/dist/src/compiler/optimizerProcess.js`)});` +
      `const m = await compileKernels([{ path: 'v.ts', source: ${JSON.stringify(readFileSync(`${root}/kernels/reduce/vecMax.ts`, 'utf8') + `\n// exits ${Date.now()}`)} }], { cacheDir: false });` +
      'console.log(JSON.stringify({ pid: await optimizerProcessId(), bytes: m.wasm.length }));';
    // execFileSync returns only when the program has exited: a child holding it open fails the timeout.
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 }).trim()) as { pid: number; bytes: number };
    expect(out.pid).toBeTypeOf('number');
    expect(out.bytes).toBeGreaterThan(1000);
    return new Promise<void>((resolve, reject) => {
      const t0 = Date.now();
      const poll = () => {
        if (!alive(out.pid)) { resolve(); return; }
        if (Date.now() - t0 > 10_000) { reject(new Error(`the optimizer process ${out.pid} outlived its parent`)); return; }
        setTimeout(poll, 50);
      };
      poll();
    });
  });
});

