/**
 * Every WGSL kernel's output, cross-checked against the wasm backend through crossCheck, on random
 * inputs and edge sizes; the comparison rules themselves; and `simt crosscheck`.
 * No WebGPU adapter is a failure, not a skip: every test rethrows the setup error.
 */
import { describe, expect, it } from 'vitest';
import { withWasmAndWebGpu } from './helpers.js';
import { createDevice, type Device } from '../src/device.js';
import type { WebGpuDevice } from '../src/webgpu/device.js';
import { compareOutput, crossCheck, jobs, registerJob, ulpDistance, type Job } from '../src/crosscheck/index.js';
import { main } from '../src/cli/main.js';

let gpu: WebGpuDevice;
let wasm: Device;
withWasmAndWebGpu(async () => {
  wasm = await createDevice({ backend: 'wasm', memoryBytes: 256 << 20 });
  gpu = await createDevice({ backend: 'webgpu' });
}, () => [gpu, wasm]);

const devices = () => ({ wasm, webgpu: gpu });

for (const name of ['vecMax', 'vecMin', 'vecSum', 'countModules']) {
  describe(`${name}: webgpu vs wasm`, () => {
    it('edge sizes', async () => {
      const job = jobs.get(name)!;
      for (const n of job.edgeSizes) {
        const r = await crossCheck(job, job.generate(n, 11 + n), { devices: devices() });
        expect(r.equal, `size ${n}: ${JSON.stringify(r.outputs.filter((o) => !o.equal))}`).toBe(true);
      }
    });
    it('random sizes and seeds', async () => {
      const job = jobs.get(name)!;
      let s = 12345;
      for (let k = 0; k < 6; k++) {
        s = (s * 1103515245 + 12345) >>> 0;
        const n = 1 + (s % 300_000);
        const r = await crossCheck(job, job.generate(n, s), { devices: devices() });
        expect(r.equal, `size ${n} seed ${s}: ${JSON.stringify(r.outputs.filter((o) => !o.equal))}`).toBe(true);
        expect(r.runs.map((x) => x.backend)).toEqual(['wasm', 'webgpu']);
      }
    });
  });
}

describe('countModules on webgpu: more than one dispatch and the atomicInc wrap', () => {
  it('grid above 65535 blocks (70000 blocks of 256) agrees with wasm', async () => {
    const job = jobs.get('countModules')!;
    const n = 70000 * 256 - 5;
    const r = await crossCheck(job, job.generate(n, 3), { devices: devices() });
    expect(r.equal).toBe(true);
  });
  it('a wrapping counter: count agrees exactly (nMaxModules 7 with ~1800 modules)', async () => {
    const base = jobs.get('countModules')!;
    const wrapJob: Job = {
      ...base, name: 'countModulesWrap',
      generate: (n, seed) => ({ ...base.generate(n, seed), nMaxModules: 7 }),
      // After a wrap the slots were overwritten in schedule order: only the count is defined.
      run: async (d, inp) => ({ count: (await base.run(d, inp)).count! }),
      compare: () => ({ count: { kind: 'exact' } }),
    };
    const r = await crossCheck(wrapJob, wrapJob.generate(200_000, 5), { devices: devices() });
    expect(r.equal).toBe(true);
  });
});

describe('comparison rules', () => {
  it('exact, sortedSet, multiset, ulp and withinBound report the differences side by side', () => {
    const ex = compareOutput('x', 'webgpu', { kind: 'exact' }, new Float32Array([1, NaN, 0, 4]), new Float32Array([1, NaN, -0, 5]), 5);
    expect(ex.equal).toBe(false);
    expect(ex.differences).toBe(1);
    expect(ex.first).toEqual([{ index: 3, values: [4, 5] }]);
    expect(compareOutput('s', 'webgpu', { kind: 'sortedSet' }, new Uint32Array([3, 1, 2]), new Uint32Array([2, 3, 1]), 5).equal).toBe(true);
    const dup = compareOutput('s', 'webgpu', { kind: 'sortedSet' }, new Uint32Array([1, 2, 2]), new Uint32Array([2, 1, 2]), 5);
    expect(dup.equal).toBe(false);
    expect(dup.note).toMatch(/repeated/);
    expect(compareOutput('m', 'webgpu', { kind: 'multiset' }, [1, 2, 2], [2, 1, 2], 5).equal).toBe(true);
    const len = compareOutput('m', 'webgpu', { kind: 'multiset' }, [1, 2], [2, 1, 2], 5);
    expect(len.equal).toBe(false);
    expect(len.note).toMatch(/lengths differ/);
    const one = Math.fround(1 + 2 ** -23);
    expect(compareOutput('u', 'webgpu', { kind: 'ulp', ulps: 1 }, new Float32Array([1]), new Float32Array([one]), 5).equal).toBe(true);
    expect(compareOutput('u', 'webgpu', { kind: 'ulp', ulps: 0 }, new Float32Array([1]), new Float32Array([one]), 5).equal).toBe(false);
    expect(ulpDistance(0, -0, true)).toBe(0);
    expect(ulpDistance(-Number.MIN_VALUE, Number.MIN_VALUE, false)).toBe(2);
    const wb = compareOutput('b', 'webgpu', { kind: 'withinBound', bound: () => 0.5, why: 'test' }, [1, 2], [1.4, 2.6], 5);
    expect(wb.differences).toBe(1);
    expect(wb.first[0]!.index).toBe(1);
  });

  it('a job whose backends disagree is reported, with indices and values', async () => {
    const job: Job<{ n: number }> = {
      name: 'backendName', description: 'differs by construction', defaultSize: 3, edgeSizes: [],
      generate: (n) => ({ n }),
      run: async (d, { n }) => ({ v: Float64Array.from({ length: n }, (_, i) => (d.backend === 'webgpu' && i === 1 ? -1 : i)) }),
      compare: () => ({ v: { kind: 'exact' } }),
    };
    const r = await crossCheck(job, { n: 3 }, { devices: devices() });
    expect(r.equal).toBe(false);
    expect(r.outputs[0]).toMatchObject({ output: 'v', differences: 1, first: [{ index: 1, values: [1, -1] }] });
    expect(() => registerJob({ ...job, name: 'vecMax' })).toThrow(/already exists/);
  });
});

describe('simt crosscheck', () => {
  const run = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const rc = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), tty: false });
    return { rc, out: out.join('\n'), err: err.join('\n') };
  };
  it('prints per output and exits 0 when all agree', async () => {
    const r = await run(['crosscheck', 'vecMax', '--size', '5000', '--seed', '3']);
    expect(r.rc).toBe(0);
    expect(r.out).toMatch(/partials\s+webgpu\s+\[exact\]: equal/);
    expect(r.out).toMatch(/all outputs agree/);
  });
  it('--json gives the report for machines', async () => {
    const r = await run(['crosscheck', 'countModules', '--size', '20000', '--json']);
    expect(r.rc).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ job: 'countModules', size: 20000, seed: 1, equal: true, reference: 'wasm', backends: ['wasm', 'webgpu'] });
    expect(j.outputs.map((o: { output: string }) => o.output).sort()).toEqual(['clusterId', 'count', 'moduleStart']);
  });
  it('usage errors exit 2', async () => {
    expect((await run(['crosscheck'])).rc).toBe(2);
    expect((await run(['crosscheck', 'nope'])).rc).toBe(2);
    expect((await run(['crosscheck', 'vecMax', '--backends', 'wasm'])).rc).toBe(2);
  });
});
