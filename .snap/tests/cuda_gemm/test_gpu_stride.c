/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_gpu_stride.c
 * Evenly spaced batches without a GPU (issue 17): cuda_gemm/device/stride.c's check against a
 * pointer-at-a-time reference, on random rows of random pointers (steps of either sign, zero and
 * odd, addresses that wrap), each intact, with one pointer moved or with the spacing broken
 * anywhere (the row before the first checked one and the ends of the check's blocks included);
 * and the NULL check of such rows from their first row (gfec_gpu_rows_nonnull), which must never
 * pass rows that hold a NULL and must pass rows whose addresses cannot wrap.
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

/* Case t of a random test: 1..64 pointers a row, 1..200 rows (1..3000 every tenth case). */
static void **random_rows(int t, size_t *per, size_t *rows, ptrdiff_t *step)
{
	*per = (size_t)test_range(1, 64);
	*rows = (size_t)test_range(1, t % 10 ? 200 : 3000);
	*step = random_step();
	return make_rows(*rows, *per, *step);
}

static void test_random(void **state)
{
	(void)state;
	for (int t = 0; t < 3000; t++) {
		size_t per, rows;
		ptrdiff_t step;
		void **p = random_rows(t, &per, &rows, &step);
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

static int has_null(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!p[i])
			return 1;
	return 0;
}

static void test_nonnull_edges(void **state)
{
	const uintptr_t top = UINTPTR_MAX;
	void *p[2 * 3];

	(void)state;
	for (int sign = 0; sign < 2; sign++) {
		const ptrdiff_t step = sign ? -4096 : 4096;
		/* 3 rows of 2 columns, column 0 at a, column 1 far from both ends */
		const uintptr_t ok_a[2] = { top - 2 * 4096, 2 * 4096 + 1 }; /* ends at top, or at 1 */
		const uintptr_t bad_a[2] = { top - 2 * 4096 + 1, 2 * 4096 }; /* wraps, or ends at 0 */

		for (int bad = 0; bad < 2; bad++) {
			const uintptr_t a = bad ? bad_a[sign] : ok_a[sign];

			for (int r = 0; r < 3; r++) {
				p[r * 2] = (void *)(a + (uintptr_t)r * (uintptr_t)step);
				p[r * 2 + 1] = (void *)((uintptr_t)1 << 40) + r * step;
			}
			assert_int_equal(gfec_gpu_rows_nonnull((const void *const *)p, 2, 3, step),
					 !bad);
		}
	}
	p[0] = NULL, p[1] = (void *)p; /* step 0: row 0 is every row */
	assert_int_equal(gfec_gpu_rows_nonnull((const void *const *)p, 2, 1000, 0), 0);
	p[0] = (void *)p;
	assert_int_equal(gfec_gpu_rows_nonnull((const void *const *)p, 2, 1000, 0), 1);
	assert_int_equal(gfec_gpu_rows_nonnull((const void *const *)p, 2, 1, (ptrdiff_t)-1), 1);
}

static void test_nonnull_random(void **state)
{
	(void)state;
	for (int t = 0; t < 3000; t++) {
		size_t per, rows;
		ptrdiff_t step;
		void **p = random_rows(t, &per, &rows, &step);

		if (t % 3 == 0) { /* a NULL at a random row of a random column (the column moved) */
			const size_t r = test_rand() % rows, j = test_rand() % per;
			const uintptr_t shift = (uintptr_t)p[r * per + j];

			for (size_t x = 0; x < rows; x++)
				p[x * per + j] = (void *)((uintptr_t)p[x * per + j] - shift);
		} else if (t % 3 == 1) { /* addresses that cannot wrap: must pass */
			for (size_t j = 0; j < per; j++) {
				const uintptr_t a = ((uintptr_t)1 << 46) + (test_rand() & 0xffffffffu);
				const ptrdiff_t s = step % (1 << 30); /* spans under 2^42 */

				for (size_t x = 0; x < rows; x++)
					p[x * per + j] = (void *)(a + (uintptr_t)x * (uintptr_t)s);
			}
			assert_int_equal(gfec_gpu_rows_nonnull((const void *const *)p, per, rows,
							       step % (1 << 30)),
					 1);
			free(p);
			continue;
		}
		/* never passes rows with a NULL */
		if (has_null(p, rows * per))
			assert_int_equal(gfec_gpu_rows_nonnull((const void *const *)p, per, rows, step),
					 0);
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_cases),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_nonnull_edges),
		cmocka_unit_test(test_nonnull_random),
	};

	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
