/*
 * Native references for the `user-kernels` benchmark: five CUDA kernels hand-translated the way
 * MCUDA (Stratton et al., 2008) translates CUDA to C, the scheme simt's kernel compiler applies
 * to the per-thread source, here compiled by a C compiler with OpenMP:
 *
 *   - the grid's blocks are distributed over the OpenMP threads: `omp parallel for` over
 *     blockIdx, `schedule(dynamic, chunk)` with simt's chunk size (block_chunk below);
 *   - a block runs on one OS thread. Each stretch of the kernel between two __syncthreads() is a
 *     loop over threadIdx ("thread loop");
 *   - __shared__ arrays are locals of the block's iteration; a per-thread value that is live
 *     across a barrier becomes an array indexed by thread;
 *   - a warp shuffle is a warp-level barrier: each step copies the warp's values into a lane
 *     buffer, then every lane reads the buffer;
 *   - shared-memory atomics are plain read-modify-writes (nothing else runs in the block while a
 *     thread loop does); global atomics are __atomic_fetch_add, CUDA's float atomicAdd and
 *     atomicInc are compare-and-swap loops.
 *
 *   userkernels --kernel K --n N --threads T --reps R [--grid G --block B] [--seed S]
 *               [--width W] [--modules M --invalid F --nmax X]
 *
 *   K                    n counts       input (generated before timing)                 bytes
 *   histogram            u8 values      data[i] = top byte of the i-th xoshiro128** draw  n
 *                                       of seed S (simt_data.h's generator)
 *   transpose            f32 elements   randomF32(n, S) as a row-major matrix of W       8n
 *                                       columns, n/W rows (W = --width, default sqrt n)
 *   shuffleSum           f32 values     randomF32(n, S)                                   4n
 *   vecMaxGeneric        f32 values     randomF32(n, S)                                   4n
 *   countModulesGeneric  digis          moduleIdsForBench(n, M, F, S); defaults M = 1800, 6n
 *                                       F = 0.01, nMaxModules X = 1856
 *
 * --reps is --repeat of the other programs (both are accepted). --grid/--block default to the
 * benchmark's shape (SHAPE_BLOCK below); transpose's shape is fixed by its tiles and ignores them.
 * One untimed warm-up run, then R timed runs. Before each run (untimed) the accumulated outputs
 * are zeroed (histogram bins, shuffleSum's sum, moduleStart[0]); after the warm-up and the last
 * run (untimed) the output is checked against a plain sequential computation. One JSON line: the common fields of
 * simt_report_begin, then grid, block, result, checksum (FNV-1a of the input words), outChecksum
 * (FNV-1a of the output: bins, transposed matrix, sorted module starts; none for the float
 * results) and ok. Exit status 1 if a check failed.
 */
#include "simt_data.h"
#include <math.h>

#define MAX_BLOCK 1024
#define WARP 32

/* Blocks per OpenMP chunk: what simt's pool claims at once (~16 claims per thread, <= 256). */
static int block_chunk(int blocks) {
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  int c = blocks / (threads * 16);
  return c < 1 ? 1 : c > 256 ? 256 : c;
}

/* CUDA float atomicAdd on global memory: a CAS loop on the word. */
static inline void atomic_add_f32(float *p, float v) {
  uint32_t *w = (uint32_t *)p, old = __atomic_load_n(w, __ATOMIC_RELAXED), next;
  do {
    float f;
    memcpy(&f, &old, 4);
    f += v;
    memcpy(&next, &f, 4);
  } while (!__atomic_compare_exchange_n(w, &old, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

/* CUDA atomicInc: stores (old >= n_max ? 0 : old + 1), returns old. */
static inline uint32_t atomic_inc(uint32_t *p, uint32_t n_max) {
  uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED), next;
  do {
    next = old >= n_max ? 0 : old + 1;
  } while (!__atomic_compare_exchange_n(p, &old, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}

/* ---------------------------------------------------------------- the kernels */

/* histogram256<<<grid, block>>>(data, n, bins) */
static void histogram256(const uint8_t *data, int n, uint32_t *bins, int grid, int block) {
  const int chunk = block_chunk(grid);
#pragma omp parallel for schedule(dynamic, chunk)
  for (int b = 0; b < grid; b++) {                              /* blockIdx.x */
    uint32_t local[256];                                        /* __shared__ local[256] */
    for (int t = 0; t < block; t++)                             /* threadIdx.x */
      for (int i = t; i < 256; i += block) local[i] = 0;
    /* __syncthreads() */
    for (int t = 0; t < block; t++)
      for (int i = b * block + t; i < n; i += block * grid)
        local[data[i]] += 1;                                    /* atomicAdd(&local[..], 1u) */
    /* __syncthreads() */
    for (int t = 0; t < block; t++)
      for (int i = t; i < 256; i += block)
        __atomic_fetch_add(&bins[i], local[i], __ATOMIC_RELAXED); /* atomicAdd(&bins[i], ..) */
  }
}

/* transpose<<<(ceil(width/32), ceil(height/32)), (32, 8)>>>(out, in, width, height) */
#define TILE 32
#define ROWS 8
static void transpose(float *out, const float *in, int width, int height) {
  const int gx = (width + TILE - 1) / TILE, gy = (height + TILE - 1) / TILE;
  const int chunk = block_chunk(gx * gy);
#pragma omp parallel for schedule(dynamic, chunk)
  for (int b = 0; b < gx * gy; b++) {
    const int bx = b % gx, by = b / gx;                         /* blockIdx.x varies fastest */
    float tile[TILE][TILE + 1];                                 /* __shared__ */
    for (int ty = 0; ty < ROWS; ty++)                           /* threadIdx.y */
      for (int tx = 0; tx < TILE; tx++) {                       /* threadIdx.x */
        const int x = bx * TILE + tx, y = by * TILE + ty;
        for (int j = 0; j < TILE; j += ROWS)
          if (x < width && y + j < height) tile[ty + j][tx] = in[(y + j) * width + x];
      }
    /* __syncthreads(); x and y are recomputed after it, so nothing per-thread is live across */
    for (int ty = 0; ty < ROWS; ty++)
      for (int tx = 0; tx < TILE; tx++) {
        const int x = by * TILE + tx, y = bx * TILE + ty;
        for (int j = 0; j < TILE; j += ROWS)
          if (x < height && y + j < width) out[(y + j) * height + x] = tile[tx][ty + j];
      }
  }
}

/* shuffleSum<<<grid, block>>>(in, out, n); block is a multiple of 32 (full-warp mask) */
static void shuffle_sum(const float *in, float *out, int n, int grid, int block) {
  const int chunk = block_chunk(grid);
#pragma omp parallel for schedule(dynamic, chunk)
  for (int b = 0; b < grid; b++) {
    float sum[MAX_BLOCK];                                       /* per-thread `sum`, live across the shuffles */
    for (int t = 0; t < block; t++) {
      float s = 0.0f;
      for (int i = b * block + t; i < n; i += block * grid) s += in[i];
      sum[t] = s;
    }
    for (int offset = 16; offset > 0; offset /= 2) {            /* the same in every thread */
      for (int w = 0; w < block; w += WARP) {                   /* each warp of the block */
        float lane[WARP];                                       /* the values before this step */
        for (int l = 0; l < WARP; l++) lane[l] = sum[w + l];
        /* __shfl_down_sync(0xffffffff, sum, offset): lane l gets lane l + offset's value, its own
         * when l + offset is past the warp */
        for (int l = 0; l < WARP; l++) sum[w + l] += lane[l + offset < WARP ? l + offset : l];
      }
    }
    for (int t = 0; t < block; t++)
      if ((t & 31) == 0) atomic_add_f32(out, sum[t]);           /* atomicAdd(out, sum) */
  }
}

/* VecMax<<<grid, block, 4 * block>>>(A, B, N); block is a power of two */
static void vec_max(const float *A, float *B, int N, int grid, int block) {
  const int chunk = block_chunk(grid);
#pragma omp parallel for schedule(dynamic, chunk)
  for (int b = 0; b < grid; b++) {
    float cache[MAX_BLOCK];                                     /* extern __shared__ cache[blockDim.x] */
    for (int t = 0; t < block; t++) {                           /* cacheIndex = threadIdx.x */
      int i = block * b + t;
      float temp = -INFINITY;
      while (i < N) {
        if (A[i] > temp) temp = A[i];
        i += block * grid;
      }
      cache[t] = temp;
    }
    /* __syncthreads(). The reduction loop's `ib` is the same in every thread, so the loop runs
     * once per block, with a thread loop for each stretch between its barriers. */
    for (int ib = block / 2; ib != 0; ib /= 2) {
      for (int t = 0; t < block; t++)
        if (t < ib && cache[t + ib] > cache[t]) cache[t] = cache[t + ib];
      /* __syncthreads() */
    }
    B[b] = cache[0];                                            /* if (cacheIndex == 0) */
  }
}

/* countModules<<<grid, block>>>(id, moduleStart, clusterId, numElements, nMaxModules) */
static void count_modules(const uint16_t *id, uint32_t *module_start, int32_t *cluster_id,
                          int num_elements, uint32_t n_max, int grid, int block) {
  const int chunk = block_chunk(grid);
#pragma omp parallel for schedule(dynamic, chunk)
  for (int b = 0; b < grid; b++) {
    for (int t = 0; t < block; t++) {                           /* no barrier: one thread loop */
      const int first = block * b + t;
      for (int i = first; i < num_elements; i += grid * block) {
        cluster_id[i] = i;
        if (id[i] == SIMT_INVALID_MODULE_ID) continue;
        int j = i - 1;
        while (j >= 0 && id[j] == SIMT_INVALID_MODULE_ID) --j;
        if (j < 0 || id[j] != id[i]) {
          const uint32_t loc = atomic_inc(&module_start[0], n_max);
          module_start[loc + 1] = (uint32_t)i;
        }
      }
    }
  }
}

/* ---------------------------------------------------------------- driver */

/*
 * The benchmark's launch shape of the grid-stride kernels (bench/userKernels.bench.ts passes
 * the same explicitly): block 1024, 4 elements per thread, grid = ceil(n / 4096). Enough work per
 * block to amortise its fixed part (zeroing and merging 256 bins with 256 global atomics, the
 * tree of VecMax), and few enough elements per thread: a thread's grid-stride reads are
 * `grid * block` elements apart, so with the thread loop outermost each is its own cache line,
 * which the next threads of the block revisit. They are a multiple of 4 KiB apart (one L1 set);
 * at 16..256 per thread the kernels ran 2-9x slower than at 4 (16M elements, 2 threads).
 */
#define SHAPE_BLOCK 1024
#define SHAPE_PER_THREAD 4
/*
 * The timing loop of every kernel: rep -1 is the untimed warm-up (thread pool, page faults,
 * caches); RESET runs untimed before each rep. CHECK (ok &= CHECK) runs after the warm-up and
 * after the last rep only, so that the timed reps follow each other closely, as simt's
 * launches do in the suite: a check between them would let the OpenMP threads fall asleep.
 */
#define TIMED_REPS(a, ms, ok, RESET, RUN, CHECK)                                                   \
  for (int r = -1; r < (a)->repeat; r++) {                                                        \
    RESET;                                                                                         \
    const double t0_ = simt_now_ms();                                                              \
    RUN;                                                                                           \
    if (r >= 0) (ms)[r] = simt_now_ms() - t0_;                                                     \
    if (r == -1 || r == (a)->repeat - 1) (ok) &= (CHECK);                                          \
  }

static int cmp_u32(const void *x, const void *y) {
  const uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  return a < b ? -1 : a > b;
}

static const char *json_bool(int v) { return v ? "true" : "false"; }

static int bench_histogram(const simt_args *a, int grid, int block, double *ms) {
  const int n = (int)a->n;
  uint8_t *data = simt_alloc(n);
  const double t = simt_now_ms();
  simt_rng rng;
  simt_rng_seed(&rng, a->seed);
  for (int i = 0; i < n; i++) data[i] = (uint8_t)(simt_next_u32(&rng) >> 24);
  const double gen_ms = simt_now_ms() - t;
  uint32_t bins[256], expect[256] = {0}, checksum = 0x811C9DC5u;
  for (int i = 0; i < n; i++) expect[data[i]]++;
  for (int i = 0; i < n; i++) checksum = (checksum ^ data[i]) * 0x01000193u; /* FNV-1a, a byte per word */
  int ok = 1;
  TIMED_REPS(a, ms, ok, memset(bins, 0, sizeof bins), histogram256(data, n, bins, grid, block),
             !memcmp(bins, expect, sizeof bins));
  simt_report_begin("histogram", a, ms, 1.0 * n, gen_ms);
  printf(",\"grid\":%d,\"block\":%d,\"result\":%u,\"checksum\":%u,\"outChecksum\":%u,\"ok\":%s}\n",
         grid, block, bins[0], checksum, simt_checksum_u32(bins, 256, 0x811C9DC5u), json_bool(ok));
  free(data);
  return ok;
}

/* out (width rows of height) is the transpose of in (height rows of width). */
static int is_transpose(const float *out, const float *in, int width, int height) {
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      if (out[(size_t)x * height + y] != in[(size_t)y * width + x]) return 0;
  return 1;
}

static int bench_transpose(const simt_args *a, int width, double *ms) {
  if (width <= 0) width = (int)llround(sqrt((double)a->n));
  const int height = (int)(a->n / width);
  if ((uint64_t)width * height != a->n) {
    fprintf(stderr, "transpose: n = %llu is not a multiple of --width %d\n", (unsigned long long)a->n, width);
    exit(2);
  }
  const size_t n = a->n;
  float *in = simt_alloc(n * sizeof *in), *out = simt_alloc(n * sizeof *out);
  const double t = simt_now_ms();
  simt_random_f32(in, n, a->seed);
  const double gen_ms = simt_now_ms() - t;
  memset(out, 0xff, n * sizeof *out); /* NaN: an element never written fails the check */
  int ok = 1;
  TIMED_REPS(a, ms, ok, (void)0, transpose(out, in, width, height), is_transpose(out, in, width, height));
  simt_report_begin("transpose", a, ms, 8.0 * n, gen_ms);
  printf(",\"grid\":[%d,%d],\"block\":[%d,%d],\"width\":%d,\"height\":%d,\"result\":%.9g,"
         "\"checksum\":%u,\"outChecksum\":%u,\"ok\":%s}\n",
         (width + TILE - 1) / TILE, (height + TILE - 1) / TILE, TILE, ROWS, width, height,
         (double)out[n - 1], simt_checksum_f32(in, n), simt_checksum_f32(out, n), json_bool(ok));
  free(in);
  free(out);
  return ok;
}

/*
 * shuffleSum's result is an f32 sum in schedule order; it must be within 5e-8 * sum |x_i| of the
 * exact sum (the same tolerance is in bench/userKernels.bench.ts). Errors seen on randomF32 inputs:
 * at most 7e-9 * sum |x_i| (n = 1M..64M, blocks of 32..1024 threads). A lost warp (128 values of
 * +-1000) would be off by ~6e3 against a tolerance of 420 at 16M.
 */
#define SUM_TOLERANCE 5e-8

static int bench_shuffle_sum(const simt_args *a, int grid, int block, double *ms) {
  const int n = (int)a->n;
  float *in = simt_alloc((size_t)n * sizeof *in), out = 0.0f;
  const double t = simt_now_ms();
  simt_random_f32(in, n, a->seed);
  const double gen_ms = simt_now_ms() - t;
  double exact = 0.0, abs_sum = 0.0;
  for (int i = 0; i < n; i++) exact += in[i], abs_sum += fabs(in[i]);
  const double tol = SUM_TOLERANCE * abs_sum;
  int ok = 1;
  double worst = 0.0;
  TIMED_REPS(a, ms, ok, out = 0.0f, shuffle_sum(in, &out, n, grid, block),
             (worst = fmax(worst, fabs(out - exact))) <= tol);
  simt_report_begin("shuffleSum", a, ms, 4.0 * n, gen_ms);
  printf(",\"grid\":%d,\"block\":%d,\"result\":%.9g,\"exact\":%.17g,\"maxError\":%.6g,"
         "\"tolerance\":%.6g,\"checksum\":%u,\"ok\":%s}\n",
         grid, block, (double)out, exact, worst, tol, simt_checksum_f32(in, n), json_bool(ok));
  free(in);
  return ok;
}

static float max_f32(const float *x, int n) {
  float m = -INFINITY;
  for (int i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  return m;
}

static int bench_vec_max(const simt_args *a, int grid, int block, double *ms) {
  const int n = (int)a->n;
  float *A = simt_alloc((size_t)n * sizeof *A), *B = simt_alloc((size_t)grid * sizeof *B);
  const double t = simt_now_ms();
  simt_random_f32(A, n, a->seed);
  const double gen_ms = simt_now_ms() - t;
  const float expect = max_f32(A, n);
  float got = NAN;
  int ok = 1;
  /* The host's last step, untimed: the max of the grid's partial maxima B[]. */
  TIMED_REPS(a, ms, ok, (void)0, vec_max(A, B, n, grid, block), (got = max_f32(B, grid)) == expect);
  simt_report_begin("vecMaxGeneric", a, ms, 4.0 * n, gen_ms);
  printf(",\"grid\":%d,\"block\":%d,\"result\":%.9g,\"checksum\":%u,\"ok\":%s}\n", grid, block,
         (double)got, simt_checksum_f32(A, n), json_bool(ok));
  free(A);
  free(B);
  return ok;
}

/* moduleStart[1..count] as a sorted set equals the starts of a sequential scan; clusterId[i] = i. */
static int modules_ok(uint32_t *module_start, const uint32_t *expect, uint32_t expect_count,
                      const int32_t *cluster_id, int n) {
  const uint32_t count = module_start[0];
  if (count != expect_count) return 0;
  qsort(module_start + 1, count, sizeof *module_start, cmp_u32);
  if (memcmp(module_start + 1, expect, count * sizeof *expect)) return 0;
  for (int i = 0; i < n; i++)
    if (cluster_id[i] != i) return 0;
  return 1;
}

static int bench_count_modules(const simt_args *a, int grid, int block, double *ms) {
  const int n = (int)a->n;
  uint16_t *id = simt_alloc((size_t)n * sizeof *id);
  int32_t *cluster_id = simt_alloc((size_t)n * sizeof *cluster_id);
  uint32_t *module_start = simt_alloc((a->n_max + 2) * sizeof *module_start);
  uint32_t *expect = simt_alloc((a->n_max + 2) * sizeof *expect);
  const double t = simt_now_ms();
  if (simt_module_ids(id, (uint32_t)n, a->modules, a->invalid, a->seed) != 0) {
    fprintf(stderr, "bad --modules or --invalid\n");
    exit(2);
  }
  const double gen_ms = simt_now_ms() - t;
  /* Sequential: a valid digi whose previous valid digi is absent or another module starts one. */
  uint32_t expect_count = 0, prev = SIMT_INVALID_MODULE_ID;
  for (int i = 0; i < n; i++) {
    if (id[i] == SIMT_INVALID_MODULE_ID) continue;
    if (id[i] != prev) {
      if (expect_count == a->n_max) {
        fprintf(stderr, "countModulesGeneric: more than --nmax %u modules\n", a->n_max);
        exit(2);
      }
      expect[expect_count++] = (uint32_t)i;
    }
    prev = id[i];
  }
  memset(cluster_id, 0xff, (size_t)n * sizeof *cluster_id); /* -1: a digi never visited fails */
  memset(module_start, 0, (a->n_max + 2) * sizeof *module_start);
  int ok = 1;
  TIMED_REPS(a, ms, ok, module_start[0] = 0,
             count_modules(id, module_start, cluster_id, n, a->n_max, grid, block),
             modules_ok(module_start, expect, expect_count, cluster_id, n));
  simt_report_begin("countModulesGeneric", a, ms, 6.0 * n, gen_ms);
  printf(",\"grid\":%d,\"block\":%d,\"result\":%u,\"checksum\":%u,\"outChecksum\":%u,"
         "\"modules\":%u,\"invalid\":%.17g,\"nMax\":%u,\"ok\":%s}\n",
         grid, block, module_start[0], simt_checksum_u16(id, n),
         simt_checksum_u32(module_start + 1, module_start[0], 0x811C9DC5u), a->modules, a->invalid,
         a->n_max, json_bool(ok));
  free(id);
  free(cluster_id);
  free(module_start);
  free(expect);
  return ok;
}

static const char *const KERNELS[] = {"histogram", "transpose", "shuffleSum", "vecMaxGeneric",
                                      "countModulesGeneric"};
static const uint64_t DEFAULT_N[] = {16u << 20, 2048u * 2048u, 16u << 20, 64u << 20, 50000000u};

int main(int argc, char **argv) {
  /* --grid, --block and --width are this program's; the rest go to simt_parse_args, with --reps
   * read as --repeat. */
  int grid = 0, block = 0, width = 0, m = 1, has_n = 0;
  char **rest = malloc((size_t)argc * sizeof *rest);
  rest[0] = argv[0];
  if (argc % 2 == 0) simt_usage(argv[0]);
  for (int i = 1; i < argc; i += 2) {
    if (!strcmp(argv[i], "--grid")) grid = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--block")) block = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--width")) width = atoi(argv[i + 1]);
    else {
      has_n |= !strcmp(argv[i], "--n");
      rest[m++] = !strcmp(argv[i], "--reps") ? "--repeat" : argv[i];
      rest[m++] = argv[i + 1];
    }
  }
  simt_args a = simt_parse_args(m, rest, 0);
  free(rest);
  int k = 0;
  while (k < 5 && strcmp(a.kernel, KERNELS[k])) k++;
  if (k == 5) {
    fprintf(stderr, "--kernel must be one of histogram, transpose, shuffleSum, vecMaxGeneric, "
                    "countModulesGeneric\n");
    return 2;
  }
  if (!has_n) a.n = DEFAULT_N[k];
  if (a.n < 1 || a.n > (1u << 30)) {
    fprintf(stderr, "--n must be in [1, 2^30] (the kernels index with int, i + stride included)\n");
    return 2;
  }
  if (block <= 0) block = SHAPE_BLOCK;
  const uint64_t per_block = (uint64_t)block * SHAPE_PER_THREAD;
  if (grid <= 0) grid = (int)((a.n + per_block - 1) / per_block);
  if (block > MAX_BLOCK || block % WARP != 0 || (k == 3 && (block & (block - 1)))) {
    fprintf(stderr, "--block must be a multiple of 32, at most %d (a power of two for VecMax)\n", MAX_BLOCK);
    return 2;
  }
  double *ms = malloc((size_t)a.repeat * sizeof *ms);
  int ok = 0;
  switch (k) {
  case 0: ok = bench_histogram(&a, grid, block, ms); break;
  case 1: ok = bench_transpose(&a, width, ms); break;
  case 2: ok = bench_shuffle_sum(&a, grid, block, ms); break;
  case 3: ok = bench_vec_max(&a, grid, block, ms); break;
  case 4: ok = bench_count_modules(&a, grid, block, ms); break;
  }
  free(ms);
  if (!ok) fprintf(stderr, "%s: the result differs from the sequential computation\n", a.kernel);
  return ok ? 0 : 1;
}
