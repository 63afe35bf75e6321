/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file nc_prng.h
 * The coefficient generator of network coding (gfec_nc.h): coefficient i of the coded block with
 * seed s is a pure function of (s, i), integer-only and counter-based, so that the CPU encoder,
 * the GPU kernels and every decoder derive byte-identical coefficients from the 4-byte seed a
 * block carries, in any order and on any thread. The papers' generator (rand() scaled through a
 * float) is neither portable nor reproducible; this one is (see ../shared/docs/seed-systems.md A).
 *
 *     key    = mix(seed ^ 0x9E3779B9)          once per coded block
 *     x      = mix(key ^ (i * 0x85EBCA6B))     once per coefficient i (0 <= i < n)
 *     c_i    = 1 + floor(x * 255 / 2^32)       dense non-zero (1..255), the default
 *     c_i    = x >> 24                         with zeros allowed (0..255, GFEC_NC_ZERO_COEFS)
 *
 * mix() is Chris Wellons' "lowbias32" integer hash (two xorshift-multiply rounds, bias about
 * 0.17 in his measure); the odd multiplier on i keeps neighbouring columns far apart before the
 * hash. Scaling by a multiply-high rather than "% 255" keeps every value's probability within
 * 2^-24 of 1/255. Every function is static inline and usable from CUDA device code too.
 *
 * The values are part of the on-the-wire format (a seed-carrying block names its coefficients
 * only through them): changing any constant here is a new block format version.
 */
#ifndef GFEC_BASE_NC_PRNG_H
#define GFEC_BASE_NC_PRNG_H

#include <stdint.h>

#ifdef __CUDACC__
#define GFEC_NC_HD __host__ __device__
#else
#define GFEC_NC_HD
#endif

/** lowbias32: a 32-bit integer hash with full avalanche. */
GFEC_NC_HD static inline uint32_t gfec_nc_mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/** The per-block key of @p seed; compute it once and derive every coefficient from it. */
GFEC_NC_HD static inline uint32_t gfec_nc_prng_key(uint32_t seed)
{
	return gfec_nc_mix32(seed ^ 0x9E3779B9U);
}

/**
 * Coefficient @p col of the block whose key is @p key: 1..255 when @p zero_ok is 0, else 0..255.
 */
GFEC_NC_HD static inline uint8_t gfec_nc_prng_coef(uint32_t key, uint32_t col, int zero_ok)
{
	uint32_t x = gfec_nc_mix32(key ^ (col * 0x85EBCA6BU));

	if (zero_ok)
		return (uint8_t)(x >> 24);
	return (uint8_t)(1U + (uint32_t)(((uint64_t)x * 255U) >> 32));
}

/** coef[i] = coefficient i of the block with @p seed, for i < @p n. */
GFEC_NC_HD static inline void gfec_nc_prng_row(uint32_t seed, uint32_t n, int zero_ok,
					       uint8_t *coef)
{
	uint32_t key = gfec_nc_prng_key(seed);

	for (uint32_t i = 0; i < n; i++)
		coef[i] = gfec_nc_prng_coef(key, i, zero_ok);
}

#endif
