// cuda_atomics.wgsl — CUDA atomic semantics that WGSL does not have, built from
// atomicCompareExchangeWeak loops.
//
// This file is a *prelude*: the simt WebGPU runtime prepends its text to every kernel's WGSL
// source before compiling (a plain text include, see src/webgpu/runtime.ts), so every kernel may
// call these functions without declaring them. Compiler messages are reported with the kernel's
// own line numbers (the runtime subtracts the prelude's line count).
//
// WGSL has no overloading, so each helper exists for the two address spaces that hold atomics:
// `...` takes a `ptr<storage, atomic<u32>, read_write>` (CUDA global memory) and `...Wg` takes a
// `ptr<workgroup, atomic<u32>>` (CUDA __shared__). Passing storage/workgroup pointers to user
// functions needs the WGSL language feature `unrestricted_pointer_parameters` (Dawn has it).
//
// Float atomics operate on an `atomic<u32>` word holding the f32's bits (bitcast), because WGSL
// has no atomic<f32>. All helpers return the *old* value, like CUDA.
//
// NaN: cudaAtomicMaxF32/MinF32 follow CUDA's fmaxf/fminf: a NaN operand is ignored in favour of
// the other (if the stored value is NaN it is replaced). Signed zeros compare equal, so the
// stored zero is kept.

// CUDA atomicInc: old = *p; *p = (old >= val) ? 0 : old + 1; return old.
fn cudaAtomicInc(p: ptr<storage, atomic<u32>, read_write>, val: u32) -> u32 {
  var old = atomicLoad(p);
  loop {
    let next = select(old + 1u, 0u, old >= val);
    let r = atomicCompareExchangeWeak(p, old, next);
    if (r.exchanged) { return old; }
    old = r.old_value;
  }
}

// CUDA atomicInc for a counter that starts at or below `val` (CMS memsets moduleStart[0] to 0):
// one atomicAdd ticket instead of a compare-exchange loop. Measured on an H100 through Dawn,
// the CAS loop made countModules 10x slower than CUDA (1800 contended increments cost
// O(contenders^2) round trips); the ticket is one atomic per call, like CUDA's native atomicInc.
// Exactness: the k-th increment in the atomic order returns (v0 + k) mod (val + 1), as CUDA's
// does, because tickets only differ from CUDA's values by multiples of (val + 1); the thread
// whose ticket completes a cycle subtracts (val + 1), so the value left behind is CUDA's
// (v0 + K) mod (val + 1). Only a non-atomic reader of *p in mid-kernel could tell the difference.
fn cudaAtomicIncFromBelow(p: ptr<storage, atomic<u32>, read_write>, val: u32) -> u32 {
  let t = atomicAdd(p, 1u);
  let m = val + 1u;
  if (m == 0u) { return t; }   // val = 0xffffffff: CUDA's atomicInc is a plain wrapping add
  let r = t % m;
  if (r == val) { atomicSub(p, m); }
  return r;
}

fn cudaAtomicIncWg(p: ptr<workgroup, atomic<u32>>, val: u32) -> u32 {
  var old = atomicLoad(p);
  loop {
    let next = select(old + 1u, 0u, old >= val);
    let r = atomicCompareExchangeWeak(p, old, next);
    if (r.exchanged) { return old; }
    old = r.old_value;
  }
}

// CUDA atomicDec: old = *p; *p = (old == 0 || old > val) ? val : old - 1; return old.
fn cudaAtomicDec(p: ptr<storage, atomic<u32>, read_write>, val: u32) -> u32 {
  var old = atomicLoad(p);
  loop {
    let next = select(old - 1u, val, old == 0u || old > val);
    let r = atomicCompareExchangeWeak(p, old, next);
    if (r.exchanged) { return old; }
    old = r.old_value;
  }
}

fn cudaAtomicDecWg(p: ptr<workgroup, atomic<u32>>, val: u32) -> u32 {
  var old = atomicLoad(p);
  loop {
    let next = select(old - 1u, val, old == 0u || old > val);
    let r = atomicCompareExchangeWeak(p, old, next);
    if (r.exchanged) { return old; }
    old = r.old_value;
  }
}

// fmaxf/fminf with CUDA's NaN rule (a NaN operand loses to a number).
fn cudaFmaxf(a: f32, b: f32) -> f32 {
  if (a != a) { return b; }
  if (b != b) { return a; }
  return select(a, b, b > a);
}

fn cudaFminf(a: f32, b: f32) -> f32 {
  if (a != a) { return b; }
  if (b != b) { return a; }
  return select(a, b, b < a);
}

// atomicMax/atomicMin/atomicAdd on an f32 stored as its bits in an atomic<u32>.
// A CAS is only attempted when the value changes, so an uncontended no-op costs one load.
fn cudaAtomicMaxF32(p: ptr<storage, atomic<u32>, read_write>, v: f32) -> f32 {
  var old = atomicLoad(p);
  loop {
    let next = bitcast<u32>(cudaFmaxf(bitcast<f32>(old), v));
    if (next == old) { return bitcast<f32>(old); }
    let r = atomicCompareExchangeWeak(p, old, next);
    if (r.exchanged) { return bitcast<f32>(old); }
    old = r.old_value;
  }
}

fn cudaAtomicMaxF32Wg(p: ptr<workgroup, atomic<u32>>, v: f32) -> f32 {
  var old = atomicLoad(p);
  loop {
    let next = bitcast<u32>(cudaFmaxf(bitcast<f32>(old), v));
    if (next == old) { return bitcast<f32>(old); }
    let r = atomicCompareExchangeWeak(p, old, next);
    if (r.exchanged) { return bitcast<f32>(old); }
    old = r.old_value;
  }
}

fn cudaAtomicMinF32(p: ptr<storage, atomic<u32>, read_write>, v: f32) -> f32 {
  var old = atomicLoad(p);
  loop {
    let next = bitcast<u32>(cudaFminf(bitcast<f32>(old), v));
    if (next == old) { return bitcast<f32>(old); }
    let r = atomicCompareExchangeWeak(p, old, next);
    if (r.exchanged) { return bitcast<f32>(old); }
    old = r.old_value;
  }
}

fn cudaAtomicMinF32Wg(p: ptr<workgroup, atomic<u32>>, v: f32) -> f32 {
  var old = atomicLoad(p);
  loop {
    let next = bitcast<u32>(cudaFminf(bitcast<f32>(old), v));
    if (next == old) { return bitcast<f32>(old); }
    let r = atomicCompareExchangeWeak(p, old, next);
    if (r.exchanged) { return bitcast<f32>(old); }
    old = r.old_value;
  }
}

fn cudaAtomicAddF32(p: ptr<storage, atomic<u32>, read_write>, v: f32) -> f32 {
  var old = atomicLoad(p);
  loop {
    let next = bitcast<u32>(bitcast<f32>(old) + v);
    let r = atomicCompareExchangeWeak(p, old, next);
    if (r.exchanged) { return bitcast<f32>(old); }
    old = r.old_value;
  }
}

fn cudaAtomicAddF32Wg(p: ptr<workgroup, atomic<u32>>, v: f32) -> f32 {
  var old = atomicLoad(p);
  loop {
    let next = bitcast<u32>(bitcast<f32>(old) + v);
    let r = atomicCompareExchangeWeak(p, old, next);
    if (r.exchanged) { return bitcast<f32>(old); }
    old = r.old_value;
  }
}
