/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file weights_cpu.h
 * The CPU kernel of weight enumeration (gfec_weights.h): the (a, b, c) histogram of every pair
 * u before v of a weight-sorted codeword list, over a thread pool.
 */
#ifndef GFEC_CPU_WEIGHTS_H
#define GFEC_CPU_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "threadpool.h"

/** The counting kernels (gfec_cpu_weights_pairs' @p kernel). */
enum gfec_cpu_wt_kernel {
	GFEC_CPU_WT_BEST = 0,	/**< AVX-512 VPOPCNTQ where the CPU has it, else POPCNT */
	GFEC_CPU_WT_POPCNT = 1, /**< one codeword at a time, the POPCNT instruction (or libgcc's) */
	GFEC_CPU_WT_VPOPCNTQ = 2, /**< 512 bits of codewords at a time: GFEC_E_NOTSUP without it */
};

/** 1 when this CPU runs GFEC_CPU_WT_VPOPCNTQ (AVX-512F and AVX-512 VPOPCNTDQ). */
int gfec_cpu_wt_have_vpopcntq(void);

/**
 * @p cw: the codewords, @p words 64-bit words each, sorted by weight, in @p ng groups (group g
 * has weight gw[g] and indices gs[g] .. gs[g+1]-1). For every pair of indices i < j adds one
 * to @p jh at (a, gw(i) - a, gw(j) - a), a = |cw[i] AND cw[j]|; jh holds (n+1)^3 counts indexed
 * [(a*(n+1) + b)*(n+1) + c]. Runs on every thread of @p pool with @p kernel. When @p tick is not
 * NULL, the threads call it (concurrently) with the number of pairs each has just counted, a few
 * thousand times over the run. @returns 0, GFEC_E_NOTSUP (a kernel this CPU lacks) or
 * GFEC_E_NOMEM.
 */
int gfec_cpu_weights_pairs(struct gfec_cpu_pool *pool, const uint64_t *cw, int words, int n,
			   const int *gw, const size_t *gs, int ng, enum gfec_cpu_wt_kernel kernel,
			   void (*tick)(void *arg, uint64_t pairs), void *arg, uint64_t *jh);

#endif
