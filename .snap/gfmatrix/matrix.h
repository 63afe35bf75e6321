/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file matrix.h
 * Generator matrices and matrix algebra over GF(2^8) and GF(2^16).
 *
 * Vocabulary (used across gfec):
 *   k      data chunks, m  parity chunks, n = k + m <= 256 (w = 8) or <= 65536 (w = 16).
 *   w      the field width: the _w functions take it (8 or 16); an element of a matrix is then
 *          one uint8_t (w = 8) or one uint16_t (w = 16), passed as void *. The functions
 *          without _w are their w = 8 forms on uint8_t.
 *   G      the m x k parity part of the systematic generator [I_k ; G]; element (i,j) is
 *          g[i*k + j] (row-major). Parity_i = sum_j G(i,j) * Data_j. "A matrix is just G."
 *   chunk  index 0..k-1 is data, k..n-1 is parity row (index - k).
 *
 * Every function returns 0 or a negative GFEC_E_* code; none allocates unless it says so.
 */
#ifndef GFEC_GFMATRIX_MATRIX_H
#define GFEC_GFMATRIX_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "gfec/gfec_errors.h"
#include "gfec/gfec_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

/** 1 when (k, m) is a code over GF(2^w): w is 8 or 16, k, m >= 1, k + m within the field. */
int gfec_matrix_shape_ok(unsigned w, int k, int m);

/** ISA-L gf_gen_rs_matrix(): G(i,j) = (2^i)^j. Not MDS for every (k,m): check it. */
int gfec_matrix_isal_rs(int k, int m, uint8_t *g);

/** ISA-L gf_gen_cauchy1_matrix(): G(i,j) = 1 / ((k+i) ^ j). MDS for any k+m <= 256. */
int gfec_matrix_isal_cauchy1(int k, int m, uint8_t *g);

/**
 * The same Cauchy matrix over GF(2^w): G(i,j) = 1 / ((k+i) ^ j). The sets {k+i} and {j} are
 * disjoint, so every square submatrix is a nonsingular Cauchy matrix: MDS for every shape.
 */
int gfec_matrix_cauchy_w(unsigned w, int k, int m, void *g);

/**
 * Jerasure reed_sol_vandermonde_coding_matrix(k, m, 8): a (k+m) x k Vandermonde matrix brought
 * to systematic form by column operations, then scaled so that the first parity row and the
 * first column are all ones. The matrix behind Ceph's jerasure technique=reed_sol_van.
 */
int gfec_matrix_jerasure_rs_van(int k, int m, uint8_t *g);

/**
 * Jerasure reed_sol_vandermonde_coding_matrix(k, m, w) for w = 8 or 16 (the same construction in
 * GF(2^w)). Allocates (k+m) x k elements and takes O((k+m) k^2) multiplies.
 */
int gfec_matrix_jerasure_rs_van_w(unsigned w, int k, int m, void *g);

/**
 * Jerasure cauchy_good_general_coding_matrix(k, m, 8), the matrix of Ceph's jerasure
 * technique=cauchy_good. For m = 2 the parity rows are all ones and the k nonzero elements with
 * the sparsest bitmatrices (ascending ones, then value); otherwise Cauchy 1/(i ^ (m + j)) with
 * each column scaled so row 0 is all ones and each other row scaled by whichever of its
 * elements' inverses makes its bitmatrix sparsest.
 */
int gfec_matrix_jerasure_cauchy_good(int k, int m, uint8_t *g);

/** Ones in the 8x8 bitmatrix of element @p e (Jerasure's cauchy_n_ones for w = 8). */
int gfec_matrix_bitmatrix_ones(uint8_t e);

/**
 * Checks that [I_k ; G] is MDS: every k x k submatrix is invertible, which holds exactly when
 * every square submatrix of G is nonsingular. The check is exhaustive, smallest submatrices
 * first; when it has spent @p budget (about s^3 per s x s submatrix) without finding a singular
 * one, it returns GFEC_E_BUDGET without deciding.
 * @returns 0 (MDS), GFEC_E_NOT_MDS, GFEC_E_BUDGET, GFEC_E_NOMEM or GFEC_E_INVAL.
 */
int gfec_matrix_check_mds(const uint8_t *g, int m, int k, uint64_t budget);

/**
 * Gauss-Jordan inverse of the n x n matrix @p in into @p out. @p in is destroyed (as in ISA-L's
 * gf_invert_matrix). @returns 0 or GFEC_E_SINGULAR (out is then unspecified).
 */
int gfec_matrix_invert(uint8_t *in, uint8_t *out, int n);
int gfec_matrix_invert_w(unsigned w, void *in, void *out, int n);

/** c (p x q) = a (p x n) * b (n x q). c must not alias a or b. */
void gfec_matrix_mul(const uint8_t *a, const uint8_t *b, uint8_t *c, int p, int n, int q);
void gfec_matrix_mul_w(unsigned w, const void *a, const void *b, void *c, int p, int n, int q);

/**
 * The decode matrix D (nwant x k): chunk want[i] = sum_j D(i,j) * chunk src[j].
 * @param src   k distinct chunk indices that are available (any order).
 * @param want  nwant chunk indices to rebuild (data or parity; may include available ones).
 * @returns 0, GFEC_E_SINGULAR when the chosen sources do not span the code (or repeat one), or
 * GFEC_E_INVAL. Only the e x e block of G between the e parity sources and the e data chunks
 * missing from src is inverted: O(e^3 + e^2 k) time and O(e k) heap (GFEC_E_NOMEM on failure).
 * At w = 16 the inverse and the products run on the CPU backend's GF(2^16) GEMM (gemm16.c, rows
 * as regions); gfec_matrix_decode_w() on the calling thread alone.
 */
int gfec_matrix_decode(const uint8_t *g, int k, int m, const int *src, const int *want,
		       int nwant, uint8_t *d);
int gfec_matrix_decode_w(unsigned w, const void *g, int k, int m, const int *src, const int *want,
			 int nwant, void *d);

/**
 * gfec_matrix_decode_w() whose GF(2^16) products (e^2 k multiplies and more) run on @p threads
 * threads (<= 0: the online CPUs) of a pool made for the call; w = 8 runs as decode_w.
 */
int gfec_matrix_decode_w_threads(unsigned w, const void *g, int k, int m, const int *src,
				 const int *want, int nwant, int threads, void *d);

/** The plain twin of gfec_matrix_decode_w(): scalar log/exp row operations; the tests' reference. */
int gfec_matrix_decode_w_base(unsigned w, const void *g, int k, int m, const int *src,
			      const int *want, int nwant, void *d);

/*
 * GF(2^16) matrices in Cauchy form: element (i,j) = r[i] * c[j] / (x[i] ^ y[j]), with the points
 * x[] and y[] disjoint. The cauchy technique's generator is one (x = k+i, y = j, r = c = 1), and
 * so is every decode matrix of it: the code is a generalised Reed-Solomon code on the points
 * 0..k+m-1 (chunk i at point i), whose values at any k points give its value at any other point
 * t as sum_z v_t W(t) / (v_z W'(z) (t + z)) * chunk_z (Lagrange interpolation over the sources
 * z, W(t) = prod_z (t + z), v the code's column multipliers, 1 / prod_{j<k, j != i} (i + j)
 * for data chunk i and 1 / prod_{j<k} (k+i + j) for parity i). Holding a matrix as its 2 (rows
 * + cols) scalars costs no inverse and no rows x cols memory.
 */

/**
 * The decode matrix of the cauchy technique at w = 16 (G from gfec_matrix_cauchy_w(16, k, m))
 * in Cauchy form: row i rebuilds chunk want[i] from the k chunks src[] (by position in src), as
 * gfec_matrix_decode_w() would. Every want[i] must be missing from src. x and r take nwant
 * elements, y and c take k. Time O((k+m) m + (k+m) log^2 (k+m)), no heap beyond k+m bytes.
 * @returns 0, GFEC_E_INVAL (bad shape or index, a repeated source, a wanted source) or
 * GFEC_E_NOMEM.
 */
int gfec_matrix_cauchy16_decode(int k, int m, const int *src, const int *want, int nwant,
				uint16_t *x, uint16_t *r, uint16_t *y, uint16_t *c);

/** The rows x cols dense matrix of a Cauchy form, row-major, into @p out. */
void gfec_matrix_cauchy16_expand(int rows, int cols, const uint16_t *x, const uint16_t *r,
				 const uint16_t *y, const uint16_t *c, uint16_t *out);

#ifdef __cplusplus
}
#endif
#endif
