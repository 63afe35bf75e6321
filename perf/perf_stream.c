/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file perf_stream.c
 * The CPU memory-traffic bound of an encode: read the k data chunks and write m outputs, as an
 * encode does, with one XOR per input byte instead of GF(2^8) multiply-adds. perf_ceilings.c runs
 * it through the raw ISA-L pool (same threads, ranges, barriers and rotation), so the only
 * difference from an encode is the arithmetic.
 *
 * A bound has to run at full speed in every build, as the prebuilt ISA-L it bounds does: this file
 * is always compiled optimised and without sanitizer instrumentation (perf/CMakeLists.txt).
 */
#include <stdint.h>
#include <string.h>

#include "perf_isal.h"

typedef uint8_t vec16 __attribute__((vector_size(16)));

void perf_stream_init(int k, int rows, unsigned char *a, unsigned char *gftbls)
{
	(void)k, (void)rows, (void)a, (void)gftbls;
}

void perf_stream_encode(int len, int k, int rows, unsigned char *tbls, unsigned char **data,
			unsigned char **coding)
{
	int i = 0;

	(void)tbls;
	/* 64 bytes of each chunk per step: four vectors per pointer loaded */
	for (; i + 64 <= len; i += 64) {
		vec16 acc[4], v[4];

		memcpy(acc, data[0] + i, 64);
		for (int j = 1; j < k; j++) {
			memcpy(v, data[j] + i, 64);
			for (int x = 0; x < 4; x++)
				acc[x] ^= v[x];
		}
		for (int j = 0; j < rows; j++)
			memcpy(coding[j] + i, acc, 64);
	}
	for (; i < len; i++) {
		uint8_t acc = data[0][i];

		for (int j = 1; j < k; j++)
			acc ^= data[j][i];
		for (int j = 0; j < rows; j++)
			coding[j][i] = acc;
	}
}
