/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_gpu_stride.c
 * Evenly spaced batches without a GPU (issue 17): cuda_gemm/device/stride.c's check against a
 * pointer-at-a-time reference, on random rows of random pointers (steps of either sign, zero and
 * odd, addresses that wrap), each intact, with one pointer moved or with the spacing broken
 * anywhere (the row before the first checked one and the ends of the check's blocks included).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "stride.h"
#include "test_util.h"

static int ref_rows_step(const void *const *p, size_t per, size_t r0, size_t r1, ptrdiff_t step)
{
	if (per == 0)
		return 0;
	for (size_t r = r0 ? r0 : 1; r < r1; r++)
		for (size_t j = 0; j < per; j++)
			if ((uintptr_t)p[r * per + j] - (uintptr_t)p[(r - 1) * per + j] !=
			    (uintptr_t)step)
				return 0;
	return 1;
}

/* rows x per pointers: row 0 at random addresses, row r at row 0 + r * step (mod 2^64). */
static void **make_rows(size_t rows, size_t per, ptrdiff_t step)
{
	void **p = malloc(sizeof(void *) * (rows * per + 1));

	assert_non_null(p);
	for (size_t j = 0; j < per; j++) {
		const uintptr_t a = (uintptr_t)test_rand();

		for (size_t r = 0; r < rows; r++)
			p[r * per + j] = (void *)(a + (uintptr_t)r * (uintptr_t)step);
	}
	return p;
}

static ptrdiff_t random_step(void)
{
	switch (test_rand() % 4) {
	case 0:
		return 0;
	case 1:
		return (ptrdiff_t)test_range(1, 1 << 20); /* odd or even, small */
	case 2:
		return -(ptrdiff_t)test_range(1, 1 << 20);
	default:
		return (ptrdiff_t)test_rand(); /* any: the addresses wrap */
	}
}

static void test_fixed_cases(void **state)
{
	void **p = make_rows(3000, 14, 14 * 4096);

	(void)state;
	assert_int_equal(gfec_gpu_rows_step((const void *const *)p, 14, 0, 3000, 14 * 4096), 1);
	assert_int_equal(gfec_gpu_rows_step((const void *const *)p, 14, 0, 3000, 14 * 4096 + 1), 0);
	assert_int_equal(gfec_gpu_rows_step((const void *const *)p, 14, 0, 3000, -14 * 4096), 0);
	assert_int_equal(gfec_gpu_rows_step((const void *const *)p, 0, 0, 3000, 0), 0);
	assert_int_equal(gfec_gpu_rows_step((const void *const *)p, 14, 0, 1, 5), 1); /* one row */
	assert_int_equal(gfec_gpu_rows_step((const void *const *)p, 14, 7, 7, 5), 1); /* none */
	/* the spacing broken at one pointer (its column moved from there on, so that one
	 * comparison alone sees it): the last, the first of row 1, each side of the check's first
	 * two block ends (the check starts at row 1: pointer 14) */
	static const size_t at[] = { 3000 * 14 - 1, 14, 2060, 2061, 2062, 4109, 4110 };

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		for (size_t x = at[i]; x < 3000 * 14; x += 14)
			p[x] = (char *)p[x] + 16;
		assert_int_equal(gfec_gpu_rows_step((const void *const *)p, 14, 0, 3000, 14 * 4096),
				 0);
		for (size_t x = at[i]; x < 3000 * 14; x += 14)
			p[x] = (char *)p[x] - 16;
	}
	/* a moved row 9 fails a check from row 10 (against row 9) but not one of rows 11.. */
	p[9 * 14 + 3] = (char *)p[9 * 14 + 3] + 1;
	assert_int_equal(gfec_gpu_rows_step((const void *const *)p, 14, 10, 3000, 14 * 4096), 0);
	assert_int_equal(gfec_gpu_rows_step((const void *const *)p, 14, 11, 3000, 14 * 4096), 1);
	assert_int_equal(gfec_gpu_rows_step((const void *const *)p, 14, 0, 9, 14 * 4096), 1);
	free(p);
}

static void test_random(void **state)
{
	(void)state;
	for (int t = 0; t < 3000; t++) {
		const size_t per = (size_t)test_range(1, 64);
		const size_t rows = (size_t)test_range(1, t % 10 ? 200 : 3000);
		const ptrdiff_t step = random_step();
		void **p = make_rows(rows, per, step);
		const size_t r0 = (size_t)test_range(0, (int)rows), r1 = (size_t)test_range((int)r0, (int)rows);
		const ptrdiff_t asked = t % 7 ? step : random_step();

		if (t % 2) { /* one pointer moved, anywhere; or (t % 4 == 3) its column from there on */
			const size_t i = test_rand() % (rows * per);
			const uintptr_t by = (uintptr_t)test_range(1, 1 << 16);

			for (size_t x = i; x < (t % 4 == 3 ? rows * per : i + 1); x += per)
				p[x] = (void *)((uintptr_t)p[x] + by);
		}
		assert_int_equal(gfec_gpu_rows_step((const void *const *)p, per, r0, r1, asked),
				 ref_rows_step((const void *const *)p, per, r0, r1, asked));
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_cases),
		cmocka_unit_test(test_random),
	};

	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
