/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file stride.c
 * The check behind GemmArgsStride (stride.h): 8 pointers a step, no branch inside a block. A
 * batch of 4096 RS(10,4) stripes has 57344 pointers; on the H200's host the pass over them took
 * 26.9-28.4 us as the compiler vectorised a pointer-at-a-time loop in SSE2 and 13.1-14.9 us in
 * AVX2 (small-2026-11-25, calls 1 and 2): it is bound by instructions, not by reading the 448 KiB.
 */
#include <string.h>

#include "clones.h"
#include "stride.h"

typedef uint64_t stride_vec __attribute__((vector_size(64)));

GFEC_CLONES("avx512f", "avx2", "default")
int gfec_gpu_rows_step(const void *const *p, size_t per, size_t r0, size_t r1, ptrdiff_t step)
{
	const size_t block = 2048, end = r1 * per;
	const uint64_t s = (uint64_t)step;
	const stride_vec sv = { s, s, s, s, s, s, s, s };

	if (per == 0)
		return 0;
	for (size_t i = (r0 ? r0 : 1) * per; i < end; i += block) {
		const size_t stop = end - i < block ? end : i + block;
		stride_vec dv = { 0 };
		uint64_t diff = 0;
		size_t x = i;

		for (; x + 8 <= stop; x += 8) {
			stride_vec a, b;

			memcpy(&a, p + x, sizeof(a));
			memcpy(&b, p + x - per, sizeof(b));
			dv |= (a - b) ^ sv;
		}
		for (; x < stop; x++)
			diff |= ((uintptr_t)p[x] - (uintptr_t)p[x - per]) ^ s;
		for (int l = 0; l < 8; l++)
			diff |= dv[l];
		if (diff)
			return 0;
	}
	return 1;
}

int gfec_gpu_rows_nonnull(const void *const *p, size_t per, size_t rows, ptrdiff_t step)
{
	/* how far each run goes from the first row: (rows - 1) |step|, below 2^127 */
	const unsigned __int128 span =
		(unsigned __int128)(rows - 1) * (step < 0 ? -(uint64_t)step : (uint64_t)step);

	for (size_t j = 0; j < per; j++) {
		const uint64_t a = (uintptr_t)p[j];

		if (a == 0 || (step < 0 ? span >= a : span > UINT64_MAX - a))
			return 0;
	}
	return 1;
}
