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
  // vecSum keeps its twin: its partials are f64, which WGSL cannot generate.
  // B: f64 partials (vec2u words in WGSL; the WGSL kernel sums in f32 with Kahan, see vecSum.wgsl).
  vecSum: {
    name: 'vecSum',
    entryPoint: 'vecSum',
    params: [arr('A', 'f32'), arr('B', 'f64'), scal('N', 'i32')],
    powerOfTwoBlock: true,
  },
  // The device-wide scan, the block/warp scans and the compaction are compiled (kernels/primitives/).
  // assembly/kernels/pet/ (seed 001): the kernels with f64 values (WGSL has no 64-bit types), see
  // the .wgsl files there and docs/webgpu.md. petCrystalLut, petPadSingles, petCoinCount and
  // petCoinFill run as the generated WGSL of their generic kernels (kernels/pet/).

  petConvert: {
    name: 'petConvert', entryPoint: 'petConvert', source: 'kernels/pet/petConvert', powerOfTwoBlock: false,
    params: [
      arr('frames', 'u8'), scal('n', 'i32'), arr('dst', 'u32'), arr('dstBuffer', 'u32'), arr('counter', 'u32'),
      arr('positionTable', 'u8'), arr('lut', 'u32'), arr('energyTable', 'f32'), arr('geometry', 'u32'),
      scal('eLow', 'f64'), scal('eHigh', 'f64'), scal('useWindow', 'i32'), arr('badFrame', 'i32'), scal('elems', 'i32'),
    ],
  },
  petSplitSingles: {
    name: 'petSplitSingles', entryPoint: 'petSplitSingles', source: 'kernels/pet/petSplitSingles', powerOfTwoBlock: false,
    params: [arr('src', 'u32'), scal('n', 'i32'), arr('crystal', 'u32'), arr('energy', 'f32'), arr('time', 'f64')],
  },
  petSplitPairs: {
    name: 'petSplitPairs', entryPoint: 'petSplitPairs', source: 'kernels/pet/petSplitPairs', powerOfTwoBlock: false,
    params: [
      arr('pairs', 'u32'), arr('first', 'u32'), scal('n', 'i32'), arr('index1', 'u32'), arr('crystal0', 'u32'), arr('crystal1', 'u32'),
      arr('energy0', 'f32'), arr('energy1', 'f32'), arr('time0', 'f64'), arr('time1', 'f64'),
    ],
  },
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
  petMergeRanks: {
    name: 'petMergeRanks', entryPoint: 'petMergeRanks', source: 'kernels/pet/petMergeRanks', powerOfTwoBlock: false,
    params: [arr('data', 'u32'), arr('ranksEven', 'u32'), arr('ranksOdd', 'u32'), scal('sortedBlockSize', 'i32'), scal('n', 'i32'), scal('n2', 'i32')],
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

/** The WGSL source of a kernel of WGSL_KERNELS, from `assembly/<info.source>.wgsl`. */
export function loadKernelWgsl(info: WgslKernelInfo): Promise<string> {
  return info.source === undefined ? loadWgsl(info.name) : loadAssemblyWgsl(info.source);
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
    p.catch(() => sourceCache.delete(name));
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
