// A compile builds the block form only; the fine-grained form (explore, replay, the detector)
// and the screen are built the first time the race tools need them, or when the module is
// written to files — from the compile's own generated sources, kept in the compile cache too.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFine, buildScreen, compileKernels, writeModuleFiles } from '../src/compiler/index.js';
import { loadKernelModule, makeKernelModule } from '../src/kernelModule.js';
import { defineJob } from '../src/race/defineJob.js';
import { racecheck } from '../src/race/index.js';

const SRC = `
import { threadIdx, blockIdx, blockDim } from "simt/kernel";

// Each thread doubles its own element (race-free); racy != 0: each also reads its neighbour's.
export function double(x: i32[], n: i32, racy: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const v = x[i];
  x[i] = v * 2 + (racy != 0 && i + 1 < n ? x[i + 1] : 0);
}
`;

const dirs: string[] = [];
const tempDir = () => { const d = mkdtempSync(join(tmpdir(), 'simt-forms-')); dirs.push(d); return d; };
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

describe('the compile cache on disk', () => {
  it('is created where it does not exist yet (a fresh project\'s node_modules has no .cache)', async () => {
    const dir = join(tempDir(), 'node_modules', '.cache', 'simt');   // none of it exists
    const src = SRC.replace('(race-free)', '(race-free, cache)');
    const mod = await compileKernels([{ path: 'cached.ts', source: src }], { cacheDir: dir });
    const files = readdirSync(dir);
    expect(files).toContain(`${mod.id}.simt.json`);
    expect(files).toContain(`${mod.id}.simt.wasm`);
    expect(JSON.parse(readFileSync(join(dir, `${mod.id}.simt.json`), 'utf8')).hash).toBe(mod.id);
    expect(readFileSync(join(dir, `${mod.id}.simt.wasm`)).equals(Buffer.from(mod.wasm))).toBe(true);
  });
});

describe('the forms a compile builds on demand', () => {
  it('a compile builds the block form only; the race tools build the fine form on first use and report on it', async () => {
    const mod = await compileKernels([{ path: 'forms.ts', source: SRC.replace('(race-free)', '(race-free, 1)') }], { cacheDir: false });
    expect(mod.wasm).toBeInstanceOf(Uint8Array);
    expect(mod.fineWasm).toBeUndefined();
    expect(mod.fineSource).toContain('tk_double');
    const job = (racy: number) => defineJob({
      name: `double-${racy}`, module: mod, buffers: { x: ['i32', Array.from({ length: 100 }, (_, i) => i)] },
      launches: [{ kernel: 'double', grid: 2, block: 64, args: ['x', 100, racy] }],
    });
    const clean = await racecheck(job(0), undefined, { schedules: 1 });
    expect(clean.reports.filter((r) => r.severity !== 'note')).toEqual([]);
    const racy = await racecheck(job(1), undefined, { schedules: 1 });
    const race = racy.reports.find((r) => r.kind === 'data-race');
    expect(race, JSON.stringify(racy.reports.map((r) => r.kind))).toBeDefined();
    // Reported at the kernel's own line: the fine form was built from this compile's source.
    expect(race!.first!.location).toMatch(/^forms\.ts:9:/);
    const fine = await buildFine(mod);
    expect(fine).toBeInstanceOf(Uint8Array);
    expect(await buildFine(mod)).toBe(fine);               // once per module
  });

  it('writing the module builds both forms into its files, and loading them needs no compiler', async () => {
    const mod = await compileKernels([{ path: 'forms.ts', source: SRC.replace('(race-free)', '(race-free, 2)') }], { cacheDir: false });
    const dir = tempDir();
    const meta = await writeModuleFiles(mod, dir, 'forms');
    expect(readdirSync(dir).sort()).toEqual(['forms.simt.fine.wasm', 'forms.simt.json', 'forms.simt.screen.wasm', 'forms.simt.wasm']);
    const loaded = await loadKernelModule(meta);
    expect(loaded.fineWasm).toEqual(await buildFine(mod));
    expect(loaded.screenWasm).toEqual(await buildScreen(mod));
    expect(loaded.fineSource).toBeUndefined();
  });

  it('the compile cache keeps the forms\' sources, and the forms once built', async () => {
    const cacheDir = tempDir();
    const source = [{ path: 'forms.ts', source: SRC.replace('(race-free)', '(race-free, 3)') }];
    const first = await compileKernels(source, { cacheDir });
    const files = () => readdirSync(cacheDir).filter((f) => f.startsWith(first.id)).sort();
    expect(files()).toEqual([`${first.id}.simt.fine.ts`, `${first.id}.simt.json`, `${first.id}.simt.screen.ts`, `${first.id}.simt.wasm`]);
    const fine = await buildFine(first, { cacheDir });
    expect(files()).toContain(`${first.id}.simt.fine.wasm`);
    // What a later process reads back instead of building it again.
    expect(new Uint8Array(readFileSync(join(cacheDir, `${first.id}.simt.fine.wasm`)))).toEqual(fine);
  });

  it('a module with neither a fine form nor its source is a clear error', async () => {
    const mod = await compileKernels([{ path: 'forms.ts', source: SRC }], { cacheDir: false });
    const bare = makeKernelModule({ ...mod.meta, hash: `${mod.meta.hash}-bare` }, mod.wasm);
    await expect(buildFine(bare)).rejects.toThrow(/has no fine-grained form: rebuild it with this version of simt/);
  });
});

describe('a[i] op= v and a[i]++ in the block form', () => {
  const BUMP = `
import { threadIdx, blockIdx, blockDim } from "simt/kernel";
export function bump(a: i32[], at: i32[], n: i32): void {
  const t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  a[at[t]] += t;
  a[at[t] + 1]++;
}
`;
  it('checks the index once (the load\'s check covers the store), and still traps at the element', async () => {
    let block = '';
    const mod = await compileKernels([{ path: 'bump.ts', source: BUMP }], { cacheDir: false, onGenerated: (g) => { block = g.block; } });
    const stores = block.split('\n').filter((l) => /__stu?<i32>\(__p_a/.test(l));
    expect(stores.length).toBeGreaterThan(0);
    for (const l of stores) { expect(l).toMatch(/^\s*__stu<i32>\(__p_a/); expect(l).toMatch(/__ld<i32>\(__p_a/); }
    const { createDevice } = await import('../src/device.js');
    const { KernelError } = await import('../src/errors.js');
    const dev = await createDevice({ backend: 'wasm', workers: 2, memoryBytes: 16 << 20, modules: [mod] });
    try {
      const n = 15;
      const at = Int32Array.from({ length: n }, (_, t) => 2 * t);   // distinct cells: no race
      const expected = new Int32Array(32);
      for (let t = 0; t < n; t++) { expected[at[t]!]! += t; expected[at[t]! + 1]! += 1; }
      const A = await dev.upload('i32', new Int32Array(32));
      const AT = await dev.upload('i32', at);
      await dev.launch(mod.kernels.bump!, { grid: 1, block: 32 }, [A, AT, n]);
      expect(Array.from(await A.read())).toEqual(Array.from(expected));
      await AT.upload(Int32Array.from({ length: n }, (_, t) => (t === 13 ? 32 : 2 * t)));
      const p = dev.launch(mod.kernels.bump!, { grid: 1, block: 32 }, [A, AT, n]);
      await expect(p).rejects.toThrow(KernelError);
      await expect(p).rejects.toThrow(/^kernel bump trapped in block \(0, 0, 0\): index 32 is out of bounds of 'a' \(length 32\) in thread \(13, 0, 0\) at bump\.ts:6:3$/);
    } finally { await dev.destroy(); }
  });
});
