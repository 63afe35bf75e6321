/* SPDX-License-Identifier: BSD-3-Clause */
/** @file fft16.c  The additive-FFT Reed-Solomon code over GF(2^16) (fft16.h has the method). */
#include "fft16.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "gemm.h"
#include "gf16.h"

#define ORDER 65536u
#define MODULUS 65535u

/*
 * Work regions a call keeps at once: chunks are processed in byte slices of this budget, but
 * never under SLICE_MIN bytes per region where the chunks are that long (a list of ordered ops
 * is split over threads by bytes only: 4 KiB keeps 256 bytes per task on 16 threads; 256 MiB of
 * work at N = 65536).
 */
#define WORK_BYTES (64u << 20)
#define SLICE_MIN 4096u

static struct {
	uint16_t v[16];		 /* the Cantor basis */
	uint16_t wb[16][16];	 /* W_j(v_i) / W_j(v_j) */
	uint16_t point[ORDER];	 /* omega_u */
} tab;

static pthread_once_t fft16_once = PTHREAD_ONCE_INIT;

static void fft16_build(void)
{
	uint16_t w[16]; /* W_j(v_i) for the current j, every i */

	gfec_gf16_init();
	tab.v[0] = 1;
	for (int i = 1; i < 16; i++)
		for (uint32_t x = 2; x < ORDER; x++)
			if ((gfec_gf16_mul((uint16_t)x, (uint16_t)x) ^ x) == tab.v[i - 1]) {
				tab.v[i] = (uint16_t)x;
				break;
			}
	tab.point[0] = 0;
	for (uint32_t u = 1; u < ORDER; u++) {
		const unsigned b = (unsigned)__builtin_ctz(u);

		tab.point[u] = tab.point[u & (u - 1)] ^ tab.v[b];
	}
	/* W_0(x) = x; W_(j+1)(x) = W_j(x) (W_j(x) + W_j(v_j)), W_j being linear. */
	for (int i = 0; i < 16; i++)
		w[i] = tab.v[i];
	for (int j = 0; j < 16; j++) {
		const uint16_t wj = w[j];

		for (int i = 0; i < 16; i++)
			tab.wb[j][i] = gfec_gf16_div(w[i], wj);
		for (int i = 0; i < 16; i++)
			w[i] = gfec_gf16_mul(w[i], w[i] ^ wj);
	}
}

void gfec_fft16_init(void)
{
	pthread_once(&fft16_once, fft16_build);
}

__attribute__((constructor)) static void fft16_load(void)
{
	gfec_fft16_init();
}

uint16_t gfec_fft16_point(unsigned u)
{
	return tab.point[u & (ORDER - 1)];
}

uint16_t gfec_fft16_skew(unsigned j, unsigned r)
{
	uint16_t s = 0;

	for (unsigned i = j; i < 16; i++)
		if (r >> i & 1)
			s ^= tab.wb[j][i];
	return s;
}

/* --- running ops ---------------------------------------------------------------------------- */

static int run_ops(const struct gfec_fft16_ops *ops, int kind, size_t n, size_t len,
		   uint8_t *const *x, uint8_t *const *y, const uint16_t *c)
{
	if (n == 0)
		return 0;
	if (ops && ops->bfly)
		return ops->bfly(ops->ctx, kind, (int)n, len, x, y, c);
	gfec_cpu_bfly16_base(kind & ~GFEC_BFLY_FLAGS, (int)n, len, x, y, c);
	return 0;
}

/* Work regions: the ops' memory where they bring their own, else the heap's. */
static uint8_t *work_alloc(const struct gfec_fft16_ops *ops, size_t bytes)
{
	if (ops && ops->alloc)
		return ops->alloc(ops->ctx, bytes ? bytes : 1);
	return malloc(bytes ? bytes : 1);
}

static void work_free(const struct gfec_fft16_ops *ops, void *p)
{
	if (!p)
		return;
	if (ops && ops->alloc)
		ops->free(ops->ctx, p);
	else
		free(p);
}

/*
 * Bytes between work regions of slices of s bytes: whole 64-byte lines, so that every region
 * starts aligned however odd the chunks' length (a GPU's loads are then whole vectors).
 */
static size_t work_pitch(size_t s)
{
	return (s + 63) / 64 * 64;
}

/* The end of a call: its ops waited for (asynchronous ops), the first error kept. */
static int finish(const struct gfec_fft16_ops *ops, int ret)
{
	const int s = ops && ops->sync ? ops->sync(ops->ctx) : 0;

	return ret ? ret : s;
}

/* Scratch for one call's op lists: cap ops. */
struct lists {
	uint8_t **x, **y;
	uint16_t *c;
	size_t cap;
};

static int lists_init(struct lists *l, size_t cap)
{
	l->cap = cap ? cap : 1;
	l->x = malloc(sizeof(*l->x) * l->cap);
	l->y = malloc(sizeof(*l->y) * l->cap);
	l->c = malloc(sizeof(*l->c) * l->cap);
	return l->x && l->y && l->c ? 0 : GFEC_E_NOMEM;
}

static void lists_fini(struct lists *l)
{
	free(l->x);
	free(l->y);
	free(l->c);
}

/*
 * What a transform may skip. zero (n flags, or NULL): regions known to hold zeros; a butterfly
 * of two zero regions leaves them zero and is skipped (the flags are kept up to date). need (n
 * flags, or NULL; forward transforms): the outputs wanted; a block of a layer none of whose
 * points is wanted is skipped (its regions then hold no meaningful value).
 */
struct skip {
	uint8_t *zero;
	const uint8_t *need;
};

static int block_needed(const uint8_t *need, unsigned r, unsigned size)
{
	for (unsigned x = r; x < r + size; x++)
		if (need[x])
			return 1;
	return 0;
}

/* One layer j of a transform of n points at beta, forward or inverse. */
static int layer(const struct gfec_fft16_ops *ops, struct lists *l, int kind, uint8_t *const *d,
		 unsigned n, unsigned j, unsigned beta, size_t len, const struct skip *sk)
{
	const unsigned h = 1u << j;
	uint8_t *zero = sk ? sk->zero : NULL;
	size_t p = 0;

	for (unsigned r = 0; r < n; r += 2 * h) {
		const uint16_t s = gfec_fft16_skew(j, beta + r);

		if (sk && sk->need && !block_needed(sk->need, r, 2 * h))
			continue;
		for (unsigned t = 0; t < h; t++) {
			if (zero && zero[r + t] && zero[r + h + t])
				continue;
			if (zero)
				zero[r + t] = zero[r + h + t] = 0;
			l->x[p] = d[r + t];
			l->y[p] = d[r + h + t];
			l->c[p++] = s;
		}
	}
	return run_ops(ops, kind | GFEC_BFLY_DISJOINT, p, len, l->x, l->y, l->c);
}

/*
 * Layers jl and jl + 1 in one list (radix 4): for each group of four regions A, B, C, D (u < q
 * in a block of 4q at r: r+u, r+q+u, r+2q+u, r+3q+u) the forward transform's ops (A,C), (B,D)
 * of layer jl + 1, then (A,B), (C,D) of layer jl; the inverse the other way round. Groups are
 * disjoint from each other (GFEC_BFLY_GROUP4), so a backend runs a group's four ops over a
 * slice while it is in cache: half the passes over memory. A group is skipped when its four
 * regions are zero, or (forward) when its block holds no wanted output.
 */
static int layer2(const struct gfec_fft16_ops *ops, struct lists *l, int inverse,
		  uint8_t *const *d, unsigned n, unsigned jl, unsigned beta, size_t len,
		  const struct skip *sk)
{
	const unsigned q = 1u << jl;
	uint8_t *zero = sk ? sk->zero : NULL;
	size_t p = 0;

	for (unsigned r = 0; r < n; r += 4 * q) {
		const uint16_t sh = gfec_fft16_skew(jl + 1, beta + r);
		const uint16_t s0 = gfec_fft16_skew(jl, beta + r);
		const uint16_t s1 = gfec_fft16_skew(jl, beta + r + 2 * q);

		if (sk && sk->need && !block_needed(sk->need, r, 4 * q))
			continue;
		for (unsigned u = 0; u < q; u++) {
			const unsigned a = r + u, b = a + q, c = a + 2 * q, e = a + 3 * q;
			uint8_t *const ra = d[a], *const rb = d[b], *const rc = d[c], *const re = d[e];
			uint8_t *const hx[2] = { ra, rb }, *const hy[2] = { rc, re };
			uint8_t *const lx[2] = { ra, rc }, *const ly[2] = { rb, re };
			const uint16_t ls[2] = { s0, s1 };

			if (zero) {
				if (zero[a] && zero[b] && zero[c] && zero[e])
					continue;
				zero[a] = zero[b] = zero[c] = zero[e] = 0;
			}
			for (int i = 0; i < 4; i++, p++) {
				/* forward: the high layer's two ops first; inverse: the low layer's */
				const int hi = inverse ? i >= 2 : i < 2;

				l->x[p] = hi ? hx[i & 1] : lx[i & 1];
				l->y[p] = hi ? hy[i & 1] : ly[i & 1];
				l->c[p] = hi ? sh : ls[i & 1];
			}
		}
	}
	return run_ops(ops, (inverse ? GFEC_BFLY_INV : GFEC_BFLY_FWD) | GFEC_BFLY_GROUP4, p, len,
		       l->x, l->y, l->c);
}

/* The layers in pairs (layer2); an odd one out alone, first (forward) or last (inverse). */
static int transform(const struct gfec_fft16_ops *ops, struct lists *l, int inverse,
		     uint8_t *const *d, unsigned logn, unsigned beta, size_t len,
		     const struct skip *sk)
{
	const unsigned n = 1u << logn;
	int ret = 0;

	if (!inverse && logn % 2)
		ret = layer(ops, l, GFEC_BFLY_FWD, d, n, logn - 1, beta, len, sk);
	const unsigned even = logn - logn % 2;

	for (unsigned i = 0; i < even && !ret; i += 2) {
		const unsigned jl = inverse ? i : even - 2 - i;

		ret = layer2(ops, l, inverse, d, n, jl, beta, len, sk);
	}
	if (!ret && inverse && logn % 2)
		ret = layer(ops, l, GFEC_BFLY_INV, d, n, logn - 1, beta, len, sk);
	return ret;
}

static int transform_call(const struct gfec_fft16_ops *ops, int inverse, uint8_t *const *d,
			  unsigned logn, unsigned beta, size_t len)
{
	struct lists l;
	int ret;

	if (logn > 16 || !d || beta % (1u << logn) || beta + (1u << logn) > ORDER || len % 2)
		return GFEC_E_INVAL;
	gfec_fft16_init();
	ret = lists_init(&l, 1u << logn);
	if (!ret)
		ret = transform(ops, &l, inverse, d, logn, beta, len, NULL);
	ret = finish(ops, ret);
	lists_fini(&l);
	return ret;
}

int gfec_fft16_fft(const struct gfec_fft16_ops *ops, uint8_t *const *d, unsigned logn,
		   unsigned beta, size_t len)
{
	return transform_call(ops, 0, d, logn, beta, len);
}

int gfec_fft16_ifft(const struct gfec_fft16_ops *ops, uint8_t *const *d, unsigned logn,
		    unsigned beta, size_t len)
{
	return transform_call(ops, 1, d, logn, beta, len);
}

/* W_j(x) from its definition, the product over the first 2^j points. */
static uint16_t w_def(unsigned j, uint16_t x)
{
	uint16_t p = 1;

	for (unsigned t = 0; t < 1u << j; t++)
		p = gfec_gf16_mul(p, x ^ tab.point[t]);
	return p;
}

void gfec_fft16_eval_base(const uint16_t *coef, unsigned logn, unsigned beta, uint16_t *val)
{
	const unsigned n = 1u << logn;
	uint16_t norm[16], wx[16];

	gfec_fft16_init();
	for (unsigned j = 0; j < logn; j++)
		norm[j] = w_def(j, tab.point[1u << j]);
	for (unsigned u = 0; u < n; u++) {
		const uint16_t x = tab.point[beta + u];
		uint16_t f = 0;

		for (unsigned j = 0; j < logn; j++)
			wx[j] = gfec_gf16_div(w_def(j, x), norm[j]);
		for (unsigned i = 0; i < n; i++) {
			uint16_t xi = coef[i];

			for (unsigned j = 0; j < logn && xi; j++)
				if (i >> j & 1)
					xi = gfec_gf16_mul(xi, wx[j]);
			f ^= xi;
		}
		val[u] = f;
	}
}

/* --- the code ------------------------------------------------------------------------------- */

struct gfec_fft16_code {
	int k, m;
	int cosets;	   /* 1: coset layout */
	unsigned logm;	   /* M = 2^logm >= m */
	unsigned logn;	   /* N = 2^logn: the decoder's points */
	uint16_t *walsh;   /* FWHT_N of log(omega_u), u < N, mod 65535 */
	size_t work;	   /* bytes of work regions a call aims at */
};

static unsigned ceil_log2(uint32_t x)
{
	unsigned l = 0;

	while ((1u << l) < x)
		l++;
	return l;
}

static inline uint32_t add_mod(uint32_t a, uint32_t b)
{
	const uint32_t s = a + b;

	return s >= MODULUS ? s - MODULUS : s;
}

static inline uint32_t sub_mod(uint32_t a, uint32_t b)
{
	return add_mod(a, MODULUS - b);
}

/* The Walsh-Hadamard transform of a[0..n-1] mod 65535, unnormalised (applied twice: n a). */
static void fwht(uint32_t *a, unsigned n)
{
	for (unsigned h = 1; h < n; h <<= 1)
		for (unsigned r = 0; r < n; r += 2 * h)
			for (unsigned t = r; t < r + h; t++) {
				const uint32_t x = a[t], y = a[t + h];

				a[t] = add_mod(x, y);
				a[t + h] = sub_mod(x, y);
			}
}

int gfec_fft16_code_create(int k, int m, enum gfec_fft16_layout layout,
			   struct gfec_fft16_code **out)
{
	struct gfec_fft16_code *c;
	uint32_t *a;
	unsigned n;

	if (!out)
		return GFEC_E_INVAL;
	*out = NULL;
	if (k < 1 || m < 1 || (uint64_t)k + (uint64_t)m > ORDER ||
	    (layout != GFEC_FFT16_AUTO && layout != GFEC_FFT16_COSETS &&
	     layout != GFEC_FFT16_GENERAL) ||
	    (layout == GFEC_FFT16_COSETS && (1u << ceil_log2((uint32_t)m)) + (uint32_t)k > ORDER))
		return GFEC_E_INVAL;
	gfec_fft16_init();
	c = calloc(1, sizeof(*c));
	if (!c)
		return GFEC_E_NOMEM;
	c->k = k;
	c->m = m;
	c->work = WORK_BYTES;
	c->logm = ceil_log2((uint32_t)m);
	c->cosets = layout != GFEC_FFT16_GENERAL && (1u << c->logm) + (uint32_t)k <= ORDER;
	c->logn = ceil_log2(c->cosets ? (1u << c->logm) + (uint32_t)k : (uint32_t)(k + m));
	n = 1u << c->logn;
	c->walsh = malloc(sizeof(uint16_t) * n);
	a = malloc(sizeof(uint32_t) * n);
	if (!c->walsh || !a) {
		free(a);
		gfec_fft16_code_free(c);
		return GFEC_E_NOMEM;
	}
	a[0] = 0;
	for (unsigned u = 1; u < n; u++)
		a[u] = gfec_gf16_tab.log[tab.point[u]];
	fwht(a, n);
	for (unsigned u = 0; u < n; u++)
		c->walsh[u] = (uint16_t)a[u];
	free(a);
	*out = c;
	return 0;
}

void gfec_fft16_code_free(struct gfec_fft16_code *code)
{
	if (!code)
		return;
	free(code->walsh);
	free(code);
}

int gfec_fft16_code_cosets(const struct gfec_fft16_code *code)
{
	return code->cosets;
}

/* Point of chunk i (data 0..k-1, then parity). */
static unsigned chunk_point(const struct gfec_fft16_code *c, int i)
{
	if (i >= c->k)
		return (unsigned)(i - c->k);
	return (c->cosets ? 1u << c->logm : (unsigned)c->m) + (unsigned)i;
}

void gfec_fft16_code_set_work(struct gfec_fft16_code *code, size_t bytes)
{
	code->work = bytes ? bytes : WORK_BYTES;
}

static size_t slice_of(size_t work, size_t nreg, size_t len)
{
	size_t s = work / nreg / 64 * 64;

	if (s < SLICE_MIN)
		s = SLICE_MIN;
	return s < len ? s : len;
}

size_t gfec_fft16_slice(const struct gfec_fft16_code *code, size_t nreg, size_t len)
{
	return slice_of(code->work, nreg, len);
}

size_t gfec_fft16_slice_ops(const struct gfec_fft16_code *code, const struct gfec_fft16_ops *ops,
			    size_t nreg, size_t len)
{
	return slice_of(ops && ops->work ? ops->work : code->work, nreg, len);
}

/* The coset layout's encode (Leopard's schedule). */
static int encode_cosets(const struct gfec_fft16_code *c, const struct gfec_fft16_ops *ops,
			 size_t len, const uint8_t *const *data, uint8_t *const *parity)
{
	const unsigned M = 1u << c->logm;
	const unsigned groups = ((unsigned)c->k + M - 1) / M;
	const size_t nreg = groups > 1 ? 2 * (size_t)M : M;
	const size_t s = gfec_fft16_slice_ops(c, ops, nreg, len), pitch = work_pitch(s);
	uint8_t *buf = work_alloc(ops, nreg * pitch), **w = malloc(sizeof(*w) * nreg);
	uint8_t *zero = malloc(M), *need = malloc(M);
	const struct skip zs = { .zero = zero }, ns = { .need = need };
	struct lists l;
	int ret = lists_init(&l, M);

	if (!buf || !w || !zero || !need)
		ret = GFEC_E_NOMEM;
	for (unsigned i = 0; !ret && i < M; i++)
		need[i] = i < (unsigned)c->m;
	for (size_t i = 0; !ret && i < nreg; i++)
		w[i] = buf + i * pitch;
	for (size_t off = 0; !ret && off < len; off += s) {
		const size_t n = len - off < s ? len - off : s;
		int have = 0; /* w holds the sum of a group's IFFT */

		for (unsigned g = 0; !ret && g < groups; g++) {
			uint8_t **d = have ? w + M : w;
			unsigned nz = 0;

			for (unsigned t = 0; t < M; t++) {
				const size_t j = (size_t)g * M + t;

				zero[t] = j >= (size_t)c->k || !data[j];
				nz += !zero[t];
			}
			if (!nz) /* a group of zeros adds nothing */
				continue;
			/* the group into d (zeros: 0 * d), one list the backend may thread */
			for (unsigned t = 0; t < M; t++) {
				l.x[t] = d[t];
				l.y[t] = zero[t] ? d[t] : (uint8_t *)data[(size_t)g * M + t] + off;
				l.c[t] = !zero[t];
			}
			ret = run_ops(ops, GFEC_BFLY_MUL | GFEC_BFLY_DISJOINT, M, n, l.x, l.y, l.c);
			if (!ret)
				ret = transform(ops, &l, 1, d, c->logm, M * (g + 1), n, &zs);
			if (ret || !have++)
				continue;
			size_t p = 0;

			for (unsigned t = 0; t < M; t++) {
				if (zero[t])
					continue;
				l.x[p] = d[t];
				l.y[p] = w[t];
				l.c[p++] = 0;
			}
			ret = run_ops(ops, GFEC_BFLY_FWD | GFEC_BFLY_DISJOINT, p, n, l.x, l.y,
				      l.c); /* w ^= d */
		}
		if (!ret && have)
			ret = transform(ops, &l, 0, w, c->logm, 0, n, &ns);
		for (int i = 0; i < c->m; i++) { /* parity = w, or 0 * itself */
			l.x[i] = parity[i] + off;
			l.y[i] = have ? w[i] : parity[i] + off;
			l.c[i] = have ? 1 : 0;
		}
		if (!ret)
			ret = run_ops(ops, GFEC_BFLY_MUL | GFEC_BFLY_DISJOINT, (size_t)c->m, n, l.x,
				      l.y, l.c);
	}
	ret = finish(ops, ret);
	lists_fini(&l);
	free(need);
	free(zero);
	free(w);
	work_free(ops, buf);
	return ret;
}

/*
 * The formal derivative of the n = 2^logn coefficients in w[0..n-1], in place: coefficient i +
 * 2^b adds into i, for every clear bit b of i, the sums being of the coefficients as they were.
 * As one ordered list, Leopard's loop over i ascending (every read of a region comes before the
 * writes to it); or (sums, for ops that run unflagged lists slowly) as two GFEC_BFLY_SUMS lists,
 * the i of even popcount, then of odd: w[i] ^= the w[i | 2^b] of its clear bits, each a run.
 * Each list reads only regions of the other parity: the first reads the coefficients as they
 * were, the second the sums of the first at every i | 2^b of an i, which is the same, as each
 * such sum adds w[i | 2^b | 2^c] for c not in i | 2^b, and over the b those come in pairs ({b,
 * c} twice) and cancel. One pass per region written.
 */
static int derivative(const struct gfec_fft16_ops *ops, struct lists *l, uint8_t *const *w,
		      unsigned logn, int sums, size_t len)
{
	const unsigned n = 1u << logn;
	size_t nops = 0;
	int ret = 0;

	if (!sums) {
		for (unsigned i = 1; i < n; i++) {
			const unsigned wd = i & (0u - i);

			for (unsigned r = 0; r < wd; r++, nops++) {
				l->x[nops] = w[i + r];
				l->y[nops] = w[i - wd + r];
				l->c[nops] = 0;
			}
		}
		return run_ops(ops, GFEC_BFLY_FWD, nops, len, l->x, l->y, l->c);
	}
	for (unsigned par = 0; par < 2 && !ret; par++) {
		nops = 0;
		for (unsigned i = 0; i < n; i++) {
			if ((unsigned)__builtin_popcount(i) % 2 != par)
				continue;
			for (unsigned b = 0; b < logn; b++) {
				if (i >> b & 1)
					continue;
				l->x[nops] = w[i | 1u << b];
				l->y[nops] = w[i];
				l->c[nops++] = 0;
			}
		}
		ret = run_ops(ops, GFEC_BFLY_FWD | GFEC_BFLY_SUMS, nops, len, l->x, l->y, l->c);
	}
	return ret;
}

/* Point states for the decoder. */
enum { PT_HAVE, PT_ZERO, PT_LOST };

/*
 * The erasure decoder over the code's N points: src[x] for PT_HAVE points, dst[x] (may be
 * NULL) for PT_LOST ones.
 */
static int decode_points(const struct gfec_fft16_code *c, const struct gfec_fft16_ops *ops,
			 size_t len, const uint8_t *state, const uint8_t *const *src,
			 uint8_t *const *dst)
{
	const unsigned logn = c->logn, n = 1u << logn;
	const int sums = ops && ops->disjoint_only; /* the derivative as GFEC_BFLY_SUMS lists */
	const size_t s = gfec_fft16_slice_ops(c, ops, n, len), pitch = work_pitch(s);
	uint32_t *a = malloc(sizeof(uint32_t) * n);
	uint16_t *loc = malloc(sizeof(uint16_t) * n);
	uint8_t *buf = work_alloc(ops, (size_t)n * pitch), **w = malloc(sizeof(*w) * n);
	uint8_t *zero = malloc(n), *need = malloc(n);
	const struct skip zs = { .zero = zero }, ns = { .need = need };
	size_t nderiv = (size_t)n / 2 * logn, nops;
	struct lists l;
	int ret = lists_init(&l, nderiv > n ? nderiv : n);

	if (!a || !loc || !buf || !w || !zero || !need)
		ret = GFEC_E_NOMEM;
	if (ret)
		goto out;
	/* log L(x) (x kept) or log L'(x) (x lost), by a XOR convolution with the log table */
	for (unsigned x = 0; x < n; x++)
		a[x] = state[x] == PT_LOST;
	fwht(a, n);
	for (unsigned x = 0; x < n; x++)
		a[x] = (uint32_t)((uint64_t)a[x] * c->walsh[x] % MODULUS);
	fwht(a, n);
	for (unsigned x = 0; x < n; x++) /* / N: 2^16 = 1 mod 65535 */
		loc[x] = (uint16_t)((uint64_t)a[x] * (1u << (16 - logn)) % MODULUS);
	for (size_t x = 0; x < n; x++)
		w[x] = buf + x * pitch;
	for (unsigned x = 0; x < n; x++)
		need[x] = state[x] == PT_LOST && dst[x];

	for (size_t off = 0; !ret && off < len; off += s) {
		const size_t bytes = len - off < s ? len - off : s;

		for (unsigned x = 0; x < n; x++) { /* values * L; zeros as 0 * the region */
			zero[x] = state[x] != PT_HAVE;
			l.x[x] = w[x];
			l.y[x] = zero[x] ? w[x] : (uint8_t *)src[x] + off; /* MUL only reads y */
			l.c[x] = zero[x] ? 0 : gfec_gf16_tab.exp[loc[x]];
		}
		ret = run_ops(ops, GFEC_BFLY_MUL | GFEC_BFLY_DISJOINT, n, bytes, l.x, l.y, l.c);
		if (!ret)
			ret = transform(ops, &l, 1, w, logn, 0, bytes, &zs);
		if (ret)
			break;
		ret = derivative(ops, &l, w, logn, sums, bytes);
		if (!ret)
			ret = transform(ops, &l, 0, w, logn, 0, bytes, &ns);
		if (ret)
			break;
		nops = 0;
		for (unsigned x = 0; x < n; x++) {
			if (state[x] != PT_LOST || !dst[x])
				continue;
			l.x[nops] = dst[x] + off;
			l.y[nops] = w[x];
			l.c[nops++] = gfec_gf16_tab.exp[(MODULUS - loc[x]) % MODULUS];
		}
		ret = run_ops(ops, GFEC_BFLY_MUL | GFEC_BFLY_DISJOINT, nops, bytes, l.x, l.y, l.c);
	}
out:
	ret = finish(ops, ret);
	lists_fini(&l);
	free(need);
	free(zero);
	free(w);
	work_free(ops, buf);
	free(loc);
	free(a);
	return ret;
}

/*
 * The decoder's point states, sources and destinations for chunks[] (NULL: lost; with
 * @p zero_data, a NULL data chunk is zeros instead) and out[].
 */
static int decode_chunks(const struct gfec_fft16_code *c, const struct gfec_fft16_ops *ops,
			 size_t len, const uint8_t *const *chunks, uint8_t *const *out,
			 int zero_data)
{
	const unsigned n = 1u << c->logn, M = 1u << c->logm;
	uint8_t *state = malloc(n);
	const uint8_t **src = calloc(n, sizeof(*src));
	uint8_t **dst = calloc(n, sizeof(*dst));
	int ret = 0;

	if (!state || !src || !dst) {
		ret = GFEC_E_NOMEM;
		goto out;
	}
	for (unsigned x = 0; x < n; x++)
		state[x] = c->cosets && x >= M + (unsigned)c->k ? PT_ZERO : PT_LOST;
	for (int i = 0; i < c->k + c->m; i++) {
		const unsigned x = chunk_point(c, i);

		if (chunks[i]) {
			state[x] = PT_HAVE;
			src[x] = chunks[i];
		} else if (zero_data && i < c->k) {
			state[x] = PT_ZERO;
		} else {
			dst[x] = out[i];
		}
	}
	ret = decode_points(c, ops, len, state, src, dst);
out:
	free(dst);
	free(src);
	free(state);
	return ret;
}

int gfec_fft16_encode(const struct gfec_fft16_code *c, const struct gfec_fft16_ops *ops,
		      size_t len, const uint8_t *const *data, uint8_t *const *parity)
{
	const uint8_t **chunks;
	int ret;

	if (!c || !data || !parity || len % 2)
		return GFEC_E_INVAL;
	for (int i = 0; i < c->m; i++)
		if (!parity[i])
			return GFEC_E_INVAL;
	if (len == 0)
		return 0;
	if (c->cosets)
		return encode_cosets(c, ops, len, data, parity);
	chunks = calloc((size_t)c->k + c->m, sizeof(*chunks));
	if (!chunks)
		return GFEC_E_NOMEM;
	memcpy(chunks, data, sizeof(*chunks) * (size_t)c->k);
	/* the parity's slots of chunks stay NULL: lost, rebuilt into out = parity - k */
	{
		uint8_t **out = calloc((size_t)c->k + c->m, sizeof(*out));

		if (!out) {
			free(chunks);
			return GFEC_E_NOMEM;
		}
		memcpy(out + c->k, parity, sizeof(*out) * (size_t)c->m);
		ret = decode_chunks(c, ops, len, chunks, out, 1);
		free(out);
	}
	free(chunks);
	return ret;
}

int gfec_fft16_decode(const struct gfec_fft16_code *c, const struct gfec_fft16_ops *ops,
		      size_t len, const uint8_t *const *chunks, uint8_t *const *out)
{
	int lost = 0;

	if (!c || !chunks || !out || len % 2)
		return GFEC_E_INVAL;
	for (int i = 0; i < c->k + c->m; i++) {
		if (chunks[i] && out[i])
			return GFEC_E_INVAL;
		lost += !chunks[i];
	}
	if (lost > c->m)
		return GFEC_E_TOOFEW;
	if (lost == 0 || len == 0)
		return 0;
	return decode_chunks(c, ops, len, chunks, out, 0);
}

/* log of the product of (omega_x - omega_q) over q in pts[0..n-1], q != x; mod 65535 */
static uint32_t log_prod(unsigned x, const unsigned *pts, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		if (pts[i] != x)
			s += gfec_gf16_tab.log[tab.point[x ^ pts[i]]];
	return (uint32_t)(s % MODULUS);
}

int gfec_fft16_encode_base(const struct gfec_fft16_code *c, size_t len,
			   const uint8_t *const *data, uint8_t *const *parity)
{
	const unsigned M = 1u << c->logm, n = 1u << c->logn;
	/* the known points: data, and the coset layout's zeros up to N */
	const size_t nq = c->cosets ? n - M : (size_t)c->k;
	unsigned *q = malloc(sizeof(unsigned) * nq);
	uint32_t *lw = malloc(sizeof(uint32_t) * (size_t)c->k);

	if (!q || !lw) {
		free(q);
		free(lw);
		return GFEC_E_NOMEM;
	}
	for (size_t i = 0; i < nq; i++)
		q[i] = chunk_point(c, 0) + (unsigned)i;
	for (int j = 0; j < c->k; j++) /* 1 / prod (p_j - q) */
		lw[j] = log_prod(chunk_point(c, j), q, nq);
	for (int i = 0; i < c->m; i++) {
		const unsigned x = chunk_point(c, c->k + i);
		const uint32_t ll = log_prod(x, q, nq); /* L(x), x not among q */

		memset(parity[i], 0, len);
		for (int j = 0; j < c->k; j++) {
			if (!data[j]) /* zeros */
				continue;
			const unsigned p = chunk_point(c, j);
			const uint32_t e = (ll + 2 * MODULUS - lw[j] -
					    gfec_gf16_tab.log[tab.point[x ^ p]]) % MODULUS;

			gfec_gf16_region_mul(data[j], parity[i], len, gfec_gf16_tab.exp[e], 1);
		}
	}
	free(q);
	free(lw);
	return 0;
}
