// petMergeBlocks.wgsl — WGSL twin of petMergeBlocks (sort.ts), seed 001's mergeKernel: grid
// (2S/256, n2/2S), block 256. Block (x, pair) merges the even run's records
// [ranksEven[i], ranksEven[i+1]) with the odd run's [ranksOdd[i], ranksOdd[i+1])
// (i = pair·(2S/256) + x; the last x: up to S) into `out`: both segments (≤ 256 records each)
// are staged in workgroup memory (2 × 256 × 16 = 8 KiB), then every record finds its rank in
// the other segment by binary search (even: first ≥, odd: first >: stable). Pairs with
// pair·2S ≥ n return. BLOCK_X must be 256 (SUB_BLOCK_SIZE). Times as f64Key bits. Exact.

override BLOCK_X: u32 = 256;
override BLOCK_Y: u32 = 1;
override BLOCK_Z: u32 = 1;

const SUB: u32 = 256u;

struct Launch {
  gridDim: vec3u,
  blockOffset: u32,
  sortedBlockSize: i32,
  n: i32,
}

@group(0) @binding(0) var<storage, read> data: array<vec4u>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4u>;
@group(0) @binding(2) var<storage, read> ranksEven: array<u32>;
@group(0) @binding(3) var<storage, read> ranksOdd: array<u32>;
@group(0) @binding(4) var<uniform> launch: Launch;

var<workgroup> tileE: array<vec4u, SUB>;
var<workgroup> tileO: array<vec4u, SUB>;

fn keyE(i: i32) -> vec2u { return f64Key(tileE[u32(i)].zw); }
fn keyO(i: i32) -> vec2u { return f64Key(tileO[u32(i)].zw); }

@compute @workgroup_size(BLOCK_X, BLOCK_Y, BLOCK_Z)
fn petMergeBlocks(@builtin(local_invocation_id) threadIdx: vec3u, @builtin(workgroup_id) wg: vec3u) {
  let S = u32(max(launch.sortedBlockSize, 0));
  let pair = wg.y;
  let pairStart = pair * 2u * S;
  if (launch.n <= 0 || pairStart >= u32(launch.n)) { return; }
  let bx = wg.x + launch.blockOffset;
  let idx = pair * (2u * S / SUB) + bx;
  let startE = ranksEven[idx];
  let startO = ranksOdd[idx];
  var endE = S;
  var endO = S;
  if (bx < launch.gridDim.x - 1u) { endE = ranksEven[idx + 1u]; endO = ranksOdd[idx + 1u]; }
  let numE = endE - startE;
  let numO = endO - startO;
  let evenAt = pairStart + startE;
  let oddAt = pairStart + S + startO;
  let dst = pairStart + startE + startO;
  let t = threadIdx.x;
  if (t < numE && t < SUB) { tileE[t] = data[evenAt + t]; }
  if (t < numO && t < SUB) { tileO[t] = data[oddAt + t]; }
  workgroupBarrier();
  if (t < numE && t < SUB) {
    // first i in tileO[0, numO) with key(i) >= key
    let key = keyE(i32(t));
    var lo = 0;
    var hi = i32(numO) - 1;
    while (lo <= hi) {
      let mid = lo + (hi - lo) / 2;
      if (!lt64(keyO(mid), key)) { hi = mid - 1; } else { lo = mid + 1; }
    }
    out[dst + t + u32(lo)] = tileE[t];
  }
  if (t < numO && t < SUB) {
    // first i in tileE[0, numE) with key(i) > key
    let key = keyO(i32(t));
    var lo = 0;
    var hi = i32(numE) - 1;
    while (lo <= hi) {
      let mid = lo + (hi - lo) / 2;
      if (lt64(key, keyE(mid))) { hi = mid - 1; } else { lo = mid + 1; }
    }
    out[dst + t + u32(lo)] = tileO[t];
  }
}
