// stsCountChannels.wgsl — WGSL twin of assembly/kernels/sts/countingSort.ts stsCountChannels
// (seed 004, the talk's countKernel): grid-stride, atomicAdd(&counts[channel], 1); a digi whose
// channel is not below nChannels is not counted and bad[0] = atomicMin of its index.
// (The AS free schedule fuses a run of equal channels into one atomicAdd(m): same counts.)
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
@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> bad: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsCountChannels(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let stride = BLOCK_X * launch.gridDim.x;
  var i = BLOCK_X * blockIdx + threadIdx.x;
  while (i < n) {
    let c = digis[2u * i];
    if (c >= launch.nChannels) { atomicMin(&bad[0], i); } else { atomicAdd(&counts[c], 1u); }
    let next = i + stride;
    if (next < i) { break; }
    i = next;
  }
}
