/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_weights.h
 * Weight and joint-weight enumeration of binary linear codes (Ando et al., "Joint weight
 * distribution", the (127,22) BCH experiments).
 *
 * Vocabulary: a generator is @p rows rows of @p n bits, stored as rows * n bytes, each 0 or 1,
 * row-major (bit j of row i is gen[i*n + j]). The code is the span of the rows; its dimension k
 * is their rank (rows beyond the rank are allowed: the spanned code is enumerated). For
 * codewords u, v: a = |u AND v|, b = wt(u) - a, c = wt(v) - a, d = n - a - b - c.
 * A[w] (w = 0..n) counts codewords of weight w; J[(a*(n+1) + b)*(n+1) + c] counts the ordered
 * pairs (u, v) of C x C with those a, b, c (d implied; bins with a + b + c > n are 0). Counts
 * are exact 64-bit integers: sum of J = 2^(2k), so k <= GFEC_WEIGHTS_MAX_K.
 */
#ifndef GFEC_WEIGHTS_H
#define GFEC_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "gfec/gfec_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The longest code this build enumerates (J holds (n+1)^3 counts: 136 MiB at 256). */
#define GFEC_WEIGHTS_MAX_N 256
/** The largest dimension: 2^(2k) pairs must fit a 64-bit count. */
#define GFEC_WEIGHTS_MAX_K 31

enum gfec_weights_backend {
	/** the GPU from 2^16 codewords to enumerate on (in a CUDA build), else the CPU */
	GFEC_WEIGHTS_AUTO = 0,
	GFEC_WEIGHTS_CPU = 1, /**< every core through gfec's thread pool */
	/**
	 * the current CUDA device, the CPU after any device error (identical counts);
	 * GFEC_E_NOBACKEND in a build without CUDA
	 */
	GFEC_WEIGHTS_GPU = 2,
};

/** Flags for gfec_weights_enumerate(). */
enum {
	/** Do not use the all-ones reduction even when 1 is in the code (for checks and timing). */
	GFEC_WEIGHTS_NO_ONES = 1u << 0,
	/**
	 * Count with the one-codeword POPCNT kernel even where the CPU has AVX-512 VPOPCNTQ (for
	 * checks and timing; the GPU ignores it).
	 */
	GFEC_WEIGHTS_POPCNT = 1u << 1,
};

/**
 * Progress of gfec_weights_enumerate_progress(): @p done of the @p total pairs of codewords
 * counted so far (pairs u before v; total is the pairs of the code actually enumerated: with the all-ones
 * reduction, those of the complement C'). Called from one thread at a time (the caller's or one
 * of the library's), at most about ten times a second, and once more with done == total when
 * the count is complete. When the GPU fails and the CPU redoes the count, done starts again
 * from 0. It must return quickly and must not call gfec_weights functions.
 */
typedef void (*gfec_weights_progress_fn)(void *arg, uint64_t done, uint64_t total);

/** A result; gfec_weights_free() releases A and J. */
struct gfec_weights {
	int n;	      /**< code length */
	int k;	      /**< dimension (rank of the generator given) */
	int has_ones; /**< 1 when the all-ones word is in the code */
	uint64_t *A;  /**< n + 1 counts */
	uint64_t *J;  /**< (n+1)^3 counts, indexed as above */
};

/**
 * Enumerates A and J of the code spanned by @p gen (@p rows x @p n, see above) on @p backend
 * with @p threads threads (0: one per online CPU). Uses the pair symmetry (u before v, each
 * pair once) and, when the all-ones word is in the code and @p flags lacks
 * GFEC_WEIGHTS_NO_ONES, the all-ones reduction (a complement C' of dimension k-1: 4x fewer
 * pairs). Thread-safe. @returns 0 (fills *out), GFEC_E_INVAL (NULL, rows < 1, n outside
 * 1..GFEC_WEIGHTS_MAX_N, an entry neither 0 nor 1), GFEC_E_NOTSUP (rank > GFEC_WEIGHTS_MAX_K),
 * GFEC_E_NOBACKEND, GFEC_E_NOMEM or GFEC_E_SYSTEM.
 */
GFEC_API int gfec_weights_enumerate(const uint8_t *gen, int rows, int n,
				    enum gfec_weights_backend backend, int threads, unsigned flags,
				    struct gfec_weights *out);

/** gfec_weights_enumerate(), reporting its progress to @p progress (NULL: none) with @p arg. */
GFEC_API int gfec_weights_enumerate_progress(const uint8_t *gen, int rows, int n,
					     enum gfec_weights_backend backend, int threads,
					     unsigned flags, gfec_weights_progress_fn progress,
					     void *arg, struct gfec_weights *out);

/** Frees A and J and zeroes @p w. NULL is accepted. */
GFEC_API void gfec_weights_free(struct gfec_weights *w);

/**
 * The rank of @p gen over GF(2). @returns it, or GFEC_E_INVAL (as gfec_weights_enumerate) or
 * GFEC_E_NOMEM.
 */
GFEC_API int gfec_weights_rank(const uint8_t *gen, int rows, int n);

/**
 * A generator of the narrow-sense primitive BCH code of length @p n = 2^r - 1 (3 <= r <= 8)
 * and dimension @p k, with the largest designed distance giving that dimension (written to
 * *delta; (127, 22) has 47). Rows are x^i g(x), i < k, written to @p gen (k * n bytes; NULL
 * only asks whether the code exists). @returns 0 or GFEC_E_INVAL (no such code).
 */
GFEC_API int gfec_weights_bch(int n, int k, uint8_t *gen, int *delta);

/**
 * Replaces @p gen (@p rows x @p n, rank >= @p t) by a generator of a t-dimensional subcode,
 * written to its first t rows: the first t rows of its reduced row-echelon form, except that
 * when the all-ones word is in the code the t-th row is the all-ones word instead (so the
 * subcode keeps it and with it the all-ones reduction and the permutation symmetry of J).
 * @returns 0, GFEC_E_INVAL (bad matrix, t < 1 or t > rank) or GFEC_E_NOMEM.
 */
GFEC_API int gfec_weights_subcode(uint8_t *gen, int rows, int n, int t);

/**
 * The binary image of a gfec code: for @p profile's k, m and technique (other keys are
 * accepted and ignored), the systematic code [I | B^T] of length 8(k+m) and dimension 8k, where
 * B is the 8m x 8k bitmatrix of its GF(2^8) generator (polynomial basis, as
 * gfec_gf8_to_bitmatrix and Jerasure lay it out); with @p dual, its dual code [B | I] of
 * dimension 8m. *gen (malloc'ed: free() it) gets *rows x *n bytes as above.
 * @returns 0, GFEC_E_PROFILE (with a reason in @p err), GFEC_E_INVAL or GFEC_E_NOMEM.
 */
GFEC_API int gfec_weights_code(const char *profile, int dual, uint8_t **gen, int *rows, int *n,
			       char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
