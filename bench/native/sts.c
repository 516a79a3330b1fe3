/*
 * Native reference for the CBM STS digi sort (seed 004): a stable counting sort of n digis
 * (channel, time) by channel, parallelised with OpenMP the usual CPU way:
 *   1. each thread counts the channels of its static chunk into its own histogram;
 *   2. one exclusive prefix sum over (channel, thread), channel-major, gives every thread its own
 *      write offset in every channel (no atomics, and the sort stays stable);
 *   3. each thread scatters its chunk in order.
 * The input's per-channel times increase, so the output is sorted by (channel, time).
 *
 *   sts --n N --seed S --threads T --repeat R [--channels 1024]
 *
 * Input: stsDigisForBench(n, channels, seed) (src/data/synthetic.ts), 8 bytes per digi, generated
 * before timing. One untimed warm-up run, then R timed runs. bytes = 8n read + 8n written (the
 * count pass reads the channels again; not counted). result = 1 when the output is sorted by
 * (channel, time), else 0; checksum = FNV-1a word checksum of the input words; outputChecksum =
 * checksum of the output words (compare with stsSortByChannelReference).
 */
#include "simt_data.h"

typedef struct { uint32_t channel, time; } sts_digi;

static void sort_by_channel(const sts_digi *restrict in, sts_digi *restrict out, int64_t n,
                            uint32_t n_channels, uint32_t *restrict hist /* nt * n_channels */) {
#pragma omp parallel
  {
#ifdef _OPENMP
    const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
#else
    const int64_t nt = 1, t = 0;
#endif
    const int64_t begin = n * t / nt, end = n * (t + 1) / nt;
    uint32_t *h = hist + (size_t)t * n_channels;
    memset(h, 0, n_channels * sizeof *h);
    for (int64_t i = begin; i < end; i++) h[in[i].channel]++;
#pragma omp barrier
#pragma omp single
    {
      uint32_t sum = 0;
      for (uint32_t c = 0; c < n_channels; c++)
        for (int64_t u = 0; u < nt; u++) {
          uint32_t v = hist[(size_t)u * n_channels + c];
          hist[(size_t)u * n_channels + c] = sum;
          sum += v;
        }
    } /* implicit barrier */
    for (int64_t i = begin; i < end; i++) out[h[in[i].channel]++] = in[i];
  }
}

int main(int argc, char **argv) {
  simt_args a = simt_parse_args(argc, argv, 1u << 24);
  if (a.n > 0x7fffffffu) {
    fprintf(stderr, "n must be below 2^31\n");
    return 2;
  }
  const int64_t n = (int64_t)a.n;
  sts_digi *in = simt_alloc(n * sizeof *in);
  sts_digi *out = simt_alloc(n * sizeof *out);
  uint32_t *hist = simt_alloc((size_t)a.threads * a.channels * sizeof *hist);
  double t0 = simt_now_ms();
  if (simt_sts_digis((uint32_t *)in, (uint32_t)n, a.channels, a.seed) != 0) {
    fprintf(stderr, "bad --channels\n");
    return 2;
  }
  double gen_ms = simt_now_ms() - t0;
  uint32_t checksum = simt_checksum_u32((const uint32_t *)in, 2 * (size_t)n, 0x811C9DC5u);
  memset(out, 0, n * sizeof *out); /* fault the output pages in, untimed */
  sort_by_channel(in, out, n, a.channels, hist); /* warm-up */

  double *ms = malloc(a.repeat * sizeof *ms);
  for (int r = 0; r < a.repeat; r++) {
    double t = simt_now_ms();
    sort_by_channel(in, out, n, a.channels, hist);
    ms[r] = simt_now_ms() - t;
  }
  int sorted = 1;
  for (int64_t i = 1; i < n; i++) {
    sorted &= out[i - 1].channel < out[i].channel ||
              (out[i - 1].channel == out[i].channel && out[i - 1].time < out[i].time);
  }
  uint32_t out_checksum = simt_checksum_u32((const uint32_t *)out, 2 * (size_t)n, 0x811C9DC5u);
  simt_report_begin("stsSortByChannel", &a, ms, 16.0 * n, gen_ms);
  printf(",\"result\":%d,\"checksum\":%u,\"outputChecksum\":%u,\"channels\":%u}\n", sorted,
         checksum, out_checksum, a.channels);
  fflush(stdout);
  free(ms);
  free(in);
  free(out);
  free(hist);
  return 0;
}
