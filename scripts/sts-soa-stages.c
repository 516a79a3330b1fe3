#include "../bench/native/simt_data.h"
#include <omp.h>
/* The STS counting sort on two columns {channel, time} in native C, timed by stage: the count,
 * the offsets (one thread) and the scatter of the times (no fill of the sorted channel column,
 * which simt's kernels also write). For scripts/wasm-loop-floor.mjs and bench/RESULTS.md:
 *   gcc -O3 -march=native -fopenmp scripts/sts-soa-stages.c -o sts-soa && OMP_NUM_THREADS=T ./sts-soa n channels reps */
int main(int argc,char**argv){
  int64_t n=atoll(argv[1]); uint32_t K=atoi(argv[2]); int reps=atoi(argv[3]);
  uint32_t *w=malloc(8*n); simt_sts_digis(w,n,K,1);
  uint32_t *ch=malloc(4*n),*tm=malloc(4*n),*och=malloc(4*n),*otm=malloc(4*n);
  for(int64_t i=0;i<n;i++){ch[i]=w[2*i];tm[i]=w[2*i+1];}
  memset(och,0,4*n);memset(otm,0,4*n);
  int nt=omp_get_max_threads(); uint32_t*hist=malloc(4ull*nt*K);
  double tc[100],ts[100],tt[100];
  for(int r=0;r<reps;r++){
    double t0=omp_get_wtime(),t1=0,t2=0;
#pragma omp parallel
    { int t=omp_get_thread_num(); int64_t b=n*t/nt,e=n*(t+1)/nt; uint32_t*h=hist+(size_t)t*K;
      memset(h,0,4*K); for(int64_t i=b;i<e;i++) h[ch[i]]++;
#pragma omp barrier
#pragma omp single
      { t1=omp_get_wtime(); uint32_t s=0; for(uint32_t c=0;c<K;c++) for(int u=0;u<nt;u++){uint32_t v=hist[(size_t)u*K+c];hist[(size_t)u*K+c]=s;s+=v;} t2=omp_get_wtime();}
      for(int64_t i=b;i<e;i++){uint32_t c=ch[i]; otm[h[c]++]=tm[i];}
    }
    double t3=omp_get_wtime(); tc[r]=(t1-t0)*1e3; ts[r]=(t3-t2)*1e3; tt[r]=(t3-t0)*1e3;
  }
  int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
  qsort(tc,reps,8,cmp);qsort(ts,reps,8,cmp);qsort(tt,reps,8,cmp);
  printf("n=%ld K=%u T=%d count %.3f scatter %.3f total %.3f ms (medians)\n",(long)n,K,nt,tc[reps/2],ts[reps/2],tt[reps/2]);
}
