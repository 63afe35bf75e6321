/* SPDX-License-Identifier: BSD-3-Clause */
/** @file gf16.c  GF(2^16) tables, the table-free reference multiply and region multiply. */
#include "gf16.h"

#include <pthread.h>

struct gfec_gf16_tables gfec_gf16_tab;

static pthread_once_t gf16_once = PTHREAD_ONCE_INIT;

static void gf16_build(void)
{
	struct gfec_gf16_tables *t = &gfec_gf16_tab;
	uint32_t x = 1;

	for (int i = 0; i < 65535; i++) {
		t->exp[i] = (uint16_t)x;
		t->log[x] = (uint16_t)i;
		x <<= 1;
		if (x & 0x10000)
			x ^= GFEC_GF16_POLY;
	}
	/* exp[65535..131069] repeats the cycle: log a + log b (<= 131068) needs no reduction. */
	for (int i = 65535; i < 2 * 65535; i++)
		t->exp[i] = t->exp[i - 65535];
	t->exp[2 * 65535] = 0;
	t->exp[2 * 65535 + 1] = 0;
	t->log[0] = 0;

	t->inv[0] = 0;
	for (int a = 1; a < 65536; a++)
		t->inv[a] = t->exp[65535 - t->log[a]];
}

void gfec_gf16_init(void)
{
	pthread_once(&gf16_once, gf16_build);
}

/* Runs when the library or program that holds this file is loaded. */
__attribute__((constructor)) static void gf16_load(void)
{
	gfec_gf16_init();
}

uint16_t gfec_gf16_pow(uint16_t a, unsigned n)
{
	uint16_t r = 1;

	while (n) {
		if (n & 1)
			r = gfec_gf16_mul(r, a);
		a = gfec_gf16_mul(a, a);
		n >>= 1;
	}
	return r;
}

uint16_t gfec_gf16_mul_shift(uint16_t a, uint16_t b)
{
	uint32_t r = 0, x = a;

	while (b) {
		if (b & 1)
			r ^= x;
		x <<= 1;
		if (x & 0x10000)
			x ^= GFEC_GF16_POLY;
		b >>= 1;
	}
	return (uint16_t)r;
}

/*
 * c * x is linear in x: each entry is the previous one with its lowest set bit cleared, XOR
 * c * 2^b for that bit, and c * 2^b comes from c by doublings. 15 doublings and 510 XORs instead
 * of 512 log/exp multiplies: the plain-C w = 16 kernel makes these tables for every
 * coefficient of every call.
 */
void gfec_gf16_split_tables(uint16_t c, uint16_t *lo, uint16_t *hi)
{
	uint16_t pw[16];

	pw[0] = c;
	for (int b = 1; b < 16; b++)
		pw[b] = (uint16_t)(pw[b - 1] << 1) ^
			(pw[b - 1] & 0x8000 ? (uint16_t)(GFEC_GF16_POLY & 0xffff) : 0);
	lo[0] = hi[0] = 0;
	for (int x = 1; x < 256; x++) {
		const int b = __builtin_ctz((unsigned)x);

		lo[x] = lo[x & (x - 1)] ^ pw[b];
		hi[x] = hi[x & (x - 1)] ^ pw[b + 8];
	}
}

void gfec_gf16_region_mul(const uint8_t *src, uint8_t *dst, size_t len, uint16_t c, int add)
{
	uint16_t lo[256], hi[256];

	gfec_gf16_split_tables(c, lo, hi);
	for (size_t b = 0; b + 1 < len; b += 2) {
		uint16_t p = lo[src[b]] ^ hi[src[b + 1]];

		if (add)
			p ^= (uint16_t)(dst[b] | dst[b + 1] << 8);
		dst[b] = (uint8_t)p;
		dst[b + 1] = (uint8_t)(p >> 8);
	}
}
