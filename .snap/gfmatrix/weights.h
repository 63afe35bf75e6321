/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file weights.h
 * The algebra behind weight enumeration (gfec_weights.h): binary generator matrices as packed
 * rows (bit j of a row is word j/64, bit j%64), their reduced row-echelon form, narrow-sense
 * primitive BCH generators, the subcode rule, the codewords of a basis sorted by weight, and the
 * unfolding of half-counted pair histograms into the full joint distribution J.
 * J is indexed J[(a*(n+1) + b)*(n+1) + c], d = n - a - b - c implied.
 */
#ifndef GFEC_GFMATRIX_WEIGHTS_H
#define GFEC_GFMATRIX_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

/** 64-bit words of one packed row of length @p n. */
static inline int gfec_wt_words(int n)
{
	return (n + 63) / 64;
}

/**
 * Brings @p rows packed rows of @p words words into reduced row-echelon form in place; the
 * independent rows come first (the rest are zeroed). @returns the rank.
 */
int gfec_wt_rref(uint64_t *m, int rows, int words);

/**
 * With @p m in reduced row-echelon form of rank @p k over length @p n <= 256: whether the all-ones
 * word lies in the code. When it does it is the sum of all k rows (each pivot column holds one
 * 1), and the last row is replaced by it, so that rows 0..k-2 span a complement C' with
 * C = C' + {0, 1}. @returns 1 (row k-1 is now all-ones) or 0 (unchanged).
 */
int gfec_wt_ones_last(uint64_t *m, int k, int n);

/**
 * The narrow-sense primitive BCH code of length @p n = 2^r - 1 (3 <= r <= 8) and dimension
 * @p k, with the largest designed distance that gives dimension k. Writes k rows x^i g(x)
 * (i < k) into @p m (k * gfec_wt_words(n) words) and the designed distance into *delta.
 * @returns 0, or GFEC_E_INVAL (n not 2^r - 1 in range, or no such BCH code of dimension k;
 * m may then be NULL for a query).
 */
int gfec_wt_bch(int n, int k, uint64_t *m, int *delta);

/**
 * Writes the 2^k codewords spanned by @p k rows (Gray-code order, one XOR each) into @p cw
 * sorted by weight (stable), and @p groups: gw[g] the weight, gs[g] the first index, for each
 * of the *ng distinct weights, gs[*ng] = 2^k. gw and gs hold n + 2 entries.
 * @returns 0 or GFEC_E_NOMEM.
 */
int gfec_wt_codewords(const uint64_t *m, int k, int words, uint64_t *cw, int *gw, size_t *gs,
		      int *ng);

/**
 * Completes @p j, which holds for every unordered pair u != v of the code (u before v in the
 * sorted order) one count at (a, wt u - a, wt v - a): adds the mirror (a, c, b) of each such bin
 * and the pairs (u, u) from the weight distribution @p aw. In place.
 */
void gfec_wt_symmetrize(uint64_t *j, const uint64_t *aw, int n);

/**
 * Turns J' of a complement C' (C = C' + {0, 1}) into J of C:
 * J(a,b,c,d) = J'(a,b,c,d) + J'(c,d,a,b) + J'(b,a,d,c) + J'(d,c,b,a). @p out must not alias.
 */
void gfec_wt_unfold_ones(const uint64_t *jp, int n, uint64_t *out);

#endif
