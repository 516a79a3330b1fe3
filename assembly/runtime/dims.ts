// CUDA's built-in index variables. Wasm globals are per instance, and each worker owns one
// instance, so these are per worker: the worker sets them before running each block.
// `i32` rather than CUDA's `unsigned`: every CUDA limit (grid.x ≤ 2³¹−1) fits, and signed
// indices keep grid-stride loops (`i < n`) free of unsigned-wrap surprises.

export namespace blockIdx {
  export let x: i32 = 0;
  export let y: i32 = 0;
  export let z: i32 = 0;
}

export namespace blockDim {
  export let x: i32 = 1;
  export let y: i32 = 1;
  export let z: i32 = 1;
}

export namespace gridDim {
  export let x: i32 = 1;
  export let y: i32 = 1;
  export let z: i32 = 1;
}

/** Threads in the block: blockDim.x * blockDim.y * blockDim.z (≤ 1024). */
export let blockThreads: i32 = 1;
/** Linear block index: x + y*gridDim.x + z*gridDim.x*gridDim.y (as in CUDA's ordering). */
export let blockLinear: i64 = 0;

/** threadIdx.x of linear thread t (CUDA: t = x + y*blockDim.x + z*blockDim.x*blockDim.y). */
// @ts-ignore: decorator
@inline export function threadIdxX(t: i32): i32 { return t % blockDim.x; }
// @ts-ignore: decorator
@inline export function threadIdxY(t: i32): i32 { return (t / blockDim.x) % blockDim.y; }
// @ts-ignore: decorator
@inline export function threadIdxZ(t: i32): i32 { return t / (blockDim.x * blockDim.y); }

/** Lane of linear thread t inside its warp, and its warp index. */
// @ts-ignore: decorator
@inline export function laneOf(t: i32): i32 { return t & 31; }
// @ts-ignore: decorator
@inline export function warpOf(t: i32): i32 { return t >> 5; }
