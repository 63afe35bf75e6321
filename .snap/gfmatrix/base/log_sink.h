/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file log_sink.h
 * A log sink: a callback, its argument and a level filter behind one lock, so that setting the
 * callback and logging may race freely. The library's own sink (gfec_set_log) is one of these;
 * a component that keeps a callback of its own (the ingest server's gfec_rdma_set_log) declares
 * its own sink with GFEC_LOG_SINK_INIT and logs through the same two functions. Header-only, so
 * that a caller above libgfec.so can use it without linking a second copy of the floor.
 *
 * The callback runs under the lock, so the sink remembers which thread is inside it: a callback
 * that calls back into gfec (which may log) or replaces the callback does not deadlock on its own
 * lock. A message logged from inside the callback is dropped (it would recurse); a
 * gfec_log_sink_set() from inside it takes effect at once.
 */
#ifndef GFEC_BASE_LOG_SINK_H
#define GFEC_BASE_LOG_SINK_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "gfec/gfec_log.h"

struct gfec_log_sink {
	pthread_mutex_t lock;
	gfec_log_fn fn;
	void *user;
	enum gfec_log_level max;
	/* the thread running the callback (it holds the lock), 0 when none */
	atomic_ulong inside;
};

#define GFEC_LOG_SINK_INIT { PTHREAD_MUTEX_INITIALIZER, NULL, NULL, GFEC_LOG_WARN, 0 }

/* 1 when the calling thread is inside @p s's callback, and so already holds its lock. */
static inline int gfec_log_sink_inside(struct gfec_log_sink *s)
{
	return atomic_load(&s->inside) == (unsigned long)pthread_self();
}

static inline void gfec_log_sink_set(struct gfec_log_sink *s, gfec_log_fn fn, void *user,
				     enum gfec_log_level max_level)
{
	const int inside = gfec_log_sink_inside(s);

	if (!inside)
		pthread_mutex_lock(&s->lock);
	s->fn = fn;
	s->user = user;
	s->max = max_level;
	if (!inside)
		pthread_mutex_unlock(&s->lock);
}

/**
 * Formats one message (cut at 511 bytes) and hands it to the sink's callback, if one is set and
 * @p level passes. The callback runs under the sink's lock: messages never interleave, and a
 * callback replaced by gfec_log_sink_set() is never called afterwards.
 */
static inline void gfec_log_sink_vwrite(struct gfec_log_sink *s, enum gfec_log_level level,
					const char *fmt, va_list ap)
{
	char msg[512];

	if (gfec_log_sink_inside(s))
		return;
	pthread_mutex_lock(&s->lock);
	if (s->fn && level <= s->max) {
		vsnprintf(msg, sizeof(msg), fmt, ap);
		atomic_store(&s->inside, (unsigned long)pthread_self());
		s->fn(level, msg, s->user);
		atomic_store(&s->inside, 0);
	}
	pthread_mutex_unlock(&s->lock);
}

/** The library's sink (gfec_set_log): every layer of libgfec logs through this. printf-style. */
void gfec_log(enum gfec_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
