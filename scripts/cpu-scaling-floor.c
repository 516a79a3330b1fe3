#include <omp.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
/* Whether a machine's cores scale (bench/RESULTS.md, issue #16): every thread runs the same
 * ALU-bound loop, then the same histogram count over its own 4 MiB, at T threads; if the time per
 * round stays that of one thread, T threads share no core and no cache that slows them.
 *   gcc -O2 -fopenmp scripts/cpu-scaling-floor.c -o cpu-scaling && OMP_PROC_BIND=true ./cpu-scaling T */
int main(int argc, char **argv) {
  int T = atoi(argv[1]);
  double alu = 0, mem = 0;
  static uint32_t buf[16][1 << 20];
  for (int r = 0; r < 5; r++) {
    double t0 = omp_get_wtime();
    uint64_t sink = 0;
#pragma omp parallel num_threads(T) reduction(+:sink)
    { uint64_t x = omp_get_thread_num() + 1; for (long i = 0; i < 200000000; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL; sink += x; }
    double t1 = omp_get_wtime();
#pragma omp parallel num_threads(T)
    { uint32_t *b = buf[omp_get_thread_num()]; uint32_t h[1024] = {0};
      for (int k = 0; k < 50; k++) for (int i = 0; i < (1 << 20); i++) h[(b[i] + i) & 1023]++;
      b[0] = h[5]; }
    double t2 = omp_get_wtime();
    if (r > 0) { alu += t1 - t0; mem += t2 - t1; }
    if (sink == 42) printf("x");
  }
  printf("T=%d alu %.1f ms, count-like %.1f ms (per round, every thread the same work)\n", T, alu / 4 * 1e3, mem / 4 * 1e3);
  return 0;
}
