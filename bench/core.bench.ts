// The core benchmarks of issue #2: vecMax over 64M f32 (1 worker, all workers, plain JS,
// native C at the same thread counts), countModules over 50M digis (simt vs native C), and the
// empty-launch latency.
import { createDevice, type Device } from '../src/device.js';
import { countModules } from '../src/ops/countModules.js';
import { kernels } from '../src/index.js';
import { moduleIdsForBench, randomF32 } from '../src/data/synthetic.js';
import { countModulesReference } from '../src/jobs/pixel/reference.js';
import { buildNative, runNative } from './native/index.js';
import { measure, median, progress, record, warmUp, workerCounts, type BenchContext, type BenchRecord, type BenchSuite } from './harness.js';

async function vecMaxBench(ctx: BenchContext): Promise<BenchRecord[]> {
  const n = ctx.quick ? 4 << 20 : 64 << 20;
  const out: BenchRecord[] = [];
  const host = randomF32(n, 1);
  let ref = -Infinity;
  for (let i = 0; i < n; i++) if (host[i]! > ref) ref = host[i]!;
  // Plain JS: the baseline a user without simt would write.
  const js = await measure('vecMax js', () => { let m = -Infinity; for (let i = 0; i < n; i++) { const v = host[i]!; if (v > m) m = v; } return m; }, { iterations: 5 });
  out.push(record('vecMax', 'js', n, js.median, { bytes: 4 * n, workers: 1, times: js.samples }));

  const dev = await createDevice({ memoryBytes: n * 4 + (64 << 20), workers: ctx.workers });
  try {
    const A = await dev.upload('f32', host);
    const block = 1024;
    const grid = Math.ceil(n / block);
    const B = dev.alloc('f32', grid);
    for (const workers of workerCounts(ctx)) {
      const r = await measure(`vecMax simt ${workers}w`, async () => {
        await dev.launch(kernels.vecMax, { grid, block, sharedBytes: 4 * block, workers }, [A, B, n]);
      }, { iterations: 15 });
      const partials = await B.read();
      const got = partials.reduce((m, v) => (v > m ? v : m), -Infinity);
      if (got !== ref) throw new Error(`vecMax: simt gave ${got}, reference ${ref}`);
      out.push(record('vecMax', 'simt-wasm', n, r.median, { bytes: 4 * n, workers, times: r.samples }));
    }
  } finally {
    await dev.destroy();
  }
  const native = buildNative();
  if (native.ok) {
    for (const threads of workerCounts(ctx)) {
      progress(`vecMax native-c ${threads} threads`);
      const r = await runNative('vecMax', { n, seed: 1, threads, repeat: 15 });
      if (Math.fround(Number(r.result)) !== ref) throw new Error(`native vecMax gave ${String(r.result)}, reference ${ref}`);
      out.push(record('vecMax', 'native-c', n, r.msMedian, { bytes: 4 * n, workers: threads, times: r.msAll }));
    }
  } else ctx.log(`native vecMax skipped: ${native.note}`);
  return out;
}

async function countModulesBench(ctx: BenchContext): Promise<BenchRecord[]> {
  const n = ctx.quick ? 5_000_000 : 50_000_000;
  const out: BenchRecord[] = [];
  const ids = moduleIdsForBench(n, 1800, 0.01, 1);
  const ref = countModulesReference(ids, 1856);
  const dev = await createDevice({ memoryBytes: n * 8 + (64 << 20), workers: ctx.workers }); // the op end to end holds 8n bytes at most
  try {
    const id = await dev.upload('u16', ids);
    const ms = dev.alloc('u32', 1858);
    const cid = dev.alloc('i32', n);
    const block = 1024;
    const grid = Math.ceil(n / block);
    for (const workers of workerCounts(ctx)) {
      const r = await measure(`countModules simt ${workers}w`, async () => {
        await ms.fill(0);
        await dev.launch(kernels.countModules, { grid, block, workers }, [id, ms, cid, n, 1856]);
      }, { iterations: 15 });
      const count = (await ms.read(0, 1))[0];
      if (count !== ref.count) throw new Error(`countModules: simt found ${count}, reference ${ref.count}`);
      out.push(record('countModules', 'simt-wasm', n, r.median, { bytes: 6 * n, workers, times: r.samples, modules: count }));
    }
    id.free(); ms.free(); cid.free();
    out.push(...await countModulesEndToEnd(dev, ids, ref.count, ctx));
  } finally {
    await dev.destroy();
  }
  const native = buildNative();
  if (native.ok) {
    for (const threads of workerCounts(ctx)) {
      progress(`countModules native-c ${threads} threads`);
      const r = await runNative('countModules', { n, seed: 1, threads, repeat: 15, extra: { modules: 1800, invalid: 0.01, nmax: 1856 } });
      if (Number(r.result) !== ref.count) throw new Error(`native countModules found ${String(r.result)}, reference ${ref.count}`);
      out.push(record('countModules', 'native-c', n, r.msMedian, { bytes: 6 * n, workers: threads, times: r.msAll, modules: Number(r.result) }));
    }
  } else ctx.log(`native countModules skipped: ${native.note}`);
  return out;
}

/**
 * The countModules op end to end (host ids in, moduleStart and clusterId out) against the launch
 * inside it, run after run: what the host side adds to the kernel.
 */
async function countModulesEndToEnd(dev: Device, ids: Uint16Array, expected: number, ctx: BenchContext): Promise<BenchRecord[]> {
  const n = ids.length;
  const out: BenchRecord[] = [];
  // host: ids copied in, clusterId copied out; mapped: clusterId left as a view; device ids: the
  // ids produced in device memory (here: copied in untimed) and clusterId mapped — no copy at all.
  const devIds = dev.alloc('u16', n);
  devIds.view().set(ids);
  for (const mode of ['host', 'mapped', 'device ids, mapped'] as const) {
    const walls: number[] = [], kernelMs: number[] = [];
    const run = async (): Promise<void> => {
      const t0 = performance.now();
      const res = await countModules(dev, mode === 'device ids, mapped' ? devIds : ids, { nMaxModules: 1856, output: mode === 'host' ? 'host' : 'mapped' });
      const wall = performance.now() - t0;
      res.free();
      if (res.count !== expected) throw new Error(`countModules op: found ${res.count}, reference ${expected}`);
      walls.push(wall); kernelMs.push(res.stats.elapsedMs);
    };
    await warmUp(run, 2, ctx.warmupMs);
    walls.length = 0; kernelMs.length = 0;
    for (let r = 0; r < 15; r++) await run();
    const name = mode === 'host' ? 'countModules/op end-to-end' : `countModules/op end-to-end, ${mode === 'mapped' ? 'mapped output' : 'device ids, mapped output'}`;
    out.push(record(name, 'simt-wasm', n, median(walls), { workers: dev.workers, samples: walls.length, kernelMs: median(kernelMs) }));
    ctx.log(`  ${name} n=${n}: ${median(walls).toFixed(1)} ms (kernel ${median(kernelMs).toFixed(1)} ms)`);
  }
  devIds.free();
  return out;
}

async function latencyBench(ctx: BenchContext): Promise<BenchRecord[]> {
  const dev = await createDevice({ memoryBytes: 16 << 20, workers: ctx.workers });
  try {
    const launches = ctx.quick ? 2000 : 20_000;
    const r = await measure('empty launch', async () => {
      for (let i = 0; i < launches; i++) await dev.launch(kernels.emptyKernel, { grid: 1, block: 1 }, []);
    }, { iterations: 7 });
    return [{ ...record('emptyLaunch', 'simt-wasm', 1, r.median / launches, { workers: dev.workers, times: r.samples.map((t) => t / launches) }), us: (r.median / launches) * 1000 }];
  } finally {
    await dev.destroy();
  }
}

export const suite: BenchSuite = {
  name: 'core',
  description: 'vecMax 64M f32, countModules 50M digis, empty-launch latency (20,000 launches per sample)',
  quickDescription: 'vecMax 4M f32, countModules 5M digis, empty-launch latency (2,000 launches per sample)',
  async run(ctx) {
    return [...await latencyBench(ctx), ...await vecMaxBench(ctx), ...await countModulesBench(ctx)];
  },
};
