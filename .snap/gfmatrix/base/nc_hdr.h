/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc_hdr.h
 * An RLC block header read where the block lies (CPU or GPU): the checks plugin/nc.c makes before
 * a block reaches a decoder (gfec_nc_block_unpack, then the code's n, B, segment and coefficient
 * range), for a code whose n and B are known, and the block's coefficient row. The GPU batch
 * decoder (cuda_gemm's gfec_gpu_nc_decode_blocks) parses headers in device memory with it; its
 * CPU model in tests/plugin/nc_gpu_mock uses it too. plugin/nc_gpu.c asserts that the constants
 * below are gfec_nc.h's.
 *
 * A block passes when gfec_nc_block_unpack accepts its len bytes and nc.c's decoder takes it for
 * the code (n, B, zero_ok) and segment id; anything else fails, and the caller decides on the CPU
 * path which error it is. Every function is static inline and usable from CUDA device code.
 */
#ifndef GFEC_BASE_NC_HDR_H
#define GFEC_BASE_NC_HDR_H

#include <stddef.h>
#include <stdint.h>

#include "nc_prng.h"

#define GFEC_NC_HDR_FIXED 24	 /* gfec_nc.h's GFEC_NC_HEADER_FIXED */
#define GFEC_NC_HDR_VERSION 1	 /* GFEC_NC_VERSION */
#define GFEC_NC_HDR_RLC 1	 /* GFEC_NC_RLC */
#define GFEC_NC_HDR_SEED 1	 /* GFEC_NC_KIND_SEED */
#define GFEC_NC_HDR_COEF 2	 /* GFEC_NC_KIND_COEF */
#define GFEC_NC_HDR_SYS 0x01u	 /* GFEC_NC_SYSTEMATIC */
#define GFEC_NC_HDR_ZERO 0x02u /* GFEC_NC_ZERO_COEFS */

/** How a block's row is made: from its coefficients, a unit row, or a seed. */
enum { GFEC_NC_ROW_COEF = 1, GFEC_NC_ROW_UNIT = 2, GFEC_NC_ROW_SEED = 3 };

/** A parsed header: how (0: the block fails), the unit row's column or the seed's key. */
struct gfec_nc_hdr_row {
	uint32_t how;
	uint32_t arg;
	uint32_t off; /* the payload's offset in the block */
};

GFEC_NC_HD static inline uint32_t gfec_nc_hdr_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/**
 * The header of the @p len bytes at @p h, for an RLC code of @p n (1..65536) blocks of @p B
 * (1..2^30) bytes with coefficients 0..255 when @p zero_ok (else 1..255), segment @p id.
 */
GFEC_NC_HD static inline struct gfec_nc_hdr_row gfec_nc_hdr_parse(const uint8_t *h, size_t len,
								  uint32_t n, uint32_t B,
								  uint64_t id, int zero_ok)
{
	struct gfec_nc_hdr_row r = { 0, 0, 0 };
	uint32_t hdr, flags, kind, seed;

	if (len < GFEC_NC_HDR_FIXED || h[0] != 'G' || h[1] != 'F' || h[2] != 'N' || h[3] != 'C' ||
	    h[4] != GFEC_NC_HDR_VERSION || h[5] != GFEC_NC_HDR_RLC || gfec_nc_hdr_get32(h + 8) != n ||
	    gfec_nc_hdr_get32(h + 12) != B || gfec_nc_hdr_get32(h + 16) != (uint32_t)id ||
	    gfec_nc_hdr_get32(h + 20) != (uint32_t)(id >> 32))
		return r;
	kind = h[6];
	flags = h[7];
	if (kind != GFEC_NC_HDR_SEED && kind != GFEC_NC_HDR_COEF)
		return r;
	hdr = kind == GFEC_NC_HDR_SEED ? GFEC_NC_HDR_FIXED + 4 : GFEC_NC_HDR_FIXED + n;
	if (len < hdr || len - hdr < B || (flags & ~(GFEC_NC_HDR_SYS | GFEC_NC_HDR_ZERO)))
		return r;
	if (kind == GFEC_NC_HDR_COEF) {
		if (flags)
			return r;
		r.how = GFEC_NC_ROW_COEF;
	} else {
		seed = gfec_nc_hdr_get32(h + GFEC_NC_HDR_FIXED);
		if (flags & GFEC_NC_HDR_SYS) {
			if (seed >= n)
				return r;
			r.how = GFEC_NC_ROW_UNIT;
			r.arg = seed;
		} else {
			if (!!(flags & GFEC_NC_HDR_ZERO) != !!zero_ok)
				return r;
			r.how = GFEC_NC_ROW_SEED;
			r.arg = gfec_nc_prng_key(seed);
		}
	}
	r.off = hdr;
	return r;
}

/** Coefficient @p j of the row of a block that passed (@p h: its header). */
GFEC_NC_HD static inline uint8_t gfec_nc_hdr_coef(struct gfec_nc_hdr_row r, const uint8_t *h,
						 uint32_t j, int zero_ok)
{
	if (r.how == GFEC_NC_ROW_COEF)
		return h[GFEC_NC_HDR_FIXED + j];
	if (r.how == GFEC_NC_ROW_UNIT)
		return (uint8_t)(j == r.arg);
	return gfec_nc_prng_coef(r.arg, j, zero_ok);
}

#endif
