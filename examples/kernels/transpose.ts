// A 32×32 tiled matrix transpose through shared memory (blocks of 32×8 threads). CUDA original:
//
//   #define TILE 32
//   #define ROWS 8
//   __global__ void transpose(float* out, const float* in, int width, int height) {
//     __shared__ float tile[TILE][TILE + 1];
//     int x = blockIdx.x * TILE + threadIdx.x;
//     int y = blockIdx.y * TILE + threadIdx.y;
//     for (int j = 0; j < TILE; j += ROWS)
//       if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
//     __syncthreads();
//     x = blockIdx.y * TILE + threadIdx.x;
//     y = blockIdx.x * TILE + threadIdx.y;
//     for (int j = 0; j < TILE; j += ROWS)
//       if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
//   }
import { threadIdx, blockIdx, __syncthreads, __shared__ } from "simt/kernel";

const TILE = 32;
const ROWS = 8;

export function transpose(out: f32[], input: f32[], width: i32, height: i32): void {
  const tile = __shared__<f32>(TILE * (TILE + 1));   // tile[TILE][TILE + 1]: the +1 avoids bank conflicts
  let x = blockIdx.x * TILE + threadIdx.x;
  let y = blockIdx.y * TILE + threadIdx.y;
  for (let j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height) tile[(threadIdx.y + j) * (TILE + 1) + threadIdx.x] = input[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (let j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x * (TILE + 1) + threadIdx.y + j];
}
