// The built-ins whose WGSL twins carry f64 (vecSum, the 8 PET kernels) against their generic
// kernels' generated WGSL, which computes f64 in software (src/compiler/wgslWide.ts): GPU time per
// kernel (timestamp queries) and wall time of the PET job and of vecSum, on a device created with
// `twins: MODE === 'twins'`. Run it once per mode, in processes of their own, alternating (one
// device per process: a second WebGPU device in a process slows the first's launches). Prints a
// digest of the outputs, so two runs can be checked for equal results. After `npm run build`:
//   node scripts/webgpu-wide-twins.mjs twins|generated [frames=1000000] [reps=7]
const { createDevice } = await import('../dist/src/device.js');
const { generatePetData } = await import('../dist/src/jobs/pet/generate.js');
const { runPet } = await import('../dist/src/jobs/pet/run.js');
const { vecSum } = await import('../dist/src/kernels/index.js');
const mode = process.argv[2] ?? 'twins';
if (mode !== 'twins' && mode !== 'generated') throw new Error(`mode must be twins or generated, got ${mode}`);
const nFrames = Number(process.argv[3] ?? 1e6), reps = Number(process.argv[4] ?? 7);
const dev = await createDevice({ backend: 'webgpu', memoryBytes: 2 ** 32 - 65536, webgpu: { gpuTiming: true, twins: mode === 'twins' } });
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const f = (x) => x.toFixed(4);
/** FNV-1a over the bytes of typed arrays: equal outputs give equal digests. */
const digest = (...arrays) => {
  let h = 0x811c9dc5;
  for (const a of arrays) { const b = new Uint8Array(a.buffer, a.byteOffset, a.byteLength); for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 16777619) >>> 0; }
  return h.toString(16);
};

const ds = generatePetData({ nFrames, seed: 1 });
const tables = { positionTable: ds.positionTable, energyTable: ds.energyTable };
const perKernel = new Map();
const walls = [], computes = [];
let petDigest = '';
for (let r = 0; r < reps + 1; r++) {
  const res = await runPet(dev, ds.frames, ds.geometry, tables);
  if (r === 0) continue;
  walls.push(res.timings.total);
  computes.push(res.timings.convert + res.timings.sort + res.timings.coincidences);
  const sums = new Map();
  for (const l of res.launches) sums.set(l.kernel, (sums.get(l.kernel) ?? 0) + (l.gpuTimeMs ?? NaN));
  for (const [k, v] of sums) { if (!perKernel.has(k)) perKernel.set(k, []); perKernel.get(k).push(v); }
  // The singles' order is the schedule's (atomicAdd per block): the sorted singles and the pairs are the result.
  petDigest = digest(res.sorted.crystal, res.sorted.energy, res.sorted.time, res.pairs.index0 ?? new Uint8Array(0));
}
console.log(`${mode}: PET ${nFrames} frames: wall ${f(med(walls))} ms [${f(Math.min(...walls))}–${f(Math.max(...walls))}], stages ${f(med(computes))} ms, outputs ${petDigest}`);
for (const [k, v] of [...perKernel].sort()) console.log(`${mode}:   ${k.padEnd(18)} GPU ${f(med(v))} ms per job [${f(Math.min(...v))}–${f(Math.max(...v))}]`);

for (const N of [1 << 20, 1 << 24]) {
  const grid = 1024, block = 256;
  const A = Float32Array.from({ length: N }, (_, i) => Math.sin(i) * 1000);
  const a = await dev.upload('f32', A), b = dev.alloc('f64', grid);
  const gpu = [], wall = [];
  for (let r = 0; r < reps * 3 + 2; r++) {
    const t0 = performance.now();
    const st = await dev.launch(vecSum, { grid, block, sharedBytes: 8 * block }, [a, b, N]);
    if (r >= 2) { gpu.push(st.gpuTimeMs ?? NaN); wall.push(performance.now() - t0); }
  }
  const B = await b.read();
  const total = B.reduce((s, x) => s + x, 0);
  console.log(`${mode}: vecSum N=${N} grid ${grid}×${block}: GPU ${f(med(gpu))} ms [${f(Math.min(...gpu))}–${f(Math.max(...gpu))}], wall ${f(med(wall))} ms, sum ${total}, partials ${digest(B)}`);
  a.free(); b.free();
}
await dev.destroy();
process.exit(0);
