/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_gpu_weights.h
 * The GPU kernel of weight enumeration (gfec_weights.h), for plugin/weights.c: the same pair
 * histogram as the CPU kernel (cpu_backend/weights_cpu.h), counted on the current CUDA device.
 * Synchronous. Every CUDA error (no device, no driver, out of device memory, a failed launch)
 * comes back as GFEC_E_DEVICE: jh is then unspecified and the caller counts on the CPU, which
 * gives the identical histogram.
 */
#ifndef GFEC_CUDA_GEMM_GFEC_GPU_WEIGHTS_H
#define GFEC_CUDA_GEMM_GFEC_GPU_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "gfec/gfec_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * For every pair i < j of the gs[ng] codewords @p cw (@p words <= 4 words each, sorted by
 * weight: group g has weight gw[g] and indices gs[g] .. gs[g+1]-1), adds 1 to
 * jh[(a*(n+1) + wt_i - a)*(n+1) + wt_j - a], a = |cw_i AND cw_j|; jh holds (n+1)^3 counts.
 * When @p tick is not NULL, the work runs in several launches and tick(arg, pairs) reports,
 * from the calling thread, the pairs each one counted.
 * @returns 0, GFEC_E_INVAL (words outside 1..4, n outside 1..64*words, ng < 1), GFEC_E_NOMEM
 * or GFEC_E_DEVICE.
 */
int gfec_gpu_weights_pairs(const uint64_t *cw, int words, int n, const int *gw, const size_t *gs,
			   int ng, void (*tick)(void *arg, uint64_t pairs), void *arg, uint64_t *jh);

#ifdef __cplusplus
}
#endif
#endif
