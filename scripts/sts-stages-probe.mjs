// STS sort at W workers, 1M digis by default, where its time goes: each launch's elapsedMs and the
// rest, then empty launches awaited. `node scripts/sts-stages-probe.mjs W channels n [hostSpinMicros]
// [spinMicros]`; CHUNKS and FUSE (1/0) in the environment set stsSort's chunks and fuseOffsets;
// WARM_MS=t sorts for t ms before the timed ones.
const { createDevice } = await import('../dist/src/device.js');
const { stsSort } = await import('../dist/src/jobs/sts/run.js');
const { stsDigisForBench } = await import('../dist/src/data/synthetic.js');
const K = await import('../dist/src/kernels/index.js');
const W = Number(process.argv[2] ?? 16), ch = Number(process.argv[3] ?? 1000), n = Number(process.argv[4] ?? 1e6);
const dev = await createDevice({ backend: 'wasm', workers: W, memoryBytes: 1 << 30, ...(process.argv[5] ? { hostSpinMicros: Number(process.argv[5]) } : {}), ...(process.argv[6] ? { spinMicros: Number(process.argv[6]) } : {}) });
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const words = stsDigisForBench(n, ch, 1);
const cw = new Uint32Array(n), tw = new Uint32Array(n);
for (let i = 0; i < n; i++) { cw[i] = words[2 * i]; tw[i] = words[2 * i + 1]; }
const chan = await dev.upload('u32', cw), time = await dev.upload('u32', tw);
// WARM_MS: sort for that long first (V8 optimises the kernels on background threads meanwhile).
for (const until = performance.now() + Number(process.env.WARM_MS ?? 0); performance.now() < until;) {
  (await stsSort(dev, { channel: chan, time }, { nChannels: ch, output: 'mapped' })).free();
}
const rows = [];
for (let r = 0; r < (n > 4e6 ? 14 : 60); r++) {
  const t0 = performance.now();
  const res = await stsSort(dev, { channel: chan, time }, { nChannels: ch, output: 'mapped', ...(process.env.CHUNKS ? { chunks: Number(process.env.CHUNKS) } : {}), ...(process.env.FUSE ? { fuseOffsets: process.env.FUSE === '1' } : {}) });
  const t = performance.now() - t0;
  if (r >= (n > 4e6 ? 4 : 10)) rows.push([t, res.launches.map((l) => [l.kernel, l.elapsedMs, l.grid.x, l.block.x])]);
  res.free();
}
const names = rows[0][1].map(([k, , g, b]) => `${k}<${g},${b}>`);
const per = names.map((_, i) => med(rows.map((r) => r[1][i][1])));
const rest = med(rows.map((r) => r[0] - r[1].reduce((s, x) => s + x[1], 0)));
console.log(`W=${W} hostSpin=${process.argv[5] ?? "default"} spin=${process.argv[6] ?? 200} n=${n} ch=${ch} chunks=${process.env.CHUNKS ?? '-'} fuse=${process.env.FUSE ?? '-'} columns mapped: total ${med(rows.map((r) => r[0])).toFixed(3)} ms = ${names.map((k, i) => `${k} ${per[i].toFixed(3)}`).join(' + ')} + outside launches ${rest.toFixed(3)}`);
const A = dev.alloc('u32', 16);
for (const [grid, block] of process.env.CHUNKS ? [] : [[1, 1], [W, 32], [4 * W, 256]]) {
  const t = [];
  for (let r = 0; r < 300; r++) { const t0 = performance.now(); await dev.launch(K.emptyKernel, { grid, block }, []); t.push((performance.now() - t0) * 1000); }
  console.log(`W=${W} emptyKernel<${grid},${block}> awaited: median ${med(t.slice(50)).toFixed(1)} µs`);
}
await dev.destroy(); process.exit(0);
