/* SPDX-License-Identifier: BSD-3-Clause */
/** @file matrix.c  Generators, MDS check, inversion, decode matrices and bitmatrices. */
#include "matrix.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_backend.h"
#include "gf16.h"
#include "gf8.h"
#include "threadpool.h"

static int shape_ok(int k, int m)
{
	return k >= 1 && m >= 1 && k + m <= GFEC_MAX_CHUNKS;
}

int gfec_matrix_shape_ok(unsigned w, int k, int m)
{
	if (w == 8)
		return shape_ok(k, m);
	return w == 16 && k >= 1 && m >= 1 && k <= GFEC_MAX_CHUNKS_GF16 - m;
}

/*
 * The field as a parameter: an element of a matrix over GF(2^w) is one byte (w = 8) or one
 * uint16_t (w = 16); every routine below reads and writes elements and rows through these.
 */
static size_t esz(unsigned w)
{
	return w == 8 ? 1 : 2;
}

static unsigned el_get(unsigned w, const void *a, size_t i)
{
	return w == 8 ? ((const uint8_t *)a)[i] : ((const uint16_t *)a)[i];
}

static void el_set(unsigned w, void *a, size_t i, unsigned v)
{
	if (w == 8)
		((uint8_t *)a)[i] = (uint8_t)v;
	else
		((uint16_t *)a)[i] = (uint16_t)v;
}

static unsigned f_mul(unsigned w, unsigned a, unsigned b)
{
	return w == 8 ? gfec_gf8_mul((uint8_t)a, (uint8_t)b) : gfec_gf16_mul((uint16_t)a, (uint16_t)b);
}

static unsigned f_inv(unsigned w, unsigned a)
{
	return w == 8 ? gfec_gf8_inv((uint8_t)a) : gfec_gf16_inv((uint16_t)a);
}

/* Row r of a matrix with n columns. */
static void *row_at(unsigned w, void *a, size_t r, size_t n)
{
	return (char *)a + r * n * esz(w);
}

/* row *= f over n elements. */
static void row_scale(unsigned w, void *row, size_t n, unsigned f)
{
	if (w == 8) {
		const uint8_t *t = gfec_gf8_tab.mul[f];
		uint8_t *r = row;

		for (size_t x = 0; x < n; x++)
			r[x] = t[r[x]];
	} else {
		uint16_t *r = row;

		for (size_t x = 0; x < n; x++)
			r[x] = gfec_gf16_mul(r[x], (uint16_t)f);
	}
}

/* dst ^= f * src over n elements. */
static void row_axpy(unsigned w, void *dst, const void *src, size_t n, unsigned f)
{
	if (f == 0)
		return;
	if (w == 8) {
		const uint8_t *t = gfec_gf8_tab.mul[f];
		const uint8_t *s = src;
		uint8_t *d = dst;

		for (size_t x = 0; x < n; x++)
			d[x] ^= t[s[x]];
	} else {
		const uint16_t *s = src;
		uint16_t *d = dst;

		for (size_t x = 0; x < n; x++)
			d[x] ^= gfec_gf16_mul(s[x], (uint16_t)f);
	}
}

static void row_swap(unsigned w, void *a, void *b, size_t n)
{
	uint8_t *x = a, *y = b;

	for (size_t i = 0; i < n * esz(w); i++) {
		uint8_t t = x[i];

		x[i] = y[i];
		y[i] = t;
	}
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

int gfec_matrix_cauchy_w(unsigned w, int k, int m, void *g)
{
	if (!gfec_matrix_shape_ok(w, k, m) || !g)
		return GFEC_E_INVAL;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < k; j++)
			el_set(w, g, (size_t)i * k + j, f_inv(w, (unsigned)((k + i) ^ j)));
	return 0;
}

int gfec_matrix_isal_cauchy1(int k, int m, uint8_t *g)
{
	return gfec_matrix_cauchy_w(8, k, m, g);
}

int gfec_matrix_jerasure_rs_van_w(unsigned w, int k, int m, void *g)
{
	const size_t rows = (size_t)k + m, cols = (size_t)k;
	void *vt;

	if (!gfec_matrix_shape_ok(w, k, m) || !g)
		return GFEC_E_INVAL;
	/* The (k+m) x k matrix V held transposed (vt: k x (k+m)), so column operations on V are
	 * row operations here. */
	vt = calloc(rows * cols, esz(w));
	if (!vt)
		return GFEC_E_NOMEM;

	/* Extended Vandermonde: row 0 = e_0, last row = e_{k-1}, row i = (i^0, i^1, ...). */
	el_set(w, vt, 0, 1);
	el_set(w, vt, (cols - 1) * rows + rows - 1, 1);
	for (size_t i = 1; i < rows - 1; i++) {
		unsigned p = 1;

		for (size_t j = 0; j < cols; j++) {
			el_set(w, vt, j * rows + i, p);
			p = f_mul(w, p, (unsigned)i);
		}
	}

	/* Column operations until the top k x k block is the identity. */
	for (size_t i = 1; i < cols; i++) {
		void *ci = row_at(w, vt, i, rows);
		size_t j = i;

		while (j < rows && el_get(w, ci, j) == 0)
			j++;
		if (j == rows) {
			free(vt);
			return GFEC_E_SINGULAR;
		}
		if (j != i) /* swap rows i and j of V */
			for (size_t c = 0; c < cols; c++) {
				void *cc = row_at(w, vt, c, rows);
				unsigned t = el_get(w, cc, i);

				el_set(w, cc, i, el_get(w, cc, j));
				el_set(w, cc, j, t);
			}
		unsigned d = el_get(w, ci, i);

		if (d != 1)
			row_scale(w, ci, rows, f_inv(w, d));
		for (size_t c = 0; c < cols; c++) {
			void *cc = row_at(w, vt, c, rows);

			if (c != i)
				row_axpy(w, cc, ci, rows, el_get(w, cc, i));
		}
	}

	/* Scale columns so the first parity row is all ones ... */
	for (size_t c = 0; c < cols; c++) {
		char *cc = row_at(w, vt, c, rows);
		unsigned f = el_get(w, cc, cols);

		if (f != 0 && f != 1)
			row_scale(w, cc + cols * esz(w), rows - cols, f_inv(w, f));
	}
	/* ... and the remaining parity rows so their first element is one. */
	for (size_t r = cols + 1; r < rows; r++) {
		unsigned f = el_get(w, vt, r);

		if (f != 0 && f != 1) {
			unsigned inv = f_inv(w, f);

			for (size_t c = 0; c < cols; c++)
				el_set(w, vt, c * rows + r, f_mul(w, el_get(w, vt, c * rows + r), inv));
		}
	}

	for (size_t r = 0; r < (size_t)m; r++)
		for (size_t c = 0; c < cols; c++)
			el_set(w, g, r * cols + c, el_get(w, vt, c * rows + cols + r));
	free(vt);
	return 0;
}

int gfec_matrix_jerasure_rs_van(int k, int m, uint8_t *g)
{
	return gfec_matrix_jerasure_rs_van_w(8, k, m, g);
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

int gfec_matrix_invert_w(unsigned w, void *in, void *out, int n)
{
	const size_t nn = (size_t)n;

	if (!in || !out || n < 1 || (w != 8 && w != 16))
		return GFEC_E_INVAL;
	memset(out, 0, nn * nn * esz(w));
	for (size_t i = 0; i < nn; i++)
		el_set(w, out, i * nn + i, 1);

	for (size_t c = 0; c < nn; c++) {
		size_t p = c;

		while (p < nn && el_get(w, in, p * nn + c) == 0)
			p++;
		if (p == nn)
			return GFEC_E_SINGULAR;
		if (p != c) {
			row_swap(w, row_at(w, in, c, nn), row_at(w, in, p, nn), nn);
			row_swap(w, row_at(w, out, c, nn), row_at(w, out, p, nn), nn);
		}
		unsigned inv = f_inv(w, el_get(w, in, c * nn + c));

		row_scale(w, row_at(w, in, c, nn), nn, inv);
		row_scale(w, row_at(w, out, c, nn), nn, inv);
		for (size_t r = 0; r < nn; r++) {
			unsigned f = el_get(w, in, r * nn + c);

			if (r == c || f == 0)
				continue;
			row_axpy(w, row_at(w, in, r, nn), row_at(w, in, c, nn), nn, f);
			row_axpy(w, row_at(w, out, r, nn), row_at(w, out, c, nn), nn, f);
		}
	}
	return 0;
}

int gfec_matrix_invert(uint8_t *in, uint8_t *out, int n)
{
	return gfec_matrix_invert_w(8, in, out, n);
}

void gfec_matrix_mul_w(unsigned w, const void *a, const void *b, void *c, int p, int n, int q)
{
	memset(c, 0, (size_t)p * q * esz(w));
	for (size_t i = 0; i < (size_t)p; i++)
		for (size_t x = 0; x < (size_t)n; x++)
			row_axpy(w, row_at(w, c, i, (size_t)q), row_at(w, (void *)b, x, (size_t)q),
				 (size_t)q, el_get(w, a, i * n + x));
}

void gfec_matrix_mul(const uint8_t *a, const uint8_t *b, uint8_t *c, int p, int n, int q)
{
	gfec_matrix_mul_w(8, a, b, c, p, n, q);
}

/*
 * GF(2^16) products through the CPU backend's region GEMM (gemm16.c). A row of a matrix of
 * uint16_t is a region of 16-bit little-endian symbols (on the little-endian hosts gfec runs on),
 * so rows = A * rows is one GEMM with the rows as chunks, and the kernel's nibble tables replace
 * a log/exp lookup per element. Without AVX2 the backend's plain kernel (split tables) runs.
 */

/* Output rows per kernel call: their tables (rows x cols x 128 bytes) stay within a few MiB. */
#define MUL16_ROWS 16

/* Below this many multiplies a decode matrix is built on the calling thread alone. */
#define MUL16_THREADED (1u << 21)

struct mul16 {
	const uint16_t *a; /* rows x cols */
	int rows, cols, per; /* per: rows of one task */
	size_t len;	     /* bytes per row of src and dst */
	const uint8_t *const *src;
	uint8_t *const *dst;
	int *ret; /* one per task */
};

static int mul16_rows(const struct mul16 *j, int r0, int nr)
{
	uint8_t *t;
	int ret = 0;

	if (!gfec_cpu_avx2_supported()) {
		gfec_cpu_gemm16_base(j->len, j->cols, nr, j->a + (size_t)r0 * j->cols, j->src,
				     j->dst + r0, 0);
		return 0;
	}
	t = malloc((size_t)MUL16_ROWS * j->cols * GFEC_CPU_GF16_TABLE);
	if (!t)
		return GFEC_E_NOMEM;
	for (int r = r0; !ret && r < r0 + nr; r += MUL16_ROWS) {
		const int n = r0 + nr - r < MUL16_ROWS ? r0 + nr - r : MUL16_ROWS;

		gfec_cpu_gf16_tables(j->a + (size_t)r * j->cols, (size_t)n * j->cols, t);
		ret = gfec_cpu_gemm16_avx2(j->len, j->cols, n, t, j->src, j->dst + r, 0);
	}
	free(t);
	return ret;
}

static void mul16_task(void *arg, size_t i)
{
	const struct mul16 *j = arg;
	const int r0 = (int)i * j->per;

	j->ret[i] = mul16_rows(j, r0, j->rows - r0 < j->per ? j->rows - r0 : j->per);
}

/* dst[i] = sum_j a[i*cols+j] * src[j] over len bytes, for i < rows, on the pool's threads. */
static int mul16(struct gfec_cpu_pool *pool, const uint16_t *a, int rows, int cols, size_t len,
		 const uint8_t *const *src, uint8_t *const *dst)
{
	const int threads = pool ? gfec_cpu_pool_threads(pool) : 1;
	struct mul16 j = { a, rows, cols, 0, len, src, dst, NULL };
	int ntasks, ret = 0;

	if (rows < 1)
		return 0;
	/* whole groups of 4 rows per task: the kernel sums 4 rows over one pass of the sources */
	j.per = ((rows + threads - 1) / threads + 3) / 4 * 4;
	ntasks = (rows + j.per - 1) / j.per;
	if (ntasks == 1)
		return mul16_rows(&j, 0, rows);
	j.ret = malloc(sizeof(int) * (size_t)ntasks);
	if (!j.ret)
		return GFEC_E_NOMEM;
	gfec_cpu_pool_run(pool, (size_t)ntasks, mul16_task, &j);
	for (int i = 0; i < ntasks; i++)
		if (j.ret[i])
			ret = j.ret[i];
	free(j.ret);
	return ret;
}

/*
 * gfec_matrix_invert_w(16) on the GEMM: Gauss-Jordan on [A | I] (n rows of 2n symbols) with the
 * same pivots (the first nonzero at or below the diagonal), each pivot's elimination one GEMM
 * with a single source, the pivot row, times each other row's element in the pivot column,
 * XORed into the rows where that is nonzero. The right half's columns are kept in pivot order:
 * a row's own unit is set when it becomes pivot c, in column n + c, which no earlier operation
 * touched. So at pivot c the pivot row is zero left of column c and right of column n + c, and
 * the elimination spans those n + 1 columns (n^3 multiply-adds in all, not 1.5 n^3); the columns
 * go back to A's row order at the end.
 */
static int invert16(const uint16_t *in, uint16_t *out, size_t n)
{
	/* the span rounded up to whole 64-byte groups of the kernel (the scalar tail per row cost
	 * more than the rest of the row at n = 200); the rows' padding stays zero */
	const size_t len = (n + 1 + 31) / 32 * 64, w2 = 2 * n + 32;
	const int simd = gfec_cpu_avx2_supported();
	uint16_t *aug = malloc(sizeof(*aug) * n * w2), **rows = malloc(sizeof(*rows) * n);
	uint8_t **dst = malloc(sizeof(*dst) * n), *tbl = malloc(n * GFEC_CPU_GF16_TABLE);
	uint16_t *f = malloc(sizeof(*f) * n);
	size_t *orig = malloc(sizeof(*orig) * n); /* orig[r]: A's row now at rows[r] */
	int ret = 0;

	if (!aug || !rows || !dst || !tbl || !f || !orig) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (size_t r = 0; r < n; r++) {
		rows[r] = aug + r * w2;
		orig[r] = r;
		memcpy(rows[r], in + r * n, n * sizeof(*aug));
		memset(rows[r] + n, 0, (w2 - n) * sizeof(*aug));
	}
	for (size_t c = 0; c < n; c++) {
		size_t p = c, nr = 0;

		while (p < n && rows[p][c] == 0)
			p++;
		if (p == n) {
			ret = GFEC_E_SINGULAR;
			goto out;
		}
		uint16_t *pr = rows[p];
		const size_t op = orig[p];

		rows[p] = rows[c], orig[p] = orig[c];
		rows[c] = pr, orig[c] = op;
		pr[n + c] = 1;
		gfec_gf16_region_mul((uint8_t *)(pr + c), (uint8_t *)(pr + c), len,
				     gfec_gf16_inv(pr[c]), 0);
		for (size_t r = 0; r < n; r++)
			if (r != c && rows[r][c]) {
				f[nr] = rows[r][c];
				dst[nr++] = (uint8_t *)(rows[r] + c);
			}
		const uint8_t *src = (const uint8_t *)(pr + c);

		if (!simd) {
			gfec_cpu_gemm16_base(len, 1, (int)nr, f, &src, dst, 1);
			continue;
		}
		gfec_cpu_gf16_tables(f, nr, tbl);
		ret = gfec_cpu_gemm16_avx2(len, 1, (int)nr, tbl, &src, dst, 1);
		if (ret)
			goto out;
	}
	for (size_t r = 0; r < n; r++)
		for (size_t j = 0; j < n; j++)
			out[r * n + orig[j]] = rows[r][n + j];
out:
	free(aug);
	free(rows);
	free(dst);
	free(tbl);
	free(f);
	free(orig);
	return ret;
}

/*
 * l (e x k) = A^-1 gs on the GEMM, gs's columns apart: at the position of parity source r it
 * is unit vector r, so l's column there is A^-1's column r; at a surviving data chunk's it is
 * G(P, j), so those columns are A^-1 G(P, S), gathered into e rows of the k - e survivors.
 */
static int lost_rows16(struct gfec_cpu_pool *pool, const uint16_t *g, int k, const int *pos,
		       const int *par, size_t e, const uint16_t *ainv, uint16_t *l)
{
	const size_t kk = (size_t)k, ns = kk - e;
	uint16_t *b = malloc(sizeof(*b) * 2 * e * ns + 1);
	const uint8_t **src = malloc(sizeof(*src) * 2 * e);
	int *sj = malloc(sizeof(*sj) * (ns + 1));
	int ret = 0;

	if (!b || !src || !sj) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	uint16_t *lb = b + e * ns;
	uint8_t **dst = (uint8_t **)src + e;
	size_t t = 0;

	for (int j = 0; j < k; j++)
		if (pos[j] >= 0)
			sj[t++] = j;
	for (size_t r = 0; r < e; r++) {
		for (t = 0; t < ns; t++)
			b[r * ns + t] = g[(size_t)par[r] * kk + sj[t]];
		src[r] = (const uint8_t *)(b + r * ns);
		dst[r] = (uint8_t *)(lb + r * ns);
	}
	ret = mul16(pool, ainv, (int)e, (int)e, ns * sizeof(*b), src, dst);
	if (ret)
		goto out;
	for (size_t i = 0; i < e; i++) {
		for (t = 0; t < ns; t++)
			l[i * kk + pos[sj[t]]] = lb[i * ns + t];
		for (size_t r = 0; r < e; r++)
			l[i * kk + pos[k + par[r]]] = ainv[i * e + r];
	}
out:
	free(b);
	free(src);
	free(sj);
	return ret;
}

/*
 * The decode matrix without a k x k inverse. With L the e data chunks missing from src and P the
 * e parity chunks in src, and A = G(P, L) (e x e):
 *     data_L = A^-1 (parity_P + G(P, S) data_S)            (S: the data chunks in src)
 * so only A is inverted: O(e^3 + e^2 k) instead of O(k^3). The result is the same matrix (the
 * decode matrix is unique for a given src). With @p fast at w = 16 the inverse, the product and
 * the wanted parity rows run on the backend's GEMM (above), on @p threads threads for large
 * problems; without it, scalar log/exp row operations: the reference (_base).
 */
static int decode(unsigned w, const void *g, int k, int m, const int *src, const int *want,
		  int nwant, int threads, int fast, void *d)
{
	const size_t kk = (size_t)k, es = esz(w);
	int *pos = NULL, *lost, *par, *lidx;
	void *a = NULL, *ainv, *l;
	size_t e = 0, npar = 0;
	struct gfec_cpu_pool *pool = NULL;
	int ret = 0;

	if (!g || !src || !want || !d || !gfec_matrix_shape_ok(w, k, m) || nwant < 0)
		return GFEC_E_INVAL;
	for (int i = 0; i < k; i++)
		if (src[i] < 0 || src[i] >= k + m)
			return GFEC_E_INVAL;
	for (int i = 0; i < nwant; i++)
		if (want[i] < 0 || want[i] >= k + m)
			return GFEC_E_INVAL;
	fast = fast && w == 16;

	/* pos[c]: where chunk c sits in src (-1: absent); lost, par and lidx share one block. */
	pos = malloc(sizeof(int) * ((size_t)k + m + 3 * kk));
	if (!pos)
		return GFEC_E_NOMEM;
	lost = pos + k + m;
	par = lost + k;
	lidx = par + k;
	for (int c = 0; c < k + m; c++)
		pos[c] = -1;
	for (int i = 0; i < k; i++) {
		if (pos[src[i]] >= 0) {
			ret = GFEC_E_SINGULAR; /* a repeated source: k distinct rows are needed */
			goto out;
		}
		pos[src[i]] = i;
		if (src[i] >= k)
			par[npar++] = src[i] - k;
	}
	for (int j = 0; j < k; j++) {
		lidx[j] = -1;
		if (pos[j] < 0) {
			lidx[j] = (int)e;
			lost[e++] = j;
		}
	}
	if (threads <= 0) {
		const long n = sysconf(_SC_NPROCESSORS_ONLN);

		threads = n > 1 ? (int)(n > 1024 ? 1024 : n) : 1;
	}
	/* a pool that cannot start leaves the work to this thread */
	if (fast && threads > 1 && e * e * kk >= MUL16_THREADED &&
	    gfec_cpu_pool_create(threads, &pool))
		pool = NULL;

	/* l (e x k): lost data chunk i as a combination of the sources, by position in src. */
	a = malloc((e * kk + e * e + e * kk) * es + 1);
	if (!a) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	ainv = (char *)a + e * kk * es;
	l = (char *)ainv + e * e * es;
	if (e) {
		for (size_t r = 0; r < e; r++)
			for (size_t c = 0; c < e; c++)
				el_set(w, a, r * e + c, el_get(w, g, par[r] * kk + lost[c]));
		if (fast) {
			ret = invert16(a, ainv, e);
			if (ret == 0)
				ret = lost_rows16(pool, g, k, pos, par, e, ainv, l);
			if (ret)
				goto out;
		} else {
			ret = gfec_matrix_invert_w(w, a, ainv, (int)e);
			if (ret)
				goto out;
			/* gs (e x k, in a's place): parity_P + G(P, S) data_S, by position in
			 * src; l = A^-1 gs. */
			memset(a, 0, e * kk * es);
			for (size_t r = 0; r < e; r++) {
				el_set(w, a, r * kk + pos[k + par[r]], 1);
				for (int j = 0; j < k; j++)
					if (pos[j] >= 0)
						el_set(w, a, r * kk + pos[j],
						       el_get(w, g, par[r] * kk + j));
			}
			gfec_matrix_mul_w(w, ainv, a, l, (int)e, (int)e, k);
		}
	}

	memset(d, 0, (size_t)nwant * kk * es);
	if (fast && e) {
		/* lost parity rows: G(c, L) l on the GEMM; the surviving data's elements are added
		 * below */
		uint16_t *cl = malloc(sizeof(*cl) * (size_t)nwant * e + 1);
		const uint8_t **lrow = malloc(sizeof(*lrow) * (e + (size_t)nwant));
		uint8_t **drow = (uint8_t **)lrow + e;
		int np = 0;

		if (!cl || !lrow) {
			free(cl);
			free(lrow);
			ret = GFEC_E_NOMEM;
			goto out;
		}
		for (size_t t = 0; t < e; t++)
			lrow[t] = (const uint8_t *)row_at(w, l, t, kk);
		for (int i = 0; i < nwant; i++)
			if (want[i] >= k && pos[want[i]] < 0) {
				for (size_t t = 0; t < e; t++)
					cl[np * e + t] = ((const uint16_t *)g)[(size_t)(want[i] - k) *
									       kk + lost[t]];
				drow[np++] = row_at(w, d, (size_t)i, kk);
			}
		ret = mul16(pool, cl, np, (int)e, kk * es, lrow, drow);
		free(cl);
		free(lrow);
		if (ret)
			goto out;
	}
	for (int i = 0; i < nwant; i++) {
		void *row = row_at(w, d, (size_t)i, kk);
		int c = want[i];

		if (pos[c] >= 0) {
			el_set(w, row, (size_t)pos[c], 1);
		} else if (c < k) {
			memcpy(row, row_at(w, l, (size_t)lidx[c], kk), kk * es);
		} else {
			for (int j = 0; j < k; j++) {
				unsigned f = el_get(w, g, (size_t)(c - k) * kk + j);

				if (pos[j] >= 0)
					el_set(w, row, (size_t)pos[j], el_get(w, row, (size_t)pos[j]) ^ f);
				else if (!fast)
					row_axpy(w, row, row_at(w, l, (size_t)lidx[j], kk), kk, f);
			}
		}
	}
out:
	gfec_cpu_pool_destroy(pool);
	free(a);
	free(pos);
	return ret;
}

int gfec_matrix_decode_w(unsigned w, const void *g, int k, int m, const int *src, const int *want,
			 int nwant, void *d)
{
	return decode(w, g, k, m, src, want, nwant, 1, 1, d);
}

int gfec_matrix_decode_w_threads(unsigned w, const void *g, int k, int m, const int *src,
				 const int *want, int nwant, int threads, void *d)
{
	return decode(w, g, k, m, src, want, nwant, threads, 1, d);
}

int gfec_matrix_decode_w_base(unsigned w, const void *g, int k, int m, const int *src,
			      const int *want, int nwant, void *d)
{
	return decode(w, g, k, m, src, want, nwant, 1, 0, d);
}

int gfec_matrix_decode(const uint8_t *g, int k, int m, const int *src, const int *want,
		       int nwant, uint8_t *d)
{
	return gfec_matrix_decode_w(8, g, k, m, src, want, nwant, d);
}

/*
 * Products over the points 0..n-1 in O(log^2 n). The points below 2^r are a GF(2)-subspace, so
 * L_r(t) = prod_{v < 2^r} (t + v) is additive in t and L_{r+1}(t) = L_r(t) (L_r(t) + L_r(2^r));
 * 0..n-1 is a union of blocks base + [0, 2^r), one per set bit r of n, each giving L_r(t + base).
 */
struct span16 {
	uint16_t kq[17]; /* L_q(2^q) */
	uint16_t dq[17]; /* prod_{0 < v < 2^q} v: the block's product without the factor t + t */
};

static uint16_t span16_l(const struct span16 *s, int r, uint16_t t)
{
	uint16_t u = t;

	for (int q = 0; q < r; q++)
		u = gfec_gf16_mul(u, u ^ s->kq[q]);
	return u;
}

static void span16_init(struct span16 *s)
{
	s->dq[0] = 1;
	for (int q = 0; q < 16; q++) {
		s->kq[q] = span16_l(s, q, (uint16_t)(1u << q));
		s->dq[q + 1] = gfec_gf16_mul(s->dq[q], s->kq[q]);
	}
	s->kq[16] = 0; /* unused: no point lies beyond the field */
}

/* prod_{c < n, c != t} (t + c) for n <= 65536. */
static uint16_t span16_prod(const struct span16 *s, unsigned n, unsigned t)
{
	uint16_t p = 1;
	unsigned base = 0;

	for (int r = 16; r >= 0; r--) {
		if (!(n >> r & 1))
			continue;
		if ((t ^ base) < (1u << r))
			p = gfec_gf16_mul(p, s->dq[r]);
		else
			p = gfec_gf16_mul(p, span16_l(s, r, (uint16_t)(t ^ base)));
		base += 1u << r;
	}
	return p;
}

/*
 * prod_{e < nlost, lost[e] != t} (t + lost[e]) as a sum of logarithms: one table read per factor
 * (k + nwant products of m factors per decode matrix) instead of a log/exp multiply.
 */
static uint16_t log_prod16(unsigned t, const int *lost, int nlost)
{
	uint64_t l = 0;

	for (int e = 0; e < nlost; e++)
		if ((unsigned)lost[e] != t)
			l += gfec_gf16_tab.log[t ^ (unsigned)lost[e]];
	return gfec_gf16_tab.exp[l % 65535];
}

int gfec_matrix_cauchy16_decode(int k, int m, const int *src, const int *want, int nwant,
				uint16_t *x, uint16_t *r, uint16_t *y, uint16_t *c)
{
	const int n = k + m;
	struct span16 sp;
	uint8_t *is_src;
	int *lost, nlost = 0, ret = 0;

	if (!gfec_matrix_shape_ok(16, k, m) || !src || (nwant && (!want || !x || !r)) || !y ||
	    !c || nwant < 0)
		return GFEC_E_INVAL;
	is_src = calloc((size_t)n, 1);
	lost = malloc(sizeof(*lost) * (size_t)m);
	if (!is_src || !lost) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (int j = 0; j < k; j++) {
		if (src[j] < 0 || src[j] >= n || is_src[src[j]]) {
			ret = GFEC_E_INVAL;
			goto out;
		}
		is_src[src[j]] = 1;
	}
	for (int e = 0; e < n; e++)
		if (!is_src[e])
			lost[nlost++] = e;
	for (int i = 0; i < nwant; i++)
		if (want[i] < 0 || want[i] >= n || is_src[want[i]]) {
			ret = GFEC_E_INVAL;
			goto out;
		}
	gfec_gf16_init();
	span16_init(&sp);

	/* v_p: the column multiplier of the chunk at point p (the data points are 0..k-1) */
#define V_INV(p) span16_prod(&sp, (unsigned)k, (unsigned)(p))
	/* Targets: r = v_t W(t), W(t) = prod_{c < n, c != t} (t + c) / prod_{lost e != t} (t + e). */
	for (int i = 0; i < nwant; i++) {
		const unsigned t = (unsigned)want[i];
		const uint16_t q = log_prod16(t, lost, nlost);

		x[i] = (uint16_t)t;
		r[i] = gfec_gf16_div(span16_prod(&sp, (unsigned)n, t),
				     gfec_gf16_mul(q, V_INV(t)));
	}
	/* Sources: c = 1 / (v_z W'(z)), W'(z) = prod_{c < n, c != z} (z + c) / prod_lost (z + e). */
	for (int j = 0; j < k; j++) {
		const unsigned z = (unsigned)src[j];
		const uint16_t q = log_prod16(z, lost, nlost);

		y[j] = (uint16_t)z;
		c[j] = gfec_gf16_div(gfec_gf16_mul(q, V_INV(z)), span16_prod(&sp, (unsigned)n, z));
	}
#undef V_INV
out:
	free(is_src);
	free(lost);
	return ret;
}

/*
 * In the log domain: element (i,j) = exp(log r[i] + log c[j] - log(x[i] ^ y[j])), two table
 * reads per element instead of two log/exp multiplies and an inverse. A zero scalar (no
 * logarithm) gives zeros, as does x[i] = y[j] (gfec_gf16_inv(0) = 0 made them so before).
 */
void gfec_matrix_cauchy16_expand(int rows, int cols, const uint16_t *x, const uint16_t *r,
				 const uint16_t *y, const uint16_t *c, uint16_t *out)
{
	const uint16_t *lg = gfec_gf16_tab.log, *ex = gfec_gf16_tab.exp;

	for (size_t i = 0; i < (size_t)rows; i++) {
		uint16_t *o = out + i * (size_t)cols;
		const unsigned xi = x[i], lr = lg[r[i]];

		for (size_t j = 0; j < (size_t)cols; j++) {
			const unsigned d = xi ^ y[j];
			unsigned l = lr + lg[c[j]];

			l = l >= 65535 ? l - 65535 : l;
			o[j] = r[i] && c[j] && d ? ex[l + 65535 - lg[d]] : 0;
		}
	}
}
