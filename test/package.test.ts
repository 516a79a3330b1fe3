// The published package: `npm pack --dry-run` lists what would be published. It must carry
// the built JS and types, the built wasm/data/meta, the WGSL the WebGPU backend reads at run
// time, the worker script, the CLI, README, CHANGELOG, LICENSE and the examples — and no
// tests, TypeScript sources, source maps or build intermediates. Then the real tarball is
// unpacked into a scratch project and imported by name.
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';

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
    for (const f of ['build/kernels.wasm', 'build/kernels.data.bin', 'build/kernels.meta.json', 'build/threads.wasm']) expect(files).toContain(f);
    const wgsl = [...walk('assembly/kernels', (f) => f.endsWith('.wgsl')), ...walk('assembly/primitives', (f) => f.endsWith('.wgsl'))];
    expect(wgsl.length).toBeGreaterThan(4);
    for (const f of wgsl) expect(files, f).toContain(f);
  });

  it('has README, CHANGELOG, LICENSE, the docs and the examples', () => {
    for (const f of ['README.md', 'CHANGELOG.md', 'LICENSE', 'package.json', 'docs/browser.md', 'docs/kernels.md']) expect(files).toContain(f);
    for (const f of walk('examples', (n) => n.endsWith('.js'))) expect(files).toContain(f);
    // The kernel compiler's own sources: the device runtime compiled into every user module.
    for (const f of walk('assembly/runtime', (n) => n.endsWith('.ts'))) expect(files, f).toContain(f);
    for (const f of ['assembly/threads/runtime.ts', 'assembly/threads/compiled.ts', 'examples/kernels/histogram.ts']) expect(files, f).toContain(f);
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

/** AssemblyScript the package ships on purpose: the device runtime and the example kernels. */
const KERNEL_SOURCES = /^(assembly\/runtime\/|assembly\/threads\/(runtime|compiled)\.ts$|examples\/kernels\/)/;

describe('the packed tarball', () => {
  let scratch = '';
  afterAll(() => { if (scratch) rmSync(scratch, { recursive: true, force: true }); });

  it('installs by name and runs a launch, an op and the race tools', () => {
    scratch = mkdtempSync(join(tmpdir(), 'simt-pack-'));
    const out = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', scratch])) as { filename: string }[];
    const target = join(scratch, 'node_modules', 'simt');
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['-xzf', join(scratch, out[0]!.filename), '-C', target, '--strip-components=1']);
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // The package's dependencies, as npm would install them beside it.
    for (const dep of ['assemblyscript', 'binaryen']) symlinkSync(join(ROOT, 'node_modules', dep), join(scratch, 'node_modules', dep), 'dir');
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
      const dev2 = await createDevice({ memoryBytes: 32 << 20, workers: 2, modules: [mod] });
      const X = await dev2.upload('i32', [1, 2, 3, 4, 5]);
      await dev2.launch(mod.kernels.twice, { grid: 2, block: 4 }, [X, 5]);
      const twice = Array.from(await X.read());
      await dev2.destroy();
      console.log(JSON.stringify({ max: r.value, ref: A.reduce((a, b) => Math.max(a, b), -Infinity), outcomes: ex.outcomes.length, vecMax: kernels.vecMax.name, twice }));
    `);
    const res = JSON.parse(execFileSync(process.execPath, ['main.js'], { cwd: scratch, encoding: 'utf8', timeout: 60_000 }));
    expect(res.max).toBe(res.ref);
    expect(res.outcomes).toBeGreaterThan(1);
    expect(res.vecMax).toBe('vecMax');
    expect(res.twice).toEqual([2, 4, 6, 8, 10]);
    // The CLI runs from the package too, and the WGSL the WebGPU backend loads is there.
    const info = execFileSync(process.execPath, [join(target, 'bin/simt.js'), '--help'], { cwd: scratch, encoding: 'utf8', timeout: 60_000 });
    expect(info).toMatch(/simt/);
    expect(existsSync(join(target, 'assembly/kernels/vecMax.wgsl'))).toBe(true);
    expect(relative(scratch, target)).toBe(join('node_modules', 'simt'));
  }, 120_000);
});
