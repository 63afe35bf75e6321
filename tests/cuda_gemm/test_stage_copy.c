/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_stage_copy.c
 * The GPU backend's staging copies without a GPU (issue 17): cuda_gemm/device/stage_copy.c, each
 * way this CPU has (a way it lacks is reported skipped), against the bytes themselves: random
 * counts of chunks, lengths from 0 to past several blocks (every length around a block's end),
 * sources and outputs at every offset from a 64-byte boundary, by ordinary and non-temporal
 * stores, the outputs poisoned with guard bytes on both sides; and a stripe through a stage as
 * gfec-perf times it (gfec_stage_stripe).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "stage_copy.h"
#include "test_util.h"

#define MAXN 40
#define GUARD 64
#define POISON 0xa7

/* One copy of @p n chunks of @p len bytes by @p path: -1 where the CPU lacks it, else 0. */
static int check_once(enum gfec_stage_path path, int n, size_t len, int stream)
{
	struct test_buf sb[MAXN], db[MAXN];
	const uint8_t *src[MAXN];
	uint8_t *dst[MAXN];
	int ret;

	for (int i = 0; i < n; i++) {
		uint8_t *s = tbuf_alloc(&sb[i], len, (unsigned)test_range(0, 63));
		uint8_t *d = tbuf_alloc(&db[i], len + 2 * GUARD, (unsigned)test_range(0, 63));

		test_fill(s, len);
		memset(d, POISON, len + 2 * GUARD);
		src[i] = s;
		dst[i] = d + GUARD;
	}
	ret = gfec_stage_copy_path(path, dst, src, n, len, stream);
	for (int i = 0; i < n; i++) {
		if (ret == 0) {
			for (size_t g = 0; g < GUARD; g++) {
				assert_int_equal(dst[i][-1 - (ptrdiff_t)g], POISON);
				assert_int_equal(dst[i][len + g], POISON);
			}
			assert_memory_equal(dst[i], src[i], len);
		}
		tbuf_free(&sb[i]);
		tbuf_free(&db[i]);
	}
	return ret;
}

static void check_path(enum gfec_stage_path path, const char *name)
{
	static const size_t edges[] = {0,    1,	   15,	 16,	    63,	   64,
				       255,  256,  257,	 511,	    512,   513,
				       1023, 1024, 1025, 4096 + 17, 65536, 65536 + 255};

	test_seed();
	if (check_once(path, 1, 256, 0) < 0) {
		fprintf(stderr, "# %s: this CPU or build lacks it\n", name);
		skip();
	}
	for (size_t e = 0; e < sizeof(edges) / sizeof(edges[0]); e++)
		for (int stream = 0; stream < 2; stream++)
			assert_int_equal(check_once(path, test_range(1, 16), edges[e], stream), 0);
	for (int t = 0; t < 300; t++) {
		const size_t len = (size_t)test_range(0, t % 10 ? 8192 : 300000);

		assert_int_equal(check_once(path, test_range(1, MAXN), len, t & 1), 0);
	}
}

static void test_memcpy(void **state)
{
	(void)state;
	check_path(GFEC_STAGE_MEMCPY, "memcpy");
}

static void test_sse2(void **state)
{
	(void)state;
	check_path(GFEC_STAGE_SSE2, "sse2");
}

static void test_avx512(void **state)
{
	(void)state;
	check_path(GFEC_STAGE_AVX512, "avx512");
}

static void test_auto(void **state)
{
	(void)state;
	check_path(GFEC_STAGE_AUTO, "auto");
}

/*
 * A stripe through a stage (gfec_stage_stripe, as gfec-perf times it): the stage ends with the
 * last piece of every source at its place, and each output piece is the stage's output region,
 * for stripes of one piece and of several, every way the CPU has.
 */
static void test_stripe(void **state)
{
	static const enum gfec_stage_path paths[] = {GFEC_STAGE_MEMCPY, GFEC_STAGE_SSE2,
						     GFEC_STAGE_AVX512};
	uint8_t *stage = malloc(GFEC_STAGE_BYTES), *want = malloc(GFEC_STAGE_BYTES);

	(void)state;
	test_seed();
	assert_non_null(stage);
	assert_non_null(want);
	for (int t = 0; t < 40; t++) {
		const enum gfec_stage_path path = paths[t % 3];
		const int n = test_range(1, 20), m = test_range(1, 8);
		const size_t len = (size_t)test_range(1, t % 2 ? 4096 : 700000);
		const size_t fit = GFEC_STAGE_BYTES / (size_t)(n + m) / 256 * 256;
		const size_t step = fit < len ? fit : len, last = (len - 1) / step * step;
		struct test_buf sb[MAXN], db[MAXN];
		const uint8_t *src[MAXN];
		uint8_t *dst[MAXN];
		int ret;

		test_fill(want, GFEC_STAGE_BYTES);
		memcpy(stage, want, GFEC_STAGE_BYTES);
		for (int i = 0; i < n; i++) {
			uint8_t *p = tbuf_alloc(&sb[i], len, (unsigned)test_range(0, 63));

			test_fill(p, len);
			src[i] = p;
		}
		for (int i = 0; i < m; i++) {
			dst[i] = tbuf_alloc(&db[i], len, (unsigned)test_range(0, 63));
			memset(dst[i], POISON, len);
		}
		ret = gfec_stage_stripe(path, stage, src, n, dst, m, len);
		if (ret == 0) {
			for (int i = 0; i < n; i++)
				assert_memory_equal(stage + (size_t)i * step, src[i] + last,
						    len - last);
			for (int i = 0; i < m; i++)
				for (size_t off = 0; off < len; off += step)
					assert_memory_equal(dst[i] + off,
							    want + (size_t)(n + i) * step,
							    len - off < step ? len - off : step);
		} else {
			assert_int_equal(path, GFEC_STAGE_AVX512); /* only a way the CPU may lack */
		}
		for (int i = 0; i < n; i++)
			tbuf_free(&sb[i]);
		for (int i = 0; i < m; i++)
			tbuf_free(&db[i]);
	}
	free(stage);
	free(want);
}

/* A way that does not exist copies nothing; nor does a stripe of more than 256 chunks. */
static void test_bad_path(void **state)
{
	uint8_t s[300], d[300];
	const uint8_t *src[1] = {s};
	uint8_t *dst[1] = {d};

	(void)state;
	memset(s, 1, sizeof(s));
	memset(d, 2, sizeof(d));
	assert_int_equal(gfec_stage_copy_path((enum gfec_stage_path)3, dst, src, 1, sizeof(s), 0),
			 -1);
	assert_int_equal(
	    gfec_stage_copy_path((enum gfec_stage_path) - 2, dst, src, 1, sizeof(s), 1), -1);
	for (size_t i = 0; i < sizeof(d); i++)
		assert_int_equal(d[i], 2);
	{
		uint8_t *stage = malloc(GFEC_STAGE_BYTES);
		const uint8_t *many[300];
		uint8_t *out[1] = {d};

		assert_non_null(stage);
		for (int i = 0; i < 300; i++)
			many[i] = s;
		assert_int_equal(gfec_stage_stripe(GFEC_STAGE_AUTO, stage, many, 256, out, 1, 64),
				 -1);
		for (size_t i = 0; i < sizeof(d); i++)
			assert_int_equal(d[i], 2);
		free(stage);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_memcpy), cmocka_unit_test(test_sse2),
	    cmocka_unit_test(test_avx512), cmocka_unit_test(test_auto),
	    cmocka_unit_test(test_stripe), cmocka_unit_test(test_bad_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
