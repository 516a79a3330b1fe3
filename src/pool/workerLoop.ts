// The body of every pool worker: instantiate the kernels module on the shared memory, then
// wait for launches on the control page, claim chunks of blocks and run them. A trap is
// caught per block, recorded in the control page (first one wins) and closes the launch; the
// worker itself lives on. See layout.ts for the protocol words.

import { CTL, Command } from '../layout.js';
import { BlockOrder } from '../schedule/blockOrder.js';
import { ArgTag, type WorkerInit } from './protocol.js';

type KernelFn = (...args: (number | bigint)[]) => void;

interface RuntimeExports {
  __setScratch(base: number, sharedLimit: number): void;
  __trapKind?(): number;
  __trapArray?(): number;
  __trapIndex?(): number;
  __trapLength?(): number;
  __trapSite?(): number;
  __trapThread?(): number;
  __trapClear?(): void;
  /** A compiled module's privatised atomicAdd copy, added into its array (after a trap). */
  __privFlush?(): void;
  __launch(gx: number, gy: number, gz: number, bx: number, by: number, bz: number,
    shared: number, seeded: number, seedLo: number, seedHi: number): void;
  __block(linear: number): void;
  __currentBlock(): number;
}

const now = (): number => performance.now();
/** Claim-word value meaning "no more claims in this generation". */
const CLOSED = 0xffffffffn;

export function runWorker(init: WorkerInit, onReady: () => void): never {
  // Every module gets its own instance on the shared memory (its own runtime globals); each
  // runs its blocks in the same per-worker scratch, one block at a time.
  const kernels: KernelFn[] = [];
  const blockLoops: (KernelFn | undefined)[] = [];
  const kernelModule: number[] = [];
  const instances = init.modules.map((m, mi) => {
    const ex = new WebAssembly.Instance(m.module, { env: { memory: init.memory } }).exports as unknown as RuntimeExports & Record<string, KernelFn>;
    ex.__setScratch(init.scratchBase, init.sharedLimit);
    for (const n of m.kernelNames) {
      kernels.push(ex[n] as KernelFn);
      // Block loops generated at build time: run a chunk of blocks in one call (free schedule).
      blockLoops.push(ex[`__blocks_${n}`] as KernelFn | undefined);
      kernelModule.push(mi);
    }
    return ex;
  });
  let ex = instances[0]!;
  const buffer = init.memory.buffer as unknown as SharedArrayBuffer;
  const i32 = new Int32Array(buffer);
  const i64 = new BigInt64Array(buffer, 0, CTL.CLAIM_BYTE / 8 + 1);
  const CLAIM = CTL.CLAIM_BYTE / 8;
  const view = new DataView(buffer);
  const me = init.workerIndex;
  const encoder = new TextEncoder();
  const args: (number | bigint)[] = [];
  let seenGen = Atomics.load(i32, CTL.GEN) & ~1;
  onReady();

  for (;;) {
    // Wait for a new, complete generation: spin a little (a launch right after the previous
    // one is the common case and a futex wake-up costs tens of µs), then sleep.
    const spinUntil = now() + init.spinMicros / 1000;
    let spins = 0;
    let gen: number;
    for (;;) {
      gen = Atomics.load(i32, CTL.GEN);
      if (gen !== seenGen && (gen & 1) === 0) break;
      if ((++spins & 255) === 0 && now() > spinUntil) Atomics.wait(i32, CTL.GEN, gen, 50);
    }
    seenGen = gen;
    // Read the description, then check the seqlock: if the host started writing another
    // launch meanwhile, this one is over for us.
    const command = i32[CTL.COMMAND];
    const kidx = i32[CTL.KERNEL]!;
    const nargs = i32[CTL.NARGS]!;
    args.length = nargs;
    for (let a = 0; a < nargs; a++) {
      const at = CTL.ARGS_BYTE + a * 8;
      switch (i32[CTL.ARG_TAGS + a]) {
        case ArgTag.Pointer: case ArgTag.U32: args[a] = view.getUint32(at, true); break;
        case ArgTag.I32: args[a] = view.getInt32(at, true); break;
        case ArgTag.F32: args[a] = view.getFloat32(at, true); break;
        case ArgTag.F64: args[a] = view.getFloat64(at, true); break;
        case ArgTag.I64: args[a] = view.getBigInt64(at, true); break;
      }
    }
    const gx = i32[CTL.GRID_X]!, gy = i32[CTL.GRID_Y]!, gz = i32[CTL.GRID_Z]!;
    const bx = i32[CTL.BLOCK_X]!, by = i32[CTL.BLOCK_Y]!, bz = i32[CTL.BLOCK_Z]!;
    const shared = i32[CTL.SHARED_BYTES]!;
    const seeded = i32[CTL.SEEDED]!;
    const seedLo = i32[CTL.SEED_LO]! >>> 0;
    const seedHi = i32[CTL.SEED_HI]! >>> 0;
    const active = i32[CTL.ACTIVE_WORKERS]!;
    const total = view.getFloat64(CTL.TOTAL_BLOCKS_BYTE, true);
    const chunk = i32[CTL.CHUNK_BLOCKS]!;
    if (Atomics.load(i32, CTL.GEN) !== gen) continue;
    if (command === Command.Shutdown) close();
    if (me >= active) continue;

    const fn = kernels[kidx]!;
    const loop = blockLoops[kidx];
    const mi = kernelModule[kidx]!;
    ex = instances[mi]!;
    ex.__launch(gx, gy, gz, bx, by, bz, shared, seeded, seedLo, seedHi);
    const order = seeded ? new BlockOrder(total, seedLo, seedHi) : undefined;
    const genTag = BigInt(gen >>> 0) << 32n;

    for (;;) {
      // Announce before claiming, so that an aborting host that sees IN_FLIGHT == 0 after
      // closing the claims knows no block of this launch is running or about to.
      Atomics.add(i32, CTL.IN_FLIGHT, 1);
      let c = -1;
      for (;;) {
        const cur = Atomics.load(i64, CLAIM);
        if ((cur & ~0xffffffffn) !== genTag) break;
        const next = cur & 0xffffffffn;
        if (next === CLOSED || Number(next) * chunk >= total) break;
        if (Atomics.compareExchange(i64, CLAIM, cur, cur + 1n) === cur) { c = Number(next); break; }
      }
      if (c < 0) { leave(); break; }
      const first = c * chunk;
      const last = Math.min(total, first + chunk);
      try {
        if (order || !loop) {
          for (let b = first; b < last; b++) {
            ex.__block(order ? order.at(b) : b);
            callKernel(fn, args);
          }
        } else {
          callBlockLoop(loop, first, last - first, args);
        }
      } catch (e) {
        // The adds a privatising chunk made before the trap reach the array, as atomics would have.
        ex.__privFlush?.();
        recordTrap(ex.__currentBlock(), trapMessage(e, mi, bx, by), genTag);
        leave();
        break;
      }
      const done = Atomics.add(i32, CTL.CHUNKS_DONE, 1) + 1;
      leave();
      // Wake the host only when the launch is over: a futex wake per chunk costs the worker a
      // system call and the host a context switch (measured: a third of vecMax's bandwidth).
      if (done >= Atomics.load(i32, CTL.TOTAL_CHUNKS)) signalHost();
    }
  }

  /** Leaves the in-flight set; on a closed launch (trap/abort) the last one out wakes the host. */
  function leave(): void {
    const left = Atomics.sub(i32, CTL.IN_FLIGHT, 1) - 1;
    if (left === 0 && (Atomics.load(i64, CLAIM) & 0xffffffffn) === CLOSED) signalHost();
  }

  function signalHost(): void {
    Atomics.add(i32, CTL.PROGRESS, 1);
    Atomics.notify(i32, CTL.PROGRESS);
  }

  /**
   * The trap's message: for a compiled kernel's own checks (an index out of bounds, a divergent
   * barrier), what and where, from the module's metadata; otherwise the engine's message.
   */
  function trapMessage(e: unknown, mi: number, bx: number, by: number): string {
    const engine = e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e);
    const info = init.modules[mi]!.trapInfo;
    const kind = ex.__trapKind?.() ?? 0;
    if (!info || kind === 0) return engine;
    ex.__trapClear!();
    const t = ex.__trapThread!();
    const thread = `thread (${t % bx}, ${Math.floor(t / bx) % by}, ${Math.floor(t / (bx * by))})`;
    const site = info.sites[ex.__trapSite!()];
    const at = site ? ` at ${site.file}:${site.line}:${site.column}` : '';
    if (kind === 1) {
      const array = info.arrays[ex.__trapArray!()] ?? '?';
      return `index ${ex.__trapIndex!()} is out of bounds of '${array.slice(array.indexOf('.') + 1)}' (length ${ex.__trapLength!()}) in ${thread}${at}`;
    }
    if (kind === 3) {
      return `divergent warp operation: the ${site?.what ?? 'condition'}${at} differs between the lanes of warp ${Math.floor(t / 32)} (first seen in ${thread}); CUDA requires every lane a warp operation names to reach it`;
    }
    return `divergent barrier: the ${site?.what ?? 'condition'}${at} differs between the threads of the block (first seen in ${thread}); CUDA requires every thread of a block to reach the same barriers`;
  }

  function recordTrap(block: number, e: unknown, genTag: bigint): void {
    // Close the claims of this generation so the other workers stop taking blocks.
    for (;;) {
      const cur = Atomics.load(i64, CLAIM);
      if ((cur & ~0xffffffffn) !== genTag) break;
      if (Atomics.compareExchange(i64, CLAIM, cur, genTag | CLOSED) === cur) break;
    }
    if (Atomics.compareExchange(i32, CTL.ERROR, 0, 1) !== 0) return;
    const msg = e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e);
    const bytes = encoder.encode(msg).subarray(0, CTL.ERROR_MSG_MAX);
    new Uint8Array(buffer, CTL.ERROR_MSG_BYTE, bytes.length).set(bytes);
    i32[CTL.ERROR_MSG_LEN] = bytes.length;
    i32[CTL.ERROR_WORKER] = me;
    view.setFloat64(CTL.ERROR_BLOCK_BYTE, block, true);
  }

  function close(): never {
    // The host terminates us; until then sleep.
    for (;;) Atomics.wait(i32, CTL.GEN, Atomics.load(i32, CTL.GEN));
  }
}

function callBlockLoop(fn: KernelFn, first: number, count: number, a: (number | bigint)[]): void {
  switch (a.length) {
    case 0: fn(first, count); return;
    case 1: fn(first, count, a[0]!); return;
    case 2: fn(first, count, a[0]!, a[1]!); return;
    case 3: fn(first, count, a[0]!, a[1]!, a[2]!); return;
    case 4: fn(first, count, a[0]!, a[1]!, a[2]!, a[3]!); return;
    case 5: fn(first, count, a[0]!, a[1]!, a[2]!, a[3]!, a[4]!); return;
    default: fn(first, count, ...a);
  }
}

/** Calls with a fixed arity where it matters (spread is slower in the per-block loop). */
function callKernel(fn: KernelFn, a: (number | bigint)[]): void {
  switch (a.length) {
    case 0: fn(); return;
    case 1: fn(a[0]!); return;
    case 2: fn(a[0]!, a[1]!); return;
    case 3: fn(a[0]!, a[1]!, a[2]!); return;
    case 4: fn(a[0]!, a[1]!, a[2]!, a[3]!); return;
    case 5: fn(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!); return;
    case 6: fn(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!, a[5]!); return;
    case 7: fn(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!, a[5]!, a[6]!); return;
    default: fn(...a);
  }
}
