/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file cpu_path.c
 * The CPU path names and the decisions of which path auto means on this CPU, from which chunk
 * size its GFNI kernels store by non-temporal stores and whether they prefetch, apart from
 * cpu_backend.c because the ISA-L drop-in (plugin/isal_abi), which cannot link that file, makes
 * the same decisions.
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

/* What CPUID says, read once (read_cpu()): the best path, and whether the maker is AMD. */
static enum gfec_cpu_path best_path;
static int amd;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

/*
 * Without GFNI, ISA-L's AVX-512 kernels where the CPU has AVX-512BW (gfec's AVX2 kernel was never
 * measured against them), else gfec's AVX2 kernel, which beat both Debian's ISA-L 2.30 and
 * upstream 2.32.1's AVX2 kernels on the development machine.
 */
static void read_cpu(void)
{
	__builtin_cpu_init();
	amd = __builtin_cpu_is("amd");
	best_path = gfec_cpu_path_supported(GFEC_CPU_GFNI512)	? GFEC_CPU_GFNI512
		    : gfec_cpu_path_supported(GFEC_CPU_GFNI256) ? GFEC_CPU_GFNI256
		    : __builtin_cpu_supports("avx512bw")	? GFEC_CPU_ISAL
		    : gfec_cpu_path_supported(GFEC_CPU_AVX2)	? GFEC_CPU_AVX2
								: GFEC_CPU_ISAL;
}

enum gfec_cpu_path gfec_cpu_path_best(void)
{
	pthread_once(&cpu_once, read_cpu);
	return best_path;
}

/*
 * Non-temporal parity stores, one thread of RS(10,4) and RS(8,3) with 1 MiB chunks, off -> on
 * against upstream ISA-L 2.32.1 in the same run:
 * - Intel (the H200 host's Xeon, perf/results/nvidia-h200/device-run-2026-11-24g/nt.log): from
 *   DRAM 0.99 -> 1.20x, in cache 1.07 -> 1.25x; 16 threads 0.98 -> 1.20x; 64 KiB (the slice
 *   size) and up take them.
 * - AMD (a Zen 5 EPYC, perf/results/dev-epyc-zen5-2core/isal-2026-11-25/stream_min.log): from
 *   DRAM 1.32 -> 1.19x, in cache 1.48 -> 0.75x. gfec tune there (isal-2026-11-25b/) found them
 *   slower in cache up to 1 MiB chunks (0.45-0.72x), even cold, and faster from 4 MiB, whose
 *   stripes outgrow its L3 (and RS(10,4) 16 MiB on both cores +20%): from 4 MiB.
 * Any other maker gets ordinary stores, as ISA-L writes. gfec tune measures the CPU it runs on.
 */
#define STREAM_MIN_INTEL ((size_t)64 << 10)
#define STREAM_MIN_AMD ((size_t)4 << 20)

size_t gfec_cpu_stream_min(size_t knob)
{
	if (knob != GFEC_STREAM_MIN_AUTO)
		return knob;
	__builtin_cpu_init();
	return __builtin_cpu_is("intel") ? STREAM_MIN_INTEL
	       : __builtin_cpu_is("amd") ? STREAM_MIN_AMD
					 : 0;
}

/*
 * Prefetching the sources 512 bytes ahead, RS(10,4) from DRAM:
 * - Intel (the H200 host's Xeon, gfni.c): 16 MiB chunks on 16 threads, by non-temporal stores,
 *   28% faster with it.
 * - AMD (a Zen 5 EPYC, perf/results/dev-epyc-zen5-2core/prefetch-2026-11-25): by ordinary stores
 *   faster with it (1 MiB chunks, 1 thread 12.9 -> 18.9 GB/s), by non-temporal stores slower
 *   (16 MiB, 1 thread 29.3-30.0 -> 26.1-27.2; both cores 39.8-41.1 -> 30.3-31.0).
 * Any other maker prefetches, as before these were measured.
 */
int gfec_cpu_gfni_prefetch(int mode)
{
	/* once: the drop-in asks on every call; asking CPUID each time showed in 4 KiB calls */
	pthread_once(&cpu_once, read_cpu);
	return amd && mode == GFEC_GFNI_STREAM ? mode : mode | GFEC_GFNI_PREFETCH;
}
