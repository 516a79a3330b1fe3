// The WGSL that generated kernels share: the per-invocation globals, the trap record (an
// out-of-bounds index or a divergent barrier, read back by the host after the launch), the
// workgroup-memory emulation of warp shuffles, and CAS loops for CUDA atomics WGSL lacks.
// The runtime (src/webgpu/runtime.ts) also prepends assembly/kernels/wgsl/cuda_atomics.wgsl,
// whose cudaAtomicInc/Dec and f32 add/min/max helpers the generated code calls.

/** Words of the trap record (`sx_err`): the host reads them back after every launch. */
export const TRAP_WORDS = 12;
/** Trap kinds, as in assembly/runtime/compiled.ts. */
export const TRAP_OUT_OF_BOUNDS = 1;
export const TRAP_DIVERGENT = 2;
/** The condition of an `if` around warp operations differs between the live lanes of a warp (wasm's kind 3). */
export const TRAP_DIVERGENT_WARP = 3;
/** `unreachable()` was reached (CUDA's `__trap()`, an `assert` that failed): wasm's `unreachable` trap. */
export const TRAP_UNREACHABLE = 4;
/** Integer division or remainder by zero: wasm's `divide by zero` trap. */
export const TRAP_DIVIDE_BY_ZERO = 5;
/** The most negative integer divided by -1: wasm's `divide result unrepresentable` trap. */
export const TRAP_DIVIDE_OVERFLOW = 6;

/** Per-invocation values that device functions and helpers read (set at the entry point). */
export const GLOBALS = `var<private> sx_tid: vec3<i32>;
var<private> sx_gbid: vec3<i32>;
var<private> sx_lin: u32;
var<private> sx_inf: f32;
var<private> sx_nan: f32;
override sx_nthreads: u32 = BLOCK_X * BLOCK_Y * BLOCK_Z;`;

/**
 * A trap is noted in private variables (the invocation's first only) and written to the record
 * once, when the invocation ends (sx_flush, called after the kernel's body). A bounds check is
 * branch-free (sx_trapIf: selects, and a read clamped to index 0), so a GPU compiler can issue
 * the loads of an unrolled loop ahead of the checks; a check with a branch to atomics on the
 * record kept vecMax at its speed without unrolling (H100, 16M f32, grid 1024 x 256: 0.0607 ms
 * with branches, 0.0364 ms branch-free, 0.0349 ms unchecked). The first invocation to flush wins
 * the record; a trapped invocation goes on with a clamped index (reads) or without the store
 * (writes), so nothing outside an array is touched. The note is two words, the site (plus one;
 * zero for none) and the index: what the site stands for — kind, signedness and array, packed
 * as kind | signed << 7 | what << 8 — is a constant per site, looked up only when the record is
 * written (sx_siteCode, whose switch body is `codes`). Keeping the note live costs a launch on
 * an H100 about 10 % over clamping alone (vecMax 16M f32 at grid 65,536: 0.165 against 0.149
 * ms; countModules 16M: 0.129 against 0.115); three words (kind, site, index) cost 2–5 % more
 * than these two. `lengths` is the body of sx_trapLen(what), the length of each array (the
 * record names it).
 */
export function trapFns(lengths: string, codes: string): string {
  return `var<private> sx_tsite: u32;
var<private> sx_tindex: u32;
fn sx_trapIf(bad: bool, kind: u32, what: u32, index: u32, signed: u32, site: u32) {
  let first = bad & (sx_tsite == 0u);
  sx_tsite = select(sx_tsite, site + 1u, first);
  sx_tindex = select(sx_tindex, index, first);
}
fn sx_trapLen(what: u32) -> u32 {
${lengths}
}
fn sx_siteCode(site: u32) -> u32 {
${codes}
}
fn sx_flush() {
  if (sx_tsite != 0u && atomicAdd(&sx_err[0], 1u) == 0u) {
    let site = sx_tsite - 1u;
    let code = sx_siteCode(site);
    let what = code >> 8u;
    atomicStore(&sx_err[1], code & 127u); atomicStore(&sx_err[2], what); atomicStore(&sx_err[3], sx_tindex);
    atomicStore(&sx_err[4], (code >> 7u) & 1u); atomicStore(&sx_err[5], select(0u, sx_trapLen(what), (code & 127u) == ${TRAP_OUT_OF_BOUNDS}u)); atomicStore(&sx_err[6], site);
    atomicStore(&sx_err[7], sx_lin); atomicStore(&sx_err[8], u32(sx_gbid.x)); atomicStore(&sx_err[9], u32(sx_gbid.y));
    atomicStore(&sx_err[10], u32(sx_gbid.z));
  }
}`;
}

/** CUDA's __activemask() in a block without exited threads: the lanes of the warp that exist. */
export const ACTIVE_LANES_FN = `fn sx_activeLanes() -> u32 {
  let n = min(32u, sx_nthreads - (sx_lin & ~31u));
  return select((1u << n) - 1u, 0xffffffffu, n >= 32u);
}`;

/**
 * Warp shuffles through a workgroup array: every lane stores its value, a barrier, each lane
 * reads its partner (assembly/runtime/compiled.ts's rules: a partner that is not a thread of the
 * block gives the lane its own value).
 */
export function shuffleFns(t: string): string {
  return `fn sx_lane_${t}(src: i32) -> ${t} {
  let s = i32(sx_lin & ~31u) + src;
  if (s >= 0 && u32(s) < sx_nthreads) { return sx_shfl_${t}[s]; }
  return sx_shfl_${t}[sx_lin];
}
fn sx_shfl_idx_${t}(src: i32, width: i32) -> ${t} {
  let lane = i32(sx_lin & 31u);
  return sx_lane_${t}((lane & ~(width - 1)) + (src & (width - 1)));
}
fn sx_shfl_up_${t}(delta: i32, width: i32) -> ${t} {
  let lane = i32(sx_lin & 31u);
  return sx_lane_${t}(select(lane, lane - delta, delta >= 0 && (lane & (width - 1)) >= delta));
}
fn sx_shfl_down_${t}(delta: i32, width: i32) -> ${t} {
  let lane = i32(sx_lin & 31u);
  return sx_lane_${t}(select(lane, lane + delta, delta >= 0 && (lane & (width - 1)) + delta < width));
}
fn sx_shfl_xor_${t}(mask: i32, width: i32) -> ${t} {
  let lane = i32(sx_lin & 31u);
  let src = lane ^ mask;
  let end = (lane & ~(width - 1)) + width;
  return sx_lane_${t}(select(src, lane, src >= end || src < 0 || src >= 32));
}`;
}

/**
 * Warp shuffles through subgroup builtins, where the device found its subgroups to be 32 lanes
 * laid out as CUDA's warps (src/webgpu/subgroupProbe.ts): lane l of warp w is invocation
 * 32·w + l. Every invocation calls subgroupShuffle (it must run in uniform control flow); a lane
 * whose partner is not a thread of the block keeps its own value, as with the emulation above.
 */
export function subgroupShuffleFns(t: string): string {
  return `fn sx_sglane_${t}(v: ${t}, src: i32) -> ${t} {
  // The partner's subgroup invocation id, relative to this lane's (equal to src where subgroups are warps).
  let r = subgroupShuffle(v, u32(i32(sx_sgid) + src - i32(sx_lin & 31u)));
  return select(v, r, src >= 0 && src < 32 && u32(i32(sx_lin & ~31u) + src) < sx_nthreads);
}
fn sx_sg_idx_${t}(v: ${t}, src: i32, width: i32) -> ${t} {
  let lane = i32(sx_lin & 31u);
  return sx_sglane_${t}(v, (lane & ~(width - 1)) + (src & (width - 1)));
}
fn sx_sg_up_${t}(v: ${t}, delta: i32, width: i32) -> ${t} {
  let lane = i32(sx_lin & 31u);
  return sx_sglane_${t}(v, select(lane, lane - delta, delta >= 0 && (lane & (width - 1)) >= delta));
}
fn sx_sg_down_${t}(v: ${t}, delta: i32, width: i32) -> ${t} {
  let lane = i32(sx_lin & 31u);
  return sx_sglane_${t}(v, select(lane, lane + delta, delta >= 0 && (lane & (width - 1)) + delta < width));
}
fn sx_sg_xor_${t}(v: ${t}, mask: i32, width: i32) -> ${t} {
  let lane = i32(sx_lin & 31u);
  let src = lane ^ mask;
  let end = (lane & ~(width - 1)) + width;
  return sx_sglane_${t}(v, select(src, lane, src >= end || src < 0 || src >= 32));
}`;
}

/**
 * 32-bit integer division or remainder with wasm's traps (`name` = sx_div_T or sx_rem_T, T of i32,
 * u32): a zero divisor notes a divide-by-zero trap at site `zs`, the most negative i32 divided
 * by -1 an unrepresentable result at `os` (a remainder by -1 is 0, as in wasm). The value
 * returned after a trap is WGSL's own (the launch fails with the trap).
 */
export function divisionFn(name: string, op: '/' | '%', t: 'i32' | 'u32'): string {
  const zero = `(b == 0${t === 'i32' ? 'i' : 'u'})`;
  const overflow = op === '/' && t === 'i32' ? '(a == i32(-2147483647i - 1i) && b == -1i)' : undefined;
  const note = overflow ? `  sx_trapIf(zero || ${overflow}, ${TRAP_DIVIDE_BY_ZERO}u, 0u, 0u, 0u, select(os, zs, zero));` : `  sx_trapIf(zero, ${TRAP_DIVIDE_BY_ZERO}u, 0u, 0u, 0u, zs);`;
  return `fn ${name}(a: ${t}, b: ${t}, zs: u32${overflow ? ', os: u32' : ''}) -> ${t} {
  let zero = ${zero};
${note}
  return a ${op} b;
}`;
}

/** A strong compare-and-swap (CUDA's atomicCAS) from WGSL's weak one: retry only spurious failures. */
export function casFn(name: string, ptrType: string, t: string): string {
  return `fn ${name}(p: ${ptrType}, cmp: ${t}, v: ${t}) -> ${t} {
  loop {
    let r = atomicCompareExchangeWeak(p, cmp, v);
    if (r.exchanged || r.old_value != cmp) { return r.old_value; }
  }
}`;
}
