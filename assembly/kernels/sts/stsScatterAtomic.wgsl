// stsScatterAtomic.wgsl — WGSL twin of assembly/kernels/sts/countingSort.ts stsScatterAtomic
// (seed 004, the talk's parallel scatter): out[atomicAdd(&offsets[channel], 1)] = digi. The order
// inside a channel is the order in which invocations won the atomic: schedule dependent, so a
// cross-check compares each channel's contents as a multiset. Bad channels are skipped.
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
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> offsets: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsScatterAtomic(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let stride = BLOCK_X * launch.gridDim.x;
  var i = BLOCK_X * blockIdx + threadIdx.x;
  while (i < n) {
    let d = vec2u(digis[2u * i], digis[2u * i + 1u]);
    if (d.x < launch.nChannels) {
      let pos = atomicAdd(&offsets[d.x], 1u);
      out[2u * pos] = d.x;
      out[2u * pos + 1u] = d.y;
    }
    let next = i + stride;
    if (next < i) { break; }
    i = next;
  }
}
