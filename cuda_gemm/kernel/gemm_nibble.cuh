// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file gemm_nibble.cuh
 * GF(2^8) GEMM through nibble tables in shared memory: the GPU analogue of ISA-L's pshufb.
 *
 * c * x = c * (x & 0x0f) ^ c * (x & 0xf0), so each product is two 16-entry lookups. One table
 * word packs the products of 4 rows (a "row group" g), so one pair of lookups serves 4 parity
 * rows. Every table is stored 32 times, once per bank, and lane l reads only its own copy:
 *
 *   table ti = j*RG + g (input j, row group g), 4 KiB at byte ti * 4096:
 *     byte offset  n * 256 + half * 128 + lane * 4   holds   pack_r A(4g+r, j) * (n << 4*half)
 *
 * so a warp's 32 lookups always hit 32 different banks, whatever the data. The byte address is
 * built with one PRMT per lookup: byte 0 = lane*4 (+128 for the high nibble), byte 1 =
 * (ti & 15) << 4 | nibble, byte 2 = ti >> 4. A data byte costs 2 PRMT + 2 LDS per row group.
 *
 * Limits: rows <= 4 * RG, cols * RG <= 56 (224 KiB of tables).
 * Thread layout: a persistent grid; each thread walks 16-byte units (u = tid, tid + stride, ...).
 */
#pragma once

#include "gemm_args.cuh"

namespace gfec {

constexpr int kNibbleTableBytes = 4096;
constexpr int kNibbleMaxTables = 56;

__device__ __forceinline__ uint32_t lds32(const uint8_t *smem, uint32_t addr)
{
	return *reinterpret_cast<const uint32_t *>(smem + addr);
}

// 4x4 byte transpose: in[b] holds rows 0..3 of byte position b; out[r] holds positions 0..3 of row r.
__device__ __forceinline__ void transpose4(const uint32_t *in, uint32_t *out)
{
	const uint32_t t0 = __byte_perm(in[0], in[1], 0x5140);
	const uint32_t t1 = __byte_perm(in[2], in[3], 0x5140);
	const uint32_t t2 = __byte_perm(in[0], in[1], 0x7362);
	const uint32_t t3 = __byte_perm(in[2], in[3], 0x7362);

	out[0] = __byte_perm(t0, t1, 0x5410);
	out[1] = __byte_perm(t0, t1, 0x7632);
	out[2] = __byte_perm(t2, t3, 0x5410);
	out[3] = __byte_perm(t2, t3, 0x7632);
}

// The kernel's body; stripe s's inputs are srcs[s * cols + j], its outputs dsts[s * rows + i]
// (args.src / args.dst, or the launch's own parameters: gf_gemm_nibble_inline).
template <int RG, int THREADS>
__device__ __forceinline__ void nibble_body(const GemmArgs &args, const uint8_t *const *srcs,
					    uint8_t *const *dsts)
{
	extern __shared__ __align__(16) uint8_t smem[];
	uint32_t *tab = reinterpret_cast<uint32_t *>(smem);
	const int ntab = args.cols * RG;
	const uint32_t lane = threadIdx.x & 31;
	const uint32_t lane4 = lane * 4;

	// Replicate the compact tables (32 words per table) into the bank-per-lane layout.
	for (int i = threadIdx.x; i < ntab * (kNibbleTableBytes / 4); i += THREADS) {
		const int ti = i >> 10, rem = i & 1023;

		tab[i] = args.tables[ti * 32 + ((rem >> 5) & 1) * 16 + (rem >> 6)];
	}
	__syncthreads();

	const size_t total = (size_t)args.nstripes * args.units;

	for (size_t u = (size_t)blockIdx.x * THREADS + threadIdx.x; u < total;
	     u += (size_t)gridDim.x * THREADS) {
		const size_t s = u / args.units;
		const size_t off = (u % args.units) * 16;
		const uint8_t *const *src = srcs + s * args.cols;
		uint8_t *const *dst = dsts + s * args.rows;

		if (args.vec && off + 16 <= args.len) {
			uint32_t acc[RG][16];

#pragma unroll
			for (int g = 0; g < RG; g++)
#pragma unroll
				for (int b = 0; b < 16; b++)
					acc[g][b] = 0;
#pragma unroll 2
			for (int j = 0; j < args.cols; j++) {
				const uint4 v = ld16(src[j] + off);
				const uint32_t w[4] = { v.x, v.y, v.z, v.w };

#pragma unroll
				for (int q = 0; q < 4; q++) {
					const uint32_t lo = w[q] & 0x0f0f0f0fu;
					const uint32_t hi = (w[q] >> 4) & 0x0f0f0f0fu;

#pragma unroll
					for (int g = 0; g < RG; g++) {
						const uint32_t ti = (uint32_t)(j * RG + g);
						const uint32_t jb = (ti & 15) * 0x10101010u;
						const uint32_t yl = ((ti >> 4) << 16) | lane4;
						const uint32_t yh = yl | 128;
						const uint32_t xl = lo | jb, xh = hi | jb;

#pragma unroll
						for (int b = 0; b < 4; b++) {
							const uint32_t sel = 0x7604u | (b << 4);

							acc[g][q * 4 + b] ^=
								lds32(smem, __byte_perm(xl, yl, sel)) ^
								lds32(smem, __byte_perm(xh, yh, sel));
						}
					}
				}
			}
#pragma unroll
			for (int g = 0; g < RG; g++) {
				uint32_t row[4][4]; // row[r][q]: word q of output row 4g+r

#pragma unroll
				for (int q = 0; q < 4; q++) {
					uint32_t t[4];

					transpose4(&acc[g][q * 4], t);
#pragma unroll
					for (int r = 0; r < 4; r++)
						row[r][q] = t[r];
				}
#pragma unroll
				for (int r = 0; r < 4; r++) {
					if (4 * g + r >= args.rows)
						continue;
					uint4 o = make_uint4(row[r][0], row[r][1], row[r][2], row[r][3]);

					if (args.acc) {
						const uint4 d = ld16(dst[4 * g + r] + off);

						o.x ^= d.x, o.y ^= d.y, o.z ^= d.z, o.w ^= d.w;
					}
					st16(dst[4 * g + r] + off, o);
				}
			}
		} else {
			// Unaligned buffers or the last partial unit: one byte at a time.
			const size_t end = off + 16 < args.len ? off + 16 : args.len;

			for (size_t p = off; p < end; p++) {
				uint32_t acc[RG];

#pragma unroll
				for (int g = 0; g < RG; g++)
					acc[g] = 0;
				for (int j = 0; j < args.cols; j++) {
					const uint32_t d = src[j][p];

#pragma unroll
					for (int g = 0; g < RG; g++) {
						const uint32_t *t = tab + (j * RG + g) * 1024 + lane;

						acc[g] ^= t[(d & 15) * 64] ^ t[(d >> 4) * 64 + 32];
					}
				}
#pragma unroll
				for (int g = 0; g < RG; g++)
#pragma unroll
					for (int r = 0; r < 4; r++)
						if (4 * g + r < args.rows)
							dst[4 * g + r][p] = (uint8_t)(acc[g] >> (8 * r)) ^
									    (args.acc ? dst[4 * g + r][p] : 0);
			}
		}
	}
}

template <int RG, int THREADS>
__global__ void __launch_bounds__(THREADS) gf_gemm_nibble(GemmArgs args)
{
	nibble_body<RG, THREADS>(args, args.src, args.dst);
}

/**
 * The same kernel with the stripes' pointers in its parameters (GemmArgsInline: src then dst),
 * read in place (__grid_constant__): a small batch needs no pointer table in device memory, so
 * no copy before the launch.
 */
template <int RG, int THREADS>
__global__ void __launch_bounds__(THREADS) gf_gemm_nibble_inline(const __grid_constant__ GemmArgsInline p)
{
	nibble_body<RG, THREADS>(p.args, p.ptrs,
				 p.ptrs + (size_t)p.args.nstripes * p.args.cols);
}

/** The XOR-stream bound: read every input once, write every output once, one XOR per word. */
template <int THREADS> __global__ void __launch_bounds__(THREADS) xor_stream(GemmArgs args)
{
	const size_t total = (size_t)args.nstripes * args.units;

	for (size_t u = (size_t)blockIdx.x * THREADS + threadIdx.x; u < total;
	     u += (size_t)gridDim.x * THREADS) {
		const size_t s = u / args.units, off = (u % args.units) * 16;
		uint4 x = make_uint4(0, 0, 0, 0);

#pragma unroll 4
		for (int j = 0; j < args.cols; j++) {
			const uint4 v = ld16(args.src[s * args.cols + j] + off);

			x.x ^= v.x;
			x.y ^= v.y;
			x.z ^= v.z;
			x.w ^= v.w;
		}
		for (int i = 0; i < args.rows; i++)
			st16(args.dst[s * args.rows + i] + off, x);
	}
}

} // namespace gfec
