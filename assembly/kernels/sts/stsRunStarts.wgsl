// stsRunStarts.wgsl — WGSL twin of assembly/kernels/sts/mergeSort.ts stsRunStarts (seed 004):
// starts[pos[i]] = i for every run start i (pos: exclusive scan of the flags); starts[nRuns] = n.
// 64-bit values as (lo, hi) u32 word pairs of an array<u32>: a digi is (channel, time) = words
// (2i, 2i+1), a u64 key channel << 32 | time is (time, channel). Keys compare as (hi, lo).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
  nRuns: i32,
}

@group(0) @binding(0) var<storage, read> digis: array<u32>;
@group(0) @binding(1) var<storage, read> pos: array<u32>;
@group(0) @binding(2) var<storage, read_write> starts: array<u32>;
@group(0) @binding(3) var<uniform> launch: Launch;

fn keyLess(a: vec2u, b: vec2u) -> bool {
  return a.x < b.x || (a.x == b.x && a.y < b.y);
}

fn digiKey(i: u32) -> vec2u { return vec2u(digis[2u * i], digis[2u * i + 1u]); }

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsRunStarts(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let stride = BLOCK_X * launch.gridDim.x;
  let n = u32(max(launch.n, 0));
  var i = BLOCK_X * blockIdx + threadIdx.x;
  while (i < n) {
    if (i == 0u || keyLess(digiKey(i), digiKey(i - 1u))) { starts[pos[i]] = i; }
    if (i == n - 1u) { starts[u32(max(launch.nRuns, 0))] = n; }
    let nextIndex = i + stride;
    if (nextIndex < i) { break; }
    i = nextIndex;
  }
}
