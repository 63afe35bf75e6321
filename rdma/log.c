/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file log.c
 * The ingest server's one log sink: every message of rdma/ goes through rdma_log(), so moving
 * to the library's shared sink is a change to this file only.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

/* The sink: every line of this module goes through rdma_log, one line at a time under
 * log_lock, so lines of different threads never interleave and the sink can be swapped while
 * servers run. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static gfec_log_fn log_fn;
static void *log_user;
static enum gfec_log_level log_max;

void gfec_rdma_set_log(gfec_log_fn fn, void *user, enum gfec_log_level max_level)
{
	pthread_mutex_lock(&log_lock);
	log_fn = fn;
	log_user = user;
	log_max = max_level;
	pthread_mutex_unlock(&log_lock);
}

void rdma_log(enum gfec_log_level level, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&log_lock);
	if (log_fn && level <= log_max)
		log_fn(level, msg, log_user);
	pthread_mutex_unlock(&log_lock);
}
