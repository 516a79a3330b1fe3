// The CMS pixel store kernels on webgpu: their WGSL twins against the generic kernels run on copies
// of the store's columns (`storeColumns`), alternating on one device and the same events, with the
// GPU time of each pass and of the column copies the generic form adds. The figures that keep the
// twins (bench/RESULTS.md). Usage, after `npm run build`:
//   node scripts/webgpu-pixel-twins.mjs [events=job,heavy40,heavy150] [reps=9]
// `job` is the pixel job's event (1,800 modules); `heavyK` has K clusters in each of 1,856 modules.
const { createDevice } = await import('../dist/src/device.js');
const { defineKernel } = await import('../dist/src/kernel.js');
const { pixelJobInputs } = await import('../dist/src/crosscheck/index.js');
const { generatePixelEvent } = await import('../dist/src/jobs/pixel/generate.js');
const { uploadPixelStore } = await import('../dist/src/jobs/pixel/run.js');
const K = await import('../dist/src/kernels/pixel.js');
const { gridStrideShape } = await import('../dist/src/ops/launchShape.js');
const events = (process.argv[2] ?? 'job,heavy40,heavy150').split(',');
const reps = Number(process.argv[3] ?? 9);
const dev = await createDevice({ backend: 'webgpu', memoryBytes: 2 ** 31, webgpu: { gpuTiming: true } });
const cols = (k) => defineKernel(k.name + 'Columns', k.spec, { requires: k.requires, storeColumns: k.storeColumns });
const V = {
  twin: [K.pixelCountModules, K.pixelFindClus, K.pixelClusterChargeCut],
  columns: [cols(K.pixelCountModules), cols(K.pixelFindClus), cols(K.pixelClusterChargeCut)],
};
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const f = (x) => x.toFixed(4);
for (const ev of events) {
  const inputs = ev === 'job' ? pixelJobInputs(1 << 20, 7) : generatePixelEvent({ seed: 7, nModules: 1856, activeModules: 1856, clustersPerModule: Number(ev.slice(5) || 40), noisyPixels: 200 });
  const store = await uploadPixelStore(dev, inputs);
  const pristine = await store.bytes.read();
  const stride = store.layout.stride;
  const n = store.n;
  const nMax = 47999, block = 256;
  const res = { twin: { wall: [], gpu: [[], [], []] }, columns: { wall: [], gpu: [[], [], []] } };
  const last = {};
  for (let r = 0; r < reps + 1; r++) {
    for (const v of r % 2 ? ['columns', 'twin'] : ['twin', 'columns']) {
      const [cm, fc, cc] = V[v];
      await store.bytes.upload(pristine);
      const moduleStart = dev.alloc('u32', nMax + 2), nCl = dev.alloc('u32', 48000);
      await dev.synchronize();
      const t0 = performance.now();
      const l = [await dev.launch(cm, { ...gridStrideShape(dev, n) }, [store.bytes, stride, moduleStart, n, nMax])];
      const nModules = (await moduleStart.read(0, 1))[0];
      const grid = Math.min(nModules, nMax + 1);
      const moduleId = dev.alloc('u32', Math.max(1, grid));
      if (grid > 0) {
        l.push(await dev.launch(fc, { grid, block, sharedBytes: K.FIND_CLUS_SHARED_BYTES }, [store.bytes, stride, moduleStart, nCl, moduleId, n]));
        l.push(await dev.launch(cc, { grid, block, sharedBytes: K.CHARGE_CUT_SHARED_BYTES }, [store.bytes, stride, moduleStart, nCl, n, 2000, 4000]));
      }
      const wall = performance.now() - t0;
      if (r > 0) { res[v].wall.push(wall); l.forEach((s, i) => res[v].gpu[i].push(s.gpuTimeMs ?? NaN)); }
      const ncl = await nCl.read();
      const bytes = await store.bytes.read();
      const o = store.layout.offsets.moduleInd;
      last[v] = { ncl: ncl.join(','), modInd: Buffer.from(bytes.subarray(o, o + 2 * n)).toString('base64'), nModules };
      moduleStart.free(); nCl.free(); moduleId.free();
    }
  }
  const same = last.twin.ncl === last.columns.ncl && last.twin.modInd === last.columns.modInd && last.twin.nModules === last.columns.nModules;
  for (const v of ['twin', 'columns']) {
    const w = res[v].wall;
    console.log(`n=${n} ${v.padEnd(7)} wall ${f(med(w))} ms [${f(Math.min(...w))}–${f(Math.max(...w))}]  gpu count/find/cut ${res[v].gpu.map((g) => f(med(g))).join(' / ')} ms`);
  }
  // GPU time of the column copies each kernel's generic form adds (copies between two empty timed passes).
  const d = dev.context.device, GB = globalThis.GPUBufferUsage;
  if (dev.context.hasTimestampQuery) {
    const qs = d.createQuerySet({ type: 'timestamp', count: 2 });
    const rs = d.createBuffer({ size: 16, usage: GB.QUERY_RESOLVE | GB.COPY_SRC }), rb = d.createBuffer({ size: 16, usage: GB.MAP_READ | GB.COPY_DST });
    const at = (loc) => loc * stride * 2;
    // [column location, element bytes, 1: copied in / 0: copied back], as src/kernels/pixel.ts declares
    // them and as each generic kernel writes them (countModules and findClus clus, the cut moduleInd and clus).
    const plans = { count: [[9, 2, 1], [0, 4, 1], [0, 4, 0]], find: [[9, 2, 1], [7, 2, 1], [8, 2, 1], [0, 4, 1], [0, 4, 0]], cut: [[9, 2, 1], [6, 2, 1], [0, 4, 1], [9, 2, 0], [0, 4, 0]] };
    const scratch = d.createBuffer({ size: stride * 4 * 4, usage: GB.COPY_SRC | GB.COPY_DST | GB.STORAGE });
    const line = [];
    for (const [k, plan] of Object.entries(plans)) {
      const t = [];
      for (let r = 0; r < reps; r++) {
        const enc = d.createCommandEncoder();
        enc.beginComputePass({ timestampWrites: { querySet: qs, endOfPassWriteIndex: 0 } }).end();
        plan.forEach(([loc, eb, into], j) => into
          ? enc.copyBufferToBuffer(store.bytes.buffer, at(loc), scratch, j * stride * 4 % (stride * 16), stride * eb)
          : enc.copyBufferToBuffer(scratch, 0, store.bytes.buffer, at(loc), stride * eb));
        enc.beginComputePass({ timestampWrites: { querySet: qs, beginningOfPassWriteIndex: 1 } }).end();
        enc.resolveQuerySet(qs, 0, 2, rs, 0); enc.copyBufferToBuffer(rs, 0, rb, 0, 16);
        d.queue.submit([enc.finish()]);
        await rb.mapAsync(1); const v = new BigUint64Array(rb.getMappedRange()); t.push(Number(v[1] - v[0]) / 1e6); rb.unmap();
      }
      line.push(`${k} ${f(med(t))}`);
    }
    console.log(`n=${n} column copies (GPU ms, stride ${stride}): ${line.join(' / ')}`);
  }
  console.log(`n=${n} modules ${last.twin.nModules}; twin and columns agree (clusters per module, moduleInd): ${same}`);
  store.bytes.free();
}
await dev.destroy();
