/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gf16.h
 * GF(2^16) arithmetic over the polynomial 0x1100B (x^16 + x^12 + x^3 + x + 1), the default of
 * gf-complete and Jerasure for w = 16, so 2 * 0x8000 = 0x100B and 0x1234 * 0x5678 = 0x6324.
 *
 * Symbols in a region (a chunk) are 16-bit little-endian words, Jerasure's region layout on x86:
 * symbol s of a region of len bytes is p[2s] | p[2s+1] << 8, for s < len / 2; len is even.
 *
 * Two ways to multiply, each with its own job:
 *  - gfec_gf16_mul():       log/exp, the exp table extended to 2 * 65535 entries so that
 *                           exp[log a + log b] needs no reduction; what matrix code uses.
 *  - gfec_gf16_mul_shift(): the table-free shift-and-add reference the tests check it with.
 * Region operations (a constant times a region, written or XORed) use two 256-entry tables per
 * constant, one per byte of the symbol (gfec_gf16_split_tables()).
 *
 * The tables (640 KiB) are built once, thread-safely, when the library loads (and again on demand
 * by gfec_gf16_init(), which is idempotent); nothing here allocates or can fail.
 */
#ifndef GFEC_BASE_GF16_H
#define GFEC_BASE_GF16_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GFEC_GF16_POLY 0x1100B

struct gfec_gf16_tables {
	uint16_t log[65536];	  /**< log[0] is unused (0); callers test for zero first */
	uint16_t exp[2 * 65536];  /**< exp[i] = 2^i for i < 2 * 65535; the last two are 0 */
	uint16_t inv[65536];	  /**< inv[0] = 0 by convention */
};

/** The process-wide tables. Valid after gfec_gf16_init() (run automatically at load time). */
extern struct gfec_gf16_tables gfec_gf16_tab;

/** Builds the tables if that has not happened yet. Thread-safe, idempotent, cheap. */
void gfec_gf16_init(void);

/** a * b through log/exp. Zero-safe: either operand 0 gives 0. */
static inline uint16_t gfec_gf16_mul(uint16_t a, uint16_t b)
{
	if (a == 0 || b == 0)
		return 0;
	return gfec_gf16_tab.exp[gfec_gf16_tab.log[a] + gfec_gf16_tab.log[b]];
}

/** Multiplicative inverse; gfec_gf16_inv(0) is 0 (there is none). */
static inline uint16_t gfec_gf16_inv(uint16_t a)
{
	return gfec_gf16_tab.inv[a];
}

/** a / b for b != 0; returns 0 when b == 0 (callers check the divisor). */
static inline uint16_t gfec_gf16_div(uint16_t a, uint16_t b)
{
	if (a == 0 || b == 0)
		return 0;
	return gfec_gf16_tab.exp[gfec_gf16_tab.log[a] + 65535 - gfec_gf16_tab.log[b]];
}

/** a^n (a^0 = 1, including 0^0). */
uint16_t gfec_gf16_pow(uint16_t a, unsigned n);

/** a * b without tables: carry-less shift-and-add, reduced by 0x1100B. The reference. */
uint16_t gfec_gf16_mul_shift(uint16_t a, uint16_t b);

/**
 * The split tables of the constant @p c: lo[x] = c * x and hi[x] = c * (x << 8) for x < 256, so
 * c * s = lo[s & 0xff] ^ hi[s >> 8]. Each is 256 entries.
 */
void gfec_gf16_split_tables(uint16_t c, uint16_t *lo, uint16_t *hi);

/**
 * dst = c * src (@p add = 0) or dst ^= c * src (@p add = 1), symbol by symbol, over @p len bytes
 * (even; an odd last byte is left alone). dst may equal src; otherwise they must not overlap.
 * Plain C: the reference the vector kernels are tested against.
 */
void gfec_gf16_region_mul(const uint8_t *src, uint8_t *dst, size_t len, uint16_t c, int add);

#ifdef __cplusplus
}
#endif
#endif
