// petCrystalLut.wgsl — WGSL twin of petCrystalLut (convert.ts): for every
// e = (bdm·duNum + du)·crystalsPerDu + origin < count, lut[2e] = the global crystal index and
// lut[2e+1] = the energy-table row start (in floats), with the seed's formulas (see convert.ts
// and docs/pet.md). Grid-stride over blockDim.x-wide chunks. Integer only: exact.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

const ENERGY_BINS: i32 = 1000;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  count: i32,
}

@group(0) @binding(0) var<storage, read> geometry: array<u32>;
@group(0) @binding(1) var<storage, read_write> lut: array<u32>;
@group(0) @binding(2) var<uniform> launch: Launch;

fn geo(k: u32) -> i32 { return bitcast<i32>(geometry[k]); }

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn petCrystalLut(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let count = u32(max(launch.count, 0));
  let duNum = geo(1u);
  let cpd = geo(3u);
  let bdmPerRing = geo(4u);
  let bny = geo(5u);
  let bnz = geo(6u);
  let cy = geo(7u);
  let cz = geo(8u);
  let perRing = geo(9u);
  let stride = launch.gridDim.x * BLOCK_X;
  var i = blockIdx * BLOCK_X + threadIdx.x;
  while (i < count) {
    let e = i32(i);
    let origin = e % cpd;
    let bd = e / cpd;
    let du = bd % duNum;
    let bdm = bd / duNum;
    let localX = origin % cz;
    let localY = origin / cz;
    let local = localX + (cy - 1 - localY) * cz;
    let inRing = (bdm % bdmPerRing) * bny * cy + (du / bnz) * cy + local / cz;
    let ring = (bdm / bdmPerRing) * bnz * cz + (du % bnz) * cz + local % cz;
    lut[2u * i] = bitcast<u32>(inRing + ring * perRing);
    lut[2u * i + 1u] = bitcast<u32>((bd * cpd + local) * ENERGY_BINS);
    let next = i + stride;
    if (next < i) { break; }
    i = next;
  }
}
