/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file lt.h
 * LT (fountain) codes on plain arrays: the robust soliton distribution as an integer CDF table,
 * the threaded encoder (whole blocks per task), and the decoder: peeling (belief propagation) in
 * O(edges), and where peeling stalls, inactivation: a stalled source is set aside as an unknown,
 * peeling goes on, and the few inactivated sources are solved at the end by Gaussian elimination
 * over GF(2) on bit-packed rows (as Raptor decoders do). The decoder is maximum-likelihood: it
 * completes exactly when the blocks it holds span all n sources, so it needs far fewer blocks than
 * peeling alone, which it also offers (GFEC_LT_PEEL_ONLY) to compare with the papers.
 *
 * Block with seed s: d and the d neighbour indices come from gfmatrix/base/lt_dist.h; its payload
 * is the XOR of those d source blocks (B bytes each). The decoder must use the encoder's n, c and
 * delta: they are not in a block's header.
 */
#ifndef GFEC_GFMATRIX_LT_H
#define GFEC_GFMATRIX_LT_H

#include <stddef.h>
#include <stdint.h>

struct gfec_cpu_pool;

/** Defaults: mean degree 12.5 at n = 1024, 16.7 at n = 10240 (the thesis: 12 and 17). */
#define GFEC_LT_DEFAULT_C 0.03
#define GFEC_LT_DEFAULT_DELTA 0.05

/** The robust soliton distribution of one (n, c, delta). Read-only once created. */
struct gfec_lt_dist {
	uint32_t n;
	double c, delta;
	double mean;	/**< the mean degree of the pmf */
	uint32_t len;	/**< n - 1: thresholds of degrees 1..n-1 (degree n takes the rest) */
	uint32_t *cdf;	/**< cdf[j] = floor(P(D <= j + 1) * 2^32), clamped to 2^32 - 1 */
	/** guide[i] = #{j : cdf[j] <= i * 2^(32 - GFEC_LT_GUIDE_BITS)}, i = 0..2^bits - 1, and
	 *  guide[2^bits] = len: a draw u's degree search starts in its bucket (the CPU's;
	 *  gfec_lt_degree() searches the whole table, as the GPU does) */
	uint32_t *guide;
};

#define GFEC_LT_GUIDE_BITS 10

/** The degree whose CDF interval holds the uniform draw @p u (gfec_lt_degree()'s, by the guide). */
uint32_t gfec_lt_dist_degree(const struct gfec_lt_dist *d, uint32_t u);

/**
 * Builds the table for @p n source blocks (1..GFEC_NC_MAX_N), @p c > 0 and 0 < @p delta < 1
 * (R = c ln(n/delta) sqrt(n); spike at floor(n/R), clamped to 1..n).
 * @returns 0 and *out; GFEC_E_INVAL for a parameter out of range (NaN included); GFEC_E_NOMEM.
 */
int gfec_lt_dist_create(uint32_t n, double c, double delta, struct gfec_lt_dist **out);
void gfec_lt_dist_free(struct gfec_lt_dist *d);

/** The robust soliton pmf at degree @p deg (0 outside 1..n), in double: the table's source. */
double gfec_lt_dist_pmf(const struct gfec_lt_dist *d, uint32_t deg);

/** Writes the neighbours of the block with @p seed into @p idx (room for n) and returns d. */
uint32_t gfec_lt_block(const struct gfec_lt_dist *d, uint32_t seed, uint32_t *idx);

/**
 * Encodes the blocks with seeds @p first .. @p first + @p count - 1 of the segment @p seg (n * B
 * bytes): the payload of block j goes to out + j * @p stride (stride >= B). Tasks of whole blocks
 * run on @p pool (NULL: the caller's thread). @returns 0, GFEC_E_INVAL or GFEC_E_NOMEM.
 */
int gfec_lt_encode(const struct gfec_lt_dist *d, const uint8_t *seg, size_t B, uint32_t first,
		   uint32_t count, uint8_t *out, size_t stride, struct gfec_cpu_pool *pool);

/** A decoder of one segment: it keeps a copy of every block it is given. */
struct gfec_lt_decoder;

/** @returns 0 and *out, GFEC_E_INVAL (NULL, B = 0) or GFEC_E_NOMEM. Keeps a pointer to @p d. */
int gfec_lt_decoder_create(const struct gfec_lt_dist *d, size_t B, struct gfec_lt_decoder **out);
void gfec_lt_decoder_free(struct gfec_lt_decoder *dec);
/** Forgets every block (keeps the memory) for the next segment. */
void gfec_lt_decoder_reset(struct gfec_lt_decoder *dec);

/** Stores the block with @p seed and its B payload bytes. @returns the blocks held, or
 *  GFEC_E_NOMEM (nothing stored). @p payload may be NULL only for a check-only decoder's use of
 *  gfec_lt_decoder_check(): its bytes are then zero. */
int gfec_lt_decoder_add(struct gfec_lt_decoder *dec, uint32_t seed, const uint8_t *payload);

/** Blocks held. */
uint32_t gfec_lt_decoder_count(const struct gfec_lt_decoder *dec);

#define GFEC_LT_PEEL_ONLY 0x1 /**< no inactivation: succeed only if peeling alone resolves all */

/**
 * Whether the first @p m blocks held decode (structure only, no payload work).
 * @returns 1 yes, 0 not yet, GFEC_E_INVAL (m above the count), GFEC_E_NOMEM.
 */
int gfec_lt_decoder_check(struct gfec_lt_decoder *dec, uint32_t m, unsigned flags);

/**
 * Decodes the segment from every block held into @p out (n * B bytes). The decoder keeps a
 * scratch of about (n + k) * B bytes for the values (k: the sources inactivated) from the first
 * solve until it is freed, beside the blocks it holds.
 * @returns 0; GFEC_E_TOOFEW when the blocks do not span the n sources (nothing written);
 * GFEC_E_INVAL (NULL), GFEC_E_NOMEM.
 */
int gfec_lt_decoder_solve(struct gfec_lt_decoder *dec, uint8_t *out, unsigned flags);

/** Sources the last check or solve inactivated (0 when peeling alone sufficed). */
uint32_t gfec_lt_decoder_inactivated(const struct gfec_lt_decoder *dec);

/**
 * After a check or solve that found the blocks do not decode: a lower bound, >= 1, on the blocks
 * still needed, since each block raises the rank by at most one. It is n - rank exactly when
 * the pass got to the elimination (m >= n, inactivation on): n - ((n - k) peeled + independent
 * equations on the k inactivated). 0 after one that decodes.
 */
uint32_t gfec_lt_decoder_deficit(const struct gfec_lt_decoder *dec);

#endif
