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
#include "kernel_shape_check.h"

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

static void avx2_coefs(const uint8_t *a, size_t n, void *tbls)
{
	gfec_cpu_avx2_tables(a, n, tbls);
}

static void avx2_run(size_t len, int cols, int rows, const void *tbls, const uint8_t *const *src,
		     uint8_t *const *dst, int update)
{
	gfec_cpu_gemm_avx2(len, cols, rows, tbls, src, dst, update);
}

/* kernel_shape_check.h's random shapes; no non-temporal stores (avx2.c says why). */
static void test_shapes(void **state)
{
	static const struct kernel_check kc = { .name = "avx2", .coef_bytes = 32,
						.coefs = avx2_coefs, .run = avx2_run,
						.set = 0, .update = 1, .stream = -1 };

	(void)state;
	need_avx2();
	check_kernel_shapes(&kc);
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
