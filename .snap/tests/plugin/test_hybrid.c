/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file test_hybrid.c
 * backend=hybrid (plugin/hybrid.c) on any host: engines built by hand with the CPU backend and
 * the fake GPU (fake_gpu.h), wrapped here to pace either side at a chosen rate, to call some
 * buffers device memory and to record what the GPU share was given. The reference is the CPU
 * backend alone on the same matrix; outputs are poisoned before every call.
 */
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
#include "gfec/gfec.h"
#include "gfec/gfec_config.h"
#include "hybrid.h"
#include "test_util.h"

#define MAXS 3	/* stripes per call */
#define MAXC 12 /* cols */
#define MAXR 6	/* rows */
#define NEVER (~0ull)

/* ---- the wrappers: pacing, device buffers, what the GPU was given -------------------------- */

static struct {
	pthread_mutex_t lock;
	double gpu_rate, cpu_rate;	/* bytes/s each side is paced to (0: not paced) */
	int cols;			/* the paced calls' cols (the plans are opaque) */
	const uint8_t *dev_lo, *dev_hi; /* "device memory" */
	size_t last_len;		/* the last GPU gemm call */
	int last_nstripes;
	const uint8_t *last_src0;
} w = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct gfec_backend_ops gpu_ops, cpu_ops;

static void pace(double rate, int nstripes, size_t len)
{
	double s;
	struct timespec ts;

	if (rate <= 0)
		return;
	s = (double)len * w.cols * nstripes / rate;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0)
		;
}

static int gpu_gemm(void *ctx, const void *plan, int nstripes, size_t len,
		    const uint8_t *const *src, uint8_t *const *dst)
{
	pthread_mutex_lock(&w.lock);
	w.last_len = len;
	w.last_nstripes = nstripes;
	w.last_src0 = src[0];
	pthread_mutex_unlock(&w.lock);
	pace(w.gpu_rate, nstripes, len);
	return fake_gpu_ops()->gemm(ctx, plan, nstripes, len, src, dst);
}

static int gpu_is_device(void *ctx, const void *p)
{
	(void)ctx;
	return w.dev_lo && (const uint8_t *)p >= w.dev_lo && (const uint8_t *)p < w.dev_hi;
}

static int cpu_gemm(void *ctx, const void *plan, int nstripes, size_t len,
		    const uint8_t *const *src, uint8_t *const *dst)
{
	pace(w.cpu_rate, nstripes, len);
	return gfec_cpu_backend()->gemm(ctx, plan, nstripes, len, src, dst);
}

/* An engine of the (wrapped) CPU backend and the (wrapped) fake GPU, with a hybrid. */
static void rig_init(struct gfec_engine *e, const struct gfec_hybrid_conf *hc)
{
	const struct gfec_backend_conf cc = {.threads = 2};

	gpu_ops = *fake_gpu_ops();
	gpu_ops.gemm = gpu_gemm;
	gpu_ops.is_device_ptr = gpu_is_device;
	cpu_ops = *gfec_cpu_backend();
	cpu_ops.gemm = cpu_gemm;
	memset(e, 0, sizeof(*e));
	e->cpu_ops = &cpu_ops;
	e->gpu_ops = &gpu_ops;
	e->gpu_min_bytes = NEVER; /* calls the hybrid leaves go to the CPU */
	assert_int_equal(cpu_ops.init(&cc, &e->cpu_ctx), 0);
	assert_int_equal(gpu_ops.init(NULL, &e->gpu_ctx), 0);
	assert_int_equal(gfec_hybrid_create(hc, &e->hybrid), 0);
}

static struct gfec_hybrid_conf conf(uint64_t min_bytes, int alpha_pct)
{
	return (struct gfec_hybrid_conf){
	    .min_bytes = min_bytes, .alpha_pct = alpha_pct, .ewma_pct = 25, .threads = 4};
}

/* ---- one call's buffers and the CPU backend's reference ------------------------------------ */

struct call {
	unsigned wbits;
	int rows, cols, nstripes;
	size_t len, packetsize;
	uint8_t a[MAXR * MAXC * 2];
	struct test_buf in[MAXS * MAXC], out[MAXS * MAXR];
	const uint8_t *src[MAXS * MAXC];
	uint8_t *dst[MAXS * MAXR];
	uint8_t *ref[MAXS * MAXR];
};

static struct gfec_gemm_matrix matrix(const struct call *c)
{
	return (struct gfec_gemm_matrix){.w = c->wbits,
					 .rows = c->rows,
					 .cols = c->cols,
					 .a = c->a,
					 .packetsize = c->packetsize};
}

/* layout 0: bytes at w = 8; 1: w = 16; 2: CRS packets. */
static void call_init(struct call *c, int layout, int nstripes, size_t len_hint)
{
	memset(c, 0, sizeof(*c));
	c->wbits = layout == 1 ? 16 : 8;
	c->rows = test_range(1, MAXR);
	c->cols = test_range(2, MAXC);
	c->nstripes = nstripes;
	if (layout == 2) {
		c->packetsize = 8 * (size_t)test_range(1, 32);
		c->len = 8 * c->packetsize * (len_hint / (8 * c->packetsize) + 1);
	} else {
		c->len = len_hint + (layout == 1 && len_hint % 2);
	}
	test_fill(c->a, sizeof(c->a));
	for (int i = 0; i < nstripes * c->cols; i++) {
		uint8_t *p = tbuf_alloc(&c->in[i], c->len, (unsigned)test_range(0, 63));

		test_fill(p, c->len);
		c->src[i] = p;
	}
	for (int i = 0; i < nstripes * c->rows; i++)
		c->dst[i] = tbuf_alloc(&c->out[i], c->len, (unsigned)test_range(0, 63));
}

/* The CPU backend alone (unpaced, its own context) into c->ref. */
static void call_reference(struct call *c)
{
	const struct gfec_backend_ops *ops = gfec_cpu_backend();
	const struct gfec_backend_conf cc = {.threads = 1};
	const struct gfec_gemm_matrix a = matrix(c);
	void *ctx, *plan;

	assert_int_equal(ops->init(&cc, &ctx), 0);
	assert_int_equal(ops->plan_create(ctx, &a, &plan), 0);
	for (int i = 0; i < c->nstripes * c->rows; i++) {
		c->ref[i] = malloc(c->len);
		assert_non_null(c->ref[i]);
	}
	assert_int_equal(ops->gemm(ctx, plan, c->nstripes, c->len, c->src, c->ref), 0);
	ops->plan_free(ctx, plan);
	ops->fini(ctx);
}

static void call_poison(struct call *c)
{
	for (int i = 0; i < c->nstripes * c->rows; i++)
		memset(c->dst[i], TEST_POISON, c->len);
}

static void call_check(const struct call *c)
{
	for (int i = 0; i < c->nstripes * c->rows; i++)
		if (memcmp(c->dst[i], c->ref[i], c->len) != 0)
			fail_msg("w=%u P=%zu rows=%d cols=%d stripes=%d len=%zu: output %d differs",
				 c->wbits, c->packetsize, c->rows, c->cols, c->nstripes, c->len, i);
}

static void call_free(struct call *c)
{
	for (int i = 0; i < c->nstripes * c->cols; i++)
		tbuf_free(&c->in[i]);
	for (int i = 0; i < c->nstripes * c->rows; i++) {
		tbuf_free(&c->out[i]);
		free(c->ref[i]);
	}
}

static uint64_t data_bytes(const struct call *c)
{
	return (uint64_t)c->len * (uint64_t)c->cols * (uint64_t)c->nstripes;
}

/* ---- the tests ------------------------------------------------------------------------------- */

/* The split arithmetic: granules, cuts on them, stripes rounded to nearest. */
static void test_arithmetic(void **state)
{
	(void)state;
	assert_int_equal(gfec_hybrid_unit(8, 0), 64);
	assert_int_equal(gfec_hybrid_unit(16, 0), 64);
	assert_int_equal(gfec_hybrid_unit(8, 8), 64);
	assert_int_equal(gfec_hybrid_unit(8, 24), 192);
	assert_int_equal(gfec_hybrid_unit(8, 2048), 16384);
	for (int i = 0; i < 20000; i++) {
		const size_t p = 8 * (size_t)test_range(0, 40);
		const size_t unit = gfec_hybrid_unit(8, p);
		const size_t len = (size_t)test_rand() % (1u << 24);
		const double alpha = (double)test_range(0, 1000) / 1000;
		const size_t cut = gfec_hybrid_cut(len, alpha, unit);
		const int ns = test_range(2, 100), g = gfec_hybrid_stripes(ns, alpha);

		assert_true(unit % 64 == 0 && (!p || unit % (8 * p) == 0));
		assert_true(cut <= len);
		assert_true(cut % unit == 0 || cut == len);
		/* within one granule of alpha x len */
		assert_true((double)cut >= alpha * (double)len - (double)unit);
		assert_true((double)cut <= alpha * (double)len + (double)unit);
		assert_true(g >= 0 && g <= ns && g - alpha * ns <= 0.5 && alpha * ns - g <= 0.5);
	}
	assert_int_equal(gfec_hybrid_cut(1000, 0, 64), 0);
	assert_int_equal(gfec_hybrid_cut(1000, 1, 64), 1000);
	assert_int_equal(gfec_hybrid_stripes(7, 0), 0);
	assert_int_equal(gfec_hybrid_stripes(7, 1), 7);
}

/*
 * Random shapes, lengths, alignments and layouts at random fixed shares and adapting: the
 * output is the CPU backend's, and the GPU's share is exactly the expected cut (a whole number
 * of granules, at offset 0) or the expected stripes.
 */
static void test_random(void **state)
{
	struct gfec_engine e;
	struct gfec_hybrid_conf hc;
	(void)state;

	for (int iter = 0; iter < 45; iter++) {
		const int layout = iter % 3, ns = test_range(0, 1) ? 1 : test_range(2, MAXS);
		const int alpha_pct = test_range(0, 3) ? test_range(0, 100) : -1;
		struct gfec_hybrid_counters before, after;
		struct fake_gpu_counts g0, g1;
		struct gfec_eplan plan;
		struct gfec_gemm_matrix a;
		struct call *c = malloc(sizeof(*c));
		double alpha;

		assert_non_null(c);
		call_init(c, layout, ns, (size_t)test_range(1, 70000));
		call_reference(c);
		hc = conf(0, alpha_pct);
		rig_init(&e, &hc);
		a = matrix(c);
		assert_int_equal(gfec_engine_plan_create(&e, &a, &plan), 0);
		for (int rep = 0; rep < 3; rep++) {
			alpha = gfec_hybrid_alpha(e.hybrid);
			gfec_hybrid_counters(e.hybrid, &before);
			fake_gpu_counts(e.gpu_ctx, &g0);
			call_poison(c);
			assert_int_equal(
			    gfec_engine_gemm(&e, &plan, c->cols, ns, c->len, c->src, c->dst), 0);
			call_check(c);
			gfec_hybrid_counters(e.hybrid, &after);
			fake_gpu_counts(e.gpu_ctx, &g1);
			assert_int_equal(after.gpu_bytes + after.cpu_bytes - before.gpu_bytes -
					     before.cpu_bytes,
					 data_bytes(c));
			if (g1.calls == g0.calls) { /* all on the CPU */
				assert_int_equal(after.gpu_bytes, before.gpu_bytes);
				continue;
			}
			assert_ptr_equal(w.last_src0, c->src[0]);
			if (ns == 1) {
				const size_t unit = gfec_hybrid_unit(c->wbits, c->packetsize);

				assert_int_equal(w.last_len, gfec_hybrid_cut(c->len, alpha, unit));
				assert_true(w.last_len % unit == 0 || w.last_len == c->len);
				if (c->packetsize)
					assert_int_equal(w.last_len % (8 * c->packetsize), 0);
			} else {
				assert_int_equal(w.last_len, c->len);
				assert_int_equal(w.last_nstripes, gfec_hybrid_stripes(ns, alpha));
			}
			assert_int_equal(after.gpu_bytes - before.gpu_bytes,
					 (uint64_t)w.last_len * c->cols * w.last_nstripes);
		}
		gfec_engine_plan_free(&e, &plan);
		gfec_engine_fini(&e);
		call_free(c);
		free(c);
	}
}

/*
 * Updates split by byte ranges: random layouts, lengths, alignments and shares, the GPU failing
 * on some: every output is the CPU backend's update of the same parity, the GPU's share exactly
 * the expected cut, each failure finished on the CPU and counted.
 */
static void test_update(void **state)
{
	struct gfec_engine e;
	(void)state;

	for (int iter = 0; iter < 30; iter++) {
		const int layout = iter % 3, alpha_pct = test_range(0, 100), fail = iter % 4 == 3;
		struct fake_gpu_switches sw = {.fail_all = fail};
		struct gfec_hybrid_conf hc = conf(0, alpha_pct);
		const struct gfec_backend_ops *cpu = gfec_cpu_backend();
		struct gfec_hybrid_counters n;
		struct fake_gpu_counts g;
		struct gfec_eplan plan;
		struct gfec_gemm_matrix a;
		struct call *c = malloc(sizeof(*c));
		size_t unit, cut, done = 0;
		int col;

		assert_non_null(c);
		call_init(c, layout, 1, (size_t)test_range(1, 70000));
		col = test_range(0, c->cols - 1);
		for (int i = 0; i < c->rows; i++) { /* the parity before: random, as ref's */
			c->ref[i] = malloc(c->len);
			assert_non_null(c->ref[i]);
			test_fill(c->dst[i], c->len);
			memcpy(c->ref[i], c->dst[i], c->len);
		}
		rig_init(&e, &hc);
		fake_gpu_set(e.gpu_ctx, &sw);
		a = matrix(c);
		assert_int_equal(gfec_engine_plan_create(&e, &a, &plan), 0);
		assert_int_equal(
		    cpu->update(e.cpu_ctx, plan.cpu, col, c->len, c->src[0], c->ref, &done), 0);
		assert_int_equal(
		    gfec_engine_update(&e, &plan, c->rows, col, c->len, c->src[0], c->dst), 0);
		call_check(c);
		unit = gfec_hybrid_unit(c->wbits, c->packetsize);
		cut = gfec_hybrid_cut(c->len, alpha_pct / 100.0, unit);
		gfec_hybrid_counters(e.hybrid, &n);
		fake_gpu_counts(e.gpu_ctx, &g);
		assert_int_equal(g.updates, cut > 0);
		assert_int_equal(g.bytes_in, cut);
		assert_int_equal(n.gpu_bytes, cut);
		assert_int_equal(n.cpu_bytes, c->len - cut);
		assert_int_equal(n.fallbacks, fail && cut > 0);
		assert_int_equal(e.fallbacks, n.fallbacks);
		gfec_engine_plan_free(&e, &plan);
		gfec_engine_fini(&e);
		call_free(c);
		free(c);
	}
}

/* Calls below min_bytes and calls on device memory are left to the engine's usual dispatch. */
static void test_not_split(void **state)
{
	struct gfec_hybrid_conf hc = conf(1u << 20, 50);
	struct gfec_hybrid_counters n;
	struct fake_gpu_counts g;
	struct gfec_engine e;
	struct gfec_eplan plan;
	struct gfec_gemm_matrix a;
	struct call *c = malloc(sizeof(*c));
	(void)state;

	assert_non_null(c);
	call_init(c, 0, 1, 20000);
	call_reference(c);
	rig_init(&e, &hc);
	a = matrix(c);
	assert_int_equal(gfec_engine_plan_create(&e, &a, &plan), 0);
	call_poison(c);
	assert_true(data_bytes(c) < (1u << 20));
	assert_int_equal(gfec_engine_gemm(&e, &plan, c->cols, 1, c->len, c->src, c->dst), 0);
	call_check(c);
	gfec_hybrid_counters(e.hybrid, &n);
	fake_gpu_counts(e.gpu_ctx, &g);
	assert_int_equal(n.splits + n.gpu_bytes + n.cpu_bytes, 0);
	assert_int_equal(g.calls, 0); /* gpu_min_bytes = never: the CPU ran it */

	/* the same call with its outputs in "device memory": whole, on the GPU */
	w.dev_lo = c->out[0].base;
	w.dev_hi = c->out[0].base + c->len + 128;
	call_poison(c);
	assert_int_equal(gfec_engine_gemm(&e, &plan, c->cols, 1, c->len, c->src, c->dst), 0);
	call_check(c);
	gfec_hybrid_counters(e.hybrid, &n);
	fake_gpu_counts(e.gpu_ctx, &g);
	assert_int_equal(n.splits, 0);
	assert_int_equal(g.calls, 1);
	assert_int_equal(w.last_len, c->len);
	w.dev_lo = w.dev_hi = NULL;
	gfec_engine_plan_free(&e, &plan);
	gfec_engine_fini(&e);
	call_free(c);
	free(c);
}

/*
 * Both sides paced at known rates: alpha goes to R_gpu / (R_gpu + R_cpu) from a first 50/50
 * call, and follows when the rates swap (the GPU slowed to a third of the CPU, then the reverse).
 */
static void test_converge(void **state)
{
	struct gfec_hybrid_conf hc = conf(0, -1);
	struct gfec_engine e;
	struct gfec_eplan plan;
	struct gfec_gemm_matrix a;
	struct call *c = malloc(sizeof(*c));
	const double slow = 0.5e6, fast = 1.5e6; /* bytes/s: the sleeps dominate the work */
	double cpu, gpu, alpha;
	(void)state;

	assert_non_null(c);
	do { /* 4 x 2: little work besides the sleeps */
		call_init(c, 0, 1, 8192);
		if (c->cols != 4 || c->rows != 2)
			call_free(c);
	} while (c->cols != 4 || c->rows != 2);
	call_reference(c);
	rig_init(&e, &hc);
	a = matrix(c);
	assert_int_equal(gfec_engine_plan_create(&e, &a, &plan), 0);
	w.cols = c->cols;
	assert_true(gfec_hybrid_alpha(e.hybrid) == 0.5); /* nothing measured */
	for (int phase = 0; phase < 2; phase++) {
		const double want = phase ? 0.75 : 0.25;

		w.gpu_rate = phase ? fast : slow;
		w.cpu_rate = phase ? slow : fast;
		for (int i = 0; i < 30; i++) {
			call_poison(c);
			assert_int_equal(
			    gfec_engine_gemm(&e, &plan, c->cols, 1, c->len, c->src, c->dst), 0);
			call_check(c);
		}
		alpha = gfec_hybrid_alpha(e.hybrid);
		gfec_hybrid_rates(e.hybrid, &cpu, &gpu);
		print_message("phase %d: alpha %.3f (want %.2f), CPU %.2f MB/s, GPU %.2f MB/s\n",
			      phase, alpha, want, cpu / 1e6, gpu / 1e6);
		assert_true(alpha > want - 0.08 && alpha < want + 0.08);
	}
	w.gpu_rate = w.cpu_rate = 0;
	gfec_engine_plan_free(&e, &plan);
	gfec_engine_fini(&e);

	/* rates from gfec.conf start the split where they say, without a 50/50 call */
	hc.cpu_rate = 3e9;
	hc.gpu_rate = 1e9;
	assert_int_equal(gfec_hybrid_create(&hc, &e.hybrid), 0);
	assert_true(gfec_hybrid_alpha(e.hybrid) == 0.25);
	gfec_hybrid_destroy(e.hybrid);
	call_free(c);
	free(c);
}

/*
 * A GPU the rates starve (paced 10^4 times slower than the CPU): its cut rounds to nothing, but
 * every GFEC_HYBRID_PROBE-th call still gives it 1/GFEC_HYBRID_PROBE of the call, so that its
 * rate is measured again; the output stays the CPU's.
 */
static void test_probe(void **state)
{
	struct gfec_hybrid_conf hc = conf(0, -1);
	const int ncalls = 2 * GFEC_HYBRID_PROBE + 2;
	struct gfec_hybrid_counters n;
	struct fake_gpu_counts g;
	struct gfec_engine e;
	struct gfec_eplan plan;
	struct gfec_gemm_matrix a;
	struct call *c = malloc(sizeof(*c));
	(void)state;

	assert_non_null(c);
	do { /* 4 data chunks of 16 KiB: a cut of alpha x 16 KiB under 32 bytes is none */
		call_init(c, 0, 1, 16384);
		if (c->cols != 4)
			call_free(c);
	} while (c->cols != 4);
	call_reference(c);
	hc.cpu_rate = 1e9;
	hc.gpu_rate = 1e5;
	rig_init(&e, &hc);
	a = matrix(c);
	assert_int_equal(gfec_engine_plan_create(&e, &a, &plan), 0);
	w.cols = c->cols;
	w.gpu_rate = 1e5; /* the GPU's probes keep it looking this slow */
	for (int i = 0; i < ncalls; i++) {
		call_poison(c);
		assert_int_equal(gfec_engine_gemm(&e, &plan, c->cols, 1, c->len, c->src, c->dst),
				 0);
		call_check(c);
	}
	w.gpu_rate = 0;
	gfec_hybrid_counters(e.hybrid, &n);
	fake_gpu_counts(e.gpu_ctx, &g);
	assert_int_equal(n.calls, ncalls);
	assert_true(gfec_hybrid_alpha(e.hybrid) < 1e-3);
	assert_int_equal(g.calls, 3); /* calls 0, 64 and 128 */
	assert_int_equal(n.splits, 3);
	gfec_engine_plan_free(&e, &plan);
	gfec_engine_fini(&e);
	call_free(c);
	free(c);
}

/* A failing GPU: every split call still gives the CPU's bytes, and each failure is counted. */
static void test_faults(void **state)
{
	struct gfec_hybrid_conf hc = conf(0, 60);
	struct gfec_hybrid_counters n;
	struct gfec_engine e;
	struct gfec_eplan plan;
	struct gfec_gemm_matrix a;
	(void)state;

	for (int mode = 0; mode < 2; mode++) {
		struct fake_gpu_switches sw = {
		    .fail_all = !mode, .fail_nth = mode ? 2 : 0, .fail_code = GFEC_E_DEVICE};
		struct call *c = malloc(sizeof(*c));
		const int ns = mode ? 3 : 1;

		assert_non_null(c);
		call_init(c, mode, ns, (size_t)test_range(4096, 90000));
		call_reference(c);
		rig_init(&e, &hc);
		fake_gpu_set(e.gpu_ctx, &sw);
		a = matrix(c);
		assert_int_equal(gfec_engine_plan_create(&e, &a, &plan), 0);
		for (int i = 0; i < 4; i++) {
			call_poison(c);
			assert_int_equal(
			    gfec_engine_gemm(&e, &plan, c->cols, ns, c->len, c->src, c->dst), 0);
			call_check(c);
		}
		gfec_hybrid_counters(e.hybrid, &n);
		assert_int_equal(n.splits, 4);
		assert_int_equal(n.fallbacks, mode ? 1 : 4);
		assert_int_equal(e.fallbacks, n.fallbacks);
		assert_int_equal(e.gpu_calls, 4 - n.fallbacks);
		gfec_engine_plan_free(&e, &plan);
		gfec_engine_fini(&e);
		call_free(c);
		free(c);
	}
}

/* 16 callers on one engine, each on its own buffers, adapting, the GPU failing now and then. */
#define CALLERS 16
#define CALLS 6

struct caller {
	struct gfec_engine *e;
	const struct gfec_eplan *plan;
	struct call *c;
	int ret;
};

static void *caller_main(void *arg)
{
	struct caller *k = arg;

	for (int i = 0; i < CALLS && !k->ret; i++) {
		call_poison(k->c);
		k->ret = gfec_engine_gemm(k->e, k->plan, k->c->cols, k->c->nstripes, k->c->len,
					  k->c->src, k->c->dst);
		for (int j = 0; j < k->c->nstripes * k->c->rows && !k->ret; j++)
			if (memcmp(k->c->dst[j], k->c->ref[j], k->c->len) != 0)
				k->ret = -1000 - j;
	}
	return NULL;
}

static void test_concurrent(void **state)
{
	struct gfec_hybrid_conf hc = conf(0, -1);
	struct fake_gpu_switches sw = {.fail_nth = 7};
	struct gfec_hybrid_counters n;
	struct fake_gpu_counts g;
	struct caller k[CALLERS];
	pthread_t t[CALLERS];
	struct gfec_engine e;
	struct gfec_eplan plan;
	struct gfec_gemm_matrix a;
	struct call *c = calloc(CALLERS, sizeof(*c));
	(void)state;

	assert_non_null(c);
	hc.threads = 3; /* fewer helpers than callers: some run both shares in turn */
	call_init(&c[0], 0, 1, 50000);
	for (int i = 1; i < CALLERS; i++) { /* one matrix and shape, each caller its own data */
		const size_t len = (size_t)test_range(1000, 60000);

		do {
			call_free(&c[i]);
			call_init(&c[i], 0, test_range(1, MAXS), len);
		} while (c[i].rows != c[0].rows || c[i].cols != c[0].cols);
		memcpy(c[i].a, c[0].a, sizeof(c[0].a));
	}
	for (int i = 0; i < CALLERS; i++)
		call_reference(&c[i]);
	rig_init(&e, &hc);
	fake_gpu_set(e.gpu_ctx, &sw);
	a = matrix(&c[0]);
	assert_int_equal(gfec_engine_plan_create(&e, &a, &plan), 0);
	for (int i = 0; i < CALLERS; i++) {
		k[i] = (struct caller){&e, &plan, &c[i], 0};
		assert_int_equal(pthread_create(&t[i], NULL, caller_main, &k[i]), 0);
	}
	for (int i = 0; i < CALLERS; i++) {
		pthread_join(t[i], NULL);
		if (k[i].ret)
			fail_msg("caller %d: %d", i, k[i].ret);
	}
	gfec_hybrid_counters(e.hybrid, &n);
	fake_gpu_counts(e.gpu_ctx, &g);
	assert_true(n.splits > 0);
	assert_int_equal(n.fallbacks, g.calls >= 7); /* the 7th GPU share failed, if it ran */
	assert_int_equal(e.fallbacks, n.fallbacks);
	gfec_engine_plan_free(&e, &plan);
	gfec_engine_fini(&e);
	for (int i = 0; i < CALLERS; i++)
		call_free(&c[i]);
	free(c);
}

/*
 * backend=hybrid through the public API. Without a GPU (this build or this host) the codec runs
 * on the CPU, as backend=auto does, and says so in gfec_codec_backend() and in an INFO log line;
 * with one, calls from hybrid_min_bytes (4 MiB) are split. Either way the bytes are backend=cpu's.
 */
static char logged[4096]; /* the INFO lines of one codec's creation */

static void log_sink(enum gfec_log_level level, const char *msg, void *user)
{
	const size_t n = strlen(logged);

	(void)level, (void)user;
	snprintf(logged + n, sizeof(logged) - n, "%s\n", msg);
}

static void test_codec(void **state)
{
	static const char *const profiles[] = {
	    "k=4 m=2 backend=hybrid",
	    "k=4 m=2 backend=auto hybrid_auto_bytes=4M", /* as if gfec tune had measured it */
	};
	const size_t len = 1536 * 1024; /* 6 MiB of data: split where there is a GPU */
	gfec_codec *h, *cpu;
	uint8_t *d[4], *p[2], *q[2];
	char err[256];
	(void)state;

	assert_int_equal(gfec_codec_create("k=4 m=2 backend=cpu", &cpu, err, sizeof(err)), 0);
	for (int j = 0; j < 4; j++) {
		d[j] = malloc(len);
		assert_non_null(d[j]);
		test_fill(d[j], len);
	}
	for (int i = 0; i < 2; i++) {
		p[i] = malloc(len);
		q[i] = malloc(len);
		assert_non_null(p[i]);
		assert_non_null(q[i]);
	}
	assert_int_equal(gfec_encode(cpu, (const uint8_t *const *)d, q, len), 0);
	for (int b = 0; b < 2; b++) {
		struct gfec_stats st;

		logged[0] = '\0';
		gfec_set_log(log_sink, NULL, GFEC_LOG_INFO);
		assert_int_equal(gfec_codec_create(profiles[b], &h, err, sizeof(err)), 0);
		gfec_set_log(NULL, NULL, GFEC_LOG_ERROR);
		print_message("%s runs on %s\n", profiles[b], gfec_codec_backend(h));
		if (b == 0 && strncmp(gfec_codec_backend(h), "cpu/", 4) == 0 &&
		    (!strstr(logged, "backend=hybrid: ") || !strstr(logged, "CPU only")))
			fail_msg("backend=hybrid on the CPU without saying so; the log:\n%s",
				 logged);
		assert_true(strncmp(gfec_codec_backend(h), "cpu/", 4) == 0 ||
			    strstr(gfec_codec_backend(h), "(split)"));
		for (int i = 0; i < 2; i++)
			memset(p[i], TEST_POISON, len);
		assert_int_equal(gfec_encode(h, (const uint8_t *const *)d, p, len), 0);
		for (int i = 0; i < 2; i++)
			assert_memory_equal(p[i], q[i], len);
		gfec_codec_stats(h, &st);
		/* split where there is a GPU: its share counts as a GPU call */
		assert_int_equal(st.gpu_calls + st.fallbacks,
				 strncmp(gfec_codec_backend(h), "cpu/", 4) != 0);
		gfec_codec_free(h);
	}
	for (int j = 0; j < 4; j++)
		free(d[j]);
	for (int i = 0; i < 2; i++) {
		free(p[i]);
		free(q[i]);
	}
	gfec_codec_free(cpu);

	/* the profile key and its error */
	assert_int_equal(gfec_codec_create("k=4 m=2 backend=hybird", &h, err, sizeof(err)),
			 GFEC_E_PROFILE);
	assert_non_null(strstr(err, "hybrid"));
	assert_int_equal(
	    gfec_codec_create("k=4 m=2 backend=hybrid hybrid_alpha=101", &h, err, sizeof(err)),
	    GFEC_E_PROFILE);
}

/* gfec_config_describe()'s closing lines: what each backend does with host calls, and why. */
static void test_describe(void **state)
{
	static char buf[16384];
	char path[] = "/tmp/test_hybrid_XXXXXX";
	const char conf[] = "[gpu]\nmin_bytes = 1M\n[hybrid]\nauto_min_bytes = 16M\n"
			    "cpu_rate = 36000\ngpu_rate = 22000\n";
	const int fd = mkstemp(path);
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, conf, sizeof(conf) - 1), (ssize_t)sizeof(conf) - 1);
	close(fd);
	setenv("GFEC_CONF", path, 1);
	assert_int_equal(gfec_config_describe("k=4 m=2", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "\nauto, 64 KiB of data per host call: the CPU (GPU from "
				    "gpu_min_bytes 1048576 ("));
	assert_non_null(strstr(buf, "\nauto, 1 MiB of data per host call: the GPU ("));
	assert_non_null(strstr(buf, "\nauto, 16 MiB of data per host call: split between CPU and "
				    "GPU (split from hybrid_auto_bytes 16777216 ("));
	assert_non_null(strstr(buf, "starts at 0.38 = 22000 / (22000 + 36000) MB/s"));
	assert_int_equal(
	    gfec_config_describe("k=4 m=2 backend=hybrid hybrid_alpha=30", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "\nhybrid, 1 MiB of data per host call: the GPU (GPU from "));
	assert_non_null(strstr(buf, "\nhybrid, 16 MiB of data per host call: split between CPU "
				    "and GPU (split from hybrid_min_bytes 4194304 (default); the "
				    "GPU's share fixed at 30% by hybrid_alpha)"));
	assert_int_equal(gfec_config_describe("k=4 m=2 backend=cpu", buf, sizeof(buf)), 0);
	assert_non_null(
	    strstr(buf, "\ncpu, 256 MiB of data per host call: the CPU (backend=cpu)\n"));
	assert_int_equal(truncate(path, 0), 0); /* an empty gfec.conf: the defaults */
	assert_int_equal(gfec_config_describe("k=4 m=2", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "\nauto, 256 MiB of data per host call: the CPU (GPU from "
				    "gpu_min_bytes never (default: not measured, see gfec tune)"));
	unsetenv("GFEC_CONF");
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_arithmetic), cmocka_unit_test(test_random),
	    cmocka_unit_test(test_not_split),  cmocka_unit_test(test_converge),
	    cmocka_unit_test(test_faults),     cmocka_unit_test(test_concurrent),
	    cmocka_unit_test(test_update),     cmocka_unit_test(test_probe),
	    cmocka_unit_test(test_codec),      cmocka_unit_test(test_describe),
	};

	test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
