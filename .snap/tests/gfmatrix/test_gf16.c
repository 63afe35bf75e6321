/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_gf16.c
 * GF(2^16) (w = 16): the field against gf-complete's gf_init_easy(&gf, 16) and the table-free
 * reference, all 2^16 inverses, region multiply; the w = 16 matrix core (Jerasure's Vandermonde
 * coding matrix, the Cauchy generator, inversion, decode matrices) and parity byte-identical to
 * jerasure_matrix_encode(w = 16), with every or random erasure patterns decoded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gf_complete.h>
#include <jerasure.h>
#include <reed_sol.h>

#include "gf16.h"
#include "matrix.h"
#include "test_util.h"

static gf_t ref;

static uint16_t rnd16(void)
{
	return (uint16_t)test_rand();
}

static void test_known_values(void **state)
{
	(void)state;
	assert_int_equal(gfec_gf16_mul(2, 0x8000), 0x100B);
	assert_int_equal(gfec_gf16_mul(0x1234, 0x5678), 0x6324);
	assert_int_equal(gfec_gf16_mul_shift(2, 0x8000), 0x100B);
	assert_int_equal(gfec_gf16_mul_shift(0x1234, 0x5678), 0x6324);
}

static void test_mul_matches_gf_complete(void **state)
{
	(void)state;
	for (int a = 0; a < 65536; a += 257)
		for (int b = 0; b < 65536; b += 7) {
			uint16_t want = (uint16_t)ref.multiply.w32(&ref, (uint32_t)a, (uint32_t)b);

			assert_int_equal(gfec_gf16_mul((uint16_t)a, (uint16_t)b), want);
		}
	for (int i = 0; i < 300000; i++) {
		uint16_t a = rnd16(), b = rnd16();
		uint16_t want = (uint16_t)ref.multiply.w32(&ref, a, b);

		assert_int_equal(gfec_gf16_mul(a, b), want);
		assert_int_equal(gfec_gf16_mul_shift(a, b), want);
	}
}

static void test_inverses(void **state)
{
	(void)state;
	assert_int_equal(gfec_gf16_inv(0), 0);
	for (uint32_t a = 1; a < 65536; a++) {
		uint16_t x = gfec_gf16_inv((uint16_t)a);

		assert_int_equal(gfec_gf16_mul_shift((uint16_t)a, x), 1);
		assert_int_equal(x, ref.inverse.w32(&ref, a));
		assert_int_equal(gfec_gf16_div(1, (uint16_t)a), x);
		assert_int_equal(gfec_gf16_div((uint16_t)a, (uint16_t)a), 1);
		assert_int_equal(gfec_gf16_div(0, (uint16_t)a), 0);
	}
	/* 2 generates the multiplicative group: its 65535 powers are all distinct. */
	uint8_t *seen = calloc(65536, 1);

	assert_non_null(seen);
	for (int i = 0; i < 65535; i++) {
		assert_int_equal(seen[gfec_gf16_tab.exp[i]], 0);
		seen[gfec_gf16_tab.exp[i]] = 1;
		assert_int_equal(gfec_gf16_tab.exp[i + 65535], gfec_gf16_tab.exp[i]);
	}
	assert_int_equal(seen[0], 0);
	free(seen);
	assert_int_equal(gfec_gf16_pow(2, 65535), 1);
	assert_int_equal(gfec_gf16_pow(0, 0), 1);
}

static void test_axioms(void **state)
{
	(void)state;
	for (int i = 0; i < 50000; i++) {
		uint16_t a = rnd16(), b = rnd16(), c = rnd16();

		assert_int_equal(gfec_gf16_mul(a, b), gfec_gf16_mul(b, a));
		assert_int_equal(gfec_gf16_mul(gfec_gf16_mul(a, b), c),
				 gfec_gf16_mul(a, gfec_gf16_mul(b, c)));
		assert_int_equal(gfec_gf16_mul(a, b ^ c), gfec_gf16_mul(a, b) ^ gfec_gf16_mul(a, c));
		assert_int_equal(gfec_gf16_mul(a, 1), a);
		assert_int_equal(gfec_gf16_mul(a, 0), 0);
		if (b)
			assert_int_equal(gfec_gf16_mul(gfec_gf16_div(a, b), b), a);
	}
}

static void test_region_mul(void **state)
{
	const size_t len = 4096;
	/* gf-complete wants src and dst at one offset modulo 16. */
	uint8_t *src = aligned_alloc(64, len), *dst = aligned_alloc(64, len);
	uint8_t *want = aligned_alloc(64, len);

	(void)state;
	assert_non_null(src);
	assert_non_null(dst);
	assert_non_null(want);
	for (int t = 0; t < 200; t++) {
		uint16_t c = t < 2 ? (uint16_t)t : rnd16();
		size_t n = 2 * (size_t)test_range(0, (int)len / 2);
		int add = t & 1;

		test_fill(src, len);
		test_fill(dst, len);
		memcpy(want, dst, len);
		ref.multiply_region.w32(&ref, src, want, c, (int)n, add);
		gfec_gf16_region_mul(src, dst, n, c, add);
		assert_memory_equal(dst, want, len);
	}
	/* In place. */
	test_fill(src, len);
	memcpy(want, src, len);
	ref.multiply_region.w32(&ref, want, want, 0x1234, (int)len, 0);
	gfec_gf16_region_mul(src, src, len, 0x1234, 0);
	assert_memory_equal(src, want, len);
	free(src);
	free(dst);
	free(want);
}

/* Jerasure's coding matrix (ints) against ours (uint16_t). */
static void check_rs_van(int k, int m)
{
	uint16_t *g = malloc(sizeof(uint16_t) * (size_t)k * m);
	int *want = reed_sol_vandermonde_coding_matrix(k, m, 16);

	assert_non_null(g);
	assert_non_null(want);
	assert_int_equal(gfec_matrix_jerasure_rs_van_w(16, k, m, g), 0);
	for (size_t i = 0; i < (size_t)k * m; i++)
		assert_int_equal(g[i], want[i]);
	free(want);
	free(g);
}

static void test_rs_van_matches_jerasure(void **state)
{
	(void)state;
	for (int i = 0; i < 40; i++) {
		int k = test_range(1, 63);

		check_rs_van(k, test_range(1, 64 - k));
	}
	check_rs_van(1, 1);
	check_rs_van(250, 50);
}

/* n chunks of len bytes; chunk c is buf + c * len. len is a multiple of 16: gf-complete (under
 * jerasure_matrix_encode) wants its source and destination at one offset modulo 16. */
struct stripe {
	int k, m;
	size_t len;
	uint8_t *buf;
};

static uint8_t *chunk(const struct stripe *s, int c)
{
	return s->buf + (size_t)c * s->len;
}

/* dst = sum_j a[j] * src[j], symbol by symbol (little-endian 16-bit symbols). */
static void combine(const uint16_t *a, uint8_t *const *src, int n, uint8_t *dst, size_t len)
{
	memset(dst, 0, len);
	for (int j = 0; j < n; j++)
		for (size_t b = 0; b < len; b += 2) {
			uint16_t p = gfec_gf16_mul(a[j], (uint16_t)(src[j][b] | src[j][b + 1] << 8));

			dst[b] ^= (uint8_t)p;
			dst[b + 1] ^= (uint8_t)(p >> 8);
		}
}

/* Encodes with g through region multiplies and checks the parity against Jerasure's. */
static void encode_check(const struct stripe *s, const uint16_t *g)
{
	uint8_t **data = malloc(sizeof(uint8_t *) * (size_t)(s->k + s->m));
	uint8_t **jcode = malloc(sizeof(uint8_t *) * (size_t)s->m);
	int *jm = malloc(sizeof(int) * (size_t)s->k * s->m);
	uint8_t *jbuf = malloc((size_t)s->m * s->len);

	assert_non_null(data);
	assert_non_null(jcode);
	assert_non_null(jm);
	assert_non_null(jbuf);
	for (int c = 0; c < s->k + s->m; c++)
		data[c] = chunk(s, c);
	for (int i = 0; i < s->m; i++) {
		combine(g + (size_t)i * s->k, data, s->k, data[s->k + i], s->len);
		jcode[i] = jbuf + (size_t)i * s->len;
	}
	for (size_t i = 0; i < (size_t)s->k * s->m; i++)
		jm[i] = g[i];
	jerasure_matrix_encode(s->k, s->m, 16, jm, (char **)data, (char **)jcode, (int)s->len);
	assert_memory_equal(chunk(s, s->k), jbuf, (size_t)s->m * s->len);
	free(jbuf);
	free(jm);
	free(jcode);
	free(data);
}

/* Loses the chunks in lost[] (nlost <= m), rebuilds them from k survivors, compares. */
static void decode_check(const struct stripe *s, const uint16_t *g, const int *lost, int nlost)
{
	const int n = s->k + s->m;
	int *src = malloc(sizeof(int) * (size_t)s->k);
	uint8_t *gone = calloc((size_t)n, 1);
	uint16_t *d = malloc(sizeof(uint16_t) * (size_t)nlost * s->k);
	uint8_t **sp = malloc(sizeof(uint8_t *) * (size_t)s->k);
	uint8_t *out = malloc(s->len);
	int ns = 0;

	assert_non_null(src);
	assert_non_null(gone);
	assert_non_null(d);
	assert_non_null(sp);
	assert_non_null(out);
	for (int i = 0; i < nlost; i++)
		gone[lost[i]] = 1;
	/* Survivors from a random start, wrapping: parity sources in varied positions. */
	for (int c = test_range(0, n - 1), t = 0; t < n && ns < s->k; t++, c = (c + 1) % n)
		if (!gone[c])
			src[ns++] = c;
	assert_int_equal(ns, s->k);
	assert_int_equal(gfec_matrix_decode_w(16, g, s->k, s->m, src, lost, nlost, d), 0);
	for (int j = 0; j < s->k; j++)
		sp[j] = chunk(s, src[j]);
	for (int i = 0; i < nlost; i++) {
		combine(d + (size_t)i * s->k, sp, s->k, out, s->len);
		assert_memory_equal(out, chunk(s, lost[i]), s->len);
	}
	free(out);
	free(sp);
	free(d);
	free(gone);
	free(src);
}

static void stripe_make(struct stripe *s, int k, int m, size_t len, uint16_t **g, int cauchy)
{
	s->k = k;
	s->m = m;
	s->len = len;
	s->buf = malloc((size_t)(k + m) * len);
	*g = malloc(sizeof(uint16_t) * (size_t)k * m);
	assert_non_null(s->buf);
	assert_non_null(*g);
	test_fill(s->buf, (size_t)k * len);
	if (cauchy)
		assert_int_equal(gfec_matrix_cauchy_w(16, k, m, *g), 0);
	else
		assert_int_equal(gfec_matrix_jerasure_rs_van_w(16, k, m, *g), 0);
	encode_check(s, *g);
}

/* Random patterns of exactly m losses (or all of them for small codes). */
static void decode_shape(int k, int m, size_t len, int trials, int cauchy)
{
	struct stripe s;
	uint16_t *g;
	int *perm = malloc(sizeof(int) * (size_t)(k + m));

	assert_non_null(perm);
	stripe_make(&s, k, m, len, &g, cauchy);
	for (int t = 0; t < trials; t++) {
		for (int c = 0; c < k + m; c++)
			perm[c] = c;
		for (int c = 0; c < m; c++) {
			int r = test_range(c, k + m - 1), x = perm[c];

			perm[c] = perm[r];
			perm[r] = x;
		}
		decode_check(&s, g, perm, m);
	}
	free(perm);
	free(g);
	free(s.buf);
}

static void test_every_pattern_small(void **state)
{
	(void)state;
	for (int cauchy = 0; cauchy < 2; cauchy++)
		for (int k = 1; k <= 6; k++)
			for (int m = 1; m <= 4; m++) {
				struct stripe s;
				uint16_t *g;
				const int n = k + m;

				stripe_make(&s, k, m, 64, &g, cauchy);
				/* Every subset of at most m chunks. */
				for (unsigned mask = 1; mask < 1u << n; mask++) {
					int lost[16], nl = 0;

					if (__builtin_popcount(mask) > m)
						continue;
					for (int c = 0; c < n; c++)
						if (mask >> c & 1)
							lost[nl++] = c;
					decode_check(&s, g, lost, nl);
				}
				free(g);
				free(s.buf);
			}
}

static void test_random_encode_decode(void **state)
{
	(void)state;
	for (int i = 0; i < 30; i++) {
		int k = test_range(1, 63), m = test_range(1, 64 - k);

		decode_shape(k, m, 16 * (size_t)test_range(1, 40), 3, i & 1);
	}
}

static void test_large_shapes(void **state)
{
	(void)state;
	decode_shape(100, 20, 256, 5, 0);
	decode_shape(100, 20, 256, 5, 1);
	decode_shape(1000, 200, 16, 2, 1);
	decode_shape(10000, 100, 16, 1, 1);
}

/*
 * gfec_matrix_decode_w() (the backend's GEMM) and gfec_matrix_decode_w_threads() against
 * gfec_matrix_decode_w_base() (scalar log/exp) on one pattern: every chunk wanted (sources: a
 * unit row; lost data; lost parity, from the lost data's rows), poisoned outputs, byte for byte.
 */
static void decode_vs_base(const uint16_t *g, int k, int m, const uint8_t *gone, int threads)
{
	const int n = k + m;
	int *src = malloc(sizeof(int) * (size_t)k), *want = malloc(sizeof(int) * (size_t)n);
	uint16_t *d[3];
	int ns = 0, nw = 0;

	assert_non_null(src);
	assert_non_null(want);
	for (int c = test_range(0, n - 1), t = 0; t < n && ns < k; t++, c = (c + 1) % n)
		if (!gone[c])
			src[ns++] = c;
	assert_int_equal(ns, k);
	/* all lost chunks, then a random share of the rest, shuffled */
	for (int c = 0; c < n; c++)
		if (gone[c] || test_range(0, 3) == 0)
			want[nw++] = c;
	for (int i = nw - 1; i > 0; i--) {
		int r = test_range(0, i), x = want[i];

		want[i] = want[r];
		want[r] = x;
	}
	for (int v = 0; v < 3; v++) {
		d[v] = malloc(sizeof(uint16_t) * (size_t)nw * k);
		assert_non_null(d[v]);
		memset(d[v], 0xa5 + v, sizeof(uint16_t) * (size_t)nw * k);
	}
	assert_int_equal(gfec_matrix_decode_w_base(16, g, k, m, src, want, nw, d[0]), 0);
	assert_int_equal(gfec_matrix_decode_w(16, g, k, m, src, want, nw, d[1]), 0);
	assert_int_equal(gfec_matrix_decode_w_threads(16, g, k, m, src, want, nw, threads, d[2]), 0);
	assert_memory_equal(d[1], d[0], sizeof(uint16_t) * (size_t)nw * k);
	assert_memory_equal(d[2], d[0], sizeof(uint16_t) * (size_t)nw * k);
	for (int v = 0; v < 3; v++)
		free(d[v]);
	free(want);
	free(src);
}

/* Random patterns of exactly m losses, data and parity, as decode_shape() draws them. */
static void decode_vs_base_shape(int k, int m, int trials, int cauchy, int threads)
{
	uint16_t *g = malloc(sizeof(uint16_t) * (size_t)k * m);
	uint8_t *gone = malloc((size_t)(k + m));

	assert_non_null(g);
	assert_non_null(gone);
	if (cauchy)
		assert_int_equal(gfec_matrix_cauchy_w(16, k, m, g), 0);
	else
		assert_int_equal(gfec_matrix_jerasure_rs_van_w(16, k, m, g), 0);
	for (int t = 0; t < trials; t++) {
		int nl = 0;

		memset(gone, 0, (size_t)(k + m));
		/* t = 0: the first m data chunks (all-parity sources when m >= k) */
		while (nl < m) {
			int c = t ? test_range(0, k + m - 1) : nl;

			if (!gone[c]) {
				gone[c] = 1;
				nl++;
			}
		}
		decode_vs_base(g, k, m, gone, threads);
	}
	free(gone);
	free(g);
}

static void test_decode_matches_base(void **state)
{
	(void)state;
	/* small codes: every pattern of at most m losses */
	for (int cauchy = 0; cauchy < 2; cauchy++)
		for (int k = 1; k <= 6; k++)
			for (int m = 1; m <= 4; m++) {
				uint16_t g[6 * 4];
				uint8_t gone[10];

				if (cauchy)
					assert_int_equal(gfec_matrix_cauchy_w(16, k, m, g), 0);
				else
					assert_int_equal(gfec_matrix_jerasure_rs_van_w(16, k, m, g), 0);
				for (unsigned mask = 0; mask < 1u << (k + m); mask++) {
					if (__builtin_popcount(mask) > m)
						continue;
					for (int c = 0; c < k + m; c++)
						gone[c] = mask >> c & 1;
					decode_vs_base(g, k, m, gone, 2);
				}
			}
	for (int i = 0; i < 40; i++) {
		int k = test_range(1, 90), m = test_range(1, 100 - k);

		decode_vs_base_shape(k, m, 2, i & 1, test_range(1, 5));
	}
	/* e^2 k past MUL16_THREADED: the threaded product, tasks of unequal rows */
	decode_vs_base_shape(100, 20, 2, 0, 3);
	decode_vs_base_shape(100, 20, 2, 1, 3);
	decode_vs_base_shape(1000, 200, 1, 1, 3);
#ifdef NDEBUG /* the reference's e^2 k log/exp multiplies take half a minute in the sanitizer build */
	decode_vs_base_shape(300, 160, 1, 0, 3);
	decode_vs_base_shape(1000, 200, 1, 0, 2);
#endif
}

/* The Cauchy form's expansion (log domain) against r c / (x + y) by multiplies, zeros included. */
static void test_cauchy16_expand(void **state)
{
	enum { R = 37, C = 301 };
	uint16_t x[R], r[R], y[C], c[C], got[R * C];

	(void)state;
	for (int i = 0; i < R; i++)
		x[i] = rnd16(), r[i] = i % 7 ? rnd16() : 0;
	for (int j = 0; j < C; j++)
		y[j] = j % 11 ? rnd16() : x[j % R], c[j] = j % 13 ? rnd16() : 0;
	gfec_matrix_cauchy16_expand(R, C, x, r, y, c, got);
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			assert_int_equal(got[i * C + j],
					 gfec_gf16_mul(gfec_gf16_mul(r[i], c[j]),
						       gfec_gf16_inv((uint16_t)(x[i] ^ y[j]))));
}

static void test_singular_and_bad_input(void **state)
{
	uint16_t g[4 * 2], d[4 * 2];
	int src[4] = { 0, 1, 2, 2 }, want[2] = { 3, 5 };

	(void)state;
	assert_int_equal(gfec_matrix_cauchy_w(16, 4, 2, g), 0);
	/* A repeated source cannot span the code. */
	assert_int_equal(gfec_matrix_decode_w(16, g, 4, 2, src, want, 2, d), GFEC_E_SINGULAR);
	/* a singular block A (G all ones, both parities for two lost data chunks) */
	for (int i = 0; i < 8; i++)
		g[i] = 1;
	src[2] = 4;
	src[3] = 5;
	want[0] = 2;
	assert_int_equal(gfec_matrix_decode_w_base(16, g, 4, 2, src, want, 1, d), GFEC_E_SINGULAR);
	assert_int_equal(gfec_matrix_decode_w(16, g, 4, 2, src, want, 1, d), GFEC_E_SINGULAR);
	assert_int_equal(gfec_matrix_decode_w_threads(16, g, 4, 2, src, want, 1, 4, d),
			 GFEC_E_SINGULAR);
	assert_int_equal(gfec_matrix_shape_ok(16, 65535, 1), 1);
	assert_int_equal(gfec_matrix_shape_ok(16, 65536, 1), 0);
	assert_int_equal(gfec_matrix_shape_ok(16, 32768, 32769), 0);
	assert_int_equal(gfec_matrix_shape_ok(8, 200, 57), 0);
	assert_int_equal(gfec_matrix_shape_ok(12, 4, 2), 0);
	assert_int_equal(gfec_matrix_cauchy_w(16, 65536, 1, g), GFEC_E_INVAL);
	assert_int_equal(gfec_matrix_cauchy_w(12, 4, 2, g), GFEC_E_INVAL);
	assert_int_equal(gfec_matrix_jerasure_rs_van_w(16, 0, 2, g), GFEC_E_INVAL);
	assert_int_equal(gfec_matrix_invert_w(12, g, d, 2), GFEC_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_mul_matches_gf_complete),
		cmocka_unit_test(test_inverses),
		cmocka_unit_test(test_axioms),
		cmocka_unit_test(test_region_mul),
		cmocka_unit_test(test_rs_van_matches_jerasure),
		cmocka_unit_test(test_every_pattern_small),
		cmocka_unit_test(test_random_encode_decode),
		cmocka_unit_test(test_large_shapes),
		cmocka_unit_test(test_decode_matches_base),
		cmocka_unit_test(test_cauchy16_expand),
		cmocka_unit_test(test_singular_and_bad_input),
	};

	test_seed();
	gfec_gf16_init();
	if (!gf_init_easy(&ref, 16))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
