/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file log.c
 * The ingest server's log sink: every message of rdma/ goes through rdma_log(), one line at a
 * time, into a sink of the floor's kind (log_sink.h): one lock, so lines of different threads
 * never interleave and the callback can be swapped while servers run.
 */
#include <stdarg.h>

#include "internal.h"
#include "log_sink.h"

static struct gfec_log_sink sink = GFEC_LOG_SINK_INIT;

void gfec_rdma_set_log(gfec_log_fn fn, void *user, enum gfec_log_level max_level)
{
	gfec_log_sink_set(&sink, fn, user, max_level);
}

void rdma_log(enum gfec_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gfec_log_sink_vwrite(&sink, level, fmt, ap);
	va_end(ap);
}
