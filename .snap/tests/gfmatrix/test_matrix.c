/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_matrix.c
 * Generators byte-compared with the libraries they are named after (ISA-L, Jerasure), the MDS
 * check against brute-force inversion, inversion against ISA-L, decode matrices, bitmatrices.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <isa-l/erasure_code.h>
#include <jerasure.h>
#include <cauchy.h>
#include <reed_sol.h>

#include "gf8.h"
#include "matrix.h"
#include "test_util.h"

/* ISA-L's generators return [I ; G] with k+m rows; compare the G part. */
static void check_isal(int k, int m)
{
	uint8_t full[GFEC_MAX_CHUNKS * GFEC_MAX_CHUNKS], g[GFEC_MAX_CHUNKS * GFEC_MAX_CHUNKS];

	gf_gen_rs_matrix(full, k + m, k);
	assert_int_equal(gfec_matrix_isal_rs(k, m, g), 0);
	assert_memory_equal(g, full + k * k, (size_t)k * m);
	gf_gen_cauchy1_matrix(full, k + m, k);
	assert_int_equal(gfec_matrix_isal_cauchy1(k, m, g), 0);
	assert_memory_equal(g, full + k * k, (size_t)k * m);
}

static void test_isal_generators(void **state)
{
	(void)state;
	for (int k = 1; k <= 64; k++)
		for (int m = 1; m <= 64; m++)
			check_isal(k, m);
	for (int i = 0; i < 100; i++) {
		int k = test_range(1, 255);

		check_isal(k, test_range(1, 256 - k));
	}
	check_isal(223, 32);
	check_isal(255, 1);
	check_isal(1, 255);
}

static void check_jerasure(int k, int m)
{
	uint8_t g[GFEC_MAX_CHUNKS * GFEC_MAX_CHUNKS];
	int *want = reed_sol_vandermonde_coding_matrix(k, m, 8);

	assert_non_null(want);
	assert_int_equal(gfec_matrix_jerasure_rs_van(k, m, g), 0);
	for (int i = 0; i < k * m; i++)
		if (g[i] != want[i])
			fail_msg("jerasure k=%d m=%d element %d: %d != %d", k, m, i, g[i], want[i]);
	free(want);
}

static void test_jerasure_generator(void **state)
{
	(void)state;
	for (int k = 2; k <= 40; k++)
		for (int m = 1; m <= 24; m++)
			check_jerasure(k, m);
	check_jerasure(200, 55);
	check_jerasure(128, 128);
}

static void check_cauchy_good(int k, int m)
{
	uint8_t g[GFEC_MAX_CHUNKS * GFEC_MAX_CHUNKS];
	int *want = cauchy_good_general_coding_matrix(k, m, 8);

	assert_non_null(want);
	assert_int_equal(gfec_matrix_jerasure_cauchy_good(k, m, g), 0);
	for (int i = 0; i < k * m; i++)
		if (g[i] != want[i])
			fail_msg("cauchy_good k=%d m=%d element %d: %d != %d", k, m, i, g[i], want[i]);
	free(want);
}

static void test_cauchy_good_generator(void **state)
{
	(void)state;
	for (int e = 0; e < 256; e++)
		assert_int_equal(gfec_matrix_bitmatrix_ones((uint8_t)e), cauchy_n_ones(e, 8));
	for (int k = 2; k <= 48; k++)
		for (int m = 1; m <= 12; m++)
			check_cauchy_good(k, m);
	check_cauchy_good(254, 2); /* m = 2 takes Jerasure's sparsest-element rule */
	check_cauchy_good(100, 20);
	uint8_t g[12 * 4];

	for (int k = 2; k <= 12; k++) {
		gfec_matrix_jerasure_cauchy_good(k, 4 < k ? 4 : k, g);
		assert_int_equal(gfec_matrix_check_mds(g, 4 < k ? 4 : k, k, UINT64_MAX), 0);
	}
}

static void test_bitmatrix_matches_jerasure(void **state)
{
	static uint8_t bits[8 * 16 * 8 * 16];
	uint8_t g[16 * 16];

	(void)state;
	for (int k = 2; k <= 16; k++)
		for (int m = 1; m <= 8; m++) {
			int mat[16 * 16], *want;

			gfec_matrix_isal_cauchy1(k, m, g);
			for (int i = 0; i < k * m; i++)
				mat[i] = g[i];
			want = jerasure_matrix_to_bitmatrix(k, m, 8, mat);
			gfec_gf8_to_bitmatrix(g, m, k, bits);
			for (int i = 0; i < 64 * k * m; i++)
				assert_int_equal(bits[i], want[i]);
			free(want);
		}
}

/* Independent of gfec_matrix_check_mds: try every k-subset of the rows of [I;G] with ISA-L. */
static int brute_force_mds(const uint8_t *g, int k, int m)
{
	int idx[GFEC_MAX_CHUNKS], n = k + m, ok = 1;
	uint8_t *a = malloc((size_t)k * k), *inv = malloc((size_t)k * k);

	for (int i = 0; i < k; i++)
		idx[i] = i;
	for (;;) {
		for (int r = 0; r < k; r++)
			for (int c = 0; c < k; c++)
				a[r * k + c] = idx[r] < k ? (idx[r] == c) : g[(idx[r] - k) * k + c];
		if (gf_invert_matrix(a, inv, k) != 0) {
			ok = 0;
			break;
		}
		int i = k - 1;

		while (i >= 0 && idx[i] == n - k + i)
			i--;
		if (i < 0)
			break;
		idx[i]++;
		for (int j = i + 1; j < k; j++)
			idx[j] = idx[j - 1] + 1;
	}
	free(a);
	free(inv);
	return ok;
}

static void test_mds_check(void **state)
{
	uint8_t g[32 * 32];

	(void)state;
	for (int k = 2; k <= 8; k++)
		for (int m = 1; m <= k; m++) {
			int want;

			gfec_matrix_isal_rs(k, m, g);
			want = brute_force_mds(g, k, m);
			assert_int_equal(gfec_matrix_check_mds(g, m, k, UINT64_MAX),
					 want ? 0 : GFEC_E_NOT_MDS);
			gfec_matrix_isal_cauchy1(k, m, g);
			assert_true(brute_force_mds(g, k, m));
			assert_int_equal(gfec_matrix_check_mds(g, m, k, UINT64_MAX), 0);
			gfec_matrix_jerasure_rs_van(k, m, g);
			assert_true(brute_force_mds(g, k, m));
			assert_int_equal(gfec_matrix_check_mds(g, m, k, UINT64_MAX), 0);
		}
	/* ISA-L's own header promises these; (6,5) is the first failure. */
	gfec_matrix_isal_rs(10, 4, g);
	assert_int_equal(gfec_matrix_check_mds(g, 4, 10, UINT64_MAX), 0);
	gfec_matrix_isal_rs(6, 5, g);
	assert_false(brute_force_mds(g, 6, 5));
	assert_int_equal(gfec_matrix_check_mds(g, 5, 6, UINT64_MAX), GFEC_E_NOT_MDS);
	/* A zero element is a singular 1x1 submatrix. */
	gfec_matrix_isal_cauchy1(4, 2, g);
	g[5] = 0;
	assert_int_equal(gfec_matrix_check_mds(g, 2, 4, UINT64_MAX), GFEC_E_NOT_MDS);
	/* Too big to enumerate within a small budget. */
	gfec_matrix_isal_cauchy1(32, 16, g);
	assert_int_equal(gfec_matrix_check_mds(g, 16, 32, 1000000), GFEC_E_BUDGET);
	assert_int_equal(gfec_matrix_check_mds(NULL, 2, 4, 1), GFEC_E_INVAL);
}

static void test_invert(void **state)
{
	uint8_t a[64 * 64], a2[64 * 64], out[64 * 64], ref[64 * 64], prod[64 * 64];

	(void)state;
	for (int t = 0; t < 300; t++) {
		int n = test_range(1, 64), want;

		test_fill(a, (size_t)n * n);
		if (t % 5 == 0 && n > 1) /* make it singular: row 1 = 7 * row 0 */
			for (int c = 0; c < n; c++)
				a[n + c] = gfec_gf8_mul(7, a[c]);
		memcpy(a2, a, (size_t)n * n);
		want = gf_invert_matrix(a2, ref, n);
		memcpy(a2, a, (size_t)n * n);
		if (want) {
			assert_int_equal(gfec_matrix_invert(a2, out, n), GFEC_E_SINGULAR);
			continue;
		}
		assert_int_equal(gfec_matrix_invert(a2, out, n), 0);
		assert_memory_equal(out, ref, (size_t)n * n);
		gfec_matrix_mul(a, out, prod, n, n, n);
		for (int r = 0; r < n; r++)
			for (int c = 0; c < n; c++)
				assert_int_equal(prod[r * n + c], r == c);
	}
	assert_int_equal(gfec_matrix_invert(NULL, out, 3), GFEC_E_INVAL);
}

/* For every choice of k sources and every wanted chunk, D . sources == wanted, on a codeword. */
static void test_decode_matrix(void **state)
{
	const int k = 6, m = 3, n = k + m;
	uint8_t g[k * m], x[k], cw[n], d[n * k];
	int src[k], want[n];

	(void)state;
	gfec_matrix_isal_cauchy1(k, m, g);
	for (int i = 0; i < n; i++)
		want[i] = i;
	for (int mask = 0; mask < (1 << n); mask++) {
		int ns = 0;

		if (__builtin_popcount((unsigned)mask) != k)
			continue;
		test_fill(x, k);
		for (int i = 0; i < k; i++)
			cw[i] = x[i];
		gfec_matrix_mul(g, x, cw + k, m, k, 1);
		for (int i = 0; i < n; i++)
			if (mask & (1 << i))
				src[ns++] = i;
		assert_int_equal(gfec_matrix_decode(g, k, m, src, want, n, d), 0);
		for (int w = 0; w < n; w++) {
			uint8_t s = 0;

			for (int j = 0; j < k; j++)
				s ^= gfec_gf8_mul(d[w * k + j], cw[src[j]]);
			assert_int_equal(s, cw[w]);
		}
	}
	/* Sources that repeat a chunk do not span the code. */
	int dup[6] = { 0, 0, 1, 2, 3, 4 };

	assert_int_equal(gfec_matrix_decode(g, k, m, dup, want, 1, d), GFEC_E_SINGULAR);
	int bad[6] = { 0, 1, 2, 3, 4, 99 };

	assert_int_equal(gfec_matrix_decode(g, k, m, bad, want, 1, d), GFEC_E_INVAL);
}

static void test_bad_shapes(void **state)
{
	uint8_t g[4];

	(void)state;
	assert_int_equal(gfec_matrix_isal_rs(0, 1, g), GFEC_E_INVAL);
	assert_int_equal(gfec_matrix_isal_cauchy1(200, 57, g), GFEC_E_INVAL);
	assert_int_equal(gfec_matrix_jerasure_rs_van(2, 0, g), GFEC_E_INVAL);
	assert_int_equal(gfec_matrix_jerasure_rs_van(2, 1, NULL), GFEC_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isal_generators),
		cmocka_unit_test(test_jerasure_generator),
		cmocka_unit_test(test_cauchy_good_generator),
		cmocka_unit_test(test_bitmatrix_matches_jerasure),
		cmocka_unit_test(test_mds_check),
		cmocka_unit_test(test_invert),
		cmocka_unit_test(test_decode_matrix),
		cmocka_unit_test(test_bad_shapes),
	};

	test_seed();
	gfec_gf8_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
