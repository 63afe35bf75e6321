/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_coalesce.c
 * The engine's GPU path on a host without a GPU: engines built by hand over the CPU backend and
 * the fake GPU (fake_gpu.h), driven by 1 to 64 threads with encode- and decode-shaped calls
 * (random matrices, lengths, stripe counts, misalignments; poisoned outputs), every output
 * checked against the plain-C product. Faults (every GPU call, or only the Nth) must leave
 * every output correct through the CPU redo, counted in the engine's fallbacks, with no caller
 * lost or hung: threads are joined under a watchdog that fails the test instead of hanging CI.
 */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cpu_backend.h"
#include "engine.h"
#include "fake_gpu.h"
#include "gf8.h"
#include "test_util.h"

#define NPLANS 6
#define MAXROWS 6
#define MAXCOLS 12
#define MAXSTRIPES 3
#define WATCHDOG_S 60

/* An engine over the CPU backend and the fake GPU, with NPLANS random w = 8 matrices. */
struct rig {
	struct gfec_engine e;
	struct gfec_eplan plan[NPLANS];
	uint8_t a[NPLANS][MAXROWS * MAXCOLS];
	int rows[NPLANS], cols[NPLANS];
};

static void rig_init(struct rig *r)
{
	const struct gfec_backend_conf cc = { .threads = 1 };
	const struct gfec_backend_conf gc = { 0 };

	memset(r, 0, sizeof(*r));
	r->e.cpu_ops = gfec_cpu_backend();
	r->e.gpu_ops = fake_gpu_ops();
	r->e.gpu_always = 1;
	assert_int_equal(r->e.cpu_ops->init(&cc, &r->e.cpu_ctx), 0);
	assert_int_equal(r->e.gpu_ops->init(&gc, &r->e.gpu_ctx), 0);
	for (int p = 0; p < NPLANS; p++) {
		/* even plans encode-shaped (m x k), odd ones decode-shaped (erasures x k) */
		r->cols[p] = test_range(2, MAXCOLS);
		r->rows[p] = p % 2 ? test_range(1, MAXROWS) : test_range(2, 4);
		test_fill(r->a[p], (size_t)r->rows[p] * r->cols[p]);
		const struct gfec_gemm_matrix gm = { .w = 8, .rows = r->rows[p],
						     .cols = r->cols[p], .a = r->a[p] };
		assert_int_equal(gfec_engine_plan_create(&r->e, &gm, &r->plan[p]), 0);
	}
}

static void rig_fini(struct rig *r)
{
	for (int p = 0; p < NPLANS; p++)
		gfec_engine_plan_free(&r->e, &r->plan[p]);
	gfec_engine_fini(&r->e);
}

/* A caller thread's work and what it found. */
struct worker {
	pthread_t t;
	struct rig *r;
	uint64_t rng;
	int calls, updates;
	int bad; /* calls that returned an error or wrote a wrong byte */
	char why[160];
};

static uint64_t wrand(struct worker *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 0x2545f4914f6cdd1dull;
}

static size_t pick_len(struct worker *w)
{
	/* mostly a few common lengths (so that calls can share a window), some odd ones */
	static const size_t common[] = { 64, 1000, 4096 };

	return wrand(w) % 4 ? common[wrand(w) % 3] : 1 + (size_t)(wrand(w) % 5000);
}

static void wfail(struct worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void wfail(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (w->bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
}

/* One gemm call of 1..MAXSTRIPES stripes on a random plan, checked byte for byte. */
static void one_gemm(struct worker *w)
{
	const int p = (int)(wrand(w) % NPLANS), ns = 1 + (int)(wrand(w) % MAXSTRIPES);
	const int rows = w->r->rows[p], cols = w->r->cols[p];
	const size_t len = pick_len(w), nsrc = (size_t)ns * cols, ndst = (size_t)ns * rows;
	const uint8_t *src[MAXSTRIPES * MAXCOLS];
	uint8_t *dst[MAXSTRIPES * MAXROWS], *want[MAXROWS];
	uint8_t *mem = malloc((nsrc + 2 * ndst) * (len + 64));
	int ret;

	if (!mem) {
		wfail(w, "out of memory");
		return;
	}
	for (size_t i = 0; i < nsrc + 2 * ndst; i++) {
		uint8_t *b = mem + i * (len + 64) + wrand(w) % 64;

		if (i < nsrc) {
			for (size_t j = 0; j < len; j++)
				b[j] = (uint8_t)wrand(w);
			src[i] = b;
		} else {
			memset(b, TEST_POISON, len);
			if (i < nsrc + ndst)
				dst[i - nsrc] = b;
			else
				want[(i - nsrc - ndst) % MAXROWS] = b;
		}
	}
	ret = gfec_engine_gemm(&w->r->e, &w->r->plan[p], cols, ns, len, src, dst);
	if (ret)
		wfail(w, "gemm: %s", gfec_strerror(ret));
	for (int s = 0; !ret && s < ns; s++) {
		gfec_cpu_gemm_base(len, cols, rows, w->r->a[p], src + (size_t)s * cols, want);
		for (int i = 0; i < rows; i++)
			if (memcmp(dst[(size_t)s * rows + i], want[i], len)) {
				wfail(w, "plan %d (%dx%d) stripe %d/%d row %d len %zu: wrong output",
				     p, rows, cols, s, ns, i, len);
				break;
			}
	}
	free(mem);
	w->calls++;
}

/* One update on a random plan, checked against parity + A(:,col) x delta. */
static void one_update(struct worker *w)
{
	const int p = (int)(wrand(w) % NPLANS), rows = w->r->rows[p], cols = w->r->cols[p];
	const int col = (int)(wrand(w) % (uint64_t)cols);
	const size_t len = pick_len(w);
	uint8_t *mem = malloc((size_t)(1 + 2 * rows) * len), *dst[MAXROWS];
	int ret;

	if (!mem) {
		wfail(w, "out of memory");
		return;
	}
	for (size_t j = 0; j < (size_t)(1 + rows) * len; j++)
		mem[j] = (uint8_t)wrand(w);
	for (int i = 0; i < rows; i++) {
		uint8_t *ref = mem + (size_t)(1 + rows + i) * len;

		dst[i] = mem + (size_t)(1 + i) * len;
		for (size_t b = 0; b < len; b++)
			ref[b] = dst[i][b] ^ gfec_gf8_mul(w->r->a[p][i * cols + col], mem[b]);
	}
	ret = gfec_engine_update(&w->r->e, &w->r->plan[p], rows, col, len, mem, dst);
	if (ret)
		wfail(w, "update: %s", gfec_strerror(ret));
	for (int i = 0; !ret && i < rows; i++)
		if (memcmp(dst[i], mem + (size_t)(1 + rows + i) * len, len)) {
			wfail(w, "update plan %d row %d len %zu: wrong output", p, i, len);
			break;
		}
	free(mem);
	w->updates++;
}

struct job {
	int iters;
	int update_every; /* 0: no updates */
};

static struct job the_job;

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < the_job.iters; i++) {
		if (the_job.update_every && i % the_job.update_every == 0)
			one_update(w);
		else
			one_gemm(w);
	}
	return NULL;
}

/* Runs @p nthreads workers on @p r; fails (never hangs) when one is not back in time. */
static void run_workers(struct rig *r, int nthreads, int iters, int update_every)
{
	struct worker *w = calloc((size_t)nthreads, sizeof(*w));
	struct timespec until;

	assert_non_null(w);
	the_job = (struct job){ iters, update_every };
	for (int i = 0; i < nthreads; i++) {
		w[i].r = r;
		w[i].rng = test_rand() | 1;
		assert_int_equal(pthread_create(&w[i].t, NULL, worker_main, &w[i]), 0);
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WATCHDOG_S;
	for (int i = 0; i < nthreads; i++) {
		if (pthread_timedjoin_np(w[i].t, NULL, &until)) {
			fprintf(stderr, "watchdog: caller %d of %d not back after %d s: hung\n", i,
				nthreads, WATCHDOG_S);
			_exit(1);
		}
		if (w[i].bad)
			fail_msg("caller %d of %d: %d bad calls, first: %s", i, nthreads, w[i].bad,
				 w[i].why);
		assert_int_equal(w[i].calls + w[i].updates, iters);
	}
	free(w);
}

/* Every caller's output right, on the GPU path, at each thread count. */
static void test_threads(void **state)
{
	static const int threads[] = { 1, 4, 16, 64 };

	(void)state;
	for (size_t t = 0; t < sizeof(threads) / sizeof(*threads); t++) {
		struct rig r;
		struct fake_gpu_counts n;

		rig_init(&r);
		run_workers(&r, threads[t], 40, 8);
		fake_gpu_counts(r.e.gpu_ctx, &n);
		assert_true(n.calls > 0 && n.updates > 0);
		assert_int_equal(r.e.fallbacks, 0);
		rig_fini(&r);
	}
}

/* Every GPU call fails: every call is redone on the CPU, right, and counted. */
static void test_fault_every(void **state)
{
	const struct fake_gpu_switches sw = { .fail_all = 1 };
	struct fake_gpu_counts n;
	struct rig r;

	(void)state;
	rig_init(&r);
	fake_gpu_set(r.e.gpu_ctx, &sw);
	run_workers(&r, 64, 10, 5);
	fake_gpu_counts(r.e.gpu_ctx, &n);
	assert_int_equal(n.failed, n.calls + n.updates);
	assert_int_equal(r.e.fallbacks, 64 * 10);
	assert_int_equal(r.e.gpu_calls, 0);
	rig_fini(&r);
}

/* Only the Nth GPU call fails: one fallback, every output right. */
static void test_fault_nth(void **state)
{
	const struct fake_gpu_switches sw = { .fail_nth = 37, .fail_code = GFEC_E_NOMEM };
	struct fake_gpu_counts n;
	struct rig r;

	(void)state;
	rig_init(&r);
	fake_gpu_set(r.e.gpu_ctx, &sw);
	run_workers(&r, 64, 10, 5);
	fake_gpu_counts(r.e.gpu_ctx, &n);
	assert_int_equal(n.failed, 1);
	assert_int_equal(r.e.fallbacks, 1);
	rig_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_fault_every),
		cmocka_unit_test(test_fault_nth),
	};

	test_seed();
	gfec_gf8_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
