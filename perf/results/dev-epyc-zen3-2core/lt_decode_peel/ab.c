/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ab.c: a measurement record (lt_decode_peel.txt). Two builds of gfmatrix/lt.c, each a shared
 * object loaded with RTLD_LOCAL, decode the same blocks (n = 10240, B = 1 KiB, seeds 0.. up to
 * the fewest that decode, or n x (1 + EXTRA)) in turns in one process, so that both see the same
 * load: per rep, reset + every add, check, solve (thread CPU time), the output compared with the
 * segment. Prints best and median of each phase and of their sum.
 * usage: ab A.so B.so REPS [EXTRA]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lt.h"
static double cpu(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
typedef int (*cr_t)(const struct gfec_lt_dist*,size_t,struct gfec_lt_decoder**);
typedef void (*rs_t)(struct gfec_lt_decoder*);
typedef int (*ad_t)(struct gfec_lt_decoder*,uint32_t,const uint8_t*);
typedef int (*ck_t)(struct gfec_lt_decoder*,uint32_t,unsigned);
typedef int (*sv_t)(struct gfec_lt_decoder*,uint8_t*,unsigned);
typedef uint32_t (*in_t)(const struct gfec_lt_decoder*);
struct impl{cr_t cr;rs_t rs;ad_t ad;ck_t ck;sv_t sv;in_t in;struct gfec_lt_decoder*dec;double t[3][1000];};
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return (x>y)-(x<y);}
int main(int argc,char**argv){
  uint32_t n=10240; size_t B=1024; int reps=argc>3?atoi(argv[3]):0; double extra=argc>4?atof(argv[4]):0;
  if(reps<1||reps>1000){fprintf(stderr,"usage: ab A.so B.so REPS(1-1000) [EXTRA]\n");return 2;}
  struct impl im[2]; const char*nm[2]={argv[1],argv[2]};
  for(int i=0;i<2;i++){void*h=dlopen(argv[1+i],RTLD_NOW|RTLD_LOCAL); if(!h){printf("%s\n",dlerror());return 1;}
    im[i].cr=(cr_t)dlsym(h,"gfec_lt_decoder_create");im[i].rs=(rs_t)dlsym(h,"gfec_lt_decoder_reset");im[i].ad=(ad_t)dlsym(h,"gfec_lt_decoder_add");
    im[i].ck=(ck_t)dlsym(h,"gfec_lt_decoder_check");im[i].sv=(sv_t)dlsym(h,"gfec_lt_decoder_solve");im[i].in=(in_t)dlsym(h,"gfec_lt_decoder_inactivated");}
  struct gfec_lt_dist*d; gfec_lt_dist_create(n,GFEC_LT_DEFAULT_C,GFEC_LT_DEFAULT_DELTA,&d);
  uint32_t count=2*n; uint8_t*seg=malloc(n*B),*cod=malloc((size_t)count*B),*out=malloc(n*B);
  srand(1); for(size_t i=0;i<n*B;i++)seg[i]=rand();
  gfec_lt_encode(d,seg,B,0,count,cod,B,NULL);
  struct gfec_lt_decoder*dec; gfec_lt_decoder_create(d,B,&dec);
  for(uint32_t j=0;j<count;j++)gfec_lt_decoder_add(dec,j,NULL);
  uint32_t lo=n,hi=count; while(lo<hi){uint32_t mid=(lo+hi)/2; if(gfec_lt_decoder_check(dec,mid,0)==1)hi=mid; else lo=mid+1;} uint32_t m=hi;
  if(extra>0){m=(uint32_t)(n*(1+extra)); if(m<hi)m=hi;}
  for(int i=0;i<2;i++) im[i].cr(d,B,&im[i].dec);
  for(int r=0;r<reps;r++) for(int i=0;i<2;i++){ struct impl*p=&im[i];
    double t0=cpu(); p->rs(p->dec);
    for(uint32_t j=0;j<m;j++)p->ad(p->dec,j,cod+(size_t)j*B);
    double t1=cpu(); int rc=p->ck(p->dec,m,0); double t2=cpu();
    memset(out,0x5a,n*B); double t3=cpu();
    int rs=p->sv(p->dec,out,0); double t4=cpu();
    if(rc!=1||rs||memcmp(out,seg,n*B)){printf("FAIL %s rc=%d rs=%d\n",nm[i],rc,rs);return 1;}
    p->t[0][r]=t1-t0;p->t[1][r]=t2-t1;p->t[2][r]=t4-t3;}
  for(int i=0;i<2;i++){ double best[3],med[3],tot[1000];
    for(int r=0;r<reps;r++)tot[r]=im[i].t[0][r]+im[i].t[1][r]+im[i].t[2][r];
    for(int q=0;q<3;q++){qsort(im[i].t[q],reps,8,cmpd);best[q]=im[i].t[q][0];med[q]=im[i].t[q][reps/2];}
    qsort(tot,reps,8,cmpd);
    printf("%-22s m=%u k=%u  add %.2f/%.2f check %.2f/%.2f solve %.2f/%.2f  total %.2f/%.2f ms (best/median) = %.3f/%.3f GB/s\n",nm[i],m,im[i].in(im[i].dec),
      best[0]*1e3,med[0]*1e3,best[1]*1e3,med[1]*1e3,best[2]*1e3,med[2]*1e3,tot[0]*1e3,tot[reps/2]*1e3,n*B/tot[0]/1e9,n*B/tot[reps/2]/1e9);}
  return 0;}
