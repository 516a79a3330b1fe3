/*
 * Native reference for the PET pipeline (seed 001), the usual CPU way with OpenMP:
 *   convert  — frames → singles (the same formulas, tables and window as the kernels), kept in
 *              input order by a per-thread count, a prefix sum and a second pass;
 *   sort     — LSD radix sort of the 16-byte singles by time (IEEE bits of a non-negative
 *              double order as unsigned integers), 8-bit digits, passes whose digit is the same
 *              for every key skipped, per-thread histograms (stable);
 *   coinc    — the coincidence rule of src/jobs/pet/reference.ts (coincidencesReference),
 *              one sequential pass.
 *
 *   pet --frames F --pos P --energy E --geo w0,…,w9 [--lo 350 --hi 650 --window 4000]
 *       [--threads T] [--repeat R]
 * geo words as petConvert's: bdmCount duNum positionSize crystalsPerDu bdmPerRing blockNumY
 * blockNumZ crystalNumY crystalNumZ crystalsPerRing. One untimed warm-up run, then R timed runs;
 * prints one JSON line with the medians (ms) of each stage and of the total.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct { uint32_t crystal; float energy; double time; } single_t;

static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }

static void *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END); *len = (size_t)ftell(f); fseek(f, 0, SEEK_SET);
  void *p = malloc(*len ? *len : 1);
  if (*len && fread(p, 1, *len, f) != *len) { perror(path); exit(2); }
  fclose(f);
  return p;
}

static int cmp_d(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

int main(int argc, char **argv) {
  const char *ff = 0, *fp = 0, *fe = 0, *geo = 0;
  double lo = 350, hi = 650, window = 4000;
  int threads = 0, repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--frames")) ff = argv[i + 1];
    else if (!strcmp(argv[i], "--pos")) fp = argv[i + 1];
    else if (!strcmp(argv[i], "--energy")) fe = argv[i + 1];
    else if (!strcmp(argv[i], "--geo")) geo = argv[i + 1];
    else if (!strcmp(argv[i], "--lo")) lo = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--hi")) hi = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--window")) window = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--repeat")) repeat = atoi(argv[i + 1]);
  }
  if (!ff || !fp || !fe || !geo) { fprintf(stderr, "usage: pet --frames F --pos P --energy E --geo w0,...,w9\n"); return 2; }
#ifdef _OPENMP
  if (threads > 0) omp_set_num_threads(threads);
  threads = omp_get_max_threads();
#else
  threads = 1;
#endif
  uint32_t g[10]; { const char *s = geo; for (int k = 0; k < 10; k++) { g[k] = (uint32_t)strtoul(s, (char **)&s, 10); if (*s == ',') s++; } }
  const int bdmCount = g[0], duNum = g[1], P = g[2], cpd = g[3], bdmPerRing = g[4], bny = g[5], bnz = g[6], cy = g[7], cz = g[8], perRing = g[9];
  size_t flen, plen, elen;
  const uint8_t *frames = read_file(ff, &flen);
  const uint8_t *pos = read_file(fp, &plen);
  const float *etab = read_file(fe, &elen);
  const int64_t n = (int64_t)(flen / 16);
  /* The index formulas per (bdm, du, origin), as petCrystalLut. */
  const int lutN = bdmCount * duNum * cpd;
  uint32_t *lut = malloc(sizeof(uint32_t) * 2 * lutN);
  for (int e = 0; e < lutN; e++) {
    int origin = e % cpd, bd = e / cpd, du = bd % duNum, bdm = bd / duNum;
    int local = origin % cz + (cy - 1 - origin / cz) * cz;
    int inRing = (bdm % bdmPerRing) * bny * cy + (du / bnz) * cy + local / cz;
    int ring = (bdm / bdmPerRing) * bnz * cz + (du % bnz) * cz + local % cz;
    lut[2 * e] = (uint32_t)(inRing + ring * perRing);
    lut[2 * e + 1] = (uint32_t)((bd * cpd + local) * 1000);
  }
  single_t *tmp = malloc(sizeof(single_t) * (n ? n : 1)), *a = malloc(sizeof(single_t) * (n ? n : 1)), *b = malloc(sizeof(single_t) * (n ? n : 1));
  uint32_t *pairFirst = malloc(sizeof(uint32_t) * (n / 2 + 1));
  int64_t *counts = calloc((size_t)threads + 1, sizeof(int64_t));
  uint64_t *hist = malloc(sizeof(uint64_t) * 256 * threads);
  double *tc = malloc(sizeof(double) * repeat), *ts = malloc(sizeof(double) * repeat), *tp = malloc(sizeof(double) * repeat), *tt = malloc(sizeof(double) * repeat);
  int64_t m = 0, npairs = 0;
  for (int rep = -1; rep < repeat; rep++) {
    double t0 = now_ms();
    /* convert */
#pragma omp parallel
    {
#ifdef _OPENMP
      const int T = omp_get_num_threads(), t = omp_get_thread_num();
#else
      const int T = 1, t = 0;
#endif
      const int64_t begin = n * t / T, end = n * (t + 1) / T;
      int64_t kept = 0;
      for (int64_t i = begin; i < end; i++) {
        const uint8_t *f = frames + 16 * i;
        int du = f[0] & 15, bdm = f[1], x = f[10], y = f[11], raw = (f[12] << 8) | f[13];
        uint64_t tb = 0; for (int k = 0; k < 8; k++) tb = (tb << 8) | f[2 + k];
        single_t s; s.time = (double)tb;
        if (bdm >= bdmCount || du >= duNum || x >= P || y >= P) { s.crystal = 0xffffffffu; s.energy = NAN; tmp[i] = s; continue; }
        int bd = bdm * duNum + du;
        const uint32_t *l = lut + 2 * (bd * cpd + pos[bd * P * P + x + y * P]);
        float ef = (float)raw; int bin = (int)floorf(ef / 10.0f); if (bin > 999) bin = 999;
        s.crystal = l[0]; s.energy = ef * etab[l[1] + bin];
        tmp[i] = s;
        kept += (double)s.energy >= lo && (double)s.energy <= hi;
      }
      counts[t + 1] = kept;
#pragma omp barrier
#pragma omp single
      for (int u = 0; u < T; u++) counts[u + 1] += counts[u];
      int64_t o = counts[t];
      for (int64_t i = begin; i < end; i++)
        if (tmp[i].crystal != 0xffffffffu && (double)tmp[i].energy >= lo && (double)tmp[i].energy <= hi) a[o++] = tmp[i];
#pragma omp single
      m = counts[T];
    }
    double t1 = now_ms();
    /* LSD radix sort by the time's bits */
    single_t *src = a, *dst = b;
    for (int shift = 0; shift < 64; shift += 8) {
      int skip = 0;
#pragma omp parallel
      {
#ifdef _OPENMP
        const int T = omp_get_num_threads(), t = omp_get_thread_num();
#else
        const int T = 1, t = 0;
#endif
        const int64_t begin = m * t / T, end = m * (t + 1) / T;
        uint64_t *h = hist + 256 * t;
        memset(h, 0, 256 * sizeof *h);
        for (int64_t i = begin; i < end; i++) { uint64_t k; memcpy(&k, &src[i].time, 8); h[(k >> shift) & 255]++; }
#pragma omp barrier
#pragma omp single
        {
          uint64_t sum = 0;
          for (int d = 0; d < 256; d++) {
            uint64_t tot = 0;
            for (int u = 0; u < T; u++) tot += hist[256 * u + d];
            if (tot == (uint64_t)m) skip = 1;
            for (int u = 0; u < T; u++) { uint64_t v = hist[256 * u + d]; hist[256 * u + d] = sum; sum += v; }
          }
        }
        if (!skip)
          for (int64_t i = begin; i < end; i++) { uint64_t k; memcpy(&k, &src[i].time, 8); dst[h[(k >> shift) & 255]++] = src[i]; }
      }
      if (!skip) { single_t *x = src; src = dst; dst = x; }
    }
    double t2 = now_ms();
    /* coincidences: coincidencesReference */
    npairs = 0;
    for (int64_t i = 0; i < m;) {
      int64_t j = i;
      while (j + 1 < m && src[j + 1].time - src[i].time <= window) j++;
      if (j == i) i += 1;
      else if (j == i + 1) { if (src[i].crystal != src[i + 1].crystal) pairFirst[npairs++] = (uint32_t)i; i += 2; }
      else i = j + 1;
    }
    double t3 = now_ms();
    if (rep >= 0) { tc[rep] = t1 - t0; ts[rep] = t2 - t1; tp[rep] = t3 - t2; tt[rep] = t3 - t0; }
  }
  qsort(tc, repeat, sizeof(double), cmp_d); qsort(ts, repeat, sizeof(double), cmp_d);
  qsort(tp, repeat, sizeof(double), cmp_d); qsort(tt, repeat, sizeof(double), cmp_d);
  printf("{\"name\":\"pet\",\"impl\":\"native-c\",\"threads\":%d,\"n\":%lld,\"singles\":%lld,\"pairs\":%lld,"
         "\"convertMs\":%.3f,\"sortMs\":%.3f,\"coincidencesMs\":%.3f,\"msMedian\":%.3f,\"msMin\":%.3f}\n",
         threads, (long long)n, (long long)m, (long long)npairs, tc[repeat / 2], ts[repeat / 2], tp[repeat / 2], tt[repeat / 2], tt[0]);
  return 0;
}
