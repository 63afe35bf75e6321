/* SPDX-License-Identifier: BSD-3-Clause */
/** @file matrix.c  Generators, MDS check, inversion, decode matrices and bitmatrices. */
#include "matrix.h"

#include <stdlib.h>
#include <string.h>

#include "gf8.h"

static int shape_ok(int k, int m)
{
	return k >= 1 && m >= 1 && k + m <= GFEC_MAX_CHUNKS;
}

int gfec_matrix_isal_rs(int k, int m, uint8_t *g)
{
	uint8_t gen = 1;

	if (!shape_ok(k, m) || !g)
		return GFEC_E_INVAL;
	for (int i = 0; i < m; i++) {
		uint8_t p = 1;

		for (int j = 0; j < k; j++) {
			g[i * k + j] = p;
			p = gfec_gf8_mul(p, gen);
		}
		gen = gfec_gf8_mul(gen, 2);
	}
	return 0;
}

int gfec_matrix_isal_cauchy1(int k, int m, uint8_t *g)
{
	if (!shape_ok(k, m) || !g)
		return GFEC_E_INVAL;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < k; j++)
			g[i * k + j] = gfec_gf8_inv((uint8_t)((k + i) ^ j));
	return 0;
}

int gfec_matrix_jerasure_rs_van(int k, int m, uint8_t *g)
{
	const int rows = k + m, cols = k;
	uint8_t *v;

	if (!shape_ok(k, m) || !g)
		return GFEC_E_INVAL;
	v = malloc((size_t)rows * cols);
	if (!v)
		return GFEC_E_NOMEM;

	/* Extended Vandermonde: row 0 = e_0, last row = e_{k-1}, row i = (i^0, i^1, ...). */
	memset(v, 0, (size_t)rows * cols);
	v[0] = 1;
	v[(rows - 1) * cols + cols - 1] = 1;
	for (int i = 1; i < rows - 1; i++) {
		uint8_t p = 1;

		for (int j = 0; j < cols; j++) {
			v[i * cols + j] = p;
			p = gfec_gf8_mul(p, (uint8_t)i);
		}
	}

	/* Column operations until the top k x k block is the identity. */
	for (int i = 1; i < cols; i++) {
		int j = i;

		while (j < rows && v[j * cols + i] == 0)
			j++;
		if (j == rows) {
			free(v);
			return GFEC_E_SINGULAR;
		}
		if (j != i)
			for (int x = 0; x < cols; x++) {
				uint8_t t = v[i * cols + x];

				v[i * cols + x] = v[j * cols + x];
				v[j * cols + x] = t;
			}
		if (v[i * cols + i] != 1) {
			uint8_t inv = gfec_gf8_inv(v[i * cols + i]);

			for (int r = 0; r < rows; r++)
				v[r * cols + i] = gfec_gf8_mul(v[r * cols + i], inv);
		}
		for (int c = 0; c < cols; c++) {
			uint8_t f = v[i * cols + c];

			if (c == i || f == 0)
				continue;
			for (int r = 0; r < rows; r++)
				v[r * cols + c] ^= gfec_gf8_mul(f, v[r * cols + i]);
		}
	}

	/* Scale columns so the first parity row is all ones ... */
	for (int c = 0; c < cols; c++) {
		uint8_t f = v[cols * cols + c];

		if (f != 0 && f != 1) {
			uint8_t inv = gfec_gf8_inv(f);

			for (int r = cols; r < rows; r++)
				v[r * cols + c] = gfec_gf8_mul(v[r * cols + c], inv);
		}
	}
	/* ... and the remaining parity rows so their first element is one. */
	for (int r = cols + 1; r < rows; r++) {
		uint8_t f = v[r * cols];

		if (f != 0 && f != 1) {
			uint8_t inv = gfec_gf8_inv(f);

			for (int c = 0; c < cols; c++)
				v[r * cols + c] = gfec_gf8_mul(v[r * cols + c], inv);
		}
	}

	memcpy(g, v + (size_t)cols * cols, (size_t)m * k);
	free(v);
	return 0;
}

int gfec_matrix_bitmatrix_ones(uint8_t e)
{
	int n = 0;

	for (int x = 0; x < 8; x++) {
		n += __builtin_popcount(e);
		e = gfec_gf8_mul(e, 2);
	}
	return n;
}

static int row_ones(const uint8_t *row, int k, uint8_t scale)
{
	int n = 0;

	for (int j = 0; j < k; j++)
		n += gfec_matrix_bitmatrix_ones(gfec_gf8_mul(row[j], scale));
	return n;
}

int gfec_matrix_jerasure_cauchy_good(int k, int m, uint8_t *g)
{
	if (!shape_ok(k, m) || !g)
		return GFEC_E_INVAL;
	if (m == 2) {
		/* Nonzero elements by (bitmatrix ones, value): the sparsest first. */
		uint8_t order[255];
		int n = 0;

		for (int ones = 0; ones <= 64 && n < 255; ones++)
			for (int e = 1; e < 256; e++)
				if (gfec_matrix_bitmatrix_ones((uint8_t)e) == ones)
					order[n++] = (uint8_t)e;
		for (int j = 0; j < k; j++) {
			g[j] = 1;
			g[k + j] = order[j];
		}
		return 0;
	}
	for (int i = 0; i < m; i++)
		for (int j = 0; j < k; j++)
			g[i * k + j] = gfec_gf8_inv((uint8_t)(i ^ (m + j)));
	/* Row 0 to all ones, by scaling columns. */
	for (int j = 0; j < k; j++)
		if (g[j] != 1) {
			uint8_t x = gfec_gf8_inv(g[j]);

			for (int i = 0; i < m; i++)
				g[i * k + j] = gfec_gf8_mul(g[i * k + j], x);
		}
	/* Every other row: divide by the element that leaves the fewest ones (first wins ties). */
	for (int i = 1; i < m; i++) {
		uint8_t *row = g + i * k;
		int best = row_ones(row, k, 1), best_j = -1;

		for (int j = 0; j < k; j++) {
			if (row[j] == 1)
				continue;
			int n = row_ones(row, k, gfec_gf8_inv(row[j]));

			if (n < best) {
				best = n;
				best_j = j;
			}
		}
		if (best_j >= 0) {
			uint8_t x = gfec_gf8_inv(row[best_j]);

			for (int j = 0; j < k; j++)
				row[j] = gfec_gf8_mul(row[j], x);
		}
	}
	return 0;
}

/* Next s-subset of {0..n-1} in lexicographic order; returns 0 after the last. */
static int next_subset(int *idx, int s, int n)
{
	int i = s - 1;

	while (i >= 0 && idx[i] == n - s + i)
		i--;
	if (i < 0)
		return 0;
	idx[i]++;
	for (int j = i + 1; j < s; j++)
		idx[j] = idx[j - 1] + 1;
	return 1;
}

/* Rank test of an s x s matrix held in a (destroyed). */
static int nonsingular(uint8_t *a, int s)
{
	for (int c = 0; c < s; c++) {
		int p = c;

		while (p < s && a[p * s + c] == 0)
			p++;
		if (p == s)
			return 0;
		if (p != c)
			for (int x = c; x < s; x++) {
				uint8_t t = a[c * s + x];

				a[c * s + x] = a[p * s + x];
				a[p * s + x] = t;
			}
		uint8_t inv = gfec_gf8_inv(a[c * s + c]);

		for (int r = c + 1; r < s; r++) {
			uint8_t f = gfec_gf8_mul(a[r * s + c], inv);

			if (f)
				for (int x = c; x < s; x++)
					a[r * s + x] ^= gfec_gf8_mul(f, a[c * s + x]);
		}
	}
	return 1;
}

int gfec_matrix_check_mds(const uint8_t *g, int m, int k, uint64_t budget)
{
	int smax = m < k ? m : k;
	int rows[GFEC_MAX_CHUNKS], cols[GFEC_MAX_CHUNKS];
	uint64_t spent = 0;
	uint8_t *sub;
	int ret = 0;

	if (!g || !shape_ok(k, m))
		return GFEC_E_INVAL;
	sub = malloc((size_t)smax * smax);
	if (!sub)
		return GFEC_E_NOMEM;

	/* Smallest submatrices first: a failure usually shows early and cheaply. */
	for (int s = 1; s <= smax && !ret; s++) {
		for (int i = 0; i < s; i++)
			rows[i] = i;
		do {
			for (int i = 0; i < s; i++)
				cols[i] = i;
			do {
				spent += (uint64_t)s * s * s;
				if (spent > budget) {
					ret = GFEC_E_BUDGET;
					goto out;
				}
				for (int r = 0; r < s; r++)
					for (int c = 0; c < s; c++)
						sub[r * s + c] = g[rows[r] * k + cols[c]];
				if (!nonsingular(sub, s)) {
					ret = GFEC_E_NOT_MDS;
					goto out;
				}
			} while (next_subset(cols, s, k));
		} while (next_subset(rows, s, m));
	}
out:
	free(sub);
	return ret;
}

int gfec_matrix_invert(uint8_t *in, uint8_t *out, int n)
{
	if (!in || !out || n < 1)
		return GFEC_E_INVAL;
	memset(out, 0, (size_t)n * n);
	for (int i = 0; i < n; i++)
		out[i * n + i] = 1;

	for (int c = 0; c < n; c++) {
		int p = c;

		while (p < n && in[p * n + c] == 0)
			p++;
		if (p == n)
			return GFEC_E_SINGULAR;
		if (p != c)
			for (int x = 0; x < n; x++) {
				uint8_t t = in[c * n + x];

				in[c * n + x] = in[p * n + x];
				in[p * n + x] = t;
				t = out[c * n + x];
				out[c * n + x] = out[p * n + x];
				out[p * n + x] = t;
			}
		uint8_t inv = gfec_gf8_inv(in[c * n + c]);

		for (int x = 0; x < n; x++) {
			in[c * n + x] = gfec_gf8_mul(in[c * n + x], inv);
			out[c * n + x] = gfec_gf8_mul(out[c * n + x], inv);
		}
		for (int r = 0; r < n; r++) {
			uint8_t f = in[r * n + c];

			if (r == c || f == 0)
				continue;
			for (int x = 0; x < n; x++) {
				in[r * n + x] ^= gfec_gf8_mul(f, in[c * n + x]);
				out[r * n + x] ^= gfec_gf8_mul(f, out[c * n + x]);
			}
		}
	}
	return 0;
}

void gfec_matrix_mul(const uint8_t *a, const uint8_t *b, uint8_t *c, int p, int n, int q)
{
	for (int i = 0; i < p; i++)
		for (int j = 0; j < q; j++) {
			uint8_t s = 0;

			for (int x = 0; x < n; x++)
				s ^= gfec_gf8_mul(a[i * n + x], b[x * q + j]);
			c[i * q + j] = s;
		}
}

/* Row r of the systematic generator [I_k ; G]. */
static void gen_row(const uint8_t *g, int k, int r, uint8_t *row)
{
	if (r < k) {
		memset(row, 0, (size_t)k);
		row[r] = 1;
	} else {
		memcpy(row, g + (size_t)(r - k) * k, (size_t)k);
	}
}

int gfec_matrix_decode(const uint8_t *g, int k, int m, const int *src, const int *want,
		       int nwant, uint8_t *d)
{
	uint8_t *b, *binv;
	int ret;

	if (!g || !src || !want || !d || !shape_ok(k, m) || nwant < 0)
		return GFEC_E_INVAL;
	for (int i = 0; i < k; i++)
		if (src[i] < 0 || src[i] >= k + m)
			return GFEC_E_INVAL;
	for (int i = 0; i < nwant; i++)
		if (want[i] < 0 || want[i] >= k + m)
			return GFEC_E_INVAL;

	b = malloc((size_t)2 * k * k);
	if (!b)
		return GFEC_E_NOMEM;
	binv = b + (size_t)k * k;
	for (int i = 0; i < k; i++)
		gen_row(g, k, src[i], b + (size_t)i * k);
	ret = gfec_matrix_invert(b, binv, k);
	if (ret == 0) {
		/* chunk w = row_w . Data, and Data = B^-1 . Sources, so D_i = row_w . B^-1. */
		for (int i = 0; i < nwant; i++) {
			gen_row(g, k, want[i], b);
			gfec_matrix_mul(b, binv, d + (size_t)i * k, 1, k, k);
		}
	}
	free(b);
	return ret;
}
