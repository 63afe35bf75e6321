/* SPDX-License-Identifier: BSD-3-Clause */
/** @file coalesce.c  Windows of concurrent GEMM calls run as one (coalesce.h). */
#include "coalesce.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include "engine.h"
#include "gfec/gfec_errors.h"

/* A window's stripes are bounded so that its tables stay small and nstripes an int. */
#define MAX_WINDOW_STRIPES 65536
/* A member's status when its window could not be run as one: it runs its own call. */
#define RUN_ALONE 1

/*
 * One member of a window. A waiting caller's lives on its stack until it is woken with done
 * set; a queued member's is allocated by gfec_coalesce_submit and freed after its end.
 */
struct member {
	const uint8_t *const *src;
	uint8_t *const *dst;
	int nstripes;
	uint64_t bytes;
	int done, ret;
	pthread_cond_t cv;		    /* waiting callers */
	void (*end)(void *, void *, int); /* queued members: done(ctx, arg, status) */
	void *end_ctx, *arg;
	struct member *next;
};

/*
 * An open window, on the coalescer's list while it takes members. A waiting caller's window is
 * on its leader's stack; a queued window is allocated, run by its job on another thread, and
 * freed by it. Only the leader (the job) touches a window once it is off the list.
 */
struct window {
	const void *key; /* waiting: the GPU plan; queued: the engine plan */
	size_t len;
	int cols, rows;
	int queued, dev; /* queued members; buffers in device memory */
	int slot;	 /* a waiting window that launches when a launch slot is free */
	int nstripes, ncallers;
	uint64_t bytes;
	int full;
	pthread_cond_t *wake; /* what a waiting window's leader waits on */
	struct member *head, *tail;
	struct window *next;
	/* queued windows */
	struct gfec_coalesce *co;
	struct gfec_engine *e;
	const struct gfec_eplan *ep;
	int max_stripes;
	int gone; /* off the list already: every member was withdrawn */
	void (*hurry)(void *post_ctx, struct gfec_job *job);
	void *post_ctx;
	struct gfec_job job; /* due at the deadline, or at once when full */
};

struct gfec_coalesce {
	pthread_mutex_t lock;
	pthread_condattr_t cattr; /* CLOCK_MONOTONIC, for the leaders' timed waits */
	struct window *open;
	uint64_t us, bytes;
	unsigned slots;	   /* waiting callers' launches in flight at most (0: windows of us) */
	uint64_t slot_min; /* calls of fewer source bytes are not held by slots */
	unsigned inflight; /* of those, now (under lock) */
	struct gfec_coalesce_stats st; /* atomic */
};

static void count(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

int gfec_coalesce_create(unsigned us, uint64_t bytes, unsigned slots, uint64_t slot_min,
			 struct gfec_coalesce **out)
{
	struct gfec_coalesce *co;

	*out = NULL;
	if (bytes == 0)
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
	co->slots = slots;
	co->slot_min = slot_min;
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
	const uint64_t *src = (const uint64_t *)&co->st;
	uint64_t *dst = (uint64_t *)out;

	/* the counters are the uint64_t fields before `us`, each read atomically */
	for (size_t i = 0; i < offsetof(struct gfec_coalesce_stats, us) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	out->us = (unsigned)co->us;
	out->bytes = co->bytes;
	out->slots = co->slots;
	out->slot_min = co->slot_min;
}

static int launch(struct gfec_coalesce *co, struct gfec_engine *e, const void *plan, int nstripes,
		  size_t len, const uint8_t *const *src, uint8_t *const *dst)
{
	count(&co->st.launches, 1);
	count(&co->st.stripes, (uint64_t)nstripes);
	return gfec_engine_gpu_gemm(e, plan, nstripes, len, src, dst);
}

/* With the lock held: the open window a member of this kind and shape can join, or NULL. */
static struct window *find(struct gfec_coalesce *co, const void *key, int cols, size_t len,
			   int nstripes, int queued, int dev, int slot)
{
	for (struct window *w = co->open; w; w = w->next)
		if (w->key == key && w->len == len && w->cols == cols && w->queued == queued &&
		    w->dev == dev && w->slot == slot && !w->full &&
		    w->nstripes + nstripes <= MAX_WINDOW_STRIPES)
			return w;
	return NULL;
}

/* With the lock held: a slot launch ended; the leaders waiting for a slot look again. */
static void slot_free(struct gfec_coalesce *co)
{
	co->inflight--;
	for (struct window *w = co->open; w; w = w->next)
		if (w->slot)
			pthread_cond_signal(w->wake);
}

static void join(struct gfec_coalesce *co, struct window *w, struct member *m)
{
	m->next = NULL;
	if (w->tail)
		w->tail->next = m;
	else
		w->head = m;
	w->tail = m;
	w->nstripes += m->nstripes;
	w->ncallers++;
	w->bytes += m->bytes;
	if (w->queued ? w->nstripes >= w->max_stripes : w->bytes >= co->bytes) {
		w->full = 1;
		if (w->queued)
			w->hurry(w->post_ctx, &w->job); /* its job runs now */
		else if (w->head != m)
			pthread_cond_signal(w->wake); /* the leader launches now */
	}
}

static void unlist(struct gfec_coalesce *co, struct window *w)
{
	struct window **pp = &co->open;

	while (*pp != w)
		pp = &(*pp)->next;
	*pp = w->next;
}

/* Every member's pointer tables end to end; 0, or GFEC_E_NOMEM with nothing allocated. */
static int concat(const struct window *w, const uint8_t ***srcp, uint8_t ***dstp)
{
	const uint8_t **src = malloc(sizeof(*src) * (size_t)w->nstripes * (size_t)w->cols);
	uint8_t **dst = malloc(sizeof(*dst) * (size_t)w->nstripes * (size_t)w->rows);
	size_t si = 0, di = 0;

	if (!src || !dst) {
		free(src);
		free(dst);
		return GFEC_E_NOMEM;
	}
	for (const struct member *m = w->head; m; m = m->next) {
		for (size_t i = 0; i < (size_t)m->nstripes * (size_t)w->cols; i++)
			src[si++] = m->src[i];
		for (size_t i = 0; i < (size_t)m->nstripes * (size_t)w->rows; i++)
			dst[di++] = m->dst[i];
	}
	*srcp = src;
	*dstp = dst;
	return 0;
}

/* The leader's part once its window is closed: one launch over every member's stripes. */
static int run_window(struct gfec_coalesce *co, struct gfec_engine *e, struct window *w)
{
	const uint8_t **src;
	uint8_t **dst;
	int ret;

	if (w->ncallers == 1)
		return launch(co, e, w->key, w->nstripes, w->len, w->head->src, w->head->dst);
	if (concat(w, &src, &dst)) {
		count(&co->st.solo, (uint64_t)w->ncallers);
		return RUN_ALONE;
	}
	count(&co->st.windows, 1);
	ret = launch(co, e, w->key, w->nstripes, w->len, src, dst);
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
	struct member me = { .src = src, .dst = dst, .nstripes = nstripes, .bytes = bytes };
	struct window *w, win;
	struct timespec until;
	int ret, slot;

	if (!co->us && !co->slots) /* waiting callers are not held */
		return gfec_engine_gpu_gemm(e, p->gpu, nstripes, len, src, dst);
	count(&co->st.callers, 1);
	/* with slots alone, a call under their minimum cannot be held: no pointer query for it */
	if ((!co->us && bytes < co->slot_min) || bytes >= co->bytes ||
	    nstripes > MAX_WINDOW_STRIPES / 2 || gfec_engine_is_device(e, src[0]))
		return launch(co, e, p->gpu, nstripes, len, src, dst);
	/* slots hold only calls the kernels read in place: a staged window's copies would all
	 * fall to its leader's thread, which the lanes of separate calls share out; nor those the
	 * backend serves without a launch (runs_resident) */
	slot = co->slots && bytes >= co->slot_min && gfec_engine_in_place(e, src[0]) &&
	       gfec_engine_in_place(e, dst[0]) &&
	       !gfec_engine_runs_resident(e, p->gpu, nstripes, len, src, dst);
	if (!slot && !co->us)
		return launch(co, e, p->gpu, nstripes, len, src, dst);
	pthread_cond_init(&me.cv, &co->cattr);
	pthread_mutex_lock(&co->lock);
	w = find(co, p->gpu, cols, len, nstripes, 0, 0, slot);
	if (w) { /* a follower: wait for the leader's word */
		join(co, w, &me);
		while (!me.done)
			pthread_cond_wait(&me.cv, &co->lock);
		pthread_mutex_unlock(&co->lock);
		pthread_cond_destroy(&me.cv);
		if (me.ret == RUN_ALONE)
			return launch(co, e, p->gpu, nstripes, len, src, dst);
		return me.ret;
	}
	if (slot && co->inflight < co->slots) { /* a slot is free: no window, no wait */
		co->inflight++;
		pthread_mutex_unlock(&co->lock);
		pthread_cond_destroy(&me.cv);
		ret = launch(co, e, p->gpu, nstripes, len, src, dst);
		pthread_mutex_lock(&co->lock);
		slot_free(co);
		pthread_mutex_unlock(&co->lock);
		return ret;
	}

	/* The leader: open a window and hold it until it is full, or until its time is up
	 * (classic), or until a slot is free or its time (us > 0) is up (slot). */
	win = (struct window){ .key = p->gpu, .len = len, .cols = cols, .rows = p->rows,
			       .slot = slot, .wake = &me.cv, .next = co->open };
	co->open = &win;
	join(co, &win, &me);
	if (co->us)
		deadline_after(&until, co->us);
	while (!win.full && (!slot || co->inflight >= co->slots)) {
		if (!co->us)
			pthread_cond_wait(&me.cv, &co->lock);
		else if (pthread_cond_timedwait(&me.cv, &co->lock, &until))
			break; /* the time is up */
	}
	unlist(co, &win);
	if (slot)
		co->inflight++;
	pthread_mutex_unlock(&co->lock);

	ret = run_window(co, e, &win);

	pthread_mutex_lock(&co->lock);
	if (slot)
		slot_free(co);
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

/* ---- queued members ------------------------------------------------------------------------ */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Bucket i of a log2 histogram holds [2^i, 2^(i+1)); 0 also 0, the last everything above. */
static int hist_bucket(uint64_t v)
{
	const int b = v ? 63 - __builtin_clzll(v) : 0;

	return b < GFEC_COALESCE_HIST ? b : GFEC_COALESCE_HIST - 1;
}

/*
 * A closed queued window: one engine call over all its stripes (the engine picks the backend
 * for that many bytes, and redoes it on the CPU after a GPU error), then each member's end.
 * Without memory for the tables each member runs its own call.
 */
static void run_queued(struct gfec_coalesce *co, struct window *w, int full)
{
	const uint64_t t0 = now_ns();
	const uint8_t **src;
	uint8_t **dst;
	uint64_t us;
	int ret = 0, alone = 0;

	if (w->ncallers == 1) {
		ret = gfec_engine_gemm_direct(w->e, w->ep, w->cols, w->nstripes, w->len,
					      w->head->src, w->head->dst);
	} else if (concat(w, &src, &dst) == 0) {
		ret = gfec_engine_gemm_direct(w->e, w->ep, w->cols, w->nstripes, w->len, src, dst);
		free(src);
		free(dst);
	} else {
		count(&co->st.solo, (uint64_t)w->ncallers);
		alone = 1;
	}
	for (struct member *m = w->head; m; m = m->next)
		m->ret = alone ? gfec_engine_gemm_direct(w->e, w->ep, w->cols, m->nstripes, w->len,
							 m->src, m->dst)
			       : ret;
	us = (now_ns() - t0) / 1000;
	count(&co->st.q_windows, 1);
	count(full ? &co->st.q_full : &co->st.q_deadline, 1);
	count(&co->st.q_requests, (uint64_t)w->ncallers);
	count(&co->st.q_stripes, (uint64_t)w->nstripes);
	count(&co->st.q_run_us[hist_bucket(us)], 1);
	for (struct member *m = w->head, *next; m; m = next) {
		next = m->next;
		m->end(m->end_ctx, m->arg, m->ret); /* it may free or resubmit its request */
		free(m);
	}
}

/* A queued window's job, due at its deadline or once it is full: close it and run it. */
static void lead(struct gfec_job *job)
{
	struct window *w = (struct window *)((char *)job - offsetof(struct window, job));
	struct gfec_coalesce *co = w->co;
	int full;

	pthread_mutex_lock(&co->lock);
	if (!w->gone)
		unlist(co, w);
	full = w->full;
	pthread_mutex_unlock(&co->lock);
	if (w->head) /* else every member was withdrawn */
		run_queued(co, w, full);
	free(w);
}

int gfec_coalesce_submit(struct gfec_coalesce *co, struct gfec_engine *e,
			 const struct gfec_eplan *p, int cols, int nstripes, size_t len,
			 const uint8_t *const *src, uint8_t *const *dst,
			 const struct gfec_coalesce_req *r)
{
	struct member *m;
	struct window *w;
	int dev;

	if (!r->post || !r->hurry || !r->done || !r->us || r->max_stripes < 1 || nstripes < 1 ||
	    nstripes > MAX_WINDOW_STRIPES)
		return GFEC_E_INVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return GFEC_E_NOMEM;
	*m = (struct member){ .src = src, .dst = dst, .nstripes = nstripes,
			      .bytes = (uint64_t)len * (uint64_t)cols * (uint64_t)nstripes,
			      .end = r->done, .end_ctx = r->done_ctx, .arg = r->arg };
	dev = gfec_engine_is_device(e, src[0]) || gfec_engine_is_device(e, dst[0]);
	pthread_mutex_lock(&co->lock);
	w = find(co, p, cols, len, nstripes, 1, dev, 0);
	if (w) {
		join(co, w, m);
		pthread_mutex_unlock(&co->lock);
		return 0;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		pthread_mutex_unlock(&co->lock);
		free(m);
		return GFEC_E_NOMEM;
	}
	*w = (struct window){ .key = p, .len = len, .cols = cols, .rows = p->rows, .queued = 1,
			      .dev = dev, .next = co->open, .co = co, .e = e, .ep = p,
			      .max_stripes = r->max_stripes, .hurry = r->hurry,
			      .post_ctx = r->post_ctx,
			      .job = { .run = lead, .at = now_ns() + (uint64_t)r->us * 1000 } };
	co->open = w;
	join(co, w, m);
	pthread_mutex_unlock(&co->lock);
	if (r->post(r->post_ctx, &w->job)) {
		/* Nobody to lead it: it closes now, with whoever joined, and runs here. */
		pthread_mutex_lock(&co->lock);
		w->full = 1;
		pthread_mutex_unlock(&co->lock);
		lead(&w->job);
	}
	return 0;
}

int gfec_coalesce_cancel(struct gfec_coalesce *co, const void *arg)
{
	pthread_mutex_lock(&co->lock);
	for (struct window *w = co->open; w; w = w->next) {
		struct member *prev = NULL;

		if (!w->queued)
			continue;
		for (struct member *m = w->head; m; prev = m, m = m->next) {
			if (m->arg != arg)
				continue;
			if (prev)
				prev->next = m->next;
			else
				w->head = m->next;
			if (w->tail == m)
				w->tail = prev;
			w->nstripes -= m->nstripes;
			w->ncallers--;
			w->bytes -= m->bytes;
			if (!w->head) { /* nothing to wait for: nobody joins it, its job frees it */
				unlist(co, w);
				w->gone = 1;
				w->hurry(w->post_ctx, &w->job);
			}
			pthread_mutex_unlock(&co->lock);
			free(m);
			count(&co->st.q_cancelled, 1);
			return 0;
		}
	}
	pthread_mutex_unlock(&co->lock);
	return GFEC_E_INVAL;
}
