// CMS pixel clustering: countModules + findClus + clusterChargeCut on the SoA store, on one
// ~220k-digi event and on ~50M digis (copies of events back to back).
import { createDevice } from '../src/device.js';
import { generatePixelEvent } from '../src/jobs/pixel/generate.js';
import { clusterPixelStore, pixelClustering, uploadPixelStore } from '../src/jobs/pixel/run.js';
import { median, progress, record, warmUp, type BenchRecord, type BenchSuite } from './harness.js';

interface Cols { moduleInd: Uint16Array; xx: Uint16Array; yy: Uint16Array; adc: Uint16Array }

function repeatEvent(ev: Cols, copies: number): Cols {
  const n = ev.moduleInd.length;
  const rep = <T extends Uint16Array>(a: T): Uint16Array => {
    const o = new Uint16Array(n * copies);
    for (let c = 0; c < copies; c++) o.set(a, c * n);
    return o;
  };
  return { moduleInd: rep(ev.moduleInd), xx: rep(ev.xx), yy: rep(ev.yy), adc: rep(ev.adc) };
}

export const suite: BenchSuite = {
  name: 'pixel',
  description: 'CMS pixel countModules + findClus + clusterChargeCut on the SiPixelDigisCUDASOAView store: one event (~220k digis) and 50M digis',
  quickDescription: 'CMS pixel countModules + findClus + clusterChargeCut on the SiPixelDigisCUDASOAView store: one event (~220k digis)',
  async run(ctx) {
    const out: BenchRecord[] = [];
    const ev = generatePixelEvent({ seed: 1, activeModules: 1856, clustersPerModule: 24 });
    const modulesPerEvent = new Set(ev.moduleInd).size;
    const cases: { name: string; cols: Cols; copies: number }[] = [{ name: 'event', cols: ev, copies: 1 }];
    if (!ctx.quick) {
      const copies = Math.ceil(50_000_000 / ev.n);
      cases.push({ name: '50M', cols: repeatEvent(ev, copies), copies });
    }
    const dev = await createDevice({ memoryBytes: 1536 * 2 ** 20, workers: ctx.workers });
    try {
      for (const c of cases) {
        const n = c.cols.moduleInd.length;
        progress(`pixel/${c.name} (${n} digis)`);
        const store = await uploadPixelStore(dev, c.cols);
        const idOffset = store.layout.offsets.moduleInd;
        const idBytes = new Uint8Array(c.cols.moduleInd.buffer, c.cols.moduleInd.byteOffset, 2 * n);
        const nMaxModules = Math.max(3999, c.copies * (modulesPerEvent + 1) + 1);
        const reps = c.copies > 1 ? 3 : 15;
        const total: number[] = [];
        const per: Record<string, number[]> = {};
        const cluster = async (): Promise<Awaited<ReturnType<typeof clusterPixelStore>>> => {
          await store.bytes.upload(idBytes, idOffset); // the charge cut invalidates ids: restore (untimed)
          return clusterPixelStore(dev, store, { nMaxModules });
        };
        await warmUp(cluster, 1, ctx.warmupMs);
        for (let r = 0; r < reps; r++) {
          const res = await cluster();
          total.push(res.ms);
          for (const l of res.launches) (per[l.kernel] ??= []).push(l.elapsedMs);
        }
        store.bytes.free();
        // End to end: columns in, cluster ids, module ids and the store's bytes out (pixelClustering),
        // against the kernels' part of the same runs; 'mapped': the outputs left as views of the device store.
        const walls: number[] = [], kernels: number[] = [], mappedWalls: number[] = [], mappedKernels: number[] = [];
        await warmUp(async () => {
          for (const output of ['host', 'mapped'] as const) (await pixelClustering(dev, c.cols, { nMaxModules, output })).free();
        }, 1, ctx.warmupMs);
        for (let r = 0; r < reps; r++) {
          for (const output of ['host', 'mapped'] as const) {
            const t0 = performance.now();
            const res = await pixelClustering(dev, c.cols, { nMaxModules, output });
            const wall = performance.now() - t0;
            res.free();
            (output === 'host' ? walls : mappedWalls).push(wall);
            (output === 'host' ? kernels : mappedKernels).push(res.ms);
          }
        }
        out.push(record(`pixel/${c.name}/end-to-end`, 'simt-wasm', n, median(walls), { workers: dev.workers, times: walls, computeMs: median(kernels) }));
        out.push(record(`pixel/${c.name}/end-to-end, mapped outputs`, 'simt-wasm', n, median(mappedWalls), { workers: dev.workers, times: mappedWalls, computeMs: median(mappedKernels) }));
        out.push(record(`pixel/${c.name}/total`, 'simt-wasm', n, median(total), { workers: dev.workers, times: total }));
        for (const [k, v] of Object.entries(per)) out.push(record(`pixel/${c.name}/${k}`, 'simt-wasm', n, median(v), { workers: dev.workers, times: v }));
      }
    } finally {
      await dev.destroy();
    }
    return out;
  },
};
