/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_fft16.c
 * The additive-FFT code over GF(2^16) (gfmatrix/fft16.h) and the CPU backend's butterflies:
 * the basis; the butterfly op (AVX2 where the CPU has it, threaded) against its plain-C
 * reference on random op lists; the transforms against their O(n^2) definition and round trips;
 * parity against the O(k m) interpolation reference for random shapes and odd lengths, in both
 * layouts; MDS by every erasure pattern of small codes and random patterns of exactly m losses
 * for (100,20), (1000,200) and shapes past 10,000 chunks; poisoned outputs; bad input.
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

static void *cpu_ctx;

static int bfly_cpu(void *ctx, int kind, int n, size_t len, uint8_t *const *x, uint8_t *const *y,
		    const uint16_t *c)
{
	return gfec_cpu_backend()->butterfly16(ctx, kind, n, len, x, y, c);
}

static struct gfec_fft16_ops cpu_ops(void)
{
	return (struct gfec_fft16_ops){ .bfly = bfly_cpu, .ctx = cpu_ctx };
}

static int setup(void **state)
{
	struct gfec_backend_conf conf = { .threads = 3, .slice = 4096 };

	(void)state;
	return gfec_cpu_backend()->init(&conf, &cpu_ctx);
}

static int teardown(void **state)
{
	(void)state;
	gfec_cpu_backend()->fini(cpu_ctx);
	return 0;
}

static void test_basis(void **state)
{
	uint8_t *seen = calloc(65536, 1);

	(void)state;
	assert_non_null(seen);
	for (unsigned u = 0; u < 65536; u++) {
		const uint16_t p = gfec_fft16_point(u);

		assert_int_equal(seen[p], 0);
		seen[p] = 1;
	}
	free(seen);
	/* the Cantor relation v_i^2 + v_i = v_(i-1), v_0 = 1 */
	assert_int_equal(gfec_fft16_point(1), 1);
	for (unsigned i = 1; i < 16; i++) {
		const uint16_t v = gfec_fft16_point(1u << i);

		assert_int_equal(gfec_gf16_mul(v, v) ^ v, gfec_fft16_point(1u << (i - 1)));
	}
	/* skews: W_j is 0 on the first 2^j points' span, normalised to 1 at v_j */
	for (unsigned j = 0; j < 16; j++) {
		assert_int_equal(gfec_fft16_skew(j, 0), 0);
		assert_int_equal(gfec_fft16_skew(j, 1u << j), 1);
	}
}

/*
 * Random op lists over a few shared regions (ops chain through them), over distinct regions
 * with GFEC_BFLY_DISJOINT, or in groups of four ops chained over four regions of their own with
 * GFEC_BFLY_GROUP4 (a backend may then split the list), backend vs reference.
 */
static void test_butterfly(void **state)
{
	(void)state;
	for (int iter = 0; iter < 200; iter++) {
		const int disjoint = iter % 3 == 0, group4 = iter % 3 == 1 && iter % 2;
		const int n = group4 ? 4 * test_range(12, 20) : test_range(disjoint ? 12 : 1, 40);
		const int nreg = disjoint || group4 ? 2 * n : test_range(2, 12);
		const int kind = test_range(0, 2);
		const size_t len = (size_t)test_range(0, iter % 4 && !group4 ? 700 : 40000) & ~(size_t)1;
		const unsigned mis = (unsigned)test_range(0, 63);
		struct test_buf a, b;
		uint8_t *ra = tbuf_alloc(&a, len * nreg, mis), *rb = tbuf_alloc(&b, len * nreg, mis);
		uint8_t *xa[80], *ya[80], *xb[80], *yb[80];
		uint16_t c[80];

		test_fill(ra, len * nreg);
		memcpy(rb, ra, len * nreg);
		for (int p = 0; p < n; p++) {
			int i = test_range(0, nreg - 1), j = test_range(0, nreg - 2);

			j += j >= i; /* distinct, except a MUL in place now and then */
			if (kind == GFEC_BFLY_MUL && test_range(0, 3) == 0)
				j = i;
			if (disjoint) { /* regions 2p and 2p + 1, either way round */
				i = 2 * p + (int)(test_rand() & 1);
				j = i ^ 1;
			}
			if (group4) { /* two of group p / 4's four regions, 8 (p / 4) + 0..3 */
				const int g = 8 * (p / 4), u = test_range(0, 3), v = test_range(0, 2);

				i = g + u;
				j = g + v + (v >= u);
			}
			xa[p] = ra + (size_t)i * len;
			ya[p] = ra + (size_t)j * len;
			xb[p] = rb + (size_t)i * len;
			yb[p] = rb + (size_t)j * len;
			switch (test_range(0, 5)) {
			case 0:
				c[p] = 0;
				break;
			case 1:
				c[p] = 1;
				break;
			default:
				c[p] = (uint16_t)test_rand();
			}
			if (p && test_range(0, 2) == 0)
				c[p] = c[p - 1]; /* runs of one constant share its tables */
		}
		const int flags = disjoint ? GFEC_BFLY_DISJOINT : group4 ? GFEC_BFLY_GROUP4 : 0;

		assert_int_equal(gfec_cpu_backend()->butterfly16(cpu_ctx, kind | flags, n, len, xa,
								 ya, c),
				 0);
		gfec_cpu_bfly16_base(kind, n, len, xb, yb, c);
		assert_memory_equal(ra, rb, len * nreg);
		/* one thread, straight through the kernel */
		memcpy(ra, rb, len * nreg);
		assert_int_equal(gfec_cpu_bfly16_run(NULL, 0, kind | flags, n, len, xa, ya, c), 0);
		gfec_cpu_bfly16_base(kind, n, len, xb, yb, c);
		assert_memory_equal(ra, rb, len * nreg);
		tbuf_free(&a);
		tbuf_free(&b);
	}
	assert_int_equal(gfec_cpu_bfly16_run(NULL, 0, 3, 1, 2, NULL, NULL, NULL), GFEC_E_INVAL);
}

static uint16_t sym(const uint8_t *p, size_t s)
{
	return (uint16_t)(p[2 * s] | p[2 * s + 1] << 8);
}

static void test_transform(void **state)
{
	const struct gfec_fft16_ops ops = cpu_ops();

	(void)state;
	for (unsigned logn = 1; logn <= 9; logn++) {
		const unsigned n = 1u << logn;
		const size_t nsym = (size_t)test_range(1, 40), len = 2 * nsym;
		const unsigned beta = (unsigned)test_range(0, (65536 >> logn) - 1) << logn;
		uint8_t *blk, *blk2, **d = test_regions(n, len, &blk),
				     **d2 = test_regions(n, len, &blk2);
		uint16_t *coef = malloc(2 * n), *val = malloc(2 * n);

		test_fill(blk, n * len);
		memcpy(blk2, blk, n * len);
		assert_int_equal(gfec_fft16_fft(&ops, d, logn, beta, len), 0);
		for (size_t s = 0; s < nsym; s += nsym > 4 ? nsym / 3 : 1) {
			for (unsigned i = 0; i < n; i++)
				coef[i] = sym(d2[i], s);
			gfec_fft16_eval_base(coef, logn, beta, val);
			for (unsigned u = 0; u < n; u++)
				assert_int_equal(sym(d[u], s), val[u]);
		}
		/* the reference ops give the same, and the inverse takes it back */
		assert_int_equal(gfec_fft16_fft(NULL, d2, logn, beta, len), 0);
		assert_memory_equal(blk, blk2, n * len);
		assert_int_equal(gfec_fft16_ifft(&ops, d, logn, beta, len), 0);
		assert_int_equal(gfec_fft16_ifft(NULL, d2, logn, beta, len), 0);
		assert_memory_equal(blk, blk2, n * len);
		free(coef);
		free(val);
		free(d);
		free(d2);
		free(blk);
		free(blk2);
	}
	{
		uint8_t *p[2] = { NULL, NULL };

		assert_int_equal(gfec_fft16_fft(NULL, p, 1, 1, 2), GFEC_E_INVAL); /* beta % n */
		assert_int_equal(gfec_fft16_fft(NULL, p, 1, 0, 3), GFEC_E_INVAL); /* odd len */
	}
}

/* A code's k data regions (random) and m parity regions (poisoned). */
struct cw {
	int k, m;
	size_t len;
	uint8_t *dblk, *pblk, **data, **parity;
};

static void cw_make(struct cw *w, int k, int m, size_t len)
{
	w->k = k;
	w->m = m;
	w->len = len;
	w->data = test_regions((size_t)k, len, &w->dblk);
	w->parity = test_regions((size_t)m, len, &w->pblk);
	test_fill(w->dblk, (size_t)k * len);
	memset(w->pblk, TEST_POISON, (size_t)m * len);
}

static void cw_free(struct cw *w)
{
	free(w->data);
	free(w->parity);
	free(w->dblk);
	free(w->pblk);
}

static void test_parity_base(void **state)
{
	const struct gfec_fft16_ops ops = cpu_ops();

	(void)state;
	for (int iter = 0; iter < 60; iter++) {
		const int k = test_range(1, iter % 10 ? 40 : 300), m = test_range(1, iter % 7 ? 20 : 90);
		const size_t len = 2 * (size_t)test_range(0, iter % 5 ? 33 : 300);
		const enum gfec_fft16_layout lay = iter % 2 ? GFEC_FFT16_GENERAL : GFEC_FFT16_AUTO;
		struct gfec_fft16_code *code;
		struct cw w;
		uint8_t *ref, **rp = test_regions((size_t)m, len, &ref);

		cw_make(&w, k, m, len);
		if (iter % 4 == 3) /* NULL data: chunks of zeros, some whole groups of them */
			for (int j = 0; j < k; j++)
				if (test_range(0, 3) || j < k / 2)
					w.data[j] = NULL;
		assert_int_equal(gfec_fft16_code_create(k, m, lay, &code), 0);
		assert_int_equal(gfec_fft16_code_cosets(code), lay == GFEC_FFT16_AUTO);
		assert_int_equal(gfec_fft16_encode_base(code, len, (const uint8_t *const *)w.data,
							rp), 0);
		assert_int_equal(gfec_fft16_encode(code, iter % 3 ? &ops : NULL, len,
						   (const uint8_t *const *)w.data, w.parity), 0);
		assert_memory_equal(w.pblk, ref, (size_t)m * len);
		gfec_fft16_code_free(code);
		free(rp);
		free(ref);
		cw_free(&w);
	}
}

/* Loses the chunks in lost[0..nl-1], decodes (outputs poisoned) and checks every one. */
static void lose_and_check(const struct gfec_fft16_code *code, const struct cw *w,
			   const int *lost, int nl)
{
	const struct gfec_fft16_ops ops = cpu_ops();
	const int n = w->k + w->m;
	const uint8_t **chunks = malloc(sizeof(*chunks) * n);
	uint8_t **out = calloc((size_t)n, sizeof(*out)), *oblk;
	uint8_t **ob = test_regions((size_t)(nl ? nl : 1), w->len, &oblk);

	assert_true(chunks && out);
	for (int i = 0; i < n; i++)
		chunks[i] = i < w->k ? w->data[i] : w->parity[i - w->k];
	memset(oblk, TEST_POISON, (size_t)(nl ? nl : 1) * w->len);
	for (int e = 0; e < nl; e++) {
		chunks[lost[e]] = NULL;
		out[lost[e]] = ob[e];
	}
	assert_int_equal(gfec_fft16_decode(code, &ops, w->len, chunks, out), 0);
	for (int e = 0; e < nl; e++) {
		const int i = lost[e];
		const uint8_t *want = i < w->k ? w->data[i] : w->parity[i - w->k];

		assert_memory_equal(ob[e], want, w->len);
	}
	free(ob);
	free(oblk);
	free(chunks);
	free(out);
}

static void test_mds_small(void **state)
{
	static const int shapes[][2] = { { 1, 1 }, { 2, 2 }, { 4, 3 }, { 5, 5 }, { 7, 3 },
					 { 3, 6 }, { 9, 1 }, { 1, 9 }, { 6, 4 } };

	(void)state;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		for (int lay = GFEC_FFT16_AUTO; lay <= GFEC_FFT16_GENERAL; lay += 2) {
			const int k = shapes[s][0], m = shapes[s][1], n = k + m;
			struct gfec_fft16_code *code;
			struct cw w;
			int patterns = 0;

			cw_make(&w, k, m, 2 * (size_t)test_range(1, 50));
			assert_int_equal(gfec_fft16_code_create(k, m, lay, &code), 0);
			assert_int_equal(gfec_fft16_encode(code, NULL, w.len,
							   (const uint8_t *const *)w.data,
							   w.parity), 0);
			for (unsigned mask = 0; mask < 1u << n; mask++) {
				int lost[16], nl = 0;

				for (int i = 0; i < n; i++)
					if (mask >> i & 1)
						lost[nl++] = i;
				if (nl > m)
					continue;
				lose_and_check(code, &w, lost, nl);
				patterns++;
			}
			assert_true(patterns > 1);
			gfec_fft16_code_free(code);
			cw_free(&w);
		}
}

/* @p reps random patterns of exactly m losses of a (k, m) code on len-byte chunks. */
static void mds_random(int k, int m, size_t len, enum gfec_fft16_layout lay, int reps)
{
	const struct gfec_fft16_ops ops = cpu_ops();
	struct gfec_fft16_code *code;
	struct cw w;
	int *perm = malloc(sizeof(int) * (size_t)(k + m));

	cw_make(&w, k, m, len);
	assert_int_equal(gfec_fft16_code_create(k, m, lay, &code), 0);
	assert_int_equal(gfec_fft16_encode(code, &ops, len, (const uint8_t *const *)w.data,
					   w.parity), 0);
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < k + m; i++)
			perm[i] = i;
		for (int i = 0; i < m; i++) { /* the first m of a partial shuffle */
			const int j = test_range(i, k + m - 1), t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
		lose_and_check(code, &w, perm, m);
	}
	gfec_fft16_code_free(code);
	free(perm);
	cw_free(&w);
}

static void test_mds_random(void **state)
{
	(void)state;
	mds_random(100, 20, 34, GFEC_FFT16_AUTO, 10);
	mds_random(100, 20, 34, GFEC_FFT16_GENERAL, 5);
	mds_random(1000, 200, 6, GFEC_FFT16_AUTO, 3);
	mds_random(1000, 200, 6, GFEC_FFT16_GENERAL, 1);
	mds_random(12000, 3000, 4, GFEC_FFT16_AUTO, 1);
}

/* A shape only the general layout takes (M + k > 65536). */
static void test_wide(void **state)
{
	struct gfec_fft16_code *code;

	(void)state;
	assert_int_equal(gfec_fft16_code_create(40000, 20000, GFEC_FFT16_COSETS, &code),
			 GFEC_E_INVAL);
	assert_int_equal(gfec_fft16_code_create(40000, 20000, GFEC_FFT16_AUTO, &code), 0);
	assert_int_equal(gfec_fft16_code_cosets(code), 0);
	gfec_fft16_code_free(code);
	mds_random(40000, 20000, 2, GFEC_FFT16_AUTO, 1);
}

/* Chunks longer than one slice of the work memory (shrunk to 64 KiB): every slice's offsets. */
static void test_slices(void **state)
{
	static const int shapes[][2] = { { 10, 4 }, { 9, 3 }, { 30, 20 } };

	(void)state;
	for (size_t t = 0; t < sizeof(shapes) / sizeof(shapes[0]); t++)
		for (int lay = GFEC_FFT16_AUTO; lay <= GFEC_FFT16_GENERAL; lay += 2) {
			const int k = shapes[t][0], m = shapes[t][1];
			const size_t len = 2 * (size_t)test_range(5000, 12000);
			struct gfec_fft16_code *code;
			struct cw w;
			uint8_t *ref, **rp = test_regions((size_t)m, len, &ref);
			int lost[20];

			cw_make(&w, k, m, len);
			assert_int_equal(gfec_fft16_code_create(k, m, lay, &code), 0);
			gfec_fft16_code_set_work(code, 64 * 1024);
			assert_true(gfec_fft16_slice(code, 16, len) < len);
			assert_int_equal(gfec_fft16_encode_base(code, len,
								(const uint8_t *const *)w.data, rp),
					 0);
			assert_int_equal(gfec_fft16_encode(code, NULL, len,
							   (const uint8_t *const *)w.data,
							   w.parity), 0);
			assert_memory_equal(w.pblk, ref, (size_t)m * len);
			for (int e = 0; e < m; e++)
				lost[e] = 2 * e; /* data and parity */
			lose_and_check(code, &w, lost, m);
			gfec_fft16_code_free(code);
			free(rp);
			free(ref);
			cw_free(&w);
		}
}

static void test_bad(void **state)
{
	struct gfec_fft16_code *code;
	struct cw w;

	(void)state;
	assert_int_equal(gfec_fft16_code_create(65000, 537, GFEC_FFT16_AUTO, &code), GFEC_E_INVAL);
	assert_null(code);
	assert_int_equal(gfec_fft16_code_create(0, 4, GFEC_FFT16_AUTO, &code), GFEC_E_INVAL);
	assert_int_equal(gfec_fft16_code_create(4, 0, GFEC_FFT16_AUTO, &code), GFEC_E_INVAL);
	assert_int_equal(gfec_fft16_code_create(4, 2, (enum gfec_fft16_layout)7, &code),
			 GFEC_E_INVAL);
	assert_int_equal(gfec_fft16_code_create(4, 2, GFEC_FFT16_AUTO, NULL), GFEC_E_INVAL);
	assert_int_equal(gfec_fft16_code_create(4, 2, GFEC_FFT16_AUTO, &code), 0);
	cw_make(&w, 4, 2, 16);
	assert_int_equal(gfec_fft16_encode(code, NULL, 15, (const uint8_t *const *)w.data,
					   w.parity), GFEC_E_INVAL);
	{
		const uint8_t *ch[6] = { NULL, NULL, NULL, w.data[3], w.parity[0], w.parity[1] };
		uint8_t *out[6] = { w.data[0], NULL, NULL, NULL, NULL, NULL };

		assert_int_equal(gfec_fft16_decode(code, NULL, 16, ch, out), GFEC_E_TOOFEW);
		ch[2] = w.data[2];
		out[2] = w.data[1]; /* an output for a chunk that is there */
		assert_int_equal(gfec_fft16_decode(code, NULL, 16, ch, out), GFEC_E_INVAL);
	}
	cw_free(&w);
	gfec_fft16_code_free(code);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basis),	     cmocka_unit_test(test_butterfly),
		cmocka_unit_test(test_transform),    cmocka_unit_test(test_parity_base),
		cmocka_unit_test(test_mds_small),    cmocka_unit_test(test_mds_random),
		cmocka_unit_test(test_wide),	     cmocka_unit_test(test_slices),
		cmocka_unit_test(test_bad),
	};

	test_seed();
	if (getenv("GFEC_TEST_FILTER")) /* one test by name, e.g. test_wide */
		cmocka_set_test_filter(getenv("GFEC_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup, teardown);
}
