// pixelCountModules.wgsl — WGSL twin of assembly/kernels/pixel/clustering.ts pixelCountModules:
// countModules (seed 000, kernels/pixel/countModules.ts) on the SiPixelDigisCUDASOAView store, with
// id = the moduleInd column and clusterId = the clus column.
//
// Parameters, in order: store (u8 array: the whole store), moduleStart (u32 array), stride (u32:
// roundFor128ByteAlignment(maxFedWords), in u16 units), numElements (i32), nMaxModules (u32).
//
// The store is ONE allocation; WGSL binds it as array<atomic<u32>> over the host's bytes. Column
// `loc` (StorageLocation) starts at byte loc·stride·2, i.e. at word loc·stride/2 (stride is a
// multiple of 64). u16 element i of a column is the low (i even) or high (i odd) half of word
// i/2 of that column. The store is atomic because findClus/clusterChargeCut use atomicMin on
// clus and write u16 halves; every kernel of the store binds it the same way.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

const invalidModuleId: u32 = 65534u;
const kCLUS: u32 = 0u;
const kMODULEIND: u32 = 9u;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  stride: u32,
  numElements: i32,
  nMaxModules: u32,
}

@group(0) @binding(0) var<storage, read_write> store: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> moduleStart: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> launch: Launch;

fn idAt(i: u32) -> u32 {
  let w = atomicLoad(&store[kMODULEIND * (launch.stride >> 1u) + (i >> 1u)]);
  return (w >> ((i & 1u) << 4u)) & 0xffffu;
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn pixelCountModules(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.numElements, 0));
  let stride = BLOCK_X * launch.gridDim.x;
  var i = BLOCK_X * blockIdx + threadIdx.x;
  while (i < n) {
    atomicStore(&store[kCLUS * (launch.stride >> 1u) + i], i);   // clusterId[i] = i
    let idi = idAt(i);
    if (idi != invalidModuleId) {
      var j = i32(i) - 1;
      while (j >= 0 && idAt(u32(j)) == invalidModuleId) {
        j = j - 1;
      }
      if (j < 0 || idAt(u32(j)) != idi) {
        // moduleStart[0] is zeroed by the host: the ticket form of atomicInc is exact (prelude).
        let loc = cudaAtomicIncFromBelow(&moduleStart[0], launch.nMaxModules);
        atomicStore(&moduleStart[loc + 1u], i);
      }
    }
    let next = i + stride;
    if (next < i) { break; }
    i = next;
  }
}
