/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file bitmatrix.c
 * Cauchy RS over packets: every output packet is an XOR of input packets chosen by the bitmatrix.
 *
 *   one block of a chunk (w = 8 packets of P bytes):  | x=0 | x=1 | ... | x=7 |
 *   dst[i] packet l  =  XOR over (j, x) with bit (8i+l, 8j+x) set  of  src[j] packet x
 *
 * The plain twin of the GPU bitmatrix kernel, and the CPU path of technique=cauchy_good.
 */
#include <string.h>

#include "cpu_backend.h"

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void st64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* d ^= s over n bytes (n a multiple of 8), or d = s when @p first. */
static void xor_into(uint8_t *d, const uint8_t *s, size_t n, int first)
{
	if (first) {
		memcpy(d, s, n);
		return;
	}
	for (size_t o = 0; o < n; o += 8)
		st64(d + o, ld64(d + o) ^ ld64(s + o));
}

void gfec_cpu_bitmatrix_base(size_t len, int cols, int rows, int col, const uint8_t *bits,
			     size_t packetsize, const uint8_t *const *src, uint8_t *const *dst)
{
	const size_t P = packetsize, block = 8 * P, rowbits = (size_t)cols * 8;
	const int j0 = col < 0 ? 0 : col, j1 = col < 0 ? cols : col + 1;

	for (size_t b = 0; b + block <= len; b += block)
		for (int i = 0; i < rows; i++)
			for (int l = 0; l < 8; l++) {
				const uint8_t *brow = bits + ((size_t)i * 8 + l) * rowbits;
				uint8_t *d = dst[i] + b + (size_t)l * P;
				int first = col < 0;

				for (int j = j0; j < j1; j++)
					for (int x = 0; x < 8; x++)
						if (brow[j * 8 + x]) {
							const uint8_t *s = src[col < 0 ? j : 0] + b +
									   (size_t)x * P;

							xor_into(d, s, P, first);
							first = 0;
						}
				if (first)
					memset(d, 0, P);
			}
}
