// Native CUDA versions of the seed kernels simt ships as WGSL (seed 002 VecMax, seed 000
// countModules), with the same launch shapes as bench/webgpu.bench.ts, timed with CUDA
// events: the baseline for "simt's WGSL through Dawn vs native CUDA" on a real GPU.
// Build: nvcc -O3 -o seeds seeds.cu   Run: ./seeds [n]   Prints one JSON line per measurement.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
extern "C" {
#include "../simt_data.h"
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

// Seed 002, with temp starting at -FLT_MAX·∞ (the seed's RAND_MIN means "below every input").
__global__ void VecMax(const float* A, float* B, int N) {
  extern __shared__ float cache[];
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  int cacheIndex = threadIdx.x;
  float temp = -INFINITY;
  while (i < N) { if (A[i] > temp) temp = A[i]; i += blockDim.x * gridDim.x; }
  cache[cacheIndex] = temp;
  __syncthreads();
  int ib = blockDim.x / 2;
  while (ib != 0) {
    if (cacheIndex < ib && cache[cacheIndex + ib] > cache[cacheIndex]) cache[cacheIndex] = cache[cacheIndex + ib];
    __syncthreads();
    ib /= 2;
  }
  if (cacheIndex == 0) B[blockIdx.x] = cache[0];
}

// Seed 000, verbatim but for nMaxModules as a parameter.
__global__ void countModules(uint16_t const* __restrict__ id, uint32_t* __restrict__ moduleStart,
                             int32_t* __restrict__ clusterId, int numElements, uint32_t nMaxModules) {
  int first = blockDim.x * blockIdx.x + threadIdx.x;
  for (int i = first; i < numElements; i += gridDim.x * blockDim.x) {
    clusterId[i] = i;
    if (65534 == id[i]) continue;
    int j = i - 1;
    while (j >= 0 and id[j] == 65534) --j;
    if (j < 0 or id[j] != id[i]) {
      auto loc = atomicInc(moduleStart, nMaxModules);
      moduleStart[loc + 1] = i;
    }
  }
}

template <typename F> static double medianMs(F launch, int reps) {
  cudaEvent_t a, b; CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
  std::vector<double> t;
  launch(); CHECK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; r++) {
    CHECK(cudaEventRecord(a)); launch(); CHECK(cudaEventRecord(b)); CHECK(cudaEventSynchronize(b));
    float ms; CHECK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 16 << 20;
  cudaDeviceProp p; CHECK(cudaGetDeviceProperties(&p, 0));
  std::vector<float> h(n); simt_random_f32(h.data(), n, 1);
  float* dA; float* dB; CHECK(cudaMalloc(&dA, 4ull * n)); CHECK(cudaMalloc(&dB, 4 * 65536));
  CHECK(cudaMemcpy(dA, h.data(), 4ull * n, cudaMemcpyHostToDevice));
  const int grids[] = {1024, 4096, 16384, 65536};
  for (int g : grids) {
    double ms = medianMs([&] { VecMax<<<g, 256, 4 * 256>>>(dA, dB, n); }, 30);
    std::vector<float> part(g); CHECK(cudaMemcpy(part.data(), dB, 4 * g, cudaMemcpyDeviceToHost));
    float m = -INFINITY; for (float v : part) m = std::max(m, v);
    printf("{\"name\":\"vecMax\",\"impl\":\"native-cuda\",\"device\":\"%s\",\"size\":%d,\"grid\":%d,\"block\":256,\"ms\":%.5f,\"gbps\":%.2f,\"result\":%.9g}\n", p.name, n, g, ms, 4.0 * n / ms / 1e6, m);
  }
  std::vector<uint16_t> ids(n); simt_module_ids(ids.data(), n, 1800, 0.01, 1);
  uint16_t* dI; uint32_t* dS; int32_t* dC;
  CHECK(cudaMalloc(&dI, 2ull * n)); CHECK(cudaMalloc(&dS, 4 * 1858)); CHECK(cudaMalloc(&dC, 4ull * n));
  CHECK(cudaMemcpy(dI, ids.data(), 2ull * n, cudaMemcpyHostToDevice));
  int g = (n + 255) / 256;
  double ms = medianMs([&] { cudaMemsetAsync(dS, 0, 4); countModules<<<g, 256>>>(dI, dS, dC, n, 1856); }, 30);
  uint32_t count; CHECK(cudaMemcpy(&count, dS, 4, cudaMemcpyDeviceToHost));
  printf("{\"name\":\"countModules\",\"impl\":\"native-cuda\",\"device\":\"%s\",\"size\":%d,\"grid\":%d,\"block\":256,\"ms\":%.5f,\"gbps\":%.2f,\"modules\":%u}\n", p.name, n, g, ms, 6.0 * n / ms / 1e6, count);
  return 0;
}
