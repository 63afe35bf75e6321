/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file split.h
 * How the several-GPU layer (multi.cu) cuts one call among device contexts: plain C, no CUDA, so
 * that CI tests it on any host (tests/cuda_gemm/test_gpu_split.c).
 *
 * A call's work is a range [0, total) of units: whole stripes when the call has several, else
 * bytes of its one stripe. Context i gets the consecutive range [cut[i], cut[i+1]), in proportion
 * to its measured rate, so all of them finish at about the same time (Tenor's static split).
 */
#ifndef GFEC_CUDA_GEMM_SPLIT_H
#define GFEC_CUDA_GEMM_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Cuts [0, @p total) among @p n contexts in proportion to @p rates (a rate that is not > 0, or
 * not finite, takes no part). Every cut but the last is a multiple of @p unit (>= 1), the last is
 * @p total; a context whose range would be shorter than @p min gets none and the others share its
 * part (the slowest such context is dropped first, and one context always keeps the whole).
 * Writes cut[0..n] (n + 1 entries; cut[0] = 0, nondecreasing) and returns how many contexts got a
 * nonempty range: 0 only when @p total is 0 or no rate takes part (then every cut is 0).
 */
int gfec_gpu_split(uint64_t total, uint64_t unit, uint64_t min, const double *rates, int n,
		   uint64_t *cut);

/**
 * The byte granularity at which one stripe may be cut: 64, or a whole CRS block (8 x
 * @p packetsize, itself a multiple of 64) for packet layouts. Even, as w = 16 needs.
 */
uint64_t gfec_gpu_split_unit(size_t packetsize);

#ifdef __cplusplus
}
#endif
#endif
