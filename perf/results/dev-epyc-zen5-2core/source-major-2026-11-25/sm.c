#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define K 10
#define M 4
static size_t LEN = 16 << 20;
static int NT = 2, MODE;
static size_t S;
static uint8_t *src[K], *dst[M];
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
__attribute__((target("avx512f,avx512bw,gfni")))
static void inter(size_t a, size_t b){
  const __m512i m=_mm512_set1_epi64(0x0102040810204080ull);
  for(size_t p=a;p<b;p+=128){
    __m512i x0[M],x1[M];
    for(int r=0;r<M;r++){x0[r]=_mm512_setzero_si512();x1[r]=x0[r];}
    for(int j=0;j<K;j++){__m512i d0=_mm512_load_si512(src[j]+p),d1=_mm512_load_si512(src[j]+p+64);
      for(int r=0;r<M;r++){x0[r]=_mm512_xor_si512(x0[r],_mm512_gf2p8affine_epi64_epi8(d0,m,0));x1[r]=_mm512_xor_si512(x1[r],_mm512_gf2p8affine_epi64_epi8(d1,m,0));}}
    for(int r=0;r<M;r++){_mm512_stream_si512((void*)(dst[r]+p),x0[r]);_mm512_stream_si512((void*)(dst[r]+p+64),x1[r]);}
  }
  _mm_sfence();
}
__attribute__((target("avx512f,avx512bw,gfni")))
static void smaj(size_t a, size_t b, uint8_t *acc){
  const __m512i m=_mm512_set1_epi64(0x0102040810204080ull);
  for(size_t q=a;q<b;q+=S){
    size_t e=q+S<b?q+S:b, n=e-q;
    for(int j=0;j<K;j++){
      for(size_t p=0;p<n;p+=64){
        __m512i d=_mm512_load_si512(src[j]+q+p), t=_mm512_gf2p8affine_epi64_epi8(d,m,0);
        for(int r=0;r<M;r++){__m512i *x=(__m512i*)(acc+r*S+p); *x = j? _mm512_xor_si512(*x,t): t;}
      }
    }
    for(int r=0;r<M;r++) for(size_t p=0;p<n;p+=64) _mm512_stream_si512((void*)(dst[r]+q+p),*(__m512i*)(acc+r*S+p));
  }
  _mm_sfence();
}
__attribute__((target("avx512f")))
static void rd(size_t a,size_t b){ __m512i x=_mm512_setzero_si512(); for(int j=0;j<K;j++) for(size_t p=a;p<b;p+=64) x=_mm512_xor_si512(x,_mm512_load_si512(src[j]+p)); volatile __m512i s=x; (void)s;}
static pthread_barrier_t bar;
static void *run(void *arg){ long t=(long)arg; size_t per=LEN/NT, a=t*per, b=a+per; uint8_t *acc=aligned_alloc(64, M*S+64);
  for(int it=0;it<6;it++){ pthread_barrier_wait(&bar); if(MODE==0) inter(a,b); else if(MODE==1) smaj(a,b,acc); else rd(a,b); pthread_barrier_wait(&bar);} free(acc); return 0;}
int main(int c,char**v){ MODE=atoi(v[1]); S=c>2?strtoul(v[2],0,0):65536; NT=c>3?atoi(v[3]):2;
  for(int j=0;j<K;j++){src[j]=aligned_alloc(4096,LEN);memset(src[j],j+1,LEN);} for(int r=0;r<M;r++){dst[r]=aligned_alloc(4096,LEN);memset(dst[r],0,LEN);}
  pthread_barrier_init(&bar,0,NT+1); pthread_t th[64]; for(long t=0;t<NT;t++) pthread_create(&th[t],0,run,(void*)t);
  double ds[6]; for(int it=0;it<6;it++){ pthread_barrier_wait(&bar); double t0=now(); pthread_barrier_wait(&bar); double d=now()-t0; ds[it]=d; if(getenv("V"))fprintf(stderr,"%d %.6f\n",it,d);}
  for(int i=1;i<6;i++)for(int j=i+1;j<6;j++)if(ds[j]<ds[i]){double x=ds[i];ds[i]=ds[j];ds[j]=x;} double best=ds[3]; double traf = MODE==2? K*(double)LEN : (K+M)*(double)LEN;
  printf("mode %d S %zu: data %.1f GB/s traffic %.1f GB/s\n",MODE,S,K*(double)LEN/best/1e9,traf/best/1e9);
  for(int t=0;t<NT;t++) pthread_join(th[t],0); return 0;}
