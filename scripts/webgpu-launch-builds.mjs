// Launch costs of two builds of simt compared in alternating processes (bench/RESULTS.md): the
// built-in vecMax (grid 4 × 256, its generated WGSL) awaited, 400 launches a round after 100
// untimed, then 5 × 300 launches in flight; ROUNDS rounds (default 3), a median each.
// The built-in needs no compiler at run time, so an older build's dist/ runs as it is.
//   node scripts/webgpu-launch-builds.mjs BUILD_DIR LABEL      (BUILD_DIR: a package root with dist/ and build/)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
const [dir, label = dir] = process.argv.slice(2);
if (!dir) { console.error('usage: node scripts/webgpu-launch-builds.mjs BUILD_DIR [LABEL]'); process.exit(2); }
const root = pathToFileURL(resolve(dir)).href;
const { createDevice } = await import(`${root}/dist/src/device.js`);
const { vecMax } = await import(`${root}/dist/src/kernels/index.js`);
const dev = await createDevice({ backend: 'webgpu' });
const n = 1024, A = await dev.upload('f32', Float32Array.from({ length: n }, (_, i) => Math.sin(i))), B = dev.alloc('f32', 4);
const launch = () => dev.launch(vecMax, { grid: 4, block: 256, sharedBytes: 1024 }, [A, B, n]);
const med = (x) => { const s = [...x].sort((p, q) => p - q); return +s[s.length >> 1].toFixed(1); };
const out = { label, awaitedUs: [], inFlightUs: [], proven: (await launch()).proven };
for (let r = 0; r < Number(process.env.ROUNDS ?? 3); r++) {
  const t = [];
  for (let i = 0; i < 500; i++) { const t0 = performance.now(); await launch(); t.push((performance.now() - t0) * 1000); }
  out.awaitedUs.push(med(t.slice(100)));
  const t1 = performance.now();
  for (let j = 0; j < 5; j++) { const ps = []; for (let i = 0; i < 300; i++) ps.push(launch()); await Promise.all(ps); }
  out.inFlightUs.push(+((performance.now() - t1) * 1000 / 1500).toFixed(1));
}
console.log(JSON.stringify(out));
await dev.destroy();
process.exit(0);
