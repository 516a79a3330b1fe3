// vecMax.wgsl — WGSL twin of the seed's VecMax (CUDA): grid-stride loop, then a tree reduction in
// workgroup memory; one partial result per block in B[blockIdx.x].
//
// CUDA signature: __global__ void vecMax(const float* A, float* B, int N)
// Binding convention (see src/webgpu/runtime.ts): arrays in declaration order at
// @group(0) @binding(0..), then the Launch uniform (gridDim, blockOffset, then scalars).
//
// Semantics (must match the AssemblyScript kernel of the same name):
// - A thread's running value starts at -infinity (the identity), so a block that sees no element
//   writes -infinity.
// - Comparisons are the seed's `if (A[i] > temp) temp = A[i]`: a NaN element never wins
//   (NaN > x is false), so NaNs in A are ignored; if every element is NaN the result is the
//   identity. WGSL's builtin max() is not used because its NaN behaviour is unspecified.
// - Equal values keep the earlier one, so -0 vs +0 may come out as either sign.
// - BLOCK_X must be a power of two (the seed's tree halves blockDim.x), BLOCK_Y = BLOCK_Z = 1.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  N: i32,
}

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read_write> B: array<f32>;
@group(0) @binding(2) var<uniform> launch: Launch;

// Infinity is not a WGSL const-expression value (const bitcast<f32>(0x7f800000u) is a compile
// error), so the identity's bits sit in a private variable and are bitcast at run time.
var<private> NEG_INF_BITS: u32 = 0xff800000u;

var<workgroup> cache: array<f32, BLOCK_X>;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn vecMax(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.N, 0));
  let stride = BLOCK_X * launch.gridDim.x;
  var i = BLOCK_X * blockIdx + threadIdx.x;
  let cacheIndex = threadIdx.x;

  var temp = bitcast<f32>(NEG_INF_BITS);
  while (i < n) {
    let a = A[i];
    if (a > temp) { temp = a; }
    let next = i + stride;
    if (next < i) { break; } // u32 wrap: past any possible N
    i = next;
  }
  cache[cacheIndex] = temp;
  workgroupBarrier();

  var ib = BLOCK_X / 2u;
  while (ib != 0u) {
    if (cacheIndex < ib && cache[cacheIndex + ib] > cache[cacheIndex]) {
      cache[cacheIndex] = cache[cacheIndex + ib];
    }
    workgroupBarrier();
    ib = ib / 2u;
  }

  if (cacheIndex == 0u) {
    B[blockIdx] = cache[0];
  }
}
