#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include "lt.h"
extern double lt_t[8]; extern size_t lt_n[8];
static double tnow(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  uint32_t n=10240, m=argc>1?atoi(argv[1]):10244; size_t B=1024; int reps=argc>3?atoi(argv[3]):20;
  struct gfec_lt_dist *d; gfec_lt_dist_create(n,0.03,0.05,&d);
  int nout = argc>2?atoi(argv[2]):1;
  uint8_t *seg=malloc(n*B), *cod=malloc((size_t)m*B), *outs=malloc((size_t)nout*n*B), *out=outs;
  memset(outs, 1, (size_t)nout*n*B);
  for(size_t i=0;i<n*B;i++) seg[i]=rand();
  if(gfec_lt_encode(d,seg,B,0,m,cod,B,NULL)) {puts("enc fail");return 1;}
  struct gfec_lt_decoder *dec; gfec_lt_decoder_create(d,B,&dec);
  double ta=1e9,tt=1e9;
  for(int r=0;r<reps;r++){
    memset(lt_t,0,sizeof lt_t); memset(lt_n,0,sizeof lt_n);
    out = outs + (size_t)(r % nout) * n * B;
    double t0=tnow(); gfec_lt_decoder_reset(dec);
    for(uint32_t j=0;j<m;j++) gfec_lt_decoder_add(dec,j,cod+(size_t)j*B);
    double t1=tnow(); int rc=gfec_lt_decoder_solve(dec,out,0); double t2=tnow();
    if(rc||memcmp(out,seg,n*B)){printf("fail %d\n",rc);return 1;}
    if(r>=reps-3) printf("add %.2f ms  struct %.2f  emit %.2f  run %.2f  copy %.2f  total %.2f ms  %.3f GB/s | ops words step1 %zu step3 %zu step4 %zu k=%u\n",(t1-t0)*1e3,lt_t[0]*1e3,lt_t[1]*1e3,lt_t[2]*1e3,lt_t[3]*1e3,(t2-t0)*1e3,n*B/(t2-t0)/1e9,lt_n[0],lt_n[1],lt_n[2],gfec_lt_decoder_inactivated(dec));
  }
  return 0;
}
