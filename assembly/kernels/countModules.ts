// CMS pixel `countModules` (seed 000), with its exact CUDA semantics:
//   for (i = first; i < numElements; i += gridDim.x * blockDim.x) {
//     clusterId[i] = i;
//     if (invalidModuleId == id[i]) continue;
//     j = i - 1; while (j >= 0 and id[j] == invalidModuleId) --j;
//     if (j < 0 or id[j] != id[i]) { loc = atomicInc(moduleStart, nMaxModules); moduleStart[loc + 1] = i; }
//   }
// nMaxModules is a parameter (1856 for phase 1, 3892 for phase 2 as the seed states) rather
// than a template constant. The order of moduleStart[1..] is the order in which threads reach
// the atomicInc: schedule dependent by design (the seed shows three executions, three orders).

import { blockIdx, blockDim, gridDim, beginPhase, threadAt, scheduleIsFree, atomicInc } from "../runtime";

export const invalidModuleId: u16 = 65534;

// @ts-ignore: decorator
@inline function visit(i: i32, id: usize, moduleStart: usize, clusterId: usize, nMaxModules: u32): void {
  store<i32>(clusterId + (<usize>i << 2), i);
  const m = load<u16>(id + (<usize>i << 1));
  if (m == invalidModuleId) return;
  let j = i - 1;
  while (j >= 0 && load<u16>(id + (<usize>j << 1)) == invalidModuleId) --j;
  if (j < 0 || load<u16>(id + (<usize>j << 1)) != m) {
    const loc = atomicInc(moduleStart, nMaxModules);
    store<u32>(moduleStart + (<usize>(loc + 1) << 2), <u32>i);
  }
}

// The boundary test of a valid digi i (clusterId[i] already written): is the previous valid
// digi in another module (or is there none)? Then i starts a module.
// @ts-ignore: decorator
@inline function startsModule(i: i32, m: u16, id: usize, moduleStart: usize, nMaxModules: u32): void {
  let j = i - 1;
  while (j >= 0 && load<u16>(id + (<usize>j << 1)) == invalidModuleId) --j;
  if (j < 0 || load<u16>(id + (<usize>j << 1)) != m) {
    const loc = atomicInc(moduleStart, nMaxModules);
    store<u32>(moduleStart + (<usize>(loc + 1) << 2), <u32>i);
  }
}

export function countModules(id: usize, moduleStart: usize, clusterId: usize, numElements: i32, nMaxModules: u32): void {
  const nt = blockDim.x;
  const stride = gridDim.x * blockDim.x;
  const first = blockDim.x * blockIdx.x;
  if (!scheduleIsFree()) {
    for (let base = first; base < numElements; base += stride) {
      const n = beginPhase();
      for (let k = 0; k < n; k++) {
        const i = base + threadAt(k);
        if (i < numElements) visit(i, id, moduleStart, clusterId, nMaxModules);
      }
    }
    return;
  }
  // Fast path: the block's threads of one grid-stride step as SIMD lanes, in index order (a
  // legal schedule). Sixteen digis at a time: clusterId is written for all; a digi can start a
  // module only if it is valid and differs from the digi just before it, so only those lanes
  // (a mask, in index order) take the scalar boundary test — with 1 % invalid digis, one group
  // in seven has such a lane after an invalid digi, and it alone, not the sixteen, is tested.
  const invalid = i16x8.splat(<i16>invalidModuleId);
  const four = i32x4.splat(4);
  for (let base = first; base < numElements; base += stride) {
    const lim = numElements - base >= nt ? nt : numElements - base;
    let t = 0;
    if (base == 0) { visit(0, id, moduleStart, clusterId, nMaxModules); t = 1; }
    let iota = i32x4(base + t, base + t + 1, base + t + 2, base + t + 3);
    for (; t + 16 <= lim; t += 16) {
      const i = base + t;
      const p = id + (<usize>i << 1);
      const c0 = v128.load(p);
      const c1 = v128.load(p, 16);
      // The predecessors: c0 shifted by one lane, the lane before it loaded once.
      const p0 = v128.load(p - 2);
      const p1 = i8x16.shuffle(c0, c1, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
      const cp = clusterId + (<usize>i << 2);
      v128.store(cp, iota); iota = i32x4.add(iota, four);
      v128.store(cp, iota, 16); iota = i32x4.add(iota, four);
      v128.store(cp, iota, 32); iota = i32x4.add(iota, four);
      v128.store(cp, iota, 48); iota = i32x4.add(iota, four);
      const need0 = v128.not(v128.or(i16x8.eq(c0, p0), i16x8.eq(c0, invalid)));
      const need1 = v128.not(v128.or(i16x8.eq(c1, p1), i16x8.eq(c1, invalid)));
      if (v128.any_true(v128.or(need0, need1))) {
        let mask = i16x8.bitmask(need0) | (i16x8.bitmask(need1) << 8);
        while (mask != 0) {
          const u = <i32>ctz(mask);
          mask &= mask - 1;
          startsModule(i + u, load<u16>(p + (<usize>u << 1)), id, moduleStart, nMaxModules);
        }
      }
    }
    for (; t < lim; t++) visit(base + t, id, moduleStart, clusterId, nMaxModules);
  }
}
