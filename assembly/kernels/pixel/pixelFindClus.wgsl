// pixelFindClus.wgsl — WGSL twin of assembly/kernels/pixel/clustering.ts pixelFindClus
// (CMSSW gpuClustering.h findClus): one workgroup per module, grid-stride over moduleStart[0]
// modules; a histogram of the module's digis by y, the neighbour lists (later entries of bin y
// and bin y + 1 with |dx| <= 1), label propagation with atomicMin until no label changes
// (__syncthreads_or), then the roots are numbered with a workgroup atomicAdd.
//
// Parameters, in order: store (u8 array), moduleStart (u32 array), nClustersInModule (u32
// array), moduleId (u32 array), stride (u32), numElements (i32).
//
// Store layout: see pixelCountModules.wgsl (array<atomic<u32>> over the store's bytes; columns
// at word loc·stride/2; u16 columns two per word). clus is column 0, so clusterId[i] is word i.
//
// Differences from CUDA / the AS kernel (results are the same):
// - hist.bins is u32[4000] in workgroup memory (WGSL has no u16; 16 KiB, the whole shared
//   footprint is ~17.7 KiB, within SwiftShader's 32 KiB).
// - nn/nnn are per-invocation private arrays (entries j = threadIdx.x + k·BLOCK_X, k < 16;
//   BLOCK_X·16 >= 4000 is required, as CMSSW asserts).
// - CMSSW asserts nnn < maxNeighbours (the AS kernel traps): WGSL has no traps, so extra
//   neighbours are dropped (never produced by valid input: at most 5 per pixel without duplicates).
// - atomicMin on clus works on the u32 bits: labels are digi indices (>= 0) while it runs.
// - The loop bounds that guard barriers (modules, the label loop, the cluster count) are made
//   workgroup-uniform with workgroupUniformLoad.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

const invalidModuleId: u32 = 65534u;
const invalidClusterId: i32 = -9999;
const maxPixInModule: u32 = 4000u;
const nbins: u32 = 418u;          // phase1PixelTopology::numColsInModule + 2
const maxiter: u32 = 16u;
const maxNeighbours: u32 = 10u;
const kXX: u32 = 7u;
const kYY: u32 = 8u;
const kMODULEIND: u32 = 9u;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  stride: u32,
  numElements: i32,
}

@group(0) @binding(0) var<storage, read_write> store: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> moduleStart: array<u32>;
@group(0) @binding(2) var<storage, read_write> nClustersInModule: array<u32>;
@group(0) @binding(3) var<storage, read_write> moduleId: array<u32>;
@group(0) @binding(4) var<uniform> launch: Launch;

var<workgroup> msize: atomic<u32>;
var<workgroup> foundClusters: atomic<u32>;
var<workgroup> anyMore: atomic<u32>;
var<workgroup> uniformWord: u32;
var<workgroup> off: array<atomic<u32>, 419>;     // nbins + 1
var<workgroup> bins: array<u32, 4000>;           // maxPixInModule

fn u16At(loc: u32, i: u32) -> u32 {
  let w = atomicLoad(&store[loc * (launch.stride >> 1u) + (i >> 1u)]);
  return (w >> ((i & 1u) << 4u)) & 0xffffu;
}
fn clusLoad(i: u32) -> i32 { return bitcast<i32>(atomicLoad(&store[i])); }
fn clusStore(i: u32, v: i32) { atomicStore(&store[i], bitcast<u32>(v)); }

// __syncthreads(): the store (clus, moduleInd) is storage memory, so phases that read what other
// invocations wrote need storageBarrier() as well as workgroupBarrier().
fn syncthreads() {
  storageBarrier();
  workgroupBarrier();
}

// Thread 0's value, seen by the whole workgroup (a barrier; uniform for the analysis).
fn broadcast(v: u32, t: u32) -> u32 {
  syncthreads();
  if (t == 0u) { uniformWord = v; }
  return workgroupUniformLoad(&uniformWord);
}

// __syncthreads_or(pred)
fn syncthreadsOr(pred: bool, t: u32) -> bool {
  syncthreads();
  if (t == 0u) { atomicStore(&anyMore, 0u); }
  syncthreads();
  if (pred) { atomicStore(&anyMore, 1u); }
  syncthreads();
  if (t == 0u) { uniformWord = atomicLoad(&anyMore); }
  return workgroupUniformLoad(&uniformWord) != 0u;
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn pixelFindClus(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3u) {
  let nt = BLOCK_X * BLOCK_Y * BLOCK_Z;
  let numElements = u32(max(launch.numElements, 0));
  let endModule = broadcast(moduleStart[0], t);
  var nn: array<array<u32, 10>, 16>;
  var nnn: array<u32, 16>;

  for (var blk = wg.x + launch.blockOffset; blk < endModule; blk += launch.gridDim.x) {
    let firstPixel = moduleStart[1u + blk];
    let thisModuleId = u16At(kMODULEIND, firstPixel);
    syncthreads();
    if (t == 0u) { atomicStore(&msize, numElements); }
    syncthreads();
    // find the first pixel of another blk
    for (var i = firstPixel + t; i < numElements; i += nt) {
      let v = u16At(kMODULEIND, i);
      if (v == invalidModuleId) { continue; }
      if (v != thisModuleId) {
        atomicMin(&msize, i);
        break;
      }
    }
    // init hist
    for (var j = t; j <= nbins; j += nt) { atomicStore(&off[j], 0u); }
    syncthreads();
    if (t == 0u) {
      let m = atomicLoad(&msize);
      if (m - firstPixel > maxPixInModule) { atomicStore(&msize, maxPixInModule + firstPixel); }
    }
    syncthreads();
    let ms = atomicLoad(&msize);
    // fill histo: count
    for (var i = firstPixel + t; i < ms; i += nt) {
      if (u16At(kMODULEIND, i) == invalidModuleId) { continue; }
      atomicAdd(&off[u16At(kYY, i)], 1u);
    }
    syncthreads();
    // finalize: inclusive prefix sum of the counts (thread 0)
    if (t == 0u) {
      var total = 0u;
      for (var b = 0u; b <= nbins; b++) {
        total += atomicLoad(&off[b]);
        atomicStore(&off[b], total);
      }
    }
    syncthreads();
    // fill: w = atomicDec(&off[bin]) - 1; bins[w] = i - firstPixel
    for (var i = firstPixel + t; i < ms; i += nt) {
      if (u16At(kMODULEIND, i) == invalidModuleId) { continue; }
      let w = atomicSub(&off[u16At(kYY, i)], 1u) - 1u;
      bins[w] = i - firstPixel;
    }
    syncthreads();
    let hsize = atomicLoad(&off[nbins]);
    // fill NN
    var k = 0u;
    for (var j = t; j < hsize; j += nt) {
      let i = bins[j] + firstPixel;
      let yi = u16At(kYY, i);
      let xi = i32(u16At(kXX, i));
      let e = atomicLoad(&off[yi + 2u]);       // hist.end(bin(y + 1))
      var l = 0u;
      for (var q = j + 1u; q < e; q++) {
        let mRel = bins[q];
        if (abs(i32(u16At(kXX, mRel + firstPixel)) - xi) > 1) { continue; }
        if (l < maxNeighbours && k < maxiter) { nn[k][l] = mRel; }
        l++;
      }
      if (k < maxiter) { nnn[k] = min(l, maxNeighbours); }
      k++;
    }
    // label propagation: while (__syncthreads_or(more))
    var more = true;
    var nloops = 0u;
    loop {
      if (!syncthreadsOr(more, t)) { break; }
      if ((nloops & 1u) == 1u) {
        for (var j = t; j < hsize; j += nt) {
          let i = bins[j] + firstPixel;
          var m = clusLoad(i);
          while (m != clusLoad(u32(m))) { m = clusLoad(u32(m)); }
          clusStore(i, m);
        }
      } else {
        more = false;
        var kk = 0u;
        for (var j = t; j < hsize; j += nt) {
          let i = bins[j] + firstPixel;
          let cnt = select(0u, nnn[min(kk, maxiter - 1u)], kk < maxiter);
          for (var q = 0u; q < cnt; q++) {
            let m = nn[kk][q] + firstPixel;
            let ci = atomicLoad(&store[i]);
            let old = atomicMin(&store[m], ci);      // atomicMin_block(&clusterId[m], clusterId[i])
            if (old != ci) { more = true; }
            atomicMin(&store[i], old);               // atomicMin_block(&clusterId[i], old)
          }
          kk++;
        }
      }
      nloops++;
    }
    // count the clusters: roots get -(atomicInc(&foundClusters, 0xffffffff) + 1)
    if (t == 0u) { atomicStore(&foundClusters, 0u); }
    syncthreads();
    for (var i = firstPixel + t; i < ms; i += nt) {
      if (u16At(kMODULEIND, i) == invalidModuleId) { continue; }
      if (clusLoad(i) == i32(i)) {
        let old = atomicAdd(&foundClusters, 1u);   // atomicInc with val 0xffffffff: a plain add
        clusStore(i, -(i32(old) + 1));
      }
    }
    syncthreads();
    // propagate the negative id to every pixel of the cluster
    for (var i = firstPixel + t; i < ms; i += nt) {
      if (u16At(kMODULEIND, i) == invalidModuleId) { continue; }
      let c = clusLoad(i);
      if (c >= 0) { clusStore(i, clusLoad(u32(c))); }
    }
    syncthreads();
    // positive ids from 0; invalid pixels get invalidClusterId
    for (var i = firstPixel + t; i < ms; i += nt) {
      if (u16At(kMODULEIND, i) == invalidModuleId) { clusStore(i, invalidClusterId); continue; }
      clusStore(i, -clusLoad(i) - 1);
    }
    syncthreads();
    if (t == 0u) {
      nClustersInModule[thisModuleId] = atomicLoad(&foundClusters);
      moduleId[blk] = thisModuleId;
    }
  }
}
