/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_cpu_backend.c
 * The CPU backend on both of its paths and several thread counts, against raw ISA-L and a
 * byte-at-a-time reference built on ISA-L's gf_mul: random shapes, lengths and alignments, with
 * the outputs poisoned first. Also the thread pool on its own.
 */
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <isa-l/erasure_code.h>

#include <jerasure.h>

#include "cpu_backend.h"
#include "gf8.h"
#include "matrix.h"
#include "test_util.h"
#include "threadpool.h"

#define MAXN 32

/* The slowest, plainest reference there is: ISA-L's scalar multiply, byte by byte. */
static void naive(size_t len, int cols, int rows, const uint8_t *a, uint8_t **src, uint8_t **dst)
{
	for (int i = 0; i < rows; i++)
		for (size_t b = 0; b < len; b++) {
			uint8_t s = 0;

			for (int j = 0; j < cols; j++)
				s ^= gf_mul(a[i * cols + j], src[j][b]);
			dst[i][b] = s;
		}
}

struct bufs {
	struct test_buf sb[MAXN], db[MAXN], rb[MAXN];
	uint8_t *src[MAXN], *dst[MAXN], *ref[MAXN];
};

static void bufs_alloc(struct bufs *b, int cols, int rows, size_t len)
{
	for (int j = 0; j < cols; j++) {
		b->src[j] = tbuf_alloc(&b->sb[j], len, (unsigned)test_range(0, 63));
		test_fill(b->src[j], len);
	}
	for (int i = 0; i < rows; i++) {
		b->dst[i] = tbuf_alloc(&b->db[i], len, (unsigned)test_range(0, 63));
		b->ref[i] = tbuf_alloc(&b->rb[i], len, 0);
		memset(b->dst[i], TEST_POISON, len);
	}
}

static void bufs_free(struct bufs *b, int cols, int rows)
{
	for (int j = 0; j < cols; j++)
		tbuf_free(&b->sb[j]);
	for (int i = 0; i < rows; i++) {
		tbuf_free(&b->db[i]);
		tbuf_free(&b->rb[i]);
	}
}

static void run_random(const char *path, int threads, int iters, size_t maxlen)
{
	const struct gfec_backend_ops *ops = gfec_cpu_backend();
	struct gfec_backend_conf conf = { .threads = threads, .path = path, .slice = 4096 };
	void *ctx;

	assert_int_equal(ops->init(&conf, &ctx), 0);
	assert_string_equal(ops->path_name(ctx), path);
	for (int t = 0; t < iters; t++) {
		int rows = test_range(1, MAXN), cols = test_range(1, MAXN);
		size_t len = t % 4 == 0 ? (size_t)test_range(0, 100) : (size_t)test_rand() % maxlen;
		uint8_t a[MAXN * MAXN];
		struct gfec_gemm_matrix gm = { .w = 8, .rows = rows, .cols = cols, .a = a };
		struct bufs b;
		void *plan;

		test_fill(a, (size_t)rows * cols);
		bufs_alloc(&b, cols, rows, len);
		/* The byte-by-byte reference is slow: it checks the short cases, and the plain-C
		 * encoder (checked against it here too) stands in for it on long ones. */
		if (len <= 20000)
			naive(len, cols, rows, a, b.src, b.ref);
		else
			gfec_cpu_gemm_base(len, cols, rows, a, (const uint8_t *const *)b.src, b.ref);
		assert_int_equal(ops->plan_create(ctx, &gm, &plan), 0);
		assert_int_equal(ops->gemm(ctx, plan, 1, len, (const uint8_t *const *)b.src, b.dst), 0);
		for (int i = 0; i < rows; i++)
			if (memcmp(b.dst[i], b.ref[i], len) != 0)
				fail_msg("%s/%d threads: %dx%d len %zu row %d differs", path, threads,
					 rows, cols, len, i);

		/* update: dst += A[:,col] * src[col], twice, cancels out (characteristic 2). */
		int col = test_range(0, cols - 1);

		size_t done;

		assert_int_equal(ops->update(ctx, plan, col, len, b.src[col], b.dst, &done), 0);
		assert_int_equal(done, len);
		assert_int_equal(ops->update(ctx, plan, col, len, b.src[col], b.dst, &done), 0);
		for (int i = 0; i < rows; i++)
			assert_memory_equal(b.dst[i], b.ref[i], len);
		ops->plan_free(ctx, plan);
		bufs_free(&b, cols, rows);
	}
	ops->fini(ctx);
}

static void test_isal_path(void **state)
{
	(void)state;
	run_random("isal", 1, 60, 70000);
	run_random("isal", 2, 40, 300000);
	run_random("isal", 4, 20, 300000);
}

static void test_base_path(void **state)
{
	(void)state;
	run_random("base", 1, 40, 20000);
	run_random("base", 3, 6, 100000);
}

/* gfec's ISA-L path must produce ISA-L's bytes: same matrix, raw ec_encode_data. */
static void test_matches_raw_isal(void **state)
{
	const struct gfec_backend_ops *ops = gfec_cpu_backend();
	struct gfec_backend_conf conf = { .threads = 2, .path = "isal" };
	const size_t len = 1 << 20;
	uint8_t full[MAXN * MAXN], tbls[32 * MAXN * MAXN];
	void *ctx, *plan;

	(void)state;
	assert_int_equal(ops->init(&conf, &ctx), 0);
	for (int k = 2; k <= 16; k += 7)
		for (int m = 1; m <= 4; m++) {
			struct gfec_gemm_matrix gm = { .w = 8, .rows = m, .cols = k };
			struct bufs b;

			gf_gen_cauchy1_matrix(full, k + m, k);
			gm.a = full + k * k;
			ec_init_tables(k, m, full + k * k, tbls);
			bufs_alloc(&b, k, m, len);
			ec_encode_data((int)len, k, m, tbls, b.src, b.ref);
			assert_int_equal(ops->plan_create(ctx, &gm, &plan), 0);
			assert_int_equal(
				ops->gemm(ctx, plan, 1, len, (const uint8_t *const *)b.src, b.dst), 0);
			for (int i = 0; i < m; i++)
				assert_memory_equal(b.dst[i], b.ref[i], len);
			ops->plan_free(ctx, plan);
			bufs_free(&b, k, m);
		}
	ops->fini(ctx);
}

/* The CRS twin against Jerasure's bitmatrix encoder and its smart schedule (what Ceph runs). */
static void test_bitmatrix_matches_jerasure(void **state)
{
	(void)state;
	for (int t = 0; t < 30; t++) {
		const int k = test_range(2, 12), m = test_range(1, k < 4 ? k : 4);
		const size_t P = (size_t)test_range(1, 64) * 8, len = 8 * P * (size_t)test_range(1, 6);
		uint8_t g[48], *bits = malloc((size_t)64 * k * m);
		int mat[48], *jbits, **sched;
		struct bufs b;
		char *jd[MAXN], *jc[MAXN], *js[MAXN];

		gfec_matrix_jerasure_cauchy_good(k, m, g);
		gfec_gf8_to_bitmatrix(g, m, k, bits);
		for (int i = 0; i < k * m; i++)
			mat[i] = g[i];
		jbits = jerasure_matrix_to_bitmatrix(k, m, 8, mat);
		sched = jerasure_smart_bitmatrix_to_schedule(k, m, 8, jbits);
		bufs_alloc(&b, k, m, len);
		for (int j = 0; j < k; j++) {
			jd[j] = aligned_alloc(64, len);
			memcpy(jd[j], b.src[j], len);
		}
		for (int i = 0; i < m; i++) {
			jc[i] = aligned_alloc(64, len);
			js[i] = aligned_alloc(64, len);
		}
		jerasure_bitmatrix_encode(k, m, 8, jbits, jd, jc, (int)len, (int)P);
		jerasure_schedule_encode(k, m, 8, sched, jd, js, (int)len, (int)P);
		gfec_cpu_bitmatrix_base(len, k, m, -1, bits, P, (const uint8_t *const *)b.src, b.dst);
		for (int i = 0; i < m; i++) {
			assert_memory_equal(b.dst[i], jc[i], len);
			assert_memory_equal(b.dst[i], js[i], len);
		}
		/* update: applying one column twice cancels */
		int col = test_range(0, k - 1);

		gfec_cpu_bitmatrix_base(len, k, m, col, bits, P, (const uint8_t *const *)&b.src[col],
					b.dst);
		gfec_cpu_bitmatrix_base(len, k, m, col, bits, P, (const uint8_t *const *)&b.src[col],
					b.dst);
		for (int i = 0; i < m; i++)
			assert_memory_equal(b.dst[i], jc[i], len);
		for (int j = 0; j < k; j++)
			free(jd[j]);
		for (int i = 0; i < m; i++) {
			free(jc[i]);
			free(js[i]);
		}
		jerasure_free_schedule(sched);
		free(jbits);
		free(bits);
		bufs_free(&b, k, m);
	}
}

static void test_bad_conf(void **state)
{
	const struct gfec_backend_ops *ops = gfec_cpu_backend();
	struct gfec_backend_conf conf = { .path = "avx9000" };
	struct gfec_gemm_matrix w12 = { .w = 12, .rows = 2, .cols = 2 }; /* w = 8 and 16 only */
	void *ctx;

	(void)state;
	assert_int_equal(ops->init(&conf, &ctx), GFEC_E_INVAL);
	conf.path = NULL;
	assert_int_equal(ops->init(&conf, &ctx), 0);
	assert_int_equal(ops->can_implement(ctx, &w12), GFEC_E_NOTSUP);
	ops->fini(ctx);
}

/* --- the pool on its own -------------------------------------------------------------------- */

struct mark {
	unsigned *hits;
};

static void mark_task(void *arg, size_t i)
{
	struct mark *m = arg;

	__atomic_fetch_add(&m->hits[i], 1, __ATOMIC_RELAXED);
}

struct caller {
	struct gfec_cpu_pool *pool;
	unsigned hits[5000];
};

static void *caller_main(void *arg)
{
	struct caller *c = arg;
	struct mark m = { c->hits };

	for (int r = 0; r < 20; r++)
		gfec_cpu_pool_run(c->pool, 250, mark_task, &m);
	return NULL;
}

static void test_pool(void **state)
{
	struct gfec_cpu_pool *pool;
	static struct caller callers[6];
	pthread_t th[6];

	(void)state;
	assert_int_equal(gfec_cpu_pool_create(0, &pool), GFEC_E_INVAL);
	assert_int_equal(gfec_cpu_pool_create(3, &pool), 0);
	assert_int_equal(gfec_cpu_pool_threads(pool), 3);
	/* Six callers share the pool; every task of every job runs exactly once per round. */
	for (int i = 0; i < 6; i++) {
		memset(callers[i].hits, 0, sizeof(callers[i].hits));
		callers[i].pool = pool;
		assert_int_equal(pthread_create(&th[i], NULL, caller_main, &callers[i]), 0);
	}
	for (int i = 0; i < 6; i++) {
		pthread_join(th[i], NULL);
		for (int t = 0; t < 250; t++)
			assert_int_equal(callers[i].hits[t], 20);
		assert_int_equal(callers[i].hits[250], 0);
	}
	gfec_cpu_pool_run(pool, 0, mark_task, NULL);
	gfec_cpu_pool_destroy(pool);
}

static void *report_mask(void *arg)
{
	sigset_t cur;

	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	*(int *)arg = sigismember(&cur, SIGTERM) + 2 * sigismember(&cur, SIGINT);
	return NULL;
}

/* The library's threads take no process signal; the caller's mask is left as it was. */
static void test_thread_start(void **state)
{
	sigset_t none, after;
	pthread_t th;
	int blocked = 0;

	(void)state;
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	assert_int_equal(gfec_thread_start(&th, report_mask, &blocked), 0);
	pthread_join(th, NULL);
	assert_int_equal(blocked, 3);
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	assert_int_equal(sigismember(&after, SIGTERM), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isal_path),	  cmocka_unit_test(test_base_path),
		cmocka_unit_test(test_matches_raw_isal), cmocka_unit_test(test_bitmatrix_matches_jerasure),
		cmocka_unit_test(test_bad_conf),
		cmocka_unit_test(test_pool),		  cmocka_unit_test(test_thread_start),
	};

	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
