/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file kernel_shape_check.h
 * One CPU kernel called directly (test_avx2.c, test_gfni.c's variants) on random shapes with
 * k + m <= 256 and lengths 0 to 8 MiB: parity into unaligned, poisoned outputs with guard bytes
 * against ISA-L's ec_encode_data and the plain-C encoder, by non-temporal stores where the kernel
 * has them, then as an update (equal to a re-encode). The kernel comes as callbacks that take
 * the coefficients in its own form (tables, affine matrices).
 */
#ifndef GFEC_TESTS_KERNEL_SHAPE_CHECK_H
#define GFEC_TESTS_KERNEL_SHAPE_CHECK_H

#include <stdlib.h>
#include <string.h>

#include <isa-l/erasure_code.h>

#include "cpu_backend.h"
#include "test_util.h"

#define GUARD 64

/*
 * dst[i] = (or ^=, by mode) sum_j coefs[i*cols+j] (x) src[j] for i < rows, coefs in the
 * kernel's form; mode is the kernel's own (struct kernel_check's set, update, stream).
 */
typedef void (*kernel_run)(size_t len, int cols, int rows, const void *coefs,
			   const uint8_t *const *src, uint8_t *const *dst, int mode);

/* A kernel under test. */
struct kernel_check {
	const char *name;  /* failure messages start with it */
	size_t coef_bytes; /* one coefficient in the kernel's form: at most 32 bytes */
	void (*coefs)(const uint8_t *a, size_t n, void *out); /* n coefficients, that form */
	kernel_run run;
	int set, update; /* its modes: dst = the product, dst ^= the product */
	int stream;	 /* dst = the product by non-temporal stores, outputs aligned; < 0: none */
};

/* len bytes at a random offset from 64-byte alignment, GUARD poisoned bytes each side. */
struct gbuf {
	struct test_buf b;
	uint8_t *p;
};

static uint8_t *gbuf_alloc_at(struct gbuf *g, size_t len, unsigned misalign)
{
	g->p = tbuf_alloc(&g->b, len + 2 * GUARD, misalign) + GUARD;
	memset(g->p - GUARD, TEST_POISON, len + 2 * GUARD);
	return g->p;
}

static uint8_t *gbuf_alloc(struct gbuf *g, size_t len)
{
	return gbuf_alloc_at(g, len, (unsigned)test_range(0, 63));
}

static void guards_intact(const struct gbuf *g, size_t len, const char *what)
{
	for (int i = 0; i < GUARD; i++)
		if (g->p[-1 - i] != TEST_POISON || g->p[len + (size_t)i] != TEST_POISON)
			fail_msg("%s: a write outside the %zu-byte buffer", what, len);
}

/* kc's stream mode into 64-byte aligned, poisoned outputs must give @p ref's bytes. */
static void check_stream(const struct kernel_check *kc, int k, int m, size_t len,
			 const void *coefs, uint8_t *const *src, uint8_t *const *ref)
{
	struct gbuf *nb = calloc((size_t)m, sizeof(*nb));
	uint8_t **nt = calloc((size_t)m, sizeof(*nt));

	assert_non_null(nb);
	assert_non_null(nt);
	for (int i = 0; i < m; i++)
		nt[i] = gbuf_alloc_at(&nb[i], len, 0); /* GUARD is 64: aligned */
	kc->run(len, k, m, coefs, (const uint8_t *const *)src, nt, kc->stream);
	for (int i = 0; i < m; i++) {
		if (memcmp(nt[i], ref[i], len))
			fail_msg("%s: RS(%d,%d) len %zu: parity %d by non-temporal stores differs",
				 kc->name, k, m, len, i);
		guards_intact(&nb[i], len, kc->name);
		tbuf_free(&nb[i].b);
	}
	free(nb);
	free(nt);
}

/*
 * One shape: parity from the kernel against ISA-L (and the plain-C encoder when that is quick),
 * by normal and (where it has them) by non-temporal stores, then an update of one source:
 * parity ^= A[:,c] * (old ^ new) must equal a re-encode.
 */
static void check_kernel_shape(const struct kernel_check *kc, int k, int m, size_t len)
{
	const size_t cb = kc->coef_bytes;
	uint8_t *a = malloc((size_t)k * m), *tbls = malloc((size_t)32 * k * m);
	uint8_t *coefs = malloc(cb * (size_t)k * m);
	uint64_t col[256 * 32 / sizeof(uint64_t)]; /* a column's coefficients, the kernel's form */
	struct gbuf *sb = calloc((size_t)k + 1, sizeof(*sb)), *pb = calloc((size_t)m, sizeof(*pb));
	struct test_buf *rb = calloc((size_t)m, sizeof(*rb));
	uint8_t **src = calloc((size_t)k + 1, sizeof(*src)), **par = calloc((size_t)m, sizeof(*par));
	uint8_t **ref = calloc((size_t)m, sizeof(*ref));
	const int c = test_range(0, k - 1);
	uint8_t *delta;

	assert_non_null(a);
	assert_non_null(tbls);
	assert_non_null(coefs);
	test_fill(a, (size_t)k * m);
	for (int i = 0; i < k * m && i < 3; i++)
		a[test_range(0, k * m - 1)] = (uint8_t)(i == 0 ? 0 : i == 1 ? 1 : 0xff);
	kc->coefs(a, (size_t)k * m, coefs);
	ec_init_tables(k, m, a, tbls);
	for (int j = 0; j <= k; j++)
		test_fill(gbuf_alloc(&sb[j], len), len);
	for (int j = 0; j < k; j++)
		src[j] = sb[j].p;
	for (int i = 0; i < m; i++) {
		par[i] = gbuf_alloc(&pb[i], len);
		ref[i] = tbuf_alloc(&rb[i], len, 0);
	}

	kc->run(len, k, m, coefs, (const uint8_t *const *)src, par, kc->set);
	if (len)
		ec_encode_data((int)len, k, m, tbls, src, ref);
	for (int i = 0; i < m; i++) {
		if (memcmp(par[i], ref[i], len))
			fail_msg("%s: RS(%d,%d) len %zu: parity %d differs from ISA-L", kc->name, k,
				 m, len, i);
		guards_intact(&pb[i], len, kc->name);
	}
	if (kc->stream >= 0)
		check_stream(kc, k, m, len, coefs, src, ref);
	if (len * (size_t)k * (size_t)m <= (4u << 20)) {
		gfec_cpu_gemm_base(len, k, m, a, (const uint8_t *const *)src, ref);
		for (int i = 0; i < m; i++)
			if (memcmp(par[i], ref[i], len))
				fail_msg("%s: RS(%d,%d) len %zu: parity %d differs from _base", kc->name,
					 k, m, len, i);
	}

	/* Source c becomes sb[k]: the update takes old ^ new, which sb[k] now holds. */
	delta = sb[k].p;
	src[c] = malloc(len + 1);
	assert_non_null(src[c]);
	for (size_t b = 0; b < len; b++)
		src[c][b] = sb[c].p[b] ^ delta[b];
	for (int i = 0; i < m; i++)
		memcpy((uint8_t *)col + cb * i, coefs + cb * ((size_t)i * k + c), cb);
	kc->run(len, 1, m, col, (const uint8_t *const *)&delta, par, kc->update);
	if (len)
		ec_encode_data((int)len, k, m, tbls, src, ref);
	for (int i = 0; i < m; i++) {
		if (memcmp(par[i], ref[i], len))
			fail_msg("%s: RS(%d,%d) len %zu: update of source %d, parity %d differs",
				 kc->name, k, m, len, c, i);
		guards_intact(&pb[i], len, kc->name);
	}

	free(src[c]);
	for (int j = 0; j <= k; j++)
		tbuf_free(&sb[j].b);
	for (int i = 0; i < m; i++) {
		tbuf_free(&pb[i].b);
		tbuf_free(&rb[i]);
	}
	free(sb);
	free(pb);
	free(rb);
	free(src);
	free(par);
	free(ref);
	free(a);
	free(tbls);
	free(coefs);
}

/* 400 random shapes (small and odd, medium, long), four of 8 MiB, RS(128,128) and (223,32). */
static void check_kernel_shapes(const struct kernel_check *kc)
{
	static const int big[][2] = { { 10, 4 }, { 4, 2 }, { 8, 3 }, { 1, 7 } };

	for (int t = 0; t < 400; t++) {
		int k, m;
		size_t len;

		if (t % 2) { /* small and odd lengths, every group size and tail */
			k = test_range(1, 20);
			m = test_range(1, 20);
			len = (size_t)test_range(0, 700);
		} else if (t % 10) { /* medium, any shape the field allows */
			k = test_range(1, 255);
			m = test_range(1, 256 - k);
			len = (size_t)test_rand() % (200000 / (size_t)(k * m) + 2);
		} else {
			k = test_range(1, 40);
			m = test_range(1, 16);
			len = (size_t)test_range(1, 70000);
		}
		check_kernel_shape(kc, k, m, len);
	}
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		check_kernel_shape(kc, big[i][0], big[i][1],
				   (8u << 20) - (i % 2) * (size_t)test_range(1, 127));
	check_kernel_shape(kc, 128, 128, 4096);
	check_kernel_shape(kc, 223, 32, 4096 + 3);
}

#endif
