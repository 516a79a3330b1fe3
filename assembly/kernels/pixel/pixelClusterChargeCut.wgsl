// pixelClusterChargeCut.wgsl — WGSL twin of assembly/kernels/pixel/clustering.ts
// pixelClusterChargeCut (CMSSW gpuClusterChargeCut.h): per module, clusters with total adc <=
// threshold (layer1Threshold for module ids below 96, otherThreshold elsewhere) are dropped
// (their digis get id = clusterId = invalidModuleId), the kept ones renumbered in order.
//
// Parameters, in order: store (u8 array), moduleStart (u32 array), nClustersInModule (u32
// array), stride (u32), numElements (i32), layer1Threshold (i32), otherThreshold (i32).
//
// Store layout: see pixelCountModules.wgsl. Writing a u16 of the moduleInd column replaces one
// half of a u32 word whose other half is another digi's (possibly written by another thread at
// the same time): setId() does it with a compare-exchange loop on the word.
// Shared memory: charge i32[1024], ok and newclusId as u32[1024] each (12 KiB; WGSL has no u8/u16).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

const invalidModuleId: u32 = 65534u;
const maxNumClustersPerModules: u32 = 1024u;
const layer1End: u32 = 96u;
const kADC: u32 = 6u;
const kMODULEIND: u32 = 9u;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  stride: u32,
  numElements: i32,
  layer1Threshold: i32,
  otherThreshold: i32,
}

@group(0) @binding(0) var<storage, read_write> store: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> moduleStart: array<u32>;
@group(0) @binding(2) var<storage, read_write> nClustersInModule: array<u32>;
@group(0) @binding(3) var<uniform> launch: Launch;

var<workgroup> charge: array<atomic<i32>, 1024>;
var<workgroup> ok: array<u32, 1024>;
var<workgroup> newclusId: array<u32, 1024>;
var<workgroup> uniformWord: u32;

fn u16At(loc: u32, i: u32) -> u32 {
  let w = atomicLoad(&store[loc * (launch.stride >> 1u) + (i >> 1u)]);
  return (w >> ((i & 1u) << 4u)) & 0xffffu;
}
fn setId(i: u32, v: u32) {
  let p = &store[kMODULEIND * (launch.stride >> 1u) + (i >> 1u)];
  let sh = (i & 1u) << 4u;
  var old = atomicLoad(p);
  loop {
    let next = (old & ~(0xffffu << sh)) | (v << sh);
    let r = atomicCompareExchangeWeak(p, old, next);
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}
fn clusLoad(i: u32) -> i32 { return bitcast<i32>(atomicLoad(&store[i])); }
fn clusStore(i: u32, v: i32) { atomicStore(&store[i], bitcast<u32>(v)); }

// __syncthreads(): the store (clus, moduleInd) is storage memory, so phases that read what other
// invocations wrote need storageBarrier() as well as workgroupBarrier().
fn syncthreads() {
  storageBarrier();
  workgroupBarrier();
}

fn broadcast(v: u32, t: u32) -> u32 {
  syncthreads();
  if (t == 0u) { uniformWord = v; }
  return workgroupUniformLoad(&uniformWord);
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn pixelClusterChargeCut(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3u) {
  let nt = BLOCK_X * BLOCK_Y * BLOCK_Z;
  let numElements = u32(max(launch.numElements, 0));
  let endModule = broadcast(moduleStart[0], t);
  for (var blk = wg.x + launch.blockOffset; blk < endModule; blk += launch.gridDim.x) {
    let firstPixel = moduleStart[1u + blk];
    let thisModuleId = u16At(kMODULEIND, firstPixel);
    var nclus = broadcast(nClustersInModule[thisModuleId], t);
    if (nclus == 0u) { continue; }
    if (nclus > maxNumClustersPerModules) {
      // remove the excess clusters
      for (var i = firstPixel + t; i < numElements; i += nt) {
        let v = u16At(kMODULEIND, i);
        if (v == invalidModuleId) { continue; }
        if (v != thisModuleId) { break; }
        if (clusLoad(i) >= i32(maxNumClustersPerModules)) {
          setId(i, invalidModuleId);
          clusStore(i, i32(invalidModuleId));
        }
      }
      nclus = maxNumClustersPerModules;
    }
    syncthreads();
    for (var c = t; c < nclus; c += nt) { atomicStore(&charge[c], 0); }
    syncthreads();
    // atomicAdd(&charge[clusterId[i]], adc[i])
    for (var i = firstPixel + t; i < numElements; i += nt) {
      let v = u16At(kMODULEIND, i);
      if (v == invalidModuleId) { continue; }
      if (v != thisModuleId) { break; }
      atomicAdd(&charge[u32(clusLoad(i))], i32(u16At(kADC, i)));
    }
    syncthreads();
    let cut = select(launch.otherThreshold, launch.layer1Threshold, thisModuleId < layer1End);
    for (var c = t; c < nclus; c += nt) {
      let good = select(0u, 1u, atomicLoad(&charge[c]) > cut);
      ok[c] = good;
      newclusId[c] = good;
    }
    syncthreads();
    // blockPrefixScan(newclusId, nclus): inclusive (thread 0)
    if (t == 0u) {
      var run = 0u;
      for (var c = 0u; c < nclus; c++) {
        run += newclusId[c];
        newclusId[c] = run;
      }
    }
    syncthreads();
    let kept = broadcast(newclusId[nclus - 1u], t);
    if (kept == nclus) { continue; }
    if (t == 0u) { nClustersInModule[thisModuleId] = kept; }
    for (var c = t; c < nclus; c += nt) {
      if (ok[c] == 0u) { newclusId[c] = invalidModuleId + 1u; }
    }
    syncthreads();
    for (var i = firstPixel + t; i < numElements; i += nt) {
      let v = u16At(kMODULEIND, i);
      if (v == invalidModuleId) { continue; }
      if (v != thisModuleId) { break; }
      let c = i32(newclusId[u32(clusLoad(i))]) - 1;
      clusStore(i, c);
      if (c == i32(invalidModuleId)) { setId(i, invalidModuleId); }
    }
    syncthreads();
  }
}
