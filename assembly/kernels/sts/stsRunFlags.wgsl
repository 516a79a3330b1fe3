// stsRunFlags.wgsl — WGSL twin of assembly/kernels/sts/mergeSort.ts stsRunFlags (seed 004):
// flags[i] = 1 when digi i starts a (channel, time) run (i == 0 or key[i-1] > key[i]), else 0.
// 64-bit values as (lo, hi) u32 word pairs of an array<u32>: a digi is (channel, time) = words
// (2i, 2i+1), a u64 key channel << 32 | time is (time, channel). Keys compare as (hi, lo).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
}

@group(0) @binding(0) var<storage, read> digis: array<u32>;
@group(0) @binding(1) var<storage, read_write> flags: array<u32>;
@group(0) @binding(2) var<uniform> launch: Launch;

fn keyLess(a: vec2u, b: vec2u) -> bool {
  return a.x < b.x || (a.x == b.x && a.y < b.y);
}

fn digiKey(i: u32) -> vec2u { return vec2u(digis[2u * i], digis[2u * i + 1u]); }

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsRunFlags(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let stride = BLOCK_X * launch.gridDim.x;
  let n = u32(max(launch.n, 0));
  var i = BLOCK_X * blockIdx + threadIdx.x;
  while (i < n) {
    flags[i] = select(0u, 1u, i == 0u || keyLess(digiKey(i), digiKey(i - 1u)));
    let nextIndex = i + stride;
    if (nextIndex < i) { break; }
    i = nextIndex;
  }
}
