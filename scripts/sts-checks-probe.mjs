// The STS count and fused SoA scatter compiled from kernels/sts/countingSort.ts as simt compiles it
// (checked, with the proven copy) and unchecked, launched with the same arguments on 2 workers:
// what the checks the range proof leaves cost. `node scripts/sts-checks-probe.mjs [n] [channels]`.
import { readFileSync } from 'node:fs';
const { createDevice } = await import('../dist/src/device.js');
const { compileKernels } = await import('../dist/src/compiler/index.js');
const { stsDigisForBench } = await import('../dist/src/data/synthetic.js');
const src = readFileSync(new URL('../kernels/sts/countingSort.ts', import.meta.url), 'utf8');
const checked = await compileKernels([{ path: 'kernels/sts/countingSort.ts', source: src }]);
const unchecked = await compileKernels([{ path: 'kernels/sts/countingSort.ts', source: src }], { unchecked: true });
const dev = await createDevice({ backend: 'wasm', workers: 2, memoryBytes: 1 << 30, modules: [checked, unchecked] });
const n = Number(process.argv[2] ?? 1e6), ch = Number(process.argv[3] ?? 1000), P = 8;
const words = stsDigisForBench(n, ch, 1);
const cw = new Uint32Array(n), tw = new Uint32Array(n);
for (let i = 0; i < n; i++) { cw[i] = words[2 * i]; tw[i] = words[2 * i + 1]; }
const chan = await dev.upload('u32', cw), time = await dev.upload('u32', tw);
const counts = dev.alloc('u32', P * ch), colOff = dev.alloc('u32', P * ch), bad = dev.alloc('u32', 1);
const oc = dev.alloc('u32', n), ot = dev.alloc('u32', n);
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
for (let round = 0; round < 2; round++) for (const [name, mod] of [['checked', checked], ['unchecked', unchecked]]) {
  const tc = [], ts = [];
  for (let r = 0; r < 40; r++) {
    await bad.fill(0xffffffff);
    let t0 = performance.now();
    await dev.launch(mod.kernels.stsCountChunksSoA, { grid: P, block: 1 }, [chan, counts, n, ch, bad]);
    tc.push(performance.now() - t0);
    t0 = performance.now();
    await dev.launch(mod.kernels.stsScatterChunksFusedSoA, { grid: P, block: 1 }, [chan, time, oc, ot, counts, colOff, n, ch, n]);
    ts.push(performance.now() - t0);
  }
  console.log(`${name} n=${n} ch=${ch}: count ${med(tc.slice(8)).toFixed(3)} ms, fused scatter ${med(ts.slice(8)).toFixed(3)} ms`);
}
await dev.destroy(); process.exit(0);
