// A raw CUDA-style launch: allocate, upload, launch vecMax over a grid, read the per-block
// partials; then the same launch on the seeded `serial` backend, twice with one seed.
//   node examples/launch.js
import { createDevice, kernels } from 'simt';

export async function main(log = console.log) {
  const n = 1 << 16, block = 256, grid = n / block;
  const input = Float32Array.from({ length: n }, (_, i) => Math.sin(i) * 100);
  const results = [];
  for (const options of [{ backend: 'wasm' }, { backend: 'serial', seed: 42 }]) {
    const dev = await createDevice({ ...options, memoryBytes: 16 << 20 });
    try {
      const A = await dev.upload('f32', input);
      const B = dev.alloc('f32', grid);
      const stats = await dev.launch(kernels.vecMax, { grid, block, sharedBytes: 4 * block }, [A, B, n]);
      const partials = await B.read();
      const max = partials.reduce((a, b) => Math.max(a, b), -Infinity);
      log(`${stats.backend}: ${stats.blocks} blocks × ${stats.threadsPerBlock} threads, max ${max.toFixed(4)}, ` +
        `${stats.elapsedMs.toFixed(2)} ms${stats.seed !== null ? `, launch seed ${stats.seed}` : ''}`);
      results.push(max);
    } finally {
      await dev.destroy();
    }
  }
  if (results[0] !== results[1]) throw new Error('wasm and serial disagree');
  return { max: results[0] };
}

if (globalThis.process?.argv?.[1] === decodeURIComponent(new URL(import.meta.url).pathname)) await main();
