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

/**
 * @p cw: the codewords, @p words 64-bit words each, sorted by weight, in @p ng groups (group g
 * has weight gw[g] and indices gs[g] .. gs[g+1]-1). For every pair of indices i < j adds one
 * to @p jh at (a, gw(i) - a, gw(j) - a), a = |cw[i] AND cw[j]|; jh holds (n+1)^3 counts indexed
 * [(a*(n+1) + b)*(n+1) + c]. Runs on every thread of @p pool. @returns 0 or GFEC_E_NOMEM.
 */
int gfec_cpu_weights_pairs(struct gfec_cpu_pool *pool, const uint64_t *cw, int words, int n,
			   const int *gw, const size_t *gs, int ng, uint64_t *jh);

#endif
