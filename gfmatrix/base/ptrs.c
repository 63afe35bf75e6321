/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file ptrs.c
 * gfec_ptrs_nonnull: 8 pointers a step, no early exit. On the H200 host gfec_encode_batch of
 * 4096 RS(10,4) stripes (57344 pointers) took 20 us more than the GPU backend alone
 * (perf/results/nvidia-h200/smallbatch-2026-11-24) with this check a pointer at a time, and still
 * 13.9-16.8 us more with it 4 pointers a step in SSE2 or AVX2 (small-2026-11-25, calls 1-2).
 */
#include <stdint.h>
#include <string.h>

#include "clones.h"
#include "ptrs.h"

typedef uint64_t ptrs_vec __attribute__((vector_size(64)));

GFEC_CLONES("avx512f", "avx2", "default") static int nonnull(const void *const *p, size_t n)
{
	ptrs_vec zv = { 0 };
	uint64_t null = 0;
	size_t i = 0;

	if (!p)
		return 0;
	for (; i + 8 <= n; i += 8) {
		ptrs_vec v;

		memcpy(&v, p + i, sizeof(v));
		zv |= (ptrs_vec)(v == 0);
	}
	for (; i < n; i++)
		null |= p[i] == NULL;
	for (int l = 0; l < 8; l++)
		null |= zv[l];
	return !null;
}

/* Clang 14 gives an exported function with target clones no symbol of its own name (only
 * `.ifunc`), so the clones stay static behind this one. */
int gfec_ptrs_nonnull(const void *const *p, size_t n)
{
	return nonnull(p, n);
}
