// How long V8 takes to bring the STS sort to its steady speed (bench/RESULTS.md, issue #16):
// stsSort on device columns with mapped output, 1M digis, sorted back to back from the device's
// creation; medians of each 40 sorts, with the seconds elapsed. After `npm run build`:
//   [taskset -c 0-(W-1)] node scripts/sts-warmup-curve.mjs W [channels=1000] [sorts=1200]
const { createDevice } = await import('../dist/src/device.js');
const { stsSort } = await import('../dist/src/jobs/sts/run.js');
const { stsDigisForBench } = await import('../dist/src/data/synthetic.js');
const W = Number(process.argv[2] ?? 2), ch = Number(process.argv[3] ?? 1000), sorts = Number(process.argv[4] ?? 1200), n = 1e6;
const created = performance.now();
const dev = await createDevice({ backend: 'wasm', workers: W, memoryBytes: 1 << 28 });
const createMs = performance.now() - created;
const words = stsDigisForBench(n, ch, 1);
const cw = new Uint32Array(n), tw = new Uint32Array(n);
for (let i = 0; i < n; i++) { cw[i] = words[2 * i]; tw[i] = words[2 * i + 1]; }
const chan = await dev.upload('u32', cw), time = await dev.upload('u32', tw);
const start = performance.now(), points = [];
let batch = [];
for (let r = 0; r < sorts; r++) {
  const t0 = performance.now();
  (await stsSort(dev, { channel: chan, time }, { nChannels: ch, output: 'mapped' })).free();
  batch.push(performance.now() - t0);
  if (batch.length === 40) {
    batch.sort((a, b) => a - b);
    points.push(`${((performance.now() - start) / 1000).toFixed(1)} s: ${batch[20].toFixed(2)}`);
    batch = [];
  }
}
console.log(`W=${W} n=${n} ch=${ch}, device created in ${createMs.toFixed(0)} ms; ms per sort (median of 40) by time since the device was created: ${points.join(', ')}`);
await dev.destroy(); process.exit(0);
