// Warp shuffles and votes on webgpu against wasm, launch by launch, in whatever form the webgpu
// device picks (`device.warpOps`: subgroup builtins where its subgroups are CUDA's warps, else
// workgroup memory). For a real GPU, where the subgroup form runs; the test suite covers the
// workgroup-memory form on SwiftShader. Needs `npm run build` (dist/). Prints one JSON line per
// case and a summary; exits 1 when any case differs.
//
//   node scripts/webgpu-warp-check.mjs [--subgroups false]
import { createDevice } from '../dist/src/device.js';
import { compileKernelFiles } from '../dist/src/compiler/index.js';

const subgroups = !process.argv.includes('false');
const lang = await compileKernelFiles(['test/kernels/language.ts']);
const ex = await compileKernelFiles(['examples/kernels/shuffleSum.ts']);
const wasm = await createDevice({ backend: 'wasm', workers: 2, memoryBytes: 256 << 20, modules: [lang, ex] });
const gpu = await createDevice({ backend: 'webgpu', memoryBytes: 256 << 20, modules: [lang, ex], webgpu: { subgroups } });
console.log(JSON.stringify({ device: gpu.adapterInfo?.description || gpu.adapterInfo?.vendor, warpOps: gpu.warpOps, why: gpu.warpOpsReason }));

let seed = 1;
const ints = (n, lo = -50, hi = 50) => Int32Array.from({ length: n }, () => { seed = (seed * 1103515245 + 12345) >>> 0; return lo + (seed >>> 8) % (hi - lo + 1); });

/** One launch on both devices; every array argument compared after it. */
async function same(label, mod, kernel, grid, block, args) {
  const outs = [];
  for (const dev of [wasm, gpu]) {
    const values = await Promise.all(args.map((a) => (typeof a === 'number' ? a : dev.upload(a.dtype, a.data))));
    await dev.launch(mod.kernels[kernel], { grid, block }, values);
    const got = [];
    for (const v of values) if (typeof v !== 'number') { got.push(Array.from(await v.read())); v.free(); }
    outs.push(got);
  }
  const diff = outs[0].findIndex((w, k) => w.some((x, i) => !Object.is(x, outs[1][k][i])));
  console.log(JSON.stringify({ case: label, equal: diff < 0, ...(diff >= 0 ? { array: diff } : {}) }));
  return diff < 0;
}

let ok = true;
for (const block of [80, 256, 1024].filter((b) => b <= gpu.maxThreadsPerBlock)) {
  const grid = 3, n = grid * block;
  for (const [delta, width] of [[3, 32], [1, 8], [5, 16], [16, 32], [1, 32]]) {
    for (let op = 0; op < 4; op++) {
      ok = await same(`shuffles op ${op} delta ${delta} width ${width} block ${block}`, lang, 'shuffles', grid, block,
        [{ dtype: 'i32', data: ints(n) }, { dtype: 'i32', data: new Int32Array(n) }, op, delta, width]) && ok;
    }
  }
  for (const [op, delta] of [[1, 1], [1, 31], [1, 16], [2, 1], [2, 3], [2, 16], [2, -1], [3, 1], [3, 16], [3, 21]]) {
    ok = await same(`warpShuffles op ${op} delta ${delta} block ${block}`, lang, 'warpShuffles', grid, block,
      [{ dtype: 'i32', data: ints(n) }, { dtype: 'i32', data: new Int32Array(n) }, op, delta]) && ok;
  }
  for (const mask of [0xffffffff, 0x0f0f00ff, 0x80000001]) {
    ok = await same(`votes mask ${mask.toString(16)} block ${block}`, lang, 'votes', grid, block,
      [{ dtype: 'i32', data: ints(n) }, { dtype: 'u32', data: new Uint32Array(4 * n) }, mask]) && ok;
  }
  if (block % 32 === 0) {
    for (const k of ['deviceBarriers', 'warpUniformIf']) {
      ok = await same(`${k} block ${block}`, lang, k, grid, block, [{ dtype: 'i32', data: ints(n - 7) }, { dtype: 'i32', data: new Int32Array(n) }, n - 7]) && ok;
    }
  }
}
// A condition around a warp operation that differs inside a warp: the same KernelError on both.
{
  const messages = [];
  for (const dev of [wasm, gpu]) {
    const o = dev.alloc('i32', 64);
    messages.push(await dev.launch(lang.kernels.warpDivergentIf, { grid: 1, block: 64 }, [o]).then(() => 'no trap', (e) => e.message));
    o.free();
  }
  const equal = messages[0] === messages[1] && /divergent warp operation/.test(messages[0]);
  console.log(JSON.stringify({ case: 'warpDivergentIf traps', equal, ...(equal ? {} : { messages }) }));
  ok = ok && equal;
}
// shuffleSum: integer-valued floats, so the sum is exact in any order.
{
  const n = 1 << 20;
  const data = Float32Array.from(ints(n, -8, 8));
  const expected = data.reduce((s, x) => s + x, 0);
  const A = await gpu.upload('f32', data);
  const out = gpu.alloc('f32', 1);
  await gpu.launch(ex.kernels.shuffleSum, { grid: 1024, block: 256 }, [A, out, n]);
  const got = (await out.read())[0];
  console.log(JSON.stringify({ case: `shuffleSum ${n}`, equal: got === expected, got, expected }));
  ok = ok && got === expected;
  A.free(); out.free();
}
console.log(JSON.stringify({ summary: ok ? 'all equal' : 'DIFFERENCES', warpOps: gpu.warpOps }));
await gpu.destroy();
await wasm.destroy();
process.exit(ok ? 0 : 1);
