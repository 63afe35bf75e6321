/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_codec_fft.c
 * technique=fft at w=16 through the codec (gfec.h): profile errors; parity == the additive-FFT
 * code's O(k m) reference (gfec_fft16_encode_base) and unlike cauchy's; decode of random
 * patterns of up to m losses into poisoned outputs, batches, reconstruct, verify (good and
 * corrupted parity), update against a re-encode, minimum_to_decode, and bad input. Run with
 * GFEC_CPU_PATH=base too (ctest codec_fft_base): the plain-C butterflies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fft16.h"
#include "gfec/gfec.h"
#include "test_util.h"

static gfec_codec *make(int k, int m)
{
	char prof[96], err[256];
	gfec_codec *c = NULL;

	snprintf(prof, sizeof(prof), "k=%d m=%d w=16 technique=fft threads=3", k, m);
	assert_int_equal(gfec_codec_create(prof, &c, err, sizeof(err)), 0);
	return c;
}

static void test_profile(void **state)
{
	static const char *const bad[] = {
		"k=4 m=2 technique=fft",		    /* w=8 */
		"k=4 m=2 w=16 technique=fft backend=hybrid",
		"k=40000 m=30000 w=16 technique=fft",	    /* k + m > 65536 */
	};
	char err[256];
	gfec_codec *c;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		c = (gfec_codec *)1;
		assert_int_equal(gfec_codec_create(bad[i], &c, err, sizeof(err)), GFEC_E_PROFILE);
		assert_null(c);
		assert_true(err[0] != '\0');
	}
	/* auto: the CPU for host buffers, and the GPU's butterflies for device ones where it has
	 * one (test_fft16_gpu) */
	assert_int_equal(gfec_codec_create("k=4 m=2 w=16 technique=fft backend=auto", &c, err,
					   sizeof(err)),
			 0);
	assert_non_null(strstr(gfec_codec_backend(c), "cpu/"));
	gfec_codec_free(c);
	/* gpu: an error only without a usable GPU (CI), as for the other techniques */
	int r = gfec_codec_create("k=4 m=2 w=16 technique=fft backend=gpu", &c, err, sizeof(err));

	if (r == 0) {
		assert_string_equal(gfec_codec_backend(c), strstr(gfec_codec_backend(c), "gpu/"));
		gfec_codec_free(c);
	} else {
		assert_int_equal(r, GFEC_E_NOBACKEND);
		assert_null(c);
	}
}

static void test_encode(void **state)
{
	static const int shapes[][2] = { { 2, 1 }, { 10, 4 }, { 12, 5 }, { 100, 20 }, { 300, 37 } };

	(void)state;
	for (size_t t = 0; t < sizeof(shapes) / sizeof(shapes[0]); t++) {
		const int k = shapes[t][0], m = shapes[t][1];
		const size_t len = 2 * (size_t)test_range(1, 700);
		gfec_codec *c = make(k, m), *cauchy;
		struct gfec_fft16_code *code;
		struct tstripe s;
		uint8_t *ref = malloc(len * m), **rp = malloc(sizeof(*rp) * m), *cp;
		char prof[96];

		assert_true(ref && rp);
		tstripe_init(&s, k, m, len, 1);
		for (int i = 0; i < m; i++)
			rp[i] = ref + (size_t)i * len;
		assert_int_equal(gfec_fft16_code_create(k, m, GFEC_FFT16_AUTO, &code), 0);
		assert_int_equal(gfec_fft16_encode_base(code, len, (const uint8_t *const *)s.c, rp),
				 0);
		assert_int_equal(gfec_encode(c, (const uint8_t *const *)s.c, s.c + k, len), 0);
		for (int i = 0; i < m; i++)
			assert_memory_equal(s.c[k + i], rp[i], len);
		/* not cauchy's parity: a technique of its own */
		snprintf(prof, sizeof(prof), "k=%d m=%d w=16 technique=cauchy", k, m);
		assert_int_equal(gfec_codec_create(prof, &cauchy, NULL, 0), 0);
		cp = malloc(len * m);
		for (int i = 0; i < m; i++)
			rp[i] = cp + (size_t)i * len;
		assert_int_equal(gfec_encode(cauchy, (const uint8_t *const *)s.c, rp, len), 0);
		assert_memory_not_equal(cp, s.c[k], len);
		free(cp);
		gfec_codec_free(cauchy);
		assert_int_equal(gfec_encode(c, (const uint8_t *const *)s.c, s.c + k, len - 1),
				 GFEC_E_INVAL);
		gfec_fft16_code_free(code);
		tstripe_free(&s);
		free(ref);
		free(rp);
		gfec_codec_free(c);
	}
}

/* Random patterns of up to m losses, decoded into poisoned outputs; reconstruct; verify. */
static void test_decode(void **state)
{
	static const int shapes[][2] = { { 2, 2 }, { 10, 4 }, { 12, 5 }, { 100, 20 }, { 1000, 200 } };

	(void)state;
	for (size_t t = 0; t < sizeof(shapes) / sizeof(shapes[0]); t++) {
		const int k = shapes[t][0], m = shapes[t][1], n = k + m;
		const size_t len = k >= 1000 ? 64 : 2 * (size_t)test_range(1, 300);
		gfec_codec *c = make(k, m);
		struct tstripe s;
		const uint8_t **ch = malloc(sizeof(*ch) * n);
		uint8_t **out = malloc(sizeof(*out) * n), *pool = malloc(len * n), ok[1200];

		assert_true(ch && out && pool);
		tstripe_init(&s, k, m, len, 1);
		assert_int_equal(gfec_encode(c, (const uint8_t *const *)s.c, s.c + k, len), 0);
		assert_int_equal(gfec_verify(c, (const uint8_t *const *)s.c, len, ok), 0);
		for (int r = 0; r < 6; r++) {
			const int lose = r ? test_range(1, m) : m;

			for (int i = 0; i < n; i++) {
				ch[i] = s.c[i];
				out[i] = test_range(0, 1) ? pool + (size_t)i * len : NULL;
			}
			for (int e = 0; e < lose; e++) {
				const int i = test_range(0, n - 1);

				ch[i] = NULL;
				out[i] = pool + (size_t)i * len;
			}
			memset(pool, TEST_POISON, len * n);
			assert_int_equal(gfec_decode(c, ch, out, len), 0);
			for (int i = 0; i < n; i++)
				if (!ch[i])
					assert_memory_equal(out[i], s.c[i], len);
				else if (out[i]) /* present chunks' outputs are left alone */
					assert_int_equal(out[i][0], TEST_POISON);
		}
		/* m + 1 losses */
		for (int i = 0; i < n; i++)
			ch[i] = i <= m ? NULL : s.c[i];
		assert_int_equal(gfec_decode(c, ch, out, len), GFEC_E_TOOFEW);
		/* reconstruct: the lost chunks come back in fresh buffers */
		{
			uint8_t **rc = malloc(sizeof(*rc) * n);

			for (int i = 0; i < n; i++)
				rc[i] = i % 3 == 1 && i / 3 < m ? NULL : s.c[i];
			assert_int_equal(gfec_reconstruct(c, rc, len), 0);
			for (int i = 0; i < n; i++)
				if (rc[i] != s.c[i]) {
					assert_memory_equal(rc[i], s.c[i], len);
					gfec_free(rc[i]);
				}
			free(rc);
		}
		/* verify finds a corrupted parity chunk */
		s.c[k + m - 1][len / 2] ^= 1;
		assert_int_equal(gfec_verify(c, (const uint8_t *const *)s.c, len, ok),
				 GFEC_E_MISMATCH);
		assert_int_equal(ok[m - 1], 0);
		for (int i = 0; i + 1 < m; i++)
			assert_int_equal(ok[i], 1);
		tstripe_free(&s);
		free(ch);
		free(out);
		free(pool);
		gfec_codec_free(c);
	}
}

static void test_batch_update(void **state)
{
	const int k = 20, m = 6, n = k + m, ns = 3;
	const size_t len = 254;
	gfec_codec *c = make(k, m);
	struct tstripe s[3];
	const uint8_t *din[3 * 20], *ch[3 * 26];
	uint8_t *pout[3 * 6], *out[3 * 26], *pool = malloc(len * n * ns), *delta = malloc(len);
	uint8_t *fresh = malloc(len * m), *fp[6];

	(void)state;
	assert_true(pool && delta && fresh);
	for (int t = 0; t < ns; t++) {
		tstripe_init(&s[t], k, m, len, 1);
		for (int j = 0; j < k; j++)
			din[t * k + j] = s[t].c[j];
		for (int i = 0; i < m; i++)
			pout[t * m + i] = s[t].c[k + i];
	}
	assert_int_equal(gfec_encode_batch(c, ns, din, pout, len), 0);
	memset(pool, TEST_POISON, len * n * ns);
	for (int t = 0; t < ns; t++)
		for (int i = 0; i < n; i++) {
			const int lost = (i + t) % 5 == 0;

			ch[t * n + i] = lost ? NULL : s[t].c[i];
			out[t * n + i] = lost ? pool + ((size_t)t * n + i) * len : NULL;
		}
	assert_int_equal(gfec_decode_batch(c, ns, ch, out, len), 0);
	for (int t = 0; t < ns; t++)
		for (int i = 0; i < n; i++)
			if (!ch[t * n + i])
				assert_memory_equal(out[t * n + i], s[t].c[i], len);
	/* update: parity of (data + delta in chunk 7) == old parity updated by delta */
	test_fill(delta, len);
	assert_int_equal(gfec_update(c, 7, delta, s[0].c + k, len), 0);
	for (size_t b = 0; b < len; b++)
		s[0].c[7][b] ^= delta[b];
	for (int i = 0; i < m; i++)
		fp[i] = fresh + (size_t)i * len;
	assert_int_equal(gfec_encode(c, (const uint8_t *const *)s[0].c, fp, len), 0);
	for (int i = 0; i < m; i++)
		assert_memory_equal(fp[i], s[0].c[k + i], len);
	assert_int_equal(gfec_update(c, k, delta, s[0].c + k, len), GFEC_E_INVAL);
	/* minimum_to_decode: any k of the survivors */
	{
		int want[1] = { 3 }, avail[26], need[26], nneed = 0, na = 0;

		for (int i = 0; i < n; i++)
			if (i != 3 && i != 9)
				avail[na++] = i;
		assert_int_equal(gfec_minimum_to_decode(c, want, 1, avail, na, need, &nneed), 0);
		assert_int_equal(nneed, k);
	}
	for (int t = 0; t < ns; t++)
		tstripe_free(&s[t]);
	free(pool);
	free(delta);
	free(fresh);
	gfec_codec_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_batch_update),
	};

	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
