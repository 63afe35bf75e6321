/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kernel_ab.c: a measurement record, not part of the build. One RS(k,m) encode kernel against
 * another in one process, interleaved, best of 11: Debian's ISA-L 2.30 ec_encode_data, upstream
 * 2.32.1's (dlopened, RTLD_DEEPBIND), and gfec's cpu_backend/avx2.c compiled twice, without
 * (k_pf0) and with (k_pf512) a source prefetch 512 bytes ahead (the kernel of a1fabb4; 7d76854
 * keeps k_pf0). Same Cauchy matrix and tables for all. Built, from the repository root, as
 *
 *   git show a1fabb4:cpu_backend/avx2.c > /tmp/avx2.c
 *   for v in 0 512; do sed -e "s/#define AVX2_PREFETCH 512/#define AVX2_PREFETCH $v/" \
 *     -e "s/gfec_cpu_gemm_avx2/k_pf$v/" -e "s/gfec_cpu_avx2_tables/tables_pf$v/" /tmp/avx2.c \
 *     > /tmp/k$v.c; done
 *   gcc -O3 -Icpu_backend -Igfmatrix/base -Igfmatrix/base/include -Iplugin/include -c \
 *     /tmp/k0.c /tmp/k512.c
 *   gcc -O2 [-DCLOCK=CLOCK_MONOTONIC] -o kernel_ab kernel_ab.c k0.o k512.o \
 *     build-i16/gfmatrix/base/CMakeFiles/gfec_base.dir/gf8.c.o -ldl -lpthread
 * Usage: kernel_ab k m len iters [sets]   (sets > 1: rotate over that many stripes: from DRAM)
 * Default clock: the thread's CPU time, which leaves out the time other users of the shared
 * VM hold the CPU.
 */
#ifndef CLOCK
#define CLOCK CLOCK_THREAD_CPUTIME_ID
#endif
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
typedef void (*enc_t)(int, int, int, unsigned char *, unsigned char **, unsigned char **);
typedef void (*init_t)(int, int, unsigned char *, unsigned char *);
typedef void (*gen_t)(unsigned char *, int, int);
void k_pf0(size_t, int, int, const uint8_t *, const uint8_t *const *, uint8_t *const *, int);
void k_pf512(size_t, int, int, const uint8_t *, const uint8_t *const *, uint8_t *const *, int);
static double now(void){struct timespec t;clock_gettime(CLOCK,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  int k=atoi(argv[1]),m=atoi(argv[2]);size_t len=strtoul(argv[3],0,0);int iters=atoi(argv[4]);int nsets=argc>5?atoi(argv[5]):1;
  const char *libs[2]={"/usr/lib/x86_64-linux-gnu/libisal.so.2","/tmp/isa-l-2.32.1-i16/bin/libisal.so.2"};
  enc_t enc[2];init_t init[2];gen_t gen=0;
  for(int i=0;i<2;i++){void*h=dlopen(libs[i],RTLD_NOW|RTLD_LOCAL|RTLD_DEEPBIND);if(!h){puts(dlerror());return 1;}
    enc[i]=(enc_t)dlsym(h,"ec_encode_data");init[i]=(init_t)dlsym(h,"ec_init_tables");if(!i)gen=(gen_t)dlsym(h,"gf_gen_cauchy1_matrix");}
  unsigned char *a=malloc((k+m)*k),*t=malloc(32*k*m);gen(a,k+m,k);init[0](k,m,a+k*k,t);
  unsigned char **d=malloc(sizeof(void*)*k*nsets),**p=malloc(sizeof(void*)*m*nsets);
  for(int i=0;i<k*nsets;i++){d[i]=aligned_alloc(64,len);for(size_t b=0;b<len;b++)d[i][b]=rand();}
  for(int i=0;i<m*nsets;i++)p[i]=aligned_alloc(64,len);
  const char*names[4]={"deb2.30","up2.32.1","gfec avx2 pf0","gfec avx2 pf512"};
  double best[4]={1e9,1e9,1e9,1e9};
  for(int r=0;r<11;r++)for(int v=0;v<4;v++){double t0=now();for(int it=0;it<iters;it++){int s=it%nsets;unsigned char**dd=d+s*k,**pp=p+s*m;
      if(v<2)enc[v](len,k,m,t,dd,pp);else if(v==2)k_pf0(len,k,m,t,(const uint8_t*const*)dd,pp,0);else k_pf512(len,k,m,t,(const uint8_t*const*)dd,pp,0);}
    double s=now()-t0;if(s<best[v])best[v]=s;}
  printf("RS(%d,%d) %zu B x %d sets:",k,m,len,nsets);for(int v=0;v<4;v++)printf("  %s %.2f",names[v],(double)k*len*iters/best[v]/1e9);
  printf("  | pf0/up %.3f pf512/up %.3f\n",best[1]/best[2],best[1]/best[3]);
}
