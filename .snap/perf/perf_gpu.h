/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_gpu.h
 * The GPU facts and ceilings gfec-perf measures, behind a C interface (perf_gpu.cu). Only built
 * with CUDA; every function reports failure instead of aborting, so a host without a usable GPU
 * simply has no GPU rows.
 */
#ifndef GFEC_PERF_GPU_H
#define GFEC_PERF_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perf_gpu_info {
	int present;
	char name[128];
	int sms;
	int sm_clock_mhz, mem_clock_mhz; /* current clocks at query time */
	double mem_gib;
	int driver, runtime;		 /* CUDA versions, e.g. 13000 */
};

int perf_gpu_query(struct perf_gpu_info *info);

/* Ceilings; each returns bytes per second (as GB/s, 10^9), or 0 when it could not be measured. */
double perf_gpu_d2d(size_t bytes);				 /* read + written */
double perf_gpu_xor_bound(int k, int m, size_t chunk, int stripes); /* data bytes */
int perf_gpu_pinned(size_t bytes, double *h2d, double *d2h, double *both);
/* The device the calls here measure and allocate on (cudaSetDevice; 0 before any call): 0 or -1. */
int perf_gpu_use(int ordinal);

void *perf_gpu_malloc(size_t n);
void perf_gpu_free(void *p);
int perf_gpu_copy(void *dst, const void *src, size_t n); /* any direction; 0 or -1 */
void *perf_pinned_malloc(size_t n);
void perf_pinned_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
