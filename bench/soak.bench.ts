// Soak: 100,000 launches on one device, faults included, to show that nothing leaks and that
// latency does not drift: every fault path (a trap, a timeout between blocks, a timeout of a
// kernel that never returns — the workers restarted —, an abort, a launch rejected for a bad
// argument) runs many times among ordinary launches. Per window of launches it reports RSS and
// the median and p99 latency of the ordinary launches; a fault that did not end as its typed
// error stops the run. `--quick`: 10,000 launches. SIMT_SOAK_LAUNCHES overrides the count.
import { createDevice, type Device } from '../src/device.js';
import { KernelArgumentError, KernelError, KernelTimeoutError, LaunchAbortedError } from '../src/errors.js';
import { kernels } from '../src/index.js';
import type { DeviceArray } from '../src/memory/deviceArray.js';
import { median, type BenchRecord, type BenchSuite } from './harness.js';

/** One in this many launches is each fault (the never-ending kernel: one in NEVER_EVERY). */
const FAULT_EVERY = 500;
const NEVER_EVERY = 5_000;

type Kind = 'ok' | 'trap' | 'timeout' | 'never' | 'abort' | 'reject';

function kindOf(k: number): Kind {
  if (k % NEVER_EVERY === NEVER_EVERY - 1) return 'never';
  switch (k % FAULT_EVERY) {
    case 100: return 'trap';
    case 200: return 'timeout';
    case 300: return 'abort';
    case 400: return 'reject';
    default: return 'ok';
  }
}

const rssMiB = (): number => process.memoryUsage().rss / 2 ** 20;

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

/** Runs launch k; resolves with its latency in ms for an ordinary launch, undefined for a fault. */
async function launch(dev: Device, k: number, out: DeviceArray<'i32'>, counter: DeviceArray<'i32'>): Promise<number | undefined> {
  const kind = kindOf(k);
  const expectError = async (p: Promise<unknown>, type: new (...a: never[]) => Error): Promise<undefined> => {
    const e = await p.then(() => undefined, (err: unknown) => err);
    if (!(e instanceof type)) throw new Error(`soak: launch ${k} (${kind}) ended with ${e instanceof Error ? e.message : String(e)}, not a ${type.name}`);
    return undefined;
  };
  switch (kind) {
    case 'ok': {
      const t0 = performance.now();
      // Alternate an empty launch and a small real one (64 blocks writing 6 ints per thread).
      if (k % 2) await dev.launch(kernels.emptyKernel, { grid: 1, block: 1 });
      else await dev.launch(kernels.writeIndices, { grid: 64, block: 4 }, [out]);
      return performance.now() - t0;
    }
    case 'trap': return expectError(dev.launch(kernels.trapInBlock, { grid: 8, block: 1 }, [counter, 3]), KernelError);
    // Many short blocks past a 1 ms limit: stopped between blocks, no restart.
    case 'timeout': return expectError(dev.launch(kernels.spin, { grid: 100_000, block: 1, timeoutMs: 1 }, [2000, out]), KernelTimeoutError);
    // A kernel that never returns: the workers are terminated and restarted.
    case 'never': return expectError(dev.launch(kernels.spin, { grid: 1, block: 1, timeoutMs: 5 }, [-1, out]), KernelTimeoutError);
    case 'abort': {
      const ac = new AbortController();
      const p = dev.launch(kernels.spin, { grid: 100_000, block: 1, signal: ac.signal }, [2000, out]);
      setTimeout(() => ac.abort(new Error('soak abort')), 1);
      return expectError(p, LaunchAbortedError);
    }
    case 'reject': return expectError(dev.launch(kernels.writeIndices, { grid: 1, block: 1 }, [counter, 1] as never), KernelArgumentError);
  }
}

export const suite: BenchSuite = {
  name: 'soak',
  description: '100,000 launches with traps, timeouts, restarts, aborts and rejected launches: RSS and latency over time',
  async run(ctx) {
    const total = Number(process.env.SIMT_SOAK_LAUNCHES ?? (ctx.quick ? 10_000 : 100_000));
    if (!Number.isInteger(total) || total < 1) throw new Error(`SIMT_SOAK_LAUNCHES must be a positive integer, got ${process.env.SIMT_SOAK_LAUNCHES}`);
    const window = Math.max(1, Math.round(total / 10));
    const dev = await createDevice({ memoryBytes: 64 << 20 });
    const records: BenchRecord[] = [];
    try {
      const out = dev.alloc('i32', 64 * 4 * 6);
      const counter = dev.alloc('i32', 1);
      const rss0 = rssMiB();
      ctx.log(`soak: ${total} launches on ${dev.workers} workers; RSS at start ${rss0.toFixed(1)} MiB`);
      const t0 = performance.now();
      let lat: number[] = [];
      const faults: Record<Kind, number> = { ok: 0, trap: 0, timeout: 0, never: 0, abort: 0, reject: 0 };
      for (let k = 0; k < total; k++) {
        const ms = await launch(dev, k, out, counter);
        faults[kindOf(k)]++;
        if (ms !== undefined) lat.push(ms);
        if ((k + 1) % window === 0 || k + 1 === total) {
          const rss = rssMiB();
          const med = lat.length ? median(lat) : 0;
          const p99 = lat.length ? percentile(lat, 0.99) : 0;
          const elapsedS = (performance.now() - t0) / 1000;
          ctx.log(`  ${String(k + 1).padStart(7)} launches  ${elapsedS.toFixed(1).padStart(6)} s  RSS ${rss.toFixed(1)} MiB  ` +
            `median ${(med * 1000).toFixed(1)} µs  p99 ${(p99 * 1000).toFixed(1)} µs  ` +
            `(so far: ${faults.trap} traps, ${faults.timeout} timeouts, ${faults.never} restarts, ${faults.abort} aborts, ${faults.reject} rejected)`);
          // size = launches so far; ms = median latency of the window's ordinary launches.
          records.push({
            name: 'soak', impl: 'simt-wasm', size: k + 1, ms: med, workers: dev.workers, p99Ms: p99,
            rssMiB: +rss.toFixed(1), rssStartMiB: +rss0.toFixed(1), elapsedS: +elapsedS.toFixed(2), ...faults,
          });
          lat = [];
        }
      }
      // The device is still sound: a last launch computes what it should.
      await dev.launch(kernels.writeIndices, { grid: 64, block: 4 }, [out]);
      const v = await out.read();
      if (v[6 * 255] !== 63 || v[6 * 255 + 3] !== 3) throw new Error('soak: the device computed a wrong result after the run');
    } finally {
      await dev.destroy();
    }
    return records;
  },
};
