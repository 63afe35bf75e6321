/* SPDX-License-Identifier: BSD-3-Clause */
/* The algebra behind weight enumeration: see weights.h. */
#include "weights.h"

#include <stdlib.h>
#include <string.h>

#include "gfec/gfec_errors.h"

static inline int bit(const uint64_t *row, int j)
{
	return (int)(row[j / 64] >> (j % 64)) & 1;
}

int gfec_wt_rref(uint64_t *m, int rows, int words)
{
	int rank = 0;
	for (int col = 0; col < words * 64 && rank < rows; col++) {
		int p = -1;
		for (int r = rank; r < rows && p < 0; r++)
			if (bit(m + (size_t)r * words, col))
				p = r;
		if (p < 0)
			continue;
		uint64_t *pr = m + (size_t)rank * words;
		if (p != rank)
			for (int w = 0; w < words; w++) {
				uint64_t t = pr[w];
				pr[w] = m[(size_t)p * words + w];
				m[(size_t)p * words + w] = t;
			}
		for (int r = 0; r < rows; r++) {
			uint64_t *rr = m + (size_t)r * words;
			if (r != rank && bit(rr, col))
				for (int w = 0; w < words; w++)
					rr[w] ^= pr[w];
		}
		rank++;
	}
	for (int r = rank; r < rows; r++)
		memset(m + (size_t)r * words, 0, (size_t)words * sizeof(uint64_t));
	return rank;
}

int gfec_wt_ones_last(uint64_t *m, int k, int n)
{
	int words = gfec_wt_words(n);
	if (k < 1)
		return 0;
	uint64_t acc[4] = {0};
	for (int r = 0; r < k; r++)
		for (int w = 0; w < words; w++)
			acc[w] ^= m[(size_t)r * words + w];
	int ones = 1;
	for (int j = 0; j < n && ones; j++)
		ones = bit(acc, j);
	if (ones)
		memcpy(m + (size_t)(k - 1) * words, acc, (size_t)words * sizeof(uint64_t));
	return ones;
}

/* x^r + ... : a primitive polynomial of each degree 3..8 (bit i: the coefficient of x^i). */
static const unsigned bch_prim[9] = {0, 0, 0, 0xb, 0x13, 0x25, 0x43, 0x89, 0x11d};

int gfec_wt_bch(int n, int k, uint64_t *m, int *delta)
{
	int r = 0;
	while (r <= 8 && (1 << r) - 1 != n)
		r++;
	if (r < 3 || r > 8 || k < 1 || k > n)
		return GFEC_E_INVAL;
	int exp[512], log[256];
	for (int i = 0, x = 1; i < n; i++) {
		exp[i] = exp[i + n] = x;
		log[x] = i;
		x <<= 1;
		if (x >> r)
			x ^= (int)bch_prim[r];
	}
	/* zero[i]: alpha^i is a root of g, for the designed distance found so far */
	unsigned char zero[256] = {0};
	int nzero = 0, best = -1;
	for (int d = 2; d <= n + 1 && n - nzero >= k; d++) {
		/* designed distance d adds the cyclotomic coset of d - 1 */
		for (int i = d - 1; !zero[i]; i = 2 * i % n) {
			zero[i] = 1;
			nzero++;
		}
		if (n - nzero == k)
			best = d;
		if (d == n)
			break;
	}
	if (best < 0)
		return GFEC_E_INVAL;
	memset(zero, 0, sizeof(zero));
	for (int d = 2; d <= best; d++)
		for (int i = d - 1; !zero[i]; i = 2 * i % n)
			zero[i] = 1;
	*delta = best;
	if (!m)
		return 0;
	/* g(x) = product of (x - alpha^i) over the zeros, over GF(2^r); g[j]: coefficient of x^j */
	int g[256] = {1}, deg = 0;
	for (int i = 1; i < n; i++) {
		if (!zero[i])
			continue;
		for (int j = deg + 1; j >= 0; j--) {
			int lo = j > 0 ? g[j - 1] : 0;
			int hi = j <= deg ? g[j] : 0;
			g[j] = lo ^ (hi ? exp[log[hi] + i] : 0);
		}
		deg++;
	}
	int words = gfec_wt_words(n);
	memset(m, 0, (size_t)k * words * sizeof(uint64_t));
	for (int row = 0; row < k; row++)
		for (int j = 0; j <= deg; j++)
			if (g[j]) /* 0 or 1: g has binary coefficients */
				m[(size_t)row * words + (row + j) / 64] |= 1ull << ((row + j) % 64);
	return 0;
}

int gfec_wt_codewords(const uint64_t *m, int k, int words, uint64_t *cw, int *gw, size_t *gs,
		      int *ng)
{
	size_t count = (size_t)1 << k;
	uint64_t *gray = malloc(count * (size_t)words * sizeof(uint64_t));
	if (!gray)
		return GFEC_E_NOMEM;
	int n = words * 64;
	size_t *hist = calloc((size_t)n + 2, sizeof(size_t));
	unsigned short *wt = malloc(count * sizeof(unsigned short));
	if (!hist || !wt) {
		free(gray);
		free(hist);
		free(wt);
		return GFEC_E_NOMEM;
	}
	memset(gray, 0, (size_t)words * sizeof(uint64_t));
	wt[0] = 0;
	for (size_t i = 1; i < count; i++) {
		const uint64_t *row = m + (size_t)__builtin_ctzll(i) * words;
		const uint64_t *prev = gray + (i - 1) * words;
		uint64_t *cur = gray + i * words;
		int w = 0;
		for (int x = 0; x < words; x++) {
			cur[x] = prev[x] ^ row[x];
			w += __builtin_popcountll(cur[x]);
		}
		wt[i] = (unsigned short)w;
	}
	for (size_t i = 0; i < count; i++)
		hist[wt[i]]++;
	int g = 0;
	size_t at = 0;
	for (int w = 0; w <= n; w++) {
		if (!hist[w])
			continue;
		gw[g] = w;
		gs[g] = at;
		size_t next = at + hist[w];
		hist[w] = at; /* now the fill position of weight w */
		at = next;
		g++;
	}
	gs[g] = count;
	*ng = g;
	for (size_t i = 0; i < count; i++)
		memcpy(cw + hist[wt[i]]++ * words, gray + i * words, (size_t)words * sizeof(uint64_t));
	free(gray);
	free(hist);
	free(wt);
	return 0;
}

void gfec_wt_symmetrize(uint64_t *j, const uint64_t *aw, int n)
{
	size_t s = (size_t)n + 1;
	for (size_t a = 0; a < s; a++)
		for (size_t b = 0; a + b < s; b++)
			for (size_t c = b; a + b + c < s; c++) {
				uint64_t *x = &j[(a * s + b) * s + c], *y = &j[(a * s + c) * s + b];
				uint64_t both = *x + (x != y ? *y : *x);
				*x = *y = both;
			}
	for (size_t w = 0; w < s; w++)
		j[(w * s) * s] += aw[w];
}

void gfec_wt_unfold_ones(const uint64_t *jp, int n, uint64_t *out)
{
	size_t s = (size_t)n + 1;
	memset(out, 0, s * s * s * sizeof(uint64_t));
	for (size_t a = 0; a < s; a++)
		for (size_t b = 0; a + b < s; b++)
			for (size_t c = 0; a + b + c < s; c++) {
				size_t d = s - 1 - a - b - c;
#define JP(x, y, z) jp[((x) * s + (y)) * s + (z)]
				out[(a * s + b) * s + c] =
					JP(a, b, c) + JP(c, d, a) + JP(b, a, d) + JP(d, c, b);
#undef JP
			}
}
