/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gf8.h
 * GF(2^8) arithmetic over the polynomial 0x11D, the field ISA-L and Jerasure (w=8) use.
 *
 * Three ways to multiply are kept, each with its own job:
 *  - gfec_gf8_mul():      the 64 KiB product table; what matrix code and the _base encoder use.
 *  - gfec_gf8_mul_log():  log/exp with the exp table extended to 512 entries, so
 *                         exp[log a + log b] needs no "% 255" (seed 003 extended the wrong table
 *                         and forgot the zero operand; see ../shared/docs/seeds.md).
 *  - gfec_gf8_mul_swar(): the loop-based word multiply of seeds 000/002 (8 bytes at a time).
 * The tests check all three against each other and against ISA-L for all 65536 pairs.
 *
 * The tables are built once, thread-safely, when the library loads (and again on demand by
 * gfec_gf8_init(), which is idempotent); nothing here allocates or can fail.
 */
#ifndef GFEC_BASE_GF8_H
#define GFEC_BASE_GF8_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GFEC_GF8_POLY 0x11D

struct gfec_gf8_tables {
	uint8_t log[256];	   /**< log[0] is unused (0); callers test for zero first */
	uint8_t exp[512];	   /**< exp[i] = 2^i for 0 <= i < 510; exp[510], exp[511] = 0 */
	uint8_t inv[256];	   /**< inv[0] = 0 by convention */
	uint8_t mul[256][256];	   /**< mul[a][b] = a*b */
};

/** The process-wide tables. Valid after gfec_gf8_init() (run automatically at load time). */
extern struct gfec_gf8_tables gfec_gf8_tab;

/** Builds the tables if that has not happened yet. Thread-safe, idempotent, cheap. */
void gfec_gf8_init(void);

static inline uint8_t gfec_gf8_add(uint8_t a, uint8_t b)
{
	return a ^ b;
}

static inline uint8_t gfec_gf8_mul(uint8_t a, uint8_t b)
{
	return gfec_gf8_tab.mul[a][b];
}

/** a * b through log/exp. Zero-safe: either operand 0 gives 0. */
static inline uint8_t gfec_gf8_mul_log(uint8_t a, uint8_t b)
{
	if (a == 0 || b == 0)
		return 0;
	return gfec_gf8_tab.exp[gfec_gf8_tab.log[a] + gfec_gf8_tab.log[b]];
}

/** Multiplicative inverse; gfec_gf8_inv(0) is 0 (there is none). */
static inline uint8_t gfec_gf8_inv(uint8_t a)
{
	return gfec_gf8_tab.inv[a];
}

/** a / b for b != 0; returns 0 when b == 0 (callers check the divisor). */
static inline uint8_t gfec_gf8_div(uint8_t a, uint8_t b)
{
	if (a == 0 || b == 0)
		return 0;
	return gfec_gf8_tab.exp[gfec_gf8_tab.log[a] + 255 - gfec_gf8_tab.log[b]];
}

/** a^n (a^0 = 1, including 0^0). */
uint8_t gfec_gf8_pow(uint8_t a, unsigned n);

/**
 * Multiplies each of the 8 bytes of @p word by @p c without tables: the shift-and-add loop of
 * seed 002 (per step: xtime on all lanes with the masks 0x80.. / 0x7f.. and the 0x1d feedback).
 */
uint64_t gfec_gf8_mul_swar(uint64_t word, uint8_t c);

/**
 * Expands the rows x cols matrix @p g to its w=8 bitmatrix (8*rows x 8*cols, one 0/1 byte per
 * bit, row-major), laid out exactly as Jerasure's jerasure_matrix_to_bitmatrix(): block (i,j),
 * bit row l, bit column x is bit l of g(i,j) * 2^x. Cauchy RS (CRS) encodes with it.
 */
void gfec_gf8_to_bitmatrix(const uint8_t *g, int rows, int cols, uint8_t *bits);

#ifdef __cplusplus
}
#endif
#endif
