/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file threadpool.h
 * A small fork-join pool shared by every caller of one backend context (the CPU backend's
 * slices, the GPU backend's staging copies). A caller hands in n independent tasks and works on
 * them itself alongside the workers, so a pool of T threads has T-1 workers and a call never
 * waits for a free worker. Many callers may run jobs at once.
 */
#ifndef GFEC_BASE_THREADPOOL_H
#define GFEC_BASE_THREADPOOL_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gfec_cpu_pool;

/**
 * pthread_create() for the library's own threads: the new thread starts with every signal
 * blocked, so a process signal (SIGTERM, SIGINT, a daemon's SIGHUP) is never handled on a
 * gfec thread, where the handler could race with the caller freeing what it touches. Inline, so
 * the ingest server (above libgfec.so, which does not export it) starts its threads the same way.
 * @returns pthread_create()'s result.
 */
static inline int gfec_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

typedef void (*gfec_cpu_task_fn)(void *arg, size_t index);

/** Starts @p threads - 1 workers. @returns 0, GFEC_E_INVAL, GFEC_E_NOMEM or GFEC_E_SYSTEM. */
int gfec_cpu_pool_create(int threads, struct gfec_cpu_pool **out);

/** Stops and joins the workers. No job may be running. NULL is accepted. */
void gfec_cpu_pool_destroy(struct gfec_cpu_pool *pool);

/** Threads that work on a job, the caller included. */
int gfec_cpu_pool_threads(const struct gfec_cpu_pool *pool);

/** Runs fn(arg, i) for every i < ntasks and returns when all have finished. */
void gfec_cpu_pool_run(struct gfec_cpu_pool *pool, size_t ntasks, gfec_cpu_task_fn fn, void *arg);

#ifdef __cplusplus
}
#endif
#endif
