/* SPDX-License-Identifier: BSD-3-Clause */
/** @file encode_base.c  The plain-C reference that every fast path is tested against. */
#include <string.h>

#include "cpu_backend.h"
#include "gf8.h"

void gfec_cpu_gemm_base(size_t len, int cols, int rows, const uint8_t *a,
			const uint8_t *const *src, uint8_t *const *dst)
{
	for (int i = 0; i < rows; i++) {
		uint8_t *d = dst[i];

		memset(d, 0, len);
		for (int j = 0; j < cols; j++) {
			const uint8_t *t = gfec_gf8_tab.mul[a[i * cols + j]];
			const uint8_t *s = src[j];

			for (size_t b = 0; b < len; b++)
				d[b] ^= t[s[b]];
		}
	}
}

void gfec_cpu_update_base(size_t len, int cols, int rows, int col, const uint8_t *a,
			  const uint8_t *src, uint8_t *const *dst)
{
	for (int i = 0; i < rows; i++) {
		const uint8_t *t = gfec_gf8_tab.mul[a[i * cols + col]];
		uint8_t *d = dst[i];

		for (size_t b = 0; b < len; b++)
			d[b] ^= t[src[b]];
	}
}
