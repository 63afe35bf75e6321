/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_avx2.c
 * gfec's AVX2 kernel (cpu_backend/avx2.c) must give ISA-L's bytes. Its tables are checked against
 * ec_init_tables() for every coefficient; the kernel against ISA-L's ec_encode_data and the
 * plain-C encoder (random shapes with k + m <= 256, lengths 0 to 8 MiB, unaligned, poisoned
 * outputs with guard bytes), as an update (equal to a re-encode), and behind the backend table
 * (path avx2, on 1 and 3 threads, cpu_stream_min on and off: it must not reach this kernel).
 * Skipped on a CPU without AVX2.
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

static void need_avx2(void)
{
	if (!gfec_cpu_avx2_supported()) {
		fprintf(stderr, "# avx2: this CPU lacks it\n");
		skip();
	}
}

/* Same bytes as ec_init_tables, for every coefficient and for a random matrix. */
static void test_tables(void **state)
{
	uint8_t a[256], ours[32 * 256], isal[32 * 256];

	(void)state;
	for (int c = 0; c < 256; c++)
		a[c] = (uint8_t)c;
	gfec_cpu_avx2_tables(a, 256, ours);
	ec_init_tables(256, 1, a, isal);
	assert_memory_equal(ours, isal, sizeof(ours));
	test_fill(a, 7 * 9);
	gfec_cpu_avx2_tables(a, 7 * 9, ours);
	ec_init_tables(9, 7, a, isal);
	assert_memory_equal(ours, isal, 32 * 7 * 9);
}

/* Every product: one row, one column, 256 source bytes (then 255: the tail path). */
static void test_products(void **state)
{
	uint8_t x[256], out[256], tbl[32];
	const uint8_t *src = x;
	uint8_t *dst = out;

	(void)state;
	need_avx2();
	for (int i = 0; i < 256; i++)
		x[i] = (uint8_t)i;
	for (int c = 0; c < 256; c++) {
		const uint8_t a = (uint8_t)c;

		gfec_cpu_avx2_tables(&a, 1, tbl);
		for (size_t len = 255; len <= 256; len++) {
			memset(out, TEST_POISON, sizeof(out));
			gfec_cpu_gemm_avx2(len, 1, 1, tbl, &src, &dst, 0);
			for (size_t i = 0; i < len; i++)
				if (out[i] != gf_mul((unsigned char)c, (unsigned char)i))
					fail_msg("avx2: %d * %zu = %d", c, i, out[i]);
			if (len < 256 && out[len] != TEST_POISON)
				fail_msg("avx2: a write past %zu bytes", len);
		}
	}
}

/* A buffer of len bytes at a random offset from 64-byte alignment, GUARD poisoned bytes around. */
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

static void guards_intact(const struct gbuf *g, size_t len)
{
	for (int i = 0; i < GUARD; i++)
		if (g->p[-1 - i] != TEST_POISON || g->p[len + (size_t)i] != TEST_POISON)
			fail_msg("avx2: a write outside the %zu-byte buffer", len);
}

/*
 * One shape: parity from the kernel against ISA-L (and the plain-C encoder when that is quick),
 * then an update of one source: parity ^= A[:,c] * (old ^ new) must equal a re-encode.
 */
static void check_shape(int k, int m, size_t len)
{
	uint8_t *a = malloc((size_t)k * m), *tbls = malloc((size_t)32 * k * m), col[32 * 256];
	struct gbuf *sb = calloc((size_t)k + 1, sizeof(*sb)), *pb = calloc((size_t)m, sizeof(*pb));
	struct test_buf *rb = calloc((size_t)m, sizeof(*rb));
	uint8_t **src = calloc((size_t)k + 1, sizeof(*src)), **par = calloc((size_t)m, sizeof(*par));
	uint8_t **ref = calloc((size_t)m, sizeof(*ref));
	const int c = test_range(0, k - 1);
	uint8_t *delta;

	assert_non_null(a);
	assert_non_null(tbls);
	test_fill(a, (size_t)k * m);
	for (int i = 0; i < k * m && i < 3; i++)
		a[test_range(0, k * m - 1)] = (uint8_t)(i == 0 ? 0 : i == 1 ? 1 : 0xff);
	gfec_cpu_avx2_tables(a, (size_t)k * m, tbls);
	for (int j = 0; j <= k; j++)
		test_fill(gbuf_alloc(&sb[j], len), len);
	for (int j = 0; j < k; j++)
		src[j] = sb[j].p;
	for (int i = 0; i < m; i++) {
		par[i] = gbuf_alloc(&pb[i], len);
		ref[i] = tbuf_alloc(&rb[i], len, 0);
	}

	gfec_cpu_gemm_avx2(len, k, m, tbls, (const uint8_t *const *)src, par, 0);
	if (len)
		ec_encode_data((int)len, k, m, tbls, src, ref);
	for (int i = 0; i < m; i++) {
		if (memcmp(par[i], ref[i], len))
			fail_msg("avx2: RS(%d,%d) len %zu: parity %d differs from ISA-L", k, m, len,
				 i);
		guards_intact(&pb[i], len);
	}
	if (len * (size_t)k * (size_t)m <= (4u << 20)) {
		gfec_cpu_gemm_base(len, k, m, a, (const uint8_t *const *)src, ref);
		for (int i = 0; i < m; i++)
			if (memcmp(par[i], ref[i], len))
				fail_msg("avx2: RS(%d,%d) len %zu: parity %d differs from _base", k, m,
					 len, i);
	}

	/* Source c becomes sb[k]: the update takes old ^ new, which sb[k] now holds. */
	delta = sb[k].p;
	src[c] = malloc(len + 1);
	assert_non_null(src[c]);
	for (size_t b = 0; b < len; b++)
		src[c][b] = sb[c].p[b] ^ delta[b];
	for (int i = 0; i < m; i++)
		memcpy(col + 32 * i, tbls + 32 * ((size_t)i * k + c), 32);
	gfec_cpu_gemm_avx2(len, 1, m, col, (const uint8_t *const *)&delta, par, 1);
	if (len)
		ec_encode_data((int)len, k, m, tbls, src, ref);
	for (int i = 0; i < m; i++) {
		if (memcmp(par[i], ref[i], len))
			fail_msg("avx2: RS(%d,%d) len %zu: update of source %d, parity %d differs", k,
				 m, len, c, i);
		guards_intact(&pb[i], len);
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
}

static void test_shapes(void **state)
{
	static const int big[][2] = { { 10, 4 }, { 4, 2 }, { 8, 3 }, { 1, 7 } };

	(void)state;
	need_avx2();
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
		check_shape(k, m, len);
	}
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		check_shape(big[i][0], big[i][1], (8u << 20) - (i % 2) * (size_t)test_range(1, 127));
	check_shape(128, 128, 4096);
	check_shape(223, 32, 4096 + 3);
}

/*
 * Behind the backend table, on 1 and 3 threads, cpu_stream_min 1 and 0 (the AVX2 path stores
 * ordinarily either way): the plan's tables, slices and update route (outputs aligned or not).
 */
static void test_backend(void **state)
{
	(void)state;
	need_avx2();
	check_backend_path("avx2");
}

/* The name parses; a CPU without AVX2 refuses the forced path. */
static void test_path(void **state)
{
	const struct gfec_backend_ops *ops = gfec_cpu_backend();
	struct gfec_backend_conf conf = { .threads = 1, .path = "avx2" };
	enum gfec_cpu_path p;
	void *ctx;

	(void)state;
	assert_int_equal(gfec_cpu_path_parse("avx2", &p), 0);
	assert_int_equal(p, GFEC_CPU_AVX2);
	assert_string_equal(gfec_cpu_path_name(GFEC_CPU_AVX2), "avx2");
	if (gfec_cpu_avx2_supported()) {
		assert_int_equal(ops->init(&conf, &ctx), 0);
		ops->fini(ctx);
	} else {
		assert_int_equal(ops->init(&conf, &ctx), GFEC_E_NOTSUP);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),	cmocka_unit_test(test_products),
		cmocka_unit_test(test_shapes),	cmocka_unit_test(test_backend),
		cmocka_unit_test(test_path),
	};

	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
