// countModules.wgsl — WGSL twin of the CMS pixel kernel countModules (seed 000), exact semantics:
//
//   for (int i = first; i < numElements; i += gridDim.x * blockDim.x) {
//     clusterId[i] = i;
//     if (invalidModuleId == id[i]) continue;
//     auto j = i - 1;
//     while (j >= 0 and id[j] == invalidModuleId) --j;
//     if (j < 0 or id[j] != id[i]) {
//       auto loc = atomicInc(moduleStart, nMaxModules);
//       moduleStart[loc + 1] = i;
//     }
//   }
//
// Parameters, in order: id (u16 array), moduleStart (u32 array), clusterId (i32 array),
// numElements (i32 scalar), nMaxModules (u32 scalar; the seed's constexpr, here a parameter).
// Binding convention (see src/webgpu/runtime.ts): arrays in declaration order at
// @group(0) @binding(0..), then the Launch uniform (gridDim, blockOffset, then scalars).
//
// 16-bit column: WGSL has no 16-bit storage, so `id` is bound as array<u32> holding the *same
// bytes* the host has for its Uint16Array: element i sits in word i/2, in the low half when i is
// even and the high half when i is odd (little-endian). The host uploads the u16 bytes unchanged
// (padded with zeros to a multiple of 4 bytes); idAt() unpacks.
//
// atomicInc is CUDA's wrapping one (old >= val ? 0 : old + 1), built from a CAS loop in the
// cuda_atomics.wgsl prelude. moduleStart must hold nMaxModules + 2 words and moduleStart[0] must
// be zeroed by the host before the launch.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

const invalidModuleId: u32 = 65534u;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  numElements: i32,
  nMaxModules: u32,
}

@group(0) @binding(0) var<storage, read> id: array<u32>;
@group(0) @binding(1) var<storage, read_write> moduleStart: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> clusterId: array<i32>;
@group(0) @binding(3) var<uniform> launch: Launch;

fn idAt(i: u32) -> u32 {
  return (id[i >> 1u] >> ((i & 1u) << 4u)) & 0xffffu;
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn countModules(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.numElements, 0));
  let stride = BLOCK_X * launch.gridDim.x;
  var i = BLOCK_X * blockIdx + threadIdx.x;

  while (i < n) {
    clusterId[i] = i32(i);
    let idi = idAt(i);
    if (idi != invalidModuleId) {
      var j = i32(i) - 1;
      while (j >= 0 && idAt(u32(j)) == invalidModuleId) {
        j = j - 1;
      }
      if (j < 0 || idAt(u32(j)) != idi) {
        // moduleStart[0] starts at 0 (the host zeroes it, as CMSSW does): the ticket form is exact.
        let loc = cudaAtomicIncFromBelow(&moduleStart[0], launch.nMaxModules);
        atomicStore(&moduleStart[loc + 1u], i);
      }
    }
    let next = i + stride;
    if (next < i) { break; } // u32 wrap: past any possible numElements
    i = next;
  }
}
