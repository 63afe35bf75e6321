// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file xorshift64.h
 * The random draws of the CPU emulations of the GPU's tensor-core and butterfly kernels
 * (bmma_emulate.cpp, gemm16_emulate.cpp, bfly16_emulate.cpp): Vigna's xorshift64* from a seed each
 * emulation fixes, the generator test_util.h's test_rand() runs (whose C-only header the C++
 * emulations do not include).
 */
#ifndef GFEC_TESTS_XORSHIFT64_H
#define GFEC_TESTS_XORSHIFT64_H

#include <stdint.h>

/* static Xorshift64Star rnd{SEED}; then rnd() draws the next 64 bits, rnd.range(lo, hi) an int. */
struct Xorshift64Star {
	uint64_t state;

	uint64_t operator()()
	{
		state ^= state >> 12;
		state ^= state << 25;
		state ^= state >> 27;
		return state * 0x2545f4914f6cdd1dull;
	}

	/* Uniform in [lo, hi]: one draw. */
	int range(int lo, int hi)
	{
		return lo + (int)((*this)() % (uint64_t)(hi - lo + 1));
	}
};

#endif
