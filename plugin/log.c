/* SPDX-License-Identifier: BSD-3-Clause */
/** @file log.c  The log callback, error strings, version and aligned buffers. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static gfec_log_fn log_fn;
static void *log_user;
static enum gfec_log_level log_max = GFEC_LOG_WARN;

void gfec_set_log(gfec_log_fn fn, void *user, enum gfec_log_level max_level)
{
	pthread_mutex_lock(&log_lock);
	log_fn = fn;
	log_user = user;
	log_max = max_level;
	pthread_mutex_unlock(&log_lock);
}

void gfec_log(enum gfec_log_level level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	pthread_mutex_lock(&log_lock);
	if (log_fn && level <= log_max) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		log_fn(level, msg, log_user);
	}
	pthread_mutex_unlock(&log_lock);
}

const char *gfec_strerror(int code)
{
	switch (code) {
	case GFEC_OK:
		return "success";
	case GFEC_E_INVAL:
		return "invalid argument";
	case GFEC_E_PROFILE:
		return "invalid profile";
	case GFEC_E_NOMEM:
		return "out of memory";
	case GFEC_E_NOTSUP:
		return "operation not supported by this backend";
	case GFEC_E_NOBACKEND:
		return "requested backend is not available";
	case GFEC_E_NOT_MDS:
		return "generator matrix is not MDS for this (k,m)";
	case GFEC_E_SINGULAR:
		return "matrix is singular";
	case GFEC_E_TOOFEW:
		return "fewer than k chunks available";
	case GFEC_E_MISMATCH:
		return "parity does not match the data";
	case GFEC_E_SYSTEM:
		return "system call failed";
	case GFEC_E_DEVICE:
		return "GPU or driver error";
	case GFEC_E_BUDGET:
		return "check too large to run exhaustively";
	default:
		return "unknown gfec error";
	}
}

const char *gfec_version(void)
{
	return STR(GFEC_VERSION_MAJOR) "." STR(GFEC_VERSION_MINOR) "." STR(GFEC_VERSION_PATCH);
}

void *gfec_alloc(size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, GFEC_ALIGN, size ? size : 1) != 0)
		return NULL;
	return p;
}

void gfec_free(void *p)
{
	free(p);
}
