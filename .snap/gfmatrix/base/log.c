/* SPDX-License-Identifier: BSD-3-Clause */
/** @file log.c  The library's log sink, behind gfec_set_log(). */
#include "log_sink.h"

static struct gfec_log_sink lib_sink = GFEC_LOG_SINK_INIT;

void gfec_set_log(gfec_log_fn fn, void *user, enum gfec_log_level max_level)
{
	gfec_log_sink_set(&lib_sink, fn, user, max_level);
}

void gfec_log(enum gfec_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gfec_log_sink_vwrite(&lib_sink, level, fmt, ap);
	va_end(ap);
}
