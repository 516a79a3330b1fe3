/*
 * Shared helpers of the native C benchmark references: the seeded generator and the synthetic
 * inputs of src/data/random.ts and src/data/synthetic.ts (bit-identical for the same n and seed),
 * the word-wise FNV-1a checksum, argument parsing, timing and the one-line JSON report.
 *
 * Keep this file in lock-step with src/data/random.ts and src/data/synthetic.ts: the algorithm is
 * specified there.
 */
#ifndef SIMT_DATA_H
#define SIMT_DATA_H

#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------- generator: splitmix64 seeding, xoshiro128** stream ---------- */

typedef struct { uint32_t s[4]; } simt_rng;

static inline void simt_rng_seed(simt_rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int k = 0; k < 2; k++) {
    x += 0x9E3779B97F4A7C15ull;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z = z ^ (z >> 31);
    r->s[2 * k] = (uint32_t)z;
    r->s[2 * k + 1] = (uint32_t)(z >> 32);
  }
}

static inline uint32_t simt_rotl32(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

static inline uint32_t simt_next_u32(simt_rng *r) {
  uint32_t *s = r->s;
  const uint32_t result = simt_rotl32(s[1] * 5u, 7) * 9u;
  const uint32_t t = s[1] << 9;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = simt_rotl32(s[3], 11);
  return result;
}

/* floor(u * bound / 2^32): an integer in [0, bound). */
static inline uint32_t simt_uniform_int(simt_rng *r, uint32_t bound) {
  return (uint32_t)(((uint64_t)simt_next_u32(r) * bound) >> 32);
}

/* lo + span * (k * 2^-24), k = u >> 8, in double, rounded once to float. */
static inline float simt_uniform_f32(simt_rng *r, double lo, double span) {
  return (float)(lo + span * ((double)(simt_next_u32(r) >> 8) * 0x1p-24));
}

/* ---------- checksum: FNV-1a over 32-bit words ---------- */

static inline uint32_t simt_checksum_u32(const uint32_t *w, size_t n, uint32_t h) {
  for (size_t i = 0; i < n; i++) h = (h ^ w[i]) * 0x01000193u;
  return h;
}
static inline uint32_t simt_checksum_f32(const float *a, size_t n) {
  uint32_t h = 0x811C9DC5u;
  for (size_t i = 0; i < n; i++) {
    uint32_t w;
    memcpy(&w, &a[i], 4);
    h = (h ^ w) * 0x01000193u;
  }
  return h;
}
static inline uint32_t simt_checksum_u16(const uint16_t *a, size_t n) {
  uint32_t h = 0x811C9DC5u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint32_t)a[i]) * 0x01000193u;
  return h;
}

/* ---------- synthetic inputs ---------- */

#define SIMT_INVALID_MODULE_ID 65534u
#define SIMT_MAX_BENCH_MODULES 16384u

/* randomF32(n, seed): uniform in [-1000, 1000). */
static inline void simt_random_f32(float *out, size_t n, uint64_t seed) {
  simt_rng r;
  simt_rng_seed(&r, seed);
  for (size_t i = 0; i < n; i++) out[i] = simt_uniform_f32(&r, -1000.0, 2000.0);
}

/* moduleIdsForBench(n, nModules, invalidFraction, seed); returns 0 on success. */
static inline int simt_module_ids(uint16_t *ids, uint32_t n, uint32_t n_modules,
                                  double invalid_fraction, uint64_t seed) {
  if (n_modules < 1 || n_modules > SIMT_MAX_BENCH_MODULES) return -1;
  if (!(invalid_fraction >= 0.0 && invalid_fraction <= 0.5)) return -1;
  simt_rng r;
  simt_rng_seed(&r, seed);
  uint16_t *module_id = (uint16_t *)malloc(n_modules * sizeof *module_id);
  uint64_t *cum = (uint64_t *)malloc(n_modules * sizeof *cum);
  if (!module_id || !cum) return -1;
  uint32_t id = 0;
  uint64_t total = 0;
  for (uint32_t k = 0; k < n_modules; k++) {
    id = k == 0 ? simt_uniform_int(&r, 4) : id + 1 + simt_uniform_int(&r, 3);
    module_id[k] = (uint16_t)id;
    total += 512 + simt_uniform_int(&r, 1024);
    cum[k] = total;
  }
  uint32_t begin = 0;
  for (uint32_t k = 0; k < n_modules; k++) {
    uint32_t end = k == n_modules - 1 ? n : (uint32_t)(((uint64_t)n * cum[k]) / total);
    for (uint32_t i = begin; i < end; i++) ids[i] = module_id[k];
    begin = end;
  }
  free(module_id);
  free(cum);
  const uint64_t target = (uint64_t)((double)n * invalid_fraction);
  uint64_t placed = 0;
  while (placed < target) {
    uint64_t start = simt_uniform_int(&r, n);
    uint64_t stop = start + 1 + simt_uniform_int(&r, 4);
    if (stop > n) stop = n;
    for (uint64_t p = start; p < stop && placed < target; p++) {
      if (ids[p] != SIMT_INVALID_MODULE_ID) {
        ids[p] = SIMT_INVALID_MODULE_ID;
        placed++;
      }
    }
  }
  return 0;
}

/* stsDigisForBench(n, nChannels, seed): 2n words, (channel, time) per digi. */
static inline int simt_sts_digis(uint32_t *out, uint32_t n, uint32_t n_channels, uint64_t seed) {
  if (n_channels < 1 || n_channels > (1u << 20)) return -1;
  simt_rng r;
  simt_rng_seed(&r, seed);
  uint32_t *last = (uint32_t *)calloc(n_channels, sizeof *last);
  if (!last) return -1;
  uint32_t i = 0;
  while (i < n) {
    const uint32_t c = simt_uniform_int(&r, n_channels);
    const uint32_t len = 1 + simt_uniform_int(&r, 8);
    for (uint32_t k = 0; k < len && i < n; k++, i++) {
      last[c] = last[c] + 1 + simt_uniform_int(&r, 64);
      out[2 * (size_t)i] = c;
      out[2 * (size_t)i + 1] = last[c];
    }
  }
  free(last);
  return 0;
}

/* ---------- command line, timing, report ---------- */

typedef struct {
  uint64_t n;
  uint64_t seed;
  int threads;
  int repeat;
  const char *kernel;     /* --kernel: program-specific variant */
  uint32_t modules;       /* --modules (countModules) */
  double invalid;         /* --invalid (countModules) */
  uint32_t n_max;         /* --nmax (countModules atomicInc bound) */
  uint32_t channels;      /* --channels (sts) */
} simt_args;

static inline void simt_usage(const char *prog) {
  fprintf(stderr,
          "usage: %s --n N --seed S --threads T --repeat R [--kernel K] [--modules M]\n"
          "          [--invalid F] [--nmax M] [--channels C]\n",
          prog);
  exit(2);
}

static inline simt_args simt_parse_args(int argc, char **argv, uint64_t default_n) {
  simt_args a = {default_n, 1, 1, 5, "", 1800, 0.01, 1856, 1024};
  for (int i = 1; i < argc; i++) {
    const char *k = argv[i];
    if (i + 1 >= argc) simt_usage(argv[0]);
    const char *v = argv[++i];
    if (!strcmp(k, "--n")) a.n = strtoull(v, NULL, 10);
    else if (!strcmp(k, "--seed")) a.seed = strtoull(v, NULL, 10);
    else if (!strcmp(k, "--threads")) a.threads = atoi(v);
    else if (!strcmp(k, "--repeat")) a.repeat = atoi(v);
    else if (!strcmp(k, "--kernel")) a.kernel = v;
    else if (!strcmp(k, "--modules")) a.modules = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(k, "--invalid")) a.invalid = strtod(v, NULL);
    else if (!strcmp(k, "--nmax")) a.n_max = (uint32_t)strtoul(v, NULL, 10);
    else if (!strcmp(k, "--channels")) a.channels = (uint32_t)strtoul(v, NULL, 10);
    else simt_usage(argv[0]);
  }
  if (a.threads < 1) a.threads = 1;
  if (a.repeat < 1) a.repeat = 1;
#ifdef _OPENMP
  omp_set_dynamic(0);
  omp_set_num_threads(a.threads);
#else
  a.threads = 1; /* built without OpenMP: always one thread */
#endif
  return a;
}

static inline double simt_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int simt_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static inline double simt_median(const double *v, int n) {
  double *c = (double *)malloc(n * sizeof *c);
  memcpy(c, v, n * sizeof *c);
  qsort(c, n, sizeof *c, simt_cmp_double);
  double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
  free(c);
  return m;
}

static inline int simt_openmp(void) {
#ifdef _OPENMP
  return 1;
#else
  return 0;
#endif
}

/*
 * Prints the report line up to (not including) the closing brace, so that the caller can append
 * kernel-specific fields ("result", "checksum", ...) and then "}\n".
 */
static inline void simt_report_begin(const char *name, const simt_args *a, const double *ms,
                                     double bytes, double gen_ms) {
  double med = simt_median(ms, a->repeat);
  printf("{\"name\":\"%s\",\"impl\":\"native-c\",\"threads\":%d,\"n\":%llu,\"seed\":%llu,"
         "\"openmp\":%s,\"msMedian\":%.6f,\"msAll\":[",
         name, a->threads, (unsigned long long)a->n, (unsigned long long)a->seed,
         simt_openmp() ? "true" : "false", med);
  for (int i = 0; i < a->repeat; i++) printf("%s%.6f", i ? "," : "", ms[i]);
  printf("],\"gbps\":%.4f,\"bytes\":%.0f,\"genMs\":%.3f", bytes / (med * 1e6), bytes, gen_ms);
}

static inline void *simt_alloc(size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 128, bytes ? bytes : 128) != 0) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

#endif
