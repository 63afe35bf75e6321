/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gfec_weights.h: the optimised enumeration (symmetry, all-ones reduction, threads) against a
 * brute force over every ordered pair of codewords, the identities every J satisfies, the
 * joint MacWilliams identity between the [7,3] simplex and [7,4] Hamming codes, BCH
 * generators, subcodes and refused input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gfec/gfec_weights.h"
#include "test_util.h"

#define IDX(s, a, b, c) ((((size_t)(a)) * (s) + (b)) * (s) + (c))

static int cmp_u64x4(const void *x, const void *y)
{
	return memcmp(x, y, 4 * sizeof(uint64_t));
}

/* The brute force: the set of codewords from all 2^rows sums, then every ordered pair. */
static void brute(const uint8_t *gen, int rows, int n, uint64_t *a, uint64_t *j)
{
	size_t s = (size_t)n + 1, total = (size_t)1 << rows;
	uint64_t(*cw)[4] = calloc(total, sizeof(*cw));
	assert_non_null(cw);
	for (size_t x = 0; x < total; x++)
		for (int r = 0; r < rows; r++)
			if (x >> r & 1)
				for (int b = 0; b < n; b++)
					cw[x][b / 64] ^= (uint64_t)gen[(size_t)r * n + b] << (b % 64);
	qsort(cw, total, sizeof(*cw), cmp_u64x4);
	size_t m = 0;
	for (size_t x = 0; x < total; x++)
		if (!m || memcmp(cw[x], cw[m - 1], sizeof(*cw)))
			memcpy(cw[m++], cw[x], sizeof(*cw));
	memset(a, 0, s * sizeof(uint64_t));
	memset(j, 0, s * s * s * sizeof(uint64_t));
	for (size_t u = 0; u < m; u++) {
		int wu = 0;
		for (int w = 0; w < 4; w++)
			wu += __builtin_popcountll(cw[u][w]);
		a[wu]++;
		for (size_t v = 0; v < m; v++) {
			int wv = 0, both = 0;
			for (int w = 0; w < 4; w++) {
				wv += __builtin_popcountll(cw[v][w]);
				both += __builtin_popcountll(cw[u][w] & cw[v][w]);
			}
			j[IDX(s, both, wu - both, wv - both)]++;
		}
	}
	free(cw);
}

/* The identities of seed-systems.md D that hold for every linear code. */
static void check_identities(const struct gfec_weights *w)
{
	size_t s = (size_t)w->n + 1;
	int n = w->n;
	uint64_t sum = 0;
	for (size_t a = 0; a < s; a++)
		for (size_t b = 0; a + b < s; b++)
			for (size_t c = 0; c < s; c++) {
				uint64_t x = w->J[IDX(s, a, b, c)];
				sum += x;
				if (a + b + c > (size_t)n) {
					assert_int_equal(x, 0);
					continue;
				}
				size_t d = s - 1 - a - b - c;
				assert_int_equal(x, w->J[IDX(s, a, c, b)]);
				if (w->has_ones) { /* all of S4 from two generators */
					assert_int_equal(x, w->J[IDX(s, b, a, c)]);
					assert_int_equal(x, w->J[IDX(s, b, c, d)]);
				}
			}
	assert_int_equal(sum, (uint64_t)1 << (2 * w->k));
	for (size_t x = 0; x < s; x++) {
		assert_int_equal(w->J[IDX(s, x, 0, 0)], w->A[x]);
		uint64_t row = 0;
		for (size_t a = 0; a <= x; a++)
			for (size_t c = 0; a + (x - a) + c < s; c++)
				row += w->J[IDX(s, a, x - a, c)];
		assert_int_equal(row, w->A[x] << w->k);
	}
}

/* Enumerates gen on CPU with @p threads and @p flags, checks it against @p a and @p j. */
static void check_against(const uint8_t *gen, int rows, int n, int threads, unsigned flags,
			  const uint64_t *a, const uint64_t *j)
{
	size_t s = (size_t)n + 1;
	struct gfec_weights w;
	assert_int_equal(gfec_weights_enumerate(gen, rows, n, GFEC_WEIGHTS_CPU, threads, flags, &w),
			 0);
	assert_int_equal(w.n, n);
	assert_int_equal(w.k, gfec_weights_rank(gen, rows, n));
	assert_memory_equal(w.A, a, s * sizeof(uint64_t));
	assert_memory_equal(w.J, j, s * s * s * sizeof(uint64_t));
	check_identities(&w);
	gfec_weights_free(&w);
}

/* Enumerates gen on CPU with @p threads and each of the @p nflags flag sets, checks every result
 * against the brute force. */
static void check_against_brute_flags(const uint8_t *gen, int rows, int n, int threads,
				      const unsigned *flags, int nflags)
{
	size_t s = (size_t)n + 1;
	uint64_t *a = malloc(s * sizeof(uint64_t)), *j = malloc(s * s * s * sizeof(uint64_t));
	assert_true(a && j);
	brute(gen, rows, n, a, j);
	for (int f = 0; f < nflags; f++)
		check_against(gen, rows, n, threads, flags[f], a, j);
	free(a);
	free(j);
}

static void check_against_brute(const uint8_t *gen, int rows, int n, int threads, unsigned flags)
{
	check_against_brute_flags(gen, rows, n, threads, &flags, 1);
}

static void random_gen(uint8_t *gen, int rows, int n)
{
	for (size_t i = 0; i < (size_t)rows * n; i++)
		gen[i] = test_rand() & 1;
}

static void test_random_codes(void **state)
{
	(void)state;
	/* 1, 2, 3 and 4 words per codeword: every width of every counting kernel */
	static const int lens[] = {1, 7, 31, 63, 64, 65, 100, 127, 128, 129, 130, 193, 200};
	uint8_t gen[12 * 200];
	if (!__builtin_cpu_supports("avx512vpopcntdq"))
		printf("# the AVX-512 VPOPCNTQ kernel: skipped, this CPU lacks it (POPCNT only)\n");
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		int n = lens[i];
		for (int t = 1; t <= 12; t += 1 + (n > 64) * 3 + (n > 130) * 4) {
			static const unsigned kernels[] = {0, GFEC_WEIGHTS_POPCNT};
			random_gen(gen, t, n);
			check_against_brute_flags(gen, t, n, 1 + (int)(test_rand() % 3), kernels, 2);
		}
	}
}

struct progress_log {
	int calls;
	uint64_t last, total;
	int backwards;
};

static void progress_cb(void *arg, uint64_t done, uint64_t total)
{
	struct progress_log *p = arg;
	if (p->calls && (done < p->last || total != p->total))
		p->backwards = 1;
	p->calls++;
	p->last = done;
	p->total = total;
}

/* Progress goes forward and ends at the number of pairs counted: C(2^k', 2), k' the dimension
 * enumerated (k - 1 with the all-ones reduction). */
static void test_progress(void **state)
{
	(void)state;
	uint8_t gen[14 * 127];
	int delta;
	assert_int_equal(gfec_weights_bch(127, 22, NULL, &delta), 0);
	uint8_t *g = malloc(22 * 127);
	assert_non_null(g);
	assert_int_equal(gfec_weights_bch(127, 22, g, &delta), 0);
	assert_int_equal(gfec_weights_subcode(g, 22, 127, 14), 0);
	memcpy(gen, g, sizeof(gen));
	free(g);
	for (unsigned flags = 0; flags <= GFEC_WEIGHTS_NO_ONES; flags++) {
		struct progress_log log = {0};
		struct gfec_weights w, plain;
		uint64_t count = (uint64_t)1 << (flags ? 14 : 13);
		assert_int_equal(gfec_weights_enumerate_progress(gen, 14, 127, GFEC_WEIGHTS_CPU, 2,
								 flags, progress_cb, &log, &w),
				 0);
		assert_true(log.calls >= 1);
		assert_false(log.backwards);
		assert_true(log.total == count * (count - 1) / 2);
		assert_true(log.last == log.total);
		assert_int_equal(gfec_weights_enumerate(gen, 14, 127, GFEC_WEIGHTS_CPU, 2, flags,
							&plain),
				 0);
		assert_memory_equal(w.J, plain.J, (size_t)128 * 128 * 128 * sizeof(uint64_t));
		gfec_weights_free(&w);
		gfec_weights_free(&plain);
	}
}

/* Codes with the all-ones word (one row is 1): the reduction is taken, and skipped on request. */
static void test_with_ones(void **state)
{
	(void)state;
	static const int lens[] = {2, 9, 64, 66, 127, 130};
	uint8_t gen[12 * 130];
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		int n = lens[i];
		for (int t = 1; t <= 12; t += 1 + (n > 64) * 4) {
			random_gen(gen, t, n);
			memset(gen + (size_t)test_range(0, t - 1) * n, 1, (size_t)n);
			struct gfec_weights w;
			assert_int_equal(gfec_weights_enumerate(gen, t, n, GFEC_WEIGHTS_AUTO, 2, 0, &w), 0);
			assert_int_equal(w.has_ones, 1);
			gfec_weights_free(&w);
			check_against_brute(gen, t, n, 2, 0);
			check_against_brute(gen, t, n, 3, GFEC_WEIGHTS_NO_ONES);
		}
	}
}

/* More rows than the rank: the spanned code, each codeword once. */
static void test_rank_deficient(void **state)
{
	(void)state;
	int n = 70, rows = 9;
	uint8_t gen[9 * 70];
	random_gen(gen, 6, n);
	for (int r = 6; r < rows; r++) /* sums of earlier rows, and a zero row */
		for (int b = 0; b < n; b++)
			gen[r * n + b] = r == 8 ? 0 : gen[(r - 6) * n + b] ^ gen[(r - 5) * n + b];
	assert_int_equal(gfec_weights_rank(gen, rows, n), 6);
	check_against_brute(gen, rows, n, 2, 0);
}

/* Joint weight enumerator polynomial of w at (x00, x01, x10, x11). */
static int64_t wpoly(const struct gfec_weights *w, const int64_t x[4])
{
	size_t s = (size_t)w->n + 1;
	int64_t sum = 0;
	for (size_t a = 0; a < s; a++)
		for (size_t b = 0; a + b < s; b++)
			for (size_t c = 0; a + b + c < s; c++) {
				int64_t cnt = (int64_t)w->J[IDX(s, a, b, c)];
				if (!cnt)
					continue;
				int64_t m = cnt;
				for (size_t i = 0; i < a; i++)
					m *= x[3];
				for (size_t i = 0; i < b; i++)
					m *= x[2];
				for (size_t i = 0; i < c; i++)
					m *= x[1];
				for (size_t i = 0; i < s - 1 - a - b - c; i++)
					m *= x[0];
				sum += m;
			}
	return sum;
}

static const uint8_t simplex[3 * 7] = {1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1,
				       0, 0, 1, 0, 1, 1, 1};
static const uint8_t hamming[4 * 7] = {1, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0,
				       0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1};

static void test_simplex_hamming(void **state)
{
	(void)state;
	struct gfec_weights c, d;
	assert_int_equal(gfec_weights_enumerate(simplex, 3, 7, GFEC_WEIGHTS_CPU, 1, 0, &c), 0);
	assert_int_equal(gfec_weights_enumerate(hamming, 4, 7, GFEC_WEIGHTS_CPU, 2, 0, &d), 0);
	/* the two are duals: every simplex row is orthogonal to every Hamming row */
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 4; k++) {
			int dot = 0;
			for (int b = 0; b < 7; b++)
				dot ^= simplex[i * 7 + b] & hamming[k * 7 + b];
			assert_int_equal(dot, 0);
		}
	size_t s = 8;
	assert_int_equal(c.J[IDX(s, 0, 0, 0)], 1);
	assert_int_equal(c.J[IDX(s, 4, 0, 0)], 7);
	assert_int_equal(c.J[IDX(s, 0, 4, 0)], 7);
	assert_int_equal(c.J[IDX(s, 0, 0, 4)], 7);
	assert_int_equal(c.J[IDX(s, 2, 2, 2)], 42);
	int bins = 0;
	for (size_t i = 0; i < s * s * s; i++)
		bins += d.J[i] != 0;
	assert_int_equal(bins, 20);
	assert_int_equal(d.has_ones, 1);
	check_identities(&c);
	check_identities(&d);
	/* |C|^2 W_dual(x00, x01, x10, x11) = W_C(x00+x01+x10+x11, x00-x01+x10-x11,
	 * x00+x01-x10-x11, x00-x01-x10+x11), at points with entries in -3..3, both ways round */
	for (int rep = 0; rep < 50; rep++) {
		int64_t x[4], y[4];
		for (int i = 0; i < 4; i++)
			x[i] = test_range(-3, 3);
		y[0] = x[0] + x[1] + x[2] + x[3];
		y[1] = x[0] - x[1] + x[2] - x[3];
		y[2] = x[0] + x[1] - x[2] - x[3];
		y[3] = x[0] - x[1] - x[2] + x[3];
		assert_int_equal(64 * wpoly(&d, x), wpoly(&c, y));
		assert_int_equal(256 * wpoly(&c, x), wpoly(&d, y));
	}
	gfec_weights_free(&c);
	gfec_weights_free(&d);
}

static void test_bch(void **state)
{
	(void)state;
	int delta;
	assert_int_equal(gfec_weights_bch(127, 22, NULL, &delta), 0);
	assert_int_equal(delta, 47);
	assert_int_equal(gfec_weights_bch(15, 7, NULL, &delta), 0);
	assert_int_equal(delta, 5);
	assert_int_equal(gfec_weights_bch(7, 4, NULL, &delta), 0);
	assert_int_equal(delta, 3);
	assert_int_equal(gfec_weights_bch(255, 9, NULL, &delta), 0);
	assert_int_equal(gfec_weights_bch(127, 21, NULL, &delta), GFEC_E_INVAL);
	assert_int_equal(gfec_weights_bch(100, 10, NULL, &delta), GFEC_E_INVAL);
	assert_int_equal(gfec_weights_bch(511, 10, NULL, &delta), GFEC_E_INVAL);

	/* (15,7), designed distance 5: 1 + 18x^5 + 30x^6 + 15x^7 + 15x^8 + 30x^9 + 18x^10 + x^15 */
	uint8_t g15[7 * 15];
	assert_int_equal(gfec_weights_bch(15, 7, g15, &delta), 0);
	struct gfec_weights w;
	assert_int_equal(gfec_weights_enumerate(g15, 7, 15, GFEC_WEIGHTS_CPU, 2, 0, &w), 0);
	static const uint64_t a15[16] = {1, 0, 0, 0, 0, 18, 30, 15, 15, 30, 18, 0, 0, 0, 0, 1};
	assert_memory_equal(w.A, a15, sizeof(a15));
	assert_int_equal(w.has_ones, 1);
	gfec_weights_free(&w);

	/* the (127,22) code's subcode of dimension 10, and of 12 against the brute force */
	uint8_t *g = malloc(22 * 127);
	assert_non_null(g);
	assert_int_equal(gfec_weights_bch(127, 22, g, &delta), 0);
	assert_int_equal(gfec_weights_rank(g, 22, 127), 22);
	assert_int_equal(gfec_weights_subcode(g, 22, 127, 12), 0);
	assert_int_equal(gfec_weights_rank(g, 12, 127), 12);
	check_against_brute(g, 12, 127, 2, 0);
	assert_int_equal(gfec_weights_enumerate(g, 12, 127, GFEC_WEIGHTS_CPU, 2, 0, &w), 0);
	assert_int_equal(w.has_ones, 1);
	for (int x = 1; x < 47; x++) /* minimum distance >= the designed distance */
		assert_int_equal(w.A[x], 0);
	gfec_weights_free(&w);
	free(g);
}

static void test_refused(void **state)
{
	(void)state;
	struct gfec_weights w;
	uint8_t gen[40 * 64] = {0};
	assert_int_equal(gfec_weights_enumerate(NULL, 1, 8, 0, 1, 0, &w), GFEC_E_INVAL);
	assert_int_equal(gfec_weights_enumerate(gen, 0, 8, 0, 1, 0, &w), GFEC_E_INVAL);
	assert_int_equal(gfec_weights_enumerate(gen, 1, 0, 0, 1, 0, &w), GFEC_E_INVAL);
	assert_int_equal(gfec_weights_enumerate(gen, 1, GFEC_WEIGHTS_MAX_N + 1, 0, 1, 0, &w),
			 GFEC_E_INVAL);
	assert_int_equal(gfec_weights_enumerate(gen, 1, 8, 0, -1, 0, &w), GFEC_E_INVAL);
	assert_int_equal(gfec_weights_enumerate(gen, 1, 8, 0, 1, 4, &w), GFEC_E_INVAL);
	assert_int_equal(gfec_weights_enumerate(gen, 1, 8, (enum gfec_weights_backend)7, 1, 0, &w),
			 GFEC_E_INVAL);
	gen[3] = 2;
	assert_int_equal(gfec_weights_enumerate(gen, 1, 8, 0, 1, 0, &w), GFEC_E_INVAL);
	assert_int_equal(gfec_weights_rank(gen, 1, 8), GFEC_E_INVAL);
	gen[3] = 0;
	for (int r = 0; r < 40; r++) /* rank 40: 2^80 pairs */
		gen[r * 64 + r] = 1;
	assert_int_equal(gfec_weights_rank(gen, 40, 64), 40);
	assert_int_equal(gfec_weights_enumerate(gen, 40, 64, 0, 1, 0, &w), GFEC_E_NOTSUP);
#ifdef GFEC_HAVE_CUDA /* the GPU, or the CPU after a device error: k = 3 either way */
	assert_int_equal(gfec_weights_enumerate(gen, 3, 64, GFEC_WEIGHTS_GPU, 1, 0, &w), 0);
	assert_int_equal(w.k, 3);
	gfec_weights_free(&w);
#else
	assert_int_equal(gfec_weights_enumerate(gen, 3, 64, GFEC_WEIGHTS_GPU, 1, 0, &w),
			 GFEC_E_NOBACKEND);
#endif
	assert_int_equal(gfec_weights_subcode(gen, 3, 64, 4), GFEC_E_INVAL);
	assert_int_equal(gfec_weights_subcode(gen, 3, 64, 0), GFEC_E_INVAL);
	/* the zero code: one codeword, one pair */
	memset(gen, 0, 64);
	assert_int_equal(gfec_weights_enumerate(gen, 1, 64, 0, 1, 0, &w), 0);
	assert_int_equal(w.k, 0);
	assert_int_equal(w.A[0], 1);
	assert_int_equal(w.J[0], 1);
	gfec_weights_free(&w);
	gfec_weights_free(NULL);
}

int main(void)
{
	test_seed();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_codes),   cmocka_unit_test(test_with_ones),
		cmocka_unit_test(test_rank_deficient), cmocka_unit_test(test_simplex_hamming),
		cmocka_unit_test(test_bch),	       cmocka_unit_test(test_refused),
		cmocka_unit_test(test_progress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
