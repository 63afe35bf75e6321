/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_gemm16_gpu.c
 * The GPU backend's GF(2^16) path (issue 13) through the backend table, byte for byte against
 * the CPU reference gfec_cpu_gemm16_base: random shapes (rows, cols 1..300) and 200 x 1000, even
 * lengths, misaligned buffers (odd addresses included), poisoned outputs, batches, pageable,
 * pinned and device buffers, a small pipeline segment (many pieces), updates of one column, odd
 * lengths refused, and what can_implement takes. Exits 77 (ctest: skipped) without a usable GPU.
 */
#include <cuda_runtime_api.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpu_backend.h"
#include "gf16.h"
#include "gfec_gpu.h"
#include "test_util.h"

enum mem { PAGEABLE, PINNED, DEVICE };

static const struct gfec_backend_ops *ops;

/* A buffer of n bytes at offset off in memory of kind k; *base is what to free. */
static uint8_t *buf_alloc(enum mem k, size_t n, size_t off, void **base)
{
	void *p = NULL;

	if (k == PAGEABLE)
		p = malloc(n + off);
	else if (k == PINNED)
		assert_int_equal(cudaMallocHost(&p, n + off), cudaSuccess);
	else
		assert_int_equal(cudaMalloc(&p, n + off), cudaSuccess);
	assert_non_null(p);
	*base = p;
	return (uint8_t *)p + off;
}

static void buf_free(enum mem k, void *base)
{
	if (k == PAGEABLE)
		free(base);
	else if (k == PINNED)
		cudaFreeHost(base);
	else
		cudaFree(base);
}

static void put(enum mem k, uint8_t *d, const uint8_t *s, size_t n)
{
	if (k == DEVICE)
		assert_int_equal(cudaMemcpy(d, s, n, cudaMemcpyHostToDevice), cudaSuccess);
	else
		memcpy(d, s, n);
}

static void get(enum mem k, uint8_t *d, const uint8_t *s, size_t n)
{
	if (k == DEVICE)
		assert_int_equal(cudaMemcpy(d, s, n, cudaMemcpyDeviceToHost), cudaSuccess);
	else
		memcpy(d, s, n);
}

/*
 * One call on @p ctx: a GEMM (col < 0) of nstripes stripes, or the update of column col (one
 * stripe), in memory k with random offsets; outputs start poisoned (GEMM) or random (update).
 */
static void one(void *ctx, int rows, int cols, int nstripes, size_t len, enum mem k, int col)
{
	struct gfec_gemm_matrix m = {.w = 16, .rows = rows, .cols = cols};
	const int ncols = col < 0 ? cols : 1;
	const size_t nin = (size_t)nstripes * ncols, nout = (size_t)nstripes * rows;
	uint16_t *a = malloc((size_t)rows * cols * 2), *acol = malloc((size_t)rows * 2);
	uint8_t **hin = calloc(nin, sizeof(*hin)), **hout = calloc(nout, sizeof(*hout));
	uint8_t **ref = calloc(nout, sizeof(*ref)), **in = calloc(nin, sizeof(*in));
	uint8_t **out = calloc(nout, sizeof(*out));
	void **bin = calloc(nin, sizeof(*bin)), **bout = calloc(nout, sizeof(*bout));
	void *plan = NULL;

	assert_true(a && acol && hin && hout && ref && in && out && bin && bout);
	assert_true(col < 0 || nstripes == 1); /* update() takes one stripe */
	for (size_t i = 0; i < (size_t)rows * cols; i++)
		a[i] = test_range(0, 3) ? (uint16_t)test_rand() : 0;
	for (int i = 0; i < rows && col >= 0; i++)
		acol[i] = a[(size_t)i * cols + col];
	m.a = (const uint8_t *)a;
	assert_int_equal(ops->can_implement(ctx, &m), 0);
	assert_int_equal(ops->plan_create(ctx, &m, &plan), 0);
	for (size_t i = 0; i < nin; i++) {
		hin[i] = malloc(len);
		test_fill(hin[i], len);
		in[i] = buf_alloc(k, len, (size_t)test_range(0, 63), &bin[i]);
		put(k, in[i], hin[i], len);
	}
	for (size_t i = 0; i < nout; i++) {
		hout[i] = malloc(len + 64);
		ref[i] = malloc(len);
		if (col < 0)
			memset(ref[i], TEST_POISON, len);
		else
			test_fill(ref[i], len);
		out[i] = buf_alloc(k, len + 64, (size_t)test_range(0, 63), &bout[i]);
		memset(hout[i], TEST_POISON, len + 64); /* the guard past len stays poisoned */
		memcpy(hout[i], ref[i], len);
		put(k, out[i], hout[i], len + 64);
	}
	for (int s = 0; s < nstripes; s++)
		gfec_cpu_gemm16_base(len, ncols, rows, col < 0 ? a : acol,
				     (const uint8_t *const *)hin + (size_t)s * ncols,
				     ref + (size_t)s * rows, col >= 0);
	if (col < 0) {
		assert_int_equal(
		    ops->gemm(ctx, plan, nstripes, len, (const uint8_t *const *)in, out), 0);
	} else {
		size_t done = 0;

		assert_int_equal(ops->update(ctx, plan, col, len, in[0], out, &done), 0);
		assert_int_equal(done, len);
	}
	for (size_t i = 0; i < nout; i++) {
		get(k, hout[i], out[i], len + 64);
		if (memcmp(hout[i], ref[i], len) != 0) {
			size_t b = 0;

			while (hout[i][b] == ref[i][b])
				b++;
			fail_msg(
			    "rows=%d cols=%d stripes=%d len=%zu mem=%d col=%d: output %zu byte "
			    "%zu is %02x, CPU %02x",
			    rows, cols, nstripes, len, (int)k, col, i, b, hout[i][b], ref[i][b]);
		}
		for (size_t b = len; b < len + 64; b++)
			if (hout[i][b] != TEST_POISON)
				fail_msg("rows=%d cols=%d len=%zu: byte %zu past len written", rows,
					 cols, len, b);
	}
	ops->plan_free(ctx, plan);
	for (size_t i = 0; i < nin; i++) {
		buf_free(k, bin[i]);
		free(hin[i]);
	}
	for (size_t i = 0; i < nout; i++) {
		buf_free(k, bout[i]);
		free(hout[i]);
		free(ref[i]);
	}
	free(a), free(acol), free(hin), free(hout), free(ref), free(in), free(out), free(bin);
	free(bout);
}

static void *make_ctx(size_t segment)
{
	struct gfec_backend_conf conf;
	void *ctx = NULL;

	memset(&conf, 0, sizeof(conf));
	conf.segment = segment;
	assert_int_equal(ops->init(&conf, &ctx), 0);
	return ctx;
}

static void test_random_shapes(void **state)
{
	void *ctx = make_ctx(0);

	(void)state;
	for (int rep = 0; rep < 60; rep++) {
		const int rows = test_range(1, 300), cols = test_range(1, 300);
		const enum mem k = (enum mem)(rep % 3);
		const int ns = k == PINNED ? 1 : test_range(1, 3);
		/* the CPU reference's work bounded: at most 2e7 products per call */
		const long most = 20000000L / ((long)rows * cols * ns);
		const size_t len = 2 * (size_t)test_range(1, most < 1	    ? 1
							     : most > 40000 ? 40000
									    : (int)most);

		one(ctx, rows, cols, ns, len, k, -1);
	}
	ops->fini(ctx);
}

static void test_1000x200(void **state)
{
	void *ctx = make_ctx(0);

	(void)state;
	one(ctx, 200, 1000, 1, 8192, DEVICE, -1);
	one(ctx, 200, 1000, 2, 4096 + 34, PAGEABLE, -1);
	one(ctx, 200, 1000, 1, 4096, DEVICE, 999);
	ops->fini(ctx);
}

/* Several K-chunks (double-buffered stages) and position tiles, small: compute-sanitizer's size. */
static void test_chunks(void **state)
{
	void *ctx = make_ctx(0);

	(void)state;
	one(ctx, 20, 200, 2, 1024, DEVICE, -1);
	one(ctx, 20, 200, 1, 1026, DEVICE, 150);
	ops->fini(ctx);
}

static void test_update(void **state)
{
	void *ctx = make_ctx(0);

	(void)state;
	for (int rep = 0; rep < 30; rep++) {
		const int rows = test_range(1, 300), cols = test_range(1, 300);

		one(ctx, rows, cols, 1, 2 * (size_t)test_range(1, 5000), (enum mem)(rep % 3),
		    test_range(0, cols - 1));
	}
	ops->fini(ctx);
}

/* 64 KiB pipeline pieces: a long call is cut into many byte ranges, many stripes into groups. */
static void test_small_segment(void **state)
{
	void *ctx = make_ctx(64 << 10);

	(void)state;
	for (int rep = 0; rep < 12; rep++) /* an update is one stripe */
		one(ctx, test_range(1, 40), test_range(1, 300), rep % 3 ? test_range(1, 6) : 1,
		    2 * (size_t)test_range(1, 60000), PAGEABLE, rep % 3 ? -1 : 0);
	ops->fini(ctx);
}

static void test_refusals(void **state)
{
	void *ctx = make_ctx(0), *plan = NULL;
	uint16_t a[4] = {1, 2, 3, 4};
	struct gfec_gemm_matrix m = {.w = 16, .rows = 2, .cols = 2, .a = (const uint8_t *)a};
	uint8_t x[4] = {0}, y[4], z[4];
	const uint8_t *src[2] = {x, x};
	uint8_t *dst[2] = {y, z};
	size_t done = 0, freeb = 0, total = 0;

	(void)state;
	assert_int_equal(cudaMemGetInfo(&freeb, &total), cudaSuccess);
	assert_int_equal(ops->plan_create(ctx, &m, &plan), 0);
	assert_int_equal(ops->gemm(ctx, plan, 1, 3, src, dst), GFEC_E_INVAL); /* odd length */
	assert_int_equal(ops->update(ctx, plan, 0, 3, x, dst, &done), GFEC_E_INVAL);
	assert_int_equal(ops->update(ctx, plan, 2, 4, x, dst, &done), GFEC_E_INVAL);
	ops->plan_free(ctx, plan);
	m.packetsize = 8; /* no CRS packets at w = 16 */
	assert_int_equal(ops->can_implement(ctx, &m), GFEC_E_NOTSUP);
	m.packetsize = 0;
	m.rows = 65537;
	assert_int_equal(ops->can_implement(ctx, &m), GFEC_E_NOTSUP);
	m.rows = 65536, m.cols = 1;
	assert_int_equal(ops->can_implement(ctx, &m), 0);
	/* 65536 x 65536: a 128 GiB table, taken only where it is at most 3/4 of the device */
	m.cols = 65536;
	assert_int_equal(ops->can_implement(ctx, &m),
			 ((size_t)128 << 30) > total / 4 * 3 ? GFEC_E_NOTSUP : 0);
	m.w = 12;
	assert_int_equal(ops->can_implement(ctx, &m), GFEC_E_NOTSUP);
	m.w = 16, m.rows = 2, m.cols = 2, m.a = NULL; /* no matrix: not for this backend */
	assert_int_equal(ops->can_implement(ctx, &m), GFEC_E_NOTSUP);
	ops->fini(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_refusals),	  cmocka_unit_test(test_random_shapes),
	    cmocka_unit_test(test_1000x200),	  cmocka_unit_test(test_update),
	    cmocka_unit_test(test_small_segment), cmocka_unit_test(test_chunks),
	};
	struct gfec_backend_conf conf;
	void *ctx = NULL;

	ops = gfec_gpu_backend();
	memset(&conf, 0, sizeof(conf));
	if (ops->init(&conf, &ctx) != 0) {
		fprintf(stderr, "# no usable GPU: skipped\n");
		return 77;
	}
	ops->fini(ctx);
	gfec_gf16_init();
	test_seed();
	if (getenv("GFEC_TEST_FILTER")) /* e.g. one test under compute-sanitizer, which is slow */
		cmocka_set_test_filter(getenv("GFEC_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
