// Variants of kernels/sts/countingSort.ts side by side: each file given is compiled as simt
// compiles a kernel source (`file:unchecked` without bounds checks: what the checks cost), and its
// stsCountChunksSoA and stsScatterChunksFusedSoA launched with the same arguments, alternating, on
// one wasm device; each launch's elapsedMs (ELAPSED=1) or wall time, medians, and whether the
// scattered times equal the first file's. After `npm run build`:
//   [W=2] [P=8] [ELAPSED=1] [SHIPPED=1: simt's built module too] node scripts/sts-variants-probe.mjs n channels kernels/sts/countingSort.ts variant.ts …
import { readFileSync } from 'node:fs';
const { createDevice } = await import('../dist/src/device.js');
const { compileKernels } = await import('../dist/src/compiler/index.js');
const { stsDigisForBench } = await import('../dist/src/data/synthetic.js');
const n = Number(process.argv[2]), ch = Number(process.argv[3]), files = process.argv.slice(4), P = Number(process.env.P ?? 8);
const mods = [];
for (const f of files) mods.push(await compileKernels([{ path: 'kernels/sts/countingSort.ts', source: readFileSync(f.replace(/:unchecked$/, ''), 'utf8') }], { unchecked: f.endsWith(':unchecked') }));
const dev = await createDevice({ backend: 'wasm', workers: Number(process.env.W ?? 2), memoryBytes: Number(process.env.MEM ?? 2 ** 31), modules: mods });
const { shippedKernels } = await import('../dist/src/shippedModule.js');
if (process.env.SHIPPED) { mods.push({ kernels: await shippedKernels(dev) }); files.push('shipped'); }
const words = stsDigisForBench(n, ch, 1);
const cw = new Uint32Array(n), tw = new Uint32Array(n);
for (let i = 0; i < n; i++) { cw[i] = words[2 * i]; tw[i] = words[2 * i + 1]; }
const chan = await dev.upload('u32', cw), time = await dev.upload('u32', tw);
const counts = dev.alloc('u32', P * ch), colOff = dev.alloc('u32', P * ch), bad = dev.alloc('u32', 1);
const oc = dev.alloc('u32', n), ot = dev.alloc('u32', n);
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const R = n > 4e6 ? 12 : 40;
let ref;
for (let round = 0; round < 3; round++) for (let m = 0; m < mods.length; m++) {
  const mod = mods[m]; const tc = [], ts = [];
  for (let r = 0; r < R; r++) {
    await bad.fill(0xffffffff);
    let t0 = performance.now();
    await dev.launch(mod.kernels.stsCountChunksSoA, { grid: P, block: 1 }, [chan, counts, n, ch, bad]);
    tc.push(performance.now() - t0);
    t0 = performance.now();
    const st = await dev.launch(mod.kernels.stsScatterChunksFusedSoA, { grid: P, block: 1 }, [chan, time, oc, ot, counts, colOff, n, ch, n]);
    ts.push(process.env.ELAPSED ? st.elapsedMs : performance.now() - t0);
  }
  const out = await ot.read(0, n); let h = 0; for (let i = 0; i < n; i += 7) h = (h * 31 + out[i]) >>> 0;
  if (ref === undefined) ref = h; 
  console.log(`${files[m]} n=${n} ch=${ch}: count ${med(tc.slice(4)).toFixed(3)} ms, fused scatter ${med(ts.slice(4)).toFixed(3)} ms ${h === ref ? 'same' : 'DIFFERENT'}`);
}
await dev.destroy(); process.exit(0);
