/* SPDX-License-Identifier: BSD-3-Clause */
/** @file perf_daemon.h  `gfec-perf daemon`: concurrent single-stripe callers on one codec
 * (perf_daemon.c). */
#ifndef GFEC_PERF_DAEMON_H
#define GFEC_PERF_DAEMON_H

#include <stdio.h>

/** `gfec-perf daemon ...` (argv[0] is "daemon"). The process exit status. */
int perf_daemon_main(int argc, char **argv);
void perf_daemon_usage(FILE *f);

#endif
