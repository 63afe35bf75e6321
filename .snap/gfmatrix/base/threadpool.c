/* SPDX-License-Identifier: BSD-3-Clause */
/** @file threadpool.c  Fork-join pool: a queue of jobs, each a counter of unclaimed tasks. */
#include "threadpool.h"

#include <pthread.h>
#include <stdlib.h>

#include "gfec/gfec_errors.h"

struct job {
	gfec_cpu_task_fn fn;
	void *arg;
	size_t ntasks;
	size_t next;	/* first unclaimed task */
	size_t done;	/* finished tasks */
	struct job *link;
};

struct gfec_cpu_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;	/* a job with unclaimed tasks was queued, or stop */
	pthread_cond_t finished; /* some job finished a task */
	struct job *head, *tail; /* jobs that still have unclaimed tasks */
	int stop;
	int nworkers;
	pthread_t *workers;
};

/* With the lock held: claims one task of the oldest job, unqueueing it once fully claimed. */
static struct job *claim(struct gfec_cpu_pool *p, size_t *index)
{
	struct job *j = p->head;

	if (!j)
		return NULL;
	*index = j->next++;
	if (j->next == j->ntasks) {
		p->head = j->link;
		if (!p->head)
			p->tail = NULL;
	}
	return j;
}

/* With the lock held: runs one claimed task unlocked, then records it. */
static void run_one(struct gfec_cpu_pool *p, struct job *j, size_t index)
{
	pthread_mutex_unlock(&p->lock);
	j->fn(j->arg, index);
	pthread_mutex_lock(&p->lock);
	if (++j->done == j->ntasks)
		pthread_cond_broadcast(&p->finished);
}

static void *worker(void *arg)
{
	struct gfec_cpu_pool *p = arg;
	struct job *j;
	size_t index;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		j = claim(p, &index);
		if (j)
			run_one(p, j, index);
		else
			pthread_cond_wait(&p->work, &p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int gfec_cpu_pool_create(int threads, struct gfec_cpu_pool **out)
{
	struct gfec_cpu_pool *p;
	int ret = 0;

	if (threads < 1 || !out)
		return GFEC_E_INVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return GFEC_E_NOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->finished, NULL);
	if (threads > 1) {
		p->workers = calloc((size_t)threads - 1, sizeof(pthread_t));
		if (!p->workers) {
			ret = GFEC_E_NOMEM;
			goto out;
		}
	}
	for (; p->nworkers < threads - 1; p->nworkers++)
		if (gfec_thread_start(&p->workers[p->nworkers], worker, p) != 0) {
			ret = GFEC_E_SYSTEM;
			goto out;
		}
out:
	if (ret) {
		gfec_cpu_pool_destroy(p);
		return ret;
	}
	*out = p;
	return 0;
}

void gfec_cpu_pool_destroy(struct gfec_cpu_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->nworkers; i++)
		pthread_join(p->workers[i], NULL);
	free(p->workers);
	pthread_cond_destroy(&p->finished);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

int gfec_cpu_pool_threads(const struct gfec_cpu_pool *p)
{
	return p->nworkers + 1;
}

void gfec_cpu_pool_run(struct gfec_cpu_pool *p, size_t ntasks, gfec_cpu_task_fn fn, void *arg)
{
	struct job j = { .fn = fn, .arg = arg, .ntasks = ntasks };
	size_t index;

	if (ntasks == 0)
		return;
	/*
	 * The job lives on this stack frame: it leaves the queue once its last task is claimed, and
	 * this function returns only after every task has finished, so no worker sees it afterwards.
	 */
	pthread_mutex_lock(&p->lock);
	if (p->tail)
		p->tail->link = &j;
	else
		p->head = &j; // cppcheck-suppress autoVariables
	p->tail = &j;	      // cppcheck-suppress autoVariables
	pthread_cond_broadcast(&p->work);

	/* Work on our own job until every task is claimed, then wait for the stragglers. */
	while (j.next < j.ntasks) {
		struct job *mine = &j;

		/* Our job may not be at the head; claim from it directly. */
		index = mine->next++;
		if (mine->next == mine->ntasks) {
			struct job **pp = &p->head, *prev = NULL;

			while (*pp != mine) {
				prev = *pp;
				pp = &(*pp)->link;
			}
			*pp = mine->link;
			if (p->tail == mine)
				p->tail = prev;
		}
		run_one(p, mine, index);
	}
	while (j.done < j.ntasks)
		pthread_cond_wait(&p->finished, &p->lock);
	pthread_mutex_unlock(&p->lock);
}
