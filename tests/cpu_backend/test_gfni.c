/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_gfni.c
 * The GFNI kernels (cpu_backend/gfni.c) must give ISA-L's bytes. The affine matrix builder is
 * checked everywhere against a software GF2P8AFFINEQB written from Intel's pseudo-code; each
 * kernel the CPU has is then checked against ISA-L's ec_encode_data and the plain-C encoder
 * (random shapes with k + m <= 256, lengths 0 to 8 MiB, unaligned, poisoned outputs with guard
 * bytes), as an update, with non-temporal stores (aligned outputs), and behind the backend
 * table (cpu_stream_min on and off). A kernel the CPU lacks is skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <isa-l/erasure_code.h>

#include "cpu_backend.h"
#include "gfec/gfec_errors.h"
#include "test_util.h"
#include "backend_path_check.h"

#define GUARD 64

typedef void (*kernel_fn)(size_t len, int cols, int rows, const uint64_t *mat,
			  const uint8_t *const *src, uint8_t *const *dst, int mode);

struct variant {
	const char *name;
	enum gfec_cpu_path path;
	int bits;
	kernel_fn fn;
};

static const struct variant variants[] = {
	{ "gfni512", GFEC_CPU_GFNI512, 512, gfec_cpu_gemm_gfni512 },
	{ "gfni256", GFEC_CPU_GFNI256, 256, gfec_cpu_gemm_gfni256 },
};

/* GF2P8AFFINEQB on one byte, as Intel's pseudo-code states it: bit i = parity(A.byte[7-i] & x). */
static uint8_t affine_sw(uint64_t a, uint8_t x)
{
	uint8_t r = 0;

	for (int i = 0; i < 8; i++)
		r |= (uint8_t)(__builtin_parity((unsigned)((a >> (8 * (7 - i))) & 0xff & x)) << i);
	return r;
}

static void test_matrix_all_products(void **state)
{
	(void)state;
	for (int c = 0; c < 256; c++) {
		const uint64_t a = gfec_cpu_gfni_matrix((uint8_t)c);

		for (int x = 0; x < 256; x++)
			if (affine_sw(a, (uint8_t)x) != gf_mul((unsigned char)c, (unsigned char)x))
				fail_msg("matrix of %d applied to %d", c, x);
	}
}

static const struct variant *need(int i)
{
	if (!gfec_cpu_gfni_supported(variants[i].bits)) {
		fprintf(stderr, "# %s: this CPU lacks it\n", variants[i].name);
		skip();
	}
	return &variants[i];
}

/* The instruction itself on all 256 x 256 products: one row, one column, 256 source bytes. */
static void all_products(int vi)
{
	const struct variant *v = need(vi);
	uint8_t x[256], out[256];
	const uint8_t *src = x;
	uint8_t *dst = out;

	for (int i = 0; i < 256; i++)
		x[i] = (uint8_t)i;
	for (int c = 0; c < 256; c++) {
		const uint64_t a = gfec_cpu_gfni_matrix((uint8_t)c);

		v->fn(sizeof(x), 1, 1, &a, &src, &dst, GFEC_GFNI_SET);
		for (int i = 0; i < 256; i++)
			if (out[i] != gf_mul((unsigned char)c, (unsigned char)i))
				fail_msg("%s: %d * %d = %d", v->name, c, i, out[i]);
	}
}

static void test_products_512(void **state)
{
	(void)state;
	all_products(0);
}

static void test_products_256(void **state)
{
	(void)state;
	all_products(1);
}

/* A buffer of len bytes at a random offset from 64-byte alignment, GUARD poisoned bytes each side. */
struct gbuf {
	struct test_buf b;
	uint8_t *p;
};

static uint8_t *gbuf_alloc_at(struct gbuf *g, size_t len, unsigned misalign)
{
	g->p = tbuf_alloc(&g->b, len + 2 * GUARD, misalign) + GUARD;
	memset(g->p - GUARD, TEST_POISON, len + 2 * GUARD);
	return g->p;
}

static uint8_t *gbuf_alloc(struct gbuf *g, size_t len)
{
	return gbuf_alloc_at(g, len, (unsigned)test_range(0, 63));
}

static void guards_intact(const struct gbuf *g, size_t len, const char *what)
{
	for (int i = 0; i < GUARD; i++)
		if (g->p[-1 - i] != TEST_POISON || g->p[len + (size_t)i] != TEST_POISON)
			fail_msg("%s: a write outside the %zu-byte buffer", what, len);
}

/* GFEC_GFNI_STREAM into 64-byte aligned, poisoned outputs must give @p ref's bytes. */
static void check_stream(const struct variant *v, int k, int m, size_t len, const uint64_t *mat,
			 uint8_t *const *src, uint8_t *const *ref)
{
	struct gbuf *nb = calloc((size_t)m, sizeof(*nb));
	uint8_t **nt = calloc((size_t)m, sizeof(*nt));

	assert_non_null(nb);
	assert_non_null(nt);
	for (int i = 0; i < m; i++)
		nt[i] = gbuf_alloc_at(&nb[i], len, 0); /* GUARD is 64: aligned */
	v->fn(len, k, m, mat, (const uint8_t *const *)src, nt, GFEC_GFNI_STREAM);
	for (int i = 0; i < m; i++) {
		if (memcmp(nt[i], ref[i], len))
			fail_msg("%s: RS(%d,%d) len %zu: parity %d by non-temporal stores differs",
				 v->name, k, m, len, i);
		guards_intact(&nb[i], len, v->name);
		tbuf_free(&nb[i].b);
	}
	free(nb);
	free(nt);
}

/*
 * One shape: parity from the kernel against ISA-L (and the plain-C encoder when that is quick),
 * by normal and by non-temporal stores, then an update of one source: parity ^= A[:,c] *
 * (old ^ new) must equal a re-encode.
 */
static void check_shape(const struct variant *v, int k, int m, size_t len)
{
	uint8_t *a = malloc((size_t)k * m), *tbls = malloc((size_t)32 * k * m);
	uint64_t *mat = malloc(sizeof(*mat) * (size_t)k * m), col[256];
	struct gbuf *sb = calloc((size_t)k + 1, sizeof(*sb)), *pb = calloc((size_t)m, sizeof(*pb));
	struct test_buf *rb = calloc((size_t)m, sizeof(*rb));
	uint8_t **src = calloc((size_t)k + 1, sizeof(*src)), **par = calloc((size_t)m, sizeof(*par));
	uint8_t **ref = calloc((size_t)m, sizeof(*ref));
	const int c = test_range(0, k - 1);
	uint8_t *delta;

	assert_non_null(a);
	assert_non_null(tbls);
	assert_non_null(mat);
	test_fill(a, (size_t)k * m);
	for (int i = 0; i < k * m && i < 3; i++)
		a[test_range(0, k * m - 1)] = (uint8_t)(i == 0 ? 0 : i == 1 ? 1 : 0xff);
	gfec_cpu_gfni_matrices(a, (size_t)k * m, mat);
	ec_init_tables(k, m, a, tbls);
	for (int j = 0; j <= k; j++)
		test_fill(gbuf_alloc(&sb[j], len), len);
	for (int j = 0; j < k; j++)
		src[j] = sb[j].p;
	for (int i = 0; i < m; i++) {
		par[i] = gbuf_alloc(&pb[i], len);
		ref[i] = tbuf_alloc(&rb[i], len, 0);
	}

	v->fn(len, k, m, mat, (const uint8_t *const *)src, par, GFEC_GFNI_SET);
	if (len)
		ec_encode_data((int)len, k, m, tbls, src, ref);
	for (int i = 0; i < m; i++) {
		if (memcmp(par[i], ref[i], len))
			fail_msg("%s: RS(%d,%d) len %zu: parity %d differs from ISA-L", v->name, k, m,
				 len, i);
		guards_intact(&pb[i], len, v->name);
	}
	check_stream(v, k, m, len, mat, src, ref);
	if (len * (size_t)k * (size_t)m <= (4u << 20)) {
		gfec_cpu_gemm_base(len, k, m, a, (const uint8_t *const *)src, ref);
		for (int i = 0; i < m; i++)
			if (memcmp(par[i], ref[i], len))
				fail_msg("%s: RS(%d,%d) len %zu: parity %d differs from _base", v->name,
					 k, m, len, i);
	}

	/* Source c becomes sb[k]: the update takes old ^ new, which sb[k] now holds. */
	delta = sb[k].p;
	src[c] = malloc(len + 1);
	assert_non_null(src[c]);
	for (size_t b = 0; b < len; b++)
		src[c][b] = sb[c].p[b] ^ delta[b];
	for (int i = 0; i < m; i++)
		col[i] = mat[(size_t)i * k + c];
	v->fn(len, 1, m, col, (const uint8_t *const *)&delta, par, GFEC_GFNI_UPDATE);
	if (len)
		ec_encode_data((int)len, k, m, tbls, src, ref);
	for (int i = 0; i < m; i++) {
		if (memcmp(par[i], ref[i], len))
			fail_msg("%s: RS(%d,%d) len %zu: update of source %d, parity %d differs", v->name,
				 k, m, len, c, i);
		guards_intact(&pb[i], len, v->name);
	}

	free(src[c]);
	for (int j = 0; j <= k; j++)
		tbuf_free(&sb[j].b);
	for (int i = 0; i < m; i++) {
		tbuf_free(&pb[i].b);
		tbuf_free(&rb[i]);
	}
	free(sb);
	free(pb);
	free(rb);
	free(src);
	free(par);
	free(ref);
	free(a);
	free(tbls);
	free(mat);
}

static void random_shapes(int vi)
{
	const struct variant *v = need(vi);
	static const int big[][2] = { { 10, 4 }, { 4, 2 }, { 8, 3 }, { 1, 7 } };

	for (int t = 0; t < 400; t++) {
		int k, m;
		size_t len;

		if (t % 2) { /* small and odd lengths, every group size and tail */
			k = test_range(1, 20);
			m = test_range(1, 20);
			len = (size_t)test_range(0, 700);
		} else if (t % 10) { /* medium, any shape the field allows */
			k = test_range(1, 255);
			m = test_range(1, 256 - k);
			len = (size_t)test_rand() % (200000 / (size_t)(k * m) + 2);
		} else {
			k = test_range(1, 40);
			m = test_range(1, 16);
			len = (size_t)test_range(1, 70000);
		}
		check_shape(v, k, m, len);
	}
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		check_shape(v, big[i][0], big[i][1], (8u << 20) - (i % 2) * (size_t)test_range(1, 127));
	check_shape(v, 128, 128, 4096);
	check_shape(v, 223, 32, 4096 + 3);
}

static void test_shapes_512(void **state)
{
	(void)state;
	random_shapes(0);
}

static void test_shapes_256(void **state)
{
	(void)state;
	random_shapes(1);
}

/* Behind the backend table (backend_path_check.h). */
static void backend(int vi)
{
	check_backend_path(need(vi)->name);
}

static void test_backend_512(void **state)
{
	(void)state;
	backend(0);
}

static void test_backend_256(void **state)
{
	(void)state;
	backend(1);
}

/* auto takes the best kernel the CPU has; a forced one it lacks is refused, not emulated. */
static void test_dispatch(void **state)
{
	const struct gfec_backend_ops *ops = gfec_cpu_backend();
	const char *best = gfec_cpu_gfni_supported(512)	       ? "gfni512"
			   : gfec_cpu_gfni_supported(256)      ? "gfni256"
			   : __builtin_cpu_supports("avx512bw") ? "isal"
			   : gfec_cpu_avx2_supported()	       ? "avx2"
							       : "isal";
	enum gfec_cpu_path p;
	void *ctx;

	(void)state;
	assert_string_equal(gfec_cpu_path_name(gfec_cpu_path_best()), best);
	for (const char *const *n = (const char *const[]){ "", "auto", NULL }; *n; n++) {
		struct gfec_backend_conf conf = { .threads = 1, .path = *n };

		assert_int_equal(ops->init(&conf, &ctx), 0);
		assert_string_equal(ops->path_name(ctx), best);
		ops->fini(ctx);
	}
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		struct gfec_backend_conf conf = { .threads = 1, .path = variants[i].name };

		assert_int_equal(gfec_cpu_path_parse(variants[i].name, &p), 0);
		assert_int_equal(p, variants[i].path);
		if (gfec_cpu_gfni_supported(variants[i].bits)) {
			assert_int_equal(ops->init(&conf, &ctx), 0);
			ops->fini(ctx);
		} else {
			assert_int_equal(ops->init(&conf, &ctx), GFEC_E_NOTSUP);
		}
	}
	assert_int_equal(gfec_cpu_path_parse("gfni", &p), GFEC_E_INVAL);
	assert_int_equal(gfec_cpu_path_parse("GFNI512", &p), GFEC_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix_all_products),
		cmocka_unit_test(test_products_512),
		cmocka_unit_test(test_products_256),
		cmocka_unit_test(test_shapes_512),
		cmocka_unit_test(test_shapes_256),
		cmocka_unit_test(test_backend_512),
		cmocka_unit_test(test_backend_256),
		cmocka_unit_test(test_dispatch),
	};

	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
