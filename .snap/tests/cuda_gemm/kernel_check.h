// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file kernel_check.h
 * What the CPU emulations of the GPU kernels' index math (lt_emulate.cpp, nc_emulate.cpp) and the
 * GPU tests beside them (test_lt_gpu.cpp, test_nc_gpu.cpp) share: CHECK, which reports a failed
 * condition with its place and counts it in failures (the run stops after 20), and Marsaglia's
 * xorshift32 from a seed each emulation fixes.
 */
#ifndef GFEC_TESTS_KERNEL_CHECK_H
#define GFEC_TESTS_KERNEL_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			if (++failures > 20)                                                       \
				exit(1);                                                           \
		}                                                                                  \
	} while (0)

/* static Xorshift32 rnd{SEED}; then rnd() draws the next 32 bits. */
struct Xorshift32 {
	uint32_t state;

	uint32_t operator()()
	{
		state ^= state << 13;
		state ^= state >> 17;
		state ^= state << 5;
		return state;
	}
};

#endif
