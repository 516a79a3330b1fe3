// scanAddOffsetsU32.wgsl — WGSL twin of scanAddOffsetsU32 (deviceScan.ts), step 3 of the
// device-wide exclusive scan: output[i] += offsets[b] for every i of tile b, where tile b is
// [b·BLOCK_X·items, (b+1)·BLOCK_X·items) and thread t owns its `items` consecutive elements from
// b·BLOCK_X·items + t·items (the same layout as scanBlocksU32). Wrapping u32: exact.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  n: i32,
  items: i32,
}

@group(0) @binding(0) var<storage, read_write> output: array<u32>;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<uniform> launch: Launch;

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn scanAddOffsetsU32(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let blockIdx = wg.x + launch.blockOffset;
  let n = u32(max(launch.n, 0));
  let items = u32(max(launch.items, 0));
  let add = offsets[blockIdx];
  if (add == 0u) { return; }
  let first = blockIdx * BLOCK_X * items + threadIdx.x * items;
  for (var j = 0u; j < items; j = j + 1u) {
    let i = first + j;
    if (i >= n) { break; }
    output[i] = output[i] + add;
  }
}
