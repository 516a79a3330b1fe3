// The published package: `npm pack --dry-run` lists what would be published. It must carry
// the built JS and types, the built wasm/data/meta, the WGSL the WebGPU backend reads at run
// time, the worker script, the CLI, README, CHANGELOG, LICENSE and the examples — and no
// tests, TypeScript sources, source maps or build intermediates. Then the real tarball is
// unpacked into a scratch project and imported by name.
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

function walk(dir: string, keep: (f: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...walk(rel, keep));
    else if (keep(name)) out.push(rel.split(sep).join('/'));
  }
  return out;
}

function npm(args: string[], cwd = ROOT): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_loglevel: 'error' } });
}

let files: string[] = [];

beforeAll(() => {
  const report = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'])) as { files: { path: string }[] }[];
  files = report[0]!.files.map((f) => f.path).sort();
}, 120_000);

describe('npm pack contents', () => {
  it('has the entry points, types, CLI and worker script', () => {
    for (const f of [pkg.main, pkg.types, pkg.exports['.'].import, pkg.exports['.'].types, pkg.bin.simt]) {
      expect(files, f).toContain(f.replace(/^\.\//, ''));
    }
    for (const f of ['dist/src/pool/worker.js', 'dist/src/pool/workerLoop.js', 'dist/src/cli/main.js', 'dist/src/platform.d.ts', 'dist/src/race/index.d.ts']) {
      expect(files).toContain(f);
    }
    // Every compiled module of src/ ships, with its declarations.
    const built = walk('dist/src', (f) => f.endsWith('.js'));
    for (const f of built) {
      expect(files, f).toContain(f);
      expect(files, f).toContain(f.replace(/\.js$/, '.d.ts'));
    }
  });

  it('has the built wasm, static data and meta, and every WGSL file read at run time', () => {
    for (const f of ['build/kernels.wasm', 'build/kernels.data.bin', 'build/kernels.meta.json', 'build/simt.simt.json', 'build/simt.simt.wasm', 'build/simt.simt.fine.wasm']) expect(files).toContain(f);
    const wgsl = walk('assembly/kernels', (f) => f.endsWith('.wgsl'));
    expect(wgsl.length).toBeGreaterThan(4);
    for (const f of wgsl) expect(files, f).toContain(f);
  });

  it('has README, CHANGELOG, LICENSE, the docs and the examples', () => {
    for (const f of ['README.md', 'CHANGELOG.md', 'LICENSE', 'package.json', 'docs/browser.md', 'docs/kernels.md']) expect(files).toContain(f);
    for (const f of walk('examples', (n) => n.endsWith('.js'))) expect(files).toContain(f);
    // The kernel compiler's own sources: the device runtime compiled into every user module.
    for (const f of walk('assembly/runtime', (n) => n.endsWith('.ts'))) expect(files, f).toContain(f);
    for (const f of ['assembly/threads/compiled.ts', 'kernels/race/racy.ts', 'examples/kernels/histogram.ts']) expect(files, f).toContain(f);
  });

  it('has no tests, TypeScript sources, source maps, build intermediates or playground', () => {
    const bad = files.filter((f) =>
      f.startsWith('test/') || f.startsWith('src/') || f.startsWith('playground/') || f.startsWith('artifacts/') ||
      f.startsWith('docs/api/') || f.startsWith('.ci/') || f.startsWith('scripts/') ||
      (f.endsWith('.ts') && !f.endsWith('.d.ts') && !KERNEL_SOURCES.test(f)) || f.endsWith('.map') || f.endsWith('.wat') ||
      f.includes('.raw.') || f.includes('.stage1.') || f.startsWith('bench/native/bin/') || /tsconfig|vitest|typedoc/.test(f));
    expect(bad).toEqual([]);
  });
});

/** AssemblyScript the package ships on purpose: the device runtime, the example kernels, simt's own kernels and the benchmarks' kernels. */
const KERNEL_SOURCES = /^(assembly\/runtime\/|assembly\/threads\/compiled\.ts$|examples\/kernels\/|kernels\/|bench\/kernels\/)/;

describe('the packed tarball', () => {
  let scratch = '';
  let target = '';
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}): string =>
    execFileSync(process.execPath, [join(target, 'bin/simt.js'), ...args], { cwd: scratch, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'simt-pack-'));
    const out = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', scratch])) as { filename: string }[];
    target = join(scratch, 'node_modules', 'simt');
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['-xzf', join(scratch, out[0]!.filename), '-C', target, '--strip-components=1']);
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // The package's dependencies, as npm would install them beside it — exactly those: a
    // dependency the package forgot to declare is missing here too. `webgpu` is an optional
    // peer: not there until a test adds it.
    for (const dep of Object.keys(pkg.dependencies)) symlinkSync(join(ROOT, 'node_modules', dep), join(scratch, 'node_modules', dep), 'dir');
  }, 120_000);
  afterAll(() => { if (scratch) rmSync(scratch, { recursive: true, force: true }); });

  it('installs by name and runs a launch, an op and the race tools', () => {
    writeFileSync(join(scratch, 'main.js'), `
      import { createDevice, data, deviceMax, race, kernels } from 'simt';
      const dev = await createDevice({ memoryBytes: 32 << 20, workers: 2 });
      const A = data.randomF32(100000, 3);
      const r = await deviceMax(dev, A);
      await dev.destroy();
      const ex = await race.explore(race.findJob('lostUpdate'), undefined, { schedules: 10 });
      // A user's own kernel, compiled from the installed package.
      const { compileKernels } = await import('simt/compiler');
      const mod = await compileKernels([{ path: 'mine.ts', source: 'import { threadIdx, blockIdx, blockDim } from "simt/kernel";\\n' +
        'export function twice(a: i32[], n: i32): void { const i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = 2 * a[i]; }' }], { cacheDir: false });
      // Its -O3 ran in the optimizer process, whose script the package ships (no silent fallback).
      const { optimizerProcessId } = await import('./node_modules/simt/dist/src/compiler/optimizerProcess.js');
      const optimizer = await optimizerProcessId();
      const dev2 = await createDevice({ memoryBytes: 32 << 20, workers: 2, modules: [mod] });
      const X = await dev2.upload('i32', [1, 2, 3, 4, 5]);
      await dev2.launch(mod.kernels.twice, { grid: 2, block: 4 }, [X, 5]);
      const twice = Array.from(await X.read());
      await dev2.destroy();
      console.log(JSON.stringify({ max: r.value, ref: A.reduce((a, b) => Math.max(a, b), -Infinity), outcomes: ex.outcomes.length, vecMax: kernels.vecMax.name, twice, optimizer }));
    `);
    const res = JSON.parse(execFileSync(process.execPath, ['main.js'], { cwd: scratch, encoding: 'utf8', timeout: 60_000 }));
    expect(res.max).toBe(res.ref);
    expect(res.outcomes).toBeGreaterThan(1);
    expect(res.vecMax).toBe('vecMax');
    expect(res.twice).toEqual([2, 4, 6, 8, 10]);
    expect(res.optimizer).toBeTypeOf('number');
    expect(existsSync(join(target, 'assembly/kernels/vecSum.wgsl'))).toBe(true);
    expect(relative(scratch, target)).toBe(join('node_modules', 'simt'));
  }, 120_000);

  it('simt --version prints the package version; --help lists the commands', () => {
    expect(cli(['--version']).trim()).toBe(pkg.version);
    const help = cli(['--help']);
    for (const c of ['info', 'demo', 'build', 'bench', 'crosscheck', 'explore', 'racecheck', 'sts-sort', 'pixel', 'pet']) expect(help).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect(cli(['bench', '--help'])).toMatch(/--workers N\[,N…\]/);
  }, 120_000);

  it('simt bench --quick runs a suite: one table, then the same records with --json', () => {
    const table = cli(['bench', 'race', '--quick', '--quiet']);
    expect(table).toMatch(/^## race: .*2048 digis/m);
    expect(table).toMatch(/^name\s+impl\s+size\s+workers\s+median\s+spread\s+samples\s+throughput$/m);
    expect(table.match(/^countModules\s+simt-/gm)?.length).toBe(2);
    expect(table.match(/^(racecheck|replay|explore)\/countModules\S*\s+simt-host/gm)?.length).toBe(6);
    const lines = cli(['bench', 'race', '--quick', '--quiet', '--json', '--workers', '2']).trim().split('\n');
    const records = lines.map((l) => JSON.parse(l) as { suite: string; name: string; impl: string; samples: number; ms: number; workers: number; costVsWasm: number });
    expect(records.map((r) => r.name)).toEqual(['countModules', 'countModules', 'racecheck/countModules', 'racecheck/countModules-x4',
      'replay/countModules-inorder', 'replay/countModules-interval', 'explore/countModules-pct', 'explore/countModules-random']);
    for (const r of records) {
      expect(r.suite).toBe('race'); expect(r.samples).toBeGreaterThan(0); expect(r.ms).toBeGreaterThan(0);
      expect(r.costVsWasm).toBeCloseTo(r.ms / records[0]!.ms, 6);
    }
    expect(records[0]!.workers).toBe(2);
  }, 180_000);

  it('a consumer file type-checks under tsc --strict without skipLibCheck (with and without the DOM lib)', () => {
    for (const dep of ['@types/node', 'undici-types']) {
      mkdirSync(dirname(join(scratch, 'node_modules', dep)), { recursive: true });
      if (!existsSync(join(scratch, 'node_modules', dep))) symlinkSync(join(ROOT, 'node_modules', dep), join(scratch, 'node_modules', dep), 'dir');
    }
    writeFileSync(join(scratch, 'consumer.ts'), `
      import { createDevice, kernels, type WebGpuDevice } from 'simt';
      import { compileKernels, type CompileOptions } from 'simt/compiler';
      const dev = await createDevice({ workers: 2, memoryBytes: 16 << 20 });
      const A = await dev.upload('f32', [1, 2, 3]);
      const B = dev.alloc('f32', 1);
      await dev.launch(kernels.vecMax, { grid: 1, block: 32, sharedBytes: 128 }, { A, B, N: 3 });
      const options: CompileOptions = { cacheDir: false };
      export const unused = [compileKernels, options] as const;
      export async function gpuLimits(d: WebGpuDevice): Promise<unknown> { return d.limits; }
      await dev.destroy();
    `);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    for (const lib of ['ES2022', 'ES2022,DOM']) {
      let out = '';
      try {
        execFileSync(process.execPath, [tsc, '--strict', '--noEmit', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext',
          '--lib', lib, '--types', 'node', 'consumer.ts'], { cwd: scratch, encoding: 'utf8', timeout: 120_000 });
      } catch (e) {
        out = (e as { stdout?: string }).stdout ?? String(e);
      }
      expect(out, `lib ${lib}`).toBe('');
    }
  }, 240_000);

  it('the webgpu backend without the webgpu package: a typed error naming the install command', () => {
    expect(existsSync(join(scratch, 'node_modules', 'webgpu'))).toBe(false);
    writeFileSync(join(scratch, 'gpu.js'), `
      import { createDevice, WebGpuUnavailableError } from 'simt';
      try { await createDevice({ backend: 'webgpu' }); console.log(JSON.stringify({ opened: true })); }
      catch (e) { console.log(JSON.stringify({ name: e.name, typed: e instanceof WebGpuUnavailableError, reason: e.reason, message: e.message })); }
    `);
    const r = JSON.parse(execFileSync(process.execPath, ['gpu.js'], { cwd: scratch, encoding: 'utf8', timeout: 60_000 }));
    expect(r).toMatchObject({ name: 'WebGpuUnavailableError', typed: true, reason: 'package-not-installed' });
    expect(r.message).toContain('npm install webgpu');
    expect(r.message.split('\n')).toHaveLength(1);
    // The CLI says the same in one line.
    let stderr = '';
    try { cli(['crosscheck', 'vecMax', '--size', '1000']); } catch (e) { stderr = (e as { stderr: string }).stderr; }
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^simt crosscheck: WebGpuUnavailableError: .*npm install webgpu/);
  }, 120_000);

  it('the webgpu backend with the webgpu package installed runs a launch', (ctx) => {
    symlinkSync(join(ROOT, 'node_modules', 'webgpu'), join(scratch, 'node_modules', 'webgpu'), 'dir');
    mkdirSync(join(scratch, 'node_modules', '@webgpu'), { recursive: true });
    for (const dep of ['@webgpu/types', 'debug', 'ms']) {
      if (!existsSync(join(scratch, 'node_modules', dep)) && existsSync(join(ROOT, 'node_modules', dep))) symlinkSync(join(ROOT, 'node_modules', dep), join(scratch, 'node_modules', dep), 'dir');
    }
    writeFileSync(join(scratch, 'gpu2.js'), `
      import { createDevice, kernels } from 'simt';
      let dev;
      try { dev = await createDevice({ backend: 'webgpu', memoryBytes: 16 << 20 }); }
      catch (e) { console.log(JSON.stringify({ unavailable: e.reason, message: e.message })); process.exit(0); }
      const A = await dev.upload('f32', [3, 9, -1, 4]);
      const B = dev.alloc('f32', 1);
      await dev.launch(kernels.vecMax, { grid: 1, block: 64, sharedBytes: 256 }, [A, B, 4]);
      console.log(JSON.stringify({ max: (await B.read())[0] }));
      await dev.destroy();
    `);
    const r = JSON.parse(execFileSync(process.execPath, ['gpu2.js'], { cwd: scratch, encoding: 'utf8', timeout: 60_000 }).trim().split('\n').pop()!);
    if (r.unavailable !== undefined) {
      // The package loaded; this machine has no adapter (the WebGPU test files say so too).
      expect(r.unavailable).not.toBe('package-not-installed');
      if (process.env['SIMT_REQUIRE_WEBGPU'] === '1') throw new Error(r.message);
      ctx.skip();
    }
    expect(r.max).toBe(9);
  }, 120_000);
});
