// simt's pool against its floor (scripts/pool-fanout-floor.mjs; bench/RESULTS.md, issue #16): the
// built-in `spin` kernel (one thread a block, 30,000 dependent multiply-adds, about 48 µs on the
// 16-core Xeon) launched awaited at grids 1 to 32 on W workers; medians of 300 launches after 100,
// with the launch's own elapsedMs; MEM sets the device's memoryBytes (default 64 MiB). After
// `npm run build`:
//   [taskset -c 0-(W-1)] node scripts/pool-spin-probe.mjs W [BUILD_DIR]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
const W = Number(process.argv[2] ?? 16);
const root = pathToFileURL(resolve(process.argv[3] ?? new URL('..', import.meta.url).pathname)).href;
const { createDevice } = await import(`${root}/dist/src/device.js`);
const B = await import(`${root}/dist/src/kernels/index.js`);
const dev = await createDevice({ backend: 'wasm', workers: W, memoryBytes: Number(process.env.MEM ?? 2 ** 26) });
const out = dev.alloc('i32', 64);
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1].toFixed(1); };
const res = [];
for (const g of [1, 2, 4, 8, 15, 16, 32]) {
  const t = [], inside = [];
  for (let r = 0; r < 400; r++) {
    const t0 = performance.now();
    const st = await dev.launch(B.spin, { grid: g, block: 1 }, [30000, out]);
    t.push((performance.now() - t0) * 1000); inside.push(st.elapsedMs * 1000);
  }
  res.push(`grid ${g}: ${med(t.slice(100))} (elapsedMs ${med(inside.slice(100))})`);
}
console.log(`W=${W} spin 30000, µs per launch:`, res.join('; '));
await dev.destroy();
process.exit(0);
