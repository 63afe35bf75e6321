/* SPDX-License-Identifier: BSD-3-Clause */
/** @file perf_main.c  gfec-perf's entry point: the roofline run, or its tune, isal, nc and daemon modes. */
#include <string.h>

#include "gfec_perf.h"
#include "perf_daemon.h"
#include "perf_isal.h"
#include "perf_nc.h"

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "tune") == 0)
		return perf_tune_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "isal") == 0)
		return perf_isal_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "daemon") == 0)
		return perf_daemon_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "nc") == 0)
		return perf_nc_main(argc - 1, argv + 1);
	return perf_main(argc, argv);
}
