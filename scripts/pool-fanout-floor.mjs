// The floor under a pool launch (bench/RESULTS.md, issue #16): W worker_threads spin on a shared
// word as simt's workers do (then sleep in Atomics.wait); the host bumps it and waits (blocking
// in Atomics.wait, or spinning), each worker notes when it saw the bump, busy-works WORK µs and
// counts itself done, and the last one wakes the host. What Node and the OS cost a launch of W
// blocks, with none of simt's own work:
//   node scripts/pool-fanout-floor.mjs W WORK_US block|spin [WORKER_SPIN_US]
import { Worker, isMainThread, workerData } from 'node:worker_threads';
const GEN = 0, DONE = 1, STARTS = 16;
if (isMainThread) {
  const W = Number(process.argv[2] ?? 16), work = Number(process.argv[3] ?? 47), hostMode = process.argv[4] ?? 'block', wspin = Number(process.argv[5] ?? 200);
  const sab = new SharedArrayBuffer(4 * 1024); const i32 = new Int32Array(sab); const f64 = new Float64Array(sab, 512, 64); i32[3] = W;
  const ws = [];
  for (let w = 0; w < W; w++) ws.push(new Worker(new URL(import.meta.url), { workerData: { sab, w, work, wspin } }));
  await new Promise((r) => setTimeout(r, 300));
  const tot = [], firstStart = [], lastStart = [];
  for (let r = 0; r < 2000; r++) {
    Atomics.store(i32, DONE, 0);
    const t0 = performance.timeOrigin + performance.now();
    Atomics.add(i32, GEN, 1); Atomics.notify(i32, GEN);
    if (hostMode === 'spin') { while (Atomics.load(i32, DONE) < W) {} }
    else { for (;;) { const d = Atomics.load(i32, DONE); if (d >= W) break; Atomics.wait(i32, DONE, d, 100); } }
    const t1 = performance.timeOrigin + performance.now();
    if (r >= 200) {
      tot.push((t1 - t0) * 1000);
      let lo = Infinity, hi = 0; for (let w = 0; w < W; w++) { const s = (f64[w] - t0) * 1000; lo = Math.min(lo, s); hi = Math.max(hi, s); }
      firstStart.push(lo); lastStart.push(hi);
    }
    await new Promise((res) => setImmediate(res));
  }
  const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1].toFixed(1); };
  console.log(`W=${W} work=${work}µs host=${hostMode} wspin=${wspin}µs: launch ${med(tot)} µs; first worker start +${med(firstStart)}, last +${med(lastStart)} µs`);
  Atomics.store(i32, 2, 1); Atomics.add(i32, GEN, 1); Atomics.notify(i32, GEN);
  process.exit(0);
} else {
  const { sab, w, work, wspin } = workerData; const i32 = new Int32Array(sab); const f64 = new Float64Array(sab, 512, 64);
  let seen = Atomics.load(i32, GEN);
  for (;;) {
    const until = performance.now() + wspin / 1000; let spins = 0, g;
    for (;;) { g = Atomics.load(i32, GEN); if (g !== seen) break; if ((++spins & 255) === 0 && performance.now() > until) Atomics.wait(i32, GEN, g, 50); }
    seen = g;
    if (Atomics.load(i32, 2)) process.exit(0);
    f64[w] = performance.timeOrigin + performance.now();
    const end = performance.now() + work / 1000; while (performance.now() < end) {}
    if (Atomics.add(i32, DONE, 1) + 1 === i32[3]) Atomics.notify(i32, DONE);
  }
}
