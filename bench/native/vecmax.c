/*
 * Native reference for the VecMax seed (002): max-reduction over n f32 values, and the f64-accumulated
 * sum the seed's notes on precise float sums ask for. OpenMP `parallel for simd` with a
 * `reduction(max:)` / `reduction(+:)` clause: static chunks per thread, SIMD within each chunk.
 *
 *   vecmax --n N --seed S --threads T --repeat R [--kernel max|sum|both]
 *
 * Input: randomF32(n, seed) (src/data/synthetic.ts), generated before timing. One untimed warm-up
 * run, then R timed runs; one JSON line per kernel. bytes = 4n read.
 * checksum = FNV-1a word checksum of the whole input (compare with checksum32 in src/data/random.ts).
 */
#include "simt_data.h"
#include <math.h>

static float vec_max(const float *restrict a, size_t n) {
  float m = -INFINITY;
#pragma omp parallel for simd reduction(max : m) schedule(static)
  for (size_t i = 0; i < n; i++) m = a[i] > m ? a[i] : m;
  return m;
}

static double vec_sum(const float *restrict a, size_t n) {
  double s = 0.0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
  for (size_t i = 0; i < n; i++) s += (double)a[i];
  return s;
}

int main(int argc, char **argv) {
  simt_args a = simt_parse_args(argc, argv, 1u << 26);
  const char *kernel = a.kernel[0] ? a.kernel : "max";
  int do_max = !strcmp(kernel, "max") || !strcmp(kernel, "both");
  int do_sum = !strcmp(kernel, "sum") || !strcmp(kernel, "both");
  if (!do_max && !do_sum) simt_usage(argv[0]);
  size_t n = (size_t)a.n;
  float *x = simt_alloc(n * sizeof *x);
  double t0 = simt_now_ms();
  simt_random_f32(x, n, a.seed);
  double gen_ms = simt_now_ms() - t0;
  uint32_t checksum = simt_checksum_f32(x, n);
  double *ms = malloc(a.repeat * sizeof *ms);

  if (do_max) {
    volatile float sink = vec_max(x, n); /* warm-up: thread pool, caches */
    float m = sink;
    for (int r = 0; r < a.repeat; r++) {
      double t = simt_now_ms();
      m = vec_max(x, n);
      ms[r] = simt_now_ms() - t;
      sink = m;
    }
    simt_report_begin("vecMax", &a, ms, 4.0 * n, gen_ms);
    printf(",\"result\":%.9g,\"checksum\":%u}\n", (double)m, checksum);
  }
  if (do_sum) {
    volatile double sink = vec_sum(x, n);
    double s = sink;
    for (int r = 0; r < a.repeat; r++) {
      double t = simt_now_ms();
      s = vec_sum(x, n);
      ms[r] = simt_now_ms() - t;
      sink = s;
    }
    simt_report_begin("vecSum", &a, ms, 4.0 * n, gen_ms);
    printf(",\"result\":%.17g,\"checksum\":%u}\n", s, checksum);
  }
  fflush(stdout);
  free(ms);
  free(x);
  return 0;
}
