/* SPDX-License-Identifier: BSD-3-Clause */
/** @file coalesce.c  Windows of concurrent GPU calls run as one launch (coalesce.h). */
#include "coalesce.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "engine.h"
#include "gfec/gfec_errors.h"

/* A window's stripes are bounded so that its tables stay small and nstripes an int. */
#define MAX_WINDOW_STRIPES 65536
/* A member's status when its window could not be run as one: it runs its own call. */
#define RUN_ALONE 1

/* One caller in a window; lives on the caller's stack until it is woken with done set. */
struct member {
	const uint8_t *const *src;
	uint8_t *const *dst;
	int nstripes;
	int done, ret;
	pthread_cond_t cv;
	struct member *next;
};

/*
 * An open window: on its leader's stack, on the coalescer's list while it takes callers. Only
 * the leader touches it once it is off the list.
 */
struct window {
	const void *plan; /* the GPU plan: one matrix, so one rows and cols */
	size_t len;
	int cols, rows;
	int nstripes, ncallers;
	uint64_t bytes;
	int full;
	struct member *head, *tail;
	struct window *next;
};

struct gfec_coalesce {
	pthread_mutex_t lock;
	pthread_condattr_t cattr; /* CLOCK_MONOTONIC, for the leader's timed wait */
	struct window *open;
	uint64_t us, bytes;
	struct gfec_coalesce_stats st; /* atomic */
};

static void count(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

int gfec_coalesce_create(unsigned us, uint64_t bytes, struct gfec_coalesce **out)
{
	struct gfec_coalesce *co;

	*out = NULL;
	if (us == 0 || bytes == 0)
		return GFEC_E_INVAL;
	co = calloc(1, sizeof(*co));
	if (!co)
		return GFEC_E_NOMEM;
	if (pthread_mutex_init(&co->lock, NULL)) {
		free(co);
		return GFEC_E_SYSTEM;
	}
	pthread_condattr_init(&co->cattr);
	pthread_condattr_setclock(&co->cattr, CLOCK_MONOTONIC);
	co->us = us;
	co->bytes = bytes;
	*out = co;
	return 0;
}

void gfec_coalesce_free(struct gfec_coalesce *co)
{
	if (!co)
		return;
	pthread_condattr_destroy(&co->cattr);
	pthread_mutex_destroy(&co->lock);
	free(co);
}

void gfec_coalesce_stats(const struct gfec_coalesce *co, struct gfec_coalesce_stats *out)
{
	out->launches = __atomic_load_n(&co->st.launches, __ATOMIC_RELAXED);
	out->windows = __atomic_load_n(&co->st.windows, __ATOMIC_RELAXED);
	out->callers = __atomic_load_n(&co->st.callers, __ATOMIC_RELAXED);
	out->stripes = __atomic_load_n(&co->st.stripes, __ATOMIC_RELAXED);
	out->solo = __atomic_load_n(&co->st.solo, __ATOMIC_RELAXED);
	out->us = (unsigned)co->us;
	out->bytes = co->bytes;
}

static int launch(struct gfec_coalesce *co, struct gfec_engine *e, const void *plan, int nstripes,
		  size_t len, const uint8_t *const *src, uint8_t *const *dst)
{
	count(&co->st.launches, 1);
	count(&co->st.stripes, (uint64_t)nstripes);
	return e->gpu_ops->gemm(e->gpu_ctx, plan, nstripes, len, src, dst);
}

/* With the lock held: the open window this call can join, or NULL. */
static struct window *find(struct gfec_coalesce *co, const void *plan, int cols, size_t len,
			   int nstripes)
{
	for (struct window *w = co->open; w; w = w->next)
		if (w->plan == plan && w->len == len && w->cols == cols && !w->full &&
		    w->nstripes + nstripes <= MAX_WINDOW_STRIPES)
			return w;
	return NULL;
}

static void join(struct gfec_coalesce *co, struct window *w, struct member *m, uint64_t bytes)
{
	m->next = NULL;
	if (w->tail)
		w->tail->next = m;
	else
		w->head = m;
	w->tail = m;
	w->nstripes += m->nstripes;
	w->ncallers++;
	w->bytes += bytes;
	if (w->bytes >= co->bytes) {
		w->full = 1;
		if (w->head != m)
			pthread_cond_signal(&w->head->cv); /* the leader launches now */
	}
}

static void unlist(struct gfec_coalesce *co, struct window *w)
{
	struct window **pp = &co->open;

	while (*pp != w)
		pp = &(*pp)->next;
	*pp = w->next;
}

/* The leader's part once its window is closed: one launch over every member's stripes. */
static int run_window(struct gfec_coalesce *co, struct gfec_engine *e, struct window *w)
{
	const uint8_t **src;
	uint8_t **dst;
	size_t si = 0, di = 0;
	int ret;

	if (w->ncallers == 1)
		return launch(co, e, w->plan, w->nstripes, w->len, w->head->src, w->head->dst);
	src = malloc(sizeof(*src) * (size_t)w->nstripes * (size_t)w->cols);
	dst = malloc(sizeof(*dst) * (size_t)w->nstripes * (size_t)w->rows);
	if (!src || !dst) {
		free(src);
		free(dst);
		count(&co->st.solo, (uint64_t)w->ncallers);
		return RUN_ALONE;
	}
	for (struct member *m = w->head; m; m = m->next) {
		for (size_t i = 0; i < (size_t)m->nstripes * (size_t)w->cols; i++)
			src[si++] = m->src[i];
		for (size_t i = 0; i < (size_t)m->nstripes * (size_t)w->rows; i++)
			dst[di++] = m->dst[i];
	}
	count(&co->st.windows, 1);
	ret = launch(co, e, w->plan, w->nstripes, w->len, src, dst);
	free(src);
	free(dst);
	return ret;
}

static void deadline_after(struct timespec *ts, uint64_t us)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += (time_t)(us / 1000000);
	ts->tv_nsec += (long)(us % 1000000) * 1000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

int gfec_coalesce_gemm(struct gfec_coalesce *co, struct gfec_engine *e, const struct gfec_eplan *p,
		       int cols, int nstripes, size_t len, const uint8_t *const *src,
		       uint8_t *const *dst)
{
	const uint64_t bytes = (uint64_t)len * (uint64_t)cols * (uint64_t)nstripes;
	struct member me = { .src = src, .dst = dst, .nstripes = nstripes };
	struct window *w, win;
	struct timespec until;
	int ret;

	count(&co->st.callers, 1);
	if (bytes >= co->bytes || nstripes > MAX_WINDOW_STRIPES / 2 ||
	    gfec_engine_is_device(e, src[0]))
		return launch(co, e, p->gpu, nstripes, len, src, dst);
	pthread_cond_init(&me.cv, &co->cattr);
	pthread_mutex_lock(&co->lock);
	w = find(co, p->gpu, cols, len, nstripes);
	if (w) { /* a follower: wait for the leader's word */
		join(co, w, &me, bytes);
		while (!me.done)
			pthread_cond_wait(&me.cv, &co->lock);
		pthread_mutex_unlock(&co->lock);
		pthread_cond_destroy(&me.cv);
		if (me.ret == RUN_ALONE)
			return launch(co, e, p->gpu, nstripes, len, src, dst);
		return me.ret;
	}

	/* The leader: open a window, hold it open until it is full or its time is up. */
	win = (struct window){ .plan = p->gpu, .len = len, .cols = cols, .rows = p->rows,
			       .next = co->open };
	co->open = &win;
	join(co, &win, &me, bytes);
	deadline_after(&until, co->us);
	while (!win.full) /* 0: a wake-up (full, or spurious); else the time is up */
		if (pthread_cond_timedwait(&me.cv, &co->lock, &until))
			break;
	unlist(co, &win);
	pthread_mutex_unlock(&co->lock);

	ret = run_window(co, e, &win);

	pthread_mutex_lock(&co->lock);
	for (struct member *m = win.head->next, *next; m; m = next) {
		next = m->next; /* m may be gone once it sees done */
		m->ret = ret;
		m->done = 1;
		pthread_cond_signal(&m->cv);
	}
	pthread_mutex_unlock(&co->lock);
	pthread_cond_destroy(&me.cv);
	if (ret == RUN_ALONE)
		return launch(co, e, p->gpu, nstripes, len, src, dst);
	return ret;
}
