/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_fft16_async.c
 * gfmatrix/fft16.c driven by asynchronous ops (struct gfec_fft16_ops with alloc, free, work and
 * sync), the way the GPU backend's stream-ordered butterflies drive it, on any host: a fake
 * backend whose bfly only copies the call's lists into a queue and runs nothing; sync runs the
 * queue in order (the CPU backend's plain-C reference). Its work memory comes from its own alloc,
 * filled with a poison, and its free fails the test when ops are still queued (they would run
 * on freed memory) or when the region was not its own. So a call passes only if fft16.c never
 * touches a region itself between ops, never needs an op done before sync, never frees work
 * early, and syncs exactly once. The fake copies the lists at call time, as the contract asks of
 * an asynchronous op: fft16.c refills its arrays for the next call at once.
 *
 * Checked against the plain ops: encode (both layouts, NULL data chunks) against
 * gfec_fft16_encode_base, decode of random loss patterns (with disjoint_only, the GPU's choice,
 * and without; every GFEC_BFLY_SUMS list checked against that flag's contract), fft then ifft back,
 * with work hints from one 4 KiB slice to whole chunks; an op that fails midway (GFEC_E_DEVICE
 * returned, sync still once, every allocation freed after it); an alloc that fails (GFEC_E_NOMEM).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpu_backend.h"
#include "fft16.h"
#include "gemm.h"
#include "gf16.h"
#include "test_util.h"

#define WORK_POISON 0x5A

struct qop {
	int kind, n;
	size_t len;
	uint8_t **x, **y;
	uint16_t *c;
};

struct fake {
	struct qop *q;
	size_t nq, cap;
	void *live[8];
	int nlive;
	int calls, syncs, allocs, frees;
	int early_frees;  /* frees while ops were queued */
	int foreign_frees; /* frees of memory not from alloc */
	int fail_call;	  /* bfly call number (1-based) that fails; 0: none */
	int fail_alloc;	  /* 1: alloc returns NULL */
	size_t work;
	int disjoint_only; /* the ops' flag: the decoder's derivative as GFEC_BFLY_SUMS lists */
	int unflagged;	  /* lists queued without a flag (none with disjoint_only) */
	int sums;	  /* GFEC_BFLY_SUMS lists queued */
};

static int cmp_ptr(const void *a, const void *b)
{
	const uintptr_t u = (uintptr_t) * (uint8_t *const *)a, v = (uintptr_t) * (uint8_t *const *)b;

	return u < v ? -1 : u > v;
}

/*
 * GFEC_BFLY_SUMS's contract (gemm.h): FWD, every c 0, runs of consecutive ops with one y, two
 * runs never on one y, no y an x of the list.
 */
static void check_sums(int kind, int n, uint8_t *const *x, uint8_t *const *y, const uint16_t *c)
{
	uint8_t **ys = malloc(sizeof(*ys) * (size_t)(n ? n : 1));
	int nys = 0;

	assert_non_null(ys);
	assert_int_equal(kind & ~GFEC_BFLY_FLAGS, GFEC_BFLY_FWD);
	for (int p = 0; p < n; p++) {
		assert_int_equal(c[p], 0);
		if (p == 0 || y[p] != y[p - 1])
			ys[nys++] = y[p];
	}
	qsort(ys, (size_t)nys, sizeof(*ys), cmp_ptr);
	for (int i = 1; i < nys; i++)
		assert_true(ys[i] != ys[i - 1]);
	for (int p = 0; p < n; p++)
		assert_null(bsearch(&x[p], ys, (size_t)nys, sizeof(*ys), cmp_ptr));
	free(ys);
}

static int fake_bfly(void *ctx, int kind, int n, size_t len, uint8_t *const *x, uint8_t *const *y,
		     const uint16_t *c)
{
	struct fake *f = ctx;
	struct qop *o;

	if (++f->calls == f->fail_call)
		return GFEC_E_DEVICE;
	f->unflagged += !(kind & GFEC_BFLY_FLAGS);
	if (kind & GFEC_BFLY_SUMS) {
		check_sums(kind, n, x, y, c);
		f->sums++;
	}
	if (f->nq == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->q = realloc(f->q, sizeof(*f->q) * f->cap);
		assert_non_null(f->q);
	}
	o = &f->q[f->nq++];
	o->kind = kind;
	o->n = n;
	o->len = len;
	o->x = malloc(sizeof(*o->x) * (size_t)n);
	o->y = malloc(sizeof(*o->y) * (size_t)n);
	o->c = malloc(sizeof(*o->c) * (size_t)n);
	assert_true(o->x && o->y && o->c);
	memcpy(o->x, x, sizeof(*o->x) * (size_t)n);
	memcpy(o->y, y, sizeof(*o->y) * (size_t)n);
	memcpy(o->c, c, sizeof(*o->c) * (size_t)n);
	return 0;
}

static int fake_sync(void *ctx)
{
	struct fake *f = ctx;

	f->syncs++;
	for (size_t i = 0; i < f->nq; i++) {
		struct qop *o = &f->q[i];

		gfec_cpu_bfly16_base(o->kind, o->n, o->len, o->x, o->y, o->c);
		free(o->x);
		free(o->y);
		free(o->c);
	}
	f->nq = 0;
	return 0;
}

static void *fake_alloc(void *ctx, size_t bytes)
{
	struct fake *f = ctx;
	void *p;

	if (f->fail_alloc)
		return NULL;
	assert_true(f->nlive < 8);
	p = malloc(bytes);
	assert_non_null(p);
	memset(p, WORK_POISON, bytes);
	f->live[f->nlive++] = p;
	f->allocs++;
	return p;
}

static void fake_free(void *ctx, void *p)
{
	struct fake *f = ctx;
	int i;

	f->frees++;
	f->early_frees += f->nq != 0;
	for (i = 0; i < f->nlive && f->live[i] != p; i++)
		;
	if (i == f->nlive) {
		f->foreign_frees++;
		return;
	}
	f->live[i] = f->live[--f->nlive];
	free(p);
}

static struct gfec_fft16_ops fake_ops(struct fake *f)
{
	return (struct gfec_fft16_ops){ .bfly = fake_bfly, .ctx = f, .alloc = fake_alloc,
					.free = fake_free, .work = f->work, .sync = fake_sync,
					.disjoint_only = f->disjoint_only };
}

/* After each call: one sync, nothing queued, every allocation given back, none early. */
static void check_call(struct fake *f)
{
	assert_int_equal(f->syncs, 1);
	assert_int_equal(f->nq, 0);
	assert_int_equal(f->nlive, 0);
	assert_int_equal(f->allocs, f->frees);
	assert_int_equal(f->early_frees, 0);
	assert_int_equal(f->foreign_frees, 0);
	f->syncs = f->allocs = f->frees = f->calls = 0;
}

/* A work hint: one 4 KiB slice, a few slices, or whole chunks. */
static size_t pick_work(int iter, size_t nreg_max)
{
	switch (iter % 3) {
	case 0:
		return 1;
	case 1:
		return nreg_max * 4096 * 2;
	default:
		return (size_t)1 << 40;
	}
}

static void test_encode_decode(void **state)
{
	(void)state;
	for (int iter = 0; iter < 36; iter++) {
		const int k = test_range(1, iter % 6 ? 60 : 400), m = test_range(1, iter % 5 ? 30 : 120);
		const size_t len = 2 * (size_t)test_range(1, iter % 4 ? 200 : 9000);
		const enum gfec_fft16_layout lay = iter % 2 ? GFEC_FFT16_GENERAL : GFEC_FFT16_AUTO;
		struct fake f = { .work = pick_work(iter, 65536), .disjoint_only = iter % 4 < 2 };
		const struct gfec_fft16_ops ops = fake_ops(&f);
		struct gfec_fft16_code *code;
		uint8_t *dblk, *pblk, *rblk, *oblk;
		uint8_t **data = test_regions((size_t)k, len, &dblk),
			**par = test_regions((size_t)m, len, &pblk);
		uint8_t **ref = test_regions((size_t)m, len, &rblk),
			**ob = test_regions((size_t)m, len, &oblk);
		const uint8_t **chunks = malloc(sizeof(*chunks) * (size_t)(k + m));
		uint8_t **out = calloc((size_t)(k + m), sizeof(*out));
		int nl = 0;

		assert_true(chunks && out);
		test_fill(dblk, (size_t)k * len);
		memset(pblk, TEST_POISON, (size_t)m * len);
		if (iter % 4 == 3) /* NULL data: zeros, some whole groups of them skipped */
			for (int j = 0; j < k; j++)
				if (j < k / 2 || test_range(0, 2) == 0)
					data[j] = NULL;
		assert_int_equal(gfec_fft16_code_create(k, m, lay, &code), 0);
		assert_int_equal(gfec_fft16_encode_base(code, len, (const uint8_t *const *)data, ref),
				 0);
		assert_int_equal(gfec_fft16_encode(code, &ops, len, (const uint8_t *const *)data,
						   par),
				 0);
		check_call(&f);
		assert_memory_equal(pblk, rblk, (size_t)m * len);

		/* lose up to m chunks (data with a NULL chunk counts as zeros) */
		for (int j = 0; j < k; j++)
			if (!data[j]) {
				data[j] = dblk + (size_t)j * len;
				memset(data[j], 0, len);
			}
		for (int i = 0; i < k + m; i++)
			chunks[i] = i < k ? data[i] : par[i - k];
		memset(oblk, TEST_POISON, (size_t)m * len);
		for (int e = test_range(1, m); e > 0; e--) {
			const int i = test_range(0, k + m - 1);

			if (!chunks[i])
				continue;
			chunks[i] = NULL;
			out[i] = ob[nl++];
		}
		assert_int_equal(gfec_fft16_decode(code, &ops, len, chunks, out), 0);
		check_call(&f);
		/* the decoder's one unflagged list is its derivative (none at N = 1), or log2 N
		 * GFEC_BFLY_SUMS lists */
		assert_true(f.disjoint_only ? f.unflagged == 0 && f.sums >= 1
					    : f.unflagged >= 1 && f.sums == 0);
		for (int i = 0; i < k + m; i++)
			if (out[i])
				assert_memory_equal(out[i], i < k ? data[i] : par[i - k], len);
		gfec_fft16_code_free(code);
		free(chunks);
		free(out);
		free(data);
		free(par);
		free(ref);
		free(ob);
		free(dblk);
		free(pblk);
		free(rblk);
		free(oblk);
		free(f.q);
	}
}

static void test_transform(void **state)
{
	(void)state;
	for (int iter = 0; iter < 12; iter++) {
		const unsigned logn = (unsigned)test_range(0, 9);
		const size_t n = (size_t)1 << logn, len = 2 * (size_t)test_range(1, 300);
		const unsigned beta = (unsigned)(n * (size_t)test_range(0, (int)(65536 / n) - 1));
		struct fake f = { 0 };
		const struct gfec_fft16_ops ops = fake_ops(&f);
		uint8_t *blk, *want = malloc(n * len), **d = test_regions(n, len, &blk);
		uint16_t *coef = malloc(sizeof(uint16_t) * n), *val = malloc(sizeof(uint16_t) * n);

		assert_true(want && coef && val);
		test_fill(blk, n * len);
		memcpy(want, blk, n * len);
		assert_int_equal(gfec_fft16_fft(&ops, d, logn, beta, len), 0);
		check_call(&f);
		/* symbol 0 of every region against the transform's definition */
		for (size_t i = 0; i < n; i++)
			coef[i] = (uint16_t)(want[i * len] | want[i * len + 1] << 8);
		gfec_fft16_eval_base(coef, logn, beta, val);
		for (size_t u = 0; u < n; u++)
			assert_int_equal(blk[u * len] | blk[u * len + 1] << 8, val[u]);
		assert_int_equal(gfec_fft16_ifft(&ops, d, logn, beta, len), 0);
		check_call(&f);
		assert_memory_equal(blk, want, n * len);
		free(d);
		free(blk);
		free(want);
		free(coef);
		free(val);
		free(f.q);
	}
}

/* An op that fails midway, and an alloc that fails: the error, one sync, nothing left over. */
static void test_failures(void **state)
{
	const int k = 300, m = 100;
	const size_t len = 8192;
	uint8_t *dblk, *pblk, **data = test_regions(k, len, &dblk),
			      **par = test_regions(m, len, &pblk);
	uint8_t *lost = malloc(len);
	const uint8_t **chunks = malloc(sizeof(*chunks) * (k + m));
	uint8_t **out = calloc(k + m, sizeof(*out));
	struct gfec_fft16_code *code;

	(void)state;
	assert_true(chunks && out && lost);
	test_fill(dblk, (size_t)k * len);
	assert_int_equal(gfec_fft16_code_create(k, m, GFEC_FFT16_AUTO, &code), 0);
	/* encode runs about 23 lists here, decode 13: each fails at some point */
	for (int fail = 1; fail <= 13; fail += 4) {
		struct fake f = { .fail_call = fail, .work = 4096 * 512 };
		const struct gfec_fft16_ops ops = fake_ops(&f);

		assert_int_equal(gfec_fft16_encode(code, &ops, len, (const uint8_t *const *)data,
						   par),
				 GFEC_E_DEVICE);
		check_call(&f);
		for (int i = 0; i < k + m; i++)
			chunks[i] = i < k ? data[i] : par[i - k];
		chunks[3] = NULL;
		out[3] = lost;
		f.fail_call = fail;
		assert_int_equal(gfec_fft16_decode(code, &ops, len, chunks, out), GFEC_E_DEVICE);
		check_call(&f);
		out[3] = NULL;
		free(f.q);
	}
	{
		struct fake f = { .fail_alloc = 1 };
		const struct gfec_fft16_ops ops = fake_ops(&f);

		assert_int_equal(gfec_fft16_encode(code, &ops, len, (const uint8_t *const *)data,
						   par),
				 GFEC_E_NOMEM);
		assert_int_equal(f.calls, 0);
		check_call(&f);
	}
	gfec_fft16_code_free(code);
	free(chunks);
	free(out);
	free(data);
	free(par);
	free(dblk);
	free(pblk);
	free(lost);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_decode),
		cmocka_unit_test(test_transform),
		cmocka_unit_test(test_failures),
	};

	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
