/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_codec_w16.c
 * The codec over GF(2^16) (profile key w=16, issue 13) end to end through the public API.
 * References: Jerasure's jerasure_matrix_encode(w = 16) with Jerasure's own
 * reed_sol_vandermonde_coding_matrix(k, m, 16) (technique=jerasure_reed_sol_van) or with the
 * Cauchy matrix 1 / ((k+i) ^ j) computed by Jerasure's galois_single_divide (technique=cauchy),
 * and the original data for every decode. Output buffers are poisoned before every call; calls
 * that must fail must leave them so. ctest runs this file on the default CPU path and with
 * GFEC_CPU_PATH=base (the plain-C w = 16 kernel); with the argument "gpu" (test codec_w16_gpu,
 * label gpu) every codec whose profile names no backend gets backend=gpu, and the run is skipped
 * (exit 77) where no GPU codec can be made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <galois.h>
#include <jerasure.h>
#include <reed_sol.h>

#include "cpu_backend.h"
#include "gf16.h"
#include "gfec/gfec.h"
#include "matrix.h"
#include "test_util.h"
#include "codec_test.h"

static int all_poison(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != TEST_POISON)
			return 0;
	return 1;
}

/* Jerasure's generator for a technique: its own Vandermonde matrix, or the Cauchy one. */
static int *jerasure_matrix(int rs_van, int k, int m)
{
	int *jm;

	if (rs_van)
		return reed_sol_vandermonde_coding_matrix(k, m, 16);
	jm = malloc(sizeof(int) * (size_t)k * m);
	assert_non_null(jm);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < k; j++)
			jm[i * k + j] = galois_single_divide(1, (k + i) ^ j, 16);
	return jm;
}

/*
 * The stripe's parity must equal jerasure_matrix_encode(w = 16) with Jerasure's matrix, run on
 * aligned copies of the data (gf-complete wants matching alignments).
 */
static void check_against_jerasure(int rs_van, const struct tstripe *s)
{
	const int k = s->k, m = s->m;
	int *jm = jerasure_matrix(rs_van, k, m);
	char **data = calloc((size_t)k, sizeof(*data));
	char **coding = calloc((size_t)m, sizeof(*coding));

	assert_non_null(jm);
	assert_non_null(data);
	assert_non_null(coding);
	for (int j = 0; j < k; j++) {
		assert_int_equal(posix_memalign((void **)&data[j], 64, s->len + 64), 0);
		memcpy(data[j], s->c[j], s->len);
	}
	for (int i = 0; i < m; i++)
		assert_int_equal(posix_memalign((void **)&coding[i], 64, s->len + 64), 0);
	jerasure_matrix_encode(k, m, 16, jm, data, coding, (int)s->len);
	for (int i = 0; i < m; i++)
		if (memcmp(coding[i], s->c[k + i], s->len) != 0)
			fail_msg("%s k=%d m=%d len=%zu: parity %d differs from Jerasure's",
				 rs_van ? "jerasure_reed_sol_van" : "cauchy", k, m, s->len, i);
	for (int j = 0; j < k; j++)
		free(data[j]);
	for (int i = 0; i < m; i++)
		free(coding[i]);
	free(data);
	free(coding);
	free(jm);
}

static const char *tech(int rs_van)
{
	return rs_van ? "jerasure_reed_sol_van" : "cauchy";
}

/* --- encode against Jerasure ------------------------------------------------------------------ */

static void test_small_shapes_match_jerasure(void **state)
{
	(void)state;
	for (int t = 0; t < 2; t++)
		for (int rep = 0; rep < 12; rep++) {
			const int k = test_range(2, 48), m = test_range(1, k < 64 - k ? k : 64 - k);
			const size_t len = 2 * (size_t)test_range(0, 1200);
			struct tstripe s;
			gfec_codec *c = make("k=%d m=%d w=16 technique=%s", k, m, tech(t));

			tstripe_init(&s, k, m, len, 1);
			encode(c, &s);
			check_against_jerasure(t, &s);
			tstripe_free(&s);
			gfec_codec_free(c);
		}
}

/*
 * Large shapes on sampled columns: short chunks (a few dozen symbols per chunk). Jerasure builds
 * its Vandermonde matrix in (k+m) k^2 multiplies (20 s at 1000 + 200 on this VM), so that
 * technique is checked at 500 + 100. (2000, 300) has more coefficients than the CPU backend
 * keeps tables for, so its tables are made per slice.
 */
static void test_large_shapes_match_jerasure(void **state)
{
	static const int shapes[][3] = { { 500, 100, 1 }, { 1000, 200, 0 }, { 2000, 300, 0 } };

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const int k = shapes[i][0], m = shapes[i][1], rs_van = shapes[i][2];
		gfec_codec *c = make("k=%d m=%d w=16 technique=%s", k, m, tech(rs_van));
		struct tstripe s;

		tstripe_init(&s, k, m, 2 * (size_t)test_range(40, 80), 1);
		encode(c, &s);
		check_against_jerasure(rs_van, &s);
		tstripe_free(&s);
		gfec_codec_free(c);
	}
}

/* --- decode ---------------------------------------------------------------------------------- */

/*
 * gfmatrix's closed-form Cauchy decode matrices equal the ones Gauss-Jordan elimination gives
 * (gfec_matrix_decode_w on the same generator), for random sources and targets, including
 * shapes whose k+m is not a power of two and one of 65536 points.
 */
static void test_cauchy_form_equals_inverse(void **state)
{
	static const int shapes[][2] = { { 2, 1 }, { 3, 2 }, { 7, 5 }, { 16, 16 }, { 37, 11 },
					 { 100, 28 }, { 129, 127 }, { 300, 45 } };

	(void)state;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]) + 1; s++) {
		const int last = s == sizeof(shapes) / sizeof(shapes[0]);
		const int k = last ? 65530 : shapes[s][0], m = last ? 6 : shapes[s][1], n = k + m;
		uint16_t *g = malloc(sizeof(*g) * (size_t)k * m);
		int *perm = malloc(sizeof(int) * (size_t)n);
		uint16_t *x = malloc(2 * (size_t)m), *r = malloc(2 * (size_t)m);
		uint16_t *y = malloc(2 * (size_t)k), *c = malloc(2 * (size_t)k);
		uint16_t *want_d = malloc(2 * (size_t)m * k), *got_d = malloc(2 * (size_t)m * k);

		assert_true(g && perm && x && r && y && c && want_d && got_d);
		assert_int_equal(gfec_matrix_cauchy_w(16, k, m, g), 0);
		for (int rep = 0; rep < (last ? 1 : 4); rep++) {
			/* sources: k random chunks in random order; targets: the others, shuffled */
			for (int i = 0; i < n; i++)
				perm[i] = i;
			for (int i = n - 1; i > 0; i--) {
				int j = (int)(test_rand() % (uint64_t)(i + 1)), t = perm[i];

				perm[i] = perm[j];
				perm[j] = t;
			}
			const int nwant = test_range(1, m);

			assert_int_equal(gfec_matrix_decode_w(16, g, k, m, perm, perm + k, nwant,
							      want_d),
					 0);
			assert_int_equal(gfec_matrix_cauchy16_decode(k, m, perm, perm + k, nwant, x,
								     r, y, c),
					 0);
			gfec_matrix_cauchy16_expand(nwant, k, x, r, y, c, got_d);
			if (memcmp(want_d, got_d, 2 * (size_t)nwant * k) != 0)
				fail_msg("k=%d m=%d: the closed-form decode matrix differs", k, m);
		}
		/* a wanted chunk that is also a source, and a repeated source, are refused */
		assert_int_equal(gfec_matrix_cauchy16_decode(k, m, perm, perm, 1, x, r, y, c),
				 GFEC_E_INVAL);
		perm[1] = perm[0];
		assert_int_equal(gfec_matrix_cauchy16_decode(k, m, perm, perm + k, 1, x, r, y, c),
				 GFEC_E_INVAL);
		free(g);
		free(perm);
		free(x);
		free(r);
		free(y);
		free(c);
		free(want_d);
		free(got_d);
	}
}

/* Decodes the erasures in @p lost (nlost of them) of an encoded stripe and checks every byte. */
static void decode_and_check(gfec_codec *c, const struct tstripe *s, const int *lost, int nlost)
{
	const int n = s->k + s->m;
	const uint8_t **have = calloc((size_t)n, sizeof(*have));
	uint8_t **out = calloc((size_t)n, sizeof(*out));
	struct test_buf *ob = calloc((size_t)nlost, sizeof(*ob));

	assert_non_null(have);
	assert_non_null(out);
	assert_non_null(ob);
	for (int i = 0; i < n; i++)
		have[i] = s->c[i];
	for (int e = 0; e < nlost; e++) {
		have[lost[e]] = NULL;
		out[lost[e]] = tbuf_alloc(&ob[e], s->len, (unsigned)test_range(0, 63));
		memset(out[lost[e]], TEST_POISON, s->len);
	}
	assert_int_equal(gfec_decode(c, have, out, s->len), 0);
	for (int e = 0; e < nlost; e++)
		if (memcmp(out[lost[e]], s->c[lost[e]], s->len) != 0)
			fail_msg("k=%d m=%d: chunk %d decoded wrong (%d lost)", s->k, s->m, lost[e],
				 nlost);
	for (int e = 0; e < nlost; e++)
		tbuf_free(&ob[e]);
	free(ob);
	free(have);
	free(out);
}

static void test_every_erasure_pattern(void **state)
{
	static const int codes[][2] = { { 2, 1 }, { 3, 3 }, { 4, 2 }, { 6, 3 }, { 8, 4 } };

	(void)state;
	for (int t = 0; t < 2; t++)
		for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
			const int k = codes[i][0], m = codes[i][1], n = k + m;
			gfec_codec *c = make("k=%d m=%d w=16 technique=%s", k, m, tech(t));
			struct tstripe s;
			int lost[16], patterns = 0;

			tstripe_init(&s, k, m, 2 * (size_t)test_range(1, 300), 1);
			encode(c, &s);
			for (unsigned mask = 1; mask < 1u << n; mask++) {
				int nlost = 0;

				if (__builtin_popcount(mask) > m)
					continue;
				for (int b = 0; b < n; b++)
					if (mask >> b & 1)
						lost[nlost++] = b;
				decode_and_check(c, &s, lost, nlost);
				patterns++;
			}
			/* Losing more than m chunks is refused. */
			for (int e = 0; e <= m; e++)
				lost[e] = e;
			const uint8_t **have = calloc((size_t)n, sizeof(*have));
			uint8_t **out = calloc((size_t)n, sizeof(*out));

			for (int j = m + 1; j < n; j++)
				have[j] = s.c[j];
			for (int e = 0; e <= m; e++)
				out[e] = s.c[k]; /* never written: the call fails first */
			assert_int_equal(gfec_decode(c, have, out, s.len), GFEC_E_TOOFEW);
			free(have);
			free(out);
			assert_true(patterns > 0);
			tstripe_free(&s);
			gfec_codec_free(c);
		}
}

/* Exactly m random losses, a few times per shape; the last shape has k + m > 10000. */
static void test_random_m_losses(void **state)
{
	static const int shapes[][3] = { { 100, 20, 1 }, { 100, 20, 0 }, { 1000, 200, 0 },
					 { 10200, 40, 0 } };

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const int k = shapes[i][0], m = shapes[i][1], n = k + m;
		gfec_codec *c = make("k=%d m=%d w=16 technique=%s", k, m, tech(shapes[i][2]));
		int *lost = malloc(sizeof(int) * (size_t)n);
		struct tstripe s;

		assert_non_null(lost);
		tstripe_init(&s, k, m, 2 * (size_t)test_range(20, 100), 1);
		encode(c, &s);
		for (int rep = 0; rep < (k > 500 ? 2 : 4); rep++) {
			/* m distinct chunks: a partial Fisher-Yates shuffle of 0..n-1 */
			for (int x = 0; x < n; x++)
				lost[x] = x;
			for (int e = 0; e < m; e++) {
				int r = e + (int)(test_rand() % (uint64_t)(n - e)), t = lost[e];

				lost[e] = lost[r];
				lost[r] = t;
			}
			decode_and_check(c, &s, lost, m);
		}
		tstripe_free(&s);
		free(lost);
		gfec_codec_free(c);
	}
}

/* Several stripes with mixed patterns in one call; the decode plan cache serves repeats. */
static void test_decode_batch_and_cache(void **state)
{
	enum { K = 300, M = 60, N = K + M, S = 4 };
	gfec_codec *c = make("k=%d m=%d w=16 decode_cache=4", K, M);
	struct tstripe s[S];
	const uint8_t **have = calloc((size_t)N * S, sizeof(*have));
	uint8_t **out = calloc((size_t)N * S, sizeof(*out));
	struct test_buf ob[S][3];
	struct gfec_stats st0, st1;
	const size_t len = 1000;

	(void)state;
	assert_non_null(have);
	assert_non_null(out);
	for (int t = 0; t < S; t++) {
		/* stripes 0 and 2 lose the same chunks, 1 and 3 others (some beyond chunk 255) */
		const int lost[3] = { t % 2 ? 7 : 1, t % 2 ? 299 : 250, t % 2 ? 340 : 359 };

		tstripe_init(&s[t], K, M, len, 1);
		encode(c, &s[t]);
		for (int i = 0; i < N; i++)
			have[(size_t)t * N + i] = s[t].c[i];
		for (int e = 0; e < 3; e++) {
			have[(size_t)t * N + lost[e]] = NULL;
			out[(size_t)t * N + lost[e]] = tbuf_alloc(&ob[t][e], len, 3);
			memset(out[(size_t)t * N + lost[e]], TEST_POISON, len);
		}
	}
	gfec_codec_stats(c, &st0);
	assert_int_equal(gfec_decode_batch(c, S, have, out, len), 0);
	for (int t = 0; t < S; t++)
		for (int i = 0; i < N; i++)
			if (!have[(size_t)t * N + i])
				assert_memory_equal(out[(size_t)t * N + i], s[t].c[i], len);
	/* the same patterns again: both plans come from the cache */
	assert_int_equal(gfec_decode_batch(c, S, have, out, len), 0);
	gfec_codec_stats(c, &st1);
	assert_int_equal(st1.decode_cache_misses - st0.decode_cache_misses, 2);
	assert_int_equal(st1.decode_cache_hits - st0.decode_cache_hits, 2);
	assert_int_equal(st1.decodes - st0.decodes, 2 * S);
	for (int t = 0; t < S; t++) {
		for (int e = 0; e < 3; e++)
			tbuf_free(&ob[t][e]);
		tstripe_free(&s[t]);
	}
	free(have);
	free(out);
	gfec_codec_free(c);
}

static void test_reconstruct_and_verify(void **state)
{
	enum { K = 40, M = 8 };
	gfec_codec *c = make("k=%d m=%d w=16 technique=jerasure_reed_sol_van", K, M);
	uint8_t **chunks = calloc(K + M, sizeof(*chunks)), ok[M];
	struct tstripe s;

	(void)state;
	assert_non_null(chunks);
	tstripe_init(&s, K, M, 4096 + 64, 1);
	encode(c, &s);
	assert_int_equal(gfec_verify(c, (const uint8_t *const *)s.c, s.len, ok), 0);
	for (int i = 0; i < M; i++)
		assert_int_equal(ok[i], 1);
	/* one flipped symbol byte in parity 5 */
	s.c[K + 5][1001] ^= 0x10;
	assert_int_equal(gfec_verify(c, (const uint8_t *const *)s.c, s.len, ok), GFEC_E_MISMATCH);
	for (int i = 0; i < M; i++)
		assert_int_equal(ok[i], i != 5);
	s.c[K + 5][1001] ^= 0x10;

	for (int i = 0; i < K + M; i++)
		chunks[i] = i % 6 == 1 ? NULL : s.c[i];
	assert_int_equal(gfec_reconstruct(c, chunks, s.len), 0);
	for (int i = 0; i < K + M; i++) {
		assert_memory_equal(chunks[i], s.c[i], s.len);
		if (i % 6 == 1)
			gfec_free(chunks[i]);
	}
	free(chunks);
	tstripe_free(&s);
	gfec_codec_free(c);
}

/* parity after update(delta) == parity of the new data, on one and two threads. */
static void test_update_equals_reencode(void **state)
{
	static const int shapes[][3] = { { 10, 4, 1 }, { 300, 30, 2 }, { 20, 20, 2 } };

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const int k = shapes[i][0], m = shapes[i][1];
		/* 300 KiB reaches the thread pool's slices on two threads */
		const size_t len = i == 2 ? 300 * 1024 : 2 * (size_t)test_range(1, 3000);
		gfec_codec *c = make("k=%d m=%d w=16 threads=%d", k, m, shapes[i][2]);
		struct tstripe s, t;
		const int col = test_range(0, k - 1);
		uint8_t *delta = malloc(len);

		assert_non_null(delta);
		tstripe_init(&s, k, m, len, 1);
		tstripe_init(&t, k, m, len, 1);
		for (int j = 0; j < k; j++)
			memcpy(t.c[j], s.c[j], len);
		test_fill(t.c[col], len);
		for (size_t b = 0; b < len; b++)
			delta[b] = s.c[col][b] ^ t.c[col][b];
		encode(c, &s);
		encode(c, &t);
		assert_int_equal(gfec_update(c, col, delta, s.c + k, len), 0);
		for (int r = 0; r < m; r++)
			assert_memory_equal(s.c[k + r], t.c[k + r], len);
		free(delta);
		tstripe_free(&s);
		tstripe_free(&t);
		gfec_codec_free(c);
	}
}

/* encode_batch of 3 stripes == three encodes; two threads over long chunks. */
static void test_encode_batch_threads(void **state)
{
	enum { K = 12, M = 5, S = 3 };
	gfec_codec *c = make("k=%d m=%d w=16 threads=2", K, M);
	const size_t len = 200 * 1024 + 62;
	struct tstripe s[S], ref;
	const uint8_t *data[K * S];
	uint8_t *parity[M * S];

	(void)state;
	for (int t = 0; t < S; t++) {
		tstripe_init(&s[t], K, M, len, 1);
		for (int j = 0; j < K; j++)
			data[t * K + j] = s[t].c[j];
		for (int i = 0; i < M; i++)
			parity[t * M + i] = s[t].c[K + i];
	}
	assert_int_equal(gfec_encode_batch(c, S, data, parity, len), 0);
	for (int t = 0; t < S; t++) {
		tstripe_init(&ref, K, M, len, 1);
		for (int j = 0; j < K; j++)
			memcpy(ref.c[j], s[t].c[j], len);
		encode(c, &ref);
		for (int i = 0; i < M; i++)
			assert_memory_equal(ref.c[K + i], s[t].c[K + i], len);
		check_against_jerasure(0, &s[t]);
		tstripe_free(&ref);
		tstripe_free(&s[t]);
	}
	gfec_codec_free(c);
}

static void test_minimum_to_decode(void **state)
{
	enum { K = 300, M = 100, N = K + M };
	gfec_codec *c = make("k=%d m=%d w=16", K, M);
	int avail[N], need[N], nneed, navail = 0;
	const int want1[] = { 5, 299, 399 };

	(void)state;
	for (int i = 0; i < N; i++)
		if (i != 5 && i != 17)
			avail[navail++] = i;
	/* all wanted chunks available: the answer is the wanted chunks */
	assert_int_equal(gfec_minimum_to_decode(c, want1 + 1, 2, avail, navail, need, &nneed), 0);
	assert_int_equal(nneed, 2);
	assert_int_equal(need[0], 299);
	assert_int_equal(need[1], 399);
	/* chunk 5 is missing: k chunks, data first, so 0..4, 6..16, 18..301 */
	assert_int_equal(gfec_minimum_to_decode(c, want1, 3, avail, navail, need, &nneed), 0);
	assert_int_equal(nneed, K);
	assert_int_equal(need[0], 0);
	assert_int_equal(need[5], 6);
	assert_int_equal(need[K - 1], 301);
	/* fewer than k available */
	assert_int_equal(gfec_minimum_to_decode(c, want1, 3, avail, K - 1, need, &nneed),
			 GFEC_E_TOOFEW);
	/* an index past the last chunk */
	const int bad[] = { N };

	assert_int_equal(gfec_minimum_to_decode(c, bad, 1, avail, navail, need, &nneed),
			 GFEC_E_INVAL);
	gfec_codec_free(c);
}

/* --- the codec's w, its profile, bad input ------------------------------------------------ */

static void test_profile_and_w(void **state)
{
	char buf[256];
	gfec_codec *c = make("k=6 m=3 w=16");

	(void)state;
	assert_int_equal(gfec_codec_w(c), 16);
	assert_int_equal(gfec_codec_k(c), 6);
	assert_true(gfec_codec_profile(c, buf, sizeof(buf)) < sizeof(buf));
	assert_non_null(strstr(buf, "k=6 m=3 w=16 technique=cauchy"));
	/* chunk sizes stay multiples of GFEC_ALIGN, so always even */
	assert_int_equal(gfec_codec_chunk_size(c, 1), GFEC_ALIGN);
	assert_int_equal(gfec_codec_chunk_size(c, 6 * 100 + 1), 128);
	gfec_codec_free(c);
	/* the default and an explicit w=8 are the GF(2^8) codec, whose profile does not say w */
	c = make("k=6 m=3 w=8");
	assert_int_equal(gfec_codec_w(c), 8);
	assert_true(gfec_codec_profile(c, buf, sizeof(buf)) < sizeof(buf));
	assert_null(strstr(buf, "w="));
	gfec_codec_free(c);
	/* k + m beyond GF(2^8)'s 256 chunks */
	c = make("k=40000 m=2 w=16");
	assert_int_equal(gfec_codec_chunk_count(c), 40002);
	gfec_codec_free(c);
	assert_int_equal(gfec_codec_w(NULL), GFEC_E_INVAL);
}

struct bad_profile {
	const char *profile;
	int code;
	const char *says;
};

static void test_bad_profiles(void **state)
{
	static const struct bad_profile cases[] = {
		{ "k=4 m=2 w=12", GFEC_E_PROFILE, "w=12" },
		{ "k=4 m=2 w=", GFEC_E_PROFILE, "w=" },
		{ "k=4 m=2 w=016", GFEC_E_PROFILE, "w=016" },
		{ "k=32769 m=32768 w=16", GFEC_E_PROFILE, "k+m" },
		{ "k=200 m=57", GFEC_E_PROFILE, "k+m" },
		{ "k=4 m=2 w=16 technique=reed_sol_van", GFEC_E_PROFILE, "w=16" },
		{ "k=4 m=2 w=16 technique=cauchy_good", GFEC_E_PROFILE, "technique=cauchy_good" },
		/* generated on the fly, which the GPU backend does not do */
		{ "k=5800 m=5800 w=16 backend=gpu", GFEC_E_NOTSUP, "backend=gpu" },
		{ "k=3000 m=1000 w=16 technique=jerasure_reed_sol_van", GFEC_E_NOTSUP,
		  "technique=cauchy" },
	};
	char err[256];
	gfec_codec *c;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = (gfec_codec *)&c;
		err[0] = '\0';
		int ret = gfec_codec_create(cases[i].profile, &c, err, sizeof(err));

		if (ret != cases[i].code || !strstr(err, cases[i].says))
			fail_msg("\"%s\": got %d \"%s\", want %d naming \"%s\"", cases[i].profile,
				 ret, err, cases[i].code, cases[i].says);
		assert_null(c);
	}
}

/* An odd length is GFEC_E_INVAL from every call, and nothing is written. */
static void test_odd_length_refused(void **state)
{
	enum { K = 5, M = 3, N = K + M };
	gfec_codec *c = make("k=%d m=%d w=16", K, M);
	const size_t len = 301;
	struct tstripe s;
	const uint8_t *have[N];
	uint8_t *out[N] = { 0 }, *chunks[N], ok[M];

	(void)state;
	tstripe_init(&s, K, M, len, 1);
	for (int i = 0; i < N; i++)
		have[i] = s.c[i];
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)s.c, s.c + K, len), GFEC_E_INVAL);
	assert_int_equal(gfec_encode_batch(c, 1, (const uint8_t *const *)s.c, s.c + K, len),
			 GFEC_E_INVAL);
	assert_int_equal(gfec_update(c, 2, s.c[0], s.c + K, len), GFEC_E_INVAL);
	have[1] = NULL;
	out[1] = s.c[K];
	assert_int_equal(gfec_decode(c, have, out, len), GFEC_E_INVAL);
	assert_int_equal(gfec_decode_batch(c, 1, have, out, len), GFEC_E_INVAL);
	for (int i = 0; i < N; i++)
		chunks[i] = i == 1 ? NULL : s.c[i];
	assert_int_equal(gfec_reconstruct(c, chunks, len), GFEC_E_INVAL);
	assert_null(chunks[1]);
	assert_int_equal(gfec_verify(c, (const uint8_t *const *)s.c, len, ok), GFEC_E_INVAL);
	for (int i = 0; i < M; i++)
		assert_true(all_poison(s.c[K + i], len));
	/* the even length just below works */
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)s.c, s.c + K, len - 1), 0);
	assert_false(all_poison(s.c[K], len - 1));
	assert_int_equal(s.c[K][len - 1], TEST_POISON);
	tstripe_free(&s);
	gfec_codec_free(c);
}

/* --- matrices in Cauchy form (generated rows) -------------------------------------------- */

/*
 * The CPU backend on a Cauchy-form matrix == on its dense expansion: gemm over lengths on both
 * sides of the short-slice (log domain) limit and across thread slices, update, both paths.
 */
static void test_backend_cauchy_form(void **state)
{
	static const char *paths[] = { "base", NULL };
	const struct gfec_backend_ops *ops = gfec_cpu_backend();

	(void)state;
	for (int pi = 0; pi < 2; pi++) {
		struct gfec_backend_conf conf = { .threads = 2, .path = paths[pi],
						  .slice = 64 * 1024 + 2 };
		void *ctx;

		assert_int_equal(ops->init(&conf, &ctx), 0);
		for (int rep = 0; rep < 6; rep++) {
			/* the last round is long (two threads' slices) and small */
			const int big = rep < 5 ? 300 : 12;
			const int rows = test_range(1, big), cols = test_range(1, big);
			const size_t lens[] = { 0, 2, 64, 128, 130, 1000, 140 * 1024 + 6 };
			const size_t len = lens[rep < 5 ? test_range(0, 5) : 6];
			uint16_t *f = malloc(sizeof(*f) * 2 * ((size_t)rows + cols));
			uint16_t *dense = malloc(sizeof(*dense) * (size_t)rows * cols);
			uint16_t *x = f, *r = x + rows, *y = r + rows, *c = y + cols;
			struct tstripe s, t;
			void *pf, *pd;
			size_t done;

			assert_true(f && dense);
			/* distinct points, split at random between rows and columns */
			for (int i = 0; i < rows + cols; i++)
				x[i < rows ? i : rows + rows + (i - rows)] =
					(uint16_t)(i * 7919 % 65536);
			for (int i = 0; i < rows; i++)
				r[i] = (uint16_t)test_range(1, 65535);
			for (int j = 0; j < cols; j++)
				c[j] = (uint16_t)test_range(1, 65535);
			gfec_matrix_cauchy16_expand(rows, cols, x, r, y, c, dense);
			struct gfec_gemm_matrix fm = { .w = 16, .rows = rows, .cols = cols,
						       .cx = x, .cr = r, .cy = y, .cc = c };
			struct gfec_gemm_matrix dm = { .w = 16, .rows = rows, .cols = cols,
						       .a = (const uint8_t *)dense };

			assert_int_equal(ops->plan_create(ctx, &fm, &pf), 0);
			assert_int_equal(ops->plan_create(ctx, &dm, &pd), 0);
			tstripe_init(&s, cols, rows, len, 1);
			tstripe_init(&t, cols, rows, len, 1);
			for (int j = 0; j < cols; j++)
				memcpy(t.c[j], s.c[j], len);
			assert_int_equal(ops->gemm(ctx, pf, 1, len, (const uint8_t *const *)s.c,
						   s.c + cols),
					 0);
			assert_int_equal(ops->gemm(ctx, pd, 1, len, (const uint8_t *const *)t.c,
						   t.c + cols),
					 0);
			for (int i = 0; i < rows; i++)
				if (memcmp(s.c[cols + i], t.c[cols + i], len) != 0)
					fail_msg("%s %d x %d len %zu: form row %d differs",
						 paths[pi] ? paths[pi] : "auto", rows, cols, len, i);
			const int col = test_range(0, cols - 1);

			assert_int_equal(ops->update(ctx, pf, col, len, s.c[0], s.c + cols, &done), 0);
			assert_int_equal(ops->update(ctx, pd, col, len, s.c[0], t.c + cols, &done), 0);
			for (int i = 0; i < rows; i++)
				assert_memory_equal(s.c[cols + i], t.c[cols + i], len);
			ops->plan_free(ctx, pf);
			ops->plan_free(ctx, pd);
			/* a zero scalar, or a point in both sets, is no Cauchy matrix */
			r[0] = 0;
			assert_int_equal(ops->plan_create(ctx, &fm, &pf), GFEC_E_INVAL);
			r[0] = 1;
			x[0] = y[cols - 1];
			assert_int_equal(ops->plan_create(ctx, &fm, &pf), GFEC_E_INVAL);
			tstripe_free(&s);
			tstripe_free(&t);
			free(f);
			free(dense);
		}
		ops->fini(ctx);
	}
}

/* parity_i = sum_j 1 / ((k+i) ^ j) * data_j for a few sampled rows, by Jerasure's galois calls. */
static void check_cauchy_rows(const struct tstripe *s, int nrows)
{
	for (int t = 0; t < nrows; t++) {
		const int i = test_range(0, s->m - 1);

		for (size_t b = 0; b + 1 < s->len; b += 2) {
			int want = 0;

			for (int j = 0; j < s->k; j++)
				want ^= galois_single_multiply(
					galois_single_divide(1, (s->k + i) ^ j, 16),
					s->c[j][b] | s->c[j][b + 1] << 8, 16);
			assert_int_equal(s->c[s->k + i][b] | s->c[s->k + i][b + 1] << 8, want);
		}
	}
}

/*
 * A codec over the dense cap (2 k m bytes > 64 MiB): its generator and decode matrices stay in
 * Cauchy form. Two-byte chunks keep its 33.6 million coefficients cheap; update, verify and
 * decode of 300 random losses; the 32768 + 32768 code is created (encode is not timed here).
 */
static void test_codec_over_dense_cap(void **state)
{
	enum { K = 5800, M = 5800, N = K + M, LOST = 300 };
	gfec_codec *c = make("k=%d m=%d w=16 backend=auto", K, M);
	int *lost = malloc(sizeof(int) * N);
	struct tstripe s;
	uint8_t delta[2] = { 0x5a, 0xc3 }, ok[M];

	(void)state;
	assert_non_null(lost);
	tstripe_init(&s, K, M, 2, 1);
	encode(c, &s);
	check_cauchy_rows(&s, 8);
	assert_int_equal(gfec_verify(c, (const uint8_t *const *)s.c, s.len, ok), 0);
	assert_int_equal(gfec_update(c, 4321, delta, s.c + K, 2), 0);
	s.c[4321][0] ^= delta[0];
	s.c[4321][1] ^= delta[1];
	check_cauchy_rows(&s, 8);
	for (int x = 0; x < N; x++)
		lost[x] = x;
	for (int e = 0; e < LOST; e++) {
		int r = e + (int)(test_rand() % (uint64_t)(N - e)), t = lost[e];

		lost[e] = lost[r];
		lost[r] = t;
	}
	decode_and_check(c, &s, lost, LOST);
	tstripe_free(&s);
	free(lost);
	gfec_codec_free(c);

	c = make("k=32768 m=32768 w=16 backend=auto");
	assert_int_equal(gfec_codec_chunk_count(c), 65536);
	gfec_codec_free(c);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_and_w),
		cmocka_unit_test(test_bad_profiles),
		cmocka_unit_test(test_odd_length_refused),
		cmocka_unit_test(test_small_shapes_match_jerasure),
		cmocka_unit_test(test_large_shapes_match_jerasure),
		cmocka_unit_test(test_cauchy_form_equals_inverse),
		cmocka_unit_test(test_every_erasure_pattern),
		cmocka_unit_test(test_random_m_losses),
		cmocka_unit_test(test_decode_batch_and_cache),
		cmocka_unit_test(test_reconstruct_and_verify),
		cmocka_unit_test(test_update_equals_reencode),
		cmocka_unit_test(test_encode_batch_threads),
		cmocka_unit_test(test_minimum_to_decode),
		cmocka_unit_test(test_backend_cauchy_form),
		cmocka_unit_test(test_codec_over_dense_cap),
	};

	if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
		gfec_codec *c = NULL;
		char err[256];

		make_extra = " backend=gpu";
		if (gfec_codec_create("k=4 m=2 w=16 backend=gpu", &c, err, sizeof(err))) {
			fprintf(stderr, "no GPU codec at w=16 here (%s): skipped\n", err);
			return 77;
		}
		gfec_codec_free(c);
	}
	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
