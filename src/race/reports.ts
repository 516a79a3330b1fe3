// What the race tools report. Every report names the kernel, and where it applies the address
// (buffer + byte offset + element index, or the block's shared memory), the two threads
// (blockIdx, threadIdx) with their access kinds and source lines, and a severity in
// compute-sanitizer's terms: an error fails the run, a warning does not, a note is no hazard.

export type ReportKind =
  | 'data-race'                  // two threads of different warps or blocks (or lanes storing in one instruction), unordered, one writes
  | 'warp-sync-hazard'           // the same, between lanes of one warp at different instructions: code relying on lock-step without __syncwarp
  | 'barrier-divergence'         // a thread exits or waits elsewhere while others wait at a __syncthreads
  | 'warp-divergence'            // a warp shuffle or vote whose mask names lanes that exited without reaching it
  | 'out-of-bounds'              // an access outside every allocation (and outside the block's shared memory)
  | 'schedule-dependent-output'  // two schedules gave different outputs, and the kernel has races
  | 'atomic-order-output';       // no race, but the output follows the order of atomics (a note, not a hazard)

/** compute-sanitizer's hazard types: read after write, write after read, write after write (in the run's order). */
export type HazardType = 'RAW' | 'WAR' | 'WAW';

export type Severity = 'error' | 'warning' | 'note';

export type AccessKind = 'read' | 'write' | 'atomic';

export interface ThreadRef {
  block: [number, number, number];
  thread: [number, number, number];
  /** Compiled kernels: the source location of the access or barrier (`file:line:column`). */
  location?: string;
  /** Compiled kernels: what the site does ("write __shared__ local[]", "__syncthreads"). */
  what?: string;
}

export interface AccessRef extends ThreadRef {
  access: AccessKind;
  size: number;
}

export interface RaceReport {
  kind: ReportKind;
  kernel: string;
  message: string;
  /** 'global' (a named device buffer) or 'shared' (the block's shared memory). */
  space?: 'global' | 'shared';
  /** The job's buffer name (global), or the `__shared__` array's name ('shared' when the kernel's layout is unknown). */
  buffer?: string;
  /** Byte offset into the buffer (or into the block's shared memory). */
  offset?: number;
  /** offset / access size: the element index for an array of that element size. */
  index?: number;
  address?: number;
  /** 'write-write', 'read-write' (first read, then a write), 'write-read', 'atomic-read', … */
  conflict?: string;
  first?: AccessRef | ThreadRef;
  second?: AccessRef | ThreadRef;
  /** barrier-divergence: the barrier (count of __syncthreads the waiting threads reached) and sites. */
  barrier?: number;
  /** warp-divergence: the warp (in its block), the mask its lanes passed, and the lanes it names that exited without reaching it. */
  warp?: number;
  mask?: number;
  missingLanes?: number[];
  /** schedule-dependent-output / atomic-order-output: the two schedules. */
  schedules?: [string, string];
  /** error (fails the run), warning (e.g. two writes of the same value), note (atomic-order output). */
  severity?: Severity;
  /** Races: RAW, WAR or WAW (atomics count as writes); `atomic` when one side is an atomic. */
  hazard?: HazardType;
  atomic?: boolean;
  /** Races: how many conflicting accesses (thread pairs) this one report stands for. */
  count?: number;
  /** atomic-order-output: 'same-set' when every differing output holds the same values in another order. */
  order?: 'same-set' | 'values';
}

export function fmtThread(t: ThreadRef): string {
  return `block (${t.block.join(',')}) thread (${t.thread.join(',')})`;
}

/** ` at file:line:column` for a compiled kernel's access or barrier, else ''. */
export function fmtLocation(t: ThreadRef): string {
  return t.location ? ` at ${t.location}` : '';
}

export function formatReport(r: RaceReport): string {
  return `${r.kind} in ${r.kernel}: ${r.message}`;
}
