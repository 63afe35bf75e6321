/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_codec.c
 * The public API end to end. ctest runs this file once per CPU path
 * (GFEC_CPU_PATH=isal|base|gfni512|gfni256|avx2).
 * References: raw ISA-L ec_encode_data with ISA-L's own matrices, Jerasure's matrix encoder,
 * and the original data for every decode. Output buffers are poisoned before every call.
 */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <isa-l/erasure_code.h>
#include <jerasure.h>
#include <cauchy.h>
#include <reed_sol.h>

#include "cpu_backend.h"
#include "gfec/gfec.h"
#include "test_util.h"
#include "codec_test.h"

#define MAXN 256

/* Raw ISA-L parity for the G part of ISA-L's matrix, into out[0..m-1]. */
static void isal_parity(int rs, struct tstripe *s, uint8_t **out)
{
	int k = s->k, m = s->m;
	uint8_t *full = malloc((size_t)(k + m) * k), *tbls = malloc(32u * k * m);

	if (rs)
		gf_gen_rs_matrix(full, k + m, k);
	else
		gf_gen_cauchy1_matrix(full, k + m, k);
	ec_init_tables(k, m, full + k * k, tbls);
	ec_encode_data((int)s->len, k, m, tbls, s->c, out);
	free(full);
	free(tbls);
}

/* --- profiles ------------------------------------------------------------------------------- */

static void test_profiles(void **state)
{
	char buf[256];
	gfec_codec *c;

	(void)state;
	c = make("k=10 m=4 technique=cauchy backend=auto");
	assert_int_equal(gfec_codec_k(c), 10);
	assert_int_equal(gfec_codec_m(c), 4);
	assert_int_equal(gfec_codec_chunk_count(c), 14);
	/* auto: the CPU, plus the GPU where this build and this machine have one */
	assert_true(strncmp(gfec_codec_backend(c), "cpu/", 4) == 0 ||
		    strncmp(gfec_codec_backend(c), "gpu/", 4) == 0);
	assert_true(gfec_codec_profile(c, buf, sizeof(buf)) < sizeof(buf));
	assert_non_null(strstr(buf, "k=10 m=4 technique=cauchy backend=auto"));
	gfec_codec_free(c);

	c = make("k=4,m=2,technique=reed_sol_van,backend=cpu,threads=1");
	assert_int_equal(gfec_codec_chunk_count(c), 6);
	gfec_codec_free(c);
	c = make("  k=3\tm=1 , technique=jerasure_reed_sol_van decode_cache=2 ");
	assert_int_equal(gfec_codec_m(c), 1);
	/* The profile string truncates safely and reports the size it needs. */
	size_t need = gfec_codec_profile(c, buf, 8);

	assert_int_equal(strlen(buf), 7);
	assert_true(need > 7);
	gfec_codec_free(c);
	gfec_codec_free(NULL);
}

static void test_chunk_size(void **state)
{
	gfec_codec *c = make("k=4 m=2");

	(void)state;
	assert_int_equal(gfec_codec_chunk_size(c, 0), GFEC_ALIGN);
	assert_int_equal(gfec_codec_chunk_size(c, 1), GFEC_ALIGN);
	assert_int_equal(gfec_codec_chunk_size(c, 256), 64);
	assert_int_equal(gfec_codec_chunk_size(c, 257), 128);
	assert_int_equal(gfec_codec_chunk_size(c, 4 << 20), 1 << 20);
	for (size_t n = 1; n < 5000; n += 37) {
		size_t cs = gfec_codec_chunk_size(c, n);

		assert_int_equal(cs % GFEC_ALIGN, 0);
		assert_true(cs * 4 >= n && (cs - GFEC_ALIGN) * 4 < n);
	}
	gfec_codec_free(c);
}

struct bad_profile {
	const char *profile;
	int code;
	const char *says; /* the message must contain this (it names the key) */
};

static void test_bad_profiles(void **state)
{
	static const struct bad_profile cases[] = {
		{ "k=4 m=2 foo=1", GFEC_E_PROFILE, "foo" },
		{ "k=0 m=1", GFEC_E_PROFILE, "k=0" },
		{ "k=1 m=1", GFEC_E_PROFILE, "k=1" },
		{ "k=-3 m=1", GFEC_E_PROFILE, "k=-3" },
		{ "k=abc m=2", GFEC_E_PROFILE, "k=abc" },
		{ "k=4x m=2", GFEC_E_PROFILE, "k=4x" },
		{ "k= m=2", GFEC_E_PROFILE, "k=" },
		{ "k=99999999999999999999 m=2", GFEC_E_PROFILE, "k=" },
		{ "k=4 m=0", GFEC_E_PROFILE, "m=0" },
		{ "k=4 m=5", GFEC_E_PROFILE, "m=5" },
		{ "k=4 m=1.5", GFEC_E_PROFILE, "m=1.5" },
		{ "k=200 m=57", GFEC_E_PROFILE, "k+m" },
		{ "k=4", GFEC_E_PROFILE, "m: missing" },
		{ "m=2", GFEC_E_PROFILE, "k: missing" },
		{ "", GFEC_E_PROFILE, "k: missing" },
		{ "k=4 m=2 technique=liberation", GFEC_E_PROFILE, "technique=liberation" },
		{ "k=4 m=2 backend=fpga", GFEC_E_PROFILE, "backend=fpga" },
		{ "k=4 m=2 threads=-1", GFEC_E_PROFILE, "threads=-1" },
		{ "k=4 m=2 cpu_path=avx9", GFEC_E_PROFILE, "cpu_path=avx9" },
		{ "k=4 m=2 decode_cache=0", GFEC_E_PROFILE, "decode_cache=0" },
		{ "k=4 m=2 technique=cauchy_good packetsize=12", GFEC_E_PROFILE, "packetsize=12" },
		{ "k=4 m=2 technique=cauchy_good packetsize=x", GFEC_E_PROFILE, "packetsize=x" },
		{ "k=4 m=2 =3", GFEC_E_PROFILE, "=3" },
		{ "k=4 m=2 technique", GFEC_E_PROFILE, "technique" },
		{ "k=6 m=5 technique=reed_sol_van", GFEC_E_NOT_MDS, "reed_sol_van" },
		{ "k=32 m=16 technique=reed_sol_van", GFEC_E_NOT_MDS, "reed_sol_van" },
	};
	char err[256];
	gfec_codec *c;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = (gfec_codec *)&c; /* must be reset to NULL */
		err[0] = 'x';
		err[1] = '\0';
		int ret = gfec_codec_create(cases[i].profile, &c, err, sizeof(err));

		if (ret != cases[i].code || !strstr(err, cases[i].says))
			fail_msg("\"%s\": got %d \"%s\", want %d naming \"%s\"", cases[i].profile,
				 ret, err, cases[i].code, cases[i].says);
		assert_null(c);
	}
	assert_int_equal(gfec_codec_create(NULL, &c, err, sizeof(err)), GFEC_E_PROFILE);
	assert_int_equal(gfec_codec_create("k=4 m=2", NULL, err, sizeof(err)), GFEC_E_INVAL);
	/* No error buffer at all is fine too. */
	assert_int_equal(gfec_codec_create("k=0 m=2", &c, NULL, 0), GFEC_E_PROFILE);
	/* backend=gpu works only with a GPU backend and a device; otherwise it says why. */
	int ret = gfec_codec_create("k=4 m=2 backend=gpu", &c, err, sizeof(err));

	if (ret == 0) {
		gfec_codec_free(c);
	} else {
		assert_int_equal(ret, GFEC_E_NOBACKEND);
		assert_non_null(strstr(err, "backend=gpu"));
	}
	/* A bad environment override is reported by name. */
	const char *saved = getenv("GFEC_CPU_PATH");
	char keep[16] = "";

	if (saved)
		snprintf(keep, sizeof(keep), "%s", saved);
	setenv("GFEC_CPU_PATH", "sse9", 1);
	assert_int_equal(gfec_codec_create("k=4 m=2", &c, err, sizeof(err)), GFEC_E_PROFILE);
	assert_non_null(strstr(err, "GFEC_CPU_PATH"));
	if (saved)
		setenv("GFEC_CPU_PATH", keep, 1);
	else
		unsetenv("GFEC_CPU_PATH");
}

/* --- encode is ISA-L's (and Jerasure's) to the bit ------------------------------------------- */

static void check_against_isal(const char *technique, int rs, int k, int m, size_t len)
{
	gfec_codec *c = make("k=%d m=%d technique=%s", k, m, technique);
	struct tstripe s;
	uint8_t *ref[MAXN];
	struct test_buf rb[MAXN];

	tstripe_init(&s, k, m, len, 1);
	for (int i = 0; i < m; i++)
		ref[i] = tbuf_alloc(&rb[i], len, 0);
	isal_parity(rs, &s, ref);
	encode(c, &s);
	for (int i = 0; i < m; i++) {
		if (memcmp(s.c[k + i], ref[i], len) != 0)
			fail_msg("%s k=%d m=%d len=%zu: parity %d differs from ISA-L", technique, k,
				 m, len, i);
		tbuf_free(&rb[i]);
	}
	tstripe_free(&s);
	gfec_codec_free(c);
}

static void test_encode_matches_isal(void **state)
{
	(void)state;
	for (int t = 0; t < 60; t++) {
		int k = test_range(2, 30), m = test_range(1, k < 32 - k ? k : 32 - k);
		size_t len = (size_t)test_range(1, 70000);

		check_against_isal("cauchy", 0, k, m, len);
		if (k <= 21 && m <= 4) /* where ISA-L's Vandermonde is MDS */
			check_against_isal("reed_sol_van", 1, k, m, len);
	}
	check_against_isal("cauchy", 0, 223, 32, 4096 + 3);
	check_against_isal("reed_sol_van", 1, 10, 4, 1 << 20);
	check_against_isal("cauchy", 0, 10, 4, (1 << 20) + 1);
}

static void test_encode_matches_jerasure(void **state)
{
	(void)state;
	for (int t = 0; t < 20; t++) {
		int k = test_range(2, 20), m = test_range(1, k < 12 ? k : 12);
		size_t len = (size_t)test_range(1, 4000) * 8; /* Jerasure wants whole longs */
		int *mat = reed_sol_vandermonde_coding_matrix(k, m, 8);
		gfec_codec *c = make("k=%d m=%d technique=jerasure_reed_sol_van", k, m);
		struct tstripe s;
		char *dp[MAXN], *cp[MAXN];
		struct test_buf rb[MAXN];

		tstripe_init(&s, k, m, len, 0);
		for (int i = 0; i < k; i++)
			dp[i] = (char *)s.c[i];
		for (int i = 0; i < m; i++)
			cp[i] = (char *)tbuf_alloc(&rb[i], len, 0);
		jerasure_matrix_encode(k, m, 8, mat, dp, cp, (int)len);
		encode(c, &s);
		for (int i = 0; i < m; i++) {
			assert_memory_equal(s.c[k + i], cp[i], len);
			tbuf_free(&rb[i]);
		}
		free(mat);
		tstripe_free(&s);
		gfec_codec_free(c);
	}
}

/* --- decode: every erasure pattern ---------------------------------------------------------- */

static void all_patterns(const char *technique, int k, int m, size_t len)
{
	gfec_codec *c = make("k=%d m=%d technique=%s", k, m, technique);
	int n = k + m, patterns = 0;
	struct tstripe s;
	struct test_buf ob[MAXN];
	uint8_t *out[MAXN];

	tstripe_init(&s, k, m, len, 1);
	encode(c, &s);
	for (int i = 0; i < n; i++)
		out[i] = tbuf_alloc(&ob[i], len, (unsigned)test_range(0, 63));

	for (uint32_t mask = 1; mask < (1u << n); mask++) {
		int lost = __builtin_popcount(mask);
		const uint8_t *in[MAXN];
		uint8_t *want[MAXN];

		if (lost > m)
			continue;
		for (int i = 0; i < n; i++) {
			int gone = (mask >> i) & 1;

			in[i] = gone ? NULL : s.c[i];
			want[i] = gone ? out[i] : NULL;
			if (gone)
				memset(out[i], TEST_POISON, len);
		}
		assert_int_equal(gfec_decode(c, in, want, len), 0);
		for (int i = 0; i < n; i++)
			if (((mask >> i) & 1) && memcmp(out[i], s.c[i], len) != 0)
				fail_msg("%s (%d,%d): lost mask 0x%x, chunk %d rebuilt wrong",
					 technique, k, m, mask, i);
		patterns++;
	}
	assert_true(patterns > 0);
	for (int i = 0; i < n; i++)
		tbuf_free(&ob[i]);
	tstripe_free(&s);
	gfec_codec_free(c);
}

static void test_every_erasure_pattern(void **state)
{
	static const int codes[][2] = { { 4, 2 }, { 6, 3 }, { 8, 3 }, { 10, 4 }, { 12, 4 } };
	static const char *const techniques[] = { "cauchy", "reed_sol_van",
						  "jerasure_reed_sol_van" };

	(void)state;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		for (size_t t = 0; t < 3; t++)
			all_patterns(techniques[t], codes[i][0], codes[i][1], 1000 + i * 77);
		/* CRS: len is whole blocks of 8 packets */
		all_patterns("cauchy_good packetsize=16", codes[i][0], codes[i][1], 128 * (3 + i));
	}
}

/* cauchy_good is Jerasure's CRS to the byte, through the codec, with Ceph's packet size. */
static void test_cauchy_good_matches_jerasure(void **state)
{
	(void)state;
	for (int t = 0; t < 12; t++) {
		const int k = test_range(2, 16), m = test_range(1, k < 4 ? k : 4);
		const int P = t % 3 ? 8 * test_range(1, 40) : 2048;
		const size_t len = (size_t)8 * P * test_range(1, 4);
		gfec_codec *c = make("k=%d m=%d technique=cauchy_good packetsize=%d", k, m, P);
		int *mat = cauchy_good_general_coding_matrix(k, m, 8);
		int *bits = jerasure_matrix_to_bitmatrix(k, m, 8, mat);
		int **sched = jerasure_smart_bitmatrix_to_schedule(k, m, 8, bits);
		char *dp[MAXN], *cp[MAXN];
		struct test_buf rb[MAXN];
		struct tstripe s;

		tstripe_init(&s, k, m, len, 0);
		for (int i = 0; i < k; i++)
			dp[i] = (char *)s.c[i];
		for (int i = 0; i < m; i++)
			cp[i] = (char *)tbuf_alloc(&rb[i], len, 0);
		jerasure_schedule_encode(k, m, 8, sched, dp, cp, (int)len, P);
		encode(c, &s);
		for (int i = 0; i < m; i++) {
			assert_memory_equal(s.c[k + i], cp[i], len);
			tbuf_free(&rb[i]);
		}
		assert_int_equal(gfec_codec_chunk_size(c, 1), (size_t)8 * P);
		/* a length that is not whole blocks is refused, not mangled */
		assert_int_equal(gfec_encode(c, (const uint8_t *const *)s.c, s.c + k, len - 8),
				 GFEC_E_INVAL);
		jerasure_free_schedule(sched);
		free(bits);
		free(mat);
		tstripe_free(&s);
		gfec_codec_free(c);
	}
}

/* --- random lengths and alignments ----------------------------------------------------------- */

static void test_random_lengths(void **state)
{
	(void)state;
	for (int t = 0; t < 24; t++) {
		/* log-uniform 1 B .. 8 MiB; the last round is exactly 8 MiB */
		size_t len = t == 23 ? 8u << 20 : (size_t)1 << test_range(0, 22);
		int k = test_range(2, 10), m = test_range(1, k < 4 ? k : 4);

		if (t != 23)
			len += (size_t)test_rand() % len;
		gfec_codec *c = make("k=%d m=%d", k, m);
		struct tstripe s;
		uint8_t *ref[MAXN], *out[MAXN];
		struct test_buf rb[MAXN], ob[MAXN];
		const uint8_t *in[MAXN];

		tstripe_init(&s, k, m, len, 1);
		for (int i = 0; i < m; i++)
			ref[i] = tbuf_alloc(&rb[i], len, 0);
		isal_parity(0, &s, ref);
		encode(c, &s);
		for (int i = 0; i < m; i++)
			assert_memory_equal(s.c[k + i], ref[i], len);

		/* lose m random chunks and rebuild them */
		for (int i = 0; i < k + m; i++) {
			in[i] = s.c[i];
			out[i] = NULL;
		}
		for (int e = 0; e < m;) {
			int i = test_range(0, k + m - 1);

			if (!in[i])
				continue;
			in[i] = NULL;
			out[i] = tbuf_alloc(&ob[i], len, (unsigned)test_range(0, 63));
			memset(out[i], TEST_POISON, len);
			e++;
		}
		assert_int_equal(gfec_decode(c, in, out, len), 0);
		for (int i = 0; i < k + m; i++)
			if (out[i]) {
				assert_memory_equal(out[i], s.c[i], len);
				tbuf_free(&ob[i]);
			}
		for (int i = 0; i < m; i++)
			tbuf_free(&rb[i]);
		tstripe_free(&s);
		gfec_codec_free(c);
	}
}

/* Many stripes, a few erasure patterns, in any order: grouped per pattern, all rebuilt. */
static void test_decode_batch(void **state)
{
	enum { NS = 40, K = 6, M = 3, N = K + M };
	gfec_codec *c = make("k=%d m=%d", K, M);
	const size_t len = 3000;
	struct tstripe s[NS];
	const uint8_t *in[NS * N];
	uint8_t *out[NS * N];
	static const uint16_t patterns[] = { 0x001, 0x0c2, 0x124, 0x000, 0x1c0 };
	struct gfec_stats st;

	(void)state;
	for (int t = 0; t < NS; t++) {
		uint16_t lost = patterns[test_range(0, 4)];

		tstripe_init(&s[t], K, M, len, 1);
		encode(c, &s[t]);
		for (int i = 0; i < N; i++) {
			const int gone = (lost >> i) & 1;

			in[t * N + i] = gone ? NULL : s[t].c[i];
			out[t * N + i] = gone ? gfec_alloc(len) : NULL;
			if (gone)
				memset(out[t * N + i], TEST_POISON, len);
		}
	}
	assert_int_equal(gfec_decode_batch(c, NS, in, out, len), 0);
	for (int t = 0; t < NS; t++)
		for (int i = 0; i < N; i++)
			if (out[t * N + i])
				assert_memory_equal(out[t * N + i], s[t].c[i], len);
	gfec_codec_stats(c, &st);
	assert_true(st.decode_cache_misses <= 4); /* one decode matrix per pattern */

	/* one stripe with too few chunks: an error before anything is written */
	for (int t = 0; t < NS; t++)
		for (int i = 0; i < N; i++)
			if (out[t * N + i])
				memset(out[t * N + i], TEST_POISON, len);
	const uint8_t *keep[4];

	for (int i = 0; i < 4; i++) {
		keep[i] = in[7 * N + i];
		in[7 * N + i] = NULL;
	}
	assert_int_equal(gfec_decode_batch(c, NS, in, out, len), GFEC_E_TOOFEW);
	for (int t = 0; t < NS; t++)
		for (int i = 0; i < N; i++)
			if (out[t * N + i])
				assert_int_equal(out[t * N + i][len / 2], TEST_POISON);
	for (int i = 0; i < 4; i++)
		in[7 * N + i] = keep[i];
	assert_int_equal(gfec_decode_batch(c, 0, in, out, len), 0);
	assert_int_equal(gfec_decode_batch(c, -1, in, out, len), GFEC_E_INVAL);
	for (int t = 0; t < NS * N; t++)
		gfec_free(out[t]);
	for (int t = 0; t < NS; t++)
		tstripe_free(&s[t]);
	gfec_codec_free(c);
}

/* --- update, verify, reconstruct ------------------------------------------------------------- */

static void test_update_equals_reencode(void **state)
{
	(void)state;
	for (int t = 0; t < 20; t++) {
		int k = test_range(2, 16), m = test_range(1, k < 6 ? k : 6);
		size_t len = t % 3 == 2 ? (size_t)256 * test_range(1, 700) : (size_t)test_range(1, 200000);
		gfec_codec *c = make("k=%d m=%d technique=%s", k, m,
				     t % 3 == 2 ? "cauchy_good packetsize=32"
				     : t % 3	? "cauchy"
						: "jerasure_reed_sol_van");
		struct tstripe s, full;
		struct test_buf db;
		uint8_t *delta = tbuf_alloc(&db, len, (unsigned)test_range(0, 63));
		int vec = test_range(0, k - 1);

		tstripe_init(&s, k, m, len, 1);
		encode(c, &s);
		/* new data for chunk vec; delta = old ^ new */
		test_fill(delta, len);
		for (size_t b = 0; b < len; b++)
			s.c[vec][b] ^= delta[b];
		assert_int_equal(gfec_update(c, vec, delta, s.c + k, len), 0);

		tstripe_init(&full, k, m, len, 0);
		for (int i = 0; i < k; i++)
			memcpy(full.c[i], s.c[i], len);
		encode(c, &full);
		for (int i = 0; i < m; i++)
			assert_memory_equal(s.c[k + i], full.c[k + i], len);
		assert_int_equal(gfec_update(c, k, delta, s.c + k, len), GFEC_E_INVAL);
		assert_int_equal(gfec_update(c, -1, delta, s.c + k, len), GFEC_E_INVAL);
		tbuf_free(&db);
		tstripe_free(&full);
		tstripe_free(&s);
		gfec_codec_free(c);
	}
}

static void test_verify(void **state)
{
	gfec_codec *c = make("k=6 m=3");
	struct tstripe s;
	uint8_t ok[3];
	const size_t len = 3u << 20; /* more than one verify piece */

	(void)state;
	tstripe_init(&s, 6, 3, len, 1);
	encode(c, &s);
	assert_int_equal(gfec_verify(c, (const uint8_t *const *)s.c, len, ok), 0);
	assert_true(ok[0] && ok[1] && ok[2]);
	s.c[7][len - 1] ^= 1; /* parity 1, in the last piece */
	assert_int_equal(gfec_verify(c, (const uint8_t *const *)s.c, len, ok), GFEC_E_MISMATCH);
	assert_true(ok[0] && !ok[1] && ok[2]);
	s.c[7][len - 1] ^= 1;
	s.c[2][12345] ^= 0x80; /* a data byte: every parity row sees it (Cauchy has no zeros) */
	assert_int_equal(gfec_verify(c, (const uint8_t *const *)s.c, len, NULL), GFEC_E_MISMATCH);
	assert_int_equal(gfec_verify(c, (const uint8_t *const *)s.c, len, ok), GFEC_E_MISMATCH);
	assert_true(!ok[0] && !ok[1] && !ok[2]);
	uint8_t *keep = s.c[0];

	s.c[0] = NULL;
	assert_int_equal(gfec_verify(c, (const uint8_t *const *)s.c, len, ok), GFEC_E_INVAL);
	s.c[0] = keep;
	tstripe_free(&s);
	gfec_codec_free(c);
}

static void test_reconstruct(void **state)
{
	gfec_codec *c = make("k=5 m=3");
	struct tstripe s;
	uint8_t *chunks[8];
	const size_t len = 10000;
	struct gfec_stats st;

	(void)state;
	tstripe_init(&s, 5, 3, len, 1);
	encode(c, &s);
	memcpy(chunks, s.c, sizeof(chunks));
	chunks[0] = chunks[4] = chunks[6] = NULL;
	assert_int_equal(gfec_reconstruct(c, chunks, len), 0);
	for (int i = 0; i < 8; i++)
		assert_memory_equal(chunks[i], s.c[i], len);
	for (int i = 0; i < 8; i++)
		if (i == 0 || i == 4 || i == 6)
			gfec_free(chunks[i]);
	/* four lost of m=3: nothing allocated is left behind, chunks[] untouched */
	memcpy(chunks, s.c, sizeof(chunks));
	chunks[0] = chunks[1] = chunks[2] = chunks[3] = NULL;
	assert_int_equal(gfec_reconstruct(c, chunks, len), GFEC_E_TOOFEW);
	assert_null(chunks[0]);
	gfec_codec_stats(c, &st);
	assert_int_equal(st.encodes, 1);
	assert_int_equal(st.decodes, 1);
	assert_int_equal(st.decode_cache_misses, 1);
	tstripe_free(&s);
	gfec_codec_free(c);
}

/* --- minimum_to_decode ------------------------------------------------------------------------ */

static void test_minimum_to_decode(void **state)
{
	gfec_codec *c = make("k=4 m=2");
	int need[6], nneed;

	(void)state;
	/* everything wanted is there: read exactly that */
	int want1[] = { 2, 0 }, avail1[] = { 0, 1, 2, 3, 4, 5 };

	assert_int_equal(gfec_minimum_to_decode(c, want1, 2, avail1, 6, need, &nneed), 0);
	assert_int_equal(nneed, 2);
	assert_int_equal(need[0], 0);
	assert_int_equal(need[1], 2);
	/* chunk 1 lost: any k, data first */
	int want2[] = { 1 }, avail2[] = { 5, 4, 3, 2, 0 };

	assert_int_equal(gfec_minimum_to_decode(c, want2, 1, avail2, 5, need, &nneed), 0);
	assert_int_equal(nneed, 4);
	assert_int_equal(need[0], 0);
	assert_int_equal(need[1], 2);
	assert_int_equal(need[2], 3);
	assert_int_equal(need[3], 4);
	/* too few */
	int avail3[] = { 0, 5, 4 };

	assert_int_equal(gfec_minimum_to_decode(c, want2, 1, avail3, 3, need, &nneed),
			 GFEC_E_TOOFEW);
	/* out-of-range indices */
	int bad[] = { 6 };

	assert_int_equal(gfec_minimum_to_decode(c, bad, 1, avail1, 6, need, &nneed), GFEC_E_INVAL);
	assert_int_equal(gfec_minimum_to_decode(c, want1, 2, bad, 1, need, &nneed), GFEC_E_INVAL);
	assert_int_equal(gfec_minimum_to_decode(NULL, want1, 2, avail1, 6, need, &nneed),
			 GFEC_E_INVAL);
	gfec_codec_free(c);
}

/* --- threads ----------------------------------------------------------------------------------- */

struct worker {
	gfec_codec *c;
	const struct tstripe *s;
	int id, failures;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct tstripe *s = w->s;
	int n = s->k + s->m;
	uint64_t rng = 0x1234567ull * (uint64_t)(w->id + 1);
	uint8_t *out[MAXN] = { 0 };
	uint8_t *par[MAXN];

	for (int i = 0; i < n; i++)
		out[i] = gfec_alloc(s->len);
	for (int r = 0; r < 200; r++) {
		const uint8_t *in[MAXN];
		uint8_t *want[MAXN];

		/* each thread walks its own sequence of erasure patterns */
		for (int i = 0; i < n; i++) {
			in[i] = s->c[i];
			want[i] = NULL;
		}
		for (int e = 0; e < s->m; e++) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			int i = (int)((rng >> 33) % (uint64_t)n);

			in[i] = NULL;
			want[i] = out[i];
			memset(out[i], TEST_POISON, s->len);
		}
		if (gfec_decode(w->c, in, want, s->len) != 0) {
			w->failures++;
			continue;
		}
		for (int i = 0; i < n; i++)
			if (want[i] && memcmp(want[i], s->c[i], s->len) != 0)
				w->failures++;
		if (r % 20 == 0) {
			for (int i = 0; i < s->m; i++) {
				par[i] = out[s->k + i];
				memset(par[i], TEST_POISON, s->len);
			}
			if (gfec_encode(w->c, (const uint8_t *const *)s->c, par, s->len) != 0)
				w->failures++;
			for (int i = 0; i < s->m; i++)
				if (memcmp(par[i], s->c[s->k + i], s->len) != 0)
					w->failures++;
		}
	}
	for (int i = 0; i < n; i++)
		gfec_free(out[i]);
	return NULL;
}

/* 8 threads of @p fn on codec @p c and stripe @p s, none of which may fail. */
static void run_workers(gfec_codec *c, const struct tstripe *s, void *(*fn)(void *))
{
	struct worker w[8];
	pthread_t th[8];

	for (int i = 0; i < 8; i++) {
		w[i] = (struct worker){.c = c, .s = s, .id = i};
		assert_int_equal(pthread_create(&th[i], NULL, fn, &w[i]), 0);
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].failures, 0);
	}
}

static void test_threads_share_codec(void **state)
{
	/* A small decode cache makes the threads evict each other's plans while in use. */
	gfec_codec *c = make("k=8 m=3 decode_cache=3 threads=2");
	struct tstripe s;
	struct gfec_stats st;

	(void)state;
	tstripe_init(&s, 8, 3, 300000, 1);
	encode(c, &s);
	run_workers(c, &s, worker_main);
	gfec_codec_stats(c, &st);
	assert_true(st.decodes > 0 && st.decode_cache_misses > 0);
	assert_int_equal(st.decodes, st.decode_cache_hits + st.decode_cache_misses);
	/* every call of the 8 workers succeeded: exact counts from 9 threads' counter lines */
	assert_int_equal(st.encodes, 1 + 8 * 10);
	assert_int_equal(st.decodes, 8 * 200);
	assert_int_equal(st.bytes, (uint64_t)(1 + 8 * 10 + 8 * 200) * 8 * 300000);
	tstripe_free(&s);
	gfec_codec_free(c);
}

/*
 * Decoders that mostly repeat one erasure pattern, as a daemon's do while a disk is down, with
 * a per-thread second pattern every few calls and room for one plan: most lookups hit the plan
 * their CPU used last (engine.h's fronts) while the cache keeps dropping plans that fronts and
 * callers still hold.
 */
static void *one_pattern_main(void *arg)
{
	struct worker *w = arg;
	const struct tstripe *s = w->s;
	const int n = s->k + s->m;
	uint8_t *out[MAXN] = {0};

	for (int i = 0; i < n; i++)
		out[i] = gfec_alloc(s->len);
	for (int r = 0; r < 300; r++) {
		const uint8_t *in[MAXN];
		uint8_t *want[MAXN];
		const int lost = r % 7 == 6 ? 1 + w->id % (n - 1) : 0; /* else chunk 0 */

		for (int i = 0; i < n; i++) {
			in[i] = s->c[i];
			want[i] = NULL;
		}
		in[lost] = NULL;
		want[lost] = out[lost];
		memset(out[lost], TEST_POISON, s->len);
		if (gfec_decode(w->c, in, want, s->len) != 0 ||
		    memcmp(out[lost], s->c[lost], s->len) != 0)
			w->failures++;
	}
	for (int i = 0; i < n; i++)
		gfec_free(out[i]);
	return NULL;
}

static void test_threads_one_pattern(void **state)
{
	gfec_codec *c = make("k=6 m=2 decode_cache=1 threads=1");
	struct tstripe s;
	struct gfec_stats st;

	(void)state;
	tstripe_init(&s, 6, 2, 4096 + 3, 1);
	encode(c, &s);
	run_workers(c, &s, one_pattern_main);
	gfec_codec_stats(c, &st);
	assert_int_equal(st.decodes, 8 * 300);
	assert_int_equal(st.decodes, st.decode_cache_hits + st.decode_cache_misses);
	assert_true(st.decode_cache_hits > st.decode_cache_misses);
	tstripe_free(&s);
	gfec_codec_free(c);
}

/* --- asynchronous requests -------------------------------------------------------------------- */

static void on_done(struct gfec_request *req, void *user)
{
	int *count = user;

	assert_int_equal(req->status, 0);
	__atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
}

static void test_async_requests(void **state)
{
	enum { N = 64 };
	gfec_codec *c = make("k=6 m=3 async_threads=3 backend=cpu");
	const size_t len = 50000;
	struct tstripe s;
	struct gfec_request req[N];
	uint8_t *par[N][3], *out[N][9];
	const uint8_t *in[N][9];
	int callbacks = 0;

	(void)state;
	tstripe_init(&s, 6, 3, len, 1);
	encode(c, &s);
	for (int r = 0; r < N; r++) {
		memset(&req[r], 0, sizeof(req[r]));
		req[r].len = len;
		if (r % 2 == 0) { /* encode into fresh parity */
			for (int i = 0; i < 3; i++) {
				par[r][i] = gfec_alloc(len);
				memset(par[r][i], TEST_POISON, len);
			}
			req[r].op = GFEC_OP_ENCODE;
			req[r].nstripes = 1;
			req[r].in = (const uint8_t *const *)s.c;
			req[r].out = par[r];
		} else { /* decode two lost chunks */
			for (int i = 0; i < 9; i++) {
				in[r][i] = s.c[i];
				out[r][i] = NULL;
			}
			int a = r % 9, b = (r / 9 + a + 1) % 9;

			in[r][a] = in[r][b] = NULL;
			out[r][a] = gfec_alloc(len);
			out[r][b] = gfec_alloc(len);
			req[r].op = GFEC_OP_DECODE;
			req[r].in = in[r];
			req[r].out = out[r];
		}
		if (r % 4 == 3) {
			req[r].done = on_done;
			req[r].user = &callbacks;
		}
		assert_int_equal(gfec_submit(c, &req[r]), 0);
	}
	for (int r = 0; r < N; r++) {
		if (req[r].done)
			continue;
		assert_int_equal(gfec_wait(c, &req[r]), 0);
	}
	/* freeing the codec finishes every queued request first */
	gfec_codec_free(c);
	assert_int_equal(callbacks, N / 4);
	for (int r = 0; r < N; r++) {
		assert_int_equal(req[r].status, 0);
		if (r % 2 == 0) {
			for (int i = 0; i < 3; i++) {
				assert_memory_equal(par[r][i], s.c[6 + i], len);
				gfec_free(par[r][i]);
			}
		} else {
			for (int i = 0; i < 9; i++)
				if (out[r][i]) {
					assert_memory_equal(out[r][i], s.c[i], len);
					gfec_free(out[r][i]);
				}
		}
	}
	struct gfec_request bad = { .op = 42 };

	c = make("k=6 m=3");
	assert_int_equal(gfec_submit(c, &bad), GFEC_E_INVAL);
	assert_int_equal(gfec_submit(NULL, &req[0]), GFEC_E_INVAL);
	gfec_codec_free(c);
	tstripe_free(&s);
}

/*
 * A NULL anywhere in a batch's pointer tables is refused, and a pointer whose low 32 bits are 0
 * is not NULL (the check tests both halves, several pointers at a time).
 */
static void test_null_in_tables(void **state)
{
	enum { K = 4, M = 2, NS = 9 };
	const size_t len = 64;
	gfec_codec *c = make("k=4 m=2");
	uint8_t *pool = malloc(len * NS * (K + 2 * M));
	const uint8_t *data[NS * K];
	uint8_t *par[NS * M], *ref[NS * M];
	/* a page at an address whose low half is zero, where the kernel lets us map one (not under
	 * ThreadSanitizer: its shadow memory is there, and it ends a process that maps into it) */
#if GFEC_TEST_TSAN
	uint8_t *hi = MAP_FAILED;
#else
	uint8_t *hi = mmap((void *)0x2a0000000000ull, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
#endif

	(void)state;
	assert_non_null(pool);
	test_fill(pool, len * NS * K);
	for (int i = 0; i < NS * K; i++)
		data[i] = pool + len * (size_t)i;
	for (int i = 0; i < NS * M; i++) {
		par[i] = pool + len * (size_t)(NS * K + i);
		ref[i] = pool + len * (size_t)(NS * (K + M) + i);
	}
	for (int i = 0; i < NS * K; i++) {
		const uint8_t *keep = data[i];

		data[i] = NULL;
		assert_int_equal(gfec_encode_batch(c, NS, data, par, len), GFEC_E_INVAL);
		data[i] = keep;
	}
	for (int i = 0; i < NS * M; i++) {
		uint8_t *keep = par[i];

		par[i] = NULL;
		assert_int_equal(gfec_encode_batch(c, NS, data, par, len), GFEC_E_INVAL);
		par[i] = keep;
	}
	assert_int_equal(gfec_encode_batch(c, NS, data, ref, len), 0);
	if (hi != MAP_FAILED && (uintptr_t)hi == 0x2a0000000000ull) {
		memcpy(hi, data[K * 5 + 2], len); /* stripe 5, chunk 2 */
		data[K * 5 + 2] = hi;
		par[M * 7] = hi + 2048; /* stripe 7's first parity */
		assert_int_equal(gfec_encode_batch(c, NS, data, par, len), 0);
		assert_memory_equal(hi + 2048, ref[M * 7], len);
		par[M * 7] = pool + len * (size_t)(NS * K + M * 7);
		assert_int_equal(gfec_encode_batch(c, NS, data, par, len), 0);
		assert_memory_equal(par[0], ref[0], len * NS * M);
	}
	if (hi != MAP_FAILED)
		munmap(hi, 4096);
	free(pool);
	gfec_codec_free(c);
}

/* --- bad input and the no-stdout rule ---------------------------------------------------------- */

static void test_bad_inputs(void **state)
{
	gfec_codec *c = make("k=4 m=2");
	struct tstripe s;
	const uint8_t *in[6];
	uint8_t *out[6] = { 0 };

	(void)state;
	tstripe_init(&s, 4, 2, 100, 0);
	assert_int_equal(gfec_encode(NULL, (const uint8_t *const *)s.c, s.c + 4, 100), GFEC_E_INVAL);
	assert_int_equal(gfec_encode(c, NULL, s.c + 4, 100), GFEC_E_INVAL);
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)s.c, NULL, 100), GFEC_E_INVAL);
	uint8_t *keep = s.c[4];

	s.c[4] = NULL;
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)s.c, s.c + 4, 100), GFEC_E_INVAL);
	s.c[4] = keep;
	encode(c, &s);
	/* zero length is a no-op that succeeds */
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)s.c, s.c + 4, 0), 0);
	for (int i = 0; i < 6; i++)
		in[i] = i < 3 ? NULL : s.c[i];
	out[0] = gfec_alloc(100);
	assert_int_equal(gfec_decode(c, in, out, 100), GFEC_E_TOOFEW);
	assert_int_equal(gfec_decode(c, NULL, out, 100), GFEC_E_INVAL);
	assert_int_equal(gfec_decode(c, in, NULL, 100), GFEC_E_INVAL);
	assert_int_equal(gfec_decode(NULL, in, out, 100), GFEC_E_INVAL);
	/* nothing missing: nothing to do */
	for (int i = 0; i < 6; i++)
		in[i] = s.c[i];
	assert_int_equal(gfec_decode(c, in, out, 100), 0);
	assert_int_equal(gfec_update(c, 0, NULL, s.c + 4, 100), GFEC_E_INVAL);
	assert_int_equal(gfec_reconstruct(c, NULL, 100), GFEC_E_INVAL);
	assert_int_equal(gfec_codec_k(NULL), GFEC_E_INVAL);
	assert_int_equal(gfec_codec_chunk_size(NULL, 10), 0);
	gfec_free(out[0]);

	for (int code = 0; code >= -220; code--)
		assert_non_null(gfec_strerror(code));
	assert_string_equal(gfec_strerror(GFEC_E_TOOFEW), "fewer than k chunks available");
	assert_string_equal(gfec_strerror(12345), "unknown gfec error");
	tstripe_free(&s);
	gfec_codec_free(c);
}

struct captured {
	int n;
	char last[512];
};

static void capture(enum gfec_log_level level, const char *msg, void *user)
{
	struct captured *cap = user;

	(void)level;
	cap->n++;
	snprintf(cap->last, sizeof(cap->last), "%s", msg);
}

/*
 * GPU memory for a NIC comes from the codec's own GPU: device 0 either works (a GPU that exports
 * dma-buf) or says why not; gpu_device=64 exists on no host, so it always fails with a reason.
 */
static void test_gpu_dmabuf_on_codec_device(void **state)
{
	const char *profiles[] = { "k=4 m=2 backend=cpu", "k=4 m=2 backend=cpu gpu_device=64" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		gfec_codec *c;
		char err[256], why[160] = "";
		void *p = (void *)&c;
		int fd = 7, ret;

		assert_int_equal(gfec_codec_create(profiles[i], &c, err, sizeof(err)), 0);
		ret = gfec_codec_gpu_dmabuf(c, 1 << 21, &p, &fd, why, sizeof(why));
		if (ret == 0) {
			assert_int_equal(i, 0);
			assert_non_null(p);
			assert_true(fd >= 0);
			close(fd);
			gfec_codec_gpu_dmabuf_free(c, p);
		} else {
			assert_true(ret < 0);
			assert_null(p);
			assert_int_equal(fd, -1);
			assert_true(why[0] != '\0');
		}
		gfec_codec_free(c);
	}
}

static void test_logs_through_callback_only(void **state)
{
	struct captured cap = { 0 };
	char path[] = "/tmp/gfec_stdout_XXXXXX";
	int fd = mkstemp(path), saved;
	gfec_codec *c;
	struct stat st;

	(void)state;
	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);

	gfec_set_log(capture, &cap, GFEC_LOG_DEBUG);
	assert_int_equal(gfec_codec_create("k=4 m=9", &c, NULL, 0), GFEC_E_PROFILE);
	c = make("k=4 m=2 backend=cpu");
	gfec_codec_free(c);
	gfec_set_log(NULL, NULL, GFEC_LOG_ERROR);
	assert_int_equal(gfec_codec_create("k=4 m=9", &c, NULL, 0), GFEC_E_PROFILE);

	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	unlink(path);
	assert_int_equal(st.st_size, 0);  /* the library printed nothing */
	assert_int_equal(cap.n, 2);	  /* the error, then the info line; none after unset */
	assert_non_null(strstr(cap.last, "codec k=4 m=2"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_profiles),
	    cmocka_unit_test(test_chunk_size),
	    cmocka_unit_test(test_bad_profiles),
	    cmocka_unit_test(test_encode_matches_isal),
	    cmocka_unit_test(test_encode_matches_jerasure),
	    cmocka_unit_test(test_every_erasure_pattern),
	    cmocka_unit_test(test_cauchy_good_matches_jerasure),
	    cmocka_unit_test(test_random_lengths),
	    cmocka_unit_test(test_decode_batch),
	    cmocka_unit_test(test_update_equals_reencode),
	    cmocka_unit_test(test_verify),
	    cmocka_unit_test(test_reconstruct),
	    cmocka_unit_test(test_minimum_to_decode),
	    cmocka_unit_test(test_threads_share_codec),
	    cmocka_unit_test(test_threads_one_pattern),
	    cmocka_unit_test(test_async_requests),
	    cmocka_unit_test(test_bad_inputs),
	    cmocka_unit_test(test_null_in_tables),
	    cmocka_unit_test(test_gpu_dmabuf_on_codec_device),
	    cmocka_unit_test(test_logs_through_callback_only),
	};

	const char *forced = getenv("GFEC_CPU_PATH") ? getenv("GFEC_CPU_PATH") : "";
	enum gfec_cpu_path path;

	test_seed();
	fprintf(stderr, "# GFEC_CPU_PATH=%s\n", forced);
	/* ctest's SKIP_RETURN_CODE: a run forcing a kernel this CPU lacks is skipped, not passed. */
	if (gfec_cpu_path_parse(forced, &path) == 0 && !gfec_cpu_path_supported(path)) {
		fprintf(stderr, "# this CPU cannot run cpu_path %s: skipped\n", forced);
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
