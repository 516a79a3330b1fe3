/**
 * Native C baselines for the benchmarks: builds the reference programs in this folder with the
 * system C compiler and runs them. Each program generates the same input as `src/data/synthetic.ts`
 * for the same `(n, seed)`, times its kernel and prints one JSON line per kernel, which
 * {@link runNative} parses.
 *
 * The binaries go to `bench/native/bin/` (git-ignored) and are rebuilt only when a source is newer
 * than its binary or the compiler flags changed.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The C programs, by binary name, and the sources each depends on. */
export const NATIVE_PROGRAMS: Record<string, { source: string; deps: string[] }> = {
  vecmax: { source: 'vecmax.c', deps: ['simt_data.h'] },
  countmodules: { source: 'countmodules.c', deps: ['simt_data.h'] },
  sts: { source: 'sts.c', deps: ['simt_data.h'] },
  /** PET pipeline (seed 001); reads its frames and tables from files (bench/pet.bench.ts). */
  pet: { source: 'pet.c', deps: [] },
  /** The user-kernels suite: five CUDA kernels translated MCUDA-style (bench/userKernels.bench.ts). */
  userkernels: { source: 'userkernels.c', deps: ['simt_data.h'] },
};

/** Benchmark name (the JSON `name`) → program and the extra arguments selecting the kernel. */
export const NATIVE_KERNELS: Record<string, { program: string; args: string[] }> = {
  vecMax: { program: 'vecmax', args: ['--kernel', 'max'] },
  vecSum: { program: 'vecmax', args: ['--kernel', 'sum'] },
  countModules: { program: 'countmodules', args: [] },
  stsSortByChannel: { program: 'sts', args: [] },
  histogram: { program: 'userkernels', args: ['--kernel', 'histogram'] },
  transpose: { program: 'userkernels', args: ['--kernel', 'transpose'] },
  shuffleSum: { program: 'userkernels', args: ['--kernel', 'shuffleSum'] },
  vecMaxGeneric: { program: 'userkernels', args: ['--kernel', 'vecMaxGeneric'] },
  countModulesGeneric: { program: 'userkernels', args: ['--kernel', 'countModulesGeneric'] },
};

/** Flag sets tried in order: the first one the compiler accepts is used. */
const FLAG_SETS: { flags: string[]; openmp: boolean; label: string }[] = [
  { flags: ['-O3', '-march=native', '-fopenmp'], openmp: true, label: 'OpenMP' },
  { flags: ['-O3', '-march=native', '-fopenmp-simd'], openmp: false, label: 'no OpenMP (simd only)' },
  { flags: ['-O3', '-march=native'], openmp: false, label: 'no OpenMP' },
  { flags: ['-O3'], openmp: false, label: 'no OpenMP, no -march=native' },
];

export interface NativeBuild {
  /** True when every program is built and runnable. */
  ok: boolean;
  /** What happened: compiler, flags, what was skipped and why. */
  note: string;
  /** Binary name → absolute path of each built program. */
  bins: Record<string, string>;
  /** Whether the binaries use OpenMP (without it they always run one thread). */
  openmp: boolean;
  /** Compiler command and flags used. */
  compiler: string;
  flags: string[];
}

export interface NativeRunOptions {
  n: number;
  seed: number | bigint;
  threads: number;
  repeat: number;
  /** Extra `--key value` arguments (e.g. `{ modules: 1800, invalid: 0.01, nmax: 1856 }`). */
  extra?: Record<string, string | number>;
  /** Kill the program after this many ms (default 10 minutes). */
  timeoutMs?: number;
}

/** One JSON line of a native program (fields beyond these are kernel-specific). */
export interface NativeResult {
  name: string;
  impl: 'native-c';
  threads: number;
  n: number;
  seed: number;
  openmp: boolean;
  msMedian: number;
  msAll: number[];
  /** Bytes moved per run divided by the median time, in GB/s (1e9 bytes per second). */
  gbps: number;
  bytes: number;
  /** Time to generate the input (not part of msMedian). */
  genMs: number;
  /** Max value (vecMax), sum (vecSum), module count `moduleStart[0]` (countModules); the user kernels: see userkernels.c. */
  result: number;
  /** Word-wise FNV-1a checksum of the whole input: compare with `checksum32` of the TS data. */
  checksum: number;
  [key: string]: unknown;
}

/** The folder holding the C sources (works from `bench/native/` and from `dist/bench/native/`). */
export function nativeDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const dir of [here, resolve(here, '../../../bench/native')]) {
    if (existsSync(join(dir, 'simt_data.h'))) return dir;
  }
  throw new Error(`native C sources not found next to ${here}`);
}

function findCompiler(): string | undefined {
  for (const cc of [process.env['CC'], 'cc', 'gcc', 'clang']) {
    if (!cc) continue;
    try {
      execFileSync(cc, ['--version'], { stdio: 'ignore' });
      return cc;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

function compile(cc: string, flags: string[], src: string, out: string): string | undefined {
  try {
    execFileSync(cc, [...flags, '-o', out, src, '-lm'], { stdio: ['ignore', 'pipe', 'pipe'] });
    return undefined;
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    return err.stderr?.toString().trim() || err.message;
  }
}

let lastBuild: NativeBuild | undefined;

/**
 * Compiles the C programs into `bench/native/bin/` (cached by source mtime and flags). Never
 * throws for a missing or failing compiler: `ok` is false and `note` says why.
 */
export function buildNative(options: { force?: boolean } = {}): NativeBuild {
  const cc = findCompiler();
  if (!cc) {
    lastBuild = {
      ok: false,
      note: 'no C compiler found (set CC or install cc): native baselines skipped',
      bins: {},
      openmp: false,
      compiler: '',
      flags: [],
    };
    return lastBuild;
  }
  const dir = nativeDir();
  const binDir = join(dir, 'bin');
  mkdirSync(binDir, { recursive: true });
  const bins: Record<string, string> = {};
  const notes: string[] = [];
  let chosen: (typeof FLAG_SETS)[number] | undefined;
  let ok = true;
  for (const [name, prog] of Object.entries(NATIVE_PROGRAMS)) {
    const src = join(dir, prog.source);
    if (!existsSync(src)) continue;
    const out = join(binDir, name);
    const stamp = join(binDir, `${name}.build.json`);
    const srcMtime = Math.max(...[prog.source, ...prog.deps].map((f) => statSync(join(dir, f)).mtimeMs));
    if (!options.force && existsSync(out) && existsSync(stamp)) {
      try {
        const s = JSON.parse(readFileSync(stamp, 'utf8')) as { cc: string; flags: string[]; srcMtime: number };
        const set = FLAG_SETS.find((f) => f.flags.join(' ') === s.flags.join(' '));
        if (s.cc === cc && s.srcMtime === srcMtime && set && (!chosen || chosen === set)) {
          chosen = set;
          bins[name] = out;
          continue;
        }
      } catch {
        // rebuild
      }
    }
    let error: string | undefined;
    for (const set of chosen ? [chosen, ...FLAG_SETS.filter((f) => f !== chosen)] : FLAG_SETS) {
      error = compile(cc, set.flags, src, out);
      if (error === undefined) {
        if (chosen && set !== chosen) notes.push(`${name}: built with ${set.label}`);
        chosen ??= set;
        writeFileSync(stamp, JSON.stringify({ cc, flags: set.flags, srcMtime }));
        bins[name] = out;
        break;
      }
    }
    if (error !== undefined) {
      ok = false;
      notes.push(`${name}: compile failed: ${error.split('\n').slice(0, 5).join(' | ')}`);
    }
  }
  const flags = chosen?.flags ?? [];
  const head = chosen
    ? `built with ${cc} ${flags.join(' ')} (${chosen.label})`
    : `${cc} could not build the native programs`;
  lastBuild = {
    ok: ok && Object.keys(bins).length > 0,
    note: [head, ...notes].join('; '),
    bins,
    openmp: chosen?.openmp ?? false,
    compiler: cc,
    flags,
  };
  return lastBuild;
}

/** Runs a program and returns every JSON line it printed. */
export async function runNativeProgram(
  program: string,
  opts: NativeRunOptions,
  args: string[] = [],
): Promise<NativeResult[]> {
  const build = lastBuild?.bins[program] ? lastBuild : buildNative();
  const bin = build.bins[program];
  if (!bin) throw new Error(`native program ${program} is not available: ${build.note}`);
  const argv = [
    '--n', String(opts.n),
    '--seed', String(opts.seed),
    '--threads', String(opts.threads),
    '--repeat', String(opts.repeat),
    ...args,
  ];
  for (const [k, v] of Object.entries(opts.extra ?? {})) argv.push(`--${k}`, String(v));
  const { stdout } = await execFileAsync(bin, argv, {
    maxBuffer: 16 << 20,
    timeout: opts.timeoutMs ?? 600_000,
    env: { ...process.env, OMP_NUM_THREADS: String(opts.threads) },
  });
  return stdout
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as NativeResult);
}

/**
 * Runs the native reference of benchmark `name` (a key of {@link NATIVE_KERNELS}: `vecMax`,
 * `vecSum`, `countModules`, `stsSortByChannel`, the user-kernels `histogram`, `transpose`,
 * `shuffleSum`, `vecMaxGeneric`, `countModulesGeneric`) and returns its JSON result. Builds first if needed;
 * rejects if the program is unavailable or fails.
 */
export async function runNative(name: string, opts: NativeRunOptions): Promise<NativeResult> {
  const k = NATIVE_KERNELS[name];
  if (!k) throw new Error(`unknown native benchmark ${name} (known: ${Object.keys(NATIVE_KERNELS).join(', ')})`);
  const lines = await runNativeProgram(k.program, opts, k.args);
  const line = lines.find((l) => l.name === name);
  if (!line) throw new Error(`native ${k.program} printed no result for ${name}`);
  return line;
}
