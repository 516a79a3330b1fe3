// stsTileSort.wgsl — WGSL twin of assembly/kernels/sts/mergeSort.ts stsTileSort (seed 004):
// block b sorts keys[b·tile .. (b+1)·tile) ascending, tile = 2·BLOCK_X (a power of two), in
// workgroup memory with a bitonic network; each step ends at a barrier, thread t exchanges one pair.
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

@group(0) @binding(0) var<storage, read_write> keys: array<u32>;
@group(0) @binding(1) var<uniform> launch: Launch;

var<workgroup> s: array<vec2u, 2u * BLOCK_X>;

fn keyLess(a: vec2u, b: vec2u) -> bool {
  return a.x < b.x || (a.x == b.x && a.y < b.y);
}

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn stsTileSort(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let t = threadIdx.x;
  let tile = 2u * BLOCK_X;
  let start = blockIdx * tile;
  for (var r = 0u; r < 2u; r++) {
    let l = t + r * BLOCK_X;
    let i = start + l;
    // (hi, lo) = (channel, time); the tail of the last tile is padded with u64 max
    s[l] = select(vec2u(0xffffffffu, 0xffffffffu), vec2u(keys[2u * i + 1u], keys[2u * i]), i < n && i >= start);
  }
  workgroupBarrier();
  for (var size = 2u; size <= tile; size <<= 1u) {
    for (var st = size >> 1u; st > 0u; st >>= 1u) {
      // pair (lo, lo + st): lo has bit st clear
      let lo = ((t & ~(st - 1u)) << 1u) | (t & (st - 1u));
      let hi = lo + st;
      let up = (lo & size) == 0u;
      let a = s[lo];
      let b = s[hi];
      if (keyLess(b, a) == up) { s[lo] = b; s[hi] = a; }
      workgroupBarrier();
    }
  }
  for (var r = 0u; r < 2u; r++) {
    let l = t + r * BLOCK_X;
    let i = start + l;
    if (i < n && i >= start) {
      keys[2u * i] = s[l].y;
      keys[2u * i + 1u] = s[l].x;
    }
  }
}
