/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file log_sink.h
 * A log sink: a callback, its argument and a level filter behind one lock, so that setting the
 * callback and logging may race freely. The library's own sink (gfec_set_log) is one of these;
 * a component that keeps a callback of its own (the ingest server's gfec_rdma_set_log) declares
 * its own sink with GFEC_LOG_SINK_INIT and logs through the same two functions. Header-only, so
 * that a caller above libgfec.so can use it without linking a second copy of the floor.
 */
#ifndef GFEC_BASE_LOG_SINK_H
#define GFEC_BASE_LOG_SINK_H

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "gfec/gfec_log.h"

struct gfec_log_sink {
	pthread_mutex_t lock;
	gfec_log_fn fn;
	void *user;
	enum gfec_log_level max;
};

#define GFEC_LOG_SINK_INIT { PTHREAD_MUTEX_INITIALIZER, NULL, NULL, GFEC_LOG_WARN }

static inline void gfec_log_sink_set(struct gfec_log_sink *s, gfec_log_fn fn, void *user,
				     enum gfec_log_level max_level)
{
	pthread_mutex_lock(&s->lock);
	s->fn = fn;
	s->user = user;
	s->max = max_level;
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

	pthread_mutex_lock(&s->lock);
	if (s->fn && level <= s->max) {
		vsnprintf(msg, sizeof(msg), fmt, ap);
		s->fn(level, msg, s->user);
	}
	pthread_mutex_unlock(&s->lock);
}

/** The library's sink (gfec_set_log): every layer of libgfec logs through this. printf-style. */
void gfec_log(enum gfec_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
