/*
 * Native reference for the CMS pixel countModules kernel (seed 000), parallelised the way one would
 * on a CPU: each OpenMP thread takes one static contiguous chunk of digis and walks it in order,
 * carrying the id of the last valid digi it has seen, so the seed's backward walk across invalid
 * ids happens only once per thread (at the start of its chunk, reading into the previous chunk).
 * The clusterId fill is its own (vectorised) loop and the boundary scan skips blocks of 32 ids
 * equal to the current one with a vectorised compare.
 * Semantics are the kernel's:
 *
 *   clusterId[i] = i for every i;
 *   digis with id == invalidModuleId (65534) are skipped;
 *   a valid digi whose nearest valid predecessor is missing or has another id starts a module:
 *     loc = atomicInc(&moduleStart[0], nMaxModules); moduleStart[loc + 1] = i;
 *
 * atomicInc is CUDA's (`old >= nMax ? 0 : old + 1`, returns old), built from a CAS loop on
 * __atomic_compare_exchange_n. moduleStart holds nMax + 2 words (loc can reach nMax).
 *
 *   countmodules --n N --seed S --threads T --repeat R [--modules 1800] [--invalid 0.01]
 *                [--nmax 1856]
 *
 * Input: moduleIdsForBench(n, modules, invalid, seed) (src/data/synthetic.ts), generated before
 * timing. One untimed warm-up run, then R timed runs (moduleStart[0] reset before each, untimed).
 * bytes = 2n read + 4n written. result = moduleStart[0]; checksum = FNV-1a word checksum of the
 * input ids; outputChecksum = checksum of moduleStart[1..result] sorted ascending (order-free).
 */
#include "simt_data.h"

static inline uint32_t atomic_inc_wrap(uint32_t *p, uint32_t n_max) {
  uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
  uint32_t next;
  do {
    next = old >= n_max ? 0 : old + 1;
  } while (!__atomic_compare_exchange_n(p, &old, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}

static void count_modules(const uint16_t *restrict id, uint32_t *restrict module_start,
                          int32_t *restrict cluster_id, int64_t n, uint32_t n_max) {
#pragma omp parallel
  {
#ifdef _OPENMP
    const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
#else
    const int64_t nt = 1, t = 0;
#endif
    const int64_t begin = n * t / nt, end = n * (t + 1) / nt;
    /* Id of the nearest valid digi before `begin` (the seed's walk back), or none. */
    uint32_t prev = SIMT_INVALID_MODULE_ID;
    for (int64_t j = begin - 1; j >= 0; j--) {
      if (id[j] != SIMT_INVALID_MODULE_ID) {
        prev = id[j];
        break;
      }
    }
    for (int64_t i = begin; i < end; i++) cluster_id[i] = (int32_t)i;
    /* Boundary scan. Almost every digi repeats the previous id: test 32 ids at a time (a
     * vectorised compare against `prev`, which also rejects invalid ids) and fall back to the
     * digi-by-digi rule only in blocks that contain a change or an invalid digi. */
    int64_t i = begin;
    while (i < end) {
      if (i + 32 <= end && prev != SIMT_INVALID_MODULE_ID) {
        unsigned diff = 0;
        for (int k = 0; k < 32; k++) diff |= (unsigned)(id[i + k] ^ prev);
        if (diff == 0) {
          i += 32;
          continue;
        }
      }
      const int64_t stop = i + 32 < end ? i + 32 : end;
      for (; i < stop; i++) {
        const uint32_t v = id[i];
        if (v == SIMT_INVALID_MODULE_ID) continue;
        if (v != prev) {
          const uint32_t loc = atomic_inc_wrap(&module_start[0], n_max);
          module_start[loc + 1] = (uint32_t)i;
        }
        prev = v;
      }
    }
  }
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  simt_args a = simt_parse_args(argc, argv, 50000000u);
  if (a.n > 0x7fffffffu) {
    fprintf(stderr, "n must fit in int32 (clusterId)\n");
    return 2;
  }
  const int64_t n = (int64_t)a.n;
  uint16_t *id = simt_alloc(n * sizeof *id);
  int32_t *cluster_id = simt_alloc(n * sizeof *cluster_id);
  uint32_t *module_start = simt_alloc((a.n_max + 2) * sizeof *module_start);
  double t0 = simt_now_ms();
  if (simt_module_ids(id, (uint32_t)n, a.modules, a.invalid, a.seed) != 0) {
    fprintf(stderr, "bad --modules or --invalid\n");
    return 2;
  }
  double gen_ms = simt_now_ms() - t0;
  uint32_t checksum = simt_checksum_u16(id, n);
  memset(cluster_id, 0xff, n * sizeof *cluster_id); /* fault the output pages in, untimed */
  memset(module_start, 0, (a.n_max + 2) * sizeof *module_start);
  count_modules(id, module_start, cluster_id, n, a.n_max); /* warm-up */

  double *ms = malloc(a.repeat * sizeof *ms);
  for (int r = 0; r < a.repeat; r++) {
    module_start[0] = 0;
    double t = simt_now_ms();
    count_modules(id, module_start, cluster_id, n, a.n_max);
    ms[r] = simt_now_ms() - t;
  }
  const uint32_t count = module_start[0];
  int ok = 1;
  for (int64_t i = 0; i < n; i++) ok &= cluster_id[i] == (int32_t)i;
  qsort(module_start + 1, count, sizeof *module_start, cmp_u32);
  uint32_t out_checksum = simt_checksum_u32(module_start + 1, count, 0x811C9DC5u);

  simt_report_begin("countModules", &a, ms, 6.0 * n, gen_ms);
  printf(",\"result\":%u,\"checksum\":%u,\"outputChecksum\":%u,\"modules\":%u,\"invalid\":%.17g,"
         "\"nMax\":%u,\"clusterIdOk\":%s}\n",
         count, checksum, out_checksum, a.modules, a.invalid, a.n_max, ok ? "true" : "false");
  fflush(stdout);
  free(ms);
  free(id);
  free(cluster_id);
  free(module_start);
  return 0;
}
