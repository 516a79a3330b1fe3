// Which float min/max shapes the compiler makes branch-free (src/compiler/minmax.ts). Their
// results are checked against references on every backend in compiler-kernels.test.ts
// (floatMinMax, doubleMinMax); here: that the rewrite happens where it is exact, and only there.
import { describe, expect, it } from 'vitest';
import { compileKernels } from '../src/compiler/index.js';
import { withoutProvenCopies } from './helpers.js';

async function blockForm(body: string, params = 'a: f32[], s: f32, out: f32[]'): Promise<string> {
  let block = '';
  const source = `import { threadIdx, __shared__ } from "simt/kernel";\nexport function k(${params}): void {\n${body}\n}\n`;
  await compileKernels([{ path: `minmax-${Math.random().toString(36).slice(2)}.ts`, source }], { cacheDir: false, onGenerated: (g) => { block = g.block; } });
  return withoutProvenCopies(block.slice(block.indexOf('// kernel k')));
}

describe('branch-free float min/max', () => {
  it('rewrites if-assign and ternary shapes with strict comparisons', async () => {
    const b = await blockForm(`let m: f32 = s; let n: f32 = s; const x = a[threadIdx.x];
  if (x > m) m = x;
  if (a[threadIdx.x] < n) n = a[threadIdx.x];
  let p: f32 = x < s ? s : x;
  out[threadIdx.x] = m + n + p + (s > x ? x : s);`);
    expect(b.match(/__pmax<f32>/g)?.length).toBe(2);
    expect(b.match(/__pmin<f32>/g)?.length).toBe(2);
  });

  it('leaves non-strict comparisons (signed zeros differ), integers and global stores alone', async () => {
    const b = await blockForm(`let m: f32 = s; const x = a[threadIdx.x];
  if (x >= m) m = x;
  let i: i32 = 0; if (threadIdx.x > i) i = threadIdx.x;
  if (x > out[0]) out[0] = x;
  out[threadIdx.x + 1] = m + <f32>i;`);
    expect(b).not.toMatch(/__pm(ax|in)/);
  });

  it('keeps a guard and stores a __shared__ element unconditionally', async () => {
    const b = await blockForm(`const c = __shared__<f32>(64); const t = threadIdx.x; c[t] = a[t];
  if (t < 32 && c[t + 32] > c[t]) c[t] = c[t + 32];
  out[t] = c[t];`);
    expect(b).toMatch(/if \(t(__\d+)? < 32\) \{ __st<f32>\(.*__pmax<f32>/);
  });

  it('leaves expressions with side effects alone', async () => {
    const b = await blockForm(`let m: f32 = s; let j = 0;
  if (a[j++] > m) m = a[j++];
  out[0] = m;`);
    expect(b).not.toMatch(/__pm(ax|in)/);
  });
});
