// The generated findClus on webgpu as generated and with hand edits to its WGSL, loaded in place
// of simt's own (the GPU time of the pass on the pixel store's columns): VARIANT=nochecks folds
// every bounds check away, VARIANT=oneload reads clusterId[i] once per neighbour, VARIANT=orflag
// makes __syncthreads_or a flag store; combine them with '-' (nochecks-oneload). Where the generic kernel's gap to the WGSL twin is, bench/RESULTS.md.
// Usage, after `npm run build`: VARIANT=generated node scripts/webgpu-findclus-variants.mjs
const { createDevice } = await import('../dist/src/device.js');
const { defineKernel } = await import('../dist/src/kernel.js');
const { pixelJobInputs } = await import('../dist/src/crosscheck/index.js');
const { generatePixelEvent } = await import('../dist/src/jobs/pixel/generate.js');
const { uploadPixelStore } = await import('../dist/src/jobs/pixel/run.js');
const { shippedModule } = await import('../dist/src/shippedModule.js');
const K = await import('../dist/src/kernels/pixel.js');
const variant = process.env.VARIANT ?? 'generated';
const dev = await createDevice({ backend: 'webgpu', memoryBytes: 2 ** 31, webgpu: { gpuTiming: true } });
const mod = await shippedModule();
let src = mod.meta.wgsl.findClus.source;
if (variant.includes('nochecks')) {
  src = src.replace(/let bad = (.*);/g, 'let bad = false && ($1);').replace(/if \(i >= n\) \{ sx_trapIf/g, 'if (false && i >= n) { sx_trapIf');
}
if (variant.includes('orflag')) {
  // __syncthreads_or(more): a flag stored by the threads whose predicate holds, instead of every
  // thread's atomicAdd on the true and live counts (the module loop keeps its counts: it checks them).
  const re = /if \(u_more\) \{ atomicAdd\(&sx_bc_true, 1u\); \}\s*atomicAdd\(&sx_bc_live, 1u\);/;
  if (!re.test(src)) throw new Error('orflag: pattern not found');
  src = src.replace(re, 'if (u_more) { atomicStore(&sx_bc_true, 1u); }');
}
if (variant.includes('oneload')) {
  const re = /let (u_old__\d+) = sx_atomicMin_a_clusterId\((.*?), (atomicLoad\(&a_clusterId\[sx_ix_a_clusterId\((u32\(u_i__\d+\)), 1u, \d+u\)\]\))\);(\s*)if \(\(\1 != atomicLoad\(&a_clusterId\[sx_ix_a_clusterId\(\4, 1u, \d+u\)\]\)\)\)/;
  if (!re.test(src)) throw new Error('pattern not found');
  src = src.replace(re, 'let sx_ci = $3; let $1 = sx_atomicMin_a_clusterId($2, sx_ci);$5if (($1 != sx_ci))');
}
await dev.load({ ...mod, meta: { ...mod.meta, wgsl: { ...mod.meta.wgsl, findClus: { ...mod.meta.wgsl.findClus, source: src } } } });
const cols = (k) => defineKernel(k.name + 'Columns', k.spec, { requires: k.requires, storeColumns: k.storeColumns });
const [cm, fc] = [K.pixelCountModules, cols(K.pixelFindClus)];
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
for (const ev of ['job', 'heavy40', 'heavy150']) {
  const inputs = ev === 'job' ? pixelJobInputs(1 << 20, 7) : generatePixelEvent({ seed: 7, nModules: 1856, activeModules: 1856, clustersPerModule: Number(ev.slice(5)), noisyPixels: 200 });
  const store = await uploadPixelStore(dev, inputs);
  const pristine = await store.bytes.read();
  const stride = store.layout.stride, n = store.n, nMax = 47999;
  const g = [];
  let ncl;
  for (let r = 0; r < 10; r++) {
    await store.bytes.upload(pristine);
    const moduleStart = dev.alloc('u32', nMax + 2), nCl = dev.alloc('u32', 48000);
    await dev.launch(cm, { grid: Math.ceil(n / 256), block: 256 }, [store.bytes, stride, moduleStart, n, nMax]);
    const grid = Math.min((await moduleStart.read(0, 1))[0], nMax + 1);
    const moduleId = dev.alloc('u32', grid);
    const s = await dev.launch(fc, { grid, block: 256, sharedBytes: K.FIND_CLUS_SHARED_BYTES }, [store.bytes, stride, moduleStart, nCl, moduleId, n]);
    if (r > 0) g.push(s.gpuTimeMs);
    ncl = (await nCl.read()).reduce((a, b) => a + b, 0);
    moduleStart.free(); nCl.free(); moduleId.free();
  }
  console.log(`${variant} ${ev} n=${n}: findClus pass ${med(g).toFixed(4)} ms [${Math.min(...g).toFixed(4)}–${Math.max(...g).toFixed(4)}], clusters ${ncl}`);
  store.bytes.free();
}
await dev.destroy();
