/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_membw.c
 * The read-only and the in-place (read, modify, write back) sweeps of the CPU memory-bandwidth
 * ceiling (perf_ceilings.c; its copy is glibc's memcpy). A bound has to run at full speed in every build, as the prebuilt ISA-L it bounds does,
 * so this file is always compiled optimised and without sanitizer instrumentation
 * (perf/CMakeLists.txt).
 */
#include <stdint.h>
#include <string.h>

#include "gfec_perf.h"

typedef uint8_t vec16 __attribute__((vector_size(16)));

uint64_t perf_mem_read(const uint8_t *p, size_t n)
{
	vec16 acc[4] = { { 0 } }, v[4];
	uint64_t fold[8], out = 0;
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		memcpy(v, p + i, 64);
		for (int x = 0; x < 4; x++)
			acc[x] ^= v[x];
	}
	memcpy(fold, acc, 64);
	for (int x = 0; x < 8; x++)
		out ^= fold[x];
	for (; i < n; i++)
		out ^= p[i];
	return out;
}

void perf_mem_rmw(uint8_t *p, size_t n)
{
	const vec16 flip = { 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
			     0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a };
	vec16 v[4];
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		memcpy(v, p + i, 64);
		for (int x = 0; x < 4; x++)
			v[x] ^= flip;
		memcpy(p + i, v, 64);
	}
	for (; i < n; i++)
		p[i] ^= 0x5a;
}
