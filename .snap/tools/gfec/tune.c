/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file tune.c
 * gfec tune: hands over to gfec-perf's tune mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char help_tune[] =
    "usage: gfec tune [OPTIONS]\n"
    "\n"
    "Runs 'gfec-perf tune' (installed next to gfec): measures from which chunk size this\n"
    "CPU's GFNI kernels store parity faster by non-temporal stores and, with a GPU, times\n"
    "every compiled GPU kernel per (k,m) and chunk size and measures the CPU/GPU crossover;\n"
    "writes the winners to ~/.config/gfec/gfec.conf (or --config FILE). 'gfec tune --help'\n"
    "shows its options.\n";

/*
 * gfec tune is gfec-perf's tune mode: its sweeps need the timing code (and, for the GPU, the
 * GPU memory) that belongs in perf/. Found next to this program (installed), or in the build
 * tree's perf/ beside tools/.
 */
int cmd_tune(int argc, char **argv)
{
	char self[4096], path[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash, **args;

	if (n <= 0)
		return fail(GFEC_EXIT_INTERNAL, "tune: cannot find my own path");
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args)
		return out_of_memory();
	args[0] = (char *)"gfec-perf";
	for (int i = 0; i < argc; i++)
		args[i + 1] = argv[i]; /* argv[0] is "tune" */
	snprintf(path, sizeof(path), "%s/gfec-perf", self);
	execv(path, args);
	snprintf(path, sizeof(path), "%s/../perf/gfec-perf", self);
	execv(path, args);
	execvp("gfec-perf", args);
	free(args);
	return fail(GFEC_EXIT_INTERNAL, "tune: gfec-perf not found next to %s or on PATH", self);
}
