/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_lt.c
 * LT codes (gfmatrix/lt.h, gfmatrix/base/lt_dist.h): parameter refusals, the degree sampler
 * against the robust soliton pmf (chi-square, 10^6 draws), Floyd's neighbours (distinct, in
 * range, uniform), the threaded encoder against a plain XOR, exact decoding for random loss and
 * order at n in {1, 2, 128, 1024, 10240}, decoding overhead statistics against derived bounds,
 * segments where peeling alone stalls but inactivation decodes exactly, checks that extend an
 * earlier pass against new passes, the decoder's schedule and stripes on random shapes, and its
 * sums of the inactivated values with and without tables.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gfec/gfec_errors.h"
#include "lt.h"
#include "lt_dist.h"
#include "test_util.h"
#include "threadpool.h"

static void test_bad_params(void **state)
{
	struct gfec_lt_dist *d = NULL;
	struct gfec_lt_decoder *dec = NULL;
	uint8_t seg[8] = {0}, out[8];

	(void)state;
	assert_int_equal(gfec_lt_dist_create(0, 0.03, 0.05, &d), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_dist_create(65537, 0.03, 0.05, &d), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_dist_create(16, 0.0, 0.05, &d), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_dist_create(16, -1.0, 0.05, &d), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_dist_create(16, NAN, 0.05, &d), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_dist_create(16, INFINITY, 0.05, &d), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_dist_create(16, 0.03, 0.0, &d), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_dist_create(16, 0.03, 1.0, &d), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_dist_create(16, 0.03, -0.5, &d), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_dist_create(16, 0.03, NAN, &d), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_dist_create(16, 0.03, 0.05, NULL), GFEC_E_INVAL);
	assert_null(d);
	assert_int_equal(gfec_lt_dist_create(8, 0.03, 0.05, &d), 0);
	assert_int_equal(gfec_lt_decoder_create(d, 0, &dec), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_decoder_create(NULL, 1, &dec), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_encode(d, seg, 1, 0, 1, out, 0, NULL), GFEC_E_INVAL); /* stride */
	assert_int_equal(gfec_lt_encode(d, seg, 1, 0xFFFFFFFFu, 2, out, 1, NULL), GFEC_E_INVAL);
	assert_int_equal(gfec_lt_decoder_create(d, 1, &dec), 0);
	assert_int_equal(gfec_lt_decoder_check(dec, 1, 0), GFEC_E_INVAL); /* holds none */
	assert_int_equal(gfec_lt_decoder_solve(dec, NULL, 0), GFEC_E_INVAL);
	memset(out, 0xA5, sizeof(out));
	assert_int_equal(gfec_lt_decoder_solve(dec, out, 0), GFEC_E_TOOFEW);
	assert_int_equal(out[0], 0xA5);
	gfec_lt_decoder_free(dec);
	gfec_lt_dist_free(d);
}

/* Pearson's chi-square of 10^6 degree draws against the pmf; cells under 5 expected pooled. */
static void chisq_degrees(uint32_t n)
{
	struct gfec_lt_dist *d;
	const uint32_t draws = 1000000;
	uint32_t *hist = calloc(n + 1, sizeof(uint32_t));
	double chi = 0.0, pool_e = 0.0, pool_o = 0.0, sum = 0.0, mean = 0.0;
	int df = -1;

	assert_non_null(hist);
	assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d), 0);
	for (uint32_t s = 0; s < draws; s++) {
		uint32_t deg = gfec_lt_degree(d->cdf, d->len, gfec_nc_prng_key(s));

		assert_true(deg >= 1 && deg <= n);
		hist[deg]++;
	}
	for (uint32_t deg = 1; deg <= n; deg++) {
		double p = gfec_lt_dist_pmf(d, deg), e = p * draws;

		sum += p;
		mean += p * deg;
		if (e >= 5.0) {
			chi += (hist[deg] - e) * (hist[deg] - e) / e;
			df++;
		} else {
			pool_e += e;
			pool_o += hist[deg];
		}
	}
	if (pool_e > 0.0) {
		chi += (pool_o - pool_e) * (pool_o - pool_e) / pool_e;
		df++;
	}
	assert_true(fabs(sum - 1.0) < 1e-9);
	assert_true(fabs(mean - d->mean) < 1e-9);
	/* df + 5 sigma of the chi-square (sd sqrt(2 df)): a false alarm below 10^-5 */
	fprintf(stderr, "# n=%u mean degree %.2f chi2 %.1f df %d\n", n, d->mean, chi, df);
	assert_true(chi < df + 5.0 * sqrt(2.0 * df));
	free(hist);
	gfec_lt_dist_free(d);
}

static void test_degree_chisq(void **state)
{
	(void)state;
	chisq_degrees(128);
	chisq_degrees(1024);
	chisq_degrees(10240);
}

static void test_mean_degree(void **state)
{
	struct gfec_lt_dist *d;

	(void)state;
	/* the defaults reproduce the thesis's mean degrees: 12 at n = 1024, 17 at n = 10240 */
	assert_int_equal(gfec_lt_dist_create(1024, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d), 0);
	assert_true(d->mean > 11.5 && d->mean < 13.0);
	gfec_lt_dist_free(d);
	assert_int_equal(gfec_lt_dist_create(10240, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d),
			 0);
	assert_true(d->mean > 16.0 && d->mean < 17.5);
	gfec_lt_dist_free(d);
}

static void test_neighbours(void **state)
{
	static const uint32_t ns[] = {1, 2, 3, 128, 10240};

	(void)state;
	for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
		uint32_t n = ns[t];
		struct gfec_lt_dist *d;
		uint32_t *idx = malloc(n * sizeof(uint32_t));
		uint32_t *mark = calloc(n, sizeof(uint32_t));
		uint32_t *scan = malloc(n * sizeof(uint32_t));

		assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA,
						     &d), 0);
		for (uint32_t s = 0; s < 20000; s++) {
			uint32_t deg = gfec_lt_block(d, s * 7919u + 1, idx);

			assert_true(deg >= 1 && deg <= n);
			/* the guide's degree is the whole table's */
			assert_int_equal(deg, gfec_lt_degree(d->cdf, d->len,
							     gfec_nc_prng_key(s * 7919u + 1)));
			/* the CPU's bitmap path (large d) draws what the device function draws */
			gfec_lt_neighbours(gfec_nc_prng_key(s * 7919u + 1), n, deg, scan);
			assert_memory_equal(idx, scan, deg * sizeof(uint32_t));
			for (uint32_t i = 0; i < deg; i++) {
				assert_true(idx[i] < n);
				assert_int_not_equal(mark[idx[i]], s + 1); /* distinct */
				mark[idx[i]] = s + 1;
			}
		}
		/* every d up to n, including d = n (a permutation) */
		for (uint32_t deg = 1; deg <= n && deg <= 300; deg++) {
			gfec_lt_neighbours(gfec_nc_prng_key(deg), n, deg, idx);
			memset(mark, 0, n * sizeof(uint32_t));
			for (uint32_t i = 0; i < deg; i++) {
				assert_true(idx[i] < n);
				assert_int_equal(mark[idx[i]], 0);
				mark[idx[i]] = 1;
			}
		}
		free(idx);
		free(mark);
		free(scan);
		gfec_lt_dist_free(d);
	}
}

/* The guided degree search at every threshold of the table and every bucket edge, +-1. */
static void test_degree_guide(void **state)
{
	static const uint32_t ns[] = {1, 2, 3, 128, 1024, 10240, 65536};

	(void)state;
	for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
		struct gfec_lt_dist *d;

		assert_int_equal(gfec_lt_dist_create(ns[t], GFEC_LT_DEFAULT_C,
						     GFEC_LT_DEFAULT_DELTA, &d), 0);
		for (uint64_t i = 0; i < d->len + (1u << GFEC_LT_GUIDE_BITS) + 1; i++) {
			uint64_t at = i < d->len ? d->cdf[i]
						 : (i - d->len) << (32 - GFEC_LT_GUIDE_BITS);

			for (uint64_t u = at ? at - 1 : 0; u <= at + 1 && u <= UINT32_MAX; u++)
				assert_int_equal(gfec_lt_dist_degree(d, (uint32_t)u),
						 gfec_lt_degree_in(d->cdf, 0, d->len, (uint32_t)u));
		}
		assert_int_equal(gfec_lt_dist_degree(d, UINT32_MAX),
				 gfec_lt_degree_in(d->cdf, 0, d->len, UINT32_MAX));
		gfec_lt_dist_free(d);
	}
}

static void test_neighbours_uniform(void **state)
{
	/* each of 16 indices is in a 3-subset with probability 3/16 */
	uint32_t hist[16] = {0}, idx[3];
	const uint32_t draws = 160000;
	double chi = 0.0, e = draws * 3.0 / 16.0;

	(void)state;
	for (uint32_t s = 0; s < draws; s++) {
		gfec_lt_neighbours(gfec_nc_prng_key(s), 16, 3, idx);
		for (int i = 0; i < 3; i++)
			hist[idx[i]]++;
	}
	for (int i = 0; i < 16; i++)
		chi += (hist[i] - e) * (hist[i] - e) / e;
	assert_true(chi < 15.0 + 5.0 * sqrt(30.0));
}

static void test_encode(void **state)
{
	const uint32_t n = 300, count = 1000;
	const size_t B = 37, stride = 41;
	struct gfec_lt_dist *d;
	struct gfec_cpu_pool *pool;
	uint8_t *seg = malloc(n * B), *a = malloc(count * stride), *b = malloc(count * stride);
	uint8_t *want = malloc(B);
	uint32_t idx[300];

	(void)state;
	for (size_t i = 0; i < n * B; i++)
		seg[i] = (uint8_t)test_rand();
	memset(a, 0x5A, count * stride);
	memset(b, 0x5A, count * stride);
	assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d), 0);
	assert_int_equal(gfec_cpu_pool_create(4, &pool), 0);
	assert_int_equal(gfec_lt_encode(d, seg, B, 77, count, a, stride, NULL), 0);
	assert_int_equal(gfec_lt_encode(d, seg, B, 77, count, b, stride, pool), 0);
	assert_memory_equal(a, b, count * stride);
	for (uint32_t j = 0; j < count; j++) {
		uint32_t deg = gfec_lt_block(d, 77 + j, idx);

		memset(want, 0, B);
		for (uint32_t i = 0; i < deg; i++)
			for (size_t x = 0; x < B; x++)
				want[x] ^= seg[idx[i] * B + x];
		assert_memory_equal(a + j * stride, want, B);
		assert_int_equal(a[j * stride + B], 0x5A); /* the gap is untouched */
	}
	gfec_cpu_pool_destroy(pool);
	gfec_lt_dist_free(d);
	free(seg);
	free(a);
	free(b);
	free(want);
}

/*
 * One segment: blocks with random distinct seeds, about a third lost, in random order, added
 * until the decoder completes; the segment must come back exactly, and one block fewer must not
 * decode (nothing written).
 */
static void roundtrip(const struct gfec_lt_dist *d, size_t B)
{
	uint32_t n = d->n, total = n + n / 2 + 40, m, got = 0;
	uint8_t *seg = malloc((size_t)n * B), *out = malloc((size_t)n * B);
	uint8_t *coded = malloc((size_t)total * B);
	uint32_t *seeds = malloc(total * sizeof(uint32_t));
	uint32_t base = (uint32_t)test_rand();
	struct gfec_lt_decoder *dec;

	for (size_t i = 0; i < (size_t)n * B; i++)
		seg[i] = (uint8_t)test_rand();
	/* seeds base + 3i with a third dropped, then shuffled */
	for (uint32_t i = 0; got < total; i++)
		if (test_rand() % 3)
			seeds[got++] = base + 3 * i;
	for (uint32_t i = total - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(test_rand() % (i + 1)), t = seeds[i];

		seeds[i] = seeds[j];
		seeds[j] = t;
	}
	for (uint32_t i = 0; i < total; i++)
		assert_int_equal(gfec_lt_encode(d, seg, B, seeds[i], 1, coded + i * B, B, NULL), 0);
	assert_int_equal(gfec_lt_decoder_create(d, B, &dec), 0);
	for (m = 0; m < total; m++) {
		assert_int_equal(gfec_lt_decoder_add(dec, seeds[m], coded + (size_t)m * B),
				 (int)m + 1);
		if (gfec_lt_decoder_check(dec, m + 1, 0) == 1)
			break;
	}
	assert_true(m < total);
	assert_true(m + 1 >= n);
	if (m + 1 > 1) {
		/* the same blocks less the last: not decodable, nothing written */
		struct gfec_lt_decoder *less;

		assert_int_equal(gfec_lt_decoder_create(d, B, &less), 0);
		for (uint32_t i = 0; i < m; i++)
			assert_true(gfec_lt_decoder_add(less, seeds[i], coded + (size_t)i * B) > 0);
		memset(out, 0xC3, (size_t)n * B);
		assert_int_equal(gfec_lt_decoder_solve(less, out, 0), GFEC_E_TOOFEW);
		for (size_t i = 0; i < (size_t)n * B; i++)
			assert_int_equal(out[i], 0xC3);
		gfec_lt_decoder_free(less);
	}
	memset(out, 0, (size_t)n * B);
	assert_int_equal(gfec_lt_decoder_solve(dec, out, 0), 0);
	assert_memory_equal(out, seg, (size_t)n * B);
	/* reset: the next segment from scratch */
	gfec_lt_decoder_reset(dec);
	assert_int_equal(gfec_lt_decoder_count(dec), 0);
	assert_int_equal(gfec_lt_decoder_solve(dec, out, 0), GFEC_E_TOOFEW);
	gfec_lt_decoder_free(dec);
	free(seg);
	free(out);
	free(coded);
	free(seeds);
}

static void test_roundtrip(void **state)
{
	static const uint32_t ns[] = {1, 2, 128, 1024, 10240};

	(void)state;
	for (size_t t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
		struct gfec_lt_dist *d;
		int reps = ns[t] <= 128 ? 20 : ns[t] <= 1024 ? 3 : 1;

		assert_int_equal(gfec_lt_dist_create(ns[t], GFEC_LT_DEFAULT_C,
						     GFEC_LT_DEFAULT_DELTA, &d), 0);
		for (int r = 0; r < reps; r++)
			roundtrip(d, ns[t] >= 10240 ? 16 : (size_t)test_range(1, 64));
		gfec_lt_dist_free(d);
	}
}

/* The fewest blocks (seeds base, base + 1, ...) that decode, by bisection (decodability only
 * grows with more blocks for an exact decoder; peeling alone is checked the same way). */
static uint32_t needed(struct gfec_lt_decoder *dec, uint32_t base, uint32_t n, unsigned flags)
{
	uint32_t lo = n, hi = n;

	gfec_lt_decoder_reset(dec);
	for (uint32_t i = 0; i < n; i++)
		assert_true(gfec_lt_decoder_add(dec, base + i, NULL) > 0);
	while (gfec_lt_decoder_check(dec, hi, flags) != 1) {
		uint32_t more = hi / 8 + 8;

		lo = hi + 1;
		for (uint32_t i = 0; i < more; i++)
			assert_true(gfec_lt_decoder_add(dec, base + hi + i, NULL) > 0);
		hi += more;
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (gfec_lt_decoder_check(dec, mid, flags) == 1)
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}

/*
 * Overhead = extra blocks / n over many segments. Bounds, with inactivation (an exact decoder):
 * m blocks fail only if some source is in none of them or the matrix is rank-deficient. A source
 * is in none of m blocks with probability (1 - mean/n)^m <= e^{-mean m / n}: over n sources and
 * all the segments, below 10^-4 once m >= n ln(10^4 n segs) / mean, which with 30 blocks for rank
 * deficiency bounds every segment (this coverage tail, not the rank, makes the worst segments:
 * at n = 1024 one in about a thousand needs 10-20% more). A uniformly random GF(2) matrix needs
 * about 1.6 blocks beyond n on average and LT rows are sparser, so the mean may be at most 2% + 10
 * blocks. Peeling alone must sit near the thesis's figures (40%, 17%, 9%, 5%): its mean in
 * [0.3, 2] times them, and never below the exact decoder's.
 */
static void overhead(uint32_t n, int segs, double paper)
{
	struct gfec_lt_dist *d;
	struct gfec_lt_decoder *dec;
	double sum = 0.0, sum_peel = 0.0, worst = 0.0;
	uint32_t kmax = 0, max_m;
	int npeel = 0;

	assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d), 0);
	assert_int_equal(gfec_lt_decoder_create(d, 1, &dec), 0);
	max_m = (uint32_t)(n * log(1e4 * n * segs) / d->mean) + 30;
	for (int s = 0; s < segs; s++) {
		uint32_t base = (uint32_t)test_rand() & 0x7FFFFFFFu;
		uint32_t m = needed(dec, base, n, 0), mp;
		double o = (double)(m - n) / n;

		assert_true(gfec_lt_decoder_check(dec, m, 0) == 1);
		kmax = gfec_lt_decoder_inactivated(dec) > kmax ? gfec_lt_decoder_inactivated(dec)
								: kmax;
		sum += o;
		if (s % 4 == 0) { /* peeling alone on a quarter of the segments (CI time) */
			mp = needed(dec, base, n, GFEC_LT_PEEL_ONLY);
			assert_true(mp >= m);
			sum_peel += (double)(mp - n) / n;
			npeel++;
		}
		worst = o > worst ? o : worst;
		assert_true(m <= max_m);
	}
	fprintf(stderr, "# n=%u segments %d: overhead mean %.4f max %.4f (peeling alone %.4f, "
		"thesis %.2f); most inactivated %u\n", n, segs, sum / segs, worst, sum_peel / npeel,
		paper, kmax);
	assert_true(sum / segs <= 0.02 + 10.0 / n);
	assert_true(sum_peel / npeel >= 0.3 * paper && sum_peel / npeel <= 2.0 * paper);
	gfec_lt_decoder_free(dec);
	gfec_lt_dist_free(d);
}

static void test_overhead(void **state)
{
	(void)state;
	overhead(128, 1000, 0.40);
	overhead(1024, 1000, 0.17);
	overhead(4096, 200, 0.09);
	overhead(10240, 50, 0.05); /* 50 segments, not 1000, to keep CI in seconds */
}

/* Segments that peeling alone cannot finish: inactivation decodes them exactly. */
static void test_elimination_fallback(void **state)
{
	const uint32_t n = 1024;
	const size_t B = 24;
	struct gfec_lt_dist *d;
	struct gfec_lt_decoder *dec;
	uint8_t *seg = malloc(n * B), *out = malloc(n * B), *blk = malloc(B);
	int found = 0;

	(void)state;
	assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d), 0);
	assert_int_equal(gfec_lt_decoder_create(d, B, &dec), 0);
	for (int s = 0; s < 20 && found < 10; s++) {
		uint32_t base = (uint32_t)test_rand(), m;

		for (size_t i = 0; i < n * B; i++)
			seg[i] = (uint8_t)test_rand();
		gfec_lt_decoder_reset(dec);
		for (m = 0; m < 2 * n; m++) {
			assert_int_equal(gfec_lt_encode(d, seg, B, base + m, 1, blk, B, NULL), 0);
			assert_true(gfec_lt_decoder_add(dec, base + m, blk) > 0);
			if (m + 1 >= n && gfec_lt_decoder_check(dec, m + 1, 0) == 1)
				break;
		}
		if (gfec_lt_decoder_check(dec, m + 1, GFEC_LT_PEEL_ONLY) == 1)
			continue;
		found++;
		memset(out, 0x3C, n * B);
		assert_int_equal(gfec_lt_decoder_solve(dec, out, GFEC_LT_PEEL_ONLY), GFEC_E_TOOFEW);
		assert_int_equal(out[0], 0x3C);
		assert_int_equal(gfec_lt_decoder_solve(dec, out, 0), 0);
		assert_true(gfec_lt_decoder_inactivated(dec) > 0);
		assert_memory_equal(out, seg, n * B);
	}
	assert_int_equal(found, 10);
	gfec_lt_decoder_free(dec);
	gfec_lt_dist_free(d);
	free(seg);
	free(out);
	free(blk);
}

/*
 * The deficit a failed check reports against a plain GF(2) rank of the blocks' neighbour sets
 * (n = 128: two words per row): n - rank exactly when every source is in some block, a lower
 * bound of at least 1 otherwise; m < n gives n - m; a check that decodes gives 0.
 */
static void test_deficit(void **state)
{
	const uint32_t n = 128;
	struct gfec_lt_dist *d;
	struct gfec_lt_decoder *dec;
	uint32_t idx[128];
	int exact = 0;

	(void)state;
	assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d), 0);
	assert_int_equal(gfec_lt_decoder_create(d, 1, &dec), 0);
	for (int seg = 0; seg < 200; seg++) {
		uint32_t base = (uint32_t)test_rand();
		uint64_t piv[128][2] = { { 0 } }, cover[2] = { 0 };
		uint32_t rank = 0;

		gfec_lt_decoder_reset(dec);
		for (uint32_t m = 1; m <= 2 * n && rank < n; m++) {
			uint32_t deg = gfec_lt_block(d, base + m, idx);
			uint64_t row[2] = { 0 };
			int rc;

			assert_true(gfec_lt_decoder_add(dec, base + m, NULL) > 0);
			for (uint32_t i = 0; i < deg; i++) {
				row[idx[i] / 64] ^= 1ull << (idx[i] % 64);
				cover[idx[i] / 64] |= 1ull << (idx[i] % 64);
			}
			for (uint32_t j = 0; j < n; j++) {
				if (!(row[j / 64] >> (j % 64) & 1))
					continue;
				if (!(piv[j][0] | piv[j][1])) {
					piv[j][0] = row[0];
					piv[j][1] = row[1];
					rank++;
					break;
				}
				row[0] ^= piv[j][0];
				row[1] ^= piv[j][1];
			}
			rc = gfec_lt_decoder_check(dec, m, 0);
			assert_int_equal(rc, rank == n);
			if (rank == n) {
				assert_int_equal(gfec_lt_decoder_deficit(dec), 0);
			} else if (m < n) {
				assert_int_equal(gfec_lt_decoder_deficit(dec), n - m);
			} else if (cover[0] == ~0ull && cover[1] == ~0ull) {
				assert_int_equal(gfec_lt_decoder_deficit(dec), n - rank);
				exact++;
			} else {
				assert_true(gfec_lt_decoder_deficit(dec) >= 1 &&
					    gfec_lt_decoder_deficit(dec) <= n - rank);
			}
		}
	}
	assert_true(exact > 100);
	gfec_lt_decoder_free(dec);
	gfec_lt_dist_free(d);
}

/*
 * A check that decodes is kept for the next solve of the same blocks: solve after it, a second
 * solve, and a solve after reset() and as many other blocks (the kept pass must not be reused).
 */
static void test_check_then_solve(void **state)
{
	const uint32_t n = 128, m = 2 * n;
	const size_t B = 40;
	struct gfec_lt_dist *d;
	struct gfec_lt_decoder *dec;
	uint8_t *seg = malloc(n * B), *out = malloc(n * B), *blk = malloc(m * B);

	(void)state;
	assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d), 0);
	assert_int_equal(gfec_lt_decoder_create(d, B, &dec), 0);
	for (int round = 0; round < 4; round++) {
		uint32_t base = (uint32_t)test_rand();

		for (size_t i = 0; i < n * B; i++)
			seg[i] = (uint8_t)test_rand();
		assert_int_equal(gfec_lt_encode(d, seg, B, base, m, blk, B, NULL), 0);
		gfec_lt_decoder_reset(dec);
		for (uint32_t j = 0; j < m; j++)
			assert_true(gfec_lt_decoder_add(dec, base + j, blk + (size_t)j * B) > 0);
		/* odd rounds solve straight away: the last round's final check must not count */
		if (round % 2 == 0)
			assert_int_equal(gfec_lt_decoder_check(dec, m, 0), 1);
		for (int again = 0; again < 2; again++) {
			memset(out, 0x11, n * B);
			assert_int_equal(gfec_lt_decoder_solve(dec, out, 0), 0);
			assert_memory_equal(out, seg, n * B);
		}
		/* a check of fewer blocks than held, then solve: all of them */
		assert_true(gfec_lt_decoder_check(dec, m - 1, 0) >= 0);
		memset(out, 0x22, n * B);
		assert_int_equal(gfec_lt_decoder_solve(dec, out, 0), 0);
		assert_memory_equal(out, seg, n * B);
		/* kept for a solve of these m blocks, which the next round's reset replaces */
		assert_int_equal(gfec_lt_decoder_check(dec, m, 0), 1);
	}
	gfec_lt_decoder_free(dec);
	gfec_lt_dist_free(d);
	free(seg);
	free(out);
	free(blk);
}

/*
 * Checks that extend a failed pass (lt.c's extend()) against a new pass over the same blocks, and
 * solves after them: blocks added one at a time from n on, checked at random points (so that one
 * extension takes 1..8 blocks), with PEEL_ONLY checks and solves between them; each check's answer
 * and deficit equal those of a fresh decoder's single pass, and every solve that succeeds (also one
 * that extends a failed pass itself) gives back the segment.
 */
static void test_extend(void **state)
{
	const uint32_t n = 200, most = 3 * n;
	const size_t B = 24;
	struct gfec_lt_dist *d;
	struct gfec_lt_decoder *dec, *fresh;
	uint8_t *seg = malloc(n * B), *out = malloc(n * B), *blk = malloc(most * B);
	int extended = 0;

	(void)state;
	assert_non_null(seg);
	assert_non_null(out);
	assert_non_null(blk);
	assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d), 0);
	assert_int_equal(gfec_lt_decoder_create(d, B, &dec), 0);
	assert_int_equal(gfec_lt_decoder_create(d, 1, &fresh), 0);
	for (int round = 0; round < 100; round++) {
		uint32_t base = (uint32_t)test_rand(), m = 0;
		int rc = 0, ext = 0; /* ext: the last pass was a full one that failed */

		for (size_t i = 0; i < n * B; i++)
			seg[i] = (uint8_t)test_rand();
		assert_int_equal(gfec_lt_encode(d, seg, B, base, most, blk, B, NULL), 0);
		gfec_lt_decoder_reset(dec);
		while (m < most && rc != 1) {
			assert_true(gfec_lt_decoder_add(dec, base + m, blk + (size_t)m * B) > 0);
			m++;
			if (m < n || test_rand() % 4 == 0)
				continue;
			switch (test_rand() % 8) {
			case 0: /* a peeling-only check between: the next is a new pass */
				assert_true(gfec_lt_decoder_check(dec, m, GFEC_LT_PEEL_ONLY) >= 0);
				ext = 0;
				break;
			case 1: /* a solve: it decodes exactly when a check would say so */
				memset(out, 0x33, n * B);
				rc = gfec_lt_decoder_solve(dec, out, 0);
				assert_true(rc == 0 || rc == GFEC_E_TOOFEW);
				if (rc == 0)
					assert_memory_equal(out, seg, n * B);
				else
					ext = 1;
				rc = rc == 0;
				break;
			default:
				rc = gfec_lt_decoder_check(dec, m, 0);
				extended += ext;
				ext = rc == 0;
				gfec_lt_decoder_reset(fresh);
				for (uint32_t j = 0; j < m; j++)
					assert_true(gfec_lt_decoder_add(fresh, base + j, NULL) > 0);
				assert_int_equal(rc, gfec_lt_decoder_check(fresh, m, 0));
				assert_int_equal(gfec_lt_decoder_deficit(dec),
						 gfec_lt_decoder_deficit(fresh));
				if (rc == 1) {
					memset(out, 0x44, n * B);
					assert_int_equal(gfec_lt_decoder_solve(dec, out, 0), 0);
					assert_memory_equal(out, seg, n * B);
				}
			}
		}
		assert_int_equal(rc, 1);
	}
	assert_true(extended > 80); /* about 1.6 a round */
	gfec_lt_decoder_free(dec);
	gfec_lt_decoder_free(fresh);
	gfec_lt_dist_free(d);
	free(seg);
	free(out);
	free(blk);
}

/*
 * solve()'s schedule and stripes on random shapes: n in 1..1200, B from 1 to 700 (one stripe
 * narrower than LT_STRIPE = 128 bytes, whole stripes, whole stripes and a narrower last one),
 * random seeds, a random share of them lost, in random order, and from none to n blocks past the
 * fewest that decode: the dense part from its largest down to empty (peeling alone). Every solve
 * writes the segment exactly over a poisoned out, from the check's pass and again from a new one;
 * both ends of the dense part must have come up.
 */
static void test_schedule(void **state)
{
	uint32_t empty = 0, large = 0;

	(void)state;
	for (int t = 0; t < 24; t++) {
		const uint32_t n = (uint32_t)test_range(1, 1200), total = 3 * n + 64;
		const size_t B = t % 3 == 0 ? (size_t)test_range(1, 127)
			       : t % 3 == 1 ? 128 * (size_t)test_range(1, 4)
					    : (size_t)test_range(129, 700);
		const int loss = test_range(0, 50);
		struct gfec_lt_dist *d;
		struct gfec_lt_decoder *dec;
		uint8_t *seg = malloc(n * B), *out = malloc(n * B), *blk = malloc(B);
		uint32_t *seeds = malloc(total * sizeof(uint32_t)), base = (uint32_t)test_rand();
		uint32_t m = 0, extra, k;

		assert_non_null(seg);
		assert_non_null(out);
		assert_non_null(blk);
		assert_non_null(seeds);
		for (size_t i = 0; i < n * B; i++)
			seg[i] = (uint8_t)test_rand();
		for (uint32_t i = 0, got = 0; got < total; i++)
			if (test_range(0, 99) >= loss)
				seeds[got++] = base + i;
		for (uint32_t i = total - 1; i > 0; i--) {
			uint32_t j = (uint32_t)(test_rand() % (i + 1)), x = seeds[i];

			seeds[i] = seeds[j];
			seeds[j] = x;
		}
		assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d),
				 0);
		assert_int_equal(gfec_lt_decoder_create(d, B, &dec), 0);
		do {
			assert_true(m < total);
			assert_int_equal(gfec_lt_encode(d, seg, B, seeds[m], 1, blk, B, NULL), 0);
			assert_int_equal(gfec_lt_decoder_add(dec, seeds[m], blk), (int)m + 1);
			m++;
		} while (m < n || gfec_lt_decoder_check(dec, m, 0) != 1);
		extra = t % 4 == 0 ? 0 : t % 4 == 1 ? n : (uint32_t)test_range(0, (int)(n * 3 / 10));
		for (uint32_t i = 0; i < extra && m < total; i++, m++) {
			assert_int_equal(gfec_lt_encode(d, seg, B, seeds[m], 1, blk, B, NULL), 0);
			assert_int_equal(gfec_lt_decoder_add(dec, seeds[m], blk), (int)m + 1);
		}
		if (extra) /* the pass the solve below takes is the check's */
			assert_int_equal(gfec_lt_decoder_check(dec, m, 0), 1);
		for (int again = 0; again < 2; again++) {
			memset(out, 0xA5 ^ again, n * B);
			assert_int_equal(gfec_lt_decoder_solve(dec, out, 0), 0);
			assert_memory_equal(out, seg, n * B);
		}
		k = gfec_lt_decoder_inactivated(dec);
		empty += k == 0;
		large += k >= 16;
		gfec_lt_decoder_free(dec);
		gfec_lt_dist_free(d);
		free(seg);
		free(out);
		free(blk);
		free(seeds);
	}
	assert_true(empty > 0);
	assert_true(large > 0);
}

/*
 * The inactivated values by the method of four Russians (lt.c's m4r_sums(), from 32 inactivated
 * on) and without (fewer): n = 2048 at the fewest blocks that decode and up to n/8 past them, so
 * that k runs from about 100 down to a few, random loss, order and B (one stripe narrower than
 * 128 bytes, whole stripes, a narrower last one). Segments until k >= 32 has come up both as a
 * multiple of 4 and not (a last group of 1-3), and 0 < k < 32; each solve over a poisoned out,
 * 16-byte aligned or not (the copy out by non-temporal stores, or not).
 */
static void test_dense_sums(void **state)
{
	const uint32_t n = 2048;
	struct gfec_lt_dist *d;
	int whole = 0, part = 0, few = 0, t;

	(void)state;
	assert_int_equal(gfec_lt_dist_create(n, GFEC_LT_DEFAULT_C, GFEC_LT_DEFAULT_DELTA, &d), 0);
	for (t = 0; t < 60 && !(whole && part && few); t++) {
		const size_t B = t % 3 == 0 ? (size_t)test_range(1, 127)
			       : t % 3 == 1 ? 128 * (size_t)test_range(1, 3)
					    : (size_t)test_range(129, 500);
		const uint32_t extra = (uint32_t)test_range(0, 3) * n / 24, total = 2 * n;
		uint8_t *seg = malloc(n * B), *buf = malloc(n * B + 1), *blk = malloc(B);
		uint8_t *out = buf + (t / 3) % 2; /* malloc's alignment, or one byte past it */
		uint32_t base = (uint32_t)test_rand(), m = 0, k;
		struct gfec_lt_decoder *dec;

		assert_non_null(seg);
		assert_non_null(buf);
		assert_non_null(blk);
		for (size_t i = 0; i < n * B; i++)
			seg[i] = (uint8_t)test_rand();
		assert_int_equal(gfec_lt_decoder_create(d, B, &dec), 0);
		do { /* seeds base, base + 2, ...: every other block lost */
			const uint32_t seed = base + 2 * m;

			assert_true(m < total);
			assert_int_equal(gfec_lt_encode(d, seg, B, seed, 1, blk, B, NULL), 0);
			assert_int_equal(gfec_lt_decoder_add(dec, seed, blk), (int)m + 1);
			m++;
		} while (m < n || gfec_lt_decoder_check(dec, m, 0) != 1);
		for (uint32_t i = 0; i < extra; i++, m++) {
			const uint32_t seed = base + 2 * m;

			assert_int_equal(gfec_lt_encode(d, seg, B, seed, 1, blk, B, NULL), 0);
			assert_int_equal(gfec_lt_decoder_add(dec, seed, blk), (int)m + 1);
		}
		memset(out, 0x5A, n * B);
		assert_int_equal(gfec_lt_decoder_solve(dec, out, 0), 0);
		assert_memory_equal(out, seg, n * B);
		k = gfec_lt_decoder_inactivated(dec);
		whole += k >= 32 && k % 4 == 0;
		part += k >= 32 && k % 4 != 0;
		few += k > 0 && k < 32;
		gfec_lt_decoder_free(dec);
		free(seg);
		free(buf);
		free(blk);
	}
	print_message("# dense sums: %d segments, k >= 32: %d with a whole last group, %d without;"
		      " 0 < k < 32: %d\n", t, whole, part, few);
	assert_true(whole && part && few);
	gfec_lt_dist_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extend),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_deficit),
		cmocka_unit_test(test_check_then_solve),
		cmocka_unit_test(test_mean_degree),
		cmocka_unit_test(test_degree_chisq),
		cmocka_unit_test(test_neighbours),
		cmocka_unit_test(test_degree_guide),
		cmocka_unit_test(test_neighbours_uniform),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_overhead),
		cmocka_unit_test(test_elimination_fallback),
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_dense_sums),
	};

	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
