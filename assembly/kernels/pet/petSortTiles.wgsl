// petSortTiles.wgsl — WGSL twin of petSortTiles (sort.ts), seed 001's runMergeSortKernel: block
// b sorts the 1024 records [b·1024, (b+1)·1024) of `data` by time, stably, in place (bottom-up
// merge: for width 1, 2, …, 512 every element finds its rank in the opposite run by binary
// search — even runs count the odd run's elements with a smaller time, odd runs those with a
// smaller or equal one — and moves to pairBase + within + rank). Blocks with b·1024 ≥ n return.
//
// Differences from the AS launch, none in the result: the tile stays 1024 records (TILE), but
// SwiftShader allows 256 invocations per workgroup, so the webgpu launch may use block 256 (each
// thread 4 elements; the AS kernel's 512 × 2 needs a GPU allowing 512). BLOCK_X must divide 1024
// (a power of two). Workgroup memory: the tile's records once (16 KiB) and two permutation
// arrays (2 × 4 KiB) instead of two record tiles (32 KiB, all SwiftShader has): a pass moves
// indices; the records are written back in sorted order at the end.
//
// Times (f64 in words 2, 3) are compared as order-preserving 64-bit keys of their bits
// (f64Key, wide.wgsl): the same order as f64 comparison for every non-NaN time (padding +∞
// included). Exact: the stable sort of a tile is unique.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

const TILE: u32 = 1024u;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
}

@group(0) @binding(0) var<storage, read_write> data: array<vec4u>;
@group(0) @binding(1) var<uniform> launch: Launch;

var<workgroup> records: array<vec4u, TILE>;
var<workgroup> order: array<array<u32, TILE>, 2>;

fn keyAt(p: u32, pos: u32) -> vec2u {
  let r = records[order[p][pos]];
  return f64Key(vec2u(r.z, r.w));
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn petSortTiles(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let tileStart = blockIdx * TILE;
  if (launch.n <= 0 || tileStart >= u32(launch.n)) { return; }
  let t = threadIdx.x;
  for (var e = t; e < TILE; e = e + BLOCK_X) {
    records[e] = data[tileStart + e];
    order[0][e] = e;
  }
  workgroupBarrier();
  var p = 0u;
  for (var width = 1u; width < TILE; width = width << 1u) {
    let q = 1u - p;
    for (var e = t; e < TILE; e = e + BLOCK_X) {
      let key = keyAt(p, e);
      let run = e / width;
      let within = e - run * width;
      let pairBase = (run & ~1u) * width;
      var rank: u32;
      if ((run & 1u) == 0u) {
        // first position in the odd run with key(pos) >= key
        var lo = pairBase + width;
        var hi = pairBase + 2u * width; // exclusive
        while (lo < hi) {
          let mid = lo + (hi - lo) / 2u;
          if (lt64(keyAt(p, mid), key)) { lo = mid + 1u; } else { hi = mid; }
        }
        rank = lo - (pairBase + width);
      } else {
        // first position in the even run with key(pos) > key
        var lo = pairBase;
        var hi = pairBase + width;
        while (lo < hi) {
          let mid = lo + (hi - lo) / 2u;
          if (lt64(key, keyAt(p, mid))) { hi = mid; } else { lo = mid + 1u; }
        }
        rank = lo - pairBase;
      }
      order[q][pairBase + within + rank] = order[p][e];
    }
    workgroupBarrier();
    p = q;
  }
  for (var e = t; e < TILE; e = e + BLOCK_X) {
    data[tileStart + e] = records[order[p][e]];
  }
}
