// CMS pixel countModules (seed 000) over 200k synthetic digis: atomicInc hands out module-start
// slots in whatever order threads reach it, so compare sorted starts with a sequential scan.
//   node examples/count-modules.js
import { countModules, createDevice, data } from 'simt';

export async function main(log = console.log) {
  const ids = data.moduleIdsForBench(200_000, 1800, 0.01, 3);
  const reference = data.countModulesReference(ids, 1856);
  const dev = await createDevice({ backend: 'wasm', memoryBytes: 64 << 20 });
  try {
    const r = await countModules(dev, ids, { nMaxModules: 1856 });
    const same = r.count === reference.count && r.moduleStartSorted.every((v, k) => v === reference.sortedStarts[k]);
    log(`${r.count} modules (sequential scan: ${reference.count}); sorted moduleStart ${same ? 'matches' : 'DIFFERS'}`);
    log(`first starts in the order threads reached atomicInc: ${Array.from(r.moduleStartRaw.slice(0, 6)).join(', ')} …`);
    if (!same) throw new Error('countModules differs from the reference');
    return { count: r.count };
  } finally {
    await dev.destroy();
  }
}

if (globalThis.process?.argv?.[1] === decodeURIComponent(new URL(import.meta.url).pathname)) await main();
