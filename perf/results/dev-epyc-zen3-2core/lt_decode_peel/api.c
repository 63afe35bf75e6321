/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api.c: a measurement record (../lt_decode_peel.txt). The fewest-blocks decode through gfec_nc.h
 * as gfec-lt-bench's API row makes it (n = 10240, B = 1 KiB, one thread, 10244 blocks from seed 0,
 * a decoder per rep: adds until COMPLETE, then read), timed in two parts by thread CPU time, best
 * of REPS. Built against a libgfec_static.a (build.sh's comment says how).
 * usage: api REPS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gfec/gfec_errors.h"
#include "gfec/gfec_nc.h"
static double cpu(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  uint32_t n=10240,B=1024,m=10244; int reps=argc>1?atoi(argv[1]):0;
  if(reps<1){fprintf(stderr,"usage: api REPS\n");return 2;}
  struct gfec_nc_params p = { .n = n, .block_size = B, .threads = 1, .family = GFEC_NC_LT };
  uint8_t *seg=malloc((size_t)n*B),*out=malloc((size_t)n*B); for(size_t i=0;i<(size_t)n*B;i++)seg[i]=rand();
  struct gfec_nc_segment sg = { .id = 1, .data = seg };
  gfec_nc *nc; gfec_nc_create(&p,&nc); size_t bytes=gfec_nc_block_bytes(nc,GFEC_NC_KIND_SEED);
  uint8_t*blk=malloc((size_t)m*bytes); gfec_nc_encode(nc,&sg,1,0,m,blk,(size_t)m*bytes);
  double best=1, ba=1, bc=1;
  for(int r=0;r<reps;r++){ double t0=cpu(); gfec_nc_decoder*d; gfec_nc_decoder_create(nc,1,&d); uint32_t j=0; int st=0;
    while(j<m){ st=gfec_nc_decoder_add(d,blk+(size_t)j++*bytes,bytes); if(st==GFEC_NC_COMPLETE)break; }
    double t1=cpu(); int rc=gfec_nc_decoder_read(d,out,(size_t)n*B); double t2=cpu(); gfec_nc_decoder_free(d);
    if(rc||memcmp(out,seg,(size_t)n*B)){printf("FAIL %d\n",rc);return 1;}
    if(t2-t0<best)best=t2-t0; if(t1-t0<ba)ba=t1-t0; if(t2-t1<bc)bc=t2-t1; }
  printf("API: adds+checks %.2f read %.2f total %.2f ms = %.3f GB/s\n",ba*1e3,bc*1e3,best*1e3,(double)n*B/best/1e9);
  return 0;}
