/**
 * The WGSL kernels: their parameter lists (for marshalling by the device layer) and loading of
 * their sources.
 *
 * Each kernel `NAME` lives in `assembly/kernels/NAME.wgsl`, beside the AssemblyScript kernel of
 * the same name, with entry point `NAME`. Parameters are listed in CUDA declaration order; arrays
 * map to bindings 0..k-1 and scalars to the Launch uniform's words after its 16-byte header (see
 * src/webgpu/runtime.ts).
 */
import { configuredBaseUrl } from '../platform.js';

/**
 * Host element types as the WGSL side sees them: 32-bit types as themselves; 'u16' as two per
 * u32 word; 'u8' (a byte store such as the pixel SoA) as four per u32 word; 'f64' (and 'i64'/'u64')
 * as array<vec2u>, the (lo, hi) words of the host's bytes (the STS key sort's keys are u32 word
 * pairs, a u64 array's bytes).
 */
export type WgslDtype = 'u8' | 'u16' | 'i32' | 'u32' | 'f32' | 'f64' | 'u64';

export interface WgslParam {
  name: string;
  kind: 'array' | 'scalar';
  dtype: WgslDtype;
}

export interface WgslKernelInfo {
  name: string;
  entryPoint: string;
  params: readonly WgslParam[];
  /** BLOCK_X must be a power of two (tree reductions). */
  powerOfTwoBlock: boolean;
  /**
   * Where the source is, under `assembly/` without `.wgsl`, beside the AS kernel of the same
   * name (default `kernels/<name>`; e.g. `kernels/pet/petConvert`).
   */
  source?: string;
}

const arr = (name: string, dtype: WgslDtype): WgslParam => ({ name, kind: 'array', dtype });
const scal = (name: string, dtype: WgslDtype): WgslParam => ({ name, kind: 'scalar', dtype });

export const WGSL_KERNELS = {
  // vecMax, vecMin and countModules run as the generated WGSL of their generic kernels
  // (kernels/reduce/, kernels/pixel/countModules.ts): on an H200 the generated vecMax is faster
  // than its hand-written twin was at every grid, and countModules within 4 % (bench/RESULTS.md).
  // The twins below are declared specializations kept for speed (H200, `scripts/webgpu-wide-twins.mjs`,
  // bench/RESULTS.md), each held to its generated generic kernel (`twins: false`) and to wasm by
  // test/webgpu-pet.test.ts. Their generic kernels compute f64 in software (src/compiler/wgslWide.ts).
  // vecSum: the generic kernel's f64 adds took 3.6x (1M) and 12.5x (16M) the twin's GPU time. The
  // twin sums in f32 with Kahan within a bound (vecSum.wgsl); B: f64 partials (vec2u words).
  vecSum: {
    name: 'vecSum',
    entryPoint: 'vecSum',
    params: [arr('A', 'f32'), arr('B', 'f64'), scal('N', 'i32')],
    powerOfTwoBlock: true,
  },
  // The device-wide scan, the block/warp scans and the compaction are compiled (kernels/primitives/).
  // assembly/kernels/pet/ (seed 001): the PET twins kept, with the generated kernel's GPU time
  // against the twin's per 1M-frame job: petCoinNextIndex 1.83x, petCoinSelect 1.31-1.34x,
  // petSortTiles 1.98x, petMergeBlocks 1.76x. petConvert (1.22-1.24x), petMergeRanks (1.19-1.20x),
  // petSplitSingles and petSplitPairs (1.0x) lost theirs, as petCrystalLut, petPadSingles,
  // petCoinCount and petCoinFill never had one: they run as their generic kernels (kernels/pet/).
  petCoinNextIndex: {
    name: 'petCoinNextIndex', entryPoint: 'petCoinNextIndex', source: 'kernels/pet/petCoinNextIndex', powerOfTwoBlock: false,
    params: [arr('data', 'u32'), arr('nextIndex', 'i32'), scal('n', 'i32'), scal('window', 'f64'), scal('elems', 'i32')],
  },
  petCoinSelect: {
    name: 'petCoinSelect', entryPoint: 'petCoinSelect', source: 'kernels/pet/petCoinSelect', powerOfTwoBlock: false,
    params: [arr('data', 'u32'), arr('nextIndex', 'i32'), scal('n', 'i32'), scal('window', 'f64'), scal('elems', 'i32')],
  },

  // TILE = 1024 records; BLOCK_X a power of two dividing it (block 256 on SwiftShader).
  petSortTiles: {
    name: 'petSortTiles', entryPoint: 'petSortTiles', source: 'kernels/pet/petSortTiles', powerOfTwoBlock: true,
    params: [arr('data', 'u32'), scal('n', 'i32')],
  },
  // BLOCK_X = 256 (SUB_BLOCK_SIZE): the workgroup tiles hold 256 records each.
  petMergeBlocks: {
    name: 'petMergeBlocks', entryPoint: 'petMergeBlocks', source: 'kernels/pet/petMergeBlocks', powerOfTwoBlock: false,
    params: [arr('data', 'u32'), arr('out', 'u32'), arr('ranksEven', 'u32'), arr('ranksOdd', 'u32'), scal('sortedBlockSize', 'i32'), scal('n', 'i32')],
  },
  // STS digi sorting (seed 004): no twins; each built-in STS kernel is a declared specialization
  // whose generic kernel (kernels/sts/) runs as its generated WGSL here.
  // The CMS pixel kernels on the SiPixelDigisCUDASOAView store: one u8 allocation, bound in WGSL
  // as array<atomic<u32>> and addressed by column word offset (see pixelCountModules.wgsl). Each
  // is declared (src/kernels/pixel.ts, `storeColumns`) as its generic kernel on the store's columns,
  // which webgpu can run only on copies of them; on an H200 that took 2.5-2.8x the twin's GPU time
  // for countModules, 1.5-1.8x for findClus and 1.8-2.0x for the charge cut, copies included
  // (scripts/webgpu-pixel-twins.mjs, bench/RESULTS.md), so the twins stay, cross-checked against
  // the generic form in test/webgpu-pixel.test.ts.
  pixelCountModules: {
    name: 'pixelCountModules',
    entryPoint: 'pixelCountModules',
    source: 'kernels/pixel/pixelCountModules',
    params: [arr('store', 'u8'), scal('stride', 'u32'), arr('moduleStart', 'u32'), scal('numElements', 'i32'), scal('nMaxModules', 'u32')],
    powerOfTwoBlock: false,
  },
  pixelFindClus: {
    name: 'pixelFindClus',
    entryPoint: 'pixelFindClus',
    source: 'kernels/pixel/pixelFindClus',
    params: [
      arr('store', 'u8'), scal('stride', 'u32'), arr('moduleStart', 'u32'), arr('nClustersInModule', 'u32'),
      arr('moduleId', 'u32'), scal('numElements', 'i32'),
    ],
    powerOfTwoBlock: false,
  },
  pixelClusterChargeCut: {
    name: 'pixelClusterChargeCut',
    entryPoint: 'pixelClusterChargeCut',
    source: 'kernels/pixel/pixelClusterChargeCut',
    params: [
      arr('store', 'u8'), scal('stride', 'u32'), arr('moduleStart', 'u32'), arr('nClustersInModule', 'u32'),
      scal('numElements', 'i32'), scal('layer1Threshold', 'i32'), scal('otherThreshold', 'i32'),
    ],
    powerOfTwoBlock: false,
  },
} as const satisfies Record<string, WgslKernelInfo>;

export type WgslKernelName = keyof typeof WGSL_KERNELS;

/** The id value countModules skips (CMS `invalidModuleId`). */
export const INVALID_MODULE_ID = 65534;

/**
 * Packs scalar argument values into the 32-bit words of the Launch uniform (after its header),
 * in the kernel's scalar-parameter order: i32/u32 as integers, f32 bitcast.
 */
export function packScalars(params: readonly WgslParam[], values: readonly number[]): Uint32Array {
  const scalars = params.filter((p) => p.kind === 'scalar');
  if (scalars.length !== values.length) {
    throw new RangeError(`expected ${scalars.length} scalar arguments, got ${values.length}`);
  }
  const words = new Uint32Array(scalars.length);
  const f32 = new Float32Array(words.buffer);
  const i32 = new Int32Array(words.buffer);
  scalars.forEach((p, k) => {
    const v = values[k]!;
    if (p.dtype === 'f32') f32[k] = v;
    else if (p.dtype === 'i32') i32[k] = v;
    else words[k] = v;
  });
  return words;
}

const isNode = (): boolean =>
  typeof process !== 'undefined' && typeof process.versions === 'object' && !!process.versions.node;

const sourceCache = new Map<string, Promise<string>>();
/** The sources loaded so far, for a launch that encodes without waiting (kernelWgslNow). */
const loadedSources = new Map<string, string>();

/** The WGSL source of a kernel of WGSL_KERNELS, from `assembly/<info.source>.wgsl`. */
export function loadKernelWgsl(info: WgslKernelInfo): Promise<string> {
  return info.source === undefined ? loadWgsl(info.name) : loadAssemblyWgsl(info.source);
}

/** loadKernelWgsl's source if it has been loaded already, else undefined. */
export function kernelWgslNow(info: WgslKernelInfo): string | undefined {
  return loadedSources.get(info.source ?? `kernels/${info.name}`);
}

/**
 * The WGSL source of `name` (a kernel name like 'vecMax', or 'wgsl/cuda_atomics'), read from
 * `assembly/kernels/<name>.wgsl` under the package root. The package root is found from this
 * module's URL: two levels up from src/webgpu/ (running from source) or three from
 * dist/src/webgpu/ (compiled); in Node we walk up until the file exists.
 */
export function loadWgsl(name: string): Promise<string> {
  return loadAssemblyWgsl(`kernels/${name}`);
}

/** `assembly/<rel>.wgsl` under the package root (rel like 'kernels/vecMax', 'kernels/pet/petConvert'). */
export function loadAssemblyWgsl(name: string): Promise<string> {
  if (!/^[A-Za-z0-9_]+(\/[A-Za-z0-9_]+)*$/.test(name)) return Promise.reject(new Error(`bad WGSL name '${name}'`));
  let p = sourceCache.get(name);
  if (!p) {
    p = isNode() ? loadNode(name) : loadBrowser(name);
    sourceCache.set(name, p);
    p.then((text) => loadedSources.set(name, text), () => sourceCache.delete(name));
  }
  return p;
}

async function loadNode(name: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const path = await import('node:path');
  const rel = path.join('assembly', `${name}.wgsl`);
  let dir = path.dirname(fileURLToPath(import.meta.url));
  const tried: string[] = [];
  for (let up = 0; up < 6; up++) {
    const candidate = path.join(dir, rel);
    tried.push(candidate);
    if (existsSync(candidate)) return readFile(candidate, 'utf8');
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`WGSL source '${name}' not found; tried:\n  ${tried.join('\n  ')}`);
}

async function loadBrowser(name: string): Promise<string> {
  const tried: string[] = [];
  // configureAssets({ baseUrl }) (a bundled page) names the package root; else look beside this module.
  const base = configuredBaseUrl();
  const roots = base ? [base] : ['../../', '../../../'].map((p) => new URL(p, import.meta.url));
  for (const root of roots) {
    const url = new URL(`assembly/${name}.wgsl`, root);
    tried.push(url.href);
    const res = await fetch(url);
    // A dev server's SPA fallback answers unknown paths with index.html: not WGSL.
    if (res.ok && !(res.headers.get('content-type') ?? '').includes('text/html')) return res.text();
  }
  throw new Error(`WGSL source '${name}' not found; tried:\n  ${tried.join('\n  ')}`);
}
