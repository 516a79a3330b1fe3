// STS sort at W workers (`node scripts/sts-sort-probe.mjs W [n:channels,...]`, after `npm run build`;
// pin it with taskset): the whole sort on device words (the `chunked` bench record) and on device
// columns with mapped output, medians of the runs after warm-up, with their range. WARM_MS=t sorts
// for t ms first (V8's compiler threads done before the timed sorts).
const { createDevice } = await import('../dist/src/device.js');
const { stsSort } = await import('../dist/src/jobs/sts/run.js');
const { stsDigisForBench } = await import('../dist/src/data/synthetic.js');
const W = Number(process.argv[2] ?? 2);
const sizes = (process.argv[3] ?? '1e6:1000,1e6:100000,32e6:100000').split(',').map((s) => s.split(':').map(Number));
const dev = await createDevice({ backend: 'wasm', workers: W, memoryBytes: 3 * 2 ** 30 });
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
for (const [n, ch] of sizes) {
  const words = stsDigisForBench(n, ch, 1);
  const reps = n > 4e6 ? 12 : 40, warm = n > 4e6 ? 2 : 8;
  const cw = new Uint32Array(n), tw = new Uint32Array(n);
  for (let i = 0; i < n; i++) { cw[i] = words[2 * i]; tw[i] = words[2 * i + 1]; }
  const input = await dev.upload('u32', words);
  const chan = await dev.upload('u32', cw), time = await dev.upload('u32', tw);
  const out = { words: [], columns: [] };
  // WARM_MS: sort for that long first, so that V8 has compiled the kernels' hot code in its top
  // tier and its compiler threads are idle again before the sorts that are timed.
  for (const until = performance.now() + Number(process.env.WARM_MS ?? 0); performance.now() < until;) {
    (await stsSort(dev, { channel: chan, time }, { nChannels: ch, output: 'mapped' })).free();
    (await stsSort(dev, input, { nChannels: ch, output: 'device' })).free();
  }
  for (let r = 0; r < reps; r++) {
    for (const [form, inp, output] of [['words', input, 'device'], ['columns', { channel: chan, time }, 'mapped']]) {
      const t0 = performance.now();
      const res = await stsSort(dev, inp, { nChannels: ch, output });
      const t = performance.now() - t0;
      res.free();
      if (r >= warm) out[form].push(t);
    }
  }
  const q = (a) => `${med(a).toFixed(3)} [${Math.min(...a).toFixed(3)}–${Math.max(...a).toFixed(3)}]`;
  console.log(`W=${W} n=${n} ch=${ch}: words ${q(out.words)} ms, columns mapped ${q(out.columns)} ms`);
  input.free(); chan.free(); time.free();
}
await dev.destroy(); process.exit(0);
