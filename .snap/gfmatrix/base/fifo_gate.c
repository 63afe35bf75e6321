/* SPDX-License-Identifier: BSD-3-Clause */
/** @file fifo_gate.c  Callers through in arrival order while their units fit (fifo_gate.h). */
#include "fifo_gate.h"

#include "gfec/gfec_errors.h"

/* A caller in line, on its own stack: a leave sets go once its units are counted as held. */
struct gfec_fifo_waiter {
	pthread_cond_t cv;
	uint64_t units;
	int go;
	struct gfec_fifo_waiter *next;
};

int gfec_fifo_gate_init(struct gfec_fifo_gate *g, uint64_t cap)
{
	*g = (struct gfec_fifo_gate){ .cap = cap };
	return pthread_mutex_init(&g->lock, NULL) ? GFEC_E_SYSTEM : 0;
}

void gfec_fifo_gate_destroy(struct gfec_fifo_gate *g)
{
	pthread_mutex_destroy(&g->lock);
}

/* With the lock held: whether @p units may be held now (always when nothing is). */
static int fits(const struct gfec_fifo_gate *g, uint64_t units)
{
	return g->held == 0 || (g->held + units <= g->cap && g->held + units >= g->held);
}

void gfec_fifo_gate_enter(struct gfec_fifo_gate *g, uint64_t units)
{
	struct gfec_fifo_waiter me = { .units = units };

	pthread_mutex_lock(&g->lock);
	if (!g->head && fits(g, units)) {
		g->held += units;
		pthread_mutex_unlock(&g->lock);
		return;
	}
	pthread_cond_init(&me.cv, NULL);
	if (g->tail)
		g->tail->next = &me;
	else
		g->head = &me;
	g->tail = &me;
	while (!me.go)
		pthread_cond_wait(&me.cv, &g->lock);
	pthread_mutex_unlock(&g->lock);
	pthread_cond_destroy(&me.cv);
}

void gfec_fifo_gate_leave(struct gfec_fifo_gate *g, uint64_t units)
{
	pthread_mutex_lock(&g->lock);
	g->held -= units;
	while (g->head && fits(g, g->head->units)) {
		struct gfec_fifo_waiter *w = g->head;

		g->head = w->next;
		if (!g->head)
			g->tail = NULL;
		g->held += w->units;
		w->go = 1;
		pthread_cond_signal(&w->cv); /* w lives until its owner has the lock back */
	}
	pthread_mutex_unlock(&g->lock);
}
