// vecSum.wgsl — WGSL twin of VecSum: the seed's VecMax shape (grid-stride loop, then a tree in
// workgroup memory) with + instead of max; one partial sum per block in B[blockIdx.x].
//
// CUDA signature: __global__ void vecSum(const float* A, double* B, int N)
// Binding convention (see src/webgpu/runtime.ts): arrays in declaration order at
// @group(0) @binding(0..), then the Launch uniform (gridDim, blockOffset, then scalars).
//
// Arithmetic (must match the AssemblyScript kernel of the same name):
// - Each thread accumulates its grid-stride elements in f32 with Kahan compensation
//   (s, c) and contributes s - c to the block tree.
// - The block tree adds pairs in f32: cache[t] += cache[t + ib] for ib = BLOCK_X/2 .. 1.
// - Empty blocks / threads contribute +0.
// - B is the kernel's f64 column (declared 'f64[]', as the wasm kernel's): WGSL has no f64, so it
//   is bound as array<vec2u>, the (lo, hi) words of each element's IEEE binary64 bits, and the
//   block's f32 partial is written there converted exactly (f64BitsOfF32, wide.wgsl prelude).
//   The host reads an ordinary Float64Array. Only the precision differs from the wasm kernel,
//   which sums in f64: see the bound below.
//
// Error bound. Let u = 2^-24 (f32 unit roundoff), L = log2(BLOCK_X), m = the most elements any
// thread of the block summed (ceil(N / (gridDim.x * BLOCK_X))), and S_b = sum of |A[i]| over the
// elements block b visited. With exact block sum T_b, the partial B[b] satisfies
//     |B[b] - T_b| <= ((L + 3) * u + 2 * m * u^2) * S_b        (no overflow, no denormals)
// (Kahan per thread: 2u + O(m u^2) relative to the thread's sum of |a|, Higham Thm 4.8; one more
// rounding for s - c; the L-level tree: gamma_L relative to the sum of the |partials|.)
// The tests check this bound against an f64 reference with (L + 4) * u as the factor.
// Notes: SwiftShader flushes f32 denormals to zero, which can add up to 2^-126 per operation;
// Kahan compensation relies on the compiler not reassociating (t - s) - y (Tint/SPIR-V don't).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  N: i32,
}

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read_write> B: array<vec2u>;
@group(0) @binding(2) var<uniform> launch: Launch;

var<workgroup> cache: array<f32, BLOCK_X>;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn vecSum(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.N, 0));
  let stride = BLOCK_X * launch.gridDim.x;
  var i = BLOCK_X * blockIdx + threadIdx.x;
  let cacheIndex = threadIdx.x;

  var s = 0.0f;
  var c = 0.0f;
  while (i < n) {
    let y = A[i] - c;
    let t = s + y;
    c = (t - s) - y;
    s = t;
    let next = i + stride;
    if (next < i) { break; } // u32 wrap: past any possible N
    i = next;
  }
  cache[cacheIndex] = s - c;
  workgroupBarrier();

  var ib = BLOCK_X / 2u;
  while (ib != 0u) {
    if (cacheIndex < ib) {
      cache[cacheIndex] = cache[cacheIndex] + cache[cacheIndex + ib];
    }
    workgroupBarrier();
    ib = ib / 2u;
  }

  if (cacheIndex == 0u) {
    B[blockIdx] = f64BitsOfF32(cache[0]);
  }
}
