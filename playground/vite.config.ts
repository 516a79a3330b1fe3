// The playground's Vite config. simt is imported as a consumer would (`import … from 'simt'`,
// aliased to the built package in ../dist), bundled into the page; its run-time files — the
// built wasm, the static data and meta, the WGSL sources and the unbundled worker script with
// its imports — are served as they are under /simt/ (dev: a middleware; build: copied into
// the output), and the page calls configureAssets({ baseUrl: 'simt/' }). Every response carries
// the two headers that make the page cross-origin isolated (SharedArrayBuffer). The kernel
// compiler (AssemblyScript + Binaryen) is bundled into the workbench's compile worker.
import { defineConfig, type Plugin } from 'vite';
import { createReadStream, existsSync, readdirSync, statSync, mkdirSync, copyFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, '..');

export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** The run-time files a page needs, relative to the package root. */
export function runtimeFiles(root = pkg): string[] {
  const out: string[] = [];
  const walk = (dir: string, keep: (f: string) => boolean): void => {
    if (!existsSync(join(root, dir))) return;
    for (const name of readdirSync(join(root, dir))) {
      const rel = join(dir, name);
      if (statSync(join(root, rel)).isDirectory()) walk(rel, keep);
      else if (keep(name)) out.push(rel.split(sep).join('/'));
    }
  };
  for (const f of ['build/kernels.wasm', 'build/kernels.data.bin', 'build/kernels.meta.json', 'build/simt.simt.json', 'build/simt.simt.wasm', 'build/simt.simt.fine.wasm', 'build/simt.simt.screen.wasm']) {
    if (existsSync(join(root, f))) out.push(f);
  }
  walk('assembly/kernels', (f) => f.endsWith('.wgsl'));
  // The device runtime the kernel compiler compiles into every module (src/compiler/backend.ts
  // reads them through readPackageFile): the workbench's compile worker fetches them.
  walk('assembly/runtime', (f) => f.endsWith('.ts'));
  if (existsSync(join(root, 'assembly/threads/compiled.ts'))) out.push('assembly/threads/compiled.ts');
  walk('dist/src', (f) => f.endsWith('.js'));
  return out;
}

const MIME: Record<string, string> = {
  '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json',
  '.wgsl': 'text/plain; charset=utf-8', '.bin': 'application/octet-stream', '.ts': 'text/plain; charset=utf-8',
};

function simtAssets(): Plugin {
  let outDir = '';
  return {
    name: 'simt-assets',
    configResolved(c) { outDir = resolve(c.root, c.build.outDir); },
    configureServer(server) {
      server.middlewares.use('/simt/', (req, res, next) => {
        const rel = decodeURIComponent((req.url ?? '').split('?')[0]!.replace(/^\//, ''));
        // Only the run-time files (listed afresh: a rebuild may add some), nothing else.
        if (!runtimeFiles().includes(rel)) return next();
        const ext = rel.slice(rel.lastIndexOf('.'));
        res.setHeader('Content-Type', MIME[ext] ?? 'application/octet-stream');
        for (const [k, v] of Object.entries(ISOLATION_HEADERS)) res.setHeader(k, v);
        createReadStream(join(pkg, rel)).pipe(res);
      });
    },
    closeBundle() {
      const files = runtimeFiles();
      if (!files.includes('build/kernels.wasm') || !files.includes('dist/src/pool/worker.js')) {
        throw new Error('simt is not built: run `npm run build` before building the playground');
      }
      for (const rel of files) {
        const to = join(outDir, 'simt', rel);
        mkdirSync(dirname(to), { recursive: true });
        copyFileSync(join(pkg, rel), to);
      }
    },
  };
}

export default defineConfig({
  root: here,
  base: './',
  // Keep Vite's dependency cache beside the playground, not in node_modules.
  cacheDir: join(here, '.vite'),
  resolve: {
    alias: [
      { find: /^simt$/, replacement: join(pkg, 'dist/src/index.js') },
      { find: /^simt\/internal\/(.*)$/, replacement: join(pkg, 'dist/src/$1') },
    ],
  },
  server: { headers: ISOLATION_HEADERS, host: '127.0.0.1' },
  preview: { headers: ISOLATION_HEADERS, host: '127.0.0.1' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // dawn.node (the `webgpu` package) is simt's Node-only WebGPU; a page uses navigator.gpu.
    // keepNames: minified class names would name every simt error `_` (errors are named by
    // their class; see src/errors.ts, which also pins its own classes' names).
    rolldownOptions: { external: ['webgpu'], output: { keepNames: true } },
  },
  optimizeDeps: { exclude: ['webgpu'] },
  // The compile worker imports the AssemblyScript compiler, whose ESM build awaits at top level.
  worker: { format: 'es', rolldownOptions: { output: { keepNames: true } } },
  plugins: [simtAssets()],
});


