/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file lt_dist.h
 * The samplers of LT codes (gfec_nc.h's family LT): a coded block with seed s is the XOR of d
 * distinct source blocks, d drawn from the robust soliton distribution and the d indices drawn
 * uniformly without replacement, both pure functions of (s, n) and of the integer CDF table, so
 * the CPU encoder, the GPU kernels and every decoder derive the same neighbours from the 4-byte
 * seed a block carries (see ../shared/docs/seed-systems.md B).
 *
 *     key     = gfec_nc_prng_key(seed)              (nc_prng.h: lowbias32 of seed ^ golden)
 *     u       = mix(key ^ 0x5851F42D)               the degree's uniform 32-bit draw
 *     d       = 1 + #{ j < len : cdf[j] <= u }      cdf[j] = floor(P(D <= j + 1) * 2^32)
 *     x_t     = mix(key ^ ((t + 1) * 0x9E3779B1))   draw t of the index sampler, t = 0..d-1
 *     Floyd:  for t = 0..d-1, j = n - d + t: v = floor(x_t * (j + 1) / 2^32);
 *             idx[t] = v if v is not yet chosen, else j
 *
 * Floyd's algorithm draws exactly d distinct indices with d uniform draws and no rejection, so a
 * block's cost is fixed by d alone (no data-dependent loop on the GPU). The membership test is a
 * scan of the indices chosen so far (d is 1..n, mean about 17 at n = 10240, the rare large d are
 * dominated by their d * B bytes of XOR anyway). Everything is integer-only, static inline, and
 * usable from CUDA device code. The constants are part of the block format, as nc_prng.h's are.
 * The CDF table itself is built once per (n, c, delta) by gfec_lt_dist_create() (gfmatrix/lt.h).
 */
#ifndef GFEC_BASE_LT_DIST_H
#define GFEC_BASE_LT_DIST_H

#include <stdint.h>

#include "nc_prng.h"

/** The uniform 32-bit draw that picks the degree of the block whose key is @p key. */
GFEC_NC_HD static inline uint32_t gfec_lt_degree_draw(uint32_t key)
{
	return gfec_nc_mix32(key ^ 0x5851F42DU);
}

/**
 * The degree of the draw @p u, 1 + the first j in [@p lo, @p hi) with cdf[j] > u (hi if none),
 * for a range that holds it: every cdf[j] below lo is <= u, every one from hi on is > u.
 */
GFEC_NC_HD static inline uint32_t gfec_lt_degree_in(const uint32_t *cdf, uint32_t lo, uint32_t hi,
						    uint32_t u)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (cdf[mid] <= u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo + 1;
}

/**
 * The degree of the block whose key is @p key, from the table @p cdf of @p len entries (the
 * thresholds of degrees 1..len; degree len + 1 takes the rest): 1..len + 1.
 */
GFEC_NC_HD static inline uint32_t gfec_lt_degree(const uint32_t *cdf, uint32_t len, uint32_t key)
{
	return gfec_lt_degree_in(cdf, 0, len, gfec_lt_degree_draw(key));
}

/**
 * Draw @p t of Floyd's sampler for the block whose key is @p key: uniform in 0..@p j, where j =
 * n - d + t (taken as is unless an earlier index holds it: then j is).
 */
GFEC_NC_HD static inline uint32_t gfec_lt_draw(uint32_t key, uint32_t j, uint32_t t)
{
	uint32_t x = gfec_nc_mix32(key ^ ((t + 1U) * 0x9E3779B1U));

	return (uint32_t)(((uint64_t)x * ((uint64_t)j + 1U)) >> 32);
}

/**
 * idx[0..d-1] = the @p d distinct source indices in 0..n-1 of the block whose key is @p key
 * (Floyd's sampler; 1 <= d <= n). The order is the sampler's, not sorted.
 */
GFEC_NC_HD static inline void gfec_lt_neighbours(uint32_t key, uint32_t n, uint32_t d,
						 uint32_t *idx)
{
	for (uint32_t t = 0; t < d; t++) {
		uint32_t j = n - d + t;
		uint32_t v = gfec_lt_draw(key, j, t);
		uint32_t s;

		for (s = 0; s < t; s++)
			if (idx[s] == v)
				break;
		idx[t] = s < t ? j : v;
	}
}

#endif
