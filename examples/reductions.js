// max and Σ of 1M floats on the wasm worker pool, checked against a plain loop.
//   node examples/reductions.js        (after `npm run build`, or with simt installed)
// In a page the same main() runs unchanged (the playground's Examples panel).
import { createDevice, data, deviceMax, deviceSum } from 'simt';

export async function main(log = console.log) {
  const n = 1_000_000;
  const values = data.randomF32(n, 7);
  const dev = await createDevice({ backend: 'wasm', memoryBytes: 64 << 20 });
  try {
    const A = await dev.upload('f32', values);
    const max = await deviceMax(dev, A);
    const sum = await deviceSum(dev, A);
    A.free();
    let refMax = -Infinity, refSum = 0, abs = 0;
    for (const v of values) { if (v > refMax) refMax = v; refSum += v; abs += Math.abs(v); }
    const bound = 2 * (n + 1024) * 2 ** -53 * abs;
    log(`wasm pool, ${dev.workers} workers, ${n} floats`);
    log(`max = ${max.value} (loop: ${refMax}) in ${max.stats.elapsedMs.toFixed(2)} ms`);
    log(`sum = ${sum.value} (loop: ${refSum}, |diff| ${Math.abs(sum.value - refSum).toExponential(2)} <= ${bound.toExponential(2)})`);
    if (max.value !== refMax || Math.abs(sum.value - refSum) > bound) throw new Error('a reduction differs from the loop');
    return { max: max.value, sum: sum.value };
  } finally {
    await dev.destroy();
  }
}

if (globalThis.process?.argv?.[1] === decodeURIComponent(new URL(import.meta.url).pathname)) await main();
