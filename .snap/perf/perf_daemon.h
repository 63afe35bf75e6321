/* SPDX-License-Identifier: BSD-3-Clause */
/** @file perf_daemon.h  `gfec-perf daemon`: concurrent single-stripe callers on one codec
 * (perf_daemon.c). */
#ifndef GFEC_PERF_DAEMON_H
#define GFEC_PERF_DAEMON_H

#include <stdio.h>

/** `gfec-perf daemon ...` (argv[0] is "daemon"). The process exit status. */
int perf_daemon_main(int argc, char **argv);
void perf_daemon_usage(FILE *f);

/**
 * For gfec tune: for each profile and caller count, that many threads share one codec made from
 * the profile, each looping synchronous single-stripe encodes of RS(k,m) @p chunk-byte chunks on
 * its own pageable stripes (rotated over at least @p rotate bytes in all, as the daemon's rows)
 * for @p seconds after one warm-up call each: aggregate data GB/s into
 * gbps[profile * ncallers + caller]. 0; -1 with the reason in @p why.
 */
int perf_daemon_rates(int k, int m, size_t chunk, size_t rotate, double seconds,
		      const char *const *profiles, int nprofiles, const int *callers,
		      int ncallers, double *gbps, char *why, size_t whylen);

#endif
