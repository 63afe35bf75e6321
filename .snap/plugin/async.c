/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file async.c
 * gfec_submit()/gfec_wait(): requests queued to a codec's own worker threads, so a caller (the
 * RDMA batcher, an OSD op thread) hands work off and learns of its end by callback or by waiting.
 * Workers run each request through the owner's executor (the codec's synchronous calls), so
 * results, fallbacks and counters are the same as for a direct call. Requests complete in any
 * order. The workers start with the first request: a codec that never submits has no threads.
 * They also run jobs (gfec_async_post: the coalescer's windows, coalesce.h), ahead of requests,
 * each once its time (job->at) has come: a job whose time is ahead holds no worker, the idle
 * workers sleep until the nearest one; gfec_async_hurry makes a job due now. When the queue
 * stops, every job is due.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "coalesce.h"
#include "internal.h"
#include "threadpool.h"

enum { REQ_QUEUED = 1, REQ_RUNNING, REQ_DONE };

struct gfec_async {
	gfec_async_exec_fn exec;
	void *owner;
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct gfec_request *head, *tail;
	struct gfec_job *jobs; /* in posting order */
	int stop, started, nthreads, maxthreads;
	pthread_t threads[];
};

/* r ran with @p status (lock not held): its callback, or a wake-up for gfec_async_wait. */
static void finish(struct gfec_async *a, struct gfec_request *r, int status)
{
	void (*done)(struct gfec_request *, void *) = r->done;
	void *user = r->user;

	r->status = status;
	pthread_mutex_lock(&a->lock);
	r->state_ = REQ_DONE;
	if (!done)
		pthread_cond_broadcast(&a->done);
	pthread_mutex_unlock(&a->lock);
	/* The callback may free or reuse r: it is not touched afterwards. */
	if (done)
		done(r, user);
}

uint64_t gfec_async_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Under a->lock: takes the first job that is due, or NULL with *next the nearest time ahead. */
static struct gfec_job *take_due(struct gfec_async *a, uint64_t *next)
{
	const uint64_t now = a->jobs && !a->stop ? gfec_async_now() : 0;

	*next = UINT64_MAX;
	for (struct gfec_job **pp = &a->jobs; *pp; pp = &(*pp)->next) {
		struct gfec_job *j = *pp;

		if (a->stop || j->at <= now) {
			*pp = j->next;
			return j;
		}
		if (j->at < *next)
			*next = j->at;
	}
	return NULL;
}

static void *worker(void *arg)
{
	struct gfec_async *a = arg;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		struct gfec_request *r = a->head;
		uint64_t next;
		struct gfec_job *j = take_due(a, &next);

		if (j) {
			pthread_mutex_unlock(&a->lock);
			j->run(j); /* it may free j */
			pthread_mutex_lock(&a->lock);
			continue;
		}
		if (!r) {
			if (a->stop && !a->jobs)
				break;
			if (next == UINT64_MAX) {
				pthread_cond_wait(&a->work, &a->lock);
			} else {
				const struct timespec ts = { .tv_sec = (time_t)(next / 1000000000u),
							     .tv_nsec = (long)(next % 1000000000u) };

				pthread_cond_timedwait(&a->work, &a->lock, &ts);
			}
			continue;
		}
		a->head = r->next_;
		if (!a->head)
			a->tail = NULL;
		r->state_ = REQ_RUNNING;
		pthread_mutex_unlock(&a->lock);
		finish(a, r, a->exec(a->owner, r));
		pthread_mutex_lock(&a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

struct gfec_async *gfec_async_create(gfec_async_exec_fn exec, void *owner, int nthreads)
{
	struct gfec_async *a = calloc(1, sizeof(*a) + (size_t)nthreads * sizeof(pthread_t));
	pthread_condattr_t ca;

	if (!a)
		return NULL;
	a->exec = exec;
	a->owner = owner;
	a->maxthreads = nthreads;
	pthread_mutex_init(&a->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* job times are gfec_async_now()'s */
	pthread_cond_init(&a->work, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&a->done, NULL);
	return a;
}

/* Under a->lock: the first call starts the workers (once, even when none could start). */
static void start_workers(struct gfec_async *a)
{
	if (a->started)
		return;
	a->started = 1;
	for (; a->nthreads < a->maxthreads; a->nthreads++)
		if (gfec_thread_start(&a->threads[a->nthreads], worker, a) != 0)
			break;
}

void gfec_async_destroy(struct gfec_async *a)
{
	if (!a)
		return;
	/* Workers finish everything queued before they stop: no request is dropped. */
	pthread_mutex_lock(&a->lock);
	a->stop = 1;
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
	for (int i = 0; i < a->nthreads; i++)
		pthread_join(a->threads[i], NULL);
	pthread_cond_destroy(&a->done);
	pthread_cond_destroy(&a->work);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

/* Takes the lock with the workers started: 0, or GFEC_E_SYSTEM (unlocked) when none runs. */
static int lock_running(struct gfec_async *a)
{
	pthread_mutex_lock(&a->lock);
	start_workers(a);
	if (!a->nthreads || a->stop) {
		pthread_mutex_unlock(&a->lock);
		return GFEC_E_SYSTEM;
	}
	return 0;
}

/* Under a->lock: r is pending. */
static void mark_queued(struct gfec_request *r)
{
	r->next_ = NULL;
	r->status = 0;
	r->state_ = REQ_QUEUED;
}

int gfec_async_submit(struct gfec_async *a, struct gfec_request *r)
{
	if (lock_running(a))
		return GFEC_E_SYSTEM;
	mark_queued(r);
	if (a->tail)
		a->tail->next_ = r;
	else
		a->head = r;
	a->tail = r;
	/* every idle worker: the one this wakes may take it, another must keep the jobs' time */
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
	return 0;
}

int gfec_async_post(struct gfec_async *a, struct gfec_job *job)
{
	struct gfec_job **pp;

	if (lock_running(a))
		return GFEC_E_SYSTEM;
	for (pp = &a->jobs; *pp;) /* a few windows at most */
		pp = &(*pp)->next;
	job->next = NULL;
	*pp = job;
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
	return 0;
}

void gfec_async_hurry(struct gfec_async *a, struct gfec_job *job)
{
	pthread_mutex_lock(&a->lock);
	job->at = 0;
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
}

void gfec_async_begin(struct gfec_async *a, struct gfec_request *r)
{
	pthread_mutex_lock(&a->lock);
	mark_queued(r);
	pthread_mutex_unlock(&a->lock);
}

void gfec_async_complete(struct gfec_async *a, struct gfec_request *r, int status)
{
	finish(a, r, status);
}

void gfec_async_abandon(struct gfec_async *a, struct gfec_request *r)
{
	pthread_mutex_lock(&a->lock);
	r->status = GFEC_E_INVAL;
	r->state_ = REQ_DONE;
	pthread_cond_broadcast(&a->done);
	pthread_mutex_unlock(&a->lock);
}

int gfec_async_wait(struct gfec_async *a, struct gfec_request *r)
{
	pthread_mutex_lock(&a->lock);
	if (!a->nthreads && r->state_ != REQ_DONE) {
		pthread_mutex_unlock(&a->lock);
		return GFEC_E_INVAL;
	}
	while (r->state_ != REQ_DONE)
		pthread_cond_wait(&a->done, &a->lock);
	pthread_mutex_unlock(&a->lock);
	return r->status;
}
