/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_fft16_gpu.c
 * technique=fft on buffers in GPU memory (issue 13): the codec with backend=gpu runs its
 * butterflies on the GPU backend (cuda_gemm/device/bfly16.cu) and must give the CPU codec's bytes
 * exactly. Random shapes (k + m up to a few thousand), every erasure pattern of small codes,
 * (1000,200), (32768,32768) and a code in the general layout (40000,20000); lengths that are
 * not whole 16- or 4-byte units, buffers at odd addresses, outputs poisoned before each call;
 * batches, updates, host buffers on the same codec (the CPU path), and a codec whose every GPU
 * call fails (GFEC_FAULT=cuda: an error, never a wrong byte). Exits 77 (ctest: skipped) without a
 * usable GPU.
 */
#include <cuda_runtime_api.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gfec/gfec.h"
#include "test_util.h"

/* One stripe of k + m chunks of len bytes: on the host, and on the device at odd offsets. */
struct dstripe {
	int k, m;
	size_t len;
	uint8_t *host;	  /* (k + m) * len: data, then the CPU codec's parity */
	uint8_t *dbase;	  /* the device allocation */
	uint8_t **dchunk; /* k + m device chunks, each at its own offset (odd ones included) */
};

static void ds_init(struct dstripe *s, int k, int m, size_t len, int aligned)
{
	const int n = k + m;
	size_t total = 0, *at = malloc(sizeof(size_t) * (size_t)n);

	s->k = k;
	s->m = m;
	s->len = len;
	s->host = malloc((size_t)n * len + 1);
	s->dchunk = malloc(sizeof(*s->dchunk) * (size_t)n);
	assert_true(at && s->host && s->dchunk);
	for (int i = 0; i < n; i++) {
		total = (total + 255) / 256 * 256 + (aligned ? 0 : (size_t)test_range(0, 15));
		at[i] = total;
		total += len;
	}
	assert_int_equal(cudaMalloc((void **)&s->dbase, total + 1), cudaSuccess);
	for (int i = 0; i < n; i++)
		s->dchunk[i] = s->dbase + at[i];
	free(at);
	test_fill(s->host, (size_t)k * len);
}

static void ds_free(struct dstripe *s)
{
	cudaFree(s->dbase);
	free(s->host);
	free(s->dchunk);
}

static uint8_t *hchunk(const struct dstripe *s, int i)
{
	return s->host + (size_t)i * s->len;
}

static void to_dev(const struct dstripe *s, int i)
{
	assert_int_equal(cudaMemcpy(s->dchunk[i], hchunk(s, i), s->len, cudaMemcpyHostToDevice),
			 cudaSuccess);
}

static void poison(uint8_t *d, size_t len)
{
	assert_int_equal(cudaMemset(d, TEST_POISON, len), cudaSuccess);
}

/* Device bytes equal to the host's. */
static void dev_equal(const uint8_t *d, const uint8_t *h, size_t len)
{
	uint8_t *b = malloc(len + 1);

	assert_non_null(b);
	assert_int_equal(cudaMemcpy(b, d, len, cudaMemcpyDeviceToHost), cudaSuccess);
	assert_memory_equal(b, h, len);
	free(b);
}

static gfec_codec *make(int k, int m, const char *backend)
{
	char prof[160], err[256];
	gfec_codec *c = NULL;

	snprintf(prof, sizeof(prof), "k=%d m=%d w=16 technique=fft backend=%s", k, m, backend);
	assert_int_equal(gfec_codec_create(prof, &c, err, sizeof(err)), 0);
	return c;
}

/* CPU parity into s->host; then the GPU's into the device chunks (poisoned first): equal. */
static void encode_both(gfec_codec *cpu, gfec_codec *gpu, struct dstripe *s)
{
	const uint8_t **hd = malloc(sizeof(*hd) * (size_t)s->k);
	uint8_t **hp = malloc(sizeof(*hp) * (size_t)s->m);

	assert_true(hd && hp);
	for (int j = 0; j < s->k; j++) {
		hd[j] = hchunk(s, j);
		to_dev(s, j);
	}
	for (int i = 0; i < s->m; i++) {
		hp[i] = hchunk(s, s->k + i);
		poison(s->dchunk[s->k + i], s->len);
	}
	assert_int_equal(gfec_encode(cpu, hd, hp, s->len), 0);
	assert_int_equal(gfec_encode(gpu, (const uint8_t *const *)s->dchunk, s->dchunk + s->k,
				     s->len),
			 0);
	for (int i = 0; i < s->m; i++)
		dev_equal(s->dchunk[s->k + i], hchunk(s, s->k + i), s->len);
	free(hd);
	free(hp);
}

/*
 * Loses lost[0..nl-1] on the device, decodes into poisoned device outputs (dout: room for nl of
 * len + 2 bytes), checks each.
 */
static void lose_and_check(gfec_codec *gpu, const struct dstripe *s, const int *lost, int nl,
			   uint8_t *dout)
{
	const int n = s->k + s->m;
	const uint8_t **ch = malloc(sizeof(*ch) * (size_t)n);
	uint8_t **out = calloc((size_t)n, sizeof(*out));

	assert_true(ch && out);
	for (int i = 0; i < n; i++)
		ch[i] = s->dchunk[i];
	poison(dout, (size_t)nl * (s->len + 2));
	for (int e = 0; e < nl; e++) {
		ch[lost[e]] = NULL;
		out[lost[e]] = dout + (size_t)e * (s->len + 2) + (e % 2); /* odd addresses too */
	}
	assert_int_equal(gfec_decode(gpu, ch, out, s->len), 0);
	for (int e = 0; e < nl; e++)
		dev_equal(out[lost[e]], hchunk(s, lost[e]), s->len);
	free(ch);
	free(out);
}

/* Up to m random distinct losses. */
static int pick_losses(int n, int m, int *lost)
{
	int nl = 0;

	for (int e = test_range(1, m); e > 0; e--) {
		const int i = test_range(0, n - 1);
		int seen = 0;

		for (int q = 0; q < nl; q++)
			seen |= lost[q] == i;
		if (!seen)
			lost[nl++] = i;
	}
	return nl;
}

static void one_shape(int k, int m, size_t len, int aligned, int ndecodes)
{
	gfec_codec *cpu = make(k, m, "cpu"), *gpu = make(k, m, "gpu");
	int *lost = malloc(sizeof(int) * (size_t)m);
	uint8_t *dout;
	struct dstripe s;

	assert_non_null(lost);
	ds_init(&s, k, m, len, aligned);
	assert_int_equal(cudaMalloc((void **)&dout, (size_t)m * (len + 2)), cudaSuccess);
	encode_both(cpu, gpu, &s);
	for (int d = 0; d < ndecodes; d++) {
		const int nl = d == 0 ? m : pick_losses(k + m, m, lost);

		if (d == 0) /* the first m chunks: data losses the decoder must rebuild */
			for (int e = 0; e < m; e++)
				lost[e] = e;
		lose_and_check(gpu, &s, lost, nl, dout);
	}
	cudaFree(dout);
	ds_free(&s);
	free(lost);
	gfec_codec_free(cpu);
	gfec_codec_free(gpu);
}

static void test_random_shapes(void **state)
{
	(void)state;
	for (int iter = 0; iter < 24; iter++) {
		const int k = test_range(1, iter % 6 ? 200 : 2500);
		const int m = test_range(1, k < 1200 ? k : 1200);
		const size_t len = 2 * (size_t)test_range(1, iter % 4 ? 700 : 20000);

		one_shape(k, m, len, iter % 3 == 0, 3);
	}
}

/* Every pattern of 1..m losses of codes with k + m <= 10. */
static void test_every_pattern(void **state)
{
	static const int shapes[][2] = { { 2, 1 }, { 4, 2 }, { 5, 3 }, { 6, 4 }, { 5, 5 } };

	(void)state;
	for (size_t t = 0; t < sizeof(shapes) / sizeof(shapes[0]); t++) {
		const int k = shapes[t][0], m = shapes[t][1], n = k + m;
		const size_t len = 2 * (size_t)test_range(1, 300);
		gfec_codec *cpu = make(k, m, "cpu"), *gpu = make(k, m, "auto");
		int lost[10];
		uint8_t *dout;
		struct dstripe s;

		ds_init(&s, k, m, len, 0);
		assert_int_equal(cudaMalloc((void **)&dout, (size_t)m * (len + 2)), cudaSuccess);
		encode_both(cpu, gpu, &s);
		for (unsigned mask = 1; mask < 1u << n; mask++) {
			int nl = 0;

			if (__builtin_popcount(mask) > m)
				continue;
			for (int i = 0; i < n; i++)
				if (mask >> i & 1)
					lost[nl++] = i;
			lose_and_check(gpu, &s, lost, nl, dout);
		}
		cudaFree(dout);
		ds_free(&s);
		gfec_codec_free(cpu);
		gfec_codec_free(gpu);
	}
}

static void test_large(void **state)
{
	(void)state;
	one_shape(1000, 200, 65536 + 18, 0, 2);
	one_shape(32768, 32768, 256 + 6, 1, 2);
	one_shape(40000, 20000, 130, 0, 1); /* the general layout: encoded as a decode */
}

/* Batches of stripes, updates, and the same codec on host buffers (its CPU path). */
static void test_batch_update_host(void **state)
{
	const int k = 30, m = 9, ns = 3;
	const size_t len = 2 * 1111;
	gfec_codec *cpu = make(k, m, "cpu"), *gpu = make(k, m, "gpu");
	struct dstripe s[3];
	const uint8_t *dd[3 * 30], *hd[3 * 30];
	uint8_t *dp[3 * 9], *hp[3 * 9], *delta = malloc(len), *ddelta;

	(void)state;
	assert_non_null(delta);
	for (int t = 0; t < ns; t++) {
		ds_init(&s[t], k, m, len, t != 1);
		for (int j = 0; j < k; j++) {
			to_dev(&s[t], j);
			dd[t * k + j] = s[t].dchunk[j];
			hd[t * k + j] = hchunk(&s[t], j);
		}
		for (int i = 0; i < m; i++) {
			poison(s[t].dchunk[k + i], len);
			dp[t * m + i] = s[t].dchunk[k + i];
			hp[t * m + i] = hchunk(&s[t], k + i);
		}
	}
	assert_int_equal(gfec_encode_batch(cpu, ns, hd, hp, len), 0);
	assert_int_equal(gfec_encode_batch(gpu, ns, dd, dp, len), 0);
	for (int t = 0; t < ns; t++)
		for (int i = 0; i < m; i++)
			dev_equal(s[t].dchunk[k + i], hchunk(&s[t], k + i), len);

	/* update chunk 7 of stripe 0 by a delta: device parity against the host's */
	test_fill(delta, len);
	assert_int_equal(cudaMalloc((void **)&ddelta, len + 1), cudaSuccess);
	assert_int_equal(cudaMemcpy(ddelta + 1, delta, len, cudaMemcpyHostToDevice), cudaSuccess);
	assert_int_equal(gfec_update(cpu, 7, delta, hp, len), 0);
	assert_int_equal(gfec_update(gpu, 7, ddelta + 1, dp, len), 0);
	for (int i = 0; i < m; i++)
		dev_equal(s[0].dchunk[k + i], hchunk(&s[0], k + i), len);

	/* host buffers on the GPU codec: the CPU path, the same parity */
	{
		uint8_t *pb = malloc((size_t)m * len), *hp2[9];

		assert_non_null(pb);
		for (int i = 0; i < m; i++)
			hp2[i] = pb + (size_t)i * len;
		assert_int_equal(gfec_encode(gpu, hd + k, hp2, len), 0);
		assert_memory_equal(pb, hchunk(&s[1], k), (size_t)m * len);
		free(pb);
	}
	cudaFree(ddelta);
	free(delta);
	for (int t = 0; t < ns; t++)
		ds_free(&s[t]);
	gfec_codec_free(cpu);
	gfec_codec_free(gpu);
}

/* GFEC_FAULT=cuda: every GPU op fails; device-buffer calls return an error, nothing is redone. */
static void test_fault(void **state)
{
	char err[256];
	gfec_codec *c = NULL;
	struct dstripe s;

	(void)state;
	setenv("GFEC_FAULT", "cuda", 1);
	assert_int_equal(gfec_codec_create("k=10 m=4 w=16 technique=fft backend=gpu", &c, err,
					   sizeof(err)),
			 0);
	unsetenv("GFEC_FAULT");
	ds_init(&s, 10, 4, 4096, 1);
	for (int j = 0; j < 10; j++)
		to_dev(&s, j);
	assert_true(gfec_encode(c, (const uint8_t *const *)s.dchunk, s.dchunk + 10, 4096) < 0);
	ds_free(&s);
	gfec_codec_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_shapes), cmocka_unit_test(test_every_pattern),
		cmocka_unit_test(test_large),	      cmocka_unit_test(test_batch_update_host),
		cmocka_unit_test(test_fault),
	};
	char err[256];
	gfec_codec *c = NULL;
	int n = 0;

	if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1 ||
	    gfec_codec_create("k=2 m=1 w=16 technique=fft backend=gpu", &c, err, sizeof(err))) {
		fprintf(stderr, "# no usable GPU: skipped\n");
		return 77;
	}
	gfec_codec_free(c);
	test_seed();
	if (getenv("GFEC_TEST_FILTER"))
		cmocka_set_test_filter(getenv("GFEC_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
