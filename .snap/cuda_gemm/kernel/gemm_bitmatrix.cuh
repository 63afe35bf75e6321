// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gemm_bitmatrix.cuh
 * Cauchy RS (CRS) over packets on the GPU: every output packet is the XOR of the input packets
 * its bitmatrix row selects (Jerasure's jerasure_bitmatrix_encode; technique=cauchy_good). The
 * CPU twin is gfec_cpu_bitmatrix_base() in cpu_backend/bitmatrix.c.
 *
 *   one CRS block of chunk j:  | packet x=0 | x=1 | ... | x=7 |   (args.packetsize bytes each)
 *   out packet (i, l) = XOR over q = 8j + x in list(8i + l) of in packet q
 *
 * A work item is one tile of THREADS words (WORD bytes each) at the same offset in all 8*cols
 * input packets of one block of one stripe. The block stages that tile in shared memory
 * (coalesced loads: consecutive threads, consecutive words), then walks each output row's list:
 * one shared-memory load and one XOR per listed packet, the list being the same for every thread
 * (a broadcast read). Lists are precomputed on the host (kernel_build_tables):
 *
 *   tables: rowptr[8*rows + 1], then the q of every set bit, row by row
 *
 * Shared memory: the lists, then the tile (8 * cols * THREADS * WORD bytes).
 */
#pragma once

#include "gemm_args.cuh"

namespace gfec {

template <int WORD> struct BitWord;
template <> struct BitWord<16> {
	using T = uint4;
	static __device__ __forceinline__ T zero()
	{
		return make_uint4(0, 0, 0, 0);
	}
	static __device__ __forceinline__ T x(T a, T b)
	{
		return make_uint4(a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w);
	}
};
template <> struct BitWord<8> {
	using T = uint2;
	static __device__ __forceinline__ T zero()
	{
		return make_uint2(0, 0);
	}
	static __device__ __forceinline__ T x(T a, T b)
	{
		return make_uint2(a.x ^ b.x, a.y ^ b.y);
	}
};

/* Bytes of shared memory the lists of a rows x cols matrix take, rounded to 16. */
__host__ __device__ inline size_t bitmatrix_list_bytes(int rows, size_t nentries)
{
	return ((size_t)(8 * rows + 1) + nentries) * 4 + 15 & ~(size_t)15;
}

template <int THREADS, int WORD>
__global__ void __launch_bounds__(THREADS) gf_gemm_bitmatrix(GemmArgs args)
{
	using W = BitWord<WORD>;
	using T = typename W::T;
	extern __shared__ __align__(16) uint8_t smem[];
	const int R = 8 * args.rows, Q = 8 * args.cols;
	const uint32_t *g_rowptr = args.tables;
	const uint32_t nent = g_rowptr[R];
	uint32_t *rowptr = reinterpret_cast<uint32_t *>(smem);
	uint32_t *off = rowptr + R + 1; // entry -> byte offset of its packet's row in the tile
	uint8_t *tile = smem + bitmatrix_list_bytes(args.rows, nent);
	const int tid = threadIdx.x;

	for (int i = tid; i <= R; i += THREADS)
		rowptr[i] = g_rowptr[i];
	for (uint32_t e = tid; e < nent; e += THREADS)
		off[e] = g_rowptr[R + 1 + e] * (THREADS * WORD);
	__syncthreads();

	const size_t P = args.packetsize, block = 8 * P;
	const size_t words = P / WORD, tiles = (words + THREADS - 1) / THREADS;
	const size_t nblocks = args.len / block;
	const size_t items = (size_t)args.nstripes * nblocks * tiles;

	for (size_t it = blockIdx.x; it < items; it += gridDim.x) {
		const size_t s = it / (nblocks * tiles), rem = it % (nblocks * tiles);
		const size_t b = rem / tiles, w = (rem % tiles) * THREADS + tid;
		const bool active = w < words;
		const size_t base = b * block + w * WORD;

		// Stage: packet q = 8j + x of this block, word w, into tile row q.
		for (int q = 0; q < Q; q++) {
			T v = W::zero();

			if (active) {
				const uint8_t *p = args.src[s * args.cols + (q >> 3)] + base + (q & 7) * P;

				if (args.vec) {
					v = *reinterpret_cast<const T *>(p);
				} else {
					uint8_t *d = reinterpret_cast<uint8_t *>(&v);

					for (int i = 0; i < WORD; i++)
						d[i] = p[i];
				}
			}
			*reinterpret_cast<T *>(tile + (size_t)q * (THREADS * WORD) + tid * WORD) = v;
		}
		__syncthreads();
		if (active) {
			const uint8_t *mine = tile + tid * WORD;

			for (int r = 0; r < R; r++) {
				T acc = W::zero();
				uint32_t e = rowptr[r];
				const uint32_t end = rowptr[r + 1];

				for (; e + 1 < end; e += 2)
					acc = W::x(acc, W::x(*reinterpret_cast<const T *>(mine + off[e]),
							      *reinterpret_cast<const T *>(mine + off[e + 1])));
				if (e < end)
					acc = W::x(acc, *reinterpret_cast<const T *>(mine + off[e]));

				uint8_t *q = args.dst[s * args.rows + (r >> 3)] + base + (r & 7) * P;

				if (args.vec) {
					T *d = reinterpret_cast<T *>(q);

					*d = args.acc ? W::x(*d, acc) : acc;
				} else {
					const uint8_t *a = reinterpret_cast<const uint8_t *>(&acc);

					for (int i = 0; i < WORD; i++)
						q[i] = a[i] ^ (args.acc ? q[i] : 0);
				}
			}
		}
		__syncthreads();
	}
}

} // namespace gfec
