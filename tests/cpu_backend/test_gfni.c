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
#include "kernel_shape_check.h"

/* through gfec_cpu_gfni_apply(): mode with GFEC_GFNI_PREFETCH runs the kernel that prefetches */
static void run512(size_t len, int cols, int rows, const void *mat, const uint8_t *const *src,
		   uint8_t *const *dst, int mode)
{
	gfec_cpu_gfni_apply(GFEC_CPU_GFNI512, len, cols, rows, mat, -1, mode, src, dst);
}

static void run256(size_t len, int cols, int rows, const void *mat, const uint8_t *const *src,
		   uint8_t *const *dst, int mode)
{
	gfec_cpu_gfni_apply(GFEC_CPU_GFNI256, len, cols, rows, mat, -1, mode, src, dst);
}

struct variant {
	const char *name;
	enum gfec_cpu_path path;
	int bits;
	kernel_run fn;
};

static const struct variant variants[] = {
	{ "gfni512", GFEC_CPU_GFNI512, 512, run512 },
	{ "gfni256", GFEC_CPU_GFNI256, 256, run256 },
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

static void gfni_coefs(const uint8_t *a, size_t n, void *mat)
{
	gfec_cpu_gfni_matrices(a, n, mat);
}

/*
 * kernel_shape_check.h's random shapes, by normal and by non-temporal stores, with and without
 * the sources prefetched (whichever gfec_cpu_gfni_prefetch() picks here, the other runs too).
 */
static void random_shapes(int vi)
{
	const struct variant *v = need(vi);
	struct kernel_check kc = {
	    .name = v->name, .coef_bytes = sizeof(uint64_t), .coefs = gfni_coefs, .run = v->fn};

	for (int pf = 0; pf <= GFEC_GFNI_PREFETCH; pf += GFEC_GFNI_PREFETCH) {
		kc.set = GFEC_GFNI_SET | pf;
		kc.update = GFEC_GFNI_UPDATE | pf;
		kc.stream = GFEC_GFNI_STREAM | pf;
		check_kernel_shapes(&kc);
	}
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
	/* cpu_stream_min: a number is itself; auto is 64 KiB on Intel, 4 MiB on AMD, else never */
	assert_int_equal(gfec_cpu_stream_min(0), 0);
	assert_int_equal(gfec_cpu_stream_min(4096), 4096);
	assert_int_equal(gfec_cpu_stream_min(GFEC_STREAM_MIN_AUTO),
			 __builtin_cpu_is("intel") ? 65536 : __builtin_cpu_is("amd") ? 4 << 20 : 0);
	/* prefetching: not by non-temporal stores on AMD, else always */
	for (int mode = GFEC_GFNI_SET; mode <= GFEC_GFNI_STREAM; mode++)
		assert_int_equal(gfec_cpu_gfni_prefetch(mode),
				 __builtin_cpu_is("amd") && mode == GFEC_GFNI_STREAM
				     ? mode
				     : mode | GFEC_GFNI_PREFETCH);
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
