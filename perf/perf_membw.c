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

/*
 * The same two sweeps over @p streams interleaved parts of [p, p + n) at once (the tail of each
 * part's 64-byte blocks aside). One stream per thread leaves the memory system idle on hosts
 * whose bandwidth needs many misses in flight per core; a kernel reading k sources and updating
 * m outputs keeps k + m streams going, and on the H200 host's Xeon an update (5 streams) moved
 * 1.5x what the one-stream sweeps did. The ceiling takes the best of every sweep.
 */
uint64_t perf_mem_read_streams(const uint8_t *p, size_t n, int streams)
{
	const size_t part = n / (size_t)streams / 64 * 64;
	vec16 acc[4] = { { 0 } }, v[4];
	uint64_t fold[8], out = 0;

	for (size_t i = 0; i < part; i += 64)
		for (int s = 0; s < streams; s++) {
			memcpy(v, p + (size_t)s * part + i, 64);
			for (int x = 0; x < 4; x++)
				acc[x] ^= v[x];
		}
	memcpy(fold, acc, 64);
	for (int x = 0; x < 8; x++)
		out ^= fold[x];
	return out;
}

void perf_mem_rmw_streams(uint8_t *p, size_t n, int streams)
{
	const size_t part = n / (size_t)streams / 64 * 64;
	const vec16 flip = { 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
			     0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a };
	vec16 v[4];

	for (size_t i = 0; i < part; i += 64)
		for (int s = 0; s < streams; s++) {
			uint8_t *q = p + (size_t)s * part + i;

			memcpy(v, q, 64);
			for (int x = 0; x < 4; x++)
				v[x] ^= flip;
			memcpy(q, v, 64);
		}
}
