/**
 * crossCheck and `simt crosscheck --module … --job …` on the user's own jobs (defineJob) and
 * kernels (examples/kernels/), wasm against webgpu (SwiftShader here): each output compared by the
 * rule the job declares (exact, multiset, sortedSet, { ulp: N }); a job whose rule does not hold
 * reports the output, the rule and the first differing elements. No WebGPU adapter is a failure.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDevice, type Device } from '../src/device.js';
import type { WebGpuDevice } from '../src/webgpu/device.js';
import { compileKernelFiles, compileKernels } from '../src/compiler/index.js';
import type { KernelModule } from '../src/kernelModule.js';
import { crossCheck, ulpDistance } from '../src/crosscheck/index.js';
import { defineJob, RaceJobError } from '../src/race/index.js';
import { main } from '../src/cli/main.js';
import { rng } from './helpers.js';

let gpu: WebGpuDevice;
let wasm: Device;
let examples: KernelModule;
let mathMod: KernelModule;
let setupError: unknown;
let dir: string;

const MATH_SOURCE = `import { threadIdx, blockIdx, blockDim } from "simt/kernel";
export function tanhf(a: f32[], out: f32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = Mathf.tanh(a[i]);
}
`;

beforeAll(async () => {
  try {
    examples = await compileKernelFiles([...['histogram', 'shuffleSum'].map((k) => `examples/kernels/${k}.ts`), 'kernels/pixel/countModules.ts']);
    mathMod = await compileKernels([{ path: 'kernels/tanhf.ts', source: MATH_SOURCE }]);
    wasm = await createDevice({ backend: 'wasm', workers: 2, memoryBytes: 64 << 20 });
    gpu = await createDevice({ backend: 'webgpu', memoryBytes: 64 << 20 });
  } catch (e) {
    setupError = e;
  }
  dir = mkdtempSync(join(tmpdir(), 'simt-crosscheck-'));
});
beforeEach(() => {
  if (setupError !== undefined) throw setupError;
});
afterAll(async () => {
  await gpu?.destroy();
  await wasm?.destroy();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const devices = () => ({ wasm, webgpu: gpu });

function bytes(n: number, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => Math.floor(r() * 256));
}

/** CMS-like module ids: runs of equal ids, some invalid (65534). */
function moduleIds(n: number, seed: number): Uint16Array {
  const r = rng(seed);
  const ids = new Uint16Array(n);
  let m = 0;
  for (let i = 0; i < n; i++) { if (r() < 0.05) m++; ids[i] = r() < 0.02 ? 65534 : m; }
  return ids;
}

describe('crossCheck(defineJob(…)) with per-output rules', () => {
  it('histogram256: bins exact (integer atomics: any order gives the same counts)', async () => {
    const data = bytes(20_000, 1);
    const job = defineJob({
      name: 'histogram', module: examples,
      buffers: { data: ['u8', data], bins: ['u32', 256] },
      launches: [{ kernel: 'histogram256', grid: 13, block: 96, args: { data: 'data', n: data.length, bins: 'bins' } }],
      outputs: ['bins'],
      compare: { bins: 'exact' },
    });
    const r = await crossCheck(job, { devices: devices() });
    expect(r.equal, JSON.stringify(r.outputs)).toBe(true);
    expect(r.outputs).toEqual([expect.objectContaining({ output: 'bins', backend: 'webgpu', rule: 'exact', equal: true, lengths: [256, 256], differences: 0 })]);
    expect(r.runs.map((x) => x.backend)).toEqual(['wasm', 'webgpu']);
  });

  it('countModules: moduleStart as a multiset, the slots as a sorted set (host code in run), clusterId exact', async () => {
    const ids = moduleIds(30_000, 2);
    const job = defineJob({
      name: 'countModules', module: examples,
      buffers: { id: ['u16', ids], moduleStart: ['u32', 4000], clusterId: ['i32', ids.length] },
      launches: [{ kernel: examples.kernels.countModules!, grid: 9, block: 64, args: ['id', 'moduleStart', 'clusterId', ids.length, 3999] }],
      outputs: ['moduleStart', 'clusterId'],
      // The slots' order is the order threads reach atomicInc; the count and the set are not.
      async run(ctx) {
        const m = await ctx.buffers.moduleStart!.read();
        return { slots: Array.from(m).slice(1, 1 + m[0]!) };
      },
      compare: { moduleStart: 'multiset', slots: 'sortedSet', clusterId: 'exact' },
    });
    const r = await crossCheck(job, { devices: devices() });
    expect(r.equal, JSON.stringify(r.outputs.filter((o) => !o.equal))).toBe(true);
    const rule = Object.fromEntries(r.outputs.map((o) => [o.output, o.rule]));
    expect(rule).toEqual({ moduleStart: 'multiset', clusterId: 'exact', slots: 'sorted set' });
    expect(r.outputs.find((o) => o.output === 'slots')!.lengths[0]).toBeGreaterThan(1000);
  });

  it('shuffleSum over fractional floats: the float atomics\' order may differ, { ulp: 64 } holds and the worst distance is reported', async () => {
    const r0 = rng(3);
    const a = Float32Array.from({ length: 50_000 }, () => r0() * 10 - 3);
    const job = defineJob({
      name: 'shuffleSum', module: examples,
      buffers: { input: ['f32', a], out: ['f32', 1] },
      launches: [{ kernel: 'shuffleSum', grid: 7, block: 128, args: ['input', 'out', a.length] }],
      outputs: ['out'],
      compare: { out: { ulp: 64 } },
    });
    const r = await crossCheck(job, { devices: devices() });
    const o = r.outputs[0]!;
    expect(o, JSON.stringify(o)).toMatchObject({ output: 'out', rule: 'within 64 ULP', equal: true });
    expect(o.worst).toBeGreaterThanOrEqual(0);
    expect(o.worst).toBeLessThanOrEqual(64);
  });

  it('a rule that does not hold: Mathf.tanh compared exactly reports the first differing elements; { ulp: 8 } holds', async () => {
    const n = 4096;
    // Away from 0, where WGSL's tanh (sinh/cosh accuracy: an absolute bound) may lose most bits of a tiny result.
    const a = Float32Array.from({ length: n }, (_, i) => 0.5 + (4 * i) / n);
    const spec = {
      name: 'tanhf', module: mathMod,
      buffers: { a: ['f32', a] as const, out: ['f32', n] as const },
      launches: [{ kernel: 'tanhf', grid: n / 64, block: 64, args: ['a', 'out', n] as const }],
      outputs: ['out'],
    };
    const exact = await crossCheck(defineJob({ ...spec, compare: { out: 'exact' } }), { devices: devices(), examples: 3 });
    const o = exact.outputs[0]!;
    expect(exact.equal).toBe(false);
    expect(o.differences).toBeGreaterThan(0);
    expect(o.first).toHaveLength(3);
    for (const d of o.first) {
      expect(d.values[0]).not.toBe(d.values[1]);
      expect(Math.abs(Number(d.values[0]) - Math.tanh(a[d.index]!))).toBeLessThan(1e-6); // wasm's is the close one
    }
    const bounded = await crossCheck(defineJob({ ...spec, compare: { out: { ulp: 8 } } }), { devices: devices() });
    expect(bounded.outputs[0], JSON.stringify(bounded.outputs[0])).toMatchObject({ equal: true });
    expect(bounded.outputs[0]!.worst).toBeGreaterThan(0);
    expect(ulpDistance(1, Math.fround(1 + 2 ** -23), true)).toBe(1);
  });

  it('inputs other than the spec\'s: crossCheck(job, inputs, options)', async () => {
    const job = defineJob({
      name: 'histogram', module: examples,
      buffers: { data: ['u8', bytes(100, 4)], bins: ['u32', 256] },
      launches: [{ kernel: 'histogram256', grid: 2, block: 64, args: ['data', 100, 'bins'] }],
      outputs: ['bins'],
    });
    const r = await crossCheck(job, { data: new Array(100).fill(7) }, { devices: devices() });
    expect(r.equal).toBe(true);
    expect(r.outputs[0]!.rule).toBe('exact'); // not declared: exact
  });

  it('a launch that traps is the job\'s error, not a report', async () => {
    const job = defineJob({
      name: 'histogram', module: examples,
      buffers: { data: ['u8', bytes(10, 5)], bins: ['u32', 256] },
      launches: [{ kernel: 'histogram256', grid: 1, block: 64, args: ['data', 11, 'bins'] }],
      outputs: ['bins'],
    });
    await expect(crossCheck(job, { devices: devices() })).rejects.toThrow(/index 10 is out of bounds of 'data'/);
  });

  it('bad rules are RaceJobErrors naming the job and the output', () => {
    const base = {
      name: 'h', module: examples, buffers: { data: ['u8', [1]] as const, bins: ['u32', 256] as const },
      launches: [{ kernel: 'histogram256', grid: 1, block: 1, args: ['data', 1, 'bins'] as const }], outputs: ['bins'],
    };
    expect(() => defineJob({ ...base, compare: { bins: 'sorted' as never } })).toThrow(RaceJobError);
    expect(() => defineJob({ ...base, compare: { bins: 'sorted' as never } })).toThrow(/^job 'h': compare\.bins: unknown comparison rule 'sorted' \(use 'exact', 'multiset', 'sortedSet' or \{ ulp: N \}\)$/);
    expect(() => defineJob({ ...base, compare: { bins: { ulp: -1 } } })).toThrow(/compare\.bins: \{ ulp: N \} takes an integer N from 0/);
    expect(() => defineJob({ ...base, compare: { bins: { ulp: 2, exact: true } as never } })).toThrow(/unknown comparison rule/);
    expect(() => defineJob({ ...base, compare: { data: 'exact' } })).toThrow(/^job 'h': compare: 'data' is not one of the job's outputs \(bins\)$/);
    expect(() => defineJob({ ...base, compare: ['exact'] as never })).toThrow(/compare must be an object/);
  });
});

describe('simt crosscheck --module … --job …', () => {
  const run = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const rc = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), tty: false });
    return { rc, out: out.join('\n'), err: err.join('\n') };
  };
  const write = (name: string, text: string): string => { const p = join(dir, name); writeFileSync(p, text); return p; };

  it('a job file on a kernel source: prints per output, exit 0; --json is the report', async () => {
    const job = write('countModules.mjs', `
const ids = ${JSON.stringify(Array.from(moduleIds(5000, 6)))};
export default (module) => ({
  name: 'countModules', module,
  buffers: { id: ['u16', ids], moduleStart: ['u32', 1000], clusterId: ['i32', ids.length] },
  launches: [{ kernel: 'countModules', grid: 4, block: 64, args: ['id', 'moduleStart', 'clusterId', ids.length, 999] }],
  compare: { moduleStart: 'multiset' },
});
`);
    const r = await run(['crosscheck', '--module', 'kernels/pixel/countModules.ts', '--job', job, '--backends', 'wasm,webgpu']);
    expect(r.err).toBe('');
    expect(r.rc).toBe(0);
    expect(r.out).toMatch(/^crosscheck countModules: the job's buffers, reference wasm$/m);
    expect(r.out).toMatch(/moduleStart\s+webgpu\s+\[multiset\]: equal \(1000 elements\)/);
    expect(r.out).toMatch(/clusterId\s+webgpu\s+\[exact\]: equal \(5000 elements\)/);
    expect(r.out).toMatch(/all outputs agree$/);
    const j = await run(['crosscheck', '--module', 'kernels/pixel/countModules.ts', '--job', job, '--json']);
    expect(j.rc).toBe(0);
    const doc = JSON.parse(j.out) as { job: string; equal: boolean; outputs: { output: string; rule: string }[] };
    expect(doc).toMatchObject({ job: 'countModules', equal: true, reference: 'wasm' });
    expect(doc.outputs.map((o) => `${o.output}:${o.rule}`).sort()).toEqual(['clusterId:exact', 'id:exact', 'moduleStart:multiset']);
  });

  it('a rule that fails: exit 1, the differing elements listed', async () => {
    const job = write('tanhf.mjs', `
const n = 2048;
const a = Array.from({ length: n }, (_, i) => -4 + (8 * i) / n + 1e-3);
export default { name: 'tanhf', buffers: { a: ['f32', a], out: ['f32', n] },
  launches: [{ kernel: 'tanhf', grid: n / 64, block: 64, args: ['a', 'out', n] }], outputs: ['out'], compare: { out: 'exact' } };
`);
    const src = join(dir, 'tanhf.ts');
    writeFileSync(src, MATH_SOURCE);
    const r = await run(['crosscheck', '--module', src, '--job', job, '--examples', '2']);
    expect(r.rc).toBe(1);
    expect(r.out).toMatch(/out\s+webgpu\s+\[exact\]: \d+ differences? of 2048/);
    expect(r.out.split('\n').filter((l) => /^\s+\d+\s+[-\d.e]+\s+[-\d.e]+$/.test(l))).toHaveLength(2);
    expect(r.out).toMatch(/OUTPUTS DIFFER$/);
  });

  it('usage errors: --job without a module for a name-only kernel, --size with --job, --module alone', async () => {
    const job = write('plain.mjs', `export default { name: 'p', buffers: { data: ['u8', [1]], bins: ['u32', 256] },
  launches: [{ kernel: 'histogram256', grid: 1, block: 1, args: ['data', 1, 'bins'] }] };`);
    const sized = await run(['crosscheck', '--module', 'examples/kernels/histogram.ts', '--job', job, '--size', '10']);
    expect(sized.rc).toBe(2);
    expect(sized.err).toMatch(/--size is for simt's own jobs; a --job brings its own buffers/);
    const alone = await run(['crosscheck', '--module', 'examples/kernels/histogram.ts']);
    expect(alone.rc).toBe(2);
    expect(alone.err).toMatch(/--module needs --job/);
    const noModule = await run(['crosscheck', '--job', job]);
    expect(noModule.rc).not.toBe(0);
    expect(noModule.err).toMatch(/job 'p': no kernel module/);
  });
});
