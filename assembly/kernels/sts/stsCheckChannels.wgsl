// stsCheckChannels.wgsl — WGSL twin of assembly/kernels/sts/countingSort.ts stsCheckChannels
// (seed 004): grid-stride over digis, bad[0] = atomicMin of every index whose channel is not
// below nChannels (the host initialises bad[0] to 0xffffffff). The minimum is schedule-free.
// A digi is (channel, time): words 2i and 2i+1 of the host's u32[2n] (array<u32>, not
// array<u32>, so that an empty array's 4-byte buffer still binds).

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
  nChannels: u32,
}

@group(0) @binding(0) var<storage, read> digis: array<u32>;
@group(0) @binding(1) var<storage, read_write> bad: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsCheckChannels(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let stride = BLOCK_X * launch.gridDim.x;
  var i = BLOCK_X * blockIdx + threadIdx.x;
  while (i < n) {
    if (digis[2u * i] >= launch.nChannels) { atomicMin(&bad[0], i); }
    let next = i + stride;
    if (next < i) { break; }
    i = next;
  }
}
