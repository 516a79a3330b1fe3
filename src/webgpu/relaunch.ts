// A relaunch: a kernel launched again with the configuration and arguments of its last launch
// on the device — the usual loop. Those were checked, marshalled and proven then, with a result
// that depends on nothing else (an array's length never changes), so the webgpu device reuses it
// instead of redoing the work. On an H200 host an awaited launch spent 8–24 µs in simt's own
// code before its first Dawn call, the CPU cold from waiting on the GPU (bench/RESULTS.md).

import type { DimLike } from '../dims.js';
import type { KernelArg, KernelArgs, LaunchConfig } from '../deviceApi.js';
import type { Kernel } from '../kernel.js';

/** A launch as it was asked for (dimensions copied: the caller may reuse and change its objects). */
export interface LaunchRecord<P> {
  grid: DimLike; block: DimLike; sharedBytes: number | undefined; timeoutMs: number | undefined;
  signal: AbortSignal | undefined; workers: number | undefined; args: KernelArg[]; prepared: P;
}

/** Each kernel's last launch on one device, while its arguments are live. */
export class Relaunches<P> {
  private readonly last = new WeakMap<Kernel, LaunchRecord<P>>();

  /** What `kernel`'s last launch prepared, when this one asks for the same; else undefined. */
  find(kernel: Kernel, config: LaunchConfig, args: KernelArgs): P | undefined {
    const r = this.last.get(kernel);
    if (!r || !Array.isArray(args) || args.length !== r.args.length) return undefined;
    if (config.sharedBytes !== r.sharedBytes || config.timeoutMs !== r.timeoutMs || config.signal !== r.signal || config.workers !== r.workers) return undefined;
    if (!sameDim(config.grid, r.grid) || !sameDim(config.block, r.block)) return undefined;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a !== r.args[i]) return undefined;
      if (typeof a === 'object' && (a as { freed?: boolean }).freed) return undefined;
    }
    return r.prepared;
  }

  remember(kernel: Kernel, config: LaunchConfig, args: KernelArgs, prepared: P): void {
    if (!Array.isArray(args)) return;
    this.last.set(kernel, {
      grid: copyDim(config.grid), block: copyDim(config.block), sharedBytes: config.sharedBytes, timeoutMs: config.timeoutMs,
      signal: config.signal, workers: config.workers, args: [...(args as readonly KernelArg[])], prepared,
    });
  }
}

function copyDim(d: DimLike): DimLike {
  return typeof d === 'object' && d !== null ? { x: d.x, y: d.y, z: d.z } : d;
}

function sameDim(d: DimLike, r: DimLike): boolean {
  if (typeof d !== 'object' || d === null || typeof r !== 'object' || r === null) return d === r;
  return d.x === r.x && d.y === r.y && d.z === r.z;
}
