/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_multi_gpu.c
 * Several GPU contexts behind one codec (gpu_devices=, issue 18) against the CPU backend: random
 * shapes, techniques (byte and CRS packet layouts), w = 8 and 16, lengths and alignments, one
 * stripe and batches, host pageable, pinned and device buffers, decodes and updates, each
 * byte-identical to backend=cpu; every context takes a share; a fault injected into one context
 * (GFEC_FAULT=cuda-ctx1) is redone on the other with identical output and counted; a fault in
 * every context falls back to the CPU. The contexts are gpu_devices=0,0 (two on GPU 0) by
 * default, or GFEC_TEST_GPU_DEVICES (e.g. "0,1" on a host with two GPUs). Every call is split
 * (gpu_split_min=1). Exits 77 (ctest: skipped) without a usable GPU.
 */
#include <cuda_runtime_api.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "gfec/gfec.h"
#include "test_util.h"
#include "codec_test.h" /* make() */

#define MAXC 64

static char devices[64] = "0:0"; /* a profile's list: colons */

/* 1 when @p prof makes a CPU codec (ISA-L's Vandermonde matrix is not MDS for every k, m). */
static int may_make(const char *prof)
{
	char profile[512];
	gfec_codec *c = NULL;

	snprintf(profile, sizeof(profile), "%s backend=cpu", prof);
	if (gfec_codec_create(profile, &c, NULL, 0))
		return 0;
	gfec_codec_free(c);
	return 1;
}

enum kind { PAGEABLE, PINNED, DEVICE };

/* A chunk the test reads and writes on the host (host) and the one the codec sees (buf). */
struct chunk {
	uint8_t *host, *buf;
	struct test_buf tb;
	enum kind kind;
};

static void chunk_alloc(struct chunk *c, size_t len, enum kind kind)
{
	const unsigned skew = (unsigned)test_range(0, 3) * 16 + (test_range(0, 1) ? 0 : 1);

	c->kind = kind;
	c->host = tbuf_alloc(&c->tb, len + 64, 0);
	switch (kind) {
	case PAGEABLE:
		c->buf = c->host + skew;
		break;
	case PINNED:
		assert_int_equal(cudaMallocHost((void **)&c->buf, len + 64), cudaSuccess);
		c->buf += skew;
		break;
	case DEVICE:
		assert_int_equal(cudaMalloc((void **)&c->buf, len + 64), cudaSuccess);
		c->buf += skew;
		break;
	}
}

static void to_codec(struct chunk *c, const uint8_t *src, size_t len)
{
	if (c->kind == DEVICE)
		assert_int_equal(cudaMemcpy(c->buf, src, len, cudaMemcpyHostToDevice), cudaSuccess);
	else
		memcpy(c->buf, src, len);
}

static void from_codec(struct chunk *c, uint8_t *dst, size_t len)
{
	if (c->kind == DEVICE)
		assert_int_equal(cudaMemcpy(dst, c->buf, len, cudaMemcpyDeviceToHost), cudaSuccess);
	else
		memcpy(dst, c->buf, len);
}

/* cudaMalloc and cudaMallocHost give 256-aligned pointers: the skew (< 64) is below that. */
static void chunk_release(struct chunk *c)
{
	uint8_t *base = (uint8_t *)((uintptr_t)c->buf & ~(uintptr_t)255);

	if (c->kind == PINNED)
		cudaFreeHost(base);
	else if (c->kind == DEVICE)
		cudaFree(base);
	tbuf_free(&c->tb);
}

/* A random valid shape: the profile text (without backend) and the length unit. */
static void random_shape(char *prof, size_t n, int *k, int *m, size_t *unit)
{
	switch (test_range(0, 4)) {
	case 0: { /* cauchy_good: CRS packets */
		const int p = 8 * test_range(1, 32);

		*k = test_range(2, 12), *m = test_range(1, 4);
		snprintf(prof, n, "k=%d m=%d technique=cauchy_good packetsize=%d", *k, *m, p);
		*unit = (size_t)8 * p;
		break;
	}
	case 1: /* w = 16 takes m <= k */
		*k = test_range(2, 20), *m = test_range(1, *k < 6 ? *k : 6);
		snprintf(prof, n, "k=%d m=%d w=16", *k, *m);
		*unit = 2;
		break;
	case 2:
		*k = test_range(2, 20), *m = test_range(1, 6);
		snprintf(prof, n, "k=%d m=%d technique=reed_sol_van", *k, *m);
		*unit = 1;
		break;
	default:
		*k = test_range(2, 30), *m = test_range(1, 8);
		snprintf(prof, n, "k=%d m=%d", *k, *m);
		*unit = 1;
	}
}

static size_t random_len(size_t unit)
{
	size_t len;

	switch (test_range(0, 3)) {
	case 0:
		len = (size_t)test_range(1, 200);
		break;
	case 1:
		len = (size_t)test_range(1, 70000);
		break;
	default:
		len = (size_t)test_range(1, 3 << 20);
	}
	len = (len + unit - 1) / unit * unit;
	return len;
}

/* One batch encode on the GPU codec and the CPU codec; then a decode of random erasures. */
static void one_case(gfec_codec *g, gfec_codec *c, int k, int m, int ns, size_t len,
		     enum kind kind)
{
	const int n = k + m;
	struct chunk *ch = calloc((size_t)ns * n, sizeof(*ch));
	uint8_t **ref = calloc((size_t)ns * n, sizeof(*ref));
	const uint8_t **gd = calloc((size_t)ns * k, sizeof(*gd)), **cd = calloc((size_t)ns * k, sizeof(*cd));
	uint8_t **gp = calloc((size_t)ns * m, sizeof(*gp)), **cp = calloc((size_t)ns * m, sizeof(*cp));
	uint8_t *tmp = malloc(len);

	for (int s = 0; s < ns; s++)
		for (int i = 0; i < n; i++) {
			struct chunk *x = &ch[s * n + i];

			chunk_alloc(x, len, kind);
			ref[s * n + i] = malloc(len);
			if (i < k) {
				test_fill(ref[s * n + i], len);
				to_codec(x, ref[s * n + i], len);
				gd[s * k + i] = x->buf, cd[s * k + i] = ref[s * n + i];
			} else {
				memset(tmp, TEST_POISON, len);
				to_codec(x, tmp, len);
				gp[s * m + i - k] = x->buf, cp[s * m + i - k] = ref[s * n + i];
			}
		}
	assert_int_equal(gfec_encode_batch(c, ns, cd, cp, len), 0);
	assert_int_equal(gfec_encode_batch(g, ns, gd, gp, len), 0);
	for (int s = 0; s < ns; s++)
		for (int i = k; i < n; i++) {
			from_codec(&ch[s * n + i], tmp, len);
			if (memcmp(tmp, ref[s * n + i], len))
				fail_msg("k=%d m=%d stripes=%d len=%zu kind=%d: stripe %d parity %d "
					 "differs from the CPU",
					 k, m, ns, len, kind, s, i - k);
		}
	/* Decode stripe 0 with up to m chunks lost (into poisoned buffers). */
	{
		const uint8_t *in[MAXC];
		uint8_t *out[MAXC] = { 0 };
		const int lost = test_range(1, m);

		for (int i = 0; i < n; i++)
			in[i] = ch[i].buf;
		for (int e = 0; e < lost; e++) {
			const int i = test_range(0, n - 1);

			if (!in[i])
				continue;
			in[i] = NULL;
			out[i] = ch[i].buf;
			memset(tmp, TEST_POISON, len);
			to_codec(&ch[i], tmp, len);
		}
		assert_int_equal(gfec_decode(g, in, out, len), 0);
		for (int i = 0; i < n; i++) {
			if (!out[i])
				continue;
			from_codec(&ch[i], tmp, len);
			if (memcmp(tmp, ref[i], len))
				fail_msg("k=%d m=%d len=%zu kind=%d: decoded chunk %d differs", k, m,
					 len, kind, i);
		}
	}
	for (int i = 0; i < ns * n; i++) {
		chunk_release(&ch[i]);
		free(ref[i]);
	}
	free(ch), free(ref), free(gd), free(cd), free(gp), free(cp), free(tmp);
}

static void shares_taken(gfec_codec *g, int want_all)
{
	struct gfec_gpu_device d[16];
	const int n = gfec_codec_gpu_devices(g, d, 16);
	double share = 0;

	assert_true(n >= 2);
	for (int i = 0; i < n; i++) {
		share += d[i].share;
		if (want_all && d[i].calls == 0)
			fail_msg("gpu context %d (device %d) took no share", i, d[i].ordinal);
	}
	assert_true(share > 0.999 && share < 1.001);
}

static void test_random(void **state)
{
	(void)state;
	for (int t = 0; t < 60; t++) {
		char prof[160];
		int k, m;
		size_t unit;

		random_shape(prof, sizeof(prof), &k, &m, &unit);
		if (strstr(prof, "reed_sol_van") && !may_make(prof))
			snprintf(prof, sizeof(prof), "k=%d m=%d", k, m); /* not MDS: refused */
		gfec_codec *g = make("%s backend=gpu gpu_devices=%s gpu_split_min=1", prof, devices);
		gfec_codec *c = make("%s backend=cpu", prof);
		const int ns = test_range(0, 2) ? 1 : test_range(2, 12);
		size_t len = random_len(unit);
		struct gfec_stats st;

		if ((size_t)ns * len * (k + (size_t)m) > ((size_t)96 << 20))
			len = (((size_t)96 << 20) / ((size_t)ns * (k + m)) + unit - 1) / unit * unit;
		one_case(g, c, k, m, ns, len, (enum kind)test_range(0, 2));
		gfec_codec_stats(g, &st);
		assert_int_equal(st.fallbacks, 0);
		gfec_codec_free(g);
		gfec_codec_free(c);
	}
}

/* Large calls: every context takes a share, the shares add up, rates get measured. */
static void test_every_context_codes(void **state)
{
	gfec_codec *g = make("k=10 m=4 backend=gpu gpu_devices=%s gpu_split_min=1", devices);
	gfec_codec *c = make("k=10 m=4 backend=cpu");

	(void)state;
	one_case(g, c, 10, 4, 1, (size_t)4 << 20, DEVICE);
	one_case(g, c, 10, 4, 8, (size_t)1 << 20, PINNED);
	one_case(g, c, 10, 4, 1, (size_t)2 << 20, PAGEABLE);
	shares_taken(g, 1);
	gfec_codec_free(g);
	gfec_codec_free(c);
}

/* Updates: one context per call, identical to the CPU. */
static void test_update(void **state)
{
	gfec_codec *g = make("k=8 m=3 backend=gpu gpu_devices=%s", devices);
	gfec_codec *c = make("k=8 m=3 backend=cpu");
	const size_t len = 300001;
	uint8_t *delta = malloc(len), *pg[3], *pc[3];

	(void)state;
	test_fill(delta, len);
	for (int i = 0; i < 3; i++) {
		pg[i] = malloc(len), pc[i] = malloc(len);
		test_fill(pg[i], len);
		memcpy(pc[i], pg[i], len);
	}
	for (int t = 0; t < 6; t++) {
		const int col = test_range(0, 7);

		assert_int_equal(gfec_update(g, col, delta, pg, len), 0);
		assert_int_equal(gfec_update(c, col, delta, pc, len), 0);
	}
	for (int i = 0; i < 3; i++) {
		assert_memory_equal(pg[i], pc[i], len);
		free(pg[i]), free(pc[i]);
	}
	free(delta);
	gfec_codec_free(g);
	gfec_codec_free(c);
}

/* One context fails every call: its shares are redone on the other, same bytes, counted. */
static void test_fault_one_context(void **state)
{
	gfec_codec *g, *c = make("k=10 m=4 backend=cpu");
	struct gfec_gpu_device d[16];
	struct gfec_stats st;

	(void)state;
	setenv("GFEC_FAULT", "cuda-ctx1", 1);
	g = make("k=10 m=4 backend=gpu gpu_devices=%s gpu_split_min=1", devices);
	unsetenv("GFEC_FAULT");
	for (int t = 0; t < 3; t++) {
		one_case(g, c, 10, 4, 1, (size_t)test_range(1, 4 << 20), (enum kind)t);
		one_case(g, c, 10, 4, 5, (size_t)test_range(1, 1 << 20), (enum kind)t);
	}
	const int n = gfec_codec_gpu_devices(g, d, 16);

	assert_true(n >= 2);
	assert_true(d[1].failures >= 1);
	assert_int_equal(d[1].calls, 0);
	assert_true(d[1].share == 0);
	for (int i = 0; i < n; i++)
		if (i != 1)
			assert_int_equal(d[i].failures, 0);
	gfec_codec_stats(g, &st);
	assert_int_equal(st.fallbacks, 0); /* redone on the GPU, not the CPU */
	gfec_codec_free(g);
	/* Every context fails: host buffers are redone on the CPU. */
	setenv("GFEC_FAULT", "cuda", 1);
	g = make("k=10 m=4 backend=gpu gpu_devices=%s gpu_split_min=1", devices);
	unsetenv("GFEC_FAULT");
	one_case(g, c, 10, 4, 3, 100000, PAGEABLE);
	one_case(g, c, 10, 4, 1, 100000, PINNED);
	gfec_codec_stats(g, &st);
	assert_true(st.fallbacks >= 2);
	gfec_codec_free(g);
	gfec_codec_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_context_codes),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_fault_one_context),
	};
	int n = 0;
	gfec_codec *probe = NULL;
	char err[256], prof[128];

	if (getenv("GFEC_TEST_GPU_DEVICES")) {
		snprintf(devices, sizeof(devices), "%s", getenv("GFEC_TEST_GPU_DEVICES"));
		for (char *q = devices; *q; q++)
			*q = *q == ',' ? ':' : *q;
	}
	snprintf(prof, sizeof(prof), "k=4 m=2 backend=gpu gpu_devices=%s", devices);
	if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1 ||
	    gfec_codec_create(prof, &probe, err, sizeof(err))) {
		printf("no usable GPU for gpu_devices=%s: skipped\n", devices);
		return 77;
	}
	gfec_codec_free(probe);
	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
