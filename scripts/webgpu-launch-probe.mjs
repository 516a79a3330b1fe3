// What a launch costs the host on webgpu, against Dawn's own round trips (docs/webgpu.md,
// bench/RESULTS.md): bare Dawn dispatches awaited by onSubmittedWorkDone and by a mapped copy,
// then simt's awaited launches of the compiled vecMax (grid 4 × 256) and rounds of 300 in flight.
// After npm run build: node scripts/webgpu-launch-probe.mjs [bare|simt|all]   (N: awaited launches per round)
// Each side first runs WARM (default 3000) launches untimed: on an H200 host the awaited launch
// of a fresh process fell from 60–130 µs to its steady 42–50 µs over the first thousands, for
// Dawn's bare dispatches as for simt's (GPU and CPU clocks coming up). Then ROUNDS (default 5)
// rounds of N (default 400), a median each; `medianUs` is the median of the rounds' medians.
// `all` runs each in a process of its own: on an H200 a WebGPU device opened earlier in the
// process, even destroyed, more than doubled the awaited launch of a later one.
const mode = process.argv[2] ?? 'all';
if (mode === 'all') {
  const { execFileSync } = await import('node:child_process');
  const merged = {};
  for (const m of ['bare', 'simt']) {
    const text = execFileSync(process.execPath, [new URL(import.meta.url).pathname, m], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    process.stdout.write(text.split('\n').slice(0, -2).join('\n') + '\n');
    Object.assign(merged, JSON.parse(text.trim().split('\n').pop()));
  }
  console.log(JSON.stringify(merged));
  process.exit(0);
}
const { openWebGpu } = await import('../dist/src/webgpu/gpu.js');
const { createDevice } = await import('../dist/src/device.js');
const { compileKernelFiles } = await import('../dist/src/compiler/index.js');
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const p10 = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 10)]; };
const out = {};
const WARM = Number(process.env.WARM ?? 3000), ROUNDS = Number(process.env.ROUNDS ?? 5);
async function timeLoop(name, n, fn, launchesPerCall = 1) {
  for (let i = 0; i < Math.ceil(WARM / launchesPerCall); i++) await fn();
  const rounds = [], p10s = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = [];
    for (let i = 0; i < n; i++) { const t0 = performance.now(); await fn(); t.push((performance.now() - t0) * 1000); }
    rounds.push(+med(t).toFixed(1));
    p10s.push(p10(t));
  }
  out[name] = { medianUs: med(rounds), rounds, p10Us: +med(p10s).toFixed(1) };
  console.log(name, out[name]);
}
if (mode === 'bare') {
  const ctx = await openWebGpu({});
  const d = ctx.device;
  const GB = globalThis.GPUBufferUsage ?? { STORAGE: 0x80, COPY_SRC: 0x4, COPY_DST: 0x8, MAP_READ: 0x1, UNIFORM: 0x40 };
  const buf = d.createBuffer({ size: 4096, usage: GB.STORAGE | GB.COPY_SRC | GB.COPY_DST });
  const rb = d.createBuffer({ size: 16, usage: GB.MAP_READ | GB.COPY_DST });
  const mod = d.createShaderModule({ code: '@group(0) @binding(0) var<storage, read_write> a: array<f32>; @compute @workgroup_size(256) fn main(@builtin(global_invocation_id) g: vec3u) { a[g.x] = a[g.x] + 1.0; }' });
  const pipe = d.createComputePipeline({ layout: 'auto', compute: { module: mod, entryPoint: 'main' } });
  const bg = d.createBindGroup({ layout: pipe.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: buf } }] });
  const encode = (copy) => {
    const enc = d.createCommandEncoder(); const pass = enc.beginComputePass();
    pass.setPipeline(pipe); pass.setBindGroup(0, bg); pass.dispatchWorkgroups(4); pass.end();
    if (copy) enc.copyBufferToBuffer(buf, 0, rb, 0, 16);
    return enc.finish();
  };
  const dispatch = (copy) => d.queue.submit([encode(copy)]);
  await timeLoop('bare dispatch + onSubmittedWorkDone', Number(process.env.N ?? 400), async () => { dispatch(false); await d.queue.onSubmittedWorkDone(); });
  {
    const enc = [], sub = [], wait = [];
    for (let i = 0; i < Number(process.env.N ?? 400); i++) {
      const t0 = performance.now();
      const cb = encode(false); const t1 = performance.now();
      d.queue.submit([cb]); const t2 = performance.now();
      await d.queue.onSubmittedWorkDone(); const t3 = performance.now();
      enc.push((t1 - t0) * 1000); sub.push((t2 - t1) * 1000); wait.push((t3 - t2) * 1000);
    }
    const key = 'bare: encode, submit call, submit to done';
    out[key] = [+med(enc).toFixed(1), +med(sub).toFixed(1), +med(wait).toFixed(1)];
    console.log(key, out[key]);
  }
  await timeLoop('bare dispatch + copy + mapAsync', Number(process.env.N ?? 400), async () => { dispatch(true); await rb.mapAsync(1); rb.unmap(); });
  await timeLoop('bare 100 dispatches + one onSubmittedWorkDone (per 100)', 30, async () => { for (let i = 0; i < 100; i++) dispatch(false); await d.queue.onSubmittedWorkDone(); }, 100);
  await ctx.destroy();
}
if (mode === 'simt') {
  const dev = await createDevice({ backend: 'webgpu' });
  const m = await compileKernelFiles(['kernels/reduce/vecMax.ts']);
  await dev.load(m);
  const n = 1024, A = await dev.upload('f32', Float32Array.from({ length: n }, (_, i) => Math.sin(i))), B = dev.alloc('f32', 4);
  const k = m.kernels.vecMax;
  const launch = () => dev.launch(k, { grid: 4, block: 256, sharedBytes: 1024 }, [A, B, n]);
  await timeLoop('simt awaited launch', Number(process.env.N ?? 400), launch);
  // Where an awaited launch's time goes: launch() to its command encoder (simt's checks), to
  // Dawn's submit (the encoding, Dawn's calls among it), and the submit to the launch's promise
  // settling (the GPU's round trip through Dawn).
  const gpu = dev.context.device, queue = gpu.queue, submit = queue.submit.bind(queue), encoder = gpu.createCommandEncoder.bind(gpu);
  let submittedAt = 0, encoderAt = 0;
  queue.submit = (buffers) => { submittedAt = performance.now(); submit(buffers); };
  gpu.createCommandEncoder = (d) => { encoderAt = performance.now(); return encoder(d); };
  const toEncoder = [], toSubmit = [], afterSubmit = [];
  for (let i = 0; i < Number(process.env.N ?? 400); i++) {
    const t0 = performance.now(); await launch(); const t1 = performance.now();
    toEncoder.push((encoderAt - t0) * 1000); toSubmit.push((submittedAt - t0) * 1000); afterSubmit.push((t1 - submittedAt) * 1000);
  }
  queue.submit = submit;
  gpu.createCommandEncoder = encoder;
  const key = 'simt awaited: launch() to its encoder, to submit, submit to settled';
  out[key] = [+med(toEncoder).toFixed(1), +med(toSubmit).toFixed(1), +med(afterSubmit).toFixed(1)];
  console.log(key, out[key]);
  await timeLoop('simt 300 launches in flight (per 300)', 10, async () => { const ps = []; for (let i = 0; i < 300; i++) ps.push(launch()); await dev.synchronize(); await Promise.all(ps); }, 300);
  out['simt in flight per launch'] = +(out['simt 300 launches in flight (per 300)'].medianUs / 300).toFixed(1);
  console.log('simt in flight per launch', out['simt in flight per launch']);
  await dev.destroy();
}
console.log(JSON.stringify(out));
process.exit(0);
