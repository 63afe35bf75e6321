// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file mma_emulate.h
 * The instruction the GF(2^8) and GF(2^16) binary tensor-core kernels are built on,
 * mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc, on the CPU from the PTX ISA's
 * fragment layout (lane = 4 * g + t), for the emulations of those kernels (bmma_emulate.cpp,
 * gemm16_emulate.cpp): one definition, so both kernels are checked against the same reading of
 * the instruction.
 */
#ifndef GFEC_TESTS_MMA_EMULATE_H
#define GFEC_TESTS_MMA_EMULATE_H

#include <stdint.h>

/* A lane's four A registers (a0..a3), as the kernels load them (uint4). */
struct U4 {
	uint32_t x, y, z, w;
};

/*
 * The instruction over a warp: per lane, a[lane] = {a0..a3} and b0/b1[lane]; c[lane][0..3] +=
 * the popcounts of A's rows AND B's columns (256 bits each).
 */
static inline void mma_and_popc(const U4 *a, const uint32_t *b0, const uint32_t *b1,
				int32_t (*c)[4])
{
	uint32_t A[16][8] = {}, B[8][8] = {}; // A[row][K word], B[col][K word]

	for (int lane = 0; lane < 32; lane++) {
		const int g = lane >> 2, t = lane & 3;

		A[g][t] = a[lane].x;
		A[g + 8][t] = a[lane].y;
		A[g][4 + t] = a[lane].z;
		A[g + 8][4 + t] = a[lane].w;
		B[g][t] = b0[lane];
		B[g][4 + t] = b1[lane];
	}
	for (int lane = 0; lane < 32; lane++) {
		const int g = lane >> 2, t = lane & 3;
		const int rr[4] = {g, g, g + 8, g + 8},
			  nn[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};

		for (int k = 0; k < 4; k++)
			for (int w = 0; w < 8; w++)
				c[lane][k] += __builtin_popcount(A[rr[k]][w] & B[nn[k]][w]);
	}
}

#endif
