/* SPDX-License-Identifier: BSD-3-Clause */
/** @file perf_nc.h  `gfec-perf nc`: RLC (gfec_nc.h) rows on the CPU and the GPU (perf_nc.c). */
#ifndef GFEC_PERF_NC_H
#define GFEC_PERF_NC_H

#include <stdio.h>

/** `gfec-perf nc ...` (argv[0] is "nc"). The process exit status. */
int perf_nc_main(int argc, char **argv);
void perf_nc_usage(FILE *f);

#endif
