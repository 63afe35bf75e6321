// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gemm_seed.cuh
 * The baseline: seed 003's matrix-parallel kernel, with its bugs fixed. Kept because it is the
 * design the paper describes and the point every other variant is measured against.
 *
 *   block (T, T): ty picks one 4-byte word of the output tile, tx one slice of the k sum
 *
 *       k-tile of the data (T chunks x T words = T x 4T bytes, 128-byte rows when T = 32)
 *       is staged in shared memory with coalesced loads, the matching T columns of A too;
 *       thread (tx, ty) multiplies A(r, kt*T + tx) by word ty of chunk kt*T + tx for 8 rows r
 *       at a time, and the T partial sums of a word are XOR-reduced across tx with warp
 *       shuffles (T divides 32, so the T lanes of one word sit in one warp).
 *
 * Products go through log/exp tables in shared memory; the exp table has 512 entries so that
 * exp[log a + log b] needs no "% 255", and a zero operand is tested explicitly (the paper's
 * gf_mul returned exp[log 0 + log b] for it).
 */
#pragma once

#include "gemm_args.cuh"

namespace gfec {

template <int T> struct SeedTile {
	static constexpr int kThreads = T * T;
	static constexpr int kRowsPerPass = 8;
};

__device__ __forceinline__ uint32_t seed_mul4(const uint8_t *lg, const uint8_t *ex, uint8_t c,
					       uint32_t w)
{
	uint32_t r = 0;

	if (c == 0)
		return 0;
	const int lc = lg[c];
#pragma unroll
	for (int b = 0; b < 4; b++) {
		const uint32_t d = (w >> (8 * b)) & 0xff;

		if (d)
			r |= (uint32_t)ex[lc + lg[d]] << (8 * b);
	}
	return r;
}

template <int T>
__global__ void __launch_bounds__(T *T)
	gf_gemm_seed(GemmArgs args, const uint8_t *__restrict__ logexp)
{
	constexpr int R = SeedTile<T>::kRowsPerPass;
	__shared__ uint8_t lg[256], ex[512];
	__shared__ uint32_t dtile[T][T + 1]; // +1 word: no bank conflicts on the column reads
	__shared__ uint8_t atile[R][T];
	const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * T + tx;
	const size_t words = (args.len + 3) / 4;
	const size_t wtiles = (words + T - 1) / T;

	for (int i = tid; i < 256; i += T * T)
		lg[i] = logexp[i];
	for (int i = tid; i < 512; i += T * T)
		ex[i] = logexp[256 + i];
	__syncthreads();

	for (size_t item = blockIdx.x; item < (size_t)args.nstripes * wtiles; item += gridDim.x) {
		const int s = (int)(item / wtiles);
		const size_t w0 = (item % wtiles) * T;

		for (int r0 = 0; r0 < args.rows; r0 += R) {
			uint32_t acc[R];

#pragma unroll
			for (int r = 0; r < R; r++)
				acc[r] = 0;
			for (int kt = 0; kt < args.cols; kt += T) {
				// Stage: row ty of the tile is chunk kt+ty, words w0.. (coalesced).
				const int j = kt + ty;
				uint32_t v = 0;

				if (j < args.cols && w0 + tx < words) {
					const uint8_t *p = args.src[(size_t)s * args.cols + j] +
							   (w0 + tx) * 4;
					const size_t left = args.len - (w0 + tx) * 4;

					if (args.vec && left >= 4) {
						v = *(const uint32_t *)p;
					} else {
						for (size_t b = 0; b < (left < 4 ? left : 4); b++)
							v |= (uint32_t)p[b] << (8 * b);
					}
				}
				dtile[ty][tx] = v;
				if (ty < R)
					atile[ty][tx] =
						(r0 + ty < args.rows && kt + tx < args.cols)
							? args.a[(r0 + ty) * args.lda + kt + tx]
							: 0;
				__syncthreads();
#pragma unroll
				for (int r = 0; r < R; r++)
					acc[r] ^= seed_mul4(lg, ex, atile[r][tx], dtile[tx][ty]);
				__syncthreads();
			}
			// XOR-reduce the T partial sums of word ty across the T lanes tx.
#pragma unroll
			for (int r = 0; r < R; r++)
#pragma unroll
				for (int o = T / 2; o > 0; o >>= 1)
					acc[r] ^= __shfl_xor_sync(0xffffffffu, acc[r], o, T);
			const size_t w = w0 + ty;

			if (tx < R && r0 + tx < args.rows && w < words) {
				uint8_t *q = args.dst[(size_t)s * args.rows + r0 + tx] + w * 4;
				const size_t left = args.len - w * 4;
				uint32_t val = 0;

#pragma unroll
				for (int r = 0; r < R; r++)
					val = r == tx ? acc[r] : val;
				if (args.vec && left >= 4) {
					*(uint32_t *)q = val ^ (args.acc ? *(uint32_t *)q : 0);
				} else {
					for (size_t b = 0; b < (left < 4 ? left : 4); b++)
						q[b] = (uint8_t)(val >> (8 * b)) ^ (args.acc ? q[b] : 0);
				}
			}
		}
	}
}

} // namespace gfec
