/* SPDX-License-Identifier: BSD-3-Clause */
/** @file fake_gpu.c  The test GPU backend (fake_gpu.h). */
#include "fake_gpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_backend.h"

struct fake_gpu {
	pthread_mutex_t lock; /* one call at a time, as the CUDA backend's context lock */
	void *cpu;	      /* a CPU backend context on the plain-C path */
	struct fake_gpu_switches sw;
	uint64_t seq;	      /* calls since the last fake_gpu_set */
	struct fake_gpu_counts n;
	uint64_t inflight;    /* gemm calls inside (atomic) */
	int in_place;	      /* sw.in_place, read without the lock (atomic) */
	int resident;	      /* sw.resident, likewise */
};

struct fake_plan {
	void *cpu;
	int rows, cols;
};

static const struct gfec_backend_ops *cpu(void)
{
	return gfec_cpu_backend();
}

static int fake_init(const struct gfec_backend_conf *conf, void **ctx)
{
	const struct gfec_backend_conf cc = { .threads = 1, .path = "base" };
	struct fake_gpu *g = calloc(1, sizeof(*g));
	int ret;

	if (!g)
		return GFEC_E_NOMEM;
	ret = cpu()->init(&cc, &g->cpu);
	if (ret) {
		free(g);
		return ret;
	}
	pthread_mutex_init(&g->lock, NULL);
	g->sw.fail_all = conf && conf->fault;
	*ctx = g;
	return 0;
}

static void fake_fini(void *ctx)
{
	struct fake_gpu *g = ctx;

	cpu()->fini(g->cpu);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

static int fake_can_implement(void *ctx, const struct gfec_gemm_matrix *a)
{
	return cpu()->can_implement(((struct fake_gpu *)ctx)->cpu, a);
}

static int fake_plan_create(void *ctx, const struct gfec_gemm_matrix *a, void **plan)
{
	struct fake_plan *p = calloc(1, sizeof(*p));
	int ret;

	if (!p)
		return GFEC_E_NOMEM;
	ret = cpu()->plan_create(((struct fake_gpu *)ctx)->cpu, a, &p->cpu);
	if (ret) {
		free(p);
		return ret;
	}
	p->rows = a->rows;
	p->cols = a->cols;
	*plan = p;
	return 0;
}

static void fake_plan_free(void *ctx, void *plan)
{
	struct fake_plan *p = plan;

	cpu()->plan_free(((struct fake_gpu *)ctx)->cpu, p->cpu);
	free(p);
}

static void sleep_us(unsigned us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Starts a call (lock held on return): 0, or the code this call fails with. */
static int call_begin(struct fake_gpu *g)
{
	pthread_mutex_lock(&g->lock);
	g->seq++;
	if (g->sw.delay_us)
		sleep_us(g->sw.delay_us);
	if (g->sw.fail_all || (g->sw.fail_nth && g->seq == g->sw.fail_nth)) {
		g->n.failed++;
		return g->sw.fail_code ? g->sw.fail_code : GFEC_E_DEVICE;
	}
	return 0;
}

static int fake_gemm(void *ctx, const void *plan, int nstripes, size_t len,
		     const uint8_t *const *src, uint8_t *const *dst)
{
	struct fake_gpu *g = ctx;
	const struct fake_plan *p = plan;
	const uint64_t in = __atomic_add_fetch(&g->inflight, 1, __ATOMIC_RELAXED);
	int ret = call_begin(g);

	if (in > g->n.max_inflight)
		g->n.max_inflight = in;
	g->n.calls++;
	g->n.stripes += (uint64_t)nstripes;
	if ((uint64_t)nstripes > g->n.max_stripes)
		g->n.max_stripes = (uint64_t)nstripes;
	g->n.bytes_in += (uint64_t)len * (uint64_t)p->cols * (uint64_t)nstripes;
	if (ret) /* a failed call leaves its outputs unspecified: make them wrong */
		for (int i = 0; i < nstripes * p->rows; i++)
			memset(dst[i], 0x5a, len);
	else
		ret = cpu()->gemm(g->cpu, p->cpu, nstripes, len, src, dst);
	__atomic_sub_fetch(&g->inflight, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&g->lock);
	return ret;
}

static int fake_update(void *ctx, const void *plan, int col, size_t len, const uint8_t *src,
		       uint8_t *const *dst, size_t *done)
{
	struct fake_gpu *g = ctx;
	const struct fake_plan *p = plan;
	int ret = call_begin(g);

	g->n.updates++;
	g->n.bytes_in += (uint64_t)len;
	*done = 0; /* a failed update touched nothing */
	if (!ret)
		ret = cpu()->update(g->cpu, p->cpu, col, len, src, dst, done);
	pthread_mutex_unlock(&g->lock);
	return ret;
}

static int fake_is_device_ptr(void *ctx, const void *p)
{
	(void)ctx;
	(void)p;
	return 0;
}

static int fake_in_place(void *ctx, const void *p)
{
	(void)p;
	return __atomic_load_n(&((struct fake_gpu *)ctx)->in_place, __ATOMIC_RELAXED);
}

static int fake_runs_resident(void *ctx, const void *plan, int nstripes, size_t len,
			      const uint8_t *const *src, uint8_t *const *dst)
{
	(void)plan, (void)nstripes, (void)len, (void)src, (void)dst;
	return __atomic_load_n(&((struct fake_gpu *)ctx)->resident, __ATOMIC_RELAXED);
}

static void fake_stats(void *ctx, struct gfec_backend_stats *out)
{
	struct fake_gpu *g = ctx;

	pthread_mutex_lock(&g->lock);
	out->calls = g->n.calls + g->n.updates;
	out->bytes_in = g->n.bytes_in;
	out->fallbacks = 0;
	out->resident = out->staged = 0;
	pthread_mutex_unlock(&g->lock);
}

static const char *fake_path_name(void *ctx)
{
	(void)ctx;
	return "fake";
}

static const struct gfec_backend_ops fake_ops = {
	.name = "fake-gpu",
	.init = fake_init,
	.fini = fake_fini,
	.can_implement = fake_can_implement,
	.plan_create = fake_plan_create,
	.plan_free = fake_plan_free,
	.gemm = fake_gemm,
	.update = fake_update,
	.is_device_ptr = fake_is_device_ptr,
	.in_place = fake_in_place,
	.runs_resident = fake_runs_resident,
	.stats = fake_stats,
	.path_name = fake_path_name,
};

const struct gfec_backend_ops *fake_gpu_ops(void)
{
	return &fake_ops;
}

void fake_gpu_set(void *ctx, const struct fake_gpu_switches *sw)
{
	struct fake_gpu *g = ctx;

	pthread_mutex_lock(&g->lock);
	g->sw = *sw;
	g->seq = 0;
	__atomic_store_n(&g->in_place, sw->in_place, __ATOMIC_RELAXED);
	__atomic_store_n(&g->resident, sw->resident, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&g->lock);
}

void fake_gpu_counts(void *ctx, struct fake_gpu_counts *out)
{
	struct fake_gpu *g = ctx;

	pthread_mutex_lock(&g->lock);
	*out = g->n;
	pthread_mutex_unlock(&g->lock);
}
