// The trap record of kernels compiled to WGSL (src/compiler/wgslRuntime.ts writes it): the first
// out-of-bounds index or divergent barrier of a launch, turned into the message the wasm
// backends put in their KernelError (src/pool/workerLoop.ts), so that both read the same.
import type { ModuleWgslKernel } from '../kernelModule.js';
import type { Dim3 } from '../dims.js';

/** Bytes of the record: 12 u32 words (count, kind, what, index, signed, length, site, thread, block x/y/z, spare). */
export const TRAP_RECORD_BYTES = 48;

export function trapMessage(rec: Uint32Array, block: Dim3, wgsl: ModuleWgslKernel, arrays: readonly string[]): { blockIdx: Dim3; message: string } {
  const [, kind, what, index, signed, length, siteNo, lin, bx, by, bz] = rec as unknown as number[];
  const t = lin!;
  const thread = `thread (${t % block.x}, ${Math.floor(t / block.x) % block.y}, ${Math.floor(t / (block.x * block.y))})`;
  const site = wgsl.sites?.[siteNo!];
  const at = site ? ` at ${site.file}:${site.line}:${site.column}` : '';
  const blockIdx = { x: bx!, y: by!, z: bz! };
  if (kind === 1) {
    const array = arrays[what!] ?? '?';
    const i = signed ? index! | 0 : index! >>> 0;
    return { blockIdx, message: `index ${i} is out of bounds of '${array.slice(array.indexOf('.') + 1)}' (length ${length}) in ${thread}${at}` };
  }
  if (kind === 4) return { blockIdx, message: `unreachable executed in ${thread}${at}` };
  // wasm's own traps, word for word (a wasm KernelError names no thread or line for them).
  if (kind === 5) return { blockIdx, message: 'RuntimeError: divide by zero' };
  if (kind === 6) return { blockIdx, message: 'RuntimeError: divide result unrepresentable' };
  if (kind === 3) {
    return {
      blockIdx,
      message: `divergent warp operation: the ${site?.what ?? 'condition'}${at} differs between the lanes of warp ${Math.floor(t / 32)} (first seen in ${thread}); CUDA requires every lane a warp operation names to reach it`,
    };
  }
  return {
    blockIdx,
    message: `divergent barrier: the ${site?.what ?? 'condition'}${at} differs between the threads of the block (first seen in ${thread}); CUDA requires every thread of a block to reach the same barriers`,
  };
}
