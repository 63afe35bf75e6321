/* SPDX-License-Identifier: BSD-3-Clause */
/** @file engine.c  Dispatch, the CPU redo after a GPU error, and the plan cache (engine.h). */
#define _GNU_SOURCE /* sched_getcpu */
#include "engine.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coalesce.h"
#include "fifo_gate.h"
#include "gfec/gfec_errors.h"
#include "hybrid.h"
#include "log_sink.h"

static void count(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

/* ---- the gate: host-buffer GPU calls in arrival order, a lane each --------------------------- */

int gfec_engine_gate(struct gfec_engine *e, int lanes)
{
	struct gfec_fifo_gate *g;

	if (lanes < 1 || e->gate)
		return GFEC_E_INVAL;
	g = malloc(sizeof(*g));
	if (!g)
		return GFEC_E_NOMEM;
	if (gfec_fifo_gate_init(g, (uint64_t)lanes)) {
		free(g);
		return GFEC_E_SYSTEM;
	}
	e->gate = g;
	return 0;
}

static void gate_free(struct gfec_fifo_gate *g)
{
	if (!g)
		return;
	gfec_fifo_gate_destroy(g);
	free(g);
}

int gfec_engine_in_place(const struct gfec_engine *e, const void *p)
{
	return e->gpu_ops->in_place ? e->gpu_ops->in_place(e->gpu_ctx, p)
				    : gfec_engine_is_device(e, p);
}

int gfec_engine_runs_resident(const struct gfec_engine *e, const void *plan, int nstripes,
			      size_t len, const uint8_t *const *src, uint8_t *const *dst)
{
	return e->gpu_ops->runs_resident &&
	       e->gpu_ops->runs_resident(e->gpu_ctx, plan, nstripes, len, src, dst);
}

/* Calls that hold no lane of the backend pass the gate: those it reads in place (updates never
 * map), and those it runs without one (holds_lane). */
int gfec_engine_gpu_gemm(struct gfec_engine *e, const void *plan, int nstripes, size_t len,
			 const uint8_t *const *src, uint8_t *const *dst)
{
	const int gated =
		e->gate &&
		(e->gpu_ops->holds_lane
			 ? e->gpu_ops->holds_lane(e->gpu_ctx, plan, nstripes, len, src, dst)
			 : !gfec_engine_in_place(e, src[0]) && !gfec_engine_in_place(e, dst[0]));
	int ret;

	if (gated)
		gfec_fifo_gate_enter(e->gate, 1);
	ret = e->gpu_ops->gemm(e->gpu_ctx, plan, nstripes, len, src, dst);
	if (gated)
		gfec_fifo_gate_leave(e->gate, 1);
	return ret;
}

int gfec_engine_gpu_update(struct gfec_engine *e, const void *plan, int col, size_t len,
			   const uint8_t *src, uint8_t *const *dst, size_t *done)
{
	const int gated = e->gate && !gfec_engine_is_device(e, src) &&
			  !gfec_engine_is_device(e, dst[0]);
	int ret;

	if (gated)
		gfec_fifo_gate_enter(e->gate, 1);
	ret = e->gpu_ops->update(e->gpu_ctx, plan, col, len, src, dst, done);
	if (gated)
		gfec_fifo_gate_leave(e->gate, 1);
	return ret;
}

/* ---- dispatch -------------------------------------------------------------------------------- */

void gfec_engine_fini(struct gfec_engine *e)
{
	gfec_coalesce_free(e->coal);
	e->coal = NULL;
	gate_free(e->gate);
	e->gate = NULL;
	gfec_hybrid_destroy(e->hybrid);
	e->hybrid = NULL;
	if (e->gpu_ops)
		e->gpu_ops->fini(e->gpu_ctx);
	if (e->cpu_ops && e->cpu_ctx)
		e->cpu_ops->fini(e->cpu_ctx);
	e->gpu_ops = e->cpu_ops = NULL;
	e->gpu_ctx = e->cpu_ctx = NULL;
}

void gfec_engine_plan_free(struct gfec_engine *e, struct gfec_eplan *p)
{
	if (p->cpu)
		e->cpu_ops->plan_free(e->cpu_ctx, p->cpu);
	if (p->gpu)
		e->gpu_ops->plan_free(e->gpu_ctx, p->gpu);
	p->cpu = p->gpu = NULL;
}

int gfec_engine_plan_create(struct gfec_engine *e, const struct gfec_gemm_matrix *a,
			    struct gfec_eplan *p)
{
	int ret;

	p->cpu = p->gpu = NULL;
	p->rows = a->rows;
	p->w = a->w;
	p->packetsize = a->packetsize;
	ret = e->cpu_ops->plan_create(e->cpu_ctx, a, &p->cpu);
	if (ret == 0 && e->gpu_ops)
		ret = e->gpu_ops->plan_create(e->gpu_ctx, a, &p->gpu);
	if (ret)
		gfec_engine_plan_free(e, p);
	return ret;
}

int gfec_engine_is_device(const struct gfec_engine *e, const void *p)
{
	return e->gpu_ops && e->gpu_ops->is_device_ptr(e->gpu_ctx, p);
}

static int on_gpu(const struct gfec_engine *e, const struct gfec_eplan *p, uint64_t data_bytes)
{
	return p->gpu && (e->gpu_always || data_bytes >= e->gpu_min_bytes);
}

static int device(const struct gfec_engine *e, const uint8_t *const *src, uint8_t *const *dst)
{
	return gfec_engine_is_device(e, src[0]) || gfec_engine_is_device(e, dst[0]);
}

static void fell_back(struct gfec_engine *e, const char *what, int err)
{
	count(&e->fallbacks, 1);
	gfec_log(GFEC_LOG_WARN, "%s on the GPU failed (%s); redone on the CPU", what,
		 gfec_strerror(err));
}

static int gemm(struct gfec_engine *e, const struct gfec_eplan *p, int cols, int nstripes,
		size_t len, const uint8_t *const *src, uint8_t *const *dst, int coalesce)
{
	int ret;

	if (e->hybrid && gfec_hybrid_gemm(e->hybrid, e, p, cols, nstripes, len, src, dst, &ret))
		return ret;
	if (on_gpu(e, p, (uint64_t)len * (uint64_t)cols * (uint64_t)nstripes)) {
		ret = coalesce && e->coal
			      ? gfec_coalesce_gemm(e->coal, e, p, cols, nstripes, len, src, dst)
			      : gfec_engine_gpu_gemm(e, p->gpu, nstripes, len, src, dst);
		if (ret == 0) {
			count(&e->gpu_calls, 1);
			return 0;
		}
		if (device(e, src, dst))
			return ret;
		fell_back(e, "GEMM", ret);
	} else if (device(e, src, dst)) {
		/* The CPU cannot read device memory: such calls always go to the GPU. */
		if (!p->gpu)
			return GFEC_E_INVAL;
		ret = e->gpu_ops->gemm(e->gpu_ctx, p->gpu, nstripes, len, src, dst);
		if (ret == 0)
			count(&e->gpu_calls, 1);
		return ret;
	}
	return e->cpu_ops->gemm(e->cpu_ctx, p->cpu, nstripes, len, src, dst);
}

int gfec_engine_gemm(struct gfec_engine *e, const struct gfec_eplan *p, int cols, int nstripes,
		     size_t len, const uint8_t *const *src, uint8_t *const *dst)
{
	return gemm(e, p, cols, nstripes, len, src, dst, 1);
}

int gfec_engine_gemm_direct(struct gfec_engine *e, const struct gfec_eplan *p, int cols,
			    int nstripes, size_t len, const uint8_t *const *src,
			    uint8_t *const *dst)
{
	return gemm(e, p, cols, nstripes, len, src, dst, 0);
}

int gfec_engine_update(struct gfec_engine *e, const struct gfec_eplan *p, int rows, int col,
		       size_t len, const uint8_t *src, uint8_t *const *dst)
{
	size_t done = 0;
	int ret;

	if (e->hybrid && gfec_hybrid_update(e->hybrid, e, p, col, len, src, dst, &ret))
		return ret;
	if (!on_gpu(e, p, len))
		return e->cpu_ops->update(e->cpu_ctx, p->cpu, col, len, src, dst, &done);
	ret = gfec_engine_gpu_update(e, p->gpu, col, len, src, dst, &done);
	if (ret == 0) {
		count(&e->gpu_calls, 1);
		return 0;
	}
	if (gfec_engine_is_device(e, src) || gfec_engine_is_device(e, dst[0]))
		return ret;
	/* Finish on the CPU from where the GPU stopped: never apply a delta twice. */
	uint8_t **rest = malloc(sizeof(*rest) * (size_t)rows); /* up to 65536 rows at w = 16 */

	if (!rest)
		return GFEC_E_NOMEM;
	fell_back(e, "update", ret);
	for (int i = 0; i < rows; i++)
		rest[i] = dst[i] + done;
	ret = e->cpu_ops->update(e->cpu_ctx, p->cpu, col, len - done, src + done, rest, &done);
	free(rest);
	return ret;
}

/* ---- the plan cache -------------------------------------------------------------------------- */

#define PLAN_FRONTS_MAX 64

int gfec_plan_cache_init(struct gfec_plan_cache *pc, int cap)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	memset(pc, 0, sizeof(*pc));
	pc->nfront = cpus < 1 ? 1 : cpus > PLAN_FRONTS_MAX ? PLAN_FRONTS_MAX : (int)cpus;
	pc->slot = calloc((size_t)cap, sizeof(*pc->slot));
	pc->front = aligned_alloc(sizeof(*pc->front), sizeof(*pc->front) * (size_t)pc->nfront);
	if (!pc->slot || !pc->front) {
		free(pc->slot);
		free(pc->front);
		pc->slot = NULL;
		pc->front = NULL;
		return GFEC_E_NOMEM;
	}
	pc->cap = cap;
	pthread_mutex_init(&pc->lock, NULL);
	for (int i = 0; i < pc->nfront; i++) {
		pthread_mutex_init(&pc->front[i].lock, NULL);
		pc->front[i].d = NULL;
		pc->front[i].users = 0;
		pc->front[i].hits = 0;
	}
	return 0;
}

static void entry_free(struct gfec_engine *e, struct gfec_cached_plan *d)
{
	gfec_engine_plan_free(e, &d->plan);
	free(d);
}

/* Drops a reference; the last one frees the plan. */
static void unref(struct gfec_engine *e, struct gfec_cached_plan *d)
{
	if (__atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0)
		entry_free(e, d);
}

static void ref(struct gfec_cached_plan *d)
{
	__atomic_add_fetch(&d->refs, 1, __ATOMIC_RELAXED);
}

void gfec_plan_cache_fini(struct gfec_plan_cache *pc, struct gfec_engine *e)
{
	if (!pc->slot)
		return;
	for (int i = 0; i < pc->nfront; i++) { /* a plan still cached keeps the cache's reference */
		if (pc->front[i].d)
			unref(e, pc->front[i].d);
		pthread_mutex_destroy(&pc->front[i].lock);
	}
	for (int i = 0; i < pc->n; i++)
		entry_free(e, pc->slot[i]);
	free(pc->slot);
	free(pc->front);
	pc->slot = NULL;
	pc->front = NULL;
	pthread_mutex_destroy(&pc->lock);
}

void gfec_plan_cache_put(struct gfec_engine *e, const struct gfec_plan_hold *h)
{
	if (!h->f) {
		unref(e, h->d);
		return;
	}
	pthread_mutex_lock(&h->f->lock);
	h->f->users--;
	pthread_mutex_unlock(&h->f->lock);
}

static int same_key(const struct gfec_cached_plan *d, const void *key, size_t keylen)
{
	return d->keylen == keylen && memcmp(d->key, key, keylen) == 0;
}

/* With the lock held: the clock's next tick (fronts read it without the lock). */
static uint64_t tick(struct gfec_plan_cache *pc)
{
	const uint64_t t = pc->clock + 1;

	__atomic_store_n(&pc->clock, t, __ATOMIC_RELAXED);
	return t;
}

/* With the lock held: the cached plan for a key, referenced, or NULL. */
static struct gfec_cached_plan *find(struct gfec_plan_cache *pc, const void *key, size_t keylen)
{
	for (int i = 0; i < pc->n; i++) {
		struct gfec_cached_plan *d = pc->slot[i];

		if (same_key(d, key, keylen)) {
			ref(d);
			__atomic_store_n(&d->used, tick(pc), __ATOMIC_RELAXED);
			return d;
		}
	}
	return NULL;
}

/* With the lock held: inserts d, dropping the least recently used entry when full. */
static struct gfec_cached_plan *insert(struct gfec_plan_cache *pc, struct gfec_cached_plan *d)
{
	struct gfec_cached_plan *victim = NULL;
	int slot = pc->n;

	if (pc->n == pc->cap) {
		slot = 0;
		for (int i = 1; i < pc->n; i++)
			if (__atomic_load_n(&pc->slot[i]->used, __ATOMIC_RELAXED) <
			    __atomic_load_n(&pc->slot[slot]->used, __ATOMIC_RELAXED))
				slot = i;
		victim = pc->slot[slot]; /* the caller drops the cache's reference */
	} else {
		pc->n++;
	}
	d->refs = 2; /* the cache's and the caller's */
	d->used = tick(pc);
	pc->slot[slot] = d;
	return victim;
}

/* The front of the CPU this thread runs on. */
static struct gfec_plan_front *front_here(struct gfec_plan_cache *pc)
{
	const int cpu = sched_getcpu();

	return &pc->front[cpu < 0 ? 0 : cpu % pc->nfront];
}

/* 1 with the front's plan held through it in *out when its key is @p key, else 0. */
static int front_get(struct gfec_plan_cache *pc, struct gfec_plan_front *f, const void *key,
		     size_t keylen, struct gfec_plan_hold *out)
{
	struct gfec_cached_plan *d;
	int hit;

	pthread_mutex_lock(&f->lock);
	d = f->d;
	hit = d && same_key(d, key, keylen);
	if (hit) {
		f->users++;
		__atomic_store_n(&f->hits, f->hits + 1, __ATOMIC_RELAXED);
		/* now and then, so that the cache does not take it for unused */
		if (f->hits % 64 == 0)
			__atomic_store_n(&d->used, __atomic_load_n(&pc->clock, __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
		*out = (struct gfec_plan_hold){d, f};
	}
	pthread_mutex_unlock(&f->lock);
	return hit;
}

/* Makes @p d the front's plan, with a reference of its own, unless its plan is held through it. */
static void front_set(struct gfec_engine *e, struct gfec_plan_front *f, struct gfec_cached_plan *d)
{
	struct gfec_cached_plan *old = NULL;

	pthread_mutex_lock(&f->lock);
	if (f->d != d && f->users == 0) {
		old = f->d;
		ref(d);
		f->d = d;
	}
	pthread_mutex_unlock(&f->lock);
	if (old)
		unref(e, old);
}

uint64_t gfec_plan_cache_hits(const struct gfec_plan_cache *pc)
{
	uint64_t n = __atomic_load_n(&pc->hits, __ATOMIC_RELAXED);

	for (int i = 0; pc->front && i < pc->nfront; i++)
		n += __atomic_load_n(&pc->front[i].hits, __ATOMIC_RELAXED);
	return n;
}

uint64_t gfec_plan_cache_misses(const struct gfec_plan_cache *pc)
{
	return __atomic_load_n(&pc->misses, __ATOMIC_RELAXED);
}

int gfec_plan_cache_get(struct gfec_plan_cache *pc, struct gfec_engine *e, const void *key,
			size_t keylen, gfec_plan_build_fn build, void *arg,
			struct gfec_plan_hold *out)
{
	struct gfec_plan_front *f = front_here(pc);
	struct gfec_cached_plan *d, *victim, *found;
	int ret;

	if (front_get(pc, f, key, keylen, out))
		return 0;
	pthread_mutex_lock(&pc->lock);
	d = find(pc, key, keylen);
	pthread_mutex_unlock(&pc->lock);
	if (d) {
		count(&pc->hits, 1);
		front_set(e, f, d);
		*out = (struct gfec_plan_hold){d, NULL};
		return 0;
	}
	count(&pc->misses, 1);

	d = calloc(1, sizeof(*d) + keylen);
	if (!d)
		return GFEC_E_NOMEM;
	ret = build(arg, e, &d->plan);
	if (ret) {
		free(d);
		return ret;
	}
	memcpy(d->key, key, keylen);
	d->keylen = keylen;

	pthread_mutex_lock(&pc->lock);
	found = find(pc, key, keylen); /* another thread may have built it meanwhile */
	victim = found ? NULL : insert(pc, d);
	pthread_mutex_unlock(&pc->lock);
	if (found) {
		entry_free(e, d);
		d = found;
	}
	if (victim)
		unref(e, victim); /* the cache's reference */
	front_set(e, f, d);
	*out = (struct gfec_plan_hold){d, NULL};
	return 0;
}
