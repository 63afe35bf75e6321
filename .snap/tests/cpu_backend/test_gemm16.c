/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_gemm16.c
 * The GF(2^16) products of cpu_backend/gemm16.c: the plain-C reference against Jerasure's
 * jerasure_matrix_encode(w = 16), and the AVX2 kernel against the reference (random shapes,
 * lengths from 0 to 40 KB with tails of any even size, unaligned buffers, write and XOR
 * forms, guard bytes around every output; source counts around the kernel's 32-source panels
 * and lengths of several 4 KiB blocks), and both behind the backend table (w = 16 plans,
 * threaded gemm and update, odd lengths refused; a call's stripes cut into tasks of 64-byte
 * groups for 2 to 6 threads, dense and Cauchy-form plans). The AVX2 part is skipped on a CPU
 * without AVX2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jerasure.h>

#include "cpu_backend.h"
#include "gf16.h"
#include "matrix.h"
#include "test_util.h"

#define GUARD 64

struct shape {
	int k, m;
	size_t len;
	uint16_t *a;
	uint8_t *buf;		/* k sources, then m outputs for each of two runs, GUARD around each */
	uint8_t *src[GFEC_MAX_CHUNKS], *want[GFEC_MAX_CHUNKS], *got[GFEC_MAX_CHUNKS];
};

static void shape_make(struct shape *s, int k, int m, size_t len, unsigned misalign)
{
	const size_t stride = len + 2 * GUARD + 64;

	s->k = k;
	s->m = m;
	s->len = len;
	s->a = malloc(sizeof(uint16_t) * (size_t)k * m);
	s->buf = malloc(stride * (size_t)(k + 2 * m));
	assert_non_null(s->a);
	assert_non_null(s->buf);
	assert_int_equal(gfec_matrix_cauchy_w(16, k, m, s->a), 0);
	test_fill(s->buf, stride * (size_t)(k + 2 * m));
	for (int c = 0; c < k + 2 * m; c++) {
		uint8_t *p = s->buf + (size_t)c * stride + GUARD + misalign;

		if (c < k)
			s->src[c] = p;
		else if (c < k + m)
			s->want[c - k] = p;
		else
			s->got[c - k - m] = p;
	}
	/* Both outputs start equal (for the XOR form), guards included. */
	for (int i = 0; i < m; i++)
		memcpy(s->got[i] - GUARD, s->want[i] - GUARD, len + 2 * GUARD);
}

static void shape_free(struct shape *s)
{
	free(s->a);
	free(s->buf);
}

static void test_base_matches_jerasure(void **state)
{
	(void)state;
	for (int t = 0; t < 20; t++) {
		struct shape s;
		int k = test_range(1, 40), m = test_range(1, 64 - k);
		int *jm = malloc(sizeof(int) * (size_t)k * m);

		/* Jerasure wants lengths of whole longs and aligned regions. */
		shape_make(&s, k, m, 16 * (size_t)test_range(0, 200), 0);
		assert_non_null(jm);
		for (int i = 0; i < k * m; i++)
			jm[i] = s.a[i];
		jerasure_matrix_encode(k, m, 16, jm, (char **)s.src, (char **)s.want, (int)s.len);
		gfec_cpu_gemm16_base(s.len, k, m, s.a, (const uint8_t *const *)s.src, s.got, 0);
		for (int i = 0; i < m; i++)
			assert_memory_equal(s.got[i] - GUARD, s.want[i] - GUARD, s.len + 2 * GUARD);
		free(jm);
		shape_free(&s);
	}
}

static void check_avx2(int k, int m, size_t len, unsigned misalign, int add)
{
	struct shape s;
	uint8_t *tbl = malloc(GFEC_CPU_GF16_TABLE * (size_t)k * m);

	assert_non_null(tbl);
	shape_make(&s, k, m, len, misalign);
	gfec_cpu_gf16_tables(s.a, (size_t)k * m, tbl);
	gfec_cpu_gemm16_base(len, k, m, s.a, (const uint8_t *const *)s.src, s.want, add);
	assert_int_equal(gfec_cpu_gemm16_avx2(len, k, m, tbl, (const uint8_t *const *)s.src,
					      s.got, add),
			 0);
	for (int i = 0; i < m; i++)
		assert_memory_equal(s.got[i] - GUARD, s.want[i] - GUARD, len + 2 * GUARD);
	free(tbl);
	shape_free(&s);
}

/* The AVX2 tables against the plain ones: every coefficient, poisoned outputs. */
static void test_tables_match_base(void **state)
{
	enum { N = 4096 };
	uint16_t *a = malloc(sizeof(*a) * N);
	uint8_t *got = malloc(GFEC_CPU_GF16_TABLE * N), *want = malloc(GFEC_CPU_GF16_TABLE * N);

	(void)state;
	assert_non_null(a);
	assert_non_null(got);
	assert_non_null(want);
	for (unsigned base = 0; base < 65536; base += N) {
		for (unsigned i = 0; i < N; i++)
			a[i] = (uint16_t)(base + i);
		memset(got, 0x5a, GFEC_CPU_GF16_TABLE * N);
		memset(want, 0xa5, GFEC_CPU_GF16_TABLE * N);
		gfec_cpu_gf16_tables(a, N, got);
		gfec_cpu_gf16_tables_base(a, N, want);
		assert_memory_equal(got, want, GFEC_CPU_GF16_TABLE * N);
	}
	free(want);
	free(got);
	free(a);
}

static void test_avx2_matches_base(void **state)
{
	(void)state;
	if (!gfec_cpu_avx2_supported())
		skip();
	for (int t = 0; t < 40; t++) {
		int k = test_range(1, 64), m = test_range(1, 32);
		size_t len = 2 * (size_t)(t % 3 ? test_range(0, 300) : test_range(0, 20000));

		check_avx2(k, m, len, (unsigned)test_range(0, 63), t & 1);
	}
	/* Many sources: eight panels, one block and a tail. */
	check_avx2(250, 6, 4096 + 30, 3, 0);
	check_avx2(1, 1, 0, 0, 0);
	check_avx2(1, 1, 2, 1, 1);
}

/*
 * The kernel's blocking: panels of 32 sources (sums carried between panels in dst as planes) and
 * blocks of 4 KiB (longer for fewer sources). Source counts at and around multiples of 32, every
 * row count mod 4, lengths of one to four blocks with and without a tail, both forms, any
 * alignment; outputs start as random bytes (shape_make), guards around each.
 */
static void test_avx2_panels(void **state)
{
	static const int cols[] = { 31, 32, 33, 63, 64, 65, 96, 97, 200, 256 };

	(void)state;
	if (!gfec_cpu_avx2_supported())
		skip();
	for (int t = 0; t < 20; t++) {
		const int k = t < 10 ? cols[t] : test_range(34, 256), m = test_range(1, 9);
		const size_t len = 4096 * (size_t)test_range(1, 4) +
				   (t % 3 ? 0 : 2 * (size_t)test_range(1, 2047));

		check_avx2(k, m, t % 4 == 3 ? len / 4 : len, (unsigned)test_range(0, 63), t & 1);
	}
	/* Narrow panels take longer blocks (128 KiB of one source, 43648 bytes of three). */
	check_avx2(1, 5, 2 * 131072 + 64 + 6, 5, 0);
	check_avx2(1, 2, 131072 + 30, 0, 1);
	check_avx2(3, 6, 3 * 43648 + 128, 17, 1);
}

/* Through the backend table on two threads (slices of whole symbols), each CPU path. */
static void backend_check(const char *path)
{
	const struct gfec_backend_ops *ops = gfec_cpu_backend();
	struct gfec_backend_conf conf = { .threads = 2, .path = path, .slice = 64 * 1024 + 2 };
	const int k = 12, m = 5;
	struct shape s;
	struct gfec_gemm_matrix gm = { .w = 16, .rows = m, .cols = k };
	void *ctx, *plan;
	size_t done;

	assert_int_equal(ops->init(&conf, &ctx), 0);
	shape_make(&s, k, m, 2 * 300001, 1);
	gm.a = (const uint8_t *)s.a;
	assert_int_equal(ops->can_implement(ctx, &gm), 0);
	assert_int_equal(ops->plan_create(ctx, &gm, &plan), 0);
	gfec_cpu_gemm16_base(s.len, k, m, s.a, (const uint8_t *const *)s.src, s.want, 0);
	assert_int_equal(ops->gemm(ctx, plan, 1, s.len, (const uint8_t *const *)s.src, s.got), 0);
	for (int i = 0; i < m; i++)
		assert_memory_equal(s.got[i] - GUARD, s.want[i] - GUARD, s.len + 2 * GUARD);
	/* The update: column 7 of a into every output. */
	for (int i = 0; i < m; i++)
		gfec_gf16_region_mul(s.src[0], s.want[i], s.len, s.a[i * k + 7], 1);
	assert_int_equal(ops->update(ctx, plan, 7, s.len, s.src[0], s.got, &done), 0);
	assert_int_equal(done, s.len);
	for (int i = 0; i < m; i++)
		assert_memory_equal(s.got[i] - GUARD, s.want[i] - GUARD, s.len + 2 * GUARD);
	/* Half a symbol is refused. */
	assert_int_equal(ops->gemm(ctx, plan, 1, 3, (const uint8_t *const *)s.src, s.got),
			 GFEC_E_INVAL);
	assert_int_equal(ops->update(ctx, plan, 0, 5, s.src[0], s.got, &done), GFEC_E_INVAL);
	ops->plan_free(ctx, plan);
	gm.w = 12;
	assert_int_equal(ops->can_implement(ctx, &gm), GFEC_E_NOTSUP);
	gm.w = 16;
	gm.packetsize = 8;
	assert_int_equal(ops->can_implement(ctx, &gm), GFEC_E_NOTSUP);
	ops->fini(ctx);
	shape_free(&s);
}

static void test_backend_table(void **state)
{
	(void)state;
	backend_check("base");
	backend_check(NULL);
}

/*
 * One w = 16 gemm of @p ns stripes through the backend table on @p threads threads, against
 * gfec_cpu_gemm16_base stripe by stripe: outputs poisoned, guards around each. @p form: the plan
 * takes the Cauchy form of s's matrix (gfec_matrix_cauchy_w's points and unit scalars).
 */
static void split_check(const char *path, int threads, size_t slice, int k, int m, size_t len,
			int ns, unsigned misalign, int form)
{
	const struct gfec_backend_ops *ops = gfec_cpu_backend();
	struct gfec_backend_conf conf = { .threads = threads, .path = path, .slice = slice };
	struct gfec_gemm_matrix gm = { .w = 16, .rows = m, .cols = k };
	struct shape *s = calloc((size_t)ns, sizeof(*s));
	const uint8_t **src = malloc(sizeof(*src) * (size_t)ns * k);
	uint8_t **dst = malloc(sizeof(*dst) * (size_t)ns * m);
	uint16_t *cx = malloc(sizeof(uint16_t) * (size_t)(2 * m + 2 * k));
	void *ctx, *plan;

	assert_non_null(s);
	assert_non_null(src);
	assert_non_null(dst);
	assert_non_null(cx);
	for (int i = 0; i < m; i++)
		cx[i] = (uint16_t)(k + i), cx[m + i] = 1;
	for (int j = 0; j < k; j++)
		cx[2 * m + j] = (uint16_t)j, cx[2 * m + k + j] = 1;
	assert_int_equal(ops->init(&conf, &ctx), 0);
	for (int t = 0; t < ns; t++) {
		shape_make(&s[t], k, m, len, misalign);
		for (int j = 0; j < k; j++)
			src[(size_t)t * k + j] = s[t].src[j];
		for (int i = 0; i < m; i++) {
			dst[(size_t)t * m + i] = s[t].got[i];
			memset(s[t].got[i], 0xa5, len);
		}
		gfec_cpu_gemm16_base(len, k, m, s[t].a, (const uint8_t *const *)s[t].src, s[t].want,
				     0);
	}
	if (form)
		gm.cx = cx, gm.cr = cx + m, gm.cy = cx + 2 * m, gm.cc = cx + 2 * m + k;
	else
		gm.a = (const uint8_t *)s[0].a;
	assert_int_equal(ops->plan_create(ctx, &gm, &plan), 0);
	assert_int_equal(ops->gemm(ctx, plan, ns, len, src, dst), 0);
	for (int t = 0; t < ns; t++)
		for (int i = 0; i < m; i++)
			assert_memory_equal(s[t].got[i] - GUARD, s[t].want[i] - GUARD,
					    len + 2 * GUARD);
	ops->plan_free(ctx, plan);
	ops->fini(ctx);
	for (int t = 0; t < ns; t++)
		shape_free(&s[t]);
	free(cx);
	free(dst);
	free(src);
	free(s);
}

/*
 * Stripes under the context's slice, fewer than the threads: each is cut into tasks of whole
 * 64-byte groups (the last with the tail), all of a call's stripes in one job. Shapes of 1000+
 * coefficients make tasks of 1 KiB and less; lengths, alignments, thread counts, stripes and
 * slices (0: the default 64 KiB) are random, with Cauchy-form plans (tables made per task) too.
 */
static void test_backend_split(void **state)
{
	(void)state;
	for (int t = 0; t < 24; t++) {
		/* k >= 26: m's range [1000 / k + 1, 40] is empty below that. */
		const int k = test_range(26, 120), m = test_range(1000 / k + 1, 40);
		const size_t len = 2 * (size_t)(t % 4 ? test_range(1, 3000) : test_range(3000, 12000));
		const size_t slice = t % 3 ? 0 : 64 * (size_t)test_range(1, 40) + 2 * (t & 1);

		split_check(t & 2 ? "base" : NULL, test_range(2, 6), slice, k, m, len,
			    test_range(1, 4), (unsigned)test_range(0, 63), t % 5 == 4);
	}
	/* The most coefficients the shape struct holds: tasks of 320 bytes. */
	split_check(NULL, 5, 0, 240, 16, 2 * 1000 + 6, 1, 3, 0);
	split_check(NULL, 3, 0, 1, 1, 0, 2, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_matches_jerasure),
		cmocka_unit_test(test_tables_match_base),
		cmocka_unit_test(test_avx2_matches_base),
		cmocka_unit_test(test_avx2_panels),
		cmocka_unit_test(test_backend_table),
		cmocka_unit_test(test_backend_split),
	};

	test_seed();
	gfec_gf16_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
