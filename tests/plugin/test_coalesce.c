/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_coalesce.c
 * The engine's GPU path and its coalescing (coalesce.h) on a host without a GPU: engines built
 * by hand over the CPU backend and the fake GPU (fake_gpu.h), driven by 1 to 64 threads with
 * encode- and decode-shaped calls (random matrices, lengths, stripe counts, misalignments;
 * poisoned outputs), every output checked against the plain-C product, with windows off and
 * on. Faults (every GPU launch, or only the Nth) must leave every output correct through the
 * CPU redo, counted in the engine's fallbacks, with no caller lost or hung: threads are joined
 * under a watchdog that fails the test instead of hanging CI. A leader that cannot allocate its
 * window's tables (malloc wrapped, -Wl,--wrap=malloc) runs every caller's call alone.
 *
 * Queued members (gfec_coalesce_submit, what gfec_submit_coalesced() and the RDMA ingest use):
 * 16 and 64 submitting threads whose stripes must land in few launches, every output right and
 * every end called once; every launch failing (each window redone on the CPU, one fallback per
 * window); members withdrawn before their window runs; a window nobody can lead; and the public
 * calls on a CPU codec. The fair gate (gfec_engine_gate): 64 callers behind a slow GPU enter it
 * in arrival order, and the per-call P99 with and without it is printed.
 *
 * `test_coalesce gpu` (ctest coalesce_gpu, label gpu; exit 77 without a GPU) runs the same kind
 * of load through the public API on the real GPU backend: 16 threads of RS(10,4) encodes and
 * decodes of host buffers on one backend=gpu codec, against a backend=cpu codec, with windows on
 * and with every GPU call failing (GFEC_FAULT=cuda).
 */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "coalesce.h"
#include "cpu_backend.h"
#include "engine.h"
#include "fake_gpu.h"
#include "gf8.h"
#include "gfec/gfec.h"
#include "internal.h"
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

/* Tables the next malloc calls of exactly this many bytes must fail (0: none). */
static size_t fail_malloc_size;
static int fail_malloc_count;
void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n);

void *__wrap_malloc(size_t n)
{
	if (n && n == __atomic_load_n(&fail_malloc_size, __ATOMIC_RELAXED) &&
	    __atomic_fetch_sub(&fail_malloc_count, 1, __ATOMIC_RELAXED) > 0)
		return NULL;
	return __real_malloc(n);
}

/* us = 0: no coalescing; else windows of us microseconds or @p bytes source bytes. */
static void rig_init(struct rig *r, unsigned us, uint64_t bytes)
{
	const struct gfec_backend_conf cc = { .threads = 1 };
	const struct gfec_backend_conf gc = { 0 };

	memset(r, 0, sizeof(*r));
	r->e.cpu_ops = gfec_cpu_backend();
	r->e.gpu_ops = fake_gpu_ops();
	r->e.gpu_always = 1;
	assert_int_equal(r->e.cpu_ops->init(&cc, &r->e.cpu_ctx), 0);
	assert_int_equal(r->e.gpu_ops->init(&gc, &r->e.gpu_ctx), 0);
	if (us)
		assert_int_equal(gfec_coalesce_create(us, bytes, 0, 0, &r->e.coal), 0);
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
	gfec_codec *gpu, *cpu; /* `gpu` mode: the codec under test and the reference */
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

/* One gemm call of @p ns stripes of @p len bytes on plan @p p, checked byte for byte. */
static void gemm_at(struct worker *w, int p, int ns, size_t len)
{
	const int rows = w->r->rows[p], cols = w->r->cols[p];
	const size_t nsrc = (size_t)ns * cols, ndst = (size_t)ns * rows;
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

/* One gemm call of 1..MAXSTRIPES stripes of a random length on a random plan. */
static void one_gemm(struct worker *w)
{
	const int p = (int)(wrand(w) % NPLANS), ns = 1 + (int)(wrand(w) % MAXSTRIPES);

	gemm_at(w, p, ns, pick_len(w));
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

/*
 * `gpu` mode: an RS(10,4) encode of random data on the GPU codec against the CPU codec, then a
 * decode of the first 4 data chunks from the other 10 on the GPU codec against the data.
 */
static void codec_calls(struct worker *w)
{
	enum { K = 10, M = 4, LOST = 4 };
	const size_t len = wrand(w) % 2 ? 65536 : 4096;
	uint8_t *mem = malloc((size_t)(K + 2 * M + LOST) * len);
	uint8_t *data[K], *parity[M], *ref[M], *out[K + M] = { 0 };
	const uint8_t *chunks[K + M];
	int ret;

	if (!mem) {
		wfail(w, "out of memory");
		return;
	}
	for (int i = 0; i < K + 2 * M + LOST; i++) {
		uint8_t *b = mem + (size_t)i * len;

		if (i < K) {
			data[i] = b;
			for (size_t j = 0; j < len; j++)
				b[j] = (uint8_t)wrand(w);
		} else {
			memset(b, TEST_POISON, len);
			if (i < K + M)
				parity[i - K] = b;
			else if (i < K + 2 * M)
				ref[i - K - M] = b;
			else
				out[i - K - 2 * M] = b;
		}
	}
	ret = gfec_encode(w->gpu, (const uint8_t *const *)data, parity, len);
	if (ret == 0)
		ret = gfec_encode(w->cpu, (const uint8_t *const *)data, ref, len);
	if (ret) {
		wfail(w, "encode: %s", gfec_strerror(ret));
		goto out;
	}
	for (int i = 0; i < M; i++)
		if (memcmp(parity[i], ref[i], len)) {
			wfail(w, "encode len %zu: parity %d differs from the CPU's", len, i);
			goto out;
		}
	for (int i = 0; i < K + M; i++)
		chunks[i] = i < LOST ? NULL : i < K ? data[i] : parity[i - K];
	ret = gfec_decode(w->gpu, chunks, out, len);
	if (ret) {
		wfail(w, "decode: %s", gfec_strerror(ret));
		goto out;
	}
	for (int i = 0; i < LOST; i++)
		if (memcmp(out[i], data[i], len)) {
			wfail(w, "decode len %zu: chunk %d differs from the data", len, i);
			break;
		}
out:
	free(mem);
	w->calls++;
}

struct job {
	int iters;
	int update_every; /* 0: no updates */
	int one_shape;	  /* every call one 4 KiB stripe on plan 0 (a daemon's encodes) */
};

static struct job the_job;

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < the_job.iters; i++) {
		if (the_job.update_every && i % the_job.update_every == 0)
			one_update(w);
		else if (w->gpu)
			codec_calls(w);
		else if (the_job.one_shape)
			gemm_at(w, 0, 1, 4096);
		else
			one_gemm(w);
	}
	return NULL;
}

/* One stripe of FILL_LEN bytes on plan 0, every caller at once (fill_window). */
#define FILL_LEN 512
static pthread_barrier_t fill_start;

static void *filler_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&fill_start);
	gemm_at(w, 0, 1, FILL_LEN);
	return NULL;
}

/* Joins thread @p i of @p n by @p until (CLOCK_REALTIME), or ends the test (exit 1) as hung. */
static void join_or_exit(pthread_t t, const struct timespec *until, const char *who, int i, int n)
{
	if (pthread_timedjoin_np(t, NULL, until)) {
		fprintf(stderr, "watchdog: %s %d of %d not back after %d s: hung\n", who, i, n,
			WATCHDOG_S);
		_exit(1);
	}
}

static struct timespec watchdog_until(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WATCHDOG_S;
	return until;
}

static void join_workers(struct worker *w, int nthreads, int iters)
{
	const struct timespec until = watchdog_until();

	for (int i = 0; i < nthreads; i++) {
		join_or_exit(w[i].t, &until, "caller", i, nthreads);
		if (w[i].bad)
			fail_msg("caller %d of %d: %d bad calls, first: %s", i, nthreads, w[i].bad,
				 w[i].why);
		assert_int_equal(w[i].calls + w[i].updates, iters);
	}
	free(w);
}

/* Runs @p nthreads workers on @p r; fails (never hangs) when one is not back in time. */
static void run_workers(struct rig *r, int nthreads, int iters, int update_every)
{
	struct worker *w = calloc((size_t)nthreads, sizeof(*w));

	assert_non_null(w);
	the_job = (struct job){ iters, update_every, the_job.one_shape };
	for (int i = 0; i < nthreads; i++) {
		w[i].r = r;
		w[i].rng = test_rand() | 1;
		assert_int_equal(pthread_create(&w[i].t, NULL, worker_main, &w[i]), 0);
	}
	join_workers(w, nthreads, iters);
}

/* `gpu` mode: @p nthreads callers of @p iters codec_calls each on @p gpu, checked with @p cpu. */
static void run_codec_workers(gfec_codec *gpu, gfec_codec *cpu, int nthreads, int iters)
{
	struct worker *w = calloc((size_t)nthreads, sizeof(*w));

	assert_non_null(w);
	the_job = (struct job){ iters, 0, 0 };
	for (int i = 0; i < nthreads; i++) {
		w[i].gpu = gpu;
		w[i].cpu = cpu;
		w[i].rng = test_rand() | 1;
		assert_int_equal(pthread_create(&w[i].t, NULL, worker_main, &w[i]), 0);
	}
	join_workers(w, nthreads, iters);
}

/*
 * @p n callers of one stripe each (FILL_LEN bytes, plan 0), started together, on a coalescer
 * whose window holds exactly their n stripes and stays open for 10 s: the size trigger, not the
 * clock, must release them.
 */
static void fill_window(struct rig *r, int n)
{
	struct worker *w = calloc((size_t)n, sizeof(*w));

	assert_non_null(w);
	assert_int_equal(gfec_coalesce_create(10000000, (uint64_t)n * r->cols[0] * FILL_LEN, 0, 0,
					      &r->e.coal), 0);
	pthread_barrier_init(&fill_start, NULL, (unsigned)n);
	for (int i = 0; i < n; i++) {
		w[i].r = r;
		w[i].rng = test_rand() | 1;
		assert_int_equal(pthread_create(&w[i].t, NULL, filler_main, &w[i]), 0);
	}
	join_workers(w, n, 1);
	pthread_barrier_destroy(&fill_start);
}

/*
 * The window the coalescing cases use: long enough for callers to gather even where every call
 * runs slowly (sanitizer builds on a loaded 2-core VM), short enough for a lone caller's 35 calls.
 */
#define WINDOW_US 20000
#define WINDOW_BYTES (1u << 20)

/*
 * Every caller's output right, on the GPU path, at each thread count, windows off and on. With
 * windows on, the GPU takes 200 us per launch, so callers pile up: from 16 threads on there must
 * be fewer launches than calls, and launches of more stripes than one call carries (fewer
 * threads, with calls of random shapes, may not meet in a window at all).
 */
static void test_threads(void **state)
{
	static const int threads[] = { 1, 4, 16, 64 };
	const struct fake_gpu_switches slow = { .delay_us = 200 };

	(void)state;
	for (int on = 0; on < 2; on++)
		for (size_t t = 0; t < sizeof(threads) / sizeof(*threads); t++) {
			/* an update every 8th call; fewer calls each for 64 (ASan builds) */
			const int iters = threads[t] < 64 ? 40 : 16, updates = 8;
			const uint64_t gemms = (uint64_t)threads[t] * (iters - iters / updates);
			struct fake_gpu_counts n;
			struct gfec_coalesce_stats cs;
			struct rig r;

			rig_init(&r, on ? WINDOW_US : 0, WINDOW_BYTES);
			if (on)
				fake_gpu_set(r.e.gpu_ctx, &slow);
			run_workers(&r, threads[t], iters, updates);
			fake_gpu_counts(r.e.gpu_ctx, &n);
			assert_int_equal(n.updates, (uint64_t)threads[t] * (iters / updates));
			assert_int_equal(r.e.fallbacks, 0);
			assert_int_equal(r.e.gpu_calls, gemms + n.updates);
			if (!on) {
				assert_int_equal(n.calls, gemms);
			} else {
				gfec_coalesce_stats(r.e.coal, &cs);
				assert_int_equal(cs.callers, gemms);
				assert_int_equal(cs.launches, n.calls);
				assert_int_equal(cs.stripes, n.stripes);
				assert_int_equal(cs.solo, 0);
				if (threads[t] >= 16) {
					assert_true(n.calls < gemms);
					assert_true(n.max_stripes > MAXSTRIPES);
					assert_true(cs.windows > 0);
				}
				fprintf(stderr, "# %2d threads: %llu calls in %llu launches, "
						"%.1f stripes per launch (most %llu)\n",
					threads[t], (unsigned long long)gemms,
					(unsigned long long)n.calls, (double)n.stripes / n.calls,
					(unsigned long long)n.max_stripes);
			}
			rig_fini(&r);
		}
}

/*
 * A daemon's load: 16 callers of one shape (one 4 KiB stripe on plan 0 per call) behind a GPU
 * that takes 200 us a launch, with a window sized for all 16 and open for up to 0.5 s: most of
 * them share each launch (all 16, unless a caller is over 0.5 s late: a TSan build on the loaded
 * VM made 4.9 stripes per launch with 0.1 s).
 */
static void test_one_shape(void **state)
{
	const struct fake_gpu_switches slow = { .delay_us = 200 };
	struct fake_gpu_counts n;
	struct rig r;

	(void)state;
	rig_init(&r, 0, 0);
	assert_int_equal(gfec_coalesce_create(500000, 16ull * r.cols[0] * 4096, 0, 0, &r.e.coal), 0);
	fake_gpu_set(r.e.gpu_ctx, &slow);
	the_job.one_shape = 1;
	run_workers(&r, 16, 20, 0);
	the_job.one_shape = 0;
	fake_gpu_counts(r.e.gpu_ctx, &n);
	fprintf(stderr, "# one shape, 16 threads: 320 calls in %llu launches, %.1f stripes per "
			"launch (most %llu)\n",
		(unsigned long long)n.calls, (double)n.stripes / n.calls,
		(unsigned long long)n.max_stripes);
	assert_int_equal(n.stripes, 320);
	assert_true(n.stripes >= 4 * n.calls);
	rig_fini(&r);
}

/*
 * The fault cases' windows: off, the long one (windows fill), and 5 us (windows close while
 * callers are still joining: the races between a leader's deadline and late joiners).
 */
static const unsigned fault_windows[] = { 0, WINDOW_US, 5 };
#define NFAULT_WINDOWS (sizeof(fault_windows) / sizeof(*fault_windows))

/* 64 callers of 10 calls each (every 5th an update) on a fresh rig whose GPU has switches @p sw. */
static void fault_run(struct rig *r, unsigned us, const struct fake_gpu_switches *sw,
		      struct fake_gpu_counts *n)
{
	rig_init(r, us, WINDOW_BYTES);
	fake_gpu_set(r->e.gpu_ctx, sw);
	run_workers(r, 64, 10, 5);
	fake_gpu_counts(r->e.gpu_ctx, n);
}

/* Every GPU launch fails: every call is redone on the CPU, right, and counted. */
static void test_fault_every(void **state)
{
	const struct fake_gpu_switches sw = { .fail_all = 1, .delay_us = 100 };

	(void)state;
	for (size_t i = 0; i < NFAULT_WINDOWS; i++) {
		const unsigned us = fault_windows[i];
		struct fake_gpu_counts n;
		struct rig r;

		fault_run(&r, us, &sw, &n);
		assert_int_equal(n.failed, n.calls + n.updates);
		assert_int_equal(r.e.fallbacks, 64 * 10);
		assert_int_equal(r.e.gpu_calls, 0);
		if (us == WINDOW_US)
			assert_true(n.max_stripes > MAXSTRIPES); /* windows did fail whole */
		rig_fini(&r);
	}
}

/*
 * Only the Nth GPU launch fails: every caller of that launch (one, or a whole window) falls back
 * and nobody else; every output right.
 */
static void test_fault_nth(void **state)
{
	const struct fake_gpu_switches sw = { .fail_nth = 37, .fail_code = GFEC_E_NOMEM,
					      .delay_us = 100 };

	(void)state;
	for (size_t i = 0; i < NFAULT_WINDOWS; i++) {
		const unsigned us = fault_windows[i];
		struct fake_gpu_counts n;
		struct rig r;

		fault_run(&r, us, &sw, &n);
		assert_int_equal(n.failed, 1);
		if (us) /* at most one window's callers: no more than its stripes */
			assert_in_range(r.e.fallbacks, 1, n.max_stripes);
		else
			assert_int_equal(r.e.fallbacks, 1);
		assert_int_equal(r.e.gpu_calls + r.e.fallbacks, 64 * 10);
		rig_fini(&r);
	}
}

/*
 * The deadline: a lone caller's window closes after its time (not before, not much after: the
 * slack is generous, this VM is shared); a call that alone fills a window is not held at all;
 * callers that fill a window together are released by the size trigger, long before its time.
 */
static void test_deadline(void **state)
{
	const unsigned us = 100000; /* 0.1 s */
	struct worker w = { .rng = 1 };
	struct gfec_coalesce_stats cs;
	struct fake_gpu_counts n;
	struct rig r;
	double t;

	(void)state;
	rig_init(&r, us, 64 * 1024);
	w.r = &r;
	for (int i = 0; i < 3; i++) {
		t = test_now_s();
		gemm_at(&w, i, 1, 1000); /* at most 12 x 1000 bytes: under the size trigger */
		t = test_now_s() - t;
		assert_int_equal(w.bad, 0);
		fprintf(stderr, "# lone caller: %.1f ms for a %.1f ms window\n", 1e3 * t,
			1e-3 * us);
		assert_true(t >= 1e-6 * us && t < 1e-6 * us + 0.5);
	}
	rig_fini(&r);

	/* every call of 1000 source bytes or more goes at once, though a window would wait 10 s:
	 * no window opened, and no wall-clock bound that a loaded VM could stretch to 0.1 s */
	rig_init(&r, 10000000, 1000);
	w.r = &r;
	for (int i = 0; i < 3; i++) {
		t = test_now_s();
		gemm_at(&w, i, 1, 1000);
		t = test_now_s() - t;
		assert_int_equal(w.bad, 0);
		if (t >= 5)
			fail_msg("a call over the size trigger waited %.1f s", t);
	}
	gfec_coalesce_stats(r.e.coal, &cs);
	assert_int_equal(cs.callers, 3);
	assert_int_equal(cs.launches, 3);
	assert_int_equal(cs.windows, 0);
	rig_fini(&r);

	/* 8 callers of 1 stripe each fill a window of 8 stripes' bytes; the window is 10 s */
	rig_init(&r, 0, 0);
	t = test_now_s();
	fill_window(&r, 8);
	t = test_now_s() - t;
	fake_gpu_counts(r.e.gpu_ctx, &n);
	assert_int_equal(n.calls, 1);
	assert_int_equal(n.max_stripes, 8);
	assert_true(t < 5);
	rig_fini(&r);
}

/* A rig whose coalescer holds calls by launch slots alone (no deadline, no size trigger), those
 * of @p slot_min source bytes or more. */
static void rig_slots(struct rig *r, unsigned slots, uint64_t slot_min,
		      const struct fake_gpu_switches *sw)
{
	rig_init(r, 0, 0);
	assert_int_equal(gfec_coalesce_create(0, UINT64_MAX, slots, slot_min, &r->e.coal), 0);
	fake_gpu_set(r->e.gpu_ctx, sw);
}

/*
 * Launch slots (group commit): calls read in place launch at once while fewer than `slots` are
 * in flight, else gather into the next launch. Behind a GPU that takes 200 us a launch: never
 * more than `slots` launches in the backend at once, every output right, and from 16 callers on
 * fewer launches than calls and launches of more stripes than one call carries. A lone caller
 * never waits in a window, and staged calls (not in place), calls under slot_min and calls the
 * backend runs without a launch (runs_resident) are not held by slots at all.
 */
static void test_slots(void **state)
{
	static const unsigned slots[] = { 1, 2, 4 };
	static const int threads[] = { 1, 16, 64 };
	const struct fake_gpu_switches slow = { .delay_us = 200, .in_place = 1 };
	const struct fake_gpu_switches staged = { .delay_us = 200 };

	(void)state;
	for (size_t i = 0; i < sizeof(slots) / sizeof(*slots); i++)
		for (size_t t = 0; t < sizeof(threads) / sizeof(*threads); t++) {
			const int iters = threads[t] < 64 ? 40 : 16, updates = 8;
			const uint64_t gemms = (uint64_t)threads[t] * (iters - iters / updates);
			struct gfec_coalesce_stats cs;
			struct fake_gpu_counts n;
			struct rig r;

			rig_slots(&r, slots[i], 0, &slow);
			run_workers(&r, threads[t], iters, updates);
			fake_gpu_counts(r.e.gpu_ctx, &n);
			gfec_coalesce_stats(r.e.coal, &cs);
			assert_int_equal(r.e.fallbacks, 0);
			assert_int_equal(r.e.gpu_calls, gemms + n.updates);
			assert_int_equal(cs.callers, gemms);
			assert_int_equal(cs.launches, n.calls);
			assert_int_equal(cs.stripes, n.stripes);
			assert_int_equal(cs.slots, slots[i]);
			assert_in_range(n.max_inflight, 1, slots[i]);
			if (threads[t] == 1) {
				assert_int_equal(n.calls, gemms);
				assert_int_equal(cs.windows, 0);
			} else {
				assert_true(n.calls < gemms);
				assert_true(n.max_stripes > MAXSTRIPES);
			}
			fprintf(stderr, "# slots %u, %2d threads: %llu calls in %llu launches, "
					"%.1f stripes per launch (most %llu), at most %llu in flight\n",
				slots[i], threads[t], (unsigned long long)gemms,
				(unsigned long long)n.calls, (double)n.stripes / n.calls,
				(unsigned long long)n.max_stripes,
				(unsigned long long)n.max_inflight);
			rig_fini(&r);
		}

	/* staged calls, calls under slot_min (every call here: at most 12 x 3 x 5000 source
	 * bytes), and calls the backend runs without a launch: each on its own, as without slots */
	for (int kind = 0; kind < 3; kind++) {
		const struct fake_gpu_switches resident = { .delay_us = 200, .in_place = 1,
							    .resident = 1 };
		const struct fake_gpu_switches *sw[3] = { &staged, &slow, &resident };
		const uint64_t gemms = 16 * (16 - 16 / 8);
		struct gfec_coalesce_stats cs;
		struct fake_gpu_counts n;
		struct rig r;

		rig_slots(&r, 1, kind == 1 ? 12 * 3 * 5000 + 1 : 0, sw[kind]);
		run_workers(&r, 16, 16, 8);
		fake_gpu_counts(r.e.gpu_ctx, &n);
		gfec_coalesce_stats(r.e.coal, &cs);
		assert_int_equal(n.calls, gemms);
		assert_int_equal(cs.windows, 0);
		assert_int_equal(r.e.fallbacks, 0);
		rig_fini(&r);
	}
}

/* Slots with every launch failing, or only the 37th: each call's stripes right through the
 * CPU redo, one fallback per caller of a failed launch, nobody lost or hung. */
static void test_slots_fault(void **state)
{
	const struct fake_gpu_switches every = { .fail_all = 1, .delay_us = 100, .in_place = 1 };
	const struct fake_gpu_switches nth = { .fail_nth = 37, .fail_code = GFEC_E_NOMEM,
					       .delay_us = 100, .in_place = 1 };
	struct fake_gpu_counts n;
	struct rig r;

	(void)state;
	rig_slots(&r, 2, 0, &every);
	run_workers(&r, 64, 10, 5);
	fake_gpu_counts(r.e.gpu_ctx, &n);
	assert_int_equal(n.failed, n.calls + n.updates);
	assert_int_equal(r.e.fallbacks, 64 * 10);
	assert_int_equal(r.e.gpu_calls, 0);
	rig_fini(&r);

	rig_slots(&r, 2, 0, &nth);
	run_workers(&r, 64, 10, 5);
	fake_gpu_counts(r.e.gpu_ctx, &n);
	assert_int_equal(n.failed, 1);
	assert_in_range(r.e.fallbacks, 1, n.max_stripes);
	assert_int_equal(r.e.gpu_calls + r.e.fallbacks, 64 * 10);
	rig_fini(&r);
}

/* The leader cannot allocate the window's tables: every caller runs its own call. */
static void test_alloc_failure(void **state)
{
	struct gfec_coalesce_stats cs;
	struct fake_gpu_counts n;
	struct rig r;

	(void)state;
	rig_init(&r, 0, 0);
	fail_malloc_size = sizeof(void *) * 8 * (size_t)r.cols[0]; /* the source table */
	fail_malloc_count = 1;
	fill_window(&r, 8);
	fail_malloc_size = 0;
	fake_gpu_counts(r.e.gpu_ctx, &n);
	gfec_coalesce_stats(r.e.coal, &cs);
	assert_int_equal(cs.solo, 8);
	assert_int_equal(cs.windows, 0);
	assert_int_equal(n.calls, 8);
	assert_int_equal(n.max_stripes, 1);
	assert_int_equal(r.e.gpu_calls, 8);
	rig_fini(&r);
}

static gfec_codec *codec(const char *profile);

/* ---- queued members ------------------------------------------------------------------------ */

/* One queued stripe: its buffers, the product it must get, and how often its end came. */
struct qstripe {
	int p;
	size_t len;
	const uint8_t *src[MAXCOLS];
	uint8_t *dst[MAXROWS];
	uint8_t *mem;
	int ends, status;
};

static int qdone_total; /* ends seen, over all stripes (atomic) */

static void qdone(void *ctx, void *arg, int status)
{
	struct qstripe *q = arg;

	(void)ctx;
	q->status = status;
	__atomic_fetch_add(&q->ends, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&qdone_total, 1, __ATOMIC_RELEASE);
}

static int post_async(void *ctx, struct gfec_job *job)
{
	return gfec_async_post(ctx, job);
}

static void hurry_async(void *ctx, struct gfec_job *job)
{
	gfec_async_hurry(ctx, job);
}

static void hurry_none(void *ctx, struct gfec_job *job)
{
	(void)ctx;
	(void)job;
}

static int post_none(void *ctx, struct gfec_job *job)
{
	(void)ctx;
	(void)job;
	return GFEC_E_SYSTEM;
}

static int no_exec(void *owner, struct gfec_request *r)
{
	(void)owner;
	(void)r;
	return GFEC_E_INVAL; /* only jobs are posted to this queue */
}

/* Random data and poisoned outputs for one stripe of @p len bytes on plan @p p. */
static void qstripe_init(struct qstripe *q, const struct rig *r, int p, size_t len)
{
	memset(q, 0, sizeof(*q));
	q->p = p;
	q->len = len;
	q->mem = malloc((size_t)(r->cols[p] + r->rows[p]) * len);
	assert_non_null(q->mem);
	for (int i = 0; i < r->cols[p]; i++) {
		test_fill(q->mem + (size_t)i * len, len);
		q->src[i] = q->mem + (size_t)i * len;
	}
	for (int i = 0; i < r->rows[p]; i++) {
		q->dst[i] = q->mem + (size_t)(r->cols[p] + i) * len;
		memset(q->dst[i], TEST_POISON, len);
	}
}

/* Its end came once, with status 0, and its outputs are the plain-C product. */
static void qstripe_check(const struct qstripe *q, const struct rig *r)
{
	uint8_t *want[MAXROWS];

	assert_int_equal(q->ends, 1);
	assert_int_equal(q->status, 0);
	for (int i = 0; i < r->rows[q->p]; i++)
		want[i] = malloc(q->len);
	gfec_cpu_gemm_base(q->len, r->cols[q->p], r->rows[q->p], r->a[q->p], q->src, want);
	for (int i = 0; i < r->rows[q->p]; i++) {
		if (memcmp(q->dst[i], want[i], q->len))
			fail_msg("queued stripe on plan %d, len %zu: row %d wrong", q->p, q->len, i);
		free(want[i]);
	}
	free(q->mem);
}

/*
 * A rig for queued stripes: no coalescing of waiting calls, queued windows of up to 1 MiB, a GPU
 * with switches @p sw, no end seen yet. Returns a job queue of @p workers threads for the
 * windows' jobs (gfec_async_destroy).
 */
static struct gfec_async *qrig_init(struct rig *r, const struct fake_gpu_switches *sw, int workers)
{
	struct gfec_async *jobs = gfec_async_create(no_exec, NULL, workers);

	assert_non_null(jobs);
	rig_init(r, 0, 0);
	assert_int_equal(gfec_coalesce_create(0, 1 << 20, 0, 0, &r->e.coal), 0);
	fake_gpu_set(r->e.gpu_ctx, sw);
	__atomic_store_n(&qdone_total, 0, __ATOMIC_RELAXED);
	return jobs;
}

static int qsubmit(struct rig *r, struct qstripe *q, void *post_ctx, unsigned us, int max_stripes)
{
	const struct gfec_coalesce_req cr = { .post = post_ctx ? post_async : post_none,
					      .hurry = post_ctx ? hurry_async : hurry_none,
					      .post_ctx = post_ctx,
					      .done = qdone, .arg = q,
					      .us = us, .max_stripes = max_stripes };

	return gfec_coalesce_submit(r->e.coal, &r->e, &r->plan[q->p], r->cols[q->p], 1, q->len,
				    q->src, q->dst, &cr);
}

/* Waits (at most WATCHDOG_S) until @p n ends have come since qdone_total was 0. */
static void qwait(int n)
{
	for (int i = 0; i < WATCHDOG_S * 1000; i++) {
		if (__atomic_load_n(&qdone_total, __ATOMIC_ACQUIRE) >= n)
			return;
		usleep(1000);
	}
	fprintf(stderr, "watchdog: %d of %d queued stripes ended in %d s: hung\n",
		__atomic_load_n(&qdone_total, __ATOMIC_ACQUIRE), n, WATCHDOG_S);
	_exit(1);
}

/* A submitting thread's share: stripes [first, first + n) of the test's array. */
struct qthread {
	pthread_t t;
	struct rig *r;
	struct gfec_async *jobs;
	struct qstripe *q;
	int n;
	unsigned us;
	int max_stripes;
};

static void *qthread_main(void *arg)
{
	struct qthread *t = arg;

	for (int i = 0; i < t->n; i++)
		if (qsubmit(t->r, &t->q[i], t->jobs, t->us, t->max_stripes))
			__atomic_fetch_add(&t->q[i].ends, 100, __ATOMIC_RELAXED); /* fails the check */
	return NULL;
}

/*
 * @p nthreads threads each submit @p per stripes (plans 0 and 2, 512 or 4096 bytes: four
 * window keys) behind a GPU with switches @p sw, windows of @p max_stripes or 20 ms; every end
 * once, every output right. Returns the rig's counts; the rig is left for the caller to check.
 */
static void queued_run(struct rig *r, int nthreads, int per, int max_stripes,
		       const struct fake_gpu_switches *sw, struct fake_gpu_counts *n,
		       struct gfec_coalesce_stats *cs)
{
	const int total = nthreads * per;
	struct qstripe *q = calloc((size_t)total, sizeof(*q));
	struct qthread *t = calloc((size_t)nthreads, sizeof(*t));
	struct gfec_async *jobs;

	assert_non_null(q);
	assert_non_null(t);
	jobs = qrig_init(r, sw, 2);
	for (int i = 0; i < total; i++)
		qstripe_init(&q[i], r, test_range(0, 1) * 2, test_range(0, 1) ? 4096 : 512);
	for (int i = 0; i < nthreads; i++) {
		t[i] = (struct qthread){ .r = r, .jobs = jobs, .q = q + (size_t)i * per, .n = per,
					 .us = WINDOW_US, .max_stripes = max_stripes };
		assert_int_equal(pthread_create(&t[i].t, NULL, qthread_main, &t[i]), 0);
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i].t, NULL);
	qwait(total);
	gfec_async_destroy(jobs); /* every leader has returned */
	for (int i = 0; i < total; i++)
		qstripe_check(&q[i], r);
	fake_gpu_counts(r->e.gpu_ctx, n);
	gfec_coalesce_stats(r->e.coal, cs);
	assert_int_equal(cs->q_requests, (uint64_t)total);
	assert_int_equal(cs->q_stripes, (uint64_t)total);
	assert_int_equal(cs->q_full + cs->q_deadline, cs->q_windows);
	assert_int_equal(cs->launches, 0); /* nothing went through the waiting path */
	free(q);
	free(t);
}

/* 16 and 64 submitters: their stripes run in few launches (windows of up to 32 stripes). */
static void test_queued(void **state)
{
	static const int threads[] = { 16, 64 };
	const struct fake_gpu_switches slow = { .delay_us = 200 };

	(void)state;
	for (size_t i = 0; i < sizeof(threads) / sizeof(*threads); i++) {
		const int per = 16, total = threads[i] * per;
		struct gfec_coalesce_stats cs;
		struct fake_gpu_counts n;
		struct rig r;

		queued_run(&r, threads[i], per, 32, &slow, &n, &cs);
		fprintf(stderr, "# queued, %d threads: %d stripes in %llu launches (%llu full, "
				"%llu by deadline), most %llu\n",
			threads[i], total, (unsigned long long)n.calls,
			(unsigned long long)cs.q_full, (unsigned long long)cs.q_deadline,
			(unsigned long long)n.max_stripes);
		assert_int_equal(n.calls, cs.q_windows);
		assert_int_equal(n.stripes, (uint64_t)total);
		assert_true(n.calls * 4 <= (uint64_t)total);
		assert_true(n.max_stripes > 1 && n.max_stripes <= 32);
		assert_int_equal(r.e.fallbacks, 0);
		assert_int_equal(r.e.gpu_calls, n.calls);
		rig_fini(&r);
	}
}

/*
 * 64 submitters, every GPU launch failing: every stripe redone on the CPU (right, ended once,
 * status 0), one fallback per window, nothing counted as done by the GPU.
 */
static void test_queued_fault(void **state)
{
	const struct fake_gpu_switches sw = { .fail_all = 1, .delay_us = 100 };
	struct gfec_coalesce_stats cs;
	struct fake_gpu_counts n;
	struct rig r;

	(void)state;
	queued_run(&r, 64, 8, 64, &sw, &n, &cs);
	assert_int_equal(n.failed, n.calls);
	assert_int_equal(n.calls, cs.q_windows);
	assert_int_equal(r.e.fallbacks, cs.q_windows);
	assert_int_equal(r.e.gpu_calls, 0);
	assert_true(n.max_stripes > 1); /* windows did fail whole */
	rig_fini(&r);
}

/*
 * Withdrawn members: never run, never ended; a window whose members all left runs nothing and
 * lets its leader go at once; a member that has ended cannot be withdrawn. And a window nobody
 * can lead (post fails) runs on the submitter's thread before gfec_coalesce_submit returns.
 */
static void test_queued_cancel(void **state)
{
	const struct fake_gpu_switches none = { 0 };
	struct gfec_async *jobs;
	struct gfec_coalesce_stats cs;
	struct fake_gpu_counts n;
	struct qstripe q[6];
	struct rig r;
	double t;

	(void)state;
	jobs = qrig_init(&r, &none, 1);
	for (int i = 0; i < 6; i++)
		qstripe_init(&q[i], &r, 0, 1000);
	/* a window of 4 stripes open for 10 s: A, B in; A out; C, D, E fill it */
	assert_int_equal(qsubmit(&r, &q[0], jobs, 10000000, 4), 0);
	assert_int_equal(qsubmit(&r, &q[1], jobs, 10000000, 4), 0);
	assert_int_equal(gfec_coalesce_cancel(r.e.coal, &q[0]), 0);
	assert_int_equal(gfec_coalesce_cancel(r.e.coal, &q[0]), GFEC_E_INVAL);
	for (int i = 2; i < 5; i++)
		assert_int_equal(qsubmit(&r, &q[i], jobs, 10000000, 4), 0);
	qwait(4);
	for (int i = 1; i < 5; i++)
		qstripe_check(&q[i], &r);
	assert_int_equal(q[0].ends, 0);
	assert_int_equal(gfec_coalesce_cancel(r.e.coal, &q[1]), GFEC_E_INVAL);
	/* F alone in a 10 s window, withdrawn: its job is due at once, nothing is run */
	assert_int_equal(qsubmit(&r, &q[5], jobs, 10000000, 4), 0);
	assert_int_equal(gfec_coalesce_cancel(r.e.coal, &q[5]), 0);
	t = test_now_s();
	gfec_async_destroy(jobs);
	t = test_now_s() - t;
	assert_true(t < 5);
	assert_int_equal(q[5].ends, 0);
	fake_gpu_counts(r.e.gpu_ctx, &n);
	gfec_coalesce_stats(r.e.coal, &cs);
	assert_int_equal(n.calls, 1);
	assert_int_equal(n.max_stripes, 4);
	assert_int_equal(cs.q_windows, 1);
	assert_int_equal(cs.q_full, 1);
	assert_int_equal(cs.q_cancelled, 2);
	free(q[0].mem);
	free(q[5].mem);

	/* nobody to lead: the window runs here, before the call returns */
	qstripe_init(&q[0], &r, 1, 4096);
	assert_int_equal(qsubmit(&r, &q[0], NULL, 10000000, 64), 0);
	assert_int_equal(q[0].ends, 1);
	qstripe_check(&q[0], &r);
	rig_fini(&r);
}

/*
 * A window waiting for its deadline holds no worker: with ONE worker, a 10 s window of one key
 * open, a window of another key that fills runs at once.
 */
static void test_queued_no_worker_held(void **state)
{
	const struct fake_gpu_switches none = { 0 };
	struct gfec_async *jobs;
	struct qstripe q[5];
	struct rig r;
	double t;

	(void)state;
	jobs = qrig_init(&r, &none, 1);
	qstripe_init(&q[0], &r, 0, 512);
	for (int i = 1; i < 5; i++)
		qstripe_init(&q[i], &r, 0, 4096);
	assert_int_equal(qsubmit(&r, &q[0], jobs, 10000000, 4), 0);
	usleep(20000); /* its job is posted: the one worker has seen it */
	t = test_now_s();
	for (int i = 1; i < 5; i++)
		assert_int_equal(qsubmit(&r, &q[i], jobs, 10000000, 4), 0);
	qwait(4);
	t = test_now_s() - t;
	fprintf(stderr, "# a full window beside a waiting one: done in %.1f ms\n", 1e3 * t);
	assert_true(t < 5);
	assert_int_equal(q[0].ends, 0);
	for (int i = 1; i < 5; i++)
		qstripe_check(&q[i], &r);
	assert_int_equal(gfec_coalesce_cancel(r.e.coal, &q[0]), 0);
	gfec_async_destroy(jobs);
	free(q[0].mem);
	rig_fini(&r);
}

/* ---- the public calls (gfec_submit_coalesced, gfec_cancel, gfec_codec_window_stats) --------- */

#define PUB_K 6
#define PUB_M 3
#define PUB_LEN 4096

struct pub_stripe {
	struct gfec_request req;
	uint8_t *data[PUB_K], *parity[PUB_M];
	uint8_t *mem;
};

/* 8 threads submit 24 stripes each to one CPU codec; gfec_wait; each against gfec_encode. */
static void test_public(void **state)
{
	enum { THREADS = 8, PER = 24, TOTAL = THREADS * PER };
	gfec_codec *c = codec("k=6 m=3 backend=cpu threads=1 async_threads=2");
	struct pub_stripe *ps = calloc(TOTAL, sizeof(*ps));
	uint8_t *want[PUB_M];
	struct gfec_window_stats ws;
	struct gfec_stats st;

	(void)state;
	assert_non_null(c);
	assert_non_null(ps);
	for (int i = 0; i < TOTAL; i++) {
		struct pub_stripe *p = &ps[i];

		p->mem = malloc((PUB_K + PUB_M) * PUB_LEN);
		assert_non_null(p->mem);
		for (int j = 0; j < PUB_K + PUB_M; j++) {
			uint8_t *b = p->mem + (size_t)j * PUB_LEN;

			if (j < PUB_K) {
				test_fill(b, PUB_LEN);
				p->data[j] = b;
			} else {
				memset(b, TEST_POISON, PUB_LEN);
				p->parity[j - PUB_K] = b;
			}
		}
		p->req = (struct gfec_request){ .op = GFEC_OP_ENCODE, .nstripes = 1,
						.len = PUB_LEN,
						.in = (const uint8_t *const *)p->data,
						.out = p->parity };
	}
	/* refused: a decode, a bad window, no stripes */
	ps[0].req.op = GFEC_OP_DECODE;
	assert_int_equal(gfec_submit_coalesced(c, &ps[0].req, 100, 8), GFEC_E_INVAL);
	ps[0].req.op = GFEC_OP_ENCODE;
	assert_int_equal(gfec_submit_coalesced(c, &ps[0].req, 0, 8), GFEC_E_INVAL);
	assert_int_equal(gfec_submit_coalesced(c, &ps[0].req, 100, 0), GFEC_E_INVAL);
	ps[0].req.nstripes = 0;
	assert_int_equal(gfec_submit_coalesced(c, &ps[0].req, 100, 8), GFEC_E_INVAL);
	ps[0].req.nstripes = 1;
	assert_int_equal(gfec_cancel(c, &ps[0].req), GFEC_E_INVAL); /* never queued */

	/* one withdrawn from a 10 s window, which then fills */
	assert_int_equal(gfec_submit_coalesced(c, &ps[0].req, 10000000 / 10, PER), 0);
	assert_int_equal(gfec_cancel(c, &ps[0].req), 0);
	assert_int_equal(gfec_wait(c, &ps[0].req), GFEC_E_INVAL);
	for (int i = 0; i < TOTAL; i++)
		assert_int_equal(gfec_submit_coalesced(c, &ps[i].req, 1000000, PER), 0);
	for (int i = 0; i < PUB_M; i++)
		want[i] = malloc(PUB_LEN);
	for (int i = 0; i < TOTAL; i++) {
		assert_int_equal(gfec_wait(c, &ps[i].req), 0);
		assert_int_equal(gfec_encode(c, (const uint8_t *const *)ps[i].data, want, PUB_LEN),
				 0);
		for (int j = 0; j < PUB_M; j++)
			assert_memory_equal(ps[i].parity[j], want[j], PUB_LEN);
		free(ps[i].mem);
	}
	gfec_codec_window_stats(c, &ws);
	gfec_codec_stats(c, &st);
	fprintf(stderr, "# public: %d stripes in %llu windows (%llu full)\n", TOTAL,
		(unsigned long long)ws.windows, (unsigned long long)ws.full);
	assert_int_equal(ws.stripes, TOTAL);
	assert_int_equal(ws.requests, TOTAL);
	assert_int_equal(ws.cancelled, 1);
	assert_int_equal(ws.windows, TOTAL / PER); /* submitted faster than a second passes */
	assert_int_equal(ws.full, TOTAL / PER);
	assert_int_equal(st.encodes, 2 * TOTAL);
	for (int i = 0; i < PUB_M; i++)
		free(want[i]);
	free(ps);
	gfec_codec_free(c);
}

/*
 * Threads that each submit @p per RS(10,4) stripes of 4 KiB or 64 KiB with
 * gfec_submit_coalesced() to @p c (windows of 64 stripes or 20 ms), wait for them, and check
 * each against gfec_encode on @p ref.
 */
#define QC_K 10
#define QC_M 4

struct qc_thread {
	pthread_t t;
	gfec_codec *c, *ref;
	int per, bad;
	uint64_t rng;
};

static void *qc_main(void *arg)
{
	struct qc_thread *t = arg;
	struct gfec_request *req = calloc((size_t)t->per, sizeof(*req));
	uint8_t **ptr = calloc((size_t)t->per * (QC_K + 2 * QC_M), sizeof(*ptr));
	uint8_t *mem = NULL;
	const size_t len = t->rng % 2 ? 65536 : 4096;
	int ret;

	if (!req || !ptr || !(mem = malloc((size_t)t->per * (QC_K + 2 * QC_M) * len))) {
		t->bad++;
		goto out;
	}
	for (int i = 0; i < t->per * (QC_K + 2 * QC_M); i++) {
		ptr[i] = mem + (size_t)i * len;
		if (i % (QC_K + 2 * QC_M) < QC_K)
			for (size_t b = 0; b < len; b++)
				ptr[i][b] = (uint8_t)((t->rng = t->rng * 6364136223846793005ull + 1) >> 33);
		else
			memset(ptr[i], TEST_POISON, len);
	}
	for (int i = 0; i < t->per; i++) {
		uint8_t **s = ptr + (size_t)i * (QC_K + 2 * QC_M);

		req[i] = (struct gfec_request){ .op = GFEC_OP_ENCODE, .nstripes = 1, .len = len,
						.in = (const uint8_t *const *)s, .out = s + QC_K };
		t->bad += gfec_submit_coalesced(t->c, &req[i], 20000, 64) != 0;
	}
	for (int i = 0; i < t->per && !t->bad; i++) {
		uint8_t **s = ptr + (size_t)i * (QC_K + 2 * QC_M);

		ret = gfec_wait(t->c, &req[i]);
		ret = ret ? ret : gfec_encode(t->ref, (const uint8_t *const *)s, s + QC_K + QC_M, len);
		t->bad += ret != 0;
		for (int j = 0; j < QC_M && !ret; j++)
			t->bad += memcmp(s[QC_K + j], s[QC_K + QC_M + j], len) != 0;
	}
out:
	free(mem);
	free(ptr);
	free(req);
	return NULL;
}

/* @p nthreads x @p per stripes on @p c, checked with @p ref; then its window counters. */
static void queued_codec_run(gfec_codec *c, gfec_codec *ref, int nthreads, int per,
			     struct gfec_window_stats *ws)
{
	struct qc_thread *t = calloc((size_t)nthreads, sizeof(*t));
	struct timespec until;

	assert_non_null(t);
	for (int i = 0; i < nthreads; i++) {
		t[i] = (struct qc_thread){ .c = c, .ref = ref, .per = per, .rng = test_rand() | 1 };
		assert_int_equal(pthread_create(&t[i].t, NULL, qc_main, &t[i]), 0);
	}
	until = watchdog_until();
	for (int i = 0; i < nthreads; i++) {
		join_or_exit(t[i].t, &until, "submitter", i, nthreads);
		if (t[i].bad)
			fail_msg("submitter %d of %d: %d bad stripes", i, nthreads, t[i].bad);
	}
	free(t);
	gfec_codec_window_stats(c, ws);
	assert_int_equal(ws->stripes, (uint64_t)nthreads * per);
	assert_int_equal(ws->requests, (uint64_t)nthreads * per);
}

/* The same on a CPU codec (CI): 16 submitters; their 128 stripes share few windows. */
static void test_queued_codec_cpu(void **state)
{
	gfec_codec *c = codec("k=10 m=4 backend=cpu threads=1");
	gfec_codec *ref = codec("k=10 m=4 backend=cpu threads=1 cpu_path=base");
	struct gfec_window_stats ws;

	(void)state;
	assert_non_null(c);
	assert_non_null(ref);
	queued_codec_run(c, ref, 16, 8, &ws);
	assert_true(ws.windows * 4 <= 16 * 8);
	gfec_codec_free(c);
	gfec_codec_free(ref);
}

/* ---- the fair gate ------------------------------------------------------------------------- */

#define GATE_CALLERS 64
#define GATE_CALLS 12

struct gcaller {
	pthread_t t;
	struct rig *r;
	double *lat; /* GATE_CALLS per-call latencies, seconds */
	uint64_t
	    rng; /* seeded by the main thread: test_rand's state is not the callers' to share */
	int bad;
};

static void *gcaller_main(void *arg)
{
	struct gcaller *g = arg;
	struct worker w = {.r = g->r, .rng = g->rng};

	for (int i = 0; i < GATE_CALLS; i++) {
		const double t = test_now_s();

		gemm_at(&w, 0, 1, 512);
		g->lat[i] = test_now_s() - t;
	}
	g->bad = w.bad;
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* 64 callers of 12 one-stripe calls behind a GPU of 300 us a call: the latencies, sorted. */
static void gate_run(int gated, double *lat)
{
	const struct fake_gpu_switches slow = { .delay_us = 300 };
	struct gcaller g[GATE_CALLERS];
	struct rig r;

	rig_init(&r, 0, 0);
	if (gated)
		assert_int_equal(gfec_engine_gate(&r.e, 1), 0);
	fake_gpu_set(r.e.gpu_ctx, &slow);
	for (int i = 0; i < GATE_CALLERS; i++) {
		g[i] = (struct gcaller){
		    .r = &r, .lat = lat + (size_t)i * GATE_CALLS, .rng = test_rand() | 1};
		assert_int_equal(pthread_create(&g[i].t, NULL, gcaller_main, &g[i]), 0);
	}
	for (int i = 0; i < GATE_CALLERS; i++) {
		pthread_join(g[i].t, NULL);
		assert_int_equal(g[i].bad, 0);
	}
	rig_fini(&r);
	qsort(lat, GATE_CALLERS * GATE_CALLS, sizeof(*lat), cmp_double);
}

/*
 * The per-call P99 of 64 callers with and without the gate (printed, not asserted: timing on a
 * shared VM), and every call's output right either way.
 */
static void test_gate(void **state)
{
	double *off = calloc(GATE_CALLERS * GATE_CALLS, sizeof(double));
	double *on = calloc(GATE_CALLERS * GATE_CALLS, sizeof(double));
	const int n = GATE_CALLERS * GATE_CALLS;

	(void)state;
	assert_non_null(off);
	assert_non_null(on);
	gate_run(0, off);
	gate_run(1, on);
	fprintf(stderr, "# gate, %d callers x %d calls, GPU 300 us a call: P50 %.1f / P99 %.1f / "
			"max %.1f ms without the gate, %.1f / %.1f / %.1f ms with it\n",
		GATE_CALLERS, GATE_CALLS, 1e3 * off[n / 2], 1e3 * off[n * 99 / 100],
		1e3 * off[n - 1], 1e3 * on[n / 2], 1e3 * on[n * 99 / 100], 1e3 * on[n - 1]);
	free(off);
	free(on);
}

static gfec_codec *codec(const char *profile)
{
	char err[256];
	gfec_codec *c;

	if (gfec_codec_create(profile, &c, err, sizeof(err))) {
		fprintf(stderr, "# %s: %s\n", profile, err);
		return NULL;
	}
	return c;
}

/*
 * 16 threads on one backend=gpu codec with 20 ms windows: every output right, fewer launches
 * than GPU calls, windows of several callers, no fallback.
 */
static void test_gpu_windows(void **state)
{
	gfec_codec *gpu = codec("k=10 m=4 backend=gpu gpu_coalesce_us=20000");
	gfec_codec *cpu = codec("k=10 m=4 backend=cpu");
	struct gfec_coalesce_stats cs;
	struct gfec_stats st;

	(void)state;
	assert_non_null(gpu);
	assert_non_null(cpu);
	run_codec_workers(gpu, cpu, 16, 24);
	gfec_codec_stats(gpu, &st);
	assert_int_equal(gfec_codec_coalesce_stats(gpu, &cs), 1);
	fprintf(stderr, "# GPU: %llu calls in %llu launches (%llu windows), %.1f stripes per "
			"launch\n",
		(unsigned long long)cs.callers, (unsigned long long)cs.launches,
		(unsigned long long)cs.windows, (double)cs.stripes / (double)cs.launches);
	assert_int_equal(st.fallbacks, 0);
	assert_int_equal(st.gpu_calls, 16 * 24 * 2);
	assert_int_equal(cs.callers, 16 * 24 * 2);
	assert_true(cs.launches < cs.callers && cs.windows > 0);
	gfec_codec_free(gpu);
	gfec_codec_free(cpu);
}

/* Every GPU call fails (GFEC_FAULT=cuda): 16 threads, every output right, each call a fallback. */
static void test_gpu_fault(void **state)
{
	gfec_codec *gpu, *cpu = codec("k=10 m=4 backend=cpu");
	struct gfec_stats st;

	(void)state;
	setenv("GFEC_FAULT", "cuda", 1);
	gpu = codec("k=10 m=4 backend=gpu gpu_coalesce_us=20000");
	unsetenv("GFEC_FAULT");
	assert_non_null(gpu);
	assert_non_null(cpu);
	run_codec_workers(gpu, cpu, 16, 8);
	gfec_codec_stats(gpu, &st);
	assert_int_equal(st.fallbacks, 16 * 8 * 2);
	assert_int_equal(st.gpu_calls, 0);
	gfec_codec_free(gpu);
	gfec_codec_free(cpu);
}

/*
 * Queued requests on a backend=gpu codec: 64 submitters of 8 stripes each, every window one
 * launch on the GPU; then with every GPU call failing (GFEC_FAULT=cuda): every stripe right
 * through the CPU redo, one fallback per window, none lost or hung.
 */
static void test_gpu_queued(void **state)
{
	gfec_codec *gpu = codec("k=10 m=4 backend=gpu"), *cpu = codec("k=10 m=4 backend=cpu");
	struct gfec_window_stats ws;
	struct gfec_stats st;

	(void)state;
	assert_non_null(gpu);
	assert_non_null(cpu);
	queued_codec_run(gpu, cpu, 64, 8, &ws);
	gfec_codec_stats(gpu, &st);
	fprintf(stderr, "# GPU, queued: 512 stripes in %llu windows (%llu full)\n",
		(unsigned long long)ws.windows, (unsigned long long)ws.full);
	assert_int_equal(st.fallbacks, 0);
	assert_int_equal(st.gpu_calls, ws.windows);
	assert_true(ws.windows < 512);
	gfec_codec_free(gpu);

	setenv("GFEC_FAULT", "cuda", 1);
	gpu = codec("k=10 m=4 backend=gpu");
	unsetenv("GFEC_FAULT");
	assert_non_null(gpu);
	queued_codec_run(gpu, cpu, 64, 8, &ws);
	gfec_codec_stats(gpu, &st);
	assert_int_equal(st.fallbacks, ws.windows);
	assert_int_equal(st.gpu_calls, 0);
	gfec_codec_free(gpu);
	gfec_codec_free(cpu);
}

static int gpu_main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_windows),
		cmocka_unit_test(test_gpu_fault),
		cmocka_unit_test(test_gpu_queued),
	};
	gfec_codec *probe = codec("k=10 m=4 backend=gpu");

	if (!probe) {
		fprintf(stderr, "# no usable GPU: skipped\n");
		return 77;
	}
	gfec_codec_free(probe);
	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_one_shape),
		cmocka_unit_test(test_fault_every),
		cmocka_unit_test(test_fault_nth),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_slots_fault),
		cmocka_unit_test(test_alloc_failure),
		cmocka_unit_test(test_queued),
		cmocka_unit_test(test_queued_fault),
		cmocka_unit_test(test_queued_cancel),
		cmocka_unit_test(test_queued_no_worker_held),
		cmocka_unit_test(test_public),
		cmocka_unit_test(test_queued_codec_cpu),
		cmocka_unit_test(test_gate),
	};

	if (argc > 1 && strcmp(argv[1], "gpu") == 0)
		return gpu_main();
	test_seed();
	gfec_gf8_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
