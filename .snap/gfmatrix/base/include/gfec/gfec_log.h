/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_log.h
 * Where gfec's messages go: one process-wide callback, set by the caller. Nothing in gfec prints;
 * a library inside a storage daemon hands its messages to the daemon's own log.
 */
#ifndef GFEC_LOG_H
#define GFEC_LOG_H

#include "gfec_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gfec_log_level { GFEC_LOG_ERROR = 0, GFEC_LOG_WARN = 1, GFEC_LOG_INFO = 2, GFEC_LOG_DEBUG = 3 };

/** Receives every message gfec logs. Must be thread-safe; msg is valid only during the call. */
typedef void (*gfec_log_fn)(enum gfec_log_level level, const char *msg, void *user);

/** Sets the process-wide log callback (NULL: silence) and the most verbose level passed on. */
GFEC_API void gfec_set_log(gfec_log_fn fn, void *user, enum gfec_log_level max_level);

#ifdef __cplusplus
}
#endif
#endif
