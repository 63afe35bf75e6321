/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file cpu_path.c
 * The CPU path names and the one decision of which path auto means on this CPU, apart from
 * cpu_backend.c because the ISA-L drop-in (plugin/isal_abi), which cannot link that file, makes
 * the same decision.
 */
#include <pthread.h>
#include <string.h>

#include "cpu_backend.h"
#include "gfec/gfec_errors.h"

static const char *const path_names[] = {
	[GFEC_CPU_AUTO] = "auto",	[GFEC_CPU_GFNI512] = "gfni512", [GFEC_CPU_GFNI256] = "gfni256",
	[GFEC_CPU_ISAL] = "isal",	[GFEC_CPU_BASE] = "base",	[GFEC_CPU_AVX2] = "avx2",
};

int gfec_cpu_path_parse(const char *name, enum gfec_cpu_path *out)
{
	if (!name || !name[0]) {
		*out = GFEC_CPU_AUTO;
		return 0;
	}
	for (size_t i = 0; i < sizeof(path_names) / sizeof(path_names[0]); i++)
		if (strcmp(name, path_names[i]) == 0) {
			*out = (enum gfec_cpu_path)i;
			return 0;
		}
	return GFEC_E_INVAL;
}

const char *gfec_cpu_path_name(enum gfec_cpu_path path)
{
	return path_names[path];
}

int gfec_cpu_path_supported(enum gfec_cpu_path path)
{
	if (path == GFEC_CPU_GFNI512)
		return gfec_cpu_gfni_supported(512);
	if (path == GFEC_CPU_GFNI256)
		return gfec_cpu_gfni_supported(256);
	if (path == GFEC_CPU_AVX2)
		return gfec_cpu_avx2_supported();
	return 1;
}

static enum gfec_cpu_path best_path;
static pthread_once_t best_once = PTHREAD_ONCE_INIT;

/*
 * Without GFNI, ISA-L's AVX-512 kernels where the CPU has AVX-512BW (gfec's AVX2 kernel was never
 * measured against them), else gfec's AVX2 kernel, which beat both Debian's ISA-L 2.30 and
 * upstream 2.32.1's AVX2 kernels on the development machine.
 */
static void pick_best(void)
{
	__builtin_cpu_init();
	best_path = gfec_cpu_path_supported(GFEC_CPU_GFNI512)	? GFEC_CPU_GFNI512
		    : gfec_cpu_path_supported(GFEC_CPU_GFNI256) ? GFEC_CPU_GFNI256
		    : __builtin_cpu_supports("avx512bw")	? GFEC_CPU_ISAL
		    : gfec_cpu_path_supported(GFEC_CPU_AVX2)	? GFEC_CPU_AVX2
								: GFEC_CPU_ISAL;
}

enum gfec_cpu_path gfec_cpu_path_best(void)
{
	pthread_once(&best_once, pick_best);
	return best_path;
}
