// Kernels for test/compiler-lanes.test.ts: the constructs the block form's x4 regions (four
// threads in SIMD lanes, src/compiler/laneVector.ts) translate, and those they run per lane.
import { threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __shared__, __extern_shared__, __local__, atomicAdd, atomicMax, atomicCAS } from "simt/kernel";

/** Affine loads and stores, float arithmetic, an int-to-float cast, an if/else that differs between lanes, integer bit operations. */
export function affineMix(a: f32[], b: i32[], out: f32[], outI: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    let x: f32 = a[i] * 2.0 - <f32>b[i];
    if (b[i] > 0) x = x + 1; else x = -x;
    out[i] = x;
    outI[i] = ((b[i] << 2) ^ (b[i] >> 1)) | (i & 7);
  }
}

/** A strided loop per thread: the lanes run it together, then each finishes on its own. */
export function stridedSum(a: f32[], out: f32[], n: i32): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  let s: f32 = 0;
  for (let i = g; i < n; i += blockDim.x * gridDim.x) s += a[i];
  out[g] = s;
}

/** A loop whose trip count is read per thread, with a uniform counter whose loop runs per lane (a `break`). */
export function divergentLoop(counts: i32[], out: i32[]): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  let k = 0;
  let acc = 0;
  while (k < counts[g]) { acc += k * 3; k++; }
  let c = 0;
  for (let j = 0; j < 4; j++) { if (j == 2) break; c += 1; acc += counts[g] % 5; }
  out[g] = acc * 10 + c;
}

/** Narrow and unsigned elements (loaded lane by lane), unsigned comparisons, a shared array across a barrier. */
export function unsignedShared(bytes: u8[], words: u32[], out: u32[]): void {
  const s = __extern_shared__<u32>();
  const t = threadIdx.y * blockDim.x + threadIdx.x;
  const g = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  let w = words[g];
  if (w > 0x80000000) w = w - 0x80000000; else w = w + <u32>bytes[g];
  s[t] = w;
  __syncthreads();
  const n = blockDim.x * blockDim.y;
  out[g] = s[(t + 1) % n] + (s[t] >> 3);
}

/** A float min and max per thread, a shared tree with a guard, an atomic per lane. */
export function treeMax(a: f32[], out: f32[], count: u32[]): void {
  const cache = __extern_shared__<f32>();
  const t = threadIdx.x;
  let m: f32 = -Infinity;
  const x = a[blockIdx.x * blockDim.x + t];
  if (x > m) m = x;
  if (x > 0) atomicAdd(count, 0, 1);
  cache[t] = m;
  __syncthreads();
  for (let s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s && cache[t + s] > cache[t]) cache[t] = cache[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = cache[0];
}

/** Reads a[threadIdx.x + off]: past the end for the threads whose index reaches a.length. */
export function pastEnd(a: i32[], out: i32[], off: i32): void {
  out[threadIdx.x] = a[threadIdx.x + off];
}

/** An atomic whose per-thread arguments are element reads at affine indices: one range check of the four lanes' reads. */
export function readBins(data: u8[], bins: u32[], off: i32): void {
  atomicAdd(bins, data[threadIdx.x + off], 1);
}

/**
 * Loops from threadIdx.x to a uniform bound, each a region's only statement (a shared array's
 * initialisation, accumulation and merge): the thread loop stops at the bound, since a thread
 * past it does nothing. Every row of a 2-D block runs them (the same values, added once a row).
 */
export function boundLoops(data: u32[], out: u32[], k: i32): void {
  const s = __shared__<u32>(64);
  for (let i = threadIdx.x; i < 64; i += blockDim.x) s[i] = <u32>i * 3;
  __syncthreads();
  for (let i = threadIdx.x; i <= k; i += blockDim.x) atomicAdd(s, i & 63, data[blockIdx.x * (k + 1) + i]);
  __syncthreads();
  if (threadIdx.y == 0) for (let i = threadIdx.x; i < 64; i += blockDim.x) out[blockIdx.x * 64 + i] = s[i];
}

/**
 * Values written in each of two regions before they are read (no context slot). After the
 * barrier, `x = …` (affine), `y = …` (the same in four threads of a row) and `z = …` (a
 * vector) are each the region's one assignment of their variable at its top level: they
 * declare the region's value; w, assigned twice there, stays a vector assigned in place.
 */
export function splitRegions(data: i32[], out: i32[], width: i32): void {
  const s = __shared__<i32>(256);
  let x = blockIdx.x * blockDim.x + threadIdx.x;
  let y = blockIdx.x + threadIdx.y;
  let z = x < width ? data[x] : -1;
  let w = z;
  s[threadIdx.x] = x < width ? z + y + w : 0;
  __syncthreads();
  x = threadIdx.x + blockIdx.x * blockDim.x;
  y = width - blockIdx.x + threadIdx.y;
  z = s[(threadIdx.x + 1) % blockDim.x];
  w = z;
  if (z > 0) w = z * 2;
  if (x < width) out[x] = w * 3 + y;
}

/** A __local__ array read at indices the same in every thread (its elements are each thread's own). */
export function localRows(a: i32[], out: i32[]): void {
  const v = __local__<i32>(4);
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  for (let k = 0; k < 4; k++) v[k] = a[g] * (k + 1);
  let s = 0;
  for (let k = 0; k < 4; k++) s += v[k] * v[3 - k];
  out[g] = s + v[2];
}

/**
 * A strided loop that skips elements (`if (…) continue`), a backward scan guarded by `&&`, a
 * `||` and a ternary whose loads only some lanes may make, 16-bit loads.
 */
export function skipScan(id: u16[], vals: i32[], out: i32[], prev: i32[], marks: u32[], n: i32): void {
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = -1;
    prev[i] = i > 0 ? vals[i - 1] : -5;
    if (id[i] == 7) continue;
    let j = i - 1;
    while (j >= 0 && id[j] == 7) --j;
    out[i] = j;
    if (j < 0 || id[j] != id[i]) atomicAdd(marks, 0, 1);
  }
}

/**
 * Scans from an affine start: `let j = i - 1; while (j >= 0 && id[j] == 7) --j;` tests its first
 * iteration on lane 0's value and, where no lane enters it, runs the rest with j affine; k is
 * stepped again after its loop, so it stays a vector throughout.
 */
export function entryScan(id: u16[], out: i32[], n: i32): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    let j = i - 1;
    while (j >= 0 && id[j] == 7) --j;
    let k = i + 1;
    while (k < n && id[k] == 7) k++;
    k += 2;
    out[i] = (j < 0 || id[j] != id[i] ? 1 : 0) + 2 * j + 10000 * k;
  }
}

/** Signed 8- and 16-bit loads widened to i32 lanes. */
export function widen(a8: i8[], a16: i16[], out: i32[]): void {
  const i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = <i32>a8[i] * 100000 + <i32>a16[i];
}

/**
 * Atomics whose result is unused, with per-thread indices and values: shared bins at a computed
 * index (vector operands), a global max and a compare-and-swap of element reads (per lane).
 */
export function binsAndMax(data: u8[], vals: i32[], bins: u32[], maxOut: i32[], cas: i32[], n: i32): void {
  const local = __shared__<u32>(16);
  for (let i = threadIdx.x; i < 16; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (let i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(local, <i32>data[i] & 15, 1);
    atomicMax(maxOut, 0, vals[i]);
    atomicCAS(cas, i, 0, vals[i]);
  }
  __syncthreads();
  for (let i = threadIdx.x; i < 16; i += blockDim.x) atomicAdd(bins, i, local[i]);
}

/** Counters a loop's break or continue leaves different in each thread, at uniform assignments. */
export function jumpCounts(a: i32[], out: i32[]): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const x = a[g];
  let c = 0;
  for (let j = 0; j < 8; j++) { if (j == x) break; c += 1; }
  let d = 0;
  for (let j = 0; j < 8; j++) { if (j < x) continue; d += 2; }
  let e = 0;
  for (let j = 0; j < 3; j++) { if (j > 0) { if (x < 4) break; } e += 3; }
  // An index a while loop steps after a continue some threads take: not one value for all lanes.
  let i = threadIdx.x;
  let f = 0;
  while (i < threadIdx.x + 12) { i += 1; if ((i & 1) == (x & 1)) continue; f += i; i += 2; }
  out[g] = c * 10000 + d * 100 + e + f * 1000000;
}

/**
 * Comparisons of an affine value (lane k: base + threadIdx.x + k, wrapping past i32.MAX_VALUE
 * when base is near it) with uniform ones: each operator, in both orders, in ifs, a loop's
 * condition and a `continue` — the x4 form tests them on lane 0's value alone.
 */
export function affineCompare(out: i32[], lo: i32, hi: i32, base: i32): void {
  const t = threadIdx.x;
  const v = base + t;
  let bits = 0;
  if (v < hi) bits |= 1;
  if (v <= hi) bits |= 2;
  if (v > lo) bits |= 4;
  if (v >= lo) bits |= 8;
  if (v == hi) bits |= 16;
  if (v != lo) bits |= 32;
  if (hi > v) bits |= 64;
  if (lo >= v) bits |= 128;
  if (hi == v) bits |= 256;
  if (lo != v) bits |= 512; else bits |= 1024;
  // (bounds kept 2^28 from i32's ends: the steps never wrap, at most 16 trips)
  let n = 0;
  for (let i = base + t; i < (hi & ~(1 << 28)); i += 1 << 28) n++;
  let m = 0;
  for (let i = base + t; i > (lo | (1 << 28)); i -= 1 << 28) m++;
  let c = 0;
  for (let j = 0; j < 4; j++) { if (t + j * 3 <= lo) continue; c += j + 1; }
  out[blockIdx.x * blockDim.x + t] = bits + (n << 11) + (m << 16) + (c << 21);
}

/** Each thread an exclusive scan of its own chunk (the per-thread runs of a scan): the loop runs per lane, each streaming its chunk. */
export function chunkRuns(a: i32[], out: i32[], items: i32): void {
  const g = blockIdx.x * blockDim.x + threadIdx.x;
  const begin = g * items;
  let run = 0;
  for (let i = begin; i < begin + items; i++) { out[i] = run; run += a[i]; }
}
