/* SPDX-License-Identifier: BSD-3-Clause */
/** @file gf8.c  GF(2^8) tables and the table-free reference multiply. */
#include "gf8.h"

#include <pthread.h>

struct gfec_gf8_tables gfec_gf8_tab;

static pthread_once_t gf8_once = PTHREAD_ONCE_INIT;

static void gf8_build(void)
{
	struct gfec_gf8_tables *t = &gfec_gf8_tab;
	unsigned x = 1;

	for (int i = 0; i < 255; i++) {
		t->exp[i] = (uint8_t)x;
		t->log[x] = (uint8_t)i;
		x <<= 1;
		if (x & 0x100)
			x ^= GFEC_GF8_POLY;
	}
	/* exp[255..509] repeats the cycle so that log a + log b (<= 508) needs no reduction. */
	for (int i = 255; i < 510; i++)
		t->exp[i] = t->exp[i - 255];
	t->exp[510] = 0;
	t->exp[511] = 0;
	t->log[0] = 0;

	t->inv[0] = 0;
	for (int a = 1; a < 256; a++)
		t->inv[a] = t->exp[255 - t->log[a]];

	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++)
			t->mul[a][b] = (a && b) ? t->exp[t->log[a] + t->log[b]] : 0;
}

void gfec_gf8_init(void)
{
	pthread_once(&gf8_once, gf8_build);
}

/* Runs when the library or program that holds this file is loaded. */
__attribute__((constructor)) static void gf8_load(void)
{
	gfec_gf8_init();
}

uint8_t gfec_gf8_pow(uint8_t a, unsigned n)
{
	uint8_t r = 1;

	while (n) {
		if (n & 1)
			r = gfec_gf8_mul(r, a);
		a = gfec_gf8_mul(a, a);
		n >>= 1;
	}
	return r;
}

uint64_t gfec_gf8_mul_swar(uint64_t word, uint8_t c)
{
	const uint64_t hi = 0x8080808080808080ull;
	const uint64_t lo = 0x7f7f7f7f7f7f7f7full;
	uint64_t r = 0;

	while (c) {
		if (c & 1)
			r ^= word;
		/* xtime on every lane: shift left, and fold the carried-out bit back as 0x1d. */
		word = ((word & lo) << 1) ^ (((word & hi) >> 7) * 0x1d);
		c >>= 1;
	}
	return r;
}

void gfec_gf8_to_bitmatrix(const uint8_t *g, int rows, int cols, uint8_t *bits)
{
	const size_t rowbits = (size_t)cols * 8;

	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++) {
			uint8_t e = g[i * cols + j];

			for (int x = 0; x < 8; x++) {
				for (int l = 0; l < 8; l++)
					bits[((size_t)i * 8 + l) * rowbits + (size_t)j * 8 + x] =
						(e >> l) & 1;
				e = gfec_gf8_mul(e, 2);
			}
		}
}
