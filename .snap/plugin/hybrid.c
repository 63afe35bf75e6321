/* SPDX-License-Identifier: BSD-3-Clause */
/** @file hybrid.c  One call split between the GPU and the CPU at once, by measured rates. */
#include "hybrid.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "gfec/gfec_errors.h"
#include "log_sink.h"
#include "threadpool.h"

struct gfec_hybrid {
	struct gfec_hybrid_conf conf;
	pthread_mutex_t lock;	       /* the rates and the pool's creation: held for a few loads */
	double rate[2];		       /* bytes/s: [0] the GPU, [1] the CPU; 0 = not measured */
	struct gfec_cpu_pool *pool;    /* helpers, started by the first split call */
	int pool_failed;	       /* no helper could be started: shares run in turn */
	struct gfec_hybrid_counters n; /* atomic */
};

enum { GPU, CPU };

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void count(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

int gfec_hybrid_create(const struct gfec_hybrid_conf *conf, struct gfec_hybrid **out)
{
	struct gfec_hybrid *h;

	if (!conf || !out || conf->cpu_rate < 0 || conf->gpu_rate < 0 || conf->alpha_pct < -1 ||
	    conf->alpha_pct > 100 || conf->ewma_pct < 1 || conf->ewma_pct > 100 ||
	    conf->threads < 1)
		return GFEC_E_INVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return GFEC_E_NOMEM;
	h->conf = *conf;
	if (conf->cpu_rate > 0 && conf->gpu_rate > 0) {
		h->rate[GPU] = conf->gpu_rate;
		h->rate[CPU] = conf->cpu_rate;
	}
	pthread_mutex_init(&h->lock, NULL);
	*out = h;
	return 0;
}

void gfec_hybrid_destroy(struct gfec_hybrid *h)
{
	if (!h)
		return;
	gfec_cpu_pool_destroy(h->pool);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* With the lock held. */
static double alpha_locked(const struct gfec_hybrid *h)
{
	if (h->conf.alpha_pct >= 0)
		return h->conf.alpha_pct / 100.0;
	if (h->rate[GPU] > 0 && h->rate[CPU] > 0)
		return h->rate[GPU] / (h->rate[GPU] + h->rate[CPU]);
	return 0.5; /* nothing measured: this call measures both */
}

double gfec_hybrid_alpha(struct gfec_hybrid *h)
{
	double a;

	pthread_mutex_lock(&h->lock);
	a = alpha_locked(h);
	pthread_mutex_unlock(&h->lock);
	return a;
}

void gfec_hybrid_rates(struct gfec_hybrid *h, double *cpu, double *gpu)
{
	pthread_mutex_lock(&h->lock);
	*cpu = h->rate[CPU];
	*gpu = h->rate[GPU];
	pthread_mutex_unlock(&h->lock);
}

void gfec_hybrid_counters(struct gfec_hybrid *h, struct gfec_hybrid_counters *out)
{
	out->calls = __atomic_load_n(&h->n.calls, __ATOMIC_RELAXED);
	out->splits = __atomic_load_n(&h->n.splits, __ATOMIC_RELAXED);
	out->gpu_bytes = __atomic_load_n(&h->n.gpu_bytes, __ATOMIC_RELAXED);
	out->cpu_bytes = __atomic_load_n(&h->n.cpu_bytes, __ATOMIC_RELAXED);
	out->fallbacks = __atomic_load_n(&h->n.fallbacks, __ATOMIC_RELAXED);
}

static size_t gcd(size_t a, size_t b)
{
	while (b) {
		const size_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

size_t gfec_hybrid_unit(unsigned w, size_t packetsize)
{
	const size_t block = (size_t)w * packetsize; /* one CRS block: w packets */

	return block ? 64 / gcd(64, block) * block : 64;
}

size_t gfec_hybrid_cut(size_t len, double alpha, size_t unit)
{
	const double units = alpha * (double)len / (double)unit + 0.5;
	size_t cut;

	if (units <= 0)
		return 0;
	if (units >= (double)(len / unit + 1))
		return len;
	cut = (size_t)units * unit;
	return cut >= len ? len : cut;
}

int gfec_hybrid_stripes(int nstripes, double alpha)
{
	const double g = alpha * nstripes + 0.5;

	return g <= 0 ? 0 : g >= nstripes ? nstripes : (int)g;
}

/* One side's part of a split call. */
struct share {
	int nstripes;
	size_t len;
	const uint8_t *const *src; /* gemm; NULL for an update, */
	const uint8_t *usrc;	   /* whose one source is this */
	int col;		   /* (update) A's column */
	uint8_t *const *dst;
	double seconds;
	int ret;
	int gpu_err; /* the GPU's error before the CPU redid its share; 0 if none */
};

struct split {
	struct gfec_engine *e;
	const struct gfec_eplan *p;
	struct share side[2];
};

/*
 * An update's share on one side; the GPU's, when it fails, finished on the CPU from where it
 * stopped (gfec_backend_ops.update's done: no delta applied twice).
 */
static int update_share(struct gfec_engine *e, const struct gfec_eplan *p, struct share *sh,
			int gpu)
{
	size_t done = 0;
	uint8_t **rest;
	int ret;

	if (!gpu)
		return e->cpu_ops->update(e->cpu_ctx, p->cpu, sh->col, sh->len, sh->usrc, sh->dst,
					  &done);
	ret = gfec_engine_gpu_update(e, p->gpu, sh->col, sh->len, sh->usrc, sh->dst, &done);
	if (ret == 0)
		return 0;
	sh->gpu_err = ret;
	rest = malloc(sizeof(*rest) * (size_t)p->rows);
	if (!rest)
		return GFEC_E_NOMEM;
	for (int r = 0; r < p->rows; r++)
		rest[r] = sh->dst[r] + done;
	ret = e->cpu_ops->update(e->cpu_ctx, p->cpu, sh->col, sh->len - done, sh->usrc + done, rest,
				 &done);
	free(rest);
	return ret;
}

/* Task 0 is the GPU's share: the caller claims it first (gfec_cpu_pool_run), a helper task 1. */
static void run_share(void *arg, size_t i)
{
	struct split *s = arg;
	struct share *sh = &s->side[i];
	struct gfec_engine *e = s->e;
	const double t0 = now();

	if (!sh->src) {
		sh->ret = update_share(e, s->p, sh, i == GPU);
	} else if (i == GPU) {
		sh->ret = gfec_engine_gpu_gemm(e, s->p->gpu, sh->nstripes, sh->len, sh->src,
					       sh->dst);
		if (sh->ret) {
			sh->gpu_err = sh->ret;
			sh->ret = e->cpu_ops->gemm(e->cpu_ctx, s->p->cpu, sh->nstripes, sh->len,
						   sh->src, sh->dst);
		}
	} else {
		sh->ret = e->cpu_ops->gemm(e->cpu_ctx, s->p->cpu, sh->nstripes, sh->len, sh->src,
					   sh->dst);
	}
	sh->seconds = now() - t0;
}

/* The helpers, started on first use; NULL when none could be (the shares then run in turn). */
static struct gfec_cpu_pool *helpers(struct gfec_hybrid *h)
{
	struct gfec_cpu_pool *pool = __atomic_load_n(&h->pool, __ATOMIC_ACQUIRE);
	int ret;

	if (pool)
		return pool;
	pthread_mutex_lock(&h->lock);
	if (!h->pool && !h->pool_failed) {
		ret = gfec_cpu_pool_create(h->conf.threads + 1, &pool);
		if (ret) {
			h->pool_failed = 1;
			gfec_log(GFEC_LOG_WARN,
				 "backend=hybrid: no helper thread (%s): each split "
				 "call runs its GPU and CPU shares in turn",
				 gfec_strerror(ret));
		} else {
			__atomic_store_n(&h->pool, pool, __ATOMIC_RELEASE);
		}
	}
	pool = h->pool;
	pthread_mutex_unlock(&h->lock);
	return pool;
}

/* Folds each side's achieved rate in this call into its estimate. */
static void learn(struct gfec_hybrid *h, const struct split *s, const uint64_t bytes[2])
{
	const double w = h->conf.ewma_pct / 100.0;

	pthread_mutex_lock(&h->lock);
	for (int i = 0; i < 2; i++) {
		double r;

		if (!bytes[i] || s->side[i].seconds <= 0)
			continue;
		r = (double)bytes[i] / s->side[i].seconds;
		h->rate[i] = h->rate[i] > 0 ? (1 - w) * h->rate[i] + w * r : r;
	}
	pthread_mutex_unlock(&h->lock);
}

/*
 * 1 when a call of @p data bytes on these buffers is one to split, with the GPU's share in
 * *alpha (every GFEC_HYBRID_PROBE-th call a probe: a side the rates starve gets some).
 */
static int take(struct gfec_hybrid *h, struct gfec_engine *e, const struct gfec_eplan *p,
		uint64_t data, const void *src0, const void *dst0, double *alpha)
{
	const double least = 1.0 / GFEC_HYBRID_PROBE;

	if (!p->gpu || !p->cpu || !e->gpu_ops || data < h->conf.min_bytes || data == 0 ||
	    gfec_engine_is_device(e, src0) || gfec_engine_is_device(e, dst0))
		return 0;
	*alpha = gfec_hybrid_alpha(h);
	if (__atomic_fetch_add(&h->n.calls, 1, __ATOMIC_RELAXED) % GFEC_HYBRID_PROBE == 0 &&
	    h->conf.alpha_pct < 0)
		*alpha = *alpha < least ? least : *alpha > 1 - least ? 1 - least : *alpha;
	return 1;
}

/* @p rows pointers @p off bytes past @p dst's, into @p out. */
static void offset_rows(uint8_t **out, uint8_t *const *dst, int rows, size_t off)
{
	for (int i = 0; i < rows; i++)
		out[i] = dst[i] + off;
}

/* Runs the shares (both at once where both have work), counts, learns: the call's status. */
static int run(struct gfec_hybrid *h, struct split *s, const uint64_t bytes[2])
{
	struct gfec_engine *e = s->e;
	int ret;

	if (bytes[GPU] && bytes[CPU]) {
		struct gfec_cpu_pool *pool = helpers(h);

		if (pool) {
			gfec_cpu_pool_run(pool, 2, run_share, s);
		} else {
			run_share(s, GPU);
			run_share(s, CPU);
		}
		count(&h->n.splits, 1);
	} else {
		run_share(s, bytes[GPU] ? GPU : CPU); /* the share rounds to one side */
	}
	if (s->side[GPU].gpu_err) {
		count(&h->n.fallbacks, 1);
		count(&e->fallbacks, 1);
		gfec_log(GFEC_LOG_WARN, "hybrid: the GPU's share failed (%s); redone on the CPU",
			 gfec_strerror(s->side[GPU].gpu_err));
	} else if (bytes[GPU] && s->side[GPU].ret == 0) {
		count(&e->gpu_calls, 1);
	}
	ret = s->side[GPU].ret ? s->side[GPU].ret : s->side[CPU].ret;
	if (ret == 0) {
		count(&h->n.gpu_bytes, bytes[GPU]);
		count(&h->n.cpu_bytes, bytes[CPU]);
		learn(h, s, bytes);
	}
	return ret;
}

int gfec_hybrid_gemm(struct gfec_hybrid *h, struct gfec_engine *e, const struct gfec_eplan *p,
		     int cols, int nstripes, size_t len, const uint8_t *const *src,
		     uint8_t *const *dst, int *ret)
{
	const uint64_t data = (uint64_t)len * (uint64_t)cols * (uint64_t)nstripes;
	struct split s = {.e = e, .p = p};
	uint64_t bytes[2];
	const uint8_t **cpu_src = NULL;
	double alpha;

	if (!take(h, e, p, data, src[0], dst[0], &alpha))
		return 0;
	if (nstripes >= 2) {
		const int g = gfec_hybrid_stripes(nstripes, alpha);

		s.side[GPU] = (struct share){.nstripes = g, .len = len, .src = src, .dst = dst};
		s.side[CPU] = (struct share){.nstripes = nstripes - g,
					     .len = len,
					     .src = src + (size_t)g * cols,
					     .dst = dst + (size_t)g * p->rows};
		bytes[GPU] = (uint64_t)g * cols * len;
	} else {
		const size_t cut =
		    gfec_hybrid_cut(len, alpha, gfec_hybrid_unit(p->w, p->packetsize));
		uint8_t **cpu_dst;

		if (cut > 0 && cut < len) {
			cpu_src = malloc(sizeof(*cpu_src) * ((size_t)cols + (size_t)p->rows));
			if (!cpu_src) {
				*ret = GFEC_E_NOMEM;
				return 1;
			}
			cpu_dst = (uint8_t **)(cpu_src + cols);
			for (int j = 0; j < cols; j++)
				cpu_src[j] = src[j] + cut;
			offset_rows(cpu_dst, dst, p->rows, cut);
			s.side[CPU] = (struct share){
			    .nstripes = 1, .len = len - cut, .src = cpu_src, .dst = cpu_dst};
		} else {
			s.side[CPU] = (struct share){
			    .nstripes = cut ? 0 : 1, .len = len, .src = src, .dst = dst};
		}
		s.side[GPU] =
		    (struct share){.nstripes = cut ? 1 : 0, .len = cut, .src = src, .dst = dst};
		bytes[GPU] = (uint64_t)cut * cols;
	}
	bytes[CPU] = data - bytes[GPU];
	*ret = run(h, &s, bytes);
	free(cpu_src);
	return 1;
}

int gfec_hybrid_update(struct gfec_hybrid *h, struct gfec_engine *e, const struct gfec_eplan *p,
		       int col, size_t len, const uint8_t *src, uint8_t *const *dst, int *ret)
{
	struct split s = {.e = e, .p = p};
	uint64_t bytes[2];
	uint8_t **cpu_dst;
	size_t cut;
	double alpha;

	if (!take(h, e, p, len, src, dst[0], &alpha))
		return 0;
	cut = gfec_hybrid_cut(len, alpha, gfec_hybrid_unit(p->w, p->packetsize));
	cpu_dst = malloc(sizeof(*cpu_dst) * (size_t)p->rows);
	if (!cpu_dst) {
		*ret = GFEC_E_NOMEM;
		return 1;
	}
	offset_rows(cpu_dst, dst, p->rows, cut);
	s.side[GPU] = (struct share){.len = cut, .usrc = src, .col = col, .dst = dst};
	s.side[CPU] =
	    (struct share){.len = len - cut, .usrc = src + cut, .col = col, .dst = cpu_dst};
	bytes[GPU] = cut;
	bytes[CPU] = len - cut;
	*ret = run(h, &s, bytes);
	free(cpu_dst);
	return 1;
}
