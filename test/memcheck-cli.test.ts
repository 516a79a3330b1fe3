// `simt memcheck --module … --job …` end to end, as a user runs it: a module built to a temp
// directory (or a kernel source compiled on the spot) and job files beside it, each command in
// its own process. compute-sanitizer's layout, the ERROR SUMMARY line, the exit status, --json.
// Needs `npm run build` (dist/, bin/).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileKernelFiles, writeModuleFiles } from '../src/compiler/index.js';
import { runCli } from './faults/child.js';

const SOURCE = `import { threadIdx, blockIdx, blockDim, __syncthreads, __shared__ } from "simt/kernel";

export function readPastEnd(input: i32[], out: i32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < out.length) out[i] = input[i + 1];
}

export function writePrev(out: i32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i - 1] = i;
}

export function halfShared(out: f32[]): void {
  const s = __shared__<f32>(64);
  if (threadIdx.x < 32) s[threadIdx.x] = 1.5;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

export function copy(input: f32[], out: f32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < out.length) out[i] = input[i];
}
`;

let dir: string;
let kernels: string;
let modulePath: string;
const lineOf = (code: string): string => {
  const lines = SOURCE.split('\n');
  const k = lines.findIndex((l) => l.includes(code));
  return `${kernels}:${k + 1}:${lines[k]!.indexOf(code) + 1}`;
};
const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'simt-memcheck-cli-'));
  kernels = join(dir, 'kernels.ts');
  writeFileSync(kernels, SOURCE);
  modulePath = await writeModuleFiles(await compileKernelFiles([kernels]), dir, 'kernels');
  writeFileSync(join(dir, 'planted.mjs'), `
export default (module) => ({
  name: 'planted', module,
  buffers: { input: ['i32', Array.from({ length: 64 }, (_, i) => i * 3)], out: ['i32', 64], prev: ['i32', 64], half: ['f32', 64] },
  launches: [
    { kernel: 'readPastEnd', grid: 2, block: 32, args: ['input', 'out'] },
    { kernel: 'writePrev', grid: 2, block: 32, args: ['prev'] },
    { kernel: 'halfShared', grid: 1, block: 64, args: ['half'] },
  ],
});
`);
  writeFileSync(join(dir, 'uninit.mjs'), `
export default (module) => ({
  name: 'uninit', module,
  buffers: { out: ['f32', 64] },
  async run(ctx) {
    const scratch = ctx.device.alloc('f32', 64);     // cudaMalloc without a memset
    ctx.launch('copy', { grid: 2, block: 32 }, [scratch, 'out']);
    scratch.free();
  },
});
`);
  writeFileSync(join(dir, 'clean.mjs'), `
export default (module) => ({
  name: 'clean', module,
  buffers: { input: ['f32', Array.from({ length: 64 }, (_, i) => i)], out: ['f32', 64] },
  launches: [{ kernel: 'copy', grid: 2, block: 32, args: ['input', 'out'] }],
});
`);
});
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

describe('simt memcheck --module … --job …', () => {
  it('prints every planted error in compute-sanitizer\'s layout, the ERROR SUMMARY last, exit 1', async () => {
    const r = await runCli(['memcheck', '--module', modulePath, '--job', join(dir, 'planted.mjs')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const out = r.stdout.trim().split('\n');
    expect(out[0]).toBe('planted: 3 error(s)');
    const block = (head: string): string[] => { const k = out.indexOf(head); expect(k, head).toBeGreaterThan(0); return out.slice(k, out.indexOf('=========', k) + 1); };
    const oob = block('========= Invalid __global__ read of size 4 bytes');
    expect(oob.slice(1, 3)).toEqual([`=========     at readPastEnd (${lineOf('input[i + 1]')})`, '=========     by thread (31,0,0) in block (1,0,0)']);
    expect(oob[3]).toMatch(/^=========     Address 0x[0-9a-f]+ is out of bounds of 'input' \(length 64, index 64\): 0 bytes after its end$/);
    const neg = block('========= Invalid __global__ write of size 4 bytes');
    expect(neg.slice(1, 3)).toEqual([`=========     at writePrev (${lineOf('out[i - 1]')})`, '=========     by thread (0,0,0) in block (0,0,0)']);
    expect(neg[3]).toMatch(/^=========     Address 0x[0-9a-f]+ is out of bounds of 'out' \(buffer 'prev'\) \(length 64, index -1\): 4 bytes before its start$/);
    const uninit = block('========= Uninitialized __shared__ memory read of size 4 bytes');
    expect(uninit[1]).toBe(`=========     at halfShared (${lineOf('s[threadIdx.x];')})`);
    expect(uninit[2]).toMatch(/^=========     by thread \((3[2-9]|[4-5]\d|6[0-3]),0,0\) in block \(0,0,0\)$/);
    expect(uninit[3]).toMatch(/^=========     Address 0x[0-9a-f]+ of __shared__ 's' \(index (3[2-9]|[4-5]\d|6[0-3])\) was not written by any thread of the block$/);
    expect(uninit[4]).toBe('=========     32 accesses at this site (the first is shown)');
    expect(out.at(-1)).toBe('========= ERROR SUMMARY: 3 errors');
  }, 60_000);

  it('a read of an allocation nobody wrote (initcheck); a kernel source as --module is compiled on the spot', async () => {
    const r = await runCli(['memcheck', '--module', kernels, '--job', join(dir, 'uninit.mjs')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain([
      '========= Uninitialized __global__ memory read of size 4 bytes',
      `=========     at copy (${lineOf('input[i];')})`,
      '=========     by thread (0,0,0) in block (0,0,0)',
    ].join('\n'));
    expect(r.stdout).toMatch(/^=========     Address 0x[0-9a-f]+ of 'input' \(index 0\) was never written$/m);
    expect(r.stdout).toContain('=========     64 accesses at this site (the first is shown)');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('========= ERROR SUMMARY: 1 error');
  }, 60_000);

  it('a clean job: no error, exit 0', async () => {
    const r = await runCli(['memcheck', '--module', modulePath, '--job', join(dir, 'clean.mjs')]);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('clean: 0 error(s)\n========= ERROR SUMMARY: 0 errors');
    expect(r.code).toBe(0);
  }, 60_000);

  it('--json: one document with the findings, field for field', async () => {
    const r = await runCli(['memcheck', '--module', modulePath, '--job', join(dir, 'planted.mjs'), '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { job: string; errors: number; ms: number; findings: Record<string, unknown>[] };
    expect(doc.job).toBe('planted');
    expect(doc.errors).toBe(3);
    expect(doc.findings).toHaveLength(3);
    expect(typeof doc.ms).toBe('number');
    expect(doc.findings[0]).toMatchObject({
      kind: 'out-of-bounds', kernel: 'readPastEnd', space: 'global', access: 'read', array: 'input', buffer: 'input',
      index: 64, length: 64, size: 4, block: [1, 0, 0], thread: [31, 0, 0], location: lineOf('input[i + 1]'), count: 1, severity: 'error',
    });
    expect(doc.findings.map((f) => f.kind)).toEqual(['out-of-bounds', 'out-of-bounds', 'uninitialized']);
  }, 60_000);

  it('--module without --job is a usage error; a missing job file a one-line typed error', async () => {
    const a = await runCli(['memcheck', '--module', kernels]);
    expect(a.code).toBe(2);
    expect(a.stderr.trim()).toMatch(/^simt memcheck: --module needs --job <job\.js>/);
    const b = await runCli(['memcheck', '--module', kernels, '--job', join(dir, 'none.mjs')]);
    expect(b.code).toBe(1);
    expect(b.stderr.trim()).toMatch(new RegExp(`^simt memcheck: JobFileError: ${esc(join(dir, 'none.mjs'))}: no such file$`));
  }, 60_000);
});
