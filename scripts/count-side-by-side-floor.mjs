// Does a wasm loop slow down when 16 workers run it side by side (bench/RESULTS.md, issue #16)?
// The STS count (`hist[channel[i]]++` over a chunk of 62,500 of simt's 1M digis, 1k channels)
// written directly in wasm, without simt: W worker_threads wait on a shared word as simt's workers
// do; the host bumps it; each worker zeroes its count row, counts its chunk, and notes the loop's
// own time. Medians of 400 launches after 100, µs:
//   node scripts/count-side-by-side-floor.mjs W shared|private [pages=256]
// shared: one shared memory, as simt's pool has (the host writes the column once); private: each
// worker its own unshared memory holding a copy of its chunk (the memory V8 gives a single
// thread). pages: the shared memory's maximum in 64 KiB pages (simt's default device: 16384);
// COMMIT=1 makes it the initial size too, as simt's device does.
import { Worker, isMainThread, workerData } from 'node:worker_threads';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const n = 1_000_000, K = 1000, ROW = 1024, chunks = 16, chunk = n / chunks;
const CH = 0, HIST = 4 * n;            // byte offsets: the channel column, then 16 count rows of ROW cells
const pages = Math.ceil((HIST + 4 * ROW * chunks) / 65536) + 1;

/**
 * The module, built with Binaryen and written beside this script (`--emit` only writes it); where
 * Binaryen is missing (the GPU machine), the file written by the last build is read instead.
 */
async function moduleBytes(shared) {
  const file = fileURLToPath(new URL(`./count-side-by-side-floor.${shared ? 'shared' : 'private'}.wasm`, import.meta.url));
  let binaryen;
  try {
    binaryen = (await import('binaryen')).default;
  } catch {
    if (!existsSync(file)) throw new Error(`no Binaryen here, and no ${file} (run \`node scripts/count-side-by-side-floor.mjs --emit\` where Binaryen is)`);
    return readFileSync(file);
  }
  const wat = `(module
   (import "env" "mem" (memory ${pages} 65536 ${shared ? 'shared' : ''}))
   (func (export "count") (param $ch i32) (param $hist i32) (param $b i32) (param $e i32) (param $K i32) (local $c i32) (local $p i32)
    (local.set $p (local.get $hist))
    (block $z (loop $zl (br_if $z (i32.ge_u (local.get $p) (i32.add (local.get $hist) (i32.shl (local.get $K) (i32.const 2)))))
      (i32.store (local.get $p) (i32.const 0)) (local.set $p (i32.add (local.get $p) (i32.const 4))) (br $zl)))
    (block $out (loop $l
      (br_if $out (i32.ge_s (local.get $b) (local.get $e)))
      (local.set $c (i32.load (i32.add (local.get $ch) (i32.shl (local.get $b) (i32.const 2)))))
      (if (i32.lt_u (local.get $c) (local.get $K)) (then
        (local.set $p (i32.add (local.get $hist) (i32.shl (local.get $c) (i32.const 2))))
        (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))))
      (local.set $b (i32.add (local.get $b) (i32.const 1)))
      (br $l)))))`;
  const mod = binaryen.parseText(wat);
  mod.setFeatures(binaryen.Features.MVP | binaryen.Features.Atomics);
  if (!mod.validate()) throw new Error('invalid module');
  const bytes = mod.emitBinary();
  writeFileSync(file, bytes);
  return bytes;
}

const GEN = 0, DONE = 1, STOP = 2;
if (isMainThread) {
  const W = Number(process.argv[2] ?? 16), mode = process.argv[3] ?? 'shared', maxPages = Number(process.argv[4] ?? 256);
  if (process.argv[2] === '--emit') { await moduleBytes(true); await moduleBytes(false); process.exit(0); }
  const shared = mode === 'shared';
  const bytes = await moduleBytes(shared);
  const { stsDigisForBench } = await import('../dist/src/data/synthetic.js');
  const words = stsDigisForBench(n, K, 1);
  const column = new Uint32Array(n); for (let i = 0; i < n; i++) column[i] = words[2 * i];
  const expected = new Uint32Array(K); for (let i = 0; i < chunk; i++) expected[column[i]]++;
  const mem = shared ? new WebAssembly.Memory({ initial: process.env.COMMIT ? Math.max(pages, maxPages) : pages, maximum: Math.max(pages, maxPages), shared: true }) : null;
  if (mem) new Uint32Array(mem.buffer).set(column, CH / 4);
  const sab = new SharedArrayBuffer(4096); const i32 = new Int32Array(sab); const f64 = new Float64Array(sab, 512, 64);
  const ws = [];
  for (let w = 0; w < W; w++) {
    const mine = shared ? null : column.slice(w * chunk, (w + 1) * chunk);
    ws.push(new Worker(new URL(import.meta.url), { workerData: { sab, w, W, mem, bytes, mine } }));
  }
  await new Promise((r) => setTimeout(r, 500));
  const launch = [], loopMed = [], loopMax = [];
  for (let r = 0; r < 500; r++) {
    Atomics.store(i32, DONE, 0);
    const t0 = performance.now();
    Atomics.add(i32, GEN, 1); Atomics.notify(i32, GEN);
    for (;;) { const d = Atomics.load(i32, DONE); if (d >= W) break; Atomics.wait(i32, DONE, d, 100); }
    const t1 = performance.now();
    if (r >= 100) {
      launch.push((t1 - t0) * 1000);
      const loops = Array.from({ length: W }, (_, w) => f64[w] * 1000).sort((a, b) => a - b);
      loopMed.push(loops[loops.length >> 1]); loopMax.push(loops[loops.length - 1]);
    }
    await new Promise((res) => setImmediate(res));
  }
  if (mem) {
    const h = new Uint32Array(mem.buffer, HIST, K);
    for (let c = 0; c < K; c++) if (h[c] !== expected[c]) throw new Error(`worker 0 counted ${h[c]} digis of channel ${c}, not ${expected[c]}`);
  }
  const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1].toFixed(1); };
  console.log(`W=${W} ${mode} pages<=${shared ? Math.max(pages, maxPages) : '-'}: launch ${med(launch)} µs; a worker's loop ${med(loopMed)} µs (slowest worker ${med(loopMax)})`);
  Atomics.store(i32, STOP, 1); Atomics.add(i32, GEN, 1); Atomics.notify(i32, GEN);
  process.exit(0);
} else {
  const { sab, w, W, mem, bytes, mine } = workerData;
  const i32 = new Int32Array(sab); const f64 = new Float64Array(sab, 512, 64);
  const memory = mem ?? new WebAssembly.Memory({ initial: pages, maximum: pages });
  if (mine) new Uint32Array(memory.buffer).set(mine, (CH + 4 * w * chunk) / 4);
  const { instance } = await WebAssembly.instantiate(bytes, { env: { mem: memory } });
  const count = instance.exports.count;
  let seen = Atomics.load(i32, GEN);
  for (;;) {
    const until = performance.now() + 0.2; let spins = 0, g;
    for (;;) { g = Atomics.load(i32, GEN); if (g !== seen) break; if ((++spins & 255) === 0 && performance.now() > until) Atomics.wait(i32, GEN, g, 50); }
    seen = g;
    if (Atomics.load(i32, STOP)) process.exit(0);
    const t0 = performance.now();
    count(CH, HIST + 4 * ROW * w, w * chunk, (w + 1) * chunk, K);
    f64[w] = performance.now() - t0;
    if (Atomics.add(i32, DONE, 1) + 1 === W) Atomics.notify(i32, DONE);
  }
}
