// stsScatterChunks.wgsl — WGSL twin of assembly/kernels/sts/countingSort.ts stsScatterChunks
// (seed 004): thread g writes its chunk in input order at chanStart[c] + colOff[g·k + c]++.
// Only thread g touches row g of colOff: stable, the same bytes on every schedule.
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
@group(0) @binding(2) var<storage, read_write> colOff: array<u32>;
@group(0) @binding(3) var<storage, read> chanStart: array<u32>;
@group(0) @binding(4) var<uniform> launch: Launch;

// chunkBegin(g, p, n) = floor(g·n / p) without 64-bit integers: n = q·p + r, so
// g·n / p = g·q + floor(g·r / p); g·r (< p²) is formed as a 64-bit (hi, lo) pair and divided
// by p by binary long division.
fn mulDivFloor(a: u32, b: u32, p: u32) -> u32 {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let ll = a0 * b0; let lh = a0 * b1; let hl = a1 * b0; let hh = a1 * b1;
  let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
  let lo = (ll & 0xffffu) | (mid << 16u);
  let hi = hh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u);
  var rem = 0u;
  var quo = 0u;
  for (var k = 0; k < 64; k++) {
    let bit = select((lo >> u32(63 - k)) & 1u, (hi >> u32(31 - k)) & 1u, k < 32);
    let carry = rem >> 31u;
    rem = (rem << 1u) | bit;
    quo = quo << 1u;
    if (carry == 1u || rem >= p) { rem = rem - p; quo = quo | 1u; }
  }
  return quo;
}

fn chunkBegin(g: u32, p: u32, n: u32) -> u32 {
  return g * (n / p) + mulDivFloor(g, n % p, p);
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsScatterChunks(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let p = launch.gridDim.x * BLOCK_X;
  let g = blockIdx * BLOCK_X + threadIdx.x;
  let e = chunkBegin(g + 1u, p, n);
  let k = launch.nChannels;
  let row = g * k;
  for (var i = chunkBegin(g, p, n); i < e; i++) {
    let d = vec2u(digis[2u * i], digis[2u * i + 1u]);
    if (d.x >= k) { continue; }
    let cell = row + d.x;
    let r = colOff[cell];
    colOff[cell] = r + 1u;
    let o = chanStart[d.x] + r;
    out[2u * o] = d.x;
    out[2u * o + 1u] = d.y;
  }
}
