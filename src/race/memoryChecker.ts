// Memcheck's side of a run: the ThreadRunner hands it every access of a launch (RunOptions
// `memcheck`), and it reports, once per (kind, source site) with a count, the accesses a GPU
// would fault on or that read garbage:
// - out-of-bounds: a compiled kernel's index outside its array (a global array against the
//   argument's own length, a `__shared__` array against its size, the `extern __shared__` array
//   against the launch's bytes), or an address outside every buffer the job named (an array
//   whose buffer a later one replaced). The access is skipped (a read gives 0, a write is
//   dropped) and the thread goes on;
// - misaligned: an address that is not a multiple of the access size (skipped likewise). A
//   compiled kernel cannot make one (arrays only, allocations 128-byte aligned): a guard;
// - uninitialized: a read (or atomic) of bytes never written since they were allocated
//   (InitShadow), in global memory or in the block's shared memory.

import { DTYPES, isDType } from '../dtypes.js';
import type { KernelModule, ModuleKernelMeta, ModuleSite } from '../kernelModule.js';
import type { AccessKind, ThreadRef } from './reports.js';
import type { InitShadow } from './initShadow.js';
import type { NamedBuffer } from './threadRunner.js';
import { siteLocation } from './threadProgram.js';

export type MemcheckKind = 'out-of-bounds' | 'misaligned' | 'uninitialized';

/** One memcheck error: the first access that made it at its source site, and how many did. */
export interface MemcheckReport {
  kind: MemcheckKind;
  kernel: string;
  space: 'global' | 'shared';
  access: AccessKind;
  /** The kernel's name of the array: its parameter or `__shared__` array (an address outside every array: the job's buffer). */
  array: string;
  /** Global memory: the job's buffer holding the array. */
  buffer?: string;
  /** The element index (out of bounds: the one the kernel used, negative or past the end). */
  index: number;
  /** Elements of the array. */
  length?: number;
  /** Bytes per element (the access size). */
  size: number;
  /** Device byte address of the access (out of bounds: where the element would be). */
  address: number;
  block: [number, number, number];
  thread: [number, number, number];
  /** Compiled kernels: `file:line:column` of the access. */
  location?: string;
  /** Compiled kernels: what the site does ("read data[]", "atomicAdd on __shared__ bins[]"). */
  what?: string;
  /** Accesses that made this error at this site (the block and thread above made the first). */
  count: number;
  severity: 'error';
  message: string;
}

/** What the runner tells the checker about a launch. */
export interface MemcheckLaunch {
  kernel: string;
  /** The compiled module (array names, sites). */
  module: KernelModule;
  meta?: ModuleKernelMeta;
  /** Block and thread of global thread `gid`. */
  locate(gid: number): ThreadRef;
  /** The job's named buffers, ascending by address. */
  buffers(): readonly NamedBuffer[];
}

const ACCESS: AccessKind[] = ['read', 'write', 'atomic'];
const READ = 0, WRITE = 1;

/** Where an access falls: the array as the kernel names it, the element, and the job's buffer. */
interface Place { space: 'global' | 'shared'; array: string; buffer?: string; index: number; length?: number }

export class MemoryChecker {
  readonly reports: MemcheckReport[] = [];
  private readonly byKey = new Map<string, MemcheckReport>();
  private launch!: MemcheckLaunch;
  private sites: readonly ModuleSite[] = [];
  private sharedStart = 0;
  private sharedEnd = 0;

  /** `maxReports`: distinct errors kept (later ones are still counted where they repeat one). */
  constructor(private readonly init: InitShadow, private readonly maxReports = 1000) {}

  beginLaunch(l: MemcheckLaunch): void {
    this.launch = l;
    this.sites = l.module.meta.sites;
  }

  /** A wave of blocks starts: their shared memory is device bytes [start, end), never written yet. */
  beginWave(start: number, end: number): void {
    this.sharedStart = start;
    this.sharedEnd = end;
    this.init.freshShared(start, end);
  }

  /**
   * An access inside a buffer (`name` at `base`) or the block's shared memory (`base`: where the
   * block's starts). Returns false to skip it (misaligned).
   */
  access(gid: number, kind: number, addr: number, size: number, site: number, space: 'global' | 'shared', name: string, base: number): boolean {
    if (addr % size !== 0) {
      this.report('misaligned', gid, kind, size, site, addr, space === 'shared' ? this.sharedPlace(site, addr - base, size) : this.globalPlace(site, name, addr, size));
      return false;
    }
    if (space === 'shared') {
      if (kind !== WRITE && !this.init.isSharedWritten(addr, size)) {
        this.report('uninitialized', gid, kind, size, site, addr, this.sharedPlace(site, addr - base, size));
      }
      if (kind !== READ) this.init.markShared(addr, size);
      return true;
    }
    if (kind !== WRITE && !this.init.isWritten(base, addr - base, size)) {
      this.report('uninitialized', gid, kind, size, site, addr, this.globalPlace(site, name, addr, size));
    }
    if (kind !== READ) this.init.mark(base, addr - base, size);
    return true;
  }

  /** A compiled kernel's index outside its array (`base` its address); the kernel skips the access. */
  outOfBounds(gid: number, kind: number, arrayId: number, index: number, length: number, site: number, base: number, size: number): void {
    const full = this.launch.module.meta.arrays[arrayId] ?? '?';
    const space = base >= this.sharedStart && base < this.sharedEnd ? 'shared' : 'global';
    const buffer = space === 'global' ? this.bufferHolding(base)?.name : undefined;
    this.report('out-of-bounds', gid, kind, size, site, base + index * size, { space, array: full.slice(full.indexOf('.') + 1), buffer, index, length });
  }

  /** An address in no named buffer and outside the block's shared memory (skipped). */
  outside(gid: number, kind: number, addr: number, size: number, site: number): void {
    let below: NamedBuffer | undefined;
    for (const b of this.launch.buffers()) if (b.base <= addr) below = b;
    const place: Place = below
      ? { space: 'global', array: below.name, buffer: below.name, index: Math.floor((addr - below.base) / below.elementBytes), length: below.bytes / below.elementBytes }
      : { space: 'global', array: '?', index: 0 };
    this.report('out-of-bounds', gid, kind, size, site, addr, place);
  }

  private bufferHolding(addr: number): NamedBuffer | undefined {
    for (const b of this.launch.buffers()) if (addr >= b.base && addr < b.base + b.bytes) return b;
    return undefined;
  }

  /** The array a site names ("read data[]" → data), if the site is a compiled kernel's. */
  private siteArray(site: number): string | undefined {
    return /(\w+)\[\]$/.exec(this.sites[site]?.what ?? '')?.[1];
  }

  private globalPlace(site: number, buffer: string, addr: number, size: number): Place {
    const b = this.bufferHolding(addr);
    const offset = b ? addr - b.base : 0;
    return { space: 'global', array: this.siteArray(site) ?? buffer, buffer, index: Math.floor(offset / size), length: b ? b.bytes / size : undefined };
  }

  /** A byte of the block's shared memory, as the kernel's `__shared__` array and element holding it. */
  private sharedPlace(site: number, offset: number, size: number): Place {
    const name = this.siteArray(site);
    const arr = this.launch.meta?.shared?.find((s) => s.name === name);
    if (!arr) return { space: 'shared', array: name ?? 'shared', index: Math.floor(offset / size) };
    const elem = isDType(arr.dtype) ? DTYPES[arr.dtype].bytes : size;
    return { space: 'shared', array: arr.name, index: Math.floor((offset - arr.offset) / elem), length: arr.count ?? undefined };
  }

  private report(kind: MemcheckKind, gid: number, accessKind: number, size: number, site: number, address: number, p: Place): void {
    const key = `${kind}:${this.launch.module.id}:${this.launch.kernel}:${site}:${site < 0 ? `${p.array}:${accessKind}` : ''}`;
    const known = this.byKey.get(key);
    if (known) { known.count++; return; }
    if (this.reports.length >= this.maxReports) return;
    const where = this.launch.locate(gid);
    const s = this.sites[site];
    const r: MemcheckReport = {
      kind, kernel: this.launch.kernel, space: p.space, access: ACCESS[accessKind]!, array: p.array,
      ...(p.buffer === undefined ? {} : { buffer: p.buffer }), index: p.index, ...(p.length === undefined ? {} : { length: p.length }),
      size, address, block: where.block, thread: where.thread, ...(s ? { location: siteLocation(s), what: s.what } : {}),
      count: 1, severity: 'error', message: '',
    };
    r.message = describe(r);
    this.byKey.set(key, r);
    this.reports.push(r);
  }
}

/** One line: which thread did what where, and what is wrong with it. */
function describe(r: MemcheckReport): string {
  const who = `block (${r.block.join(',')}) thread (${r.thread.join(',')})${r.location ? ` at ${r.location}` : ''}`;
  const verb = r.access === 'read' ? 'reads' : r.access === 'write' ? 'writes' : 'atomically updates';
  const element = `${r.space === 'shared' ? '__shared__ ' : ''}${r.array}[${r.index}]`;
  switch (r.kind) {
    case 'out-of-bounds':
      return `${who} ${verb} ${element}, out of bounds${r.length === undefined ? '' : ` (length ${r.length})`}: skipped (${r.access === 'write' ? 'nothing written' : 'the read gives 0'})`;
    case 'misaligned':
      return `${who} ${verb} ${r.size} bytes at ${hex(r.address)} in ${r.array}, misaligned (not a multiple of ${r.size}): skipped`;
    case 'uninitialized':
      return `${who} ${verb} ${element} (${r.size} bytes), which ${r.space === 'shared' ? 'no thread of its block has written' : 'was never written'}`;
  }
}

export function hex(n: number): string { return n < 0 ? `-0x${(-n).toString(16)}` : `0x${n.toString(16)}`; }
